import type { UseFormRegisterReturn } from 'react-hook-form';

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
