import { describe, expect, it } from 'vitest';
import { DATABASE_TIMEOUTS, loadConfig, trustedProxies } from '../../src/server/config.js';

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
