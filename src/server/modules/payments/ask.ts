import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { Db } from '../../db/database.js';
import * as records from '../orders/payment-records-repo.js';
import { openChannel } from './channels.js';
import { connectorFor, type GatewayOrder } from './connectors/index.js';
import * as repo from './repo.js';
import { settleFromGateway } from './settle.js';

// Asking gateways about an order: the sweep (its notification may be lost), the buyer's 重新查询 and an admin's 补单
// all come here. Every channel the order was sent to is asked, each answer is recorded on the order's timeline with its
// verdict, and a "paid" answer is taken only for the order asked about and for the right money (settle.ts).

export type ChannelAnswer = Schemas['ChannelAnswer'];
/** Who asks: the sweep, the buyer's 重新查询, an admin's 补单 (its id goes into the audit). */
export type Asker = { source: 'sweep' | 'check' } | { source: 'admin'; actorId: number };
/**
 * How a channel's question waits its turn (the sweep bounds how many run at once per channel, and skips a channel
 * that stopped answering); answers null when the question is not asked now.
 */
export type AskTurn = (channelId: number, ask: () => Promise<GatewayOrder>) => Promise<GatewayOrder | null>;

/** A channel's record and, when its key opens, the channel ready to ask; the sweep keeps them for a pass. */
export type ChannelSource = (
  id: number,
) => Promise<{ row: repo.ChannelRow; channel: Awaited<ReturnType<typeof openChannel>> } | undefined>;

const direct: AskTurn = (_channelId, ask) => ask();

/** Verdicts a sweep finds again and again while nothing changes: recorded when they first appear, not every time. */
const REPEATING: readonly ChannelAnswer['verdict'][] = [
  'not_paid',
  'gateway_refused',
  'gateway_error',
  'insecure',
  'key_unusable',
];

export interface AskOptions {
  turn?: AskTurn;
  channels?: ChannelSource;
  /** Awaited before each step that reads or writes the database: the sweep gives way to requests there. */
  pace?: () => Promise<void>;
}

const noPause = () => Promise.resolve();

/**
 * Asks each channel the order was sent to, all at once (each at most the gateway timeout), and settles what they say
 * is paid. Answers what each channel said, and how many were not asked now (the sweep's turn passed them over).
 */
export async function askChannels(
  app: AppContext,
  order: { id: number; orderNo: string; amount: number },
  asker: Asker,
  options: AskOptions = {},
): Promise<{ answers: ChannelAnswer[]; unasked: number }> {
  const channelIds = await records.attemptChannelIds(app.db, order.id);
  const load = options.channels ?? ((id: number) => openRow(app, id));
  const steps = { turn: options.turn ?? direct, load, pace: options.pace ?? noPause };
  const said = await Promise.all(channelIds.map((id) => askOne(app, order, id, asker, steps)));
  const answers = said.filter((a) => a !== null);
  return { answers, unasked: said.length - answers.length };
}

/** A channel's record and the channel opened (undefined when its key cannot be opened). */
async function openRow(app: AppContext, id: number) {
  const row = await repo.findChannel(app.db, id);
  return row ? { row, channel: await openChannel(app, id) } : undefined;
}

/** A ChannelSource that reads each channel once (the sweep's pass asks about many orders of few channels). */
export function channelsOnce(app: AppContext): ChannelSource {
  const known = new Map<number, ReturnType<typeof openRow>>();
  return (id) => {
    let found = known.get(id);
    if (!found) known.set(id, (found = openRow(app, id)));
    return found;
  };
}

