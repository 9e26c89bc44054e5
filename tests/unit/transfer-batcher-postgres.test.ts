import { describe, expect, it } from 'vitest';
import {
  TransferBatcher,
  type BatchedTransfer,
  type TransferOutcome,
} from '../../src/server/modules/coins/transfer-batcher-postgres.js';

// The PostgreSQL transfer batcher against a fake database call: what it groups, how many calls it keeps on the wire,
// and who hears of a failed call. (What the call does in PostgreSQL: tests/api/ledger-group-commit.test.ts.)

const transfer = (actorId: number): BatchedTransfer => ({
  actorId,
  key: `k${actorId}`,
  requestHash: 'h',
  payeeAccountLower: 'p',
  coin: 1,
  siteId: 1,
  reference: `T${actorId}`,
  outPrefix: '转给 ',
  inDescription: 'in',
  noticeTitle: 't',
  noticeBody: 'b',
  now: 0,
});

/** A database call the test finishes by hand: each call's batch, and its resolve/reject. */
function fakeDatabase() {
  const calls: { batch: BatchedTransfer[]; finish(): void; fail(error: Error): void }[] = [];
  const run = (batch: BatchedTransfer[]) =>
    new Promise<TransferOutcome[]>((resolve, reject) => {
      calls.push({
        batch,
        finish: () => resolve(batch.map((t) => ({ result: t.actorId }))),
        fail: reject,
      });
    });
  return { calls, run };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('TransferBatcher', () => {
  it('sends the transfers of one turn as one call, each caller its own outcome after the call returned', async () => {
    const db = fakeDatabase();
    const batcher = new TransferBatcher(db.run);
    let answered = 0;
    const answers = [1, 2, 3].map((id) => batcher.submit(transfer(id)).then((o) => (answered++, o)));
    await turn();
    expect(db.calls.map((c) => c.batch.map((t) => t.actorId))).toEqual([[1, 2, 3]]);
    await turn();
    expect(answered).toBe(0); // nothing answered before the call (and its commit) returned
    db.calls[0]!.finish();
    expect(await Promise.all(answers)).toEqual([{ result: 1 }, { result: 2 }, { result: 3 }]);
    expect(batcher.groupCommits).toEqual({ transactions: 1, works: 3 });
  });

  it('caps a batch, keeps at most maxInFlight calls on the wire and sends what queued meanwhile as one batch', async () => {
    const db = fakeDatabase();
    const batcher = new TransferBatcher(db.run, { maxBatch: 2, maxInFlight: 2 });
    const first = [1, 2, 3, 4, 5].map((id) => batcher.submit(transfer(id)));
    await turn();
    expect(db.calls.map((c) => c.batch.length)).toEqual([2, 2]);
    const later = [6, 7].map((id) => batcher.submit(transfer(id)));
    await turn();
    expect(db.calls).toHaveLength(2); // both slots taken: 5, 6 and 7 wait
    db.calls[0]!.finish();
    await Promise.all(first.slice(0, 2));
    expect(db.calls.map((c) => c.batch.map((t) => t.actorId))).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    db.calls[1]!.finish();
    db.calls[2]!.finish();
    await Promise.all(first);
    expect(db.calls[3]!.batch.map((t) => t.actorId)).toEqual([7]);
    db.calls[3]!.finish();
    await Promise.all(later);
    expect(batcher.groupCommits).toEqual({ transactions: 4, works: 7 });
  });

  it('gives every caller of a failed call its error, and goes on with the next batch', async () => {
    const db = fakeDatabase();
    const batcher = new TransferBatcher(db.run, { maxBatch: 64, maxInFlight: 1 });
    const failed = [1, 2].map((id) => batcher.submit(transfer(id)));
    await turn();
    const next = batcher.submit(transfer(3));
    db.calls[0]!.fail(new Error('Connection terminated'));
    for (const f of failed) await expect(f).rejects.toThrow('Connection terminated');
    await turn();
    db.calls[1]!.finish();
    expect(await next).toEqual({ result: 3 });
    expect(batcher.groupCommits).toEqual({ transactions: 1, works: 1 });
  });
});
