import type { AppContext } from '../context.js';
import { isPostgresDb } from '../../db/database.js';
import * as records from '../orders/payment-records-repo.js';
import * as orders from '../orders/repo.js';
import { closeExpired } from '../orders/service.js';
import { sharedTimeSlices } from '../../lib/give-way.js';
import { askChannels, channelsOnce, type AskTurn, type ChannelSource } from './ask.js';
import { stillAsked } from './checkout.js';
import type { GatewayOrder } from './connectors/index.js';
import * as repo from './repo.js';

/** Orders being asked about at once in a process, and how many one claim takes at most. */
const IN_FLIGHT = 40;
const CLAIM = 20;
/** How long claimed orders are this process's before another may take them over (a question lasts 5 s at most). */
const LEASE_MS = 2 * 60_000;
/** Questions in flight at once: per channel (a gateway is not hammered), and in all. */
const PER_CHANNEL = 6;
const IN_ALL = 16;
/**
 * A channel that failed this many questions in a row (no answer in time, no connection) is left alone for a while:
 * its orders are asked again after that, and nothing else waits on it meanwhile.
 */
const TRIP_AFTER = 3;
const TRIPPED_MS = 60_000;
/** An order whose question was not asked (its channel left alone) is due again this soon. */
const UNASKED_RETRY_MS = 60_000;
/** The most notifications and queries past their retention one sweep deletes. */
const PURGE_BATCH = 1000;

/**
 * When an unpaid order's gateways are asked next: half its age (since it was placed, or since it closed), at least a
 * minute and at most an hour. A fresh order is asked every minute, an abandoned one ever less often (about twenty
 * times in its first day), and each order keeps its own time, so old orders never hold back a newer one.
 */
export function nextCheckDelay(ageMs: number): number {
  return Math.min(60 * 60_000, Math.max(60_000, Math.round(ageMs / 2)));
}

/**
 * The minute's payment sweep, on every process (the conditional updates make several at once harmless), which never
 * waits for a gateway: closes unpaid online orders whose time is up, and deletes notifications and queries older than
 * the admin's retention. Asking gateways is PaymentChecks' work, beside it.
 */
export async function sweepPayments(app: AppContext): Promise<{ closed: number; purged: number }> {
  const closed = await closeExpired(app, 200);
  const days = await repo.notifyRetentionDays(app.db);
  const purged = await records.purgeEventsBefore(app.db, app.now() - days * 86_400_000, PURGE_BATCH);
  return { closed, purged };
}

/** A counting gate: at most `size` holders at once, the rest wait in order. */
class Gate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async enter(): Promise<void> {
    if (this.held < this.size) {
      this.held++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}

/**
 * Asks gateways about the orders due for it (each order's next_check_at), claimed a few at a time as others finish,
 * so several processes share the work and one slow order holds up no other. Questions are bounded per channel and in
 * all, each by the gateway timeout; a channel that stops answering is left alone for a minute (its orders are due
 * again then), so a hanging gateway delays neither the other channels nor anything else the scheduler does. The pass
 * gives way to requests between its steps (on SQLite every query is synchronous).
 */
export class PaymentChecks {
  private pass: Promise<number> | undefined;
  private readonly all = new Gate(IN_ALL);
  private readonly perChannel = new Map<number, Gate>();
  /** Silent failures in a row, per channel, and until when a channel is left alone. */
  private readonly failures = new Map<number, number>();
  private readonly tripped = new Map<number, number>();

  constructor(private readonly app: AppContext) {}

  /** Starts a pass unless one is under way; answers it (how many orders were claimed). */
  start(keepGoing: () => boolean = () => true): Promise<number> {
    this.pass ??= this.run(keepGoing).finally(() => (this.pass = undefined));
    return this.pass;
  }

  /** The pass under way, for shutdown to wait for. */
  get running(): Promise<number> | undefined {
    return this.pass;
  }

  /** A channel's question, in its turn: null when the channel is left alone now. */
  private readonly turn: AskTurn = async (channelId, ask) => {
    if ((this.tripped.get(channelId) ?? 0) > this.app.now()) return null;
    let gate = this.perChannel.get(channelId);
    if (!gate) this.perChannel.set(channelId, (gate = new Gate(PER_CHANNEL)));
    await gate.enter();
    try {
      if ((this.tripped.get(channelId) ?? 0) > this.app.now()) return null;
      await this.all.enter();
      let said: GatewayOrder;
      try {
        said = await ask();
      } finally {
        this.all.leave();
      }
      const silent = said.state === 'error' && (said.reason === 'timeout' || said.reason === 'unreachable');
      const inARow = silent ? (this.failures.get(channelId) ?? 0) + 1 : 0;
      this.failures.set(channelId, inARow);
      if (inARow >= TRIP_AFTER) {
        this.tripped.set(channelId, this.app.now() + TRIPPED_MS);
        this.failures.set(channelId, 0);
        this.app.log.warn({ channelId }, 'payment checks: a gateway stopped answering; left alone for a minute');
      }
      return said;
    } finally {
      gate.leave();
    }
  };

  private async run(keepGoing: () => boolean): Promise<number> {
    const pace = sharedTimeSlices();
    const channels = channelsOnce(this.app);
    const postgres = isPostgresDb(this.app.db);
    const inFlight = new Set<Promise<void>>();
    let claimedInAll = 0;
    for (;;) {
      await pace();
      const room = Math.min(CLAIM, IN_FLIGHT - inFlight.size);
      const now = this.app.now();
      const claimed =
        keepGoing() && room > 0
          ? await orders.claimDueChecks(this.app.db, { now, leaseUntil: now + LEASE_MS, limit: room, postgres })
          : [];
      claimedInAll += claimed.length;
      for (const { id } of claimed) {
        const one: Promise<void> = this.checkOne(id, channels, pace).finally(() => inFlight.delete(one));
        inFlight.add(one);
      }
      if (inFlight.size === 0) return claimedInAll;
      // Room for more, or nothing more to claim now: wait for one to finish, then look again.
      if (claimed.length === 0 || inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    }
  }

  /** Asks an order's channels (unless it no longer needs it) and sets when it is asked next. */
  private async checkOne(id: number, channels: ChannelSource, pace: () => Promise<void>): Promise<void> {
    try {
      await pace();
      const order = await orders.findOrder(this.app.db, id);
      if (!order || !stillAsked(order, this.app.now())) {
        if (order) await orders.setNextCheck(this.app.db, id, null);
        return;
      }
      const { unasked } = await askChannels(
        this.app,
        { id, orderNo: order.orderNo, amount: Number(order.amount) },
        { source: 'sweep' },
        { turn: this.turn, channels, pace },
      );
      await pace();
      const after = await orders.findOrder(this.app.db, id);
      const now = this.app.now();
      await pace();
      if (!after || !stillAsked(after, now)) {
        await orders.setNextCheck(this.app.db, id, null);
        return;
      }
      const since = after.status === 'cancelled' && after.cancelledAt !== null ? after.cancelledAt : after.createdAt;
      const delay = nextCheckDelay(now - Number(since));
      await orders.setNextCheck(this.app.db, id, now + (unasked > 0 ? Math.min(delay, UNASKED_RETRY_MS) : delay));
    } catch (err) {
      // Left to its lease: it is due again when the lease ends.
      this.app.log.warn({ err, orderId: id }, 'payment check: asking the gateways failed');
    }
  }
}
