import { describe, expect, it } from 'vitest';
import { DATABASE_TIMEOUTS, loadConfig, trustedProxies } from '../../src/server/config/config.js';
import { ConfigError } from '../../src/server/lib/config-values.js';

// The database time limits an operator sets in the environment (README's configuration table).

const base = { SESSION_SECRET: 'x'.repeat(32) };

describe('database time limits', () => {
  it('default to values that answer well within a phone’s patience', () => {
    const pg = loadConfig({ ...base, DATABASE_URL: 'postgres://u@h/db' }).database;
    expect(pg).toMatchObject({
      kind: 'postgres',
      statementTimeoutMs: 10_000,
      lockTimeoutMs: 5_000,
      acquireTimeoutMs: 5_000,
    });
    expect(DATABASE_TIMEOUTS).toEqual({ statementTimeoutMs: 10_000, lockTimeoutMs: 5_000, acquireTimeoutMs: 5_000 });
    expect(loadConfig({ ...base, DATABASE_URL: 'sqlite::memory:' }).database).toEqual({
      kind: 'sqlite',
      path: ':memory:',
      lockTimeoutMs: 5_000,
    });
  });

  it('are read from DATABASE_STATEMENT_TIMEOUT_MS, DATABASE_LOCK_TIMEOUT_MS and DATABASE_ACQUIRE_TIMEOUT_MS', () => {
    const env = {
      ...base,
      DATABASE_URL: 'postgres://u@h/db',
      DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      DATABASE_LOCK_TIMEOUT_MS: '700',
      DATABASE_ACQUIRE_TIMEOUT_MS: '900',
    };
    expect(loadConfig(env).database).toMatchObject({
      statementTimeoutMs: 2000,
      lockTimeoutMs: 700,
      acquireTimeoutMs: 900,
    });
  });

  it('refuse what is not a sensible number of milliseconds', () => {
    for (const [name, value] of [
      ['DATABASE_STATEMENT_TIMEOUT_MS', '0'],
      ['DATABASE_LOCK_TIMEOUT_MS', 'soon'],
      ['DATABASE_ACQUIRE_TIMEOUT_MS', '-1'],
    ]) {
      expect(() => loadConfig({ ...base, [name!]: value })).toThrow(name);
    }
  });
});

describe('ADMIN_2FA', () => {
  it('is required unless the operator says optional, and refuses anything else', () => {
    expect(loadConfig(base).admin2fa).toBe('required');
    expect(loadConfig({ ...base, ADMIN_2FA: 'optional' }).admin2fa).toBe('optional');
    expect(() => loadConfig({ ...base, ADMIN_2FA: 'off' })).toThrow('ADMIN_2FA');
  });
});

describe('TRUST_PROXY', () => {
  it('trusts no hop by default, one for true, a count, or the proxies named; never every hop', () => {
    expect(trustedProxies(undefined)).toBe(false);
    expect(trustedProxies('false')).toBe(false);
    expect(trustedProxies('true')).toBe(1);
    expect(trustedProxies('2')).toBe(2);
    expect(trustedProxies('10.0.0.0/8, 192.168.1.5')).toBe('10.0.0.0/8, 192.168.1.5');
    expect(() => trustedProxies('everyone')).toThrow(/TRUST_PROXY/);
  });
});

// PUBLIC_ORIGIN binds passkeys to the address people open; an inconsistent one must stop the start, with the reason.
describe('PUBLIC_ORIGIN and PASSKEY_RP_ID', () => {
  const origin = (env: Record<string, string>) => loadConfig({ ...base, ...env }).publicOrigin;

  it('default to the quick start’s http://localhost:<PORT>', () => {
    expect(origin({})).toEqual({ origin: 'http://localhost:8080', rpId: 'localhost' });
    expect(origin({ PORT: '3000' })).toEqual({ origin: 'http://localhost:3000', rpId: 'localhost' });
  });

  it('take the site’s https origin, and a parent domain as the relying party id', () => {
    expect(origin({ PUBLIC_ORIGIN: 'https://Mall.Example.com/', COOKIE_SECURE: 'true' })).toEqual({
      origin: 'https://mall.example.com',
      rpId: 'mall.example.com',
    });
    expect(origin({ PUBLIC_ORIGIN: 'https://mall.example.com:8443', PASSKEY_RP_ID: 'example.com' })).toEqual({
      origin: 'https://mall.example.com:8443',
      rpId: 'example.com',
    });
  });

  it.each([
    [{ PUBLIC_ORIGIN: 'mall.example.com' }, /PUBLIC_ORIGIN must be/],
    [{ PUBLIC_ORIGIN: 'https://mall.example.com/shop' }, /without a path/],
    [{ PUBLIC_ORIGIN: 'ftp://mall.example.com' }, /http\(s\) origin/],
    [{ PUBLIC_ORIGIN: 'https://192.168.1.5' }, /IP address/],
    [{ PUBLIC_ORIGIN: 'http://[::1]:8080' }, /IP address/],
    [{ PUBLIC_ORIGIN: 'http://mall.example.com' }, /must be https/],
    [{ PUBLIC_ORIGIN: 'http://localhost:8080', COOKIE_SECURE: 'true' }, /COOKIE_SECURE=true but PUBLIC_ORIGIN is http/],
    [{ PUBLIC_ORIGIN: 'https://mall.example.com', PASSKEY_RP_ID: 'other.com' }, /parent domain/],
    [{ PUBLIC_ORIGIN: 'https://mall.example.com', PASSKEY_RP_ID: 'ample.com' }, /parent domain/],
  ])('refuse an inconsistent setting at start-up: %j', (env, message) => {
    expect(() => origin(env)).toThrow(ConfigError);
    expect(() => origin(env)).toThrow(message);
  });
});
