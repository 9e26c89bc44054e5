import { Link } from 'react-router-dom';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { messages as t } from '../i18n/zh-CN';

interface Props {
  /** What react-hook-form's `register(name, rules)` answered for this input. */
  registration: UseFormRegisterReturn;
  label: string;
  placeholder: string;
  type?: 'text' | 'password';
  autoComplete: string;
  error?: string | undefined;
}

/**
 * One labelled input of the login and register forms, with its error under it. Native inputs styled like the UI
 * kit's: /login is the first page most phones load, and this keeps it inside its download budget.
 */
export function AuthField({ registration, label, placeholder, type = 'text', autoComplete, error }: Props) {
  const id = `field-${registration.name}`;
  const errorId = `${id}-error`;
  return (
    <div className="auth-field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="auth-input"
        type={type}
        placeholder={placeholder}
        autoComplete={autoComplete}
        autoCapitalize="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={errorId}
        {...registration}
      />
      <div id={errorId} className="auth-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </div>
    </div>
  );
}

/**
 * Registration's consent: a box the user ticks (never ticked for them) beside links to both texts, which open over
 * the form and come back to it. Submitting without it says why under it, like any other field.
 */
export function AgreeField({
  registration,
  error,
}: {
  registration: UseFormRegisterReturn;
  error?: string | undefined;
}) {
  const id = `field-${registration.name}`;
  const errorId = `${id}-error`;
  return (
    <div className="auth-agree">
      <div className="auth-agree-row">
        {/* The box inside its label: the whole 44 px tall line of words is the place to tap. */}
        <label className="auth-agree-label">
          <input
            id={id}
            type="checkbox"
            className="auth-checkbox"
            aria-invalid={error ? true : undefined}
            aria-describedby={errorId}
            {...registration}
          />
          {t.auth.agree}
        </label>
        <PolicyLinks />
      </div>
      <div id={errorId} className="auth-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </div>
    </div>
  );
}

/** 《用户协议》和《隐私政策》 as links, wherever an account is made or used (login, register, 我的). */
export function PolicyLinks() {
  return (
    <span className="auth-policy-links">
      <Link to="/terms">{t.auth.terms}</Link>
      {t.auth.and}
      <Link to="/privacy">{t.auth.privacy}</Link>
    </span>
  );
}
