// The stack's own ceiling for the two reads run.mjs measures (ARCHITECTURE.md, performance stance): bare Fastify routes
// doing the same database work as the app's, each as one prepared statement, with none of the app's hooks, validation,
// session sliding or envelope building:
// - GET /api/user/get/login: the session joined with its user, by the HMAC of the cookie's token;
// - GET /api/basicInformation/get?id=1: the site record's row (read on every request; the app keeps it for a second).
// run.mjs measures them beside the app on the same database and reports app / this ratio.
// Run as a child (`node bare-fastify.mjs --child <port>`, settings in BARE_* variables) so its CPU is its own.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BenchError, LOOPBACK, freePort, pinned, track } from './lib.mjs';

const THIS_FILE = fileURLToPath(import.meta.url);

// The same columns as the app's lookup (sessions/repo.ts, sessionWithUser).
const SESSION_READ = `select s.user_id, s.created_at, s.last_seen_at, s.expires_at, s.revoked_at, s.revoke_reason,
  s.signed_in_with, u.user_account, u.user_name, u.user_role, u.status, u.deleted_at, u.email, u.invitation_code,
  u.coin, u.created_at as user_created_at, u.two_factor_at
  from sessions s join users u on u.id = s.user_id where s.token_hash = `;

const SITE_READ = 'select * from site_information where id = ';

/** Each read as a function of its one parameter: a kept better-sqlite3 statement, or a named pg statement. */
async function readers(databaseUrl, schema) {
  const require = createRequire(import.meta.url);
  if (databaseUrl.startsWith('sqlite:')) {
    const Database = require('better-sqlite3');
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true });
    db.pragma('busy_timeout = 20');
    const session = db.prepare(`${SESSION_READ}?`);
    const site = db.prepare(`${SITE_READ}?`);
    return { session: async (hash) => session.get(hash), site: async (id) => site.get(id) };
  }
  const pg = require('pg');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const named = (name, text) => async (value) => (await pool.query({ name, text, values: [value] })).rows[0];
  return { session: named('session_read', `${SESSION_READ}$1`), site: named('site_read', `${SITE_READ}$1`) };
}

async function child(port) {
  const { default: Fastify } = await import('fastify');
  const read = await readers(process.env.BARE_DATABASE_URL, process.env.BARE_SCHEMA || undefined);
  const secret = process.env.BARE_SESSION_SECRET;
  const app = Fastify({ logger: false });
  app.get('/api/user/get/login', async (request, reply) => {
    const token = /(?:^|;\s*)sid=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
    const row = token ? await read.session(createHmac('sha256', secret).update(token).digest('hex')) : undefined;
    if (!row) return reply.code(401).send({ code: 40100, message: '未登录', data: null });
    return { code: 0, message: 'ok', data: row };
  });
  app.get('/api/basicInformation/get', async (request, reply) => {
    const row = await read.site(Number(request.query.id ?? 1));
    if (!row) return reply.code(404).send({ code: 40400, message: '不存在', data: null });
    return { code: 0, message: 'ok', data: row };
  });
  await app.listen({ port, host: LOOPBACK });
  process.send?.({ ready: true });
  // An exit rather than the signal's default, so a --cpu-prof profile is written.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

/** Starts the baseline on the app's database with the app's session secret, pinned to `cpu` when given. */
export async function startBareFastify({ databaseUrl, schema, sessionSecret, cpu, cpuProfDir }) {
  const port = await freePort();
  // With BENCH_CPU_PROF the ceiling is profiled too, so the app's profile can be read against it.
  const profile = cpuProfDir
    ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`, `--cpu-prof-name=bare-fastify-${port}.cpuprofile`]
    : [];
  const [command, args] = pinned(cpu, process.execPath, [...profile, THIS_FILE, '--child', String(port)]);
  const env = {
    ...process.env,
    BARE_DATABASE_URL: databaseUrl,
    BARE_SCHEMA: schema ?? '',
    BARE_SESSION_SECRET: sessionSecret,
  };
  const c = track(spawn(command, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new BenchError('bare Fastify did not start within 20 s')), 20_000);
    c.once('message', () => {
      clearTimeout(timer);
      done();
    });
    c.once('exit', (code) => {
      clearTimeout(timer);
      fail(new BenchError(`bare Fastify exited (${code}) before it was ready`));
    });
  });
  c.removeAllListeners('exit');
  return { name: 'bare-fastify', child: c, base: `http://${LOOPBACK}:${port}`, output: { tail: [] } };
}

if (process.argv[1] === THIS_FILE && process.argv[2] === '--child') void child(Number(process.argv[3]));
