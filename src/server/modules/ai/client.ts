import OpenAI from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { guardedLookup, REFUSED_TARGET, refusedByName, wasRefused, type LookupHost } from './target-guard.js';

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

const TIMED_OUT: Failure = { kind: 'timeout', message: 'AI 接口响应超时' };

/**
 * Sends one chat completion and answers the model's text; throws AiCallError. `timeoutMs` is one deadline for the
 * whole call (resolving, connecting, the headers and the whole body): the client's own timeout ends at the headers,
 * so an endpoint that trickles its body would otherwise hold the admin's request forever.
 */
export async function complete(
  endpoint: Endpoint,
  messages: { role: 'system' | 'user'; content: string }[],
  lookupHost: LookupHost,
): Promise<string> {
  if (refusedByName(endpoint.baseUrl)) throw new AiCallError({ kind: 'unreachable', message: REFUSED_TARGET });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), endpoint.timeoutMs);
  // Connections of this call only, each resolved through the guard (see target-guard.ts).
  const connections = new Agent({ connect: { lookup: guardedLookup(lookupHost) } });
  const client = new OpenAI({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseUrl,
    timeout: endpoint.timeoutMs,
    // One request per call: the daily budget counts requests, and the admin is waiting.
    maxRetries: 0,
    logLevel: 'off',
    fetch: ((url: string, init: object) =>
      undiciFetch(url, { ...init, dispatcher: connections })) as unknown as typeof fetch,
  });
  try {
    const answer: unknown = await client.chat.completions.create(
      { model: endpoint.model, messages },
      { signal: deadline.signal },
    );
    return textOf(answer);
  } catch (error) {
    if (error instanceof AiCallError) throw error;
    if (deadline.signal.aborted) throw new AiCallError(TIMED_OUT);
    if (wasRefused(error)) throw new AiCallError({ kind: 'unreachable', message: REFUSED_TARGET });
    throw new AiCallError(failureOf(error));
  } finally {
    clearTimeout(timer);
    void connections.destroy();
  }
}

function textOf(answer: unknown): string {
  const text = (answer as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || text.trim() === '') throw new AiCallError(failureOf(null));
  return text.trim();
}
