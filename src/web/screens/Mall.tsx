import { useCallback, useEffect, useRef, useState } from 'react';
import { LoadFailed } from '../shell/LoadFailed';
import { ErrorBlock, Skeleton } from 'antd-mobile';
import { CollectMoneyOutline } from 'antd-mobile-icons';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { alert } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { ChoiceDialog, type ChoiceOutcome } from '../renderers/ChoiceDialog';
import { leavePage } from '../renderers/leave';
import { openAnnouncement } from '../state/announcement-open';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import './mall.css';

type Package = Schemas['MallPackage'];
type Method = Schemas['PayMethodOption'];

/** How long a reused order's line stays in the dialog before the phone goes on to its cashier. */
export const REUSED_PAUSE_MS = 1500;

const notice = (text: string) => (
  <div style={{ whiteSpace: 'pre-wrap', maxHeight: '50vh', overflowY: 'auto', textAlign: 'left' }}>{text}</div>
);

/**
 * The points mall: the packages on sale as a 2-column grid. Tapping one opens a dialog with its price and coins. With
 * online payment on (`payMethods` answers methods), the user picks a method there and the order goes to the channel's
 * cashier; without it, the order waits until an admin confirms it was paid, and how to pay is the site's
 * pointsNotification, shown after the order and once per browser session on the first visit (flag `mallRead`). An
 * unpaid order already there for the same package is answered instead of a new one, and the dialog says so.
 */
