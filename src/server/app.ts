import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { AppConfig } from './config/config.js';
import type { AppContext } from './modules/context.js';
import { migrate, openDatabase, type DatabaseHandle } from './db/database.js';
import { handlers } from './handlers.js';
import { registerClosingAnswers } from './http/closing.js';
import { badUrlHandler, clientErrorHandler, registerErrorHandling } from './http/error-handler.js';
import { appHtml } from './http/app-html.js';
import { listOperations, loadOpenApi, SCHEMAS_ID } from './http/openapi.js';
import { registerOperations } from './http/routes.js';
import { API_HEADERS, registerSecurityHeaders } from './http/security-headers.js';
import { registerWebManifest } from './http/web-manifest.js';
import { RequestValidator } from './http/validation.js';
import { createMailer, type Mailer } from './support/mailer.js';
import { refreshAnalyticsOrigin } from './modules/site/analytics.js';
import { ensureAdmin } from './modules/users/service.js';
import { SandboxConnector } from './jobs/connectors/sandbox/connector.js';
import { systemLookup } from './modules/ai/target-guard.js';
import { Scheduler } from './jobs/scheduler.js';
import { loopbackPoster } from './http/loopback.js';
import { ensureSandboxChannel } from './modules/payments/channels.js';
import { seedKinds } from './modules/platforms/service.js';
import { SettingsValidator } from './modules/services/settings.js';
import { startLive } from './live/live.js';
import { countDue } from './modules/runs/queue-repo.js';
import { createMetrics } from './metrics/metrics.js';
import { countRequests, metricsRoute } from './metrics/serve.js';
import { forgetLiveSite } from './modules/site/live-site-cache.js';

export interface BuildOptions {
  /** Where openapi.yaml lives; the repository root by default. */
  openapiPath?: string;
  mailer?: Mailer;
  now?: () => number;
  logger?: boolean | Record<string, unknown>;
}

export interface BuiltApp {
  fastify: FastifyInstance;
  context: AppContext;
  database: DatabaseHandle;
  /** Platform services' runs; started by main.ts when SCHEDULER is on, ticked by tests otherwise. */
  scheduler: Scheduler;
  /** Set when this start created the admin with a generated password (shown once, never stored in clear). */
  generatedAdminPassword?: string;
}

// Two levels up from both src/server/app.ts and the bundled dist/server/main.js.
export const OPENAPI_PATH = fileURLToPath(new URL('../../openapi.yaml', import.meta.url));

