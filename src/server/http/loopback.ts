import type { FastifyInstance } from 'fastify';

const FORM = 'application/x-www-form-urlencoded';
const TIMEOUT_MS = 10_000;

/**
 * Posts a form to a path of this very server: over loopback TCP to the address it listens on, as a gateway on the
 * same machine would (the sandbox gateway's notifications travel like a real gateway's), or, before it listens (API
 * tests that never open a port), through Fastify's injector. Answers the body of the answer.
 */
export function loopbackPoster(fastify: FastifyInstance) {
  return async (path: string, form: Record<string, string>): Promise<string> => {
    const body = new URLSearchParams(form).toString();
    const address = fastify.server.address();
    if (address === null || typeof address === 'string') {
      const answer = await fastify.inject({
        method: 'POST',
        url: path,
        payload: body,
        headers: { 'content-type': FORM },
      });
      return answer.body;
    }
    const wildcard = address.address === '0.0.0.0' || address.address === '::';
    const host = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const response = await fetch(`http://${host}:${address.port}${path}`, {
      method: 'POST',
      headers: { 'content-type': FORM },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return response.text();
  };
}
