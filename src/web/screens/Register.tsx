import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signIn } from '../state/session';
import { accountField, passwordField } from './auth-fields';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { AgreeField, AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { accountRules, invitationRules, passwordRules } from './rules';

interface RegisterForm {
  userAccount: string;
  userPassword: string;
  checkPassword: string;
  invitationCode: string;
  agreed: boolean;
}

export default function Register() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<RegisterForm>({
    defaultValues: {
      userAccount: '',
      userPassword: '',
      checkPassword: '',
      // An invitation link is /register?code=XXXXXXXX.
      invitationCode: search.get('code') ?? '',
      // Consent is the user's own act: never ticked for them.
      agreed: false,
    },
  });

  const registration = useOperation('userRegister');
  const login = useOperation('userLogin');

  // A new account is signed in at once with the password just chosen: registering is the way in, not a detour back
  // to /login. Should that sign-in not go through, /login opens with the account filled in, as before.
  const site = useStore(siteStore);
  const onSubmit = async ({ invitationCode, agreed: _agreed, ...rest }: RegisterForm) => {
    // The version the user just agreed to: the server refuses it if the texts changed since the page read them.
    const policyVersion = site?.policyVersion;
    const answer = await registration.run({
      body: {
        ...rest,
        ...(invitationCode ? { invitationCode } : {}),
        ...(policyVersion ? { policyVersion } : {}),
      },
    });
    if (!answer.ok) return;
    const signedIn = await login.run(
      { body: { userAccount: rest.userAccount, userPassword: rest.userPassword } },
      { report: () => true },
    );
    // A new account has no two-factor sign-in yet, so the answer is the user; a second step would be /login's to ask.
    if (signedIn.ok && !('challenge' in signedIn.data)) {
      signIn(signedIn.data);
      toast(t.auth.registeredIn, 'success');
      void navigate('/', { replace: true });
      return;
    }
    toast(t.auth.registered, 'success');
    void navigate(`/login?account=${encodeURIComponent(rest.userAccount)}`, { replace: true });
  };

  return (
    <AuthPage
      title={t.auth.register}
      onSubmit={handleSubmit(onSubmit)}
      submitting={isSubmitting}
      switchTo={{ to: '/login', label: t.auth.toLogin }}
      policies={false}
    >
      <AuthField
        registration={register('userAccount', accountRules)}
        {...accountField}
        error={errors.userAccount?.message}
      />
      <AuthField
        registration={register('userPassword', passwordRules)}
        {...passwordField('new-password')}
        error={errors.userPassword?.message}
      />
      <AuthField
        registration={register('checkPassword', {
          required: t.auth.required(t.auth.checkPassword),
          validate: (v, values) => v === values.userPassword || t.auth.passwordMismatch,
        })}
        type="password"
        label={t.auth.checkPassword}
        placeholder={t.auth.checkPasswordPlaceholder}
        autoComplete="new-password"
        error={errors.checkPassword?.message}
      />
      <AuthField
        registration={register('invitationCode', invitationRules)}
        label={t.auth.invitationCode}
        placeholder={t.auth.invitationCodePlaceholder}
        autoComplete="off"
        error={errors.invitationCode?.message}
      />
      <AgreeField
        registration={register('agreed', { validate: (v) => v || t.auth.mustAgree })}
        error={errors.agreed?.message}
      />
    </AuthPage>
  );
}