/** Builds the whole app (database migrated, admin seeded, routes bound) without listening. */
export async function buildApp(config: AppConfig, options: BuildOptions = {}): Promise<BuiltApp> {
  const live: AppContext['live'] = { analyticsOrigin: '' };
  const fastify = Fastify({
    // Errors answered before any route or hook runs still leave as the envelope with the security headers.
    frameworkErrors: badUrlHandler(() => API_HEADERS),
    clientErrorHandler: clientErrorHandler(() => API_HEADERS),
    logger: options.logger ?? { level: config.logLevel },
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    // A number of proxies in front: the first that many hops are believed (fastify's types take it as a function).
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    bodyLimit: 256 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
    // While it stops, the app answers in its own words (http/closing.ts), not Fastify's bare 503. Connections idle
    // when the listener closes are destroyed (Node does it for `server.close()` anyway; said here, not left implied).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  });
  const database = openDatabase(config.database, (err) => fastify.log.warn({ err }, 'database connection lost'));
  try {
    await migrate(config.database, database);
  } catch (error) {
    await database.close();
    throw error;
  }
  let liveEvents: Awaited<ReturnType<typeof startLive>>;
  try {
    liveEvents = await startLive(config.live, config.database, database, fastify.log);
  } catch (error) {
    await database.close();
    throw error;
  }
  const mailer = options.mailer ?? createMailer(config.smtpUrl, config.mailFrom, fastify.log);
  const openapi = loadOpenApi(options.openapiPath ?? OPENAPI_PATH);
  const validator = new RequestValidator(openapi);
  const now = options.now ?? Date.now;
  const metrics = createMetrics({
    pool: database.poolStats,
    busyRetries: database.busyRetries,
    runsDue: () => countDue(database.db, now()),
    openStreams: () => liveEvents.hub.size,
  });
  const context: AppContext = {
    db: database.db,
    config,
    mailer,
    log: fastify.log,
    now,
    live,
    settings: new SettingsValidator((family) => validator.compile({ $ref: `${SCHEMAS_ID}#/$defs/${family}` }, 'body')),
    lookupHost: systemLookup,
    streams: liveEvents.hub,
    metrics,
    loopback: loopbackPoster(fastify),
  };
  // A save on another process: this one's copy of the live site record is stale from now, not a second from now.
  liveEvents.bus.onEvent(({ event }) => {
    if (event.kind === 'site') forgetLiveSite();
  });
  const scheduler = new Scheduler(
    context,
    new SandboxConnector(database.db, config.jobs.sandbox, () => context.now()),
    database.kind === 'postgres',
  );
  fastify.setValidatorCompiler(({ schema, httpPart }) =>
    validator.compile(
      schema as Record<string, unknown>,
      httpPart === 'body' ? 'body' : httpPart === 'headers' ? 'headers' : 'querystring',
    ),
  );
  // The API speaks JSON only; without this a text/plain body would reach validation and get a vaguer message.
  fastify.removeContentTypeParser('text/plain');
  registerSecurityHeaders(fastify, () => live.analyticsOrigin);
  // First of the request hooks after the headers: while the process stops, a new request is answered before any other.
  const closing = registerClosingAnswers(fastify);
  await fastify.register(fastifyCookie);
  const hasWebApp = existsSync(join(config.webRoot, 'index.html'));
  registerErrorHandling(fastify, { spaFallback: hasWebApp ? appHtml(config.webRoot) : null });
  countRequests(fastify, metrics);
  metricsRoute(fastify, metrics, config.metrics.token);
  const operations = listOperations(openapi);
  registerOperations(fastify, operations, handlers, context);

  fastify.get('/api/openapi.json', { schema: { hide: true } }, async () => openapi);
  await fastify.register(fastifySwagger, { mode: 'static', specification: { document: openapi as never } });
  await fastify.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });

  if (hasWebApp) {
    registerWebManifest(fastify, context);
    await fastify.register(fastifyStatic, {
      root: config.webRoot,
      wildcard: false,
      index: false,
      // The build writes .br and .gz beside each asset; phones get the compressed file without work per request.
      preCompressed: true,
      setHeaders(res, path) {
        // Hashed file names never change content; index.html always revalidates (served by the fallback).
        res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  let refresh: NodeJS.Timeout | undefined;
  fastify.addHook('preClose', async () => {
    closing.begin();
    // Open event streams never end by themselves: they are ended before the server waits for its connections.
    liveEvents.hub.close();
    // Before Fastify closes the listener: a request already on its way gets the 503 envelope rather than a reset.
    await closing.drain();
  });
  fastify.addHook('onClose', async () => {
    clearInterval(refresh);
    await scheduler.stop();
    await liveEvents.close();
    mailer.close();
    await database.close();
  });

  // Routes compile their schemas here, so a contract error stops the start before anything is seeded.
  await fastify.ready();
  const admin = await ensureAdmin(context);
  await seedKinds(context);
  await ensureSandboxChannel(context);
  await refreshAnalyticsOrigin(context);
  // Another process may change the site record; a minute is soon enough for an analytics address.
  refresh = setInterval(
    () =>
      void refreshAnalyticsOrigin(context).catch((err: unknown) =>
        fastify.log.warn({ err }, 'analytics refresh failed'),
      ),
    60_000,
  );
  refresh.unref();
  return { fastify, context, database, scheduler, generatedAdminPassword: admin.generatedPassword };
}
