import { useCallback, useEffect, useRef, useState } from 'react';
import { Button, ErrorBlock, Result } from 'antd-mobile';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { liveStatus, subscribeLive } from '../live/stream';
import { useOperation } from '../operations/useOperation';
import { leavePage } from '../renderers/leave';
import { sessionStore, signIn } from '../state/session';
import { useStore } from '../state/store';
import './pay.css';

const R = w.pay.result;
type Order = Schemas['Order'];

/** An order number as the site writes them: the site day (yymmdd) and 8 letters or digits. */
const ORDER_NO = /^[0-9]{6}[A-Z0-9]{8}$/;
/** Without the event stream, how often an unpaid order is asked about while this page is open. */
export const POLL_MS = 5000;

/** Closed: cancelled, or past its time to pay (the server's sweep closes it within a minute). */
const closed = (o: Order, now: number) =>
  o.status === 'cancelled' || (o.status === 'pending' && o.expiresAt !== null && o.expiresAt <= now);
/** Closed because its time ran out (no one cancelled it). */
const timedOut = (o: Order) => o.expiresAt !== null && (o.cancelledAt ?? Infinity) >= o.expiresAt;

/**
 * 支付结果: where a payment channel's cashier sends the payer back (`?out_trade_no=<order number>`). It asks the server
 * for the order (orderCheck, which asks the channel once when the order is still unpaid) and shows 支付成功 with the
 * coins and the new balance, 等待支付结果 (asked again when the order's event arrives, on 重新查询, or on a timer
 * without the event stream), or 订单已关闭 with 重新下单. Every state leads on: 我的订单 and 返回商城.
 */
