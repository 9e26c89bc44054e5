import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** The timeouts Fastify sets on the server it creates itself; a server given through serverFactory gets them here. */
interface ServerTimeouts {
  keepAliveTimeout?: number;
  requestTimeout?: number;
  connectionTimeout?: number;
  maxRequestsPerSocket?: number;
}

/** A plain HTTP server configured as Fastify configures its own, for Fastify's serverFactory. */
export function createHttpServer(
  options: ServerTimeouts,
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): Server {
  const server = createServer(listener);
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  server.setTimeout(options.connectionTimeout ?? 0);
  if (options.maxRequestsPerSocket && options.maxRequestsPerSocket > 0)
    server.maxRequestsPerSocket = options.maxRequestsPerSocket;
  return server;
}