async function askOne(
  app: AppContext,
  order: { id: number; orderNo: string; amount: number },
  channelId: number,
  asker: Asker,
  { turn, load, pace }: { turn: AskTurn; load: ChannelSource; pace: () => Promise<void> },
): Promise<ChannelAnswer | null> {
  await pace();
  const found = await load(channelId);
  if (!found) return null;
  const { row, channel } = found;
  const said: GatewayOrder | null = channel
    ? await turn(channelId, () => connectorFor(app, channel.kind).queryOrder(channel, order.orderNo))
    : { state: 'error', reason: 'unreachable', detail: null };
  if (said === null) return null;
  await pace();
  /** The question and its answer on the order's timeline (for a payment, in its settlement's transaction). */
  const record = (db: Db, answer: Answer) =>
    records.insertEvent(db, {
      at: app.now(),
      kind: 'query',
      orderId: order.id,
      orderNo: order.orderNo,
      channelId,
      tradeNo: answer.tradeNo,
      money: answer.money,
      verdict: answer.verdict,
      expectedAmount: answer.verdict === 'wrong_amount' ? order.amount : null,
      source: asker.source,
      actorId: asker.source === 'admin' ? asker.actorId : null,
      detail: answer.detail,
    });
  const answer: Answer & { recorded?: boolean } = channel
    ? await verdictOf(app, order, channelId, said, asker, record)
    : { verdict: 'key_unusable', tradeNo: null, money: null, detail: null };
  app.metrics.payQueries.inc({ result: answer.verdict });
  await pace();
  // The sweep asks an abandoned order dozens of times a day: its timeline keeps each change, not each repetition.
  const repeated =
    asker.source === 'sweep' &&
    REPEATING.includes(answer.verdict) &&
    (await records.lastQueryVerdict(app.db, order.id, channelId)) === answer.verdict;
  if (!repeated && !answer.recorded) await record(app.db, answer);
  return {
    channelId,
    channelName: row.name,
    verdict: answer.verdict,
    tradeNo: answer.tradeNo,
    money: answer.money,
    detail: answer.detail,
  };
}

type Answer = Omit<ChannelAnswer, 'channelId' | 'channelName'>;

/** What a gateway's answer means for the order, settling it when it is a payment of this order at its price. */
async function verdictOf(
  app: AppContext,
  order: { id: number; orderNo: string; amount: number },
  channelId: number,
  said: GatewayOrder,
  asker: Asker,
  record: (db: Db, answer: Answer) => Promise<void>,
): Promise<Answer & { recorded?: boolean }> {
  const none = { tradeNo: null, money: null };
  switch (said.state) {
    case 'error':
      return {
        ...none,
        verdict: said.reason === 'insecure' ? 'insecure' : 'gateway_error',
        detail: faultWords(said.reason, said.detail),
      };
    case 'refused':
      return { ...none, verdict: 'gateway_refused', detail: said.message };
    case 'unpaid':
      return { ...none, verdict: 'not_paid', detail: null };
    case 'paid': {
      const seen = { tradeNo: said.tradeNo, money: said.money };
      // A "paid" about another order (a gateway answering the wrong row, a forged answer) counts for nothing here.
      if (said.outTradeNo !== order.orderNo)
        return { ...seen, verdict: 'wrong_order', detail: said.outTradeNo ? `out_trade_no=${said.outTradeNo}` : null };
      if (!said.tradeNo) return { ...seen, verdict: 'gateway_error', detail: 'trade_no 为空' };
      const verdict = await settleFromGateway(app, order.id, {
        channelId,
        tradeNo: said.tradeNo,
        money: said.money,
        source: asker.source,
        actorId: asker.source === 'admin' ? asker.actorId : null,
        witness: (trx, found) => record(trx, { ...seen, verdict: found, detail: null }),
      });
      return { ...seen, verdict, detail: null, recorded: true };
    }
  }
}

/** A fault as a short technical line for the timeline (the screen words the verdict; this says what exactly). */
function faultWords(reason: string, detail: string | null): string {
  const what: Record<string, string> = {
    timeout: '超时',
    unreachable: '连接失败',
    http_status: 'HTTP 错误',
    not_epay: '答复不是易支付格式',
    too_large: '答复过长',
    insecure: 'http 网关，未发送密钥',
  };
  return detail ? `${what[reason] ?? reason}：${detail}` : (what[reason] ?? reason);
}
