/**
 * A seeded, stateless random source: the same (seed, run, attempt) always draws the same numbers, in any process, so
 * a demonstration replays exactly with the same SANDBOX_SEED.
 */
export function draw(seed: number, runId: number, attempt: number, salt: number): number {
  // mulberry32 over a mix of the inputs.
  let t =
    (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^
      Math.imul(runId, 0xc2b2ae35) ^
      Math.imul(attempt + 1, 0x27d4eb2f) ^
      Math.imul(salt + 1, 0x165667b1)) >>>
    0;
  t = (t + 0x6d2b79f5) >>> 0;
  let r = Math.imul(t ^ (t >>> 15), 1 | t);
  r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
  return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
}
