import cluster from 'node:cluster';
import { rmSync, writeFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { answerMetricsAsks, clusterMetrics, runPrimary, workerCount } from './cluster.js';
import { metricsServer } from './metrics/serve.js';
import { serverPidFile } from './db/sqlite-backup.js';
import { loadConfig } from './config/config.js';
import { ConfigError } from './lib/config-values.js';
import { rolledUp } from './modules/dashboard/rollups.js';
import { deleteWindowsBefore } from './support/limits/repo.js';
import { purgeExpiredSessions } from './modules/sessions/service.js';

const HOUR = 3600 * 1000;

async function main(): Promise<void> {
  const config = loadConfig();
  const workers = workerCount(process.env, config.database);
  if (workers > 1 && cluster.isPrimary) {
    runPrimary(workers, (message) => console.log(`[primary ${process.pid}] ${message}`));
    // One scrape for the whole group: the primary sums what each worker counts.
    if (config.metrics.port) await metricsServer(config.metrics.port, clusterMetrics);
    console.log(
      `积分商城启动 ${workers} 个工作进程：http://${config.host.replace('127.0.0.1', 'localhost')}:${config.port}`,
    );
    return;
  }
  const { fastify, context, scheduler, generatedAdminPassword } = await buildApp(config);
  if (generatedAdminPassword) {
    // Printed once, on the first start only; the hash is all that is stored.
    console.log(
      `\n  管理员账号已创建：${config.adminAccount}\n  初始密码（只显示这一次，请登录后修改）：${generatedAdminPassword}\n`,
    );
  }

  const housekeeping = setInterval(() => {
    const now = context.now();
    Promise.all([
      purgeExpiredSessions(context.db, now),
      deleteWindowsBefore(context.db, now - 24 * HOUR),
      rolledUp(context, config.jobs.timeZone),
    ]).catch((err: unknown) => fastify.log.error({ err }, 'housekeeping failed'));
  }, HOUR);
  housekeeping.unref();

  let removePidFile = () => {};
  let stopScrapes = () => {};
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    fastify.log.info({ signal }, 'shutting down');
    clearInterval(housekeeping);
    stopScrapes();
    // In-flight requests finish; new connections are refused; the scheduler stops claiming and waits (bounded) for its
    // runs; the database closes last (onClose).
    fastify.close().then(
      () => {
        removePidFile();
        process.exit(0);
      },
      (err: unknown) => {
        fastify.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // A worker whose primary is gone (WORKERS>1, the primary killed) stops as it would on SIGTERM.
  if (cluster.isWorker) process.on('disconnect', () => shutdown('disconnect'));

  const address = await fastify.listen({ host: config.host, port: config.port });
  if (cluster.isWorker) answerMetricsAsks(context.metrics.registry);
  else if (config.metrics.port) {
    const scrape = await metricsServer(config.metrics.port, () => context.metrics.registry.metrics());
    stopScrapes = () => scrape.close();
  }
  // On SQLite the server says it is using the file, so `npm run db:restore` refuses to put a backup under it.
  const pidFile = config.database.kind === 'sqlite' ? serverPidFile(config.database.path) : undefined;
  if (pidFile) writeFileSync(pidFile, `${process.pid}\n`);
  removePidFile = () => {
    if (pidFile) rmSync(pidFile, { force: true });
  };
  // Runs start once the process serves; shutdown (fastify.close) stops claiming and waits for runs in flight.
  if (config.jobs.enabled) await scheduler.start();
  // The dashboard sums each finished day once (rollups); summing the days since the last start now, a day per turn
  // of the event loop, spares the first admin who opens it after a deploy the wait (about 0.6 s at 1M entries).
  rolledUp(context, config.jobs.timeZone).catch((err: unknown) =>
    fastify.log.error({ err }, 'dashboard rollup failed'),
  );
  console.log(`积分商城已启动：${address.replace('127.0.0.1', 'localhost')}  (数据库：${config.database.kind})`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `配置错误：${error.message}` : error);
  process.exit(1);
});
