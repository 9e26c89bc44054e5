import type { FastifyError, FastifyInstance } from 'fastify';
import { validationMessages } from '../../shared/validation-messages.js';
import { AppError, ErrorCode, failure } from './errors.js';

/** Fastify's own request errors (body parsing, media type, size), said in words a user can act on. */
const REQUEST_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: '请求内容须为 JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: validationMessages.bodyRequired,
  FST_ERR_CTP_INVALID_JSON_BODY: '请求内容不是有效的 JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: '请求内容过大',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: '请求内容长度不正确',
};

/** Every failure leaves as the envelope; nothing internal (stack, SQL, paths) ever reaches the client. */
export function registerErrorHandling(fastify: FastifyInstance, options: { spaFallback: boolean }): void {
  fastify.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.retryAfterSeconds) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.status).send(failure(error.code, error.message));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message =
        REQUEST_ERRORS[error.code] ??
        (error instanceof SyntaxError ? REQUEST_ERRORS.FST_ERR_CTP_INVALID_JSON_BODY : validationMessages.invalid);
      return reply.status(400).send(failure(ErrorCode.BAD_PARAMS, message!));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send(failure(ErrorCode.SERVER_ERROR, '服务器开小差了，请稍后再试'));
  });

  fastify.setNotFoundHandler((request, reply) => {
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !request.url.startsWith('/api/');
    // Deep links (/mall, /gxy/update …) belong to the web app's router: answer them with the app itself.
    if (isPage && options.spaFallback) {
      return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply
      .status(404)
      .send(failure(ErrorCode.NOT_FOUND, request.url.startsWith('/api/') ? '接口不存在' : '页面不存在'));
  });
}
