import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { accountField, passwordField } from './auth-fields';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { invitationRules } from './rules';

interface RegisterForm {
  userAccount: string;
  userPassword: string;
  checkPassword: string;
  invitationCode: string;
}

export default function Register() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const { register, handleSubmit, formState, getValues } = useForm<RegisterForm>({
    // An invitation link is /register?code=XXXXXXXX.
    defaultValues: { userAccount: '', userPassword: '', checkPassword: '', invitationCode: search.get('code') ?? '' },
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
      submitting={formState.isSubmitting}
      switchTo={{ to: '/login', label: t.auth.toLogin }}
    >
      <AuthField register={register} {...accountField} error={formState.errors.userAccount?.message} />
      <AuthField
        register={register}
        {...passwordField('new-password')}
        error={formState.errors.userPassword?.message}
      />
      <AuthField
        register={register}
        name="checkPassword"
        type="password"
        label={t.auth.checkPassword}
        placeholder={t.auth.checkPasswordPlaceholder}
        autoComplete="new-password"
        rules={{
          required: t.auth.required(t.auth.checkPassword),
          validate: (v) => v === getValues('userPassword') || t.auth.passwordMismatch,
        }}
        error={formState.errors.checkPassword?.message}
      />
      <AuthField
        register={register}
        name="invitationCode"
        label={t.auth.invitationCode}
        placeholder={t.auth.invitationCodePlaceholder}
        autoComplete="off"
        rules={invitationRules}
        error={formState.errors.invitationCode?.message}
      />
    </AuthPage>
  );
}
