import { lazy, Suspense, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { Schemas } from '../../api/operations';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { messages as t } from '../i18n/zh-CN';
import { signIn, type LoginUser } from '../state/session';
import { TWO_FACTOR_PATH } from '../state/two-factor';
import { accountField, passwordField } from './auth-fields';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { accountRules, passwordRules } from './rules';
import { safeRedirect } from './safe-redirect';
import { Loading } from '../shell/Loading';

// Only accounts with two-factor sign-in see the second step, after their password: it is fetched then, so /login
// downloads only the password form.
const LoginSecondStep = lazy(async () => ({ default: (await import('./LoginSecondStep')).LoginSecondStep }));

interface LoginForm {
  userAccount: string;
  userPassword: string;
}

// react-hook-form's defaults are the house's form manners: checked on submit, the first invalid field focused, and
// each field checked again as it is typed in once a submit has failed.
export default function Login() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<LoginForm>({ defaultValues: { userAccount: search.get('account') ?? '', userPassword: '' } });

  const login = useOperation('userLogin');
  // Set when the password was right and the account asks for a second step (two-factor sign-in).
  const [secondStep, setSecondStep] = useState<Schemas['LoginSecondStep'] | null>(null);

  const signedIn = (user: LoginUser) => {
    signIn(user);
    // An admin who must turn two-factor sign-in on first goes to it; the guard would send it there anyway.
    void navigate(user.enrolTwoFactor ? TWO_FACTOR_PATH : safeRedirect(search.get('redirect')), { replace: true });
  };

  const onSubmit = async (body: LoginForm) => {
    const answer = await login.run({ body });
    if (!answer.ok) return;
    if ('challenge' in answer.data) setSecondStep(answer.data);
    else signedIn(answer.data);
  };

  // 使用通行密钥登录, offered where the browser has WebAuthn; its code is fetched when tapped (passkeys/sign-in.ts).
  const [passkeyBusy, setPasskeyBusy] = useState(false);
  const withPasskey = async () => {
    setPasskeyBusy(true);
    try {
      const user = await (await import('../passkeys/sign-in')).signInWithPasskey();
      if (user) signedIn(user);
    } finally {
      setPasskeyBusy(false);
    }
  };

  if (secondStep)
    return (
      <Suspense fallback={<Loading />}>
        <LoginSecondStep step={secondStep} onSignedIn={signedIn} onBack={() => setSecondStep(null)} />
      </Suspense>
    );

  return (
    <AuthPage
      title={t.auth.login}
      onSubmit={handleSubmit(onSubmit)}
      submitting={isSubmitting}
      switchTo={{ to: '/register', label: t.auth.toRegister }}
      alternative={
        typeof window.PublicKeyCredential === 'function' && (
          <button
            type="button"
            className="auth-submit auth-alternative"
            onClick={() => void withPasskey()}
            disabled={passkeyBusy || isSubmitting}
            aria-busy={passkeyBusy}
          >
            {passkeyBusy ? t.shell.loading : t.auth.withPasskey}
          </button>
        )
      }
    >
      <AuthField
        registration={register('userAccount', accountRules)}
        {...accountField}
        error={errors.userAccount?.message}
      />
      <AuthField
        registration={register('userPassword', passwordRules)}
        {...passwordField('current-password')}
        error={errors.userPassword?.message}
      />
    </AuthPage>
  );
}
