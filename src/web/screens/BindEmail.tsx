import { useEffect, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { notify, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';

/** Binds an e-mail address with a 6-digit code, or unbinds the bound one with a code sent to it. */
export default function BindEmail() {
  const { user } = useStore(sessionStore);
  const navigate = useNavigate();
  const bound = user?.email ?? null;
  const [email, setEmail] = useState(bound ?? '');
  const [captcha, setCaptcha] = useState('');
  const [wait, setWait] = useState(0);
  const captchaCall = useOperation('userGetCaptcha');
  const bind = useOperation('userBindEmail');
  const unbind = useOperation('userUnbindEmail');
  const submitting = bind.busy || unbind.busy;
  const busy = captchaCall.busy || submitting;

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const send = async () => {
    const sent = await captchaCall.run({ query: { emailAccount: email.trim() } });
    if (!sent.ok) return;
    setWait(sent.data.resendAfterSeconds);
    notify(t.user.codeSent);
  };

  const submit = async () => {
    const body = { emailAccount: email.trim(), captcha: captcha.trim() };
    const done = await (bound ? unbind : bind).run({ body });
    if (!done.ok) return;
    await refreshSession();
    toast(bound ? t.user.unbound : t.user.bound, 'success');
    void navigate('/about', { replace: true });
  };

  return (
    <Form
      layout="vertical"
      footer={
        <Button
          block
          color="primary"
          size="large"
          loading={submitting}
          disabled={busy || !email || captcha.length !== 6}
          onClick={submit}
        >
          {bound ? t.user.unbind : t.user.bind}
        </Button>
      }
    >
      <Form.Item label={t.user.email}>
        <Input
          value={email}
          onChange={setEmail}
          readOnly={Boolean(bound)}
          type="email"
          autoComplete="email"
          placeholder="name@example.com"
        />
      </Form.Item>
      <Form.Item
        label={t.user.captcha}
        extra={
          <Button
            size="small"
            color="primary"
            fill="outline"
            loading={captchaCall.busy}
            disabled={busy || wait > 0 || !email}
            onClick={send}
          >
            {wait > 0 ? t.user.resendIn(wait) : t.user.sendCode}
          </Button>
        }
      >
        <Input
          value={captcha}
          onChange={(v) => setCaptcha(v.replace(/\D/g, '').slice(0, 6))}
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder={t.user.captchaPlaceholder}
        />
      </Form.Item>
    </Form>
  );
}
