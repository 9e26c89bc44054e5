import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { api } from '../api';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signIn } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { AuthField } from './AuthField';
import { accountRules, passwordRules } from './rules';
import { safeRedirect } from './safe-redirect';
import './auth.css';

interface LoginForm {
  userAccount: string;
  userPassword: string;
}

export default function Login() {
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const site = useStore(siteStore);
  const { register, handleSubmit, formState } = useForm<LoginForm>({
    defaultValues: { userAccount: search.get('account') ?? '', userPassword: '' },
  });

  const onSubmit = async (body: LoginForm) => {
    try {
      signIn(await api.call('userLogin', { body, quiet: true }));
      navigate(safeRedirect(search.get('redirect')), { replace: true });
    } catch (error) {
      toast(error instanceof ApiError ? error.message : t.networkError);
    }
  };

  return (
    <div className="auth-page">
      <h1 className="auth-title">{site?.websiteName || t.auth.login}</h1>
      <p className="auth-subtitle">{t.auth.login}</p>
      <form className="auth-card" onSubmit={handleSubmit(onSubmit)} noValidate>
        <AuthField register={register} name="userAccount" label={t.auth.account} placeholder={t.auth.accountPlaceholder} autoComplete="username" rules={accountRules} error={formState.errors.userAccount?.message} />
        <AuthField register={register} name="userPassword" type="password" label={t.auth.password} placeholder={t.auth.passwordPlaceholder} autoComplete="current-password" rules={passwordRules} error={formState.errors.userPassword?.message} />
        <div className="auth-actions">
          <button type="submit" className="auth-submit" disabled={formState.isSubmitting} aria-busy={formState.isSubmitting}>
            {formState.isSubmitting ? t.shell.loading : t.auth.login}
          </button>
        </div>
        <Link className="auth-switch" to="/register">
          {t.auth.toRegister}
        </Link>
      </form>
    </div>
  );
}
