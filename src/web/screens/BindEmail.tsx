import { useEffect, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { api } from '../api';
import { notify, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { sessionStore, signIn } from '../state/session';
import { useStore } from '../state/store';

/** Binds an e-mail address with a 6-digit code, or unbinds the bound one with a code sent to it. */
export default function BindEmail() {
  const { user } = useStore(sessionStore);
  const navigate = useNavigate();
  const bound = user?.email ?? null;
  const [email, setEmail] = useState(bound ?? '');
  const [captcha, setCaptcha] = useState('');
  const [wait, setWait] = useState(0);
  const [busy, setBusy] = useState<'send' | 'submit' | null>(null);

  useEffect(() => {
    if (wait <= 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  const fail = (error: unknown) => toast(error instanceof ApiError ? error.message : t.networkError);

  const send = async () => {
    setBusy('send');
    try {
      const sent = await api.call('userGetCaptcha', { query: { emailAccount: email.trim() }, quiet: true });
      setWait(sent.resendAfterSeconds);
      notify(t.user.codeSent);
    } catch (error) {
      fail(error);
    } finally {
      setBusy(null);
    }
  };

  const submit = async () => {
    setBusy('submit');
    try {
      const body = { emailAccount: email.trim(), captcha: captcha.trim() };
      await api.call(bound ? 'userUnbindEmail' : 'userBindEmail', { body, quiet: true });
      signIn(await api.call('userGetLogin'));
      toast(bound ? t.user.unbound : t.user.bound, 'success');
      navigate('/about', { replace: true });
    } catch (error) {
      fail(error);
    } finally {
      setBusy(null);
    }
  };

  return (
    <Form
      layout="vertical"
      footer={
        <Button block color="primary" size="large" loading={busy === 'submit'} disabled={busy !== null || !email || captcha.length !== 6} onClick={submit}>
          {bound ? t.user.unbind : t.user.bind}
        </Button>
      }
    >
      <Form.Item label={t.user.email}>
        <Input value={email} onChange={setEmail} readOnly={Boolean(bound)} type="email" autoComplete="email" placeholder="name@example.com" />
      </Form.Item>
      <Form.Item
        label={t.user.captcha}
        extra={
          <Button size="small" color="primary" fill="outline" loading={busy === 'send'} disabled={busy !== null || wait > 0 || !email} onClick={send}>
            {wait > 0 ? t.user.resendIn(wait) : t.user.sendCode}
          </Button>
        }
      >
        <Input value={captcha} onChange={(v) => setCaptcha(v.replace(/\D/g, '').slice(0, 6))} inputMode="numeric" autoComplete="one-time-code" placeholder={t.user.captchaPlaceholder} />
      </Form.Item>
    </Form>
  );
}
