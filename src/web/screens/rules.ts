import { messages as t } from '../i18n/zh-CN';

// The same limits as the contract's UserAccount and Password schemas, checked before the request is sent.
export const accountRules = {
  required: t.auth.required(t.auth.account),
  pattern: { value: /^[A-Za-z0-9_]{4,16}$/, message: t.auth.accountRule },
};

export const passwordRules = {
  required: t.auth.required(t.auth.password),
  pattern: { value: /^[\x21-\x7E]{8,32}$/, message: t.auth.passwordRule },
};
