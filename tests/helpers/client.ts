import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import { operationById, responseValidator } from './contract.js';

export interface CallOptions {
  query?: Record<string, unknown>;
  body?: unknown;
  /** Leave out the anti-CSRF header, as a cross-site form post would. */
  withoutCsrf?: boolean;
  headers?: Record<string, string>;
  /** A raw body string, for malformed-JSON tests. */
  rawBody?: string;
  ip?: string;
}

export interface CallResult<T = any> {
  status: number;
  code: number;
  message: string;
  data: T;
  /** A failure's developer-facing detail (e.g. the header a protocol fault is about); never shown to a user. */
  detail?: string;
  /** A failure's line-by-line problems (an uploaded CSV's bad lines), as the envelope lists them. */
  problems?: { line: number; account: string; reason: string }[];
  headers: Record<string, string | string[] | number | undefined>;
}

/**
 * Calls operations by operationId through Fastify's injector, keeping the session cookie like a browser, and checks
 * every answer against the response schema openapi.yaml declares (so a leaked field or a wrong shape fails a test).
 */
export class ApiClient {
  cookie: string | undefined;

  constructor(private readonly fastify: FastifyInstance) {}

  async call<T = any>(operationId: OperationId, options: CallOptions = {}): Promise<CallResult<T>> {
    const op = operationById.get(operationId);
    if (!op) throw new Error(`unknown operation ${operationId}`);
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) query.append(k, String(v));
    const qs = query.toString();
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (!options.withoutCsrf) headers['x-requested-with'] = 'XMLHttpRequest';
    if (this.cookie) headers.cookie = this.cookie;
    let payload: string | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined && op.gatewayCallback) {
      // A gateway's notification is a form, as gateways send it.
      payload = new URLSearchParams(options.body as Record<string, string>).toString();
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const request: InjectOptions = {
      method: op.method,
      url: op.path + (qs ? `?${qs}` : ''),
      headers,
      payload,
      remoteAddress: options.ip ?? '127.0.0.1',
    };
    // An event stream never ends by itself: its opening is the answer (tests/helpers/event-stream.ts reads one).
    if (op.eventStream) return this.#openStream(operationId, request);
    const response = await this.fastify.inject(request);
    const setCookie = response.headers['set-cookie'];
    for (const c of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair] = c.split(';');
      if (pair?.startsWith('sid=')) this.cookie = pair === 'sid=' ? undefined : pair;
    }
    // A file answer (the CSV exports) is not an envelope: its text is the data. Nor is a gateway callback's answer
    // (success / fail in plain text, whatever the input).
    const contentType = String(response.headers['content-type'] ?? '');
    if (op.gatewayCallback) {
      expect([response.statusCode, contentType], response.body).toEqual([200, 'text/plain; charset=utf-8']);
      expect(['success', 'fail']).toContain(response.body);
      return { status: 200, code: 0, message: '', data: response.body as T, headers: response.headers };
    }
    if (response.statusCode === 200 && contentType.startsWith('text/csv')) {
      return { status: response.statusCode, code: 0, message: '', data: response.body as T, headers: response.headers };
    }
    const json = response.json();
    const validate = responseValidator(operationId, response.statusCode);
    expect(
      validate,
      `${operationId} answered ${response.statusCode}, which openapi.yaml does not declare`,
    ).toBeDefined();
    if (!(validate as (data: unknown) => boolean)(json)) {
      throw new Error(
        `${operationId} ${response.statusCode} does not match openapi.yaml: ${JSON.stringify(validate!.errors)}\n${response.body}`,
      );
    }
    return {
      status: response.statusCode,
      code: json.code,
      message: json.message,
      data: json.data,
      ...(typeof json.detail === 'string' ? { detail: json.detail } : {}),
      ...(Array.isArray(json.problems) ? { problems: json.problems } : {}),
      headers: response.headers,
    };
  }

  /** Opens an event stream and closes it at once: a 200 with `text/event-stream` is success; a refusal is an envelope. */
  async #openStream(operationId: OperationId, request: InjectOptions): Promise<CallResult> {
    const response = await this.fastify.inject({ ...request, payloadAsStream: true });
    const stream = response.stream();
    if (response.statusCode === 200) {
      expect(String(response.headers['content-type'])).toMatch(/^text\/event-stream/);
      stream.destroy();
      return { status: 200, code: 0, message: '', data: '', headers: response.headers };
    }
    let body = '';
    for await (const chunk of stream) body += String(chunk);
    const json = JSON.parse(body);
    const validate = responseValidator(operationId, response.statusCode);
    expect(
      validate,
      `${operationId} answered ${response.statusCode}, which openapi.yaml does not declare`,
    ).toBeDefined();
    if (!(validate as (data: unknown) => boolean)(json))
      throw new Error(`${operationId} ${response.statusCode} does not match openapi.yaml: ${body}`);
    return {
      status: response.statusCode,
      code: json.code,
      message: json.message,
      data: json.data,
      headers: response.headers,
    };
  }

  /** Calls and insists on success, returning the envelope's data. */
  async ok<T = any>(operationId: OperationId, options: CallOptions = {}): Promise<T> {
    const result = await this.call<T>(operationId, options);
    if (result.code !== 0) throw new Error(`${operationId} failed: ${result.status} ${result.code} ${result.message}`);
    return result.data;
  }
}
