import { useEffect, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { notify, toast } from '../feedback';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperation } from '../operations/useOperation';
import { refreshSession } from '../state/refresh-session';
import { sessionStore } from '../state/session';
import { useStore } from '../state/store';

interface EmailForm {
  email: string;
  captcha: string;
}

/** Binds an e-mail address with a 6-digit code, or unbinds the bound one with a code sent to it. */
export default function BindEmail() {
  const { user } = useStore(sessionStore);
  const navigate = useNavigate();
  const bound = user?.email ?? null;
  const { register, handleSubmit, setValue, watch } = useForm<EmailForm>({
    defaultValues: { email: bound ?? '', captcha: '' },
  });
  // The UI kit's inputs answer values, not DOM events: registered by name and set on change (see TransferCoin).
  useEffect(() => {
    register('email');
    register('captcha');
  }, [register]);
  // eslint-disable-next-line react-hooks/incompatible-library -- no React Compiler here; watch re-renders this form
  const [email, captcha] = watch(['email', 'captcha']);
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
    notify(w.user.codeSent);
  };

  const submit = async (values: EmailForm) => {
    const body = { emailAccount: values.email.trim(), captcha: values.captcha.trim() };
    const done = await (bound ? unbind : bind).run({ body });
    if (!done.ok) return;
    await refreshSession();
    toast(bound ? w.user.unbound : w.user.bound, 'success');
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
          onClick={handleSubmit(submit)}
        >
          {bound ? w.user.unbind : w.user.bind}
        </Button>
      }
    >
      <Form.Item label={w.user.email}>
        <Input
          value={email}
          onChange={(v) => setValue('email', v)}
          readOnly={Boolean(bound)}
          type="email"
          autoComplete="email"
          placeholder="name@example.com"
        />
      </Form.Item>
      <Form.Item
        label={w.user.captcha}
        extra={
          <Button
            size="small"
            color="primary"
            fill="outline"
            loading={captchaCall.busy}
            disabled={busy || wait > 0 || !email}
            onClick={send}
          >
            {wait > 0 ? w.user.resendIn(wait) : w.user.sendCode}
          </Button>
        }
      >
        <Input
          value={captcha}
          onChange={(v) => setValue('captcha', v.replace(/\D/g, '').slice(0, 6))}
          inputMode="numeric"
          autoComplete="one-time-code"
          placeholder={w.user.captchaPlaceholder}
        />
      </Form.Item>
    </Form>
  );
}
