import { useCallback, useEffect, useState } from 'react';
import { LoadFailed } from '../shell/LoadFailed';
import { ErrorBlock, Skeleton } from 'antd-mobile';
import { CollectMoneyOutline } from 'antd-mobile-icons';
import { Link } from 'react-router-dom';
import type { Schemas } from '../../api/operations';
import { api } from '../api';
import { alert, confirm } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { dialogFlags, markRead } from '../state/dialog-flags';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import './mall.css';

type Package = Schemas['MallPackage'];

const notice = (text: string) => (
  <div style={{ whiteSpace: 'pre-wrap', maxHeight: '50vh', overflowY: 'auto', textAlign: 'left' }}>{text}</div>
);

/**
 * The points mall: the packages on sale as a 2-column grid. Tapping one asks to confirm and places an order, which an
 * admin confirms once paid; how to pay is the site's pointsNotification, shown after the order and once per browser
 * session on the first visit (flag `mallRead`).
 */
export default function Mall() {
  const site = useStore(siteStore);
  const { user } = useStore(sessionStore);
  const { mallRead } = useStore(dialogFlags);
  const [packages, setPackages] = useState<Package[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [buying, setBuying] = useState<number | null>(null);
  // A retry of the same package after a failure (a lost answer) sends the same Idempotency-Key, so it never places
  // two orders; a success or another package starts a new one (see useOperation).
  const submit = useOperation('orderSubmit');
  const pointsNotification = site?.pointsNotification ?? '';

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

  useEffect(() => {
    if (!site || mallRead || !pointsNotification) return;
    markRead('mallRead');
    void alert(w.mall.notice, notice(pointsNotification));
  }, [site, mallRead, pointsNotification]);

  const buy = async (p: Package) => {
    if (buying !== null) return;
    const price = w.mall.yuan(p.amount);
    if (!(await confirm(w.mall.confirmBuy(p.coinName, price, p.addCoin)))) return;
    setBuying(p.id);
    const order = await submit.run({ body: { packageId: p.id } });
    setBuying(null);
    if (!order.ok) return;
    void alert(
      w.mall.submitted,
      <div style={{ textAlign: 'left' }}>
        <p style={{ margin: '0 0 8px' }}>{w.mall.orderNo(order.data.orderNo)}</p>
        {pointsNotification ? notice(pointsNotification) : <p style={{ margin: 0 }}>{w.mall.afterSubmit}</p>}
      </div>,
    );
  };

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
                onClick={() => void buy(p)}
                disabled={buying !== null}
                aria-busy={buying === p.id}
              >
                <span className="mall-visual" aria-hidden>
                  <CollectMoneyOutline />
                </span>
                <span className="mall-name">{p.coinName}</span>
                <span className="mall-coins">{w.mall.coins(p.addCoin)}</span>
                <span className="mall-price">{w.mall.yuan(p.amount)}</span>
                <span className="mall-buy">{buying === p.id ? t.shell.loading : w.mall.buy}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
