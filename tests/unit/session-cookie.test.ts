import { describe, expect, it } from 'vitest';
import { readSessionCookie } from '../../src/server/http/session-cookie.js';

const TOKEN = 'abcdefghijklmnopqrstuvwxyz0123456789_-AB';
const read = (cookie: string | undefined) => readSessionCookie(cookie === undefined ? {} : { cookie });

describe('the session cookie as read from a request', () => {
  it('is found alone, first, in the middle or last among other cookies', () => {
    expect(read(`sid=${TOKEN}`)).toBe(TOKEN);
    expect(read(`sid=${TOKEN}; theme=dark`)).toBe(TOKEN);
    expect(read(`a=1; sid=${TOKEN}; theme=dark`)).toBe(TOKEN);
    expect(read(`a=1;sid=${TOKEN}`)).toBe(TOKEN);
    expect(read(`a=1;   sid=${TOKEN}  `)).toBe(TOKEN);
  });

  it('is not taken from another cookie whose name or value ends in sid=', () => {
    expect(read(`xsid=${TOKEN}`)).toBeUndefined();
    expect(read(`a=sid=${TOKEN}`)).toBeUndefined();
    expect(read(`a=sid=${TOKEN}; sid=${TOKEN.toUpperCase()}`)).toBe(TOKEN.toUpperCase());
    expect(read(`xsid=${TOKEN}; sid=${TOKEN.toUpperCase()}`)).toBe(TOKEN.toUpperCase());
  });

  it('is nothing when absent, empty, too short, too long or holding other characters', () => {
    expect(read(undefined)).toBeUndefined();
    expect(read('')).toBeUndefined();
    expect(read('theme=dark')).toBeUndefined();
    expect(read('sid=')).toBeUndefined();
    expect(read('sid=short')).toBeUndefined();
    expect(read(`sid=${'a'.repeat(101)}`)).toBeUndefined();
    expect(read(`sid=${TOKEN.slice(0, 30)}%3B`)).toBeUndefined();
  });

  it('is the first session cookie when a browser sends two (the more specific path first)', () => {
    expect(read(`sid=${TOKEN}; sid=${TOKEN.toUpperCase()}`)).toBe(TOKEN);
  });
});
