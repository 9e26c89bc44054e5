import { useEffect, useState } from 'react';
import { Button, Form, Input } from 'antd-mobile';
import { Controller, useForm, useWatch } from 'react-hook-form';
import { useNavigate } from 'react-router-dom';
import { notify, toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
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
  const { control, handleSubmit } = useForm<EmailForm>({ defaultValues: { email: bound ?? '', captcha: '' } });
  const [email, captcha] = useWatch({ control, name: ['email', 'captcha'] });
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

  const submit = async (values: EmailForm) => {
    const body = { emailAccount: values.email.trim(), captcha: values.captcha.trim() };
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
          onClick={handleSubmit(submit)}
        >
          {bound ? t.user.unbind : t.user.bind}
        </Button>
      }
    >
      <Form.Item label={t.user.email}>
        <Controller
          control={control}
          name="email"
          render={({ field }) => (
            <Input
              value={field.value}
              onChange={field.onChange}
              onBlur={field.onBlur}
              readOnly={Boolean(bound)}
              type="email"
              autoComplete="email"
              placeholder="name@example.com"
            />
          )}
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
        <Controller
          control={control}
          name="captcha"
          render={({ field }) => (
            <Input
              value={field.value}
              onChange={(v) => field.onChange(v.replace(/\D/g, '').slice(0, 6))}
              onBlur={field.onBlur}
              inputMode="numeric"
              autoComplete="one-time-code"
              placeholder={t.user.captchaPlaceholder}
            />
          )}
        />
      </Form.Item>
    </Form>
  );
}
