import { useForm } from 'react-hook-form';
import type { Schemas } from '../../api/operations';
import { contractRules } from '../../api/generated/rules.gen';
import { messages as t } from '../i18n/zh-CN';
import { useOperation } from '../operations/useOperation';
import type { LoginUser } from '../state/session';
import { AuthField } from './AuthField';
import { AuthPage } from './AuthPage';
import { fitsText } from './rules';

interface CodeForm {
  code: string;
}

const codeRules = {
  required: t.auth.required(t.auth.code),
  validate: (v: string) => fitsText(contractRules.SecondStepCode, v.trim()) || t.auth.codeRule,
};

/**
 * The login's second step, after a right password on an account with two-factor sign-in: a code from the
 * authenticator or a recovery code, sent with the challenge the password step answered (not a session). A passkey
 * could later be another way through this step (`step.methods`).
 */
export function LoginSecondStep({
  step,
  onSignedIn,
  onBack,
}: {
  step: Schemas['LoginSecondStep'];
  onSignedIn: (user: LoginUser) => void;
  onBack: () => void;
}) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<CodeForm>({ defaultValues: { code: '' } });
  const verify = useOperation('userLoginSecondStep');

  const onSubmit = async ({ code }: CodeForm) => {
    const answer = await verify.run({ body: { challenge: step.challenge, code: code.trim() } });
    if (answer.ok) onSignedIn(answer.data);
  };

  return (
    <AuthPage
      title={t.auth.secondStep}
      submitLabel={t.auth.verify}
      onSubmit={handleSubmit(onSubmit)}
      submitting={isSubmitting}
      switchTo={{ onClick: onBack, label: t.auth.backToPassword }}
    >
      <p className="auth-hint">{t.auth.secondStepHint}</p>
      <AuthField
        registration={register('code', codeRules)}
        label={t.auth.code}
        placeholder={t.auth.codePlaceholder}
        autoComplete="one-time-code"
        error={errors.code?.message}
      />
    </AuthPage>
  );
}
