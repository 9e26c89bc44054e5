import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../src/api/operations.js';
import type { OperationId } from '../../src/api/operations.js';
import { open } from '../../src/server/modules/ai/secret.js';
import { guardedLookup, refusedByName } from '../../src/server/modules/ai/target-guard.js';
import { auditTrail } from '../helpers/audit.js';
import type { CallOptions } from '../helpers/client.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { freePort } from '../helpers/ports.js';
import { useTestApp } from '../helpers/test-app.js';

// The AI endpoint against an OpenAI-compatible server on loopback that this file starts. The key must never leave
// the server: every response body of this file and everything written to the console or stdout/stderr is scanned.
const app = useTestApp();
const KEY = 'sk-test-0123456789abcdefSECRET';
let fake: FakeOpenAi;
const bodies: string[] = [];
const written: string[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi();
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    vi.spyOn(stream, 'write').mockImplementation((...args: unknown[]) => {
      written.push(String(args[0]));
      return write(...args);
    });
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      written.push(args.map(String).join(' '));
      original(...args);
    });
  }
});

afterAll(async () => {
  vi.restoreAllMocks();
  await fake.close();
  expect(bodies.filter((b) => b.includes(KEY))).toEqual([]);
  expect(written.filter((w) => w.includes(KEY))).toEqual([]);
});

beforeEach(() => {
  fake.mode = 'ok';
  fake.received.length = 0;
});

afterEach(() => {
  expect(
    bodies.filter((b) => b.includes(KEY)),
    'the key in a response',
  ).toEqual([]);
});

/** An admin call whose answer is kept for the key scan. */
async function adminCall<T = unknown>(operationId: OperationId, options: CallOptions = {}) {
  const result = await (await app().admin()).call<T>(operationId, options);
  bodies.push(JSON.stringify(result));
  return result;
}

const CONFIG = { enabled: 1, model: 'test-model-1', timeoutMs: 1000, dailyBudget: 100 } as const;

async function configure(patch: Partial<Schemas['AiConfigUpdateRequest']> = {}) {
  const saved = await adminCall('aiConfigUpdate', {
    body: { ...CONFIG, baseUrl: fake.baseUrl, apiKey: KEY, ...patch },
  });
  expect([saved.status, saved.code]).toEqual([200, 0]);
}

const testConnection = async () => (await adminCall<Schemas['AiTestResult']>('aiConfigTest')).data;

describe('the configuration', () => {
  it('starts off with no key; saves with the key encrypted at rest and never answered; blank keeps the key', async () => {
    const fresh = await adminCall<Schemas['AiConfig']>('aiConfigGet');
    expect(fresh.data).toMatchObject({ enabled: 0, apiKeySet: false, updatedAt: null });

    await configure();
    const saved = await adminCall<Schemas['AiConfig']>('aiConfigGet');
    expect(saved.data).toMatchObject({ ...CONFIG, baseUrl: fake.baseUrl, apiKeySet: true });

    const { db, config } = app().built.context;
    const row = await db.selectFrom('aiConfig').selectAll().executeTakeFirstOrThrow();
    expect(row.apiKeyCipher).not.toContain(KEY);
    expect(row.apiKeyCipher).not.toContain(Buffer.from(KEY).toString('base64'));
    expect(open(config.sessionSecret, row.apiKeyCipher!)).toBe(KEY);
    expect(open('another-secret-another-secret-another!', row.apiKeyCipher!)).toBeNull();

    await configure({ apiKey: '', model: 'test-model-2' });
    const kept = await db.selectFrom('aiConfig').selectAll().executeTakeFirstOrThrow();
    expect(open(config.sessionSecret, kept.apiKeyCipher!)).toBe(KEY);
    expect(kept.model).toBe('test-model-2');

    const audit = await auditTrail(app(), 'ai', 1);
    expect(audit.map((a) => a.after.apiKeyChanged)).toEqual([true, false]);
    expect(JSON.stringify(audit)).not.toContain(KEY);
  });

  it('is for admins only', async () => {
    const user = await app().newUser();
    for (const op of ['aiConfigGet', 'aiConfigTest'] as const) {
      const refused = await user.client.call(op);
      expect([refused.status, refused.code]).toEqual([403, 40101]);
    }
  });
});

