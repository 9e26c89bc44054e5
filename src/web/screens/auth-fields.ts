import { messages as t } from '../i18n/zh-CN';

// The account and password inputs /login and /register both show (their rules are in ./rules); each form adds its
// registration and error.

export const accountField = {
  label: t.auth.account,
  placeholder: t.auth.accountPlaceholder,
  autoComplete: 'username',
} as const;

/** `autoComplete` tells the phone's password manager whether to fill a saved password or offer a new one. */
export const passwordField = (autoComplete: 'current-password' | 'new-password') =>
  ({
    type: 'password',
    label: t.auth.password,
    placeholder: t.auth.passwordPlaceholder,
    autoComplete,
  }) as const;
