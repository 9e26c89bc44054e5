import { copyText } from '../feedback/copy';
import { useCallback, useEffect, useState } from 'react';
import { Button, Input } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import type { Schemas } from '../../api/operations';
import { contractRules } from '../../api/generated/rules.gen';
import { confirm, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';
import { fitsText } from './rules';
import './two-factor.css';

type Action = 'enable' | 'regenerate' | 'disable';

/**
 * 我的 → 两步验证: turning it on (a QR code and the key as text, confirmed by one code, then ten recovery codes shown
 * once), new recovery codes, turning it off. A hand screen: enrolment is a sequence of answers (a key, then codes to
 * keep) that the generic form renderer, which shows one request and its result, does not draw.
 */
export default function TwoFactor() {
  const { user } = useStore(sessionStore);
  const navigate = useNavigate();
  const [status, setStatus] = useState<Schemas['TwoFactorStatus'] | null>(null);
  const [setup, setSetup] = useState<Schemas['TwoFactorSetup'] | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [action, setAction] = useState<Action | null>(null);
  const [code, setCode] = useState('');
  const get = useOperation('twoFactorGet');
  const start = useOperation('twoFactorSetup');
  const enable = useOperation('twoFactorEnable');
  const regenerate = useOperation('twoFactorRecoveryCodes');
  const disable = useOperation('twoFactorDisable');
  const busy = start.busy || enable.busy || regenerate.busy || disable.busy;

  const load = useCallback(async () => {
    const answer = await get.run({});
    if (answer.ok) setStatus(answer.data);
  }, [get]);
  useEffect(() => {
    void load();
  }, [load]);

  const begin = async () => {
    const answer = await start.run({});
    if (!answer.ok) return;
    setSetup(answer.data);
    setAction('enable');
    setCode('');
  };

  const submit = async () => {
    const body = { code };
    if (action === 'enable') {
      const answer = await enable.run({ body });
      if (!answer.ok) return;
      setSetup(null);
      setCodes(answer.data.codes);
      toast(w.twoFactor.enabled, 'success');
    } else if (action === 'regenerate') {
      const answer = await regenerate.run({ body });
      if (!answer.ok) return;
      setCodes(answer.data.codes);
      toast(w.twoFactor.regenerated, 'success');
    } else if (action === 'disable') {
      if (!(await confirm(`${w.twoFactor.disable}？`))) return;
      const answer = await disable.run({ body });
      if (!answer.ok) return;
      toast(w.twoFactor.disabled, 'success');
      await refreshSession();
    }
    setAction(null);
    setCode('');
    await load();
  };

  const codesSaved = async () => {
    setCodes(null);
    // An admin that had to enrol may now use everything: the session's user says so once read again.
    if (user?.enrolTwoFactor) {
      await refreshSession();
      void navigate('/', { replace: true });
    }
  };

  if (!status) return <div className="two-factor-loading">{t.shell.loading}</div>;

  const codeInput = action && (
    <div className="two-factor-code">
      <label htmlFor="two-factor-code">
        {action === 'enable' ? w.twoFactor.code : w.twoFactor.codeFor(actionWords[action])}
      </label>
      <Input
        id="two-factor-code"
        value={code}
        onChange={(v) => setCode(v.replace(/\D/g, '').slice(0, 6))}
        placeholder={w.twoFactor.codePlaceholder}
        autoComplete="one-time-code"
        inputMode="numeric"
      />
      <Button
        block
        color={action === 'disable' ? 'danger' : 'primary'}
        loading={busy}
        disabled={busy || !fitsText(contractRules.TotpCode, code)}
        onClick={() => void submit()}
      >
        {action === 'enable' ? w.twoFactor.confirm : actionWords[action]}
      </Button>
    </div>
  );

  if (codes)
    return (
      <section className="two-factor">
        <h2>{w.twoFactor.codesTitle}</h2>
        <p className="two-factor-hint">{w.twoFactor.codesHint}</p>
        <ol className="two-factor-codes" data-testid="recovery-codes">
          {codes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ol>
        <div className="two-factor-code-actions">
          <Button fill="outline" color="primary" onClick={() => void copyText(codes.join('\n'))}>
            {w.twoFactor.copyCodes}
          </Button>
          <Button fill="outline" color="primary" onClick={() => downloadCodes(codes, user?.userAccount ?? '')}>
            {w.twoFactor.downloadCodes}
          </Button>
        </div>
        <Button block color="primary" onClick={() => void codesSaved()}>
          {w.twoFactor.codesSaved}
        </Button>
      </section>
    );

  if (status.enabled)
    return (
      <section className="two-factor">
        <h2>{w.twoFactor.on}</h2>
        {status.enabledAt !== null && (
          <p className="two-factor-hint">{w.twoFactor.onSince(w.format.dateTime(status.enabledAt))}</p>
        )}
        <p className="two-factor-hint">{w.twoFactor.codesLeft(status.recoveryCodesLeft)}</p>
        {codeInput ?? (
          <div className="two-factor-actions">
            <Button block onClick={() => setAction('regenerate')}>
              {w.twoFactor.regenerate}
            </Button>
            {!status.required && (
              <Button block color="danger" fill="outline" onClick={() => setAction('disable')}>
                {w.twoFactor.disable}
              </Button>
            )}
          </div>
        )}
      </section>
    );

  return (
    <section className="two-factor">
      <h2>{w.twoFactor.off}</h2>
      {status.required && <p className="two-factor-required">{w.twoFactor.required}</p>}
      <p className="two-factor-hint">{w.twoFactor.offHint}</p>
      {setup ? (
        <>
          <p className="two-factor-hint">{w.twoFactor.scan}</p>
          <img
            className="two-factor-qr"
            alt={w.twoFactor.qrAlt}
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
          />
          <p className="two-factor-key">
            {w.twoFactor.key}：<code data-testid="two-factor-key">{inFours(setup.key)}</code>
            <Button size="mini" fill="outline" color="primary" onClick={() => void copyText(setup.key)}>
              {w.twoFactor.copyKey}
            </Button>
          </p>
          {codeInput}
        </>
      ) : (
        <Button block color="primary" loading={start.busy} disabled={busy} onClick={() => void begin()}>
          {w.twoFactor.start}
        </Button>
      )}
      {status.required && (
        <>
          <p className="two-factor-hint">{w.twoFactor.orPasskey}</p>
          <Button block fill="outline" color="primary" disabled={busy} onClick={() => void navigate('/passkeys')}>
            {w.passkeys.add}
          </Button>
        </>
      )}
    </section>
  );
}

/** A key read and typed more easily in groups of four (authenticators ignore the spaces). */
const inFours = (key: string) => key.replace(/(.{4})(?=.)/g, '$1 ');

/** The recovery codes as a text file the browser saves, named after the account. */
function downloadCodes(codes: readonly string[], account: string) {
  const file = new Blob([w.twoFactor.codesFile(account, codes)], { type: 'text/plain;charset=utf-8' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(file);
  link.download = `recovery-codes-${account}.txt`;
  link.click();
  URL.revokeObjectURL(link.href);
}

const actionWords: Record<Action, string> = {
  enable: w.twoFactor.confirm,
  regenerate: w.twoFactor.regenerate,
  disable: w.twoFactor.disable,
};
