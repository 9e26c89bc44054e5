import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { messages as t } from '../i18n/zh-CN';
import { signIn } from '../state/session';
import { accountField, passwordField } from './auth-fields';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { safeRedirect } from './safe-redirect';
import { useAuthForm } from './useAuthForm';

interface LoginForm extends Record<string, string> {
  userAccount: string;
  userPassword: string;
}

export default function Login() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const { register, handleSubmit, errors, submitting } = useAuthForm<LoginForm>({
    userAccount: search.get('account') ?? '',
    userPassword: '',
  });

  const login = useOperation('userLogin');

  const onSubmit = async (body: LoginForm) => {
    const answer = await login.run({ body });
    if (!answer.ok) return;
    signIn(answer.data);
    void navigate(safeRedirect(search.get('redirect')), { replace: true });
  };

  return (
    <AuthPage
      title={t.auth.login}
      onSubmit={handleSubmit(onSubmit)}
      submitting={submitting}
      switchTo={{ to: '/register', label: t.auth.toRegister }}
    >
      <AuthField register={register} {...accountField} error={errors.userAccount} />
      <AuthField register={register} {...passwordField('current-password')} error={errors.userPassword} />
    </AuthPage>
  );
}
