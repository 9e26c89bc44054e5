import { describe, expect, it } from 'vitest';
import { ChunkSize } from '../../src/server/jobs/batches/chunk-size.js';

// A batch chunk holds the event loop on SQLite from its first statement to its commit: its size follows the cost per
// item the chunk before showed, so it takes about one slice of time, and never more than BATCH_CHUNK items.
describe('the size of a batch chunk', () => {
  it('starts small, then takes as many items as fit in the slice, up to BATCH_CHUNK', () => {
    const size = new ChunkSize(200, 10);
    expect(size.next).toBe(8);
    // Dear items (a quota line, 0.5 ms each): 20 fit in 10 ms.
    size.took(8, 4);
    expect(size.next).toBe(20);
    size.took(20, 10);
    expect(size.next).toBe(20);
    // Cheap items (a broadcast's rows): growth by at most four times a chunk, up to BATCH_CHUNK.
    const cheap = new ChunkSize(200, 10);
    cheap.took(8, 0.2);
    expect(cheap.next).toBe(32);
    cheap.took(32, 0.5);
    expect(cheap.next).toBe(128);
    cheap.took(128, 1);
    expect(cheap.next).toBe(200);
  });

  it('shrinks at once when items grow dear, to one item at the least', () => {
    const size = new ChunkSize(200, 10);
    size.took(8, 0.1);
    size.took(32, 0.1);
    expect(size.next).toBe(128);
    size.took(128, 64);
    expect(size.next).toBe(20);
    size.took(20, 500);
    expect(size.next).toBe(1);
  });

  it('never takes more than BATCH_CHUNK, even at the start', () => {
    expect(new ChunkSize(5, 10).next).toBe(5);
  });
});
