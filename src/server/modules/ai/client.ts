import OpenAI from 'openai';

// The one call the product makes to an OpenAI-compatible endpoint, through the official client with the configured
// base URL. Failures come back as one of a few kinds, each with a Chinese sentence an admin can act on; nothing here
// logs, and no message carries the key.

export interface Endpoint {
  baseUrl: string;
  model: string;
  apiKey: string;
  timeoutMs: number;
}

export type Failure = { kind: 'unreachable' | 'auth' | 'timeout' | 'rate' | 'malformed' | 'upstream'; message: string };

export class AiCallError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message);
  }
}

function failureOf(error: unknown): Failure {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout', message: 'AI 接口响应超时' };
  if (error instanceof OpenAI.APIConnectionError)
    return { kind: 'unreachable', message: '无法连接 AI 接口，请检查接口地址' };
  if (error instanceof OpenAI.AuthenticationError)
    return { kind: 'auth', message: 'AI 接口拒绝了 API Key（401），请检查密钥' };
  if (error instanceof OpenAI.RateLimitError)
    return { kind: 'rate', message: 'AI 接口请求过于频繁或额度不足（429），请稍后再试' };
  if (error instanceof OpenAI.APIError)
    return { kind: 'upstream', message: `AI 接口返回错误（${error.status ?? '未知状态'}）` };
  // The client could not read the answer as JSON.
  return { kind: 'malformed', message: 'AI 接口的回答格式不正确' };
}

/** Sends one chat completion and answers the model's text; throws AiCallError. */
export async function complete(
  endpoint: Endpoint,
  messages: { role: 'system' | 'user'; content: string }[],
): Promise<string> {
  const client = new OpenAI({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseUrl,
    timeout: endpoint.timeoutMs,
    // One request per call: the daily budget counts requests, and the admin is waiting.
    maxRetries: 0,
    logLevel: 'off',
  });
  let answer: unknown;
  try {
    answer = await client.chat.completions.create({ model: endpoint.model, messages });
  } catch (error) {
    throw new AiCallError(failureOf(error));
  }
  const text = (answer as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') throw new AiCallError(failureOf(null));
  return text.trim();
}
