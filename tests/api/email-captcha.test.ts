import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, CallResult } from '../helpers/client.js';
import { startTestApp, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// The whole e-mail flow through the app's real nodemailer transport and a real SMTP server on loopback.

interface Delivered {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

const inbox: Delivered[] = [];
/** How many of the next messages the SMTP server refuses (550 after DATA). */
let refuseNext = 0;

function createSmtp(): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refuseNext > 0) {
          refuseNext--;
          callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
          return;
        }
        inbox.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
}

async function startSmtp(port: number): Promise<SMTPServer> {
  const server = createSmtp();
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

const stopSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

let smtp: SMTPServer;
let smtpPort: number;
let testApp: TestApp;
const app = () => testApp;

beforeAll(async () => {
  smtp = await startSmtp(0);
  smtpPort = (smtp.server.address() as AddressInfo).port;
  testApp = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${smtpPort}` }, { realMailer: true });
});

afterAll(async () => {
  await testApp?.close();
  if (smtp) await stopSmtp(smtp);
});

const MINUTE = 60 * 1000;
const SEND_FAILED = '验证码发送失败，请稍后再试';

// ---- reading the delivered mail --------------------------------------------------------------------------------

function decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft.slice(i + 1, i + 3);
    if (soft[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The header block and the decoded text of a single-part message. */
function parse(raw: string): { headers: string; text: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const encoding = /^content-transfer-encoding:\s*([\w-]+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return { headers, text: Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') };
  if (encoding === 'quoted-printable') return { headers, text: decodeQuotedPrintable(body) };
  return { headers, text: body };
}

const mailsTo = (address: string) => inbox.filter((m) => m.rcptTo.includes(address.toLowerCase()));

/** The 6-digit code of the newest mail delivered to this address. */
function codeFor(address: string): string {
  const mail = mailsTo(address).at(-1);
  if (!mail) throw new Error(`no mail delivered to ${address}`);
  const code = /(?<!\d)(\d{6})(?!\d)/.exec(parse(mail.raw).text)?.[1];
  if (!code) throw new Error(`no code in the mail to ${address}`);
  return code;
}

const otherCode = (code: string, step = 1) => String((Number(code) + step) % 1_000_000).padStart(6, '0');
const newAddress = (prefix = 'm') => `${uniqueAccount(prefix).toLowerCase()}@example.com`;

const getCaptcha = (client: ApiClient, emailAccount: string) =>
  client.call('userGetCaptcha', { query: { emailAccount } });
const bind = (client: ApiClient, emailAccount: string, captcha: string) =>
  client.call('userBindEmail', { body: { emailAccount, captcha } });
const unbind = (client: ApiClient, emailAccount: string, captcha: string) =>
  client.call('userUnbindEmail', { body: { emailAccount, captcha } });

function expectFailure(r: CallResult, status: number, code: number, message?: string) {
  expect([r.status, r.code], r.message).toEqual([status, code]);
  if (message !== undefined) expect(r.message).toBe(message);
}

// ---- the flow -----------------------------------------------------------------------------------------------------

describe('binding an e-mail address', () => {
  it('mails a 6-digit code over SMTP and binds the address with it; the current user then shows it', async () => {
    const { client, id } = await app().newUser();
    const local = uniqueAccount('Mixed');
    const typed = `${local}@Example.COM`;
    const address = typed.toLowerCase();
    expect((await client.ok('userGetLogin')).email).toBeNull();

    const sent = await getCaptcha(client, typed);
    expect(sent.code).toBe(0);
    expect(sent.data).toEqual({ resendAfterSeconds: 60, expiresInSeconds: 600 });

    const mails = mailsTo(address);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.mailFrom).toBe('test@localhost');
    const { headers, text } = parse(mails[0]!.raw);
    expect(headers).toMatch(new RegExp(`^to: ${address}`, 'im'));
    expect(text).toContain('10 分钟内有效');
    const code = codeFor(address);
    expect(code).toMatch(/^\d{6}$/);

    expect((await bind(client, typed, code)).code).toBe(0);
    expect((await client.ok('userGetLogin')).email).toBe(address);
    expect((await (await app().admin()).ok('userGet', { query: { id } })).email).toBe(address);

    // A code works once.
    expectFailure(await bind(client, address, code), 400, 40000, '该邮箱已经绑定');
    // The code is never stored as it is.
    const rows = await app()
      .built.context.db.selectFrom('emailCaptchas')
      .selectAll()
      .where('email', '=', address)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('answers 429 with the wait in the message when a code is asked again within 60 seconds; only the newest code counts', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    expect((await getCaptcha(client, address)).code).toBe(0);
    const first = codeFor(address);

    app().clock.advance(20 * 1000);
    const again = await getCaptcha(client, address);
    expectFailure(again, 429, 42900, '验证码已发送，请 40 秒后再试');
    expect(again.headers['retry-after']).toBe('40');
    expect(mailsTo(address)).toHaveLength(1);

    app().clock.advance(40 * 1000);
    expect((await getCaptcha(client, address)).code).toBe(0);
    expect(mailsTo(address)).toHaveLength(2);
    const second = codeFor(address);
    if (second !== first) expectFailure(await bind(client, address, first), 400, 40000);
    expect((await bind(client, address, second)).code).toBe(0);
  });

  it('kills a code after 5 wrong tries, even if the right one follows', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    await getCaptcha(client, address);
    const code = codeFor(address);
    for (let left = 4; left >= 1; left--) {
      expectFailure(
        await bind(client, address, otherCode(code, left)),
        400,
        40000,
        `验证码错误，还可以再试 ${left} 次`,
      );
    }
    expectFailure(await bind(client, address, otherCode(code, 9)), 400, 40000, '验证码错误次数过多，请重新获取');
    expectFailure(await bind(client, address, code), 400, 40000, '验证码错误次数过多，请重新获取');
    expect((await client.ok('userGetLogin')).email).toBeNull();

    // A new code starts afresh.
    app().clock.advance(MINUTE);
    await getCaptcha(client, address);
    expect((await bind(client, address, codeFor(address))).code).toBe(0);
  });

  it('counts wrong codes sent all at once one by one: never more than 5 tries', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    await getCaptcha(client, address);
    const code = codeFor(address);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => bind(client, address, otherCode(code, i + 1))),
    );
    const left = results
      .map((r) => /还可以再试 (\d) 次/.exec(r.message)?.[1])
      .filter((n): n is string => n !== undefined);
    expect(new Set(left).size, `answers: ${results.map((r) => r.message).join(' | ')}`).toBe(left.length);
    expect(left.length).toBeLessThanOrEqual(4);
    for (const r of results) expectFailure(r, 400, 40000);
    expectFailure(await bind(client, address, code), 400, 40000, '验证码错误次数过多，请重新获取');
  });

  it('lets a code expire 10 minutes after it was sent', async () => {
    const early = await app().newUser();
    const late = await app().newUser();
    const earlyAddress = newAddress();
    const lateAddress = newAddress();
    await getCaptcha(early.client, earlyAddress);
    await getCaptcha(late.client, lateAddress);
    app().clock.advance(10 * MINUTE - 1000);
    expect((await bind(early.client, earlyAddress, codeFor(earlyAddress))).code).toBe(0);
    app().clock.advance(1000);
    expectFailure(await bind(late.client, lateAddress, codeFor(lateAddress)), 400, 40000, '验证码已失效，请重新获取');
    expect((await late.client.ok('userGetLogin')).email).toBeNull();
  });

  it('answers 409 / 40900 for an address bound to another account, until that account is deleted', async () => {
    const owner = await app().newUser();
    const rival = await app().newUser();
    const address = newAddress();
    // The rival asks first, so it holds a valid code when the owner binds.
    await getCaptcha(rival.client, address);
    const rivalCode = codeFor(address);
    await getCaptcha(owner.client, address);
    expect((await bind(owner.client, address, codeFor(address))).code).toBe(0);

    expectFailure(await bind(rival.client, address, rivalCode), 409, 40900, '该邮箱已绑定其他账号');
    const mailed = mailsTo(address).length;
    app().clock.advance(MINUTE);
    expectFailure(await getCaptcha(rival.client, address), 409, 40900, '该邮箱已绑定其他账号');
    expectFailure(await getCaptcha(rival.client, address.toUpperCase()), 409, 40900);
    expect(mailsTo(address)).toHaveLength(mailed);

    // A deleted account releases its address.
    await (await app().admin()).ok('userDelete', { body: { id: owner.id } });
    expect((await getCaptcha(rival.client, address)).code).toBe(0);
    expect((await bind(rival.client, address, codeFor(address))).code).toBe(0);
    expect((await rival.client.ok('userGetLogin')).email).toBe(address);
  });

  it('refuses a code for an address no code was sent to, malformed input, visitors and calls without the anti-CSRF header', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    await getCaptcha(client, address);
    expectFailure(await bind(client, newAddress(), codeFor(address)), 400, 40000, '验证码已失效，请重新获取');
    expectFailure(await bind(client, address, '12345'), 400, 40000);
    expectFailure(await bind(client, 'not-an-address', '123456'), 400, 40000);
    expectFailure(await getCaptcha(client, 'not-an-address'), 400, 40000);
    expectFailure(await getCaptcha(client, `${'a'.repeat(60)}@example.com`), 400, 40000);
    expectFailure(
      await client.call('userGetCaptcha', { query: { emailAccount: newAddress() }, withoutCsrf: true }),
      403,
      40300,
    );
    const visitor = app().client();
    expectFailure(await getCaptcha(visitor, newAddress()), 401, 40100);
    expectFailure(await bind(visitor, address, '123456'), 401, 40100);
    expectFailure(await unbind(visitor, address, '123456'), 401, 40100);
  });
});

describe('unbinding', () => {
  it('needs a code sent to the bound address', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    await getCaptcha(client, address);
    const bindCode = codeFor(address);
    expect((await bind(client, address, bindCode)).code).toBe(0);

    // The binding code is used up; a new code must be asked for.
    expectFailure(await unbind(client, address, bindCode), 400, 40000, '验证码已失效，请重新获取');
    // Codes go only to the bound address while one is bound.
    expectFailure(await getCaptcha(client, newAddress()), 400, 40000, '已绑定其他邮箱，请先解绑');

    app().clock.advance(MINUTE);
    expect((await getCaptcha(client, address)).code).toBe(0);
    const code = codeFor(address);
    expect(mailsTo(address)).toHaveLength(2);
    expectFailure(await unbind(client, newAddress(), code), 400, 40000, '该邮箱不是当前绑定的邮箱');
    expectFailure(await unbind(client, address, otherCode(code)), 400, 40000, '验证码错误，还可以再试 4 次');
    expect((await client.ok('userGetLogin')).email).toBe(address);

    expect((await unbind(client, address, code)).code).toBe(0);
    expect((await client.ok('userGetLogin')).email).toBeNull();
    expectFailure(await unbind(client, address, code), 400, 40000, '还没有绑定邮箱');

    // Free again: the same account can bind another address.
    const next = newAddress();
    await getCaptcha(client, next);
    expect((await bind(client, next, codeFor(next))).code).toBe(0);
  });
});

describe('sending limits', () => {
  it('sends at most 5 codes an hour to one address, whoever asks', async () => {
    const address = newAddress();
    for (let i = 0; i < 5; i++) {
      const { client } = await app().newUser();
      expect((await getCaptcha(client, address)).code, `mail ${i + 1}`).toBe(0);
    }
    const { client } = await app().newUser();
    const refused = await getCaptcha(client, address);
    expectFailure(refused, 429, 42900, '该邮箱收到的验证码太多，请一小时后再试');
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThan(55 * 60);
    expect(wait).toBeLessThanOrEqual(61 * 60);
    expect(mailsTo(address)).toHaveLength(5);

    app().clock.advance(wait * 1000);
    expect((await getCaptcha(client, address)).code).toBe(0);
    expect(mailsTo(address)).toHaveLength(6);
  });

  it('sends at most 10 codes an hour for one user, whatever the address', async () => {
    const { client } = await app().newUser();
    for (let i = 0; i < 10; i++) expect((await getCaptcha(client, newAddress())).code, `mail ${i + 1}`).toBe(0);
    const address = newAddress();
    const refused = await getCaptcha(client, address);
    expectFailure(refused, 429, 42900, '验证码发送太频繁，请一小时后再试');
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThan(55 * 60);
    expect(wait).toBeLessThanOrEqual(61 * 60);
    expect(mailsTo(address)).toHaveLength(0);

    // Another user is not held back.
    expect((await getCaptcha((await app().newUser()).client, newAddress())).code).toBe(0);

    app().clock.advance(wait * 1000);
    expect((await getCaptcha(client, address)).code).toBe(0);
    expect((await bind(client, address, codeFor(address))).code).toBe(0);
  });
});

describe('when SMTP fails', () => {
  it('answers 500 / 50001 when the server refuses the message, and lets the user retry at once', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    refuseNext = 1;
    expectFailure(await getCaptcha(client, address), 500, 50001, SEND_FAILED);
    expect(refuseNext).toBe(0);
    expect(mailsTo(address)).toHaveLength(0);

    const retry = await getCaptcha(client, address);
    expect(retry.code).toBe(0);
    expect((await bind(client, address, codeFor(address))).code).toBe(0);
  });

  it('answers 500 / 50001 when nothing listens on the SMTP port, and again (not 429) on an immediate retry', async () => {
    const { client } = await app().newUser();
    const address = newAddress();
    await stopSmtp(smtp);
    try {
      expectFailure(await getCaptcha(client, address), 500, 50001, SEND_FAILED);
      expectFailure(await getCaptcha(client, address), 500, 50001, SEND_FAILED);
      // No code exists that could be guessed.
      expectFailure(await bind(client, address, '123456'), 400, 40000, '验证码已失效，请重新获取');
    } finally {
      smtp = await startSmtp(smtpPort);
    }
    // Once the server is back, the same user gets its code at once.
    expect((await getCaptcha(client, address)).code).toBe(0);
    expect((await bind(client, address, codeFor(address))).code).toBe(0);
  });
});