export default function PayResult() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const orderNo = params.get('out_trade_no') ?? '';
  const valid = ORDER_NO.test(orderNo);
  const { user } = useStore(sessionStore);
  const stream = useStore(liveStatus);
  const [order, setOrder] = useState<Order | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [note, setNote] = useState<{ text: string; alert: boolean } | null>(null);
  const [leaving, setLeaving] = useState(false);
  // The time the order was last judged at: when it was read, and again when its time to pay runs out.
  const [now, setNow] = useState(() => Date.now());
  const inFlight = useRef(false);
  const credited = useRef(false);
  const pay = useOperation('orderPay');

  const check = useCallback(
    async (asked: boolean) => {
      if (!valid || inFlight.current) return;
      inFlight.current = true;
      setChecking(true);
      if (asked) setNote(null);
      try {
        const answer = await api.call('orderCheck', { body: { orderNo }, quiet: true });
        setOrder(answer);
        setNow(Date.now());
        setFailure(null);
        if (answer.status === 'paid' && !credited.current) {
          credited.current = true;
          // The balance as it is now: the coins may have arrived before this tab's event stream was open.
          void api.call('userGetLogin', { quiet: true }).then(signIn, () => undefined);
        }
        if (asked && answer.status === 'pending') setNote({ text: R.stillWaiting, alert: false });
      } catch (error) {
        const message = error instanceof ApiError && error.kind === 'envelope' ? error.message : t.networkError;
        setFailure(message);
        if (asked) setNote({ text: message, alert: true });
      } finally {
        inFlight.current = false;
        setChecking(false);
      }
    },
    [orderNo, valid],
  );
  useEffect(() => void check(false), [check]);

  const waiting = order?.status === 'pending' && !closed(order, now);
  // An unpaid order shown until its time to pay runs out: then it reads 订单已关闭 without waiting for a read.
  const expiresAt = order?.status === 'pending' ? order.expiresAt : null;
  useEffect(() => {
    if (expiresAt === null) return;
    const timer = setTimeout(() => setNow(Date.now()), Math.max(expiresAt - Date.now(), 0) + 500);
    return () => clearTimeout(timer);
  }, [expiresAt]);
  // While unpaid: asked again as soon as the order's event arrives (the channel's notification settled it), or on a
  // timer when the event stream is not there.
  const orderId = order?.id;
  useEffect(() => {
    if (!waiting) return;
    return subscribeLive(['order'], (event) => {
      if (event.kind === 'resync' || (event.kind === 'order' && event.orderId === orderId)) void check(false);
    });
  }, [waiting, orderId, check]);
  useEffect(() => {
    if (!waiting || stream === 'open') return;
    const timer = setInterval(() => {
      if (document.visibilityState !== 'hidden') void check(false);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [waiting, stream, check]);

  const payAgain = async (o: Order) => {
    if (o.channelId === null || o.method === null) return;
    let refused: string | null = null;
    const answer = await pay.run(
      { body: { id: o.id, channelId: o.channelId, method: o.method } },
      {
        report: (error) => {
          refused = error.message;
          return true;
        },
      },
    );
    if (answer.ok) {
      setLeaving(true);
      leavePage.to(answer.data.payUrl);
    } else setNote({ text: (refused as string | null) ?? t.networkError, alert: true });
  };

  const onward = (
    <div className="pay-result-links">
      <Button onClick={() => void navigate('/my_orders')}>{R.myOrders}</Button>
      <Button onClick={() => void navigate('/mall')}>{R.backToMall}</Button>
    </div>
  );

  if (!valid)
    return (
      <div className="app-page">
        <ErrorBlock status="empty" title={R.noOrderNo} description={R.noOrderNoHint} className="pay-dead-end">
          {onward}
        </ErrorBlock>
      </div>
    );
  if (!order)
    return (
      <div className="app-page">
        {failure === null ? (
          <div aria-busy="true">
            <Result status="waiting" title={R.checking} className="pay-result" />
          </div>
        ) : (
          <ErrorBlock status="default" title={R.failed} description={failure} className="pay-dead-end">
            <Button color="primary" block loading={checking} onClick={() => void check(true)}>
              {t.shell.retry}
            </Button>
            {onward}
          </ErrorBlock>
        )}
      </div>
    );

  const method = order.method ? (w.pay.methods[order.method] ?? order.method) : w.pay.offline;
  const facts = (
    <dl className="pay-facts">
      <div>
        <dt>{R.item}</dt>
        <dd>{order.coinName}</dd>
      </div>
      <div>
        <dt>{R.amount}</dt>
        <dd>{w.mall.yuan(order.amount)}</dd>
      </div>
      <div>
        <dt>{R.method}</dt>
        <dd>{method}</dd>
      </div>
      <div>
        <dt>{R.orderNo}</dt>
        <dd>{order.orderNo}</dd>
      </div>
    </dl>
  );
  const noteLine = note && (
    <p className={note.alert ? 'pay-note pay-note-alert' : 'pay-note'} role={note.alert ? 'alert' : 'status'}>
      {note.text}
    </p>
  );

  if (order.status === 'paid')
    return (
      <div className="app-page">
        <Result
          status={order.refundedAt === null ? 'success' : 'info'}
          title={order.refundedAt === null ? R.paid : R.refunded}
          description={
            order.refundedAt === null ? (
              <>
                <span className="pay-credited">{R.credited(order.addCoin)}</span>
                {user && <span className="pay-balance">{R.balance(user.coin)}</span>}
              </>
            ) : (
              R.refundedHint(order.addCoin)
            )
          }
          className="pay-result"
        />
        {facts}
        <div className="pay-result-links">
          <Button color="primary" onClick={() => void navigate('/mall')}>
            {R.backToMall}
          </Button>
          <Button onClick={() => void navigate('/my_orders')}>{R.myOrders}</Button>
        </div>
      </div>
    );

  if (closed(order, now))
    return (
      <div className="app-page">
        <Result
          status="warning"
          title={R.closed}
          description={timedOut(order) ? R.closedExpired : R.closedCancelled}
          className="pay-result"
        />
        {facts}
        <div className="pay-result-links">
          <Button color="primary" onClick={() => void navigate('/mall')}>
            {R.reorder}
          </Button>
          <Button onClick={() => void navigate('/my_orders')}>{R.myOrders}</Button>
        </div>
      </div>
    );

  return (
    <div className="app-page">
      <Result
        status="waiting"
        title={R.waiting}
        description={order.channelId === null ? R.waitingOffline : R.waitingHint}
        className="pay-result"
      />
      {facts}
      {order.expiresAt !== null && <p className="pay-deadline">{R.payBefore(order.expiresAt)}</p>}
      {noteLine}
      <div className="pay-result-actions">
        <Button
          color="primary"
          block
          loading={checking}
          loadingText={R.rechecking}
          disabled={leaving}
          onClick={() => void check(true)}
        >
          {R.recheck}
        </Button>
        {order.channelId !== null && order.method !== null && (
          <Button
            block
            loading={pay.busy || leaving}
            loadingText={w.pay.toCashier}
            disabled={checking}
            onClick={() => void payAgain(order)}
          >
            {R.payAgain}
          </Button>
        )}
      </div>
      {onward}
    </div>
  );
}
