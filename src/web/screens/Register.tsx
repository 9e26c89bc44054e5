import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { accountField, passwordField } from './auth-fields';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { invitationRules } from './rules';
import { useAuthForm } from './useAuthForm';

interface RegisterForm extends Record<string, string> {
  userAccount: string;
  userPassword: string;
  checkPassword: string;
  invitationCode: string;
}

export default function Register() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const { register, handleSubmit, errors, submitting } = useAuthForm<RegisterForm>({
    userAccount: '',
    userPassword: '',
    checkPassword: '',
    // An invitation link is /register?code=XXXXXXXX.
    invitationCode: search.get('code') ?? '',
  });

  const registration = useOperation('userRegister');

  const onSubmit = async ({ invitationCode, ...rest }: RegisterForm) => {
    const answer = await registration.run({ body: { ...rest, ...(invitationCode ? { invitationCode } : {}) } });
    if (!answer.ok) return;
    toast(t.auth.registered, 'success');
    void navigate(`/login?account=${encodeURIComponent(rest.userAccount)}`, { replace: true });
  };

  return (
    <AuthPage
      title={t.auth.register}
      onSubmit={handleSubmit(onSubmit)}
      submitting={submitting}
      switchTo={{ to: '/login', label: t.auth.toLogin }}
    >
      <AuthField register={register} {...accountField} error={errors.userAccount} />
      <AuthField register={register} {...passwordField('new-password')} error={errors.userPassword} />
      <AuthField
        register={register}
        name="checkPassword"
        type="password"
        label={t.auth.checkPassword}
        placeholder={t.auth.checkPasswordPlaceholder}
        autoComplete="new-password"
        rules={{
          required: t.auth.required(t.auth.checkPassword),
          validate: (v, values) => v === values.userPassword || t.auth.passwordMismatch,
        }}
        error={errors.checkPassword}
      />
      <AuthField
        register={register}
        name="invitationCode"
        label={t.auth.invitationCode}
        placeholder={t.auth.invitationCodePlaceholder}
        autoComplete="off"
        rules={invitationRules}
        error={errors.invitationCode}
      />
    </AuthPage>
  );
}
