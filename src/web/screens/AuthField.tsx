import type { FieldBinding, FieldRules } from './useAuthForm';

interface Props<T extends Record<string, string>> {
  register: (name: keyof T & string, rules: FieldRules<T>) => FieldBinding;
  name: keyof T & string;
  label: string;
  placeholder: string;
  type?: 'text' | 'password';
  autoComplete: string;
  rules: FieldRules<T>;
  error?: string | undefined;
}

/**
 * One labelled input of the login and register forms, with its error under it. Native inputs styled like the UI
 * kit's: /login is the first page most phones load, and this keeps it inside its download budget.
 */
export function AuthField<T extends Record<string, string>>({
  register,
  name,
  label,
  placeholder,
  type = 'text',
  autoComplete,
  rules,
  error,
}: Props<T>) {
  const id = `field-${name}`;
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
        {...register(name, rules)}
      />
      <div id={errorId} className="auth-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </div>
    </div>
  );
}
