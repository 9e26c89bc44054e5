import { useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Link, useNavigate } from 'react-router-dom';
import 'antd-mobile/es/components/mask/mask.css';
import 'antd-mobile/es/components/center-popup/center-popup.css';
import 'antd-mobile/es/components/dialog/dialog.css';
import 'antd-mobile/es/components/button/button.css';
import { ApiError } from '../../api/client';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { sessionStore, signIn, signOut } from '../state/session';
import { reloadSite } from '../state/site';
import './policy-gate.css';

/**
 * 用户协议 and 隐私政策 changed since this user agreed (policyAccepted below the site's policyVersion): nothing else
 * until the user agrees or leaves. The links open both texts (pages without this gate) and come back here; a text
 * changed again while it was read is said inside the dialog, and the new version is asked for.
 */
export default function PolicyGate({ version }: { version: number }) {
  const navigate = useNavigate();
  const titleId = useId();
  const bodyId = useId();
  const agree = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    agree.current?.focus();
    document.body.classList.add('adm-overflow-hidden');
    return () => document.body.classList.remove('adm-overflow-hidden');
  }, []);

  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.call('policyAccept', { body: { version }, quiet: true });
      const user = sessionStore.get().user;
      if (user) signIn({ ...user, policyAccepted: version });
    } catch (e) {
      if (e instanceof ApiError && e.code === 40900) {
        setError(w.policies.changedAgain);
        await reloadSite();
      } else if (!(e instanceof ApiError && e.signInAgain)) {
        setError(e instanceof Error ? e.message : t.shell.loadFailed);
      }
    } finally {
      setBusy(false);
    }
  };

  const decline = async () => {
    setBusy(true);
    try {
      await api.call('userLogout', { quiet: true });
    } finally {
      signOut();
      void navigate('/login', { replace: true });
    }
  };

  return createPortal(
    <div className="adm-center-popup adm-dialog policy-gate">
      <div
        className="adm-mask adm-center-popup-mask"
        aria-hidden="true"
        style={{ background: 'rgba(0, 0, 0, 0.55)' }}
      />
      <div
        className="adm-center-popup-wrap"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={bodyId}
      >
        <div className="adm-center-popup-body adm-dialog-body">
          <div className="adm-dialog-title" id={titleId}>
            {w.policies.gateTitle}
          </div>
          <div className="adm-dialog-content">
            <p id={bodyId}>{w.policies.gateBody}</p>
            <p className="policy-gate-links">
              <Link to="/terms">{t.auth.terms}</Link>
              <Link to="/privacy">{t.auth.privacy}</Link>
            </p>
            {error && (
              <p className="policy-gate-error" role="alert">
                {error}
              </p>
            )}
          </div>
          <div className="adm-dialog-footer">
            <div className="adm-dialog-action-row">
              <button
                type="button"
                className="adm-button adm-button-default adm-button-block adm-button-fill-none adm-button-shape-rectangular adm-dialog-button"
                onClick={decline}
                disabled={busy}
              >
                <span>{w.policies.decline}</span>
              </button>
              <button
                ref={agree}
                type="button"
                className="adm-button adm-button-primary adm-button-block adm-button-fill-none adm-button-shape-rectangular adm-dialog-button adm-dialog-button-bold"
                onClick={accept}
                disabled={busy}
                aria-busy={busy}
              >
                <span>{w.policies.agree}</span>
              </button>
            </div>
          </div>
        </div>
      </div>
    </div>,
    document.body,
  );
}
