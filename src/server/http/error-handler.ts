import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailable, type Unavailable } from '../db/errors.js';
import { validationMessages } from '../../shared/validation-messages.js';
import { AppError, ErrorCode, LineProblemsError } from '../lib/errors.js';
import { failure } from './envelope.js';
import { chooseEncoding, type AppHtml } from './app-html.js';

/** Fastify's own request errors (body parsing, media type, size), said in words a user can act on. */
const REQUEST_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: '请求内容须为 JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: validationMessages.bodyRequired,
  FST_ERR_CTP_INVALID_JSON_BODY: '请求内容不是有效的 JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: '请求内容过大',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: '请求内容长度不正确',
};

/** 503 with Retry-After: the server cannot answer now (database unreachable or busy, the process stopping). */
export function sendUnavailable(reply: FastifyReply, unavailable: Unavailable): FastifyReply {
  return reply
    .status(503)
    .header('retry-after', String(unavailable.retryAfterSeconds))
    .send(failure(ErrorCode.SERVER_ERROR, unavailable.message));
}

/** Every failure leaves as the envelope; nothing internal (stack, SQL, paths) ever reaches the client. */
export function registerErrorHandling(
  fastify: FastifyInstance,
  options: { spaFallback: ((pathname: string) => AppHtml) | null },
): void {
  fastify.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds));
      const problems = error instanceof LineProblemsError ? error.problems : undefined;
      return reply.status(error.status).send(failure(error.code, error.message, error.detail, problems));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        REQUEST_ERRORS[error.code] ??
        (error instanceof SyntaxError ? REQUEST_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY : validationMessages.invalid);
      return reply.status(400).send(failure(ErrorCode.BAD_PARAMS, message!));
    }
    const unavailable = databaseUnavailable(error);
    if (unavailable) {
      // The database is unreachable or busy beyond the time limits: a clean answer the client may retry, not a hang.
      request.log.warn({ err: error }, 'database unavailable');
      return sendUnavailable(reply, unavailable);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(failure(ErrorCode.SERVER_ERROR, '服务器开小差了，请稍后再试'));
  });

  fastify.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    // A missing file (/assets/index-3f2a.js after a deploy, /favicon.ico) is a 404: answering the app's HTML would
    // have a browser run a page as a script. Deep links have no file extension.
    const isFile = path.startsWith('/assets/') || /\.[A-Za-z0-9]+$/.test(path);
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !path.startsWith('/api/') && !isFile;
    // Deep links (/mall, /gxy/update …) belong to the web app's router: answer them with the app itself.
    if (isPage && options.spaFallback) {
      const page = options.spaFallback(path);
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      if (encoding !== 'identity') reply.header('content-encoding', encoding);
      return reply
        .header('cache-control', 'no-cache')
        .header('vary', 'accept-encoding')
        .type('text/html; charset=utf-8')
        .send(page[encoding]);
    }
    return reply
      .status(404)
      .send(failure(ErrorCode.NOT_FOUND, request.url.startsWith('/api/') ? '接口不存在' : '页面不存在'));
  });
}

/**
 * A URL the router cannot decode (`/api/user/get/login%`): Fastify answers these before any route or hook, so the
 * envelope and the security headers are set here.
 */
export function badUrlHandler(headersFor: (url: string) => Readonly<Record<string, string>>) {
  return (_error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    void reply.status(400).headers(headersFor(request.url)).send(failure(ErrorCode.BAD_PARAMS, '请求地址不正确'));
  };
}

const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, message: '请求头过大' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, message: '请求超时，请重试' },
};

/**
 * A request Node's HTTP parser refuses (a head over 16 KB, a malformed request, a timeout) never reaches Fastify:
 * the answer is written to the socket here, still as the envelope with the security headers.
 */
export function clientErrorHandler(headersFor: (url: string) => Readonly<Record<string, string>>) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
    const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? { status: 400, message: '请求格式不正确' };
    const body = JSON.stringify(failure(ErrorCode.BAD_PARAMS, message));
    const headers = {
      ...headersFor('/api/'),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n\r\n${body}`);
  };
}
