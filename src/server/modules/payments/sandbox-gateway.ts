import { randomInt } from 'node:crypto';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { badParams, conflict, forbidden, notFound } from '../../lib/errors.js';
import { isOn, openChannel } from './channels.js';
import { epayVerify, signed } from './epay-sign.js';
import { fenOf } from './money.js';
import * as repo from './repo.js';
import * as trades from './sandbox-repo.js';

// The sandbox gateway: a 易支付 gateway in miniature inside the product, so the whole path of a payment runs on a
// fresh machine and in every test. Its cashier page is /cashier (模拟收银台, no money moves); like a real gateway it
// checks the site's signed request (submit.php), keeps its own trades, and on payment sends the site a signed
// notification over loopback to the notify_url it was given. Options for tests and demos: the notification delayed,
// sent twice at once, or lost (the site's query job then finds the payment through queryOrder).

/** How long a delayed notification waits. */
export const DELAY_MS = 5_000;

const view = (t: trades.SandboxTradeRow): Schemas['SandboxTrade'] => ({
  tradeNo: t.tradeNo,
  outTradeNo: t.outTradeNo,
  type: t.type,
  name: t.name,
  money: t.money,
  status: t.status,
  createdAt: Number(t.createdAt),
});

/** A gateway-style trade number: SBX, the time to the second, six random digits. */
const tradeNoAt = (now: number) =>
  `SBX${new Date(now).toISOString().replace(/\D/g, '').slice(2, 14)}${String(randomInt(1_000_000)).padStart(6, '0')}`;

/**
 * The sandbox channel, only while it is on: switched off, its cashier pays nothing more, not even a page opened
 * before (the coins it credits are real).
 */
async function sandboxChannel(app: AppContext, pid?: string) {
  const row = await repo.findSandboxChannel(app.db);
  if (!row || (pid !== undefined && row.pid !== pid)) throw forbidden('商户号不正确');
  if (!isOn(app, row)) throw forbidden('模拟收银台已关闭，请回到商城换一种付款方式');
  return (await openChannel(app, row.id))!;
}

/** submit.php: the site's signed request becomes a trade (a resubmission of the same order gets the same one). */
export async function submit(
  app: AppContext,
  params: Schemas['SandboxPaySubmitRequest'],
): Promise<Schemas['SandboxTrade']> {
  const channel = await sandboxChannel(app, params.pid);
  if (!epayVerify(params, channel.key)) throw forbidden('签名不正确，请回到商城重新下单');
  if (!((fenOf(params.money) ?? 0) > 0)) throw badParams('金额不正确');
  const existing = await trades.liveTradeFor(app.db, channel.id, params.out_trade_no);
  if (existing && (existing.status === 'paid' || existing.money === params.money)) {
    if (existing.status === 'pending' && existing.type !== params.type)
      await trades.setTradeType(app.db, existing.tradeNo, params.type);
    return view((await trades.findTrade(app.db, existing.tradeNo))!);
  }
  const now = app.now();
  const tradeNo = tradeNoAt(now);
  await trades.insertTrade(app.db, {
    tradeNo,
    channelId: channel.id,
    outTradeNo: params.out_trade_no,
    type: params.type,
    name: params.name,
    money: params.money,
    notifyUrl: params.notify_url,
    returnUrl: params.return_url,
    status: 'pending',
    createdAt: now,
    paidAt: null,
  });
  return view((await trades.findTrade(app.db, tradeNo))!);
}

/** The cashier's buttons: 确认付款, 付款失败, 关闭. Answers the trade and where the payer goes back to. */
export async function act(
  app: AppContext,
  input: Schemas['SandboxPayActRequest'],
): Promise<Schemas['SandboxPayActResult']> {
  const trade = await trades.findTrade(app.db, input.tradeNo);
  if (!trade) throw notFound('交易不存在');
  const channel = await sandboxChannel(app);
  const status = input.outcome === 'pay' ? 'paid' : input.outcome === 'fail' ? 'failed' : 'closed';
  const now = app.now();
  if (!(await trades.finishTrade(app.db, trade.tradeNo, { status, paidAt: status === 'paid' ? now : null })))
    throw conflict('这笔交易已经结束，请回到商城查看订单');
  const back = new URL(trade.returnUrl);
  if (status === 'paid') {
    const notification = signed(
      {
        pid: channel.pid,
        trade_no: trade.tradeNo,
        out_trade_no: trade.outTradeNo,
        type: trade.type,
        name: trade.name,
        money: trade.money,
        trade_status: 'TRADE_SUCCESS',
      },
      channel.key,
    );
    sendNotification(app, trade.notifyUrl, notification, input.notify);
    for (const [name, value] of Object.entries(notification)) back.searchParams.set(name, value);
  } else {
    back.searchParams.set('out_trade_no', trade.outTradeNo);
  }
  return { trade: view((await trades.findTrade(app.db, trade.tradeNo))!), returnUrl: back.toString() };
}

/**
 * Sends the notification to the path of notify_url on this server, over loopback, without making the payer's answer
 * wait for it (a real gateway notifies on its own time). What the site answered is logged.
 */
function sendNotification(
  app: AppContext,
  notifyUrl: string,
  form: Record<string, string>,
  how: 'normal' | 'delay' | 'twice' | 'lose',
): void {
  if (how === 'lose') {
    app.log.info({ orderNo: form.out_trade_no }, 'sandbox gateway: notification lost on purpose');
    return;
  }
  const url = new URL(notifyUrl);
  const send = () =>
    app
      .loopback(url.pathname + url.search, form)
      .then((answer) => app.log.info({ orderNo: form.out_trade_no, answer }, 'sandbox gateway: notification sent'))
      .catch((err: unknown) =>
        app.log.warn({ err, orderNo: form.out_trade_no }, 'sandbox gateway: notification failed'),
      );
  if (how === 'delay') setTimeout(() => void send(), DELAY_MS).unref();
  else if (how === 'twice') void Promise.all([send(), send()]);
  else void send();
}
