import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/server/support/security/tokens.js';

// References of movements, orders and batches: shown to users, searched by admins, never guessable.
describe('timeOrderedId', () => {
  it('is the kind letter, the time in base 36 and 48 random bits in hex', () => {
    const now = Date.UTC(2026, 10, 23, 8, 0, 0);
    const id = timeOrderedId('T', now);
    expect(id).toMatch(new RegExp(`^T${now.toString(36)}[0-9a-f]{12}$`));
  });

  it('sorts by creation time', () => {
    const ids = [1, 2, 3].map((i) => timeOrderedId('O', Date.UTC(2026, 10, 23) + i * 1000));
    expect([...ids].sort()).toEqual(ids);
  });

  it('never repeats its random part, across many refills of the random block', () => {
    // 5,000 ids use about seven blocks of randomness: a byte handed out twice would repeat a suffix.
    const suffixes = Array.from({ length: 5000 }, () => timeOrderedId('T', 0).slice(2));
    expect(new Set(suffixes).size).toBe(suffixes.length);
    // And the bits are not constant: every hex digit shows up in every position.
    for (let position = 0; position < 12; position++) expect(new Set(suffixes.map((s) => s[position])).size).toBe(16);
  });
});
