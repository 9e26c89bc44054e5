import { Input } from 'antd-mobile';
import { Controller, type Control, type FieldValues, type Path, type RegisterOptions } from 'react-hook-form';

interface Props<T extends FieldValues> {
  control: Control<T>;
  name: Path<T>;
  label: string;
  placeholder: string;
  type?: 'text' | 'password';
  autoComplete: string;
  rules: RegisterOptions<T, Path<T>>;
  error?: string;
}

/** One labelled input of the login and register forms, with its error under it. */
export function AuthField<T extends FieldValues>({ control, name, label, placeholder, type = 'text', autoComplete, rules, error }: Props<T>) {
  const id = `field-${name}`;
  return (
    <div className="auth-field">
      <label htmlFor={id}>{label}</label>
      <Controller
        control={control}
        name={name}
        rules={rules}
        render={({ field }) => (
          <Input
            id={id}
            type={type}
            placeholder={placeholder}
            autoComplete={autoComplete}
            clearable
            value={field.value ?? ''}
            onChange={field.onChange}
            onBlur={field.onBlur}
            aria-invalid={error ? true : undefined}
          />
        )}
      />
      <div className="auth-error" role={error ? 'alert' : undefined}>
        {error ?? ''}
      </div>
    </div>
  );
}
