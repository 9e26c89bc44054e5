import { describe, expect, it } from 'vitest';
import { PASSWORD, uniqueAccount, useTestApp } from '../helpers/test-app.js';

// Limits hold for requests sent all at once, and a refusal's Retry-After is the real wait.

const app = useTestApp();

const register = (ip: string) =>
  app()
    .client()
    .call('userRegister', {
      body: { userAccount: uniqueAccount('r'), userPassword: PASSWORD, checkPassword: PASSWORD },
      ip,
    });

describe('registrations per address (10 an hour)', () => {
  it('admits exactly 10 of 15 simultaneous registrations, and the others may retry when Retry-After says', async () => {
    const ip = '10.9.9.1';
    const results = await Promise.all(Array.from({ length: 15 }, () => register(ip)));
    expect(results.filter((r) => r.code === 0)).toHaveLength(10);
    const refused = results.filter((r) => r.code !== 0);
    expect(refused.map((r) => [r.status, r.code])).toEqual(Array(5).fill([429, 42900]));

    const wait = Number(refused[0]!.headers['retry-after']);
    expect(wait).toBeGreaterThan(3500);
    expect(wait).toBeLessThanOrEqual(3600 + 60);
    // One second short of the wait it is still refused; at the wait it is admitted.
    app().clock.advance((wait - 1) * 1000);
    expect((await register(ip)).code).toBe(42900);
    app().clock.advance(1000);
    expect((await register(ip)).code).toBe(0);
  });
});

describe('captchas (one per 60 seconds)', () => {
  it('mails exactly one code for 10 simultaneous requests of one user', async () => {
    const { client } = await app().newUser();
    const email = `${uniqueAccount('m')}@example.com`;
    const before = app().mailer.sent.length;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => client.call('userGetCaptcha', { query: { emailAccount: email } })),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    expect(results.filter((r) => r.code === 42900)).toHaveLength(9);
    expect(
      app()
        .mailer.sent.slice(before)
        .filter((m) => m.to === email),
    ).toHaveLength(1);
    // The mailbox's hourly quota (5) lost one send, not ten: four more, a minute apart, still go out.
    for (let i = 0; i < 4; i++) {
      app().clock.advance(61_000);
      expect((await client.call('userGetCaptcha', { query: { emailAccount: email } })).code).toBe(0);
    }
  });
});