describe('test connection', () => {
  it('sends the configured model, a user message and the key as a Bearer token, and shows the answer', async () => {
    await configure();
    expect(await testConnection()).toEqual({ ok: true, message: '连接成功', reply: '你好，连接正常。' });
    expect(fake.received).toHaveLength(1);
    const [sent] = fake.received;
    expect(sent!.url).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body.model).toBe('test-model-1');
    expect(sent!.body.messages?.map((m) => m.role)).toEqual(['user']);
  });

  it.each([
    ['401', 'AI 接口拒绝了 API Key（401），请检查密钥'],
    ['429', 'AI 接口请求过于频繁或额度不足（429），请稍后再试'],
    ['malformed', 'AI 接口的回答格式不正确'],
    ['no-choices', 'AI 接口的回答格式不正确'],
    ['hang', 'AI 接口响应超时'],
    // Headers at once, then a body that never ends: the deadline covers the body too, not only the headers.
    ['trickle', 'AI 接口响应超时'],
  ] as const)(
    'answers a clear Chinese reason when the endpoint answers %s, once (no retries)',
    async (mode, message) => {
      await configure();
      fake.mode = mode;
      expect(await testConnection()).toEqual({ ok: false, message, reply: null });
      expect(fake.received).toHaveLength(1);
    },
  );

  it('says when the endpoint is unreachable, when no key is set, and when the day’s budget is spent', async () => {
    await configure({ baseUrl: `http://127.0.0.1:${await freePort()}/v1` });
    expect(await testConnection()).toMatchObject({ ok: false, message: '无法连接 AI 接口，请检查接口地址' });

    await configure({ dailyBudget: 0 });
    expect(await testConnection()).toMatchObject({ ok: false, message: '今日 AI 请求次数已用完' });
    expect(fake.received).toHaveLength(0);
  });

  it('counts requests per day against the budget, however many arrive at once', async () => {
    await configure({ dailyBudget: 1_000 });
    const before = (await adminCall<Schemas['AiConfig']>('aiConfigGet')).data.usedToday;
    await configure({ dailyBudget: before + 3 });
    const results = await Promise.all(Array.from({ length: 6 }, () => testConnection()));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    expect(results.filter((r) => r.message === '今日 AI 请求次数已用完')).toHaveLength(3);
    expect(fake.received).toHaveLength(3);
    expect((await adminCall<Schemas['AiConfig']>('aiConfigGet')).data.usedToday).toBe(before + 3);
  });
});

