import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { Link, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { leavePage } from '../renderers/leave';
import { HeaderBar } from '../shell/HeaderBar';
import './pay.css';
import '../shell/frame.css';

const C = w.pay.cashier;
type Trade = Schemas['SandboxTrade'];
type Request = Schemas['SandboxPaySubmitRequest'];
type Outcome = Schemas['SandboxPayActRequest']['outcome'];
type Notify = NonNullable<Schemas['SandboxPayActRequest']['notify']>;

/** The 易支付 submit parameters the site signed, as the cashier's address carries them; null when one is missing. */
const FIELDS = [
  'pid',
  'type',
  'out_trade_no',
  'notify_url',
  'return_url',
  'name',
  'money',
  'sign',
  'sign_type',
] as const;
function requestOf(params: URLSearchParams): Request | null {
  const values = FIELDS.map((name) => [name, params.get(name) ?? ''] as const);
  if (values.some(([, value]) => value === '')) return null;
  return Object.fromEntries(values) as unknown as Request;
}

/** The site's result page for this order, from the signed return_url (only an http(s) address is followed). */
function resultUrl(request: Request): string | null {
  try {
    const url = new URL(request.return_url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    url.searchParams.set('out_trade_no', request.out_trade_no);
    return url.toString();
  } catch {
    return null;
  }
}

type State =
  | { status: 'loading' }
  | { status: 'ready'; trade: Trade }
  /** The gateway refused the request (its signature, its merchant): nothing to pay here. */
  | { status: 'refused'; message: string }
  | { status: 'failed' }
  /** Paid or ended meanwhile (another tab, a tap twice). */
  | { status: 'finished'; paid: boolean };

/**
 * 模拟收银台: the sandbox payment channel's cashier (built into the product; no money moves). It hands the site's
 * signed request to the gateway (sandboxPaySubmit), shows what is paid, and 确认付款 / 付款失败 / 关闭订单 end the
 * gateway's trade (sandboxPayAct): the gateway notifies the site over loopback, as a real one would, and the phone
 * returns to the site's result page. How the notification is sent can be changed for tests and demos. Open to
 * visitors and without the app's frame: a cashier belongs to the payment channel, not to the site.
 */
export default function Cashier() {
  const [params] = useSearchParams();
  const search = params.toString();
  const request = useMemo(() => requestOf(new URLSearchParams(search)), [search]);
  const [state, setState] = useState<State>({ status: 'loading' });
  const [notify, setNotify] = useState<Notify>('normal');
  const [pressed, setPressed] = useState<Outcome | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = useOperation('sandboxPayAct');

  const load = useCallback(async () => {
    if (!request) return;
    setState({ status: 'loading' });
    try {
      const trade = await api.call('sandboxPaySubmit', { body: request, quiet: true });
      setState(
        trade.status === 'pending' ? { status: 'ready', trade } : { status: 'finished', paid: trade.status === 'paid' },
      );
    } catch (e) {
      setState(
        e instanceof ApiError && e.kind === 'envelope' && (e.status ?? 500) < 500
          ? { status: 'refused', message: e.message }
          : { status: 'failed' },
      );
    }
  }, [request]);
  useEffect(() => void load(), [load]);

  // Back here from the site with the browser's back button: the page may come back as it was left, still waiting.
  useEffect(() => {
    const back = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setLeaving(false);
      setPressed(null);
      void load();
    };
    window.addEventListener('pageshow', back);
    return () => window.removeEventListener('pageshow', back);
  }, [load]);

  const finish = async (trade: Trade, outcome: Outcome) => {
    if (pressed) return;
    setPressed(outcome);
    setError(null);
    let refused: ApiError | null = null;
    const answer = await act.run(
      { body: { tradeNo: trade.tradeNo, outcome, notify } },
      {
        report: (e) => {
          refused = e;
          return true;
        },
      },
    );
    if (answer.ok) {
      setLeaving(true);
      leavePage.to(answer.data.returnUrl);
      return;
    }
    setPressed(null);
    const failure = refused as ApiError | null;
    // Ended meanwhile (another tab paid it): there is nothing left to do here but go back.
    if (failure?.status === 409) setState({ status: 'finished', paid: false });
    else setError(failure?.message ?? t.networkError);
  };

  return (
    <div className="app-frame">
      <header className="app-header">
        <HeaderBar title={C.title} />
      </header>
      <main className="app-main cashier">{body()}</main>
    </div>
  );

  function body() {
    if (!request) return <CashierDeadEnd title={C.badLink} hint={C.badLinkHint} />;
    if (state.status === 'refused') return <CashierDeadEnd title={C.refused} hint={state.message} />;
    if (state.status === 'failed')
      return (
        <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
          <Button color="primary" onClick={() => void load()}>
            {t.shell.retry}
          </Button>
        </ErrorBlock>
      );
    if (state.status === 'finished') {
      const back = resultUrl(request);
      return (
        <ErrorBlock
          status="empty"
          title={state.paid ? C.paidAlready : C.finished}
          description={C.finishedHint}
          className="cashier-dead-end"
        >
          {back ? (
            <a className="cashier-link" href={back}>
              {C.toResult}
            </a>
          ) : (
            <Link className="cashier-link" to="/mall">
              {C.backToMall}
            </Link>
          )}
        </ErrorBlock>
      );
    }
    if (state.status === 'loading')
      return (
        <div className="app-card" aria-busy="true" aria-label={C.opening}>
          <Skeleton.Paragraph lineCount={5} animated />
        </div>
      );
    const { trade } = state;
    const busy = pressed !== null || leaving;
    const waitText = leaving ? C.returning : C.working;
    return (
      <>
        <p className="cashier-simulated">{C.simulated}</p>
        <section className="cashier-card" aria-label={C.amount}>
          <p className="cashier-amount-label">{C.amount}</p>
          <p className="cashier-amount">¥{trade.money}</p>
          <dl className="cashier-facts">
            <div>
              <dt>{C.item}</dt>
              <dd>{trade.name}</dd>
            </div>
            <div>
              <dt>{C.method}</dt>
              <dd>{w.pay.methods[trade.type] ?? trade.type}</dd>
            </div>
            <div>
              <dt>{C.orderNo}</dt>
              <dd>{trade.outTradeNo}</dd>
            </div>
          </dl>
        </section>
        {error && (
          <p className="cashier-error" role="alert">
            {error}
          </p>
        )}
        <div className="cashier-actions">
          <Button
            block
            color="primary"
            size="large"
            disabled={busy && pressed !== 'pay'}
            loading={pressed === 'pay'}
            loadingText={waitText}
            onClick={() => void finish(trade, 'pay')}
          >
            {C.pay}
          </Button>
          <div className="cashier-secondary">
            <Button
              disabled={busy && pressed !== 'fail'}
              loading={pressed === 'fail'}
              loadingText={waitText}
              onClick={() => void finish(trade, 'fail')}
            >
              {C.fail}
            </Button>
            <Button
              disabled={busy && pressed !== 'close'}
              loading={pressed === 'close'}
              loadingText={waitText}
              onClick={() => void finish(trade, 'close')}
            >
              {C.close}
            </Button>
          </div>
        </div>
        <details className="cashier-notify">
          <summary>{C.notifyTitle}</summary>
          <fieldset disabled={busy}>
            <legend className="cashier-notify-legend">{C.notifyLegend}</legend>
            {(['normal', 'delay', 'twice', 'lose'] as const).map((n) => (
              <label key={n} className="cashier-notify-option">
                <input type="radio" name="notify" checked={notify === n} onChange={() => setNotify(n)} />
                <span>{C.notify[n]}</span>
              </label>
            ))}
          </fieldset>
        </details>
      </>
    );
  }
}

/** Nothing to pay from this address: says why and leads back to the mall to order again. */
function CashierDeadEnd({ title, hint }: { title: string; hint: string }) {
  return (
    <ErrorBlock status="default" title={title} description={hint} className="cashier-dead-end">
      <Link className="cashier-link" to="/mall">
        {C.backToMall}
      </Link>
    </ErrorBlock>
  );
}
