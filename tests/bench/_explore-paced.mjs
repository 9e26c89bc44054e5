import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startAppServer, cleanup, createPostgresSchema, cpuMeter } from './lib.mjs';

const kind = process.argv[2] ?? 'sqlite';
const rate = Number(process.argv[3] ?? 200);
const seconds = Number(process.argv[4] ?? 10);
const adminPassword = 'Admin-' + randomBytes(6).toString('hex');
let databaseUrl, schema;
if (kind === 'sqlite') databaseUrl = 'sqlite:' + join(mkdtempSync(join(tmpdir(), 'pe-')), 'a.db');
else { databaseUrl = 'postgres://postgres@127.0.0.1:5432/test'; schema = (await createPostgresSchema(databaseUrl)).schema ?? undefined; }
const server = await startAppServer({ label: kind, databaseUrl, schema, adminPassword, cpu: process.env.SRV_CPU ?? '1', cpuProfDir: process.env.PROF ? '/tmp/explore' : undefined, ...(process.env.MAINJS ? { mainJs: process.env.MAINJS } : {}) });
const pool = new Pool(server.base, { connections: 32, pipelining: 1 });
async function api(path, { body, cookie, key, method = 'POST' } = {}) {
  const headers = { 'x-requested-with': 'bench' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (cookie) headers.cookie = cookie; if (key) headers['idempotency-key'] = key;
  const r = await pool.request({ path, method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.body.text(); const json = JSON.parse(text);
  if (json.code !== 0) throw new Error(path + ' ' + text);
  const sc = r.headers['set-cookie']; const sid = [].concat(sc ?? []).map((c) => c.split(';')[0]).find((c) => c.startsWith('sid='));
  return { data: json.data, sid };
}
const { sid: admin } = await api('/api/user/login', { body: { userAccount: 'admin', userPassword: adminPassword } });
const users = [];
for (let i = 0; i < 20; i++) {
  const userAccount = `b${i}_${randomBytes(3).toString('hex')}`;
  await api('/api/user/add', { body: { userAccount, userPassword: 'Passw0rd-x1' }, cookie: admin });
  await api('/api/user/addCoin', { body: { userAccount, coin: 10_000_000, description: 'b' }, cookie: admin, key: 'f' + randomBytes(8).toString('hex') });
  const { sid } = await api('/api/user/login', { body: { userAccount, userPassword: 'Passw0rd-x1' } });
  users.push({ userAccount, cookie: sid });
}
let seq = 0;
const one = () => {
  const payer = Math.floor(Math.random() * users.length); let payee = Math.floor(Math.random() * (users.length - 1)); if (payee >= payer) payee++;
  return api('/api/user/transferCoin', { body: { userAccount: users[payee].userAccount, coin: 1 }, cookie: users[payer].cookie, key: 'k' + (seq++).toString(36).padStart(8, '0') });
};
async function paced(fn, rate, seconds) {
  const lat = []; const start = performance.now() + 50; const n = Math.round(rate * seconds); const pending = [];
  for (let i = 0; i < n; i++) {
    const at = start + (i * 1000) / rate;
    const wait = at - performance.now(); if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(fn().then(() => lat.push(performance.now() - at)));
  }
  await Promise.all(pending); lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  return `n=${lat.length} p50=${q(0.5)} p90=${q(0.9)} p99=${q(0.99)} max=${lat.at(-1).toFixed(1)} ms`;
}
for (let i = 0; i < 300; i++) await one();
const meter = cpuMeter(server.child.pid);
for (let r = 0; r < 3; r++) {
  const m = cpuMeter(server.child.pid);
  const res = await paced(one, rate, seconds);
  console.log(kind, rate + '/s', res, 'cpu', ((m() ?? 0) * 1e6 / (rate * seconds)).toFixed(0) + " µs/req" );
}
await pool.close(); await cleanup(); process.exit(0);