describe('where the endpoint may point', () => {
  const context = () => app().built.context;
  let lookups: string[] = [];
  const stubResolver = (answers: Record<string, string[]>) => {
    lookups = [];
    context().lookupHost = async (hostname) => {
      lookups.push(hostname);
      const addresses = answers[hostname];
      if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
  };
  let system: ReturnType<typeof context>['lookupHost'];
  beforeAll(() => {
    system = context().lookupHost;
  });
  afterAll(() => {
    context().lookupHost = system;
  });

  const REFUSED = 'AI 接口地址指向链路本地或云服务器元数据地址，出于安全考虑不允许使用';

  it.each([
    ['a link-local address', 'http://169.254.169.254/v1'],
    ['an IPv6 link-local address', 'http://[fe80::1]:8080/v1'],
    ['an IPv4-mapped link-local address', 'http://[::ffff:169.254.169.254]/v1'],
    ['Alibaba Cloud’s metadata address', 'http://100.100.100.200/v1'],
    ['a metadata host name', 'http://metadata.google.internal/computeMetadata/v1'],
    ['a name that resolves to link-local', 'http://models.example.test/v1'],
    ['a name with one link-local address among others', 'http://mixed.example.test/v1'],
  ])('refuses %s before connecting, with a clear message', async (_, baseUrl) => {
    stubResolver({ 'models.example.test': ['169.254.169.254'], 'mixed.example.test': ['127.0.0.1', 'fe80::2'] });
    await configure({ baseUrl, dailyBudget: 10_000 });
    expect(await testConnection()).toEqual({ ok: false, message: REFUSED, reply: null });
    const polished = await adminCall<Schemas['AiPolishResult']>('aiPolish', {
      body: { field: 'noticeBar', text: '维护' },
    });
    expect(polished.data).toEqual({ ok: false, message: REFUSED, text: null });
    expect(fake.received).toHaveLength(0);
  });

  it('allows loopback and private addresses: a model on the same host or network is a real setup', async () => {
    // The name resolves to loopback, where the fake listens; a private address is checked without connecting to it.
    const port = new URL(fake.baseUrl).port;
    stubResolver({ 'llm.lan.test': ['127.0.0.1'], 'gpu-box.lan.test': ['10.1.2.3'] });
    await configure({ baseUrl: `http://llm.lan.test:${port}/v1` });
    expect(await testConnection()).toEqual({ ok: true, message: '连接成功', reply: fake.reply });
    expect(lookups).toContain('llm.lan.test');
    // A private address is allowed: the connection's lookup hands it to the socket (asked here directly, so no test
    // sends anything past loopback).
    const lookup = guardedLookup(context().lookupHost);
    const answered = await new Promise<unknown>((done) =>
      lookup('gpu-box.lan.test', { all: true }, (error, addresses) => done(error ?? addresses)),
    );
    expect(answered).toEqual([{ address: '10.1.2.3', family: 4 }]);
    expect(refusedByName('http://192.168.1.20:11434/v1')).toBe(false);
  });
});

describe('AI 润色 on the site texts', () => {
  it('polishes the admin’s own words for the notice bar and saves nothing', async () => {
    await configure({ dailyBudget: 10_000 });
    fake.reply = '本周六系统维护，期间暂停服务，敬请谅解。';
    const site = (await adminCall<Schemas['BasicInformation']>('basicInformationGet', { query: { id: 1 } })).data;
    const polished = await adminCall<Schemas['AiPolishResult']>('aiPolish', {
      body: { field: 'noticeBar', text: '周六维护 停服务' },
    });
    expect([polished.code, polished.data]).toEqual([
      0,
      { ok: true, message: '已生成', text: '本周六系统维护，期间暂停服务，敬请谅解。' },
    ]);
    const [sent] = fake.received;
    expect(sent!.body.model).toBe('test-model-1');
    expect(sent!.body.messages?.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent!.body.messages?.[1]?.content).toBe('周六维护 停服务');
    expect(sent!.body.messages?.[0]?.content).toContain('通知栏');
    const after = (await adminCall<Schemas['BasicInformation']>('basicInformationGet', { query: { id: 1 } })).data;
    expect(after.noticeBar).toBe(site.noticeBar);
  });

  it('refuses when AI is off or the budget is spent, and answers the endpoint’s failures as reasons', async () => {
    await configure({ enabled: 0, dailyBudget: 10_000 });
    const ask = () =>
      adminCall<Schemas['AiPolishResult']>('aiPolish', { body: { field: 'noticeAnnouncement', text: '明天放假' } });
    const off = await ask();
    expect([off.status, off.code, off.message]).toEqual([400, 40000, 'AI 功能未开启']);

    await configure({ dailyBudget: 10_000 });
    const cases: [FakeOpenAi['mode'], string][] = [
      ['401', 'AI 接口拒绝了 API Key（401），请检查密钥'],
      ['429', 'AI 接口请求过于频繁或额度不足（429），请稍后再试'],
      ['malformed', 'AI 接口的回答格式不正确'],
    ];
    for (const [mode, message] of cases) {
      fake.mode = mode;
      const failed = await ask();
      expect([mode, failed.status, failed.data]).toEqual([mode, 200, { ok: false, message, text: null }]);
    }
    await configure({ dailyBudget: 0 });
    const spent = await ask();
    expect([spent.status, spent.code, spent.message]).toEqual([429, 42900, '今日 AI 请求次数已用完']);
    const user = await app().newUser();
    const refused = await user.client.call('aiPolish', { body: { field: 'noticeBar', text: '你好' } });
    expect([refused.status, refused.code]).toEqual([403, 40101]);
  });
});
