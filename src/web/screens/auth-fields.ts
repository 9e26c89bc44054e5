import { messages as t } from '../i18n/zh-CN';
import { accountRules, passwordRules } from './rules';

// The account and password inputs /login and /register both show; each form adds its register and error.

export const accountField = {
  name: 'userAccount',
  label: t.auth.account,
  placeholder: t.auth.accountPlaceholder,
  autoComplete: 'username',
  rules: accountRules,
} as const;

/** `autoComplete` tells the phone's password manager whether to fill a saved password or offer a new one. */
export const passwordField = (autoComplete: 'current-password' | 'new-password') =>
  ({
    name: 'userPassword',
    type: 'password',
    label: t.auth.password,
    placeholder: t.auth.passwordPlaceholder,
    autoComplete,
    rules: passwordRules,
  }) as const;
