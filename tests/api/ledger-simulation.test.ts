import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../src/api/operations.js';
import { operationById, responseValidator } from '../helpers/contract.js';
import { dbKind } from '../helpers/database.js';
import { entriesOf, expectLedgerConsistent } from '../helpers/ledger.js';
import { ADMIN, PASSWORD, startTestApp, uniqueAccount, type TestApp } from '../helpers/test-app.js';

// A seeded random simulation of the coin ledger over real HTTP (the app listens on a loopback port; clients are
// fetch with cookies, as browsers are): many concurrent clients credit, debit, transfer, retry with the same
// Idempotency-Key (one after the other and all at once), reuse a key for another body, buy and confirm packages and
// redeem codes. A client-side model adds up what every successful movement did; afterwards the database, the ledger
// check and the model must agree to the coin.
//
// The seed is printed; `LEDGER_SEED=<n>` replays a run's choices. Each client draws from its own generator, so a
// replay makes the same random choices; what interleaves with what still depends on timing, and a few choices
// (which pending order, which unused code) depend on what earlier answers left in the shared pools.
// `LEDGER_OPS=<n>` changes the number of operations (default 10,000).

const OPERATIONS = Number(process.env.LEDGER_OPS ?? 10_000);
const CLIENTS = 24;
const PLAIN_USERS = 30;
const AGENTS = 2;
const SUBORDINATES_PER_AGENT = 3;
const SIGNUP_BONUS = 5;
const REBATE_PERCENT = 10;
const SEED = ((): number => {
  const raw = process.env.LEDGER_SEED;
  if (raw === undefined || raw === '') return Math.floor(Math.random() * 2 ** 32);
  if (!/^\d+$/.test(raw) || Number(raw) >= 2 ** 32)
    throw new Error(`LEDGER_SEED must be an integer from 0 to ${2 ** 32 - 1}, got "${raw}"`);
  return Number(raw);
})();

// The mall, orders and redeem codes are simulated when their modules are there.
const has = (module: string) => existsSync(`src/server/modules/${module}/handlers.ts`);
const WITH_ORDERS = has('mall') && has('orders');
const WITH_REDEEM = has('redeem');

