import { useRef, useState, type SyntheticEvent } from 'react';

// The state of the login and register forms: uncontrolled inputs read on submit, one rule list per field, the
// first invalid field focused, and each field checked again as it is typed in once a submit has failed.
// Not react-hook-form: /login is the first page most phones download, its budget is 100 KB, and that library is
// 11 KB of it (brotli) for two fields. The other forms use the config's renderers, not this.

export interface FieldRules<T> {
  /** The message when the field is left empty. */
  required?: string;
  /** true when the value is good, else the message; gets every value (the check-password field reads the password). */
  validate?: (value: string, values: T) => true | string;
}

/** What an input spreads onto itself to take part in the form. */
export interface FieldBinding {
  name: string;
  defaultValue: string;
  ref: (element: HTMLInputElement | null) => void;
  onChange: () => void;
}

type Errors<T> = Partial<Record<keyof T, string>>;

export function useAuthForm<T extends Record<string, string>>(defaults: T) {
  const fields = useRef(new Map<keyof T, { element: HTMLInputElement | null; rules: FieldRules<T> }>());
  const failedOnce = useRef(false);
  const [errors, setErrors] = useState<Errors<T>>({});
  const [submitting, setSubmitting] = useState(false);

  const values = (): T => {
    const out: Record<string, string> = { ...defaults };
    for (const [name, field] of fields.current) if (field.element) out[name as string] = field.element.value;
    return out as T;
  };

  const problem = (name: keyof T, all: T): string | undefined => {
    const rules = fields.current.get(name)?.rules;
    const value = all[name] ?? '';
    if (!rules) return undefined;
    if (rules.required !== undefined && value === '') return rules.required;
    const verdict = rules.validate?.(value, all) ?? true;
    return verdict === true ? undefined : verdict;
  };

  const register = (name: keyof T & string, rules: FieldRules<T>): FieldBinding => ({
    name,
    defaultValue: defaults[name] ?? '',
    ref: (element) => {
      fields.current.set(name, { element, rules });
    },
    onChange: () => {
      if (failedOnce.current) setErrors((before) => ({ ...before, [name]: problem(name, values()) }));
    },
  });

  const handleSubmit = (onValid: (values: T) => Promise<void>) => (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (submitting) return;
    const all = values();
    const found: Errors<T> = {};
    for (const name of fields.current.keys()) found[name] = problem(name, all);
    setErrors(found);
    const firstInvalid = [...fields.current.keys()].find((name) => found[name] !== undefined);
    if (firstInvalid !== undefined) {
      failedOnce.current = true;
      fields.current.get(firstInvalid)?.element?.focus();
      return;
    }
    setSubmitting(true);
    void onValid(all).finally(() => setSubmitting(false));
  };

  return { register, handleSubmit, errors, submitting, values };
}
