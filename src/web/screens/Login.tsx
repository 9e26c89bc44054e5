import { useForm } from 'react-hook-form';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useOperation } from '../operations/useOperation';
import { messages as t } from '../i18n/zh-CN';
import { signIn } from '../state/session';
import { accountField, passwordField } from './auth-fields';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { accountRules, passwordRules } from './rules';
import { safeRedirect } from './safe-redirect';

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
      submitting={isSubmitting}
      switchTo={{ to: '/register', label: t.auth.toRegister }}
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