/** mulberry32: a tiny, fast, well-mixed 32-bit generator; one per client so a seed replays each client's choices. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  constructor(readonly next: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// What went wrong, collected (a worker never throws: the run finishes and every problem is listed at the end).

const problems = {
  serverErrors: [] as string[],
  transport: [] as string[],
  contract: [] as string[],
  unexpected: [] as string[],
  divergentRetries: [] as string[],
  model: [] as string[],
};
const noted = new Map<keyof typeof problems, number>();
function note(kind: keyof typeof problems, message: string) {
  noted.set(kind, (noted.get(kind) ?? 0) + 1);
  if (problems[kind].length < 40) problems[kind].push(message);
}

const stats = {
  requests: 0,
  byOperation: new Map<string, { sent: number; ok: number }>(),
  sequentialRetries: 0,
  concurrentRetries: 0,
  replays: 0,
  wrongBody409: 0,
  doubleConfirms: 0,
  doubleRedeems: 0,
};

// ---------------------------------------------------------------------------------------------------------------------
// HTTP client: fetch, the session cookie kept like a browser, every answer checked against openapi.yaml.

interface Answer {
  status: number;
  code: number;
  message: string;
  data: any;
}

let baseUrl = '';

class HttpClient {
  cookie: string | undefined;

  async call(
    operationId: OperationId,
    options: { query?: Record<string, string | number>; body?: unknown; key?: string } = {},
  ): Promise<Answer> {
    const op = operationById.get(operationId);
    if (!op) throw new Error(`unknown operation ${operationId}`);
    const qs = new URLSearchParams(Object.entries(options.query ?? {}).map(([k, v]) => [k, String(v)])).toString();
    const headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest' };
    if (this.cookie) headers.cookie = this.cookie;
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    stats.requests++;
    const counter =
      stats.byOperation.get(operationId) ?? stats.byOperation.set(operationId, { sent: 0, ok: 0 }).get(operationId)!;
    counter.sent++;
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${baseUrl}${op.path}${qs ? `?${qs}` : ''}`, {
        method: op.method,
        headers,
        body: payload,
      });
      status = response.status;
      for (const c of response.headers.getSetCookie()) {
        const [pair] = c.split(';');
        if (pair?.startsWith('sid=')) this.cookie = pair === 'sid=' ? undefined : pair;
      }
      text = await response.text();
    } catch (error) {
      note(
        'transport',
        `${operationId}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`,
      );
      return { status: 0, code: -1, message: 'transport', data: null };
    }
    if (status >= 500)
      note('serverErrors', `${operationId} ${JSON.stringify(options.body)} → ${status} ${text.slice(0, 300)}`);
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      note('contract', `${operationId} ${status}: not JSON: ${text.slice(0, 200)}`);
      return { status, code: -1, message: text, data: null };
    }
    const validate = responseValidator(operationId, status);
    if (!validate)
      note('contract', `${operationId} answered ${status}, which openapi.yaml does not declare: ${text.slice(0, 200)}`);
    else if (!validate(json))
      note(
        'contract',
        `${operationId} ${status} does not match openapi.yaml: ${JSON.stringify(validate.errors)} ${text.slice(0, 200)}`,
      );
    if (json.code === 0) counter.ok++;
    return { status, code: json.code, message: json.message, data: json.data };
  }

  /** Setup calls: anything but success stops the test. */
  async ok(
    operationId: OperationId,
    options: { query?: Record<string, string | number>; body?: unknown; key?: string } = {},
  ): Promise<any> {
    const answer = await this.call(operationId, options);
    if (answer.code !== 0) throw new Error(`${operationId} failed: ${answer.status} ${answer.code} ${answer.message}`);
    return answer.data;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The model: what the successful movements add up to, per user and in total, and how many entries of each kind.

class Model {
  readonly balances = new Map<number, number>();
  readonly entries = new Map<string, number>();
  issued = 0;
  removed = 0;

  balanceOf(userId: number) {
    return this.balances.get(userId) ?? 0;
  }
  private add(userId: number, amount: number, kind: string) {
    this.balances.set(userId, this.balanceOf(userId) + amount);
    this.entries.set(kind, (this.entries.get(kind) ?? 0) + 1);
  }
  issue(userId: number, amount: number, kind: string) {
    this.add(userId, amount, kind);
    this.issued += amount;
  }
  remove(userId: number, amount: number, kind: string) {
    this.add(userId, -amount, kind);
    this.removed += amount;
  }
  transfer(from: number, to: number, amount: number) {
    this.add(from, -amount, 'transfer_out');
    this.add(to, amount, 'transfer_in');
  }
}

interface Member {
  id: number;
  userAccount: string;
  client: HttpClient;
  /** The agent whose invitation code the member registered with. */
  agentId: number | null;
  redeemFailures: number;
}

type Outcome = readonly [status: number, code: number];
const OK: Outcome = [200, 0];
const REFUSED: Outcome = [400, 40000];
const NOT_FOUND: Outcome = [404, 40400];
const CONFLICT: Outcome = [409, 40900];
const TOO_MANY: Outcome = [429, 42900];

/** One logical request under one Idempotency-Key; attempts are its first try and its retries. */
interface Keyed {
  key: string;
  client: HttpClient;
  operationId: OperationId;
  body: Record<string, unknown>;
  expected: readonly Outcome[];
  /** What the first success did, applied to the model once. */
  apply(data: any): void;
  success?: Answer;
  settled: boolean;
  /** The order it confirms: its requests in flight are tracked there. */
  order?: SimOrder;
}

interface SimOrder {
  id: number;
  orderNo: string;
  buyer: Member;
  addCoin: number;
  confirmations: number;
  cancelled: boolean;
  settled: boolean;
  /** Confirmations, their retries and cancellations of this order not yet answered (each settles it when it succeeds). */
  inFlight: Set<Promise<unknown>>;
}

interface SimCode {
  code: string;
  coin: number;
  redemptions: number;
  attempts: number;
}

describe(`ledger simulation over HTTP (${dbKind()})`, () => {
  let app: TestApp;
  const model = new Model();
  const members: Member[] = [];
  const admin = new HttpClient();
  const transferReferences = new Set<string>();
  const retryPool: Keyed[] = [];
  const packages: { id: number; addCoin: number; onShelf: boolean }[] = [];
  const orders: SimOrder[] = [];
  const pendingOrders: SimOrder[] = [];
  const unusedCodes: SimCode[] = [];
  const spentCodes: SimCode[] = [];
  const allCodes: SimCode[] = [];
  const keySequence: number[] = [];
  let operationsStarted = 0;

  const newKey = (worker: number) =>
    `L${SEED.toString(36).padStart(7, '0')}w${worker}n${(keySequence[worker] = (keySequence[worker] ?? 0) + 1).toString(36)}`;

  /** Runs a request on `order`, tracked as in flight until its answer is applied to the model. */
  async function onOrder<T>(order: SimOrder, request: () => Promise<T>): Promise<T> {
    const sending = request();
    order.inFlight.add(sending);
    try {
      return await sending;
    } finally {
      order.inFlight.delete(sending);
    }
  }

  function attempt(k: Keyed): Promise<Answer> {
    return k.order ? onOrder(k.order, () => send(k)) : send(k);
  }

  async function send(k: Keyed): Promise<Answer> {
    const retryOfSuccess = k.success !== undefined;
    const answer = await k.client.call(k.operationId, { body: k.body, key: k.key });
    if (answer.status === 0) return answer;
    if (!k.expected.some(([s, c]) => s === answer.status && c === answer.code)) {
      note(
        'unexpected',
        `${k.operationId} ${JSON.stringify(k.body)} key ${k.key} → ${answer.status} ${answer.code} ${answer.message}`,
      );
    }
    if (answer.code === 0) {
      if (k.success === undefined) {
        k.success = answer;
        k.apply(answer.data);
      } else {
        stats.replays++;
        if (!isDeepStrictEqual(answer.data, k.success.data)) {
          note(
            'divergentRetries',
            `${k.operationId} key ${k.key}: ${JSON.stringify(answer.data)} after ${JSON.stringify(k.success.data)}`,
          );
        }
      }
    } else if (retryOfSuccess) {
      note(
        'divergentRetries',
        `${k.operationId} key ${k.key}: retry of a success answered ${answer.status} ${answer.code} ${answer.message}`,
      );
    }
    if (!k.settled) {
      k.settled = true;
      if (retryPool.length < 2000) retryPool.push(k);
      else retryPool[Math.floor(Math.random() * retryPool.length)] = k;
    }
    return answer;
  }

  // ---- the operations ------------------------------------------------------------------------------------------

  type TransferKind = 'normal' | 'self' | 'tooMuch' | 'unknown';

  function transferRequest(rnd: Random, worker: number, kind: TransferKind): Keyed {
    const payer = rnd.pick(members);
    const others = members.filter((m) => m !== payer);
    const payee = kind === 'self' ? payer : rnd.pick(others);
    let userAccount = payee.userAccount;
    let coin: number;
    let expected: readonly Outcome[];
    switch (kind) {
      case 'normal':
        coin = rnd.int(1, Math.max(1, Math.floor(model.balanceOf(payer.id) * 0.6)));
        expected = [OK, REFUSED];
        break;
      case 'self':
        coin = rnd.int(1, 50);
        expected = [REFUSED];
        break;
      case 'tooMuch':
        // Far above every coin the simulation ever issues.
        coin = rnd.int(50_000_000, 100_000_000);
        expected = [REFUSED];
        break;
      case 'unknown':
        userAccount = `ghost_${rnd.int(0, 9_999_999)}`;
        coin = rnd.int(1, 50);
        expected = [NOT_FOUND];
        break;
    }
    return {
      key: newKey(worker),
      client: payer.client,
      operationId: 'userTransferCoin',
      body: { userAccount, coin },
      expected,
      settled: false,
      apply(data) {
        if (kind !== 'normal') return; // already flagged as unexpected
        if (data.coin !== coin || data.payee?.userAccount !== payee.userAccount)
          note('model', `transfer answered ${JSON.stringify(data)} for ${coin} to ${payee.userAccount}`);
        if (transferReferences.has(data.reference))
          note('model', `transfer reference ${data.reference} answered for two keys`);
        transferReferences.add(data.reference);
        model.transfer(payer.id, payee.id, coin);
      },
    };
  }

  function adminChangeRequest(rnd: Random, worker: number, direction: 'add' | 'reduce'): Keyed {
    const target = rnd.pick(members);
    const coin = direction === 'add' ? rnd.int(1, 500) : rnd.int(1, 300);
    return {
      key: newKey(worker),
      client: admin,
      operationId: direction === 'add' ? 'userAddCoin' : 'userReduceCoin',
      body: { userAccount: target.userAccount, coin, description: direction === 'add' ? '模拟发放' : '模拟扣减' },
      expected: direction === 'add' ? [OK] : [OK, REFUSED],
      settled: false,
      apply(data) {
        if (data.userAccount !== target.userAccount)
          note('model', `admin ${direction} answered ${JSON.stringify(data)} for ${target.userAccount}`);
        if (direction === 'add') model.issue(target.id, coin, 'admin_add');
        else model.remove(target.id, coin, 'admin_reduce');
      },
    };
  }

  function movingRequest(rnd: Random, worker: number): Keyed {
    const r = rnd.next();
    return r < 0.6
      ? transferRequest(rnd, worker, 'normal')
      : adminChangeRequest(rnd, worker, r < 0.8 ? 'add' : 'reduce');
  }

  function orderSubmitRequest(rnd: Random, worker: number): Keyed {
    const buyer = rnd.pick(members);
    const offShelf = rnd.chance(0.1);
    const pkg = rnd.pick(packages.filter((p) => p.onShelf !== offShelf));
    return {
      key: newKey(worker),
      client: buyer.client,
      operationId: 'orderSubmit',
      body: { packageId: pkg.id },
      // 40000: the buyer already has the most pending orders allowed.
      expected: offShelf ? [NOT_FOUND] : [OK, REFUSED],
      settled: false,
      apply(data) {
        if (offShelf) return;
        if (data.status !== 'pending' || data.addCoin !== pkg.addCoin || data.userAccount !== buyer.userAccount)
          note('model', `order submitted as ${JSON.stringify(data)}`);
        // The buyer's unpaid order for this package, answered again instead of a second one: already in the model.
        if (data.reused) {
          if (!orders.some((o) => o.id === data.id && o.buyer === buyer))
            note('model', `order ${data.orderNo} answered as reused but never placed by ${buyer.userAccount}`);
          return;
        }
        const order: SimOrder = {
          id: data.id,
          orderNo: data.orderNo,
          buyer,
          addCoin: data.addCoin,
          confirmations: 0,
          cancelled: false,
          settled: false,
          inFlight: new Set(),
        };
        orders.push(order);
        pendingOrders.push(order);
      },
    };
  }

  function settle(order: SimOrder) {
    order.settled = true;
    const i = pendingOrders.indexOf(order);
    if (i >= 0) pendingOrders.splice(i, 1);
  }

  function orderConfirmRequest(worker: number, order: SimOrder): Keyed {
    return {
      key: newKey(worker),
      client: admin,
      operationId: 'orderConfirm',
      body: { id: order.id },
      // 40900: already paid or cancelled (also by a concurrent confirmation).
      expected: [OK, CONFLICT],
      settled: false,
      order,
      apply(data) {
        if (data.status !== 'paid' || data.orderNo !== order.orderNo)
          note('model', `confirmation answered ${JSON.stringify(data)}`);
        order.confirmations++;
        settle(order);
        model.issue(order.buyer.id, order.addCoin, 'order_credit');
        if (order.buyer.agentId !== null) {
          const rebate = Math.floor((order.addCoin * REBATE_PERCENT) / 100);
          if (rebate > 0) model.issue(order.buyer.agentId, rebate, 'agent_rebate');
        }
      },
    };
  }

  function redeemGenerateRequest(rnd: Random, worker: number): Keyed {
    const count = rnd.int(1, 6);
    const byPackage = WITH_ORDERS && rnd.chance(0.3);
    const pkg = byPackage ? rnd.pick(packages) : undefined;
    const body: Record<string, unknown> = {
      count,
      ...(pkg ? { packageId: pkg.id } : { coin: rnd.int(1, 300) }),
      expiresAt: app.clock.now() + 7 * 24 * 3600 * 1000,
      note: `模拟 ${worker}`,
    };
    return {
      key: newKey(worker),
      client: admin,
      operationId: 'redeemGenerate',
      body,
      expected: [OK],
      settled: false,
      apply(data) {
        const coin = pkg ? pkg.addCoin : (body.coin as number);
        if (data.codes.length !== count || data.coin !== coin)
          note('model', `redeem batch answered ${JSON.stringify(data)} for ${JSON.stringify(body)}`);
        for (const code of data.codes as string[]) {
          const c: SimCode = { code, coin: data.coin, redemptions: 0, attempts: 0 };
          unusedCodes.push(c);
          allCodes.push(c);
        }
      },
    };
  }

  function redeemUseRequest(worker: number, member: Member, code: SimCode, fresh: boolean): Keyed {
    code.attempts++;
    return {
      key: newKey(worker),
      client: member.client,
      operationId: 'redeemUse',
      body: { code: code.code },
      // 40000: used already (or, in a race, by the other redeemer); 42900: the member failed too often.
      expected: fresh ? [OK, REFUSED, TOO_MANY] : [REFUSED, TOO_MANY],
      settled: false,
      apply(data) {
        if (data.userAccount !== member.userAccount)
          note('model', `redemption answered ${JSON.stringify(data)} for ${member.userAccount}`);
        code.redemptions++;
        model.issue(member.id, code.coin, 'redeem');
      },
    };
  }

  /** A member unlikely to be near the failed-redemption limit (10 an hour). */
  const carefulMember = (rnd: Random) => {
    const careful = members.filter((m) => m.redeemFailures < 5);
    return careful.length > 0 ? rnd.pick(careful) : undefined;
  };

  async function redeem(k: Keyed, member: Member) {
    const answer = await attempt(k);
    if (answer.code === 40000) member.redeemFailures++;
    if (answer.code === 42900)
      note('model', `member ${member.userAccount} was locked out of redemptions (failures ${member.redeemFailures})`);
    return answer;
  }

  // ---- one step of one client --------------------------------------------------------------------------------------

  const WEIGHTS: [string, number][] = [
    ['transfer', 34 + (WITH_ORDERS ? 0 : 13) + (WITH_REDEEM ? 0 : 7)],
    ['transferSelf', 3],
    ['transferTooMuch', 3],
    ['transferUnknown', 3],
    ['credit', 10],
    ['debit', 7],
    ['retry', 8],
    ['concurrentRetry', 5],
    ['wrongBody', 2],
    ['statement', 2],
    ...(WITH_ORDERS
      ? ([
          ['orderSubmit', 6],
          ['orderConfirm', 6],
          ['orderCancel', 1],
        ] as [string, number][])
      : []),
    ...(WITH_REDEEM
      ? ([
          ['redeemGenerate', 2],
          ['redeemUse', 5],
        ] as [string, number][])
      : []),
  ];
  const TOTAL_WEIGHT = WEIGHTS.reduce((n, [, w]) => n + w, 0);
  function choose(rnd: Random): string {
    let r = rnd.next() * TOTAL_WEIGHT;
    for (const [name, w] of WEIGHTS) if ((r -= w) < 0) return name;
    return WEIGHTS[0]![0];
  }

  async function step(rnd: Random, worker: number): Promise<void> {
    const what = choose(rnd);
    switch (what) {
      case 'transfer':
        await attempt(transferRequest(rnd, worker, 'normal'));
        return;
      case 'transferSelf':
        await attempt(transferRequest(rnd, worker, 'self'));
        return;
      case 'transferTooMuch':
        await attempt(transferRequest(rnd, worker, 'tooMuch'));
        return;
      case 'transferUnknown':
        await attempt(transferRequest(rnd, worker, 'unknown'));
        return;
      case 'credit':
        await attempt(adminChangeRequest(rnd, worker, 'add'));
        return;
      case 'debit':
        await attempt(adminChangeRequest(rnd, worker, 'reduce'));
        return;
      case 'retry': {
        // The same request again, with its key: a client that lost the first answer.
        if (retryPool.length === 0) return step(rnd, worker);
        const k = rnd.pick(retryPool);
        if (k.operationId === 'redeemUse' && k.success === undefined) return step(rnd, worker); // would count as another failure
        stats.sequentialRetries++;
        await attempt(k);
        return;
      }
      case 'concurrentRetry': {
        // A double-click or a retry racing the first try: all at once, one movement, the same answer.
        const k = movingRequest(rnd, worker);
        const n = rnd.int(2, 4);
        stats.concurrentRetries += n - 1;
        await Promise.all(Array.from({ length: n }, () => attempt(k)));
        return;
      }
      case 'wrongBody': {
        // A key already used for a successful movement, with another amount: 40900, nothing moves.
        const candidates = retryPool.filter((k) => k.success !== undefined && typeof k.body.coin === 'number');
        if (candidates.length === 0) return step(rnd, worker);
        const k = rnd.pick(candidates);
        const answer = await k.client.call(k.operationId, {
          body: { ...k.body, coin: (k.body.coin as number) + 1 },
          key: k.key,
        });
        if (answer.status !== 409 || answer.code !== 40900)
          note(
            'unexpected',
            `${k.operationId} key ${k.key} reused with another amount → ${answer.status} ${answer.code} ${answer.message}`,
          );
        else stats.wrongBody409++;
        return;
      }
      case 'statement': {
        const m = rnd.pick(members);
        const answer = await m.client.call('coinEntries', { query: { current: 1, pageSize: 20 } });
        if (answer.code !== 0) note('unexpected', `coinEntries → ${answer.status} ${answer.code} ${answer.message}`);
        return;
      }
      case 'orderSubmit':
        await attempt(orderSubmitRequest(rnd, worker));
        return;
      case 'orderConfirm': {
        const order =
          pendingOrders.length > 0 && rnd.chance(0.85)
            ? rnd.pick(pendingOrders)
            : orders.length > 0
              ? rnd.pick(orders)
              : undefined;
        if (!order) return step(rnd, worker);
        if (rnd.chance(0.25)) {
          // Two admins (or two tabs) confirming the same order with their own keys: one credit.
          stats.doubleConfirms++;
          const answers = await Promise.all([
            attempt(orderConfirmRequest(worker, order)),
            attempt(orderConfirmRequest(worker, order)),
          ]);
          // Both may be refused rightly when another worker's cancellation or confirmation of the order got there first
          // and its answer is still on its way: that one settles the order once answered.
          while (!order.settled && order.inFlight.size > 0) await Promise.race(order.inFlight).catch(() => undefined);
          if (answers.every((a) => a.code === 40900) && !order.settled)
            note('model', `order ${order.orderNo}: both concurrent confirmations refused`);
        } else {
          const answer = await attempt(orderConfirmRequest(worker, order));
          if (answer.code === 40900) settle(order);
        }
        return;
      }
      case 'orderCancel': {
        if (pendingOrders.length === 0) return step(rnd, worker);
        const order = rnd.pick(pendingOrders);
        await onOrder(order, async () => {
          const answer = await order.buyer.client.call('orderCancel', { body: { id: order.id } });
          if (answer.code === 0) {
            order.cancelled = true;
            settle(order);
            if (answer.data.status !== 'cancelled') note('model', `cancel answered ${JSON.stringify(answer.data)}`);
          } else if (answer.code !== 40900) {
            note('unexpected', `orderCancel ${order.id} → ${answer.status} ${answer.code} ${answer.message}`);
          }
        });
        return;
      }
      case 'redeemGenerate':
        await attempt(redeemGenerateRequest(rnd, worker));
        return;
      case 'redeemUse': {
        const r = rnd.next();
        if (r < 0.15 && spentCodes.length > 0) {
          // A code someone already used.
          const member = carefulMember(rnd);
          if (!member) return step(rnd, worker);
          await redeem(redeemUseRequest(worker, member, rnd.pick(spentCodes), false), member);
          return;
        }
        if (unusedCodes.length === 0) {
          await attempt(redeemGenerateRequest(rnd, worker));
          return;
        }
        const code = unusedCodes.splice(Math.floor(rnd.next() * unusedCodes.length), 1)[0]!;
        if (r < 0.27) {
          // Two members typing the same code at once: one gets the coins.
          const [a, b] = [carefulMember(rnd), carefulMember(rnd)];
          if (!a || !b || a === b) {
            unusedCodes.push(code);
            return step(rnd, worker);
          }
          stats.doubleRedeems++;
          const answers = await Promise.all([
            redeem(redeemUseRequest(worker, a, code, true), a),
            redeem(redeemUseRequest(worker, b, code, true), b),
          ]);
          if (answers.every((x) => x.code === 40000))
            note('model', `code ${code.code}: both concurrent redemptions refused`);
        } else {
          const member = carefulMember(rnd) ?? rnd.pick(members);
          const answer = await redeem(redeemUseRequest(worker, member, code, true), member);
          if (answer.code === 40000)
            note('unexpected', `fresh code ${code.code} refused for ${member.userAccount}: ${answer.message}`);
        }
        // A code nobody got (every try locked out, already noted) goes back to the pool; a used one is kept for reuse tries.
        (code.redemptions > 0 ? spentCodes : unusedCodes).push(code);
        return;
      }
      default:
        throw new Error(`unknown step ${what}`);
    }
  }

  // ---- setup -------------------------------------------------------------------------------------------------------

  /** Runs `fn` over `items`, at most `n` at a time (scrypt hashing: logins are slow, and the login limit counts attempts in flight). */
  async function limited<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
    const results: R[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(n, items.length) }, async () => {
        while (next < items.length) {
          const i = next++;
          results[i] = await fn(items[i]!, i);
        }
      }),
    );
    return results;
  }

  beforeAll(async () => {
    console.log(
      `ledger simulation (${dbKind()}): seed ${SEED} — replay with LEDGER_SEED=${SEED}; orders ${WITH_ORDERS ? 'on' : 'off'}, redeem codes ${WITH_REDEEM ? 'on' : 'off'}`,
    );
    app = await startTestApp();
    await app.built.fastify.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.built.fastify.server.address() as AddressInfo).port}`;
    await admin.ok('userLogin', { body: ADMIN });
    await admin.ok('basicInformationUpdate', {
      body: { id: 1, addCoin: SIGNUP_BONUS, rebatePercent: REBATE_PERCENT, amount: 0 },
    });

    // Plain users and agents, created by the admin (no sign-up bonus) and logged in once each.
    const accounts = Array.from({ length: PLAIN_USERS + AGENTS }, (_, i) => ({
      userAccount: uniqueAccount('s'),
      agent: i < AGENTS,
    }));
    const created = await limited(accounts, 4, async ({ userAccount, agent }) => {
      const id: number = await admin.ok('userAdd', {
        body: { userAccount, userPassword: PASSWORD, userRole: agent ? 'agent' : 'user' },
      });
      const client = new HttpClient();
      await client.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
      return { id, userAccount, client, agentId: null, redeemFailures: 0, agent };
    });
    for (const m of created)
      members.push({ id: m.id, userAccount: m.userAccount, client: m.client, agentId: null, redeemFailures: 0 });

    // Subordinates register with an agent's invitation code (the sign-up bonus is issued coins; their orders earn rebates).
    for (const agent of created.filter((m) => m.agent)) {
      const { invitationCode } = await agent.client.ok('userGetInvitationCode');
      for (let i = 0; i < SUBORDINATES_PER_AGENT; i++) {
        const userAccount = uniqueAccount('d');
        const client = new HttpClient();
        const id: number = await client.ok('userRegister', {
          body: { userAccount, userPassword: PASSWORD, checkPassword: PASSWORD, invitationCode },
        });
        await client.ok('userLogin', { body: { userAccount, userPassword: PASSWORD } });
        model.issue(id, SIGNUP_BONUS, 'signup_bonus');
        members.push({ id, userAccount, client, agentId: agent.id, redeemFailures: 0 });
      }
    }

    if (WITH_ORDERS) {
      // Coins divisible by 100/REBATE_PERCENT: the rebate is exact whichever way it is rounded.
      for (const [addCoin, onShelf] of [
        [100, true],
        [500, true],
        [1200, true],
        [300, false],
      ] as const) {
        const id: number = await admin.ok('mallAdd', {
          body: { coinName: `套餐${addCoin}`, amount: addCoin * 10, addCoin, status: onShelf ? 1 : 0, sort: 0 },
        });
        packages.push({ id, addCoin, onShelf });
      }
    }

    // Opening balances, through the ledger like everything else.
    await limited(members, 8, async (m, i) => {
      const k = adminChangeRequest(new Random(mulberry32(SEED ^ (i * 0x9e3779b9))), CLIENTS, 'add');
      k.body = { userAccount: m.userAccount, coin: 200 + ((SEED + i * 7919) % 1800), description: '期初余额' };
      k.apply = () => model.issue(m.id, k.body.coin as number, 'admin_add');
      await attempt(k);
    });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
  });

  it(`${OPERATIONS} random operations from ${CLIENTS} concurrent clients leave the ledger, the balances and the model in agreement`, async () => {
    const started = Date.now();
    const before = stats.requests;
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, worker) => {
        const rnd = new Random(mulberry32((SEED + Math.imul(worker + 1, 0x9e3779b9)) >>> 0));
        while (operationsStarted < OPERATIONS) {
          operationsStarted++;
          await step(rnd, worker);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const requests = stats.requests - before;
    console.log(
      `ledger simulation (${dbKind()}, seed ${SEED}): ${operationsStarted} operations, ${requests} requests in ${seconds.toFixed(1)} s ` +
        `(${(requests / seconds).toFixed(0)}/s); ${stats.sequentialRetries} retries, ${stats.concurrentRetries} concurrent duplicates, ` +
        `${stats.replays} replays, ${stats.wrongBody409} key reuses refused, ${stats.doubleConfirms} double confirmations, ${stats.doubleRedeems} double redemptions; ` +
        `issued ${model.issued}, removed ${model.removed}\n  ` +
        [...stats.byOperation].map(([op, { sent, ok }]) => `${op} ${ok}/${sent}`).join(', '),
    );

    // Nothing went wrong on the wire.
    expect(problems.serverErrors, `5xx answers (${noted.get('serverErrors') ?? 0}, seed ${SEED})`).toEqual([]);
    expect(problems.transport, `transport errors (seed ${SEED})`).toEqual([]);
    expect(problems.contract, `answers outside openapi.yaml (seed ${SEED})`).toEqual([]);
    expect(problems.unexpected, `unexpected answers (${noted.get('unexpected') ?? 0}, seed ${SEED})`).toEqual([]);
    expect(problems.divergentRetries, `retries answered differently (seed ${SEED})`).toEqual([]);
    expect(problems.model, `answers the model rejects (seed ${SEED})`).toEqual([]);
    expect(operationsStarted).toBeGreaterThanOrEqual(OPERATIONS);
    expect(stats.replays).toBeGreaterThan(0);

    // Every balance is what the model says, the sum of its entries, and never negative.
    const db = app.built.context.db;
    const users = await db.selectFrom('users').select(['id', 'userAccount', 'coin']).execute();
    const entries = await entriesOf(app);
    const sums = new Map<number, number>();
    for (const e of entries) sums.set(e.userId, (sums.get(e.userId) ?? 0) + e.amount);
    const wrong = users
      .map((u) => ({
        id: Number(u.id),
        userAccount: u.userAccount,
        coin: Number(u.coin),
        sum: sums.get(Number(u.id)) ?? 0,
        model: model.balanceOf(Number(u.id)),
      }))
      .filter((u) => u.coin !== u.sum || u.coin !== u.model || u.coin < 0);
    expect(wrong, `balances vs entries vs model (seed ${SEED})`).toEqual([]);
    const total = users.reduce((n, u) => n + Number(u.coin), 0);
    expect(total, 'total of balances = issued − removed').toBe(model.issued - model.removed);

    // Each successful request moved once: as many entries of each kind as successes, one pair per transfer.
    const byKind = new Map<string, number>();
    for (const e of entries) byKind.set(e.kind, (byKind.get(e.kind) ?? 0) + 1);
    expect(Object.fromEntries([...byKind].sort())).toEqual(Object.fromEntries([...model.entries].sort()));
    const byReference = new Map<string, number>();
    for (const e of entries)
      if (e.kind === 'transfer_out' || e.kind === 'transfer_in')
        byReference.set(e.reference, (byReference.get(e.reference) ?? 0) + 1);
    expect(
      [...transferReferences].filter((r) => byReference.get(r) !== 2),
      'answered transfers without exactly one pair of entries',
    ).toEqual([]);
    expect(byReference.size).toBe(transferReferences.size);

    if (WITH_ORDERS) {
      expect(
        orders.filter((o) => o.confirmations > 1 || (o.confirmations > 0 && o.cancelled)).map((o) => o.orderNo),
        'orders confirmed twice, or confirmed and cancelled',
      ).toEqual([]);
      const credits = new Map<string, number>();
      for (const e of entries)
        if (e.kind === 'order_credit') credits.set(e.reference, (credits.get(e.reference) ?? 0) + 1);
      expect([...credits.values()].filter((n) => n !== 1)).toEqual([]);
      expect(credits.size).toBe(orders.filter((o) => o.confirmations === 1).length);
      const paid = await db.selectFrom('orders').select(['orderNo', 'status']).execute();
      const confirmed = new Set(orders.filter((o) => o.confirmations === 1).map((o) => o.orderNo));
      expect(
        paid.filter((o) => (o.status === 'paid') !== confirmed.has(o.orderNo)).map((o) => o.orderNo),
        'paid orders vs confirmations',
      ).toEqual([]);
    }
    if (WITH_REDEEM) {
      expect(
        allCodes.filter((c) => c.redemptions > 1).map((c) => c.code),
        'codes redeemed twice',
      ).toEqual([]);
      const used = await db
        .selectFrom('redeemCodes')
        .select(['code', 'usedBy'])
        .where('usedBy', 'is not', null)
        .execute();
      expect(used.length).toBe(allCodes.filter((c) => c.redemptions === 1).length);
    }

    // The ledger check over HTTP agrees, and so do the shared invariants (running balances, transfer pairs).
    const check = await admin.ok('coinLedgerCheck');
    expect(check.mismatches).toEqual([]);
    expect(check.totalBalance).toBe(model.issued - model.removed);
    expect(check.entries).toBe(entries.length);
    await expectLedgerConsistent(app);
  }, 300_000);
});
