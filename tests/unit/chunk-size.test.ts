import { describe, expect, it } from 'vitest';
import { ChunkSize } from '../../src/server/jobs/batches/chunk-size.js';

// A batch chunk holds the event loop on SQLite from its first statement to its commit: its size follows the cost per
// item the chunk before showed, so it takes about one slice of time, and never more than BATCH_CHUNK items.
describe('the size of a batch chunk', () => {
  it('starts small, then takes as many items as fit in the slice, up to BATCH_CHUNK', () => {
    const size = new ChunkSize(200, 10);
    expect(size.next).toBe(1);
    // Dear items (a quota line, 0.5 ms each): growth by at most four times a chunk, then 20 fit in 10 ms.
    size.took(1, 0.5);
    expect(size.next).toBe(4);
    size.took(4, 2);
    expect(size.next).toBe(16);
    size.took(16, 8);
    expect(size.next).toBe(20);
    size.took(20, 10);
    expect(size.next).toBe(20);
    // Cheap items (a broadcast's rows): up to BATCH_CHUNK.
    const cheap = new ChunkSize(200, 10);
    for (const items of [1, 4, 16, 64]) cheap.took(items, 0.1);
    expect(cheap.next).toBe(200);
  });

  it('shrinks at once when items grow dear, to one item at the least', () => {
    const size = new ChunkSize(200, 10);
    for (const items of [1, 4, 16, 64]) size.took(items, 0.1);
    expect(size.next).toBe(200);
    size.took(200, 100);
    expect(size.next).toBe(20);
    size.took(20, 500);
    expect(size.next).toBe(1);
  });

  it('never takes more than BATCH_CHUNK', () => {
    const size = new ChunkSize(5, 10);
    size.took(1, 0.01);
    expect(size.next).toBe(4);
    size.took(4, 0.01);
    expect(size.next).toBe(5);
  });
});
