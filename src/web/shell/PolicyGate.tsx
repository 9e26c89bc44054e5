import { useEffect, useId, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { Link, useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { sessionStore, signIn, signOut } from '../state/session';
import { reloadSite } from '../state/site';
import { DialogButton, DialogFrame } from './DialogFrame';
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
    <DialogFrame
      className="policy-gate"
      title={w.policies.gateTitle}
      titleId={titleId}
      contentId={bodyId}
      actions={
        <>
          <DialogButton primary={false} onClick={decline} disabled={busy}>
            {w.policies.decline}
          </DialogButton>
          <DialogButton ref={agree} bold onClick={accept} disabled={busy} aria-busy={busy}>
            {w.policies.agree}
          </DialogButton>
        </>
      }
    >
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
    </DialogFrame>,
    document.body,
  );
}
