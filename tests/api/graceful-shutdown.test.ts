import { randomBytes } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dbKind, type TestDatabase } from '../helpers/database.js';
import { children, ensureServerBuilt, kill, startServer } from '../helpers/server-process.js';

// A real server process sent SIGTERM while kept-alive connections keep it busy: the requests it had accepted finish
// normally, and every other answer is the API's own 503 envelope (Retry-After, Connection: close, the API's security
// headers), never Fastify's bare `{"error":"Service Unavailable",...}`.

interface Answer {
  what: string;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One request through a keep-alive agent; a transport failure (refused, reset) is undefined: no answer. */
function request(
  port: number,
  agent: http.Agent,
  path: string,
  what: string,
  body?: { first: string; rest: string; after: Promise<unknown> },
): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent,
        method: body ? 'POST' : 'GET',
        headers: body
          ? {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body.first + body.rest)),
              'x-requested-with': 'XMLHttpRequest',
            }
          : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ what, status: res.statusCode!, headers: res.headers, body: text }));
        res.on('error', () => resolve(undefined));
      },
    );
    req.on('error', () => resolve(undefined));
    if (!body) return void req.end();
    // The head and half the body now, the rest later: the server has accepted the request and waits for its body.
    req.write(body.first);
    void body.after.then(() => req.end(body.rest));
  });
}

/** Every answer, parsed off a raw socket (each with a Content-Length), until the server closes it. */
function rawAnswers(socket: Socket, what: string): Promise<Answer[]> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => (buffer = Buffer.concat([buffer, chunk])));
    socket.on('error', () => {});
    socket.on('close', () => {
      const answers: Answer[] = [];
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) break;
        const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers: IncomingHttpHeaders = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        const length = Number(headers['content-length'] ?? 0);
        const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
        answers.push({ what, status: Number(statusLine!.split(' ')[1]), headers, body });
        buffer = buffer.subarray(end + 4 + length);
      }
      resolve(answers);
    });
  });
}

describe(`a graceful stop (${dbKind()})`, () => {
  let db: TestDatabase | undefined;

  afterAll(async () => {
    await Promise.all([...children].map((child) => kill(child, 'SIGKILL')));
    await db?.drop();
  });

  it('finishes the requests it accepted and answers every other with the 503 envelope, on kept-alive connections', async () => {
    await ensureServerBuilt();
    db = await createTestDatabase();
    const server = await startServer(db, randomBytes(32).toString('base64url'), { SCHEDULER: 'off' });
    const port = Number(new URL(server.base).port);
    const answers: Answer[] = [];
    const exited = new Promise<void>((done) => server.child.once('exit', () => done()));
    let sigterm!: () => void;
    const stopping = new Promise<void>((done) => (sigterm = done));

    // Six clients, each on a connection of its own kept alive, asking one read after another until the process is gone.
    let running = true;
    const loops = Array.from({ length: 6 }, async (_, i) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      for (let n = 0; running; n++) {
        const path = (n + i) % 2 ? '/api/health?ready=true' : '/api/basicInformation/get?id=1';
        const answer = await request(port, agent, path, 'loop');
        if (answer) answers.push(answer);
        else await sleep(5);
      }
      agent.destroy();
    });

    // Three sign-ins in flight when SIGTERM comes (half their body sent; a wrong password, so scrypt runs): accepted,
    // they must finish with their normal answer.
    const inFlight = Array.from({ length: 3 }, (_, i) => {
      const json = JSON.stringify({ userAccount: `nobody${i}`, userPassword: 'wrong-password-1' });
      const half = Math.floor(json.length / 2);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      return request(port, agent, '/api/user/login', 'in flight', {
        first: json.slice(0, half),
        rest: json.slice(half),
        after: stopping.then(() => sleep(100)),
      }).finally(() => agent.destroy());
    });

    // Two kept-alive connections with one request answered. On one the next request's head is half sent when SIGTERM
    // comes; on the other (idle then) the next request is sent only after it: both arrive while the process stops.
    const read = 'GET /api/basicInformation/get?id=1 HTTP/1.1\r\nHost: localhost\r\n';
    const [busy, idle] = [connect(port, '127.0.0.1'), connect(port, '127.0.0.1')];
    const onBusy = rawAnswers(busy, 'kept alive, busy');
    const onIdle = rawAnswers(idle, 'kept alive, idle');
    busy.write(`${read}\r\n`);
    idle.write(`${read}\r\n`);

    await sleep(400);
    busy.write(read);
    await sleep(100);
    server.child.kill('SIGTERM');
    sigterm();
    await sleep(100);
    busy.write('\r\n');
    idle.write(`${read}\r\n`);

    let stuck: NodeJS.Timeout | undefined;
    await Promise.race([
      exited,
      new Promise(
        (_, fail) => (stuck = setTimeout(() => fail(new Error('no exit within 10 s after SIGTERM')), 10_000)),
      ),
    ]).finally(() => clearTimeout(stuck));
    running = false;
    await Promise.all(loops);
    expect(server.child.exitCode, server.output()).toBe(0);
    const accepted = await Promise.all(inFlight);
    const kept = [await onBusy, await onIdle];
    answers.push(...kept.flat());

    // The in-flight sign-ins finished with their own answer (wrong account or password), closing their connection.
    for (const answer of accepted) {
      expect(answer, 'an accepted request was not answered').toBeDefined();
      expect(answer!.status).not.toBe(503);
      expect(JSON.parse(answer!.body)).toMatchObject({ code: 40000, data: null });
      expect(answer!.headers.connection).toBe('close');
    }
    // The kept-alive connections: the first request answered normally, the one arriving during the stop with the 503
    // (not reset, as the idle one was when the listener's close destroyed it at once).
    expect(kept.map((conversation) => conversation.map((a) => a.status))).toEqual([
      [200, 503],
      [200, 503],
    ]);

    const stopped = answers.filter((a) => a.status === 503);
    expect(stopped.length).toBeGreaterThan(0);
    for (const answer of answers) {
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      // Never Fastify's own shape; always the envelope.
      expect(Object.keys(body).sort(), `${answer.what}: ${answer.body}`).toEqual(['code', 'data', 'message']);
      if (answer.status !== 503) {
        expect(answer.status, answer.body).toBe(200);
        continue;
      }
      expect(body.code).toBe(50000);
      expect(body.data).toBeNull();
      expect(body.message).toMatch(/^[\u4e00-\u9fff，]+$/u);
      expect(answer.headers['retry-after'], answer.what).toMatch(/^\d+$/);
      expect(answer.headers.connection, answer.what).toBe('close');
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      // The API's own headers (http/security-headers.ts).
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(answer.headers['cache-control']).toBe('no-store');
    }
  });
});
