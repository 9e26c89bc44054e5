import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OpenAI-compatible endpoint on loopback that a test starts: it answers POST /v1/chat/completions as told and
// keeps every request it received, so a test checks what the product sent (model, messages, Authorization).

// 'hang' never answers; 'trickle' sends its headers at once and then its body a byte at a time, never ending it.
export type FakeMode = 'ok' | '401' | '429' | 'malformed' | 'no-choices' | 'hang' | 'trickle';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: { model?: string; messages?: { role: string; content: string }[] };
}

export interface FakeOpenAi {
  /** The base URL the product is configured with (…/v1). */
  baseUrl: string;
  mode: FakeMode;
  reply: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, body: string, type = 'application/json') {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const hanging: ServerResponse[] = [];
  const fake: FakeOpenAi = { baseUrl: '', mode: 'ok', reply: '你好，连接正常。', received: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      let body: ReceivedRequest['body'] = {};
      try {
        body = JSON.parse(raw) as ReceivedRequest['body'];
      } catch {
        // Kept as empty: the test's assertion on the body then fails.
      }
      fake.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        answer(res, 404, '{"error":"not found"}');
        return;
      }
      switch (fake.mode) {
        case 'ok': {
          answer(
            res,
            200,
            JSON.stringify({
              id: 'chatcmpl-test',
              object: 'chat.completion',
              created: 0,
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content: fake.reply }, finish_reason: 'stop' }],
            }),
          );
          return;
        }
        case '401': {
          answer(
            res,
            401,
            JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }),
          );
          return;
        }
        case '429': {
          answer(res, 429, JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests' } }));
          return;
        }
        case 'malformed': {
          answer(res, 200, '<html>not json', 'text/html');
          return;
        }
        case 'no-choices': {
          answer(res, 200, JSON.stringify({ id: 'x', object: 'chat.completion' }));
          return;
        }
        case 'hang':
          hanging.push(res);
          return;
        case 'trickle': {
          hanging.push(res);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{');
          const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 100);
          res.on('close', () => clearInterval(drip));
          return;
        }
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((done) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => done());
    });
  return fake;
}