export default function Mall() {
  const site = useStore(siteStore);
  const { user } = useStore(sessionStore);
  const { mallRead, isRead } = useStore(dialogFlags);
  const [packages, setPackages] = useState<Package[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [pay, setPay] = useState<Schemas['PayMethods'] | null>(null);
  const [payFailed, setPayFailed] = useState(false);
  const [buying, setBuying] = useState<Package | null>(null);
  // A retry of the same package and method after a failure (a lost answer) sends the same Idempotency-Key, so it never
  // places two orders; a success or another choice starts a new one (see useOperation).
  const submit = useOperation('orderSubmit');
  const pointsNotification = site?.pointsNotification ?? '';
  // The way to a reused order's cashier, waiting while its line is read: dropped when the dialog is cancelled or the
  // screen left meanwhile.
  const leaving = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const stayHere = () => clearTimeout(leaving.current);
  useEffect(() => stayHere, []);

  const load = useCallback(async () => {
    setFailed(false);
    setPackages(null);
    try {
      setPackages(await api.call('mallList', { quiet: true }));
    } catch {
      setFailed(true);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const loadMethods = useCallback(async () => {
    setPayFailed(false);
    setPay(null);
    try {
      setPay(await api.call('payMethods', { quiet: true }));
    } catch {
      setPayFailed(true);
    }
  }, []);
  useEffect(() => void loadMethods(), [loadMethods]);

  // 购买须知 waits for the site announcement: while it is open, or due to open on this first page of the session, the
  // notice is not shown over or under it; it comes once the announcement is closed.
  const announcing = useStore(openAnnouncement) !== null;
  const announcementDue = !isRead && Boolean(site && (site.noticeAnnouncementTitle || site.noticeAnnouncement));
  useEffect(() => {
    if (!site || mallRead || !pointsNotification || announcing || announcementDue) return;
    markRead('mallRead');
    void alert(w.mall.notice, notice(pointsNotification));
  }, [site, mallRead, pointsNotification, announcing, announcementDue]);

  /** Places the order; a refusal (or no answer) is answered as the words to show in the dialog. */
  const order = async (p: Package, method: Method | undefined) => {
    let refused: string | null = null;
    const body = method ? { packageId: p.id, channelId: method.channelId, method: method.method } : { packageId: p.id };
    const answer = await submit.run(
      { body },
      {
        report: (error) => {
          refused = error.message;
          return true;
        },
      },
    );
    return answer.ok ? answer.data : { error: (refused as string | null) ?? t.networkError };
  };

  /** Offline: the order's number and how to pay, once the dialog has closed. */
  const submitted = (o: Schemas['OrderSubmitted']) =>
    void alert(
      o.reused ? w.pay.reusedTitle : w.mall.submitted,
      <div style={{ textAlign: 'left' }}>
        {o.reused && <p style={{ margin: '0 0 8px' }}>{w.pay.reusedOffline}</p>}
        <p style={{ margin: '0 0 8px' }}>{w.mall.orderNo(o.orderNo)}</p>
        {pointsNotification ? notice(pointsNotification) : <p style={{ margin: 0 }}>{w.mall.afterSubmit}</p>}
      </div>,
    );

  const buy = async (p: Package, method: Method | undefined): Promise<ChoiceOutcome> => {
    const o = await order(p, method);
    if ('error' in o) return o;
    if (!o.payUrl) {
      submitted(o);
      return { done: true };
    }
    const payUrl = o.payUrl;
    if (!o.reused) {
      leavePage.to(payUrl);
      return { leaving: null };
    }
    // Said first, long enough to read: the order paid now is the one already there, not a new one.
    leaving.current = setTimeout(() => leavePage.to(payUrl), REUSED_PAUSE_MS);
    return { leaving: w.pay.reused(o.orderNo) };
  };

  const online = pay !== null && pay.methods.length > 0;
  const dialog = buying && (
    <ChoiceDialog<Method>
      key={buying.id}
      {...(online || pay === null
        ? {
            title: w.pay.buyTitle(buying.coinName),
            legend: w.pay.legend,
            choices: pay?.methods.map((m) => ({ label: m.label, value: m })) ?? null,
            loadFailed: payFailed ? { message: w.pay.methodsFailed, retry: () => void loadMethods() } : null,
            note: pay ? w.pay.closesIn(pay.orderTimeoutMinutes) : null,
            ok: w.pay.payNow(w.mall.yuan(buying.amount)),
            busy: w.pay.toCashier,
          }
        : {
            title: w.mall.confirmBuy(buying.coinName),
            note: w.mall.afterSubmit,
            ok: t.shell.ok,
            busy: w.pay.submitting,
          })}
      lines={[w.pay.summary(w.mall.yuan(buying.amount), buying.addCoin)]}
      onOk={(method) => buy(buying, method)}
      onCancel={stayHere}
      onClose={() => setBuying(null)}
    />
  );

  return (
    <div className="app-page">
      <div className="mall-bar">
        <span>
          {w.coins.balance} <strong>{user?.coin ?? 0}</strong>
        </span>
        <span className="mall-links">
          {pointsNotification && (
            <button
              type="button"
              className="mall-link"
              onClick={() => void alert(w.mall.notice, notice(pointsNotification))}
            >
              {w.mall.notice}
            </button>
          )}
          <Link to="/my_orders" className="mall-link">
            {w.mall.myOrders}
          </Link>
        </span>
      </div>
      {failed ? (
        <LoadFailed retry={load} />
      ) : packages === null ? (
        <div className="app-card" aria-busy="true" aria-label={t.shell.loading}>
          <Skeleton.Paragraph lineCount={4} animated />
        </div>
      ) : packages.length === 0 ? (
        // An admin reads how to fill the mall (and is given the way there); a user, that it is coming.
        user?.userRole === 'admin' ? (
          <ErrorBlock status="empty" title={w.mall.empty} description={w.mall.emptyHintAdmin}>
            <Link to="/add_mall" className="mall-empty-add">
              {w.mall.add}
            </Link>
          </ErrorBlock>
        ) : (
          <ErrorBlock status="empty" title={w.mall.empty} description={w.mall.emptyHint} />
        )
      ) : (
        <ul className="mall-grid">
          {packages.map((p) => (
            <li key={p.id}>
              <button
                type="button"
                className="mall-item"
                onClick={() => {
                  if (buying) return;
                  // Methods that could not be read are tried again as the dialog opens (it says so meanwhile).
                  if (payFailed) void loadMethods();
                  setBuying(p);
                }}
                aria-haspopup="dialog"
              >
                <span className="mall-visual" aria-hidden>
                  <CollectMoneyOutline />
                </span>
                <span className="mall-name">{p.coinName}</span>
                <span className="mall-coins">{w.mall.coins(p.addCoin)}</span>
                <span className="mall-price">{w.mall.yuan(p.amount)}</span>
                <span className="mall-buy">{w.mall.buy}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {dialog}
    </div>
  );
}
