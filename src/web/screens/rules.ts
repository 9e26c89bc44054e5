// The visitors' part of the contract's rules (login, register): /login's first download carries no other form's limits.
import { visitorRules as contractRules, type ContractRule } from '../../api/generated/visitor-rules.gen';
import { messages as t } from '../i18n/zh-CN';

// Checks a hand screen makes before sending, read from the contract's own schemas (src/api/generated/rules.gen.ts and its visitors' part),
// so a changed limit in openapi.yaml changes them too.

/** Whether a text value meets a contract schema's pattern and lengths. */
export function fitsText(rule: ContractRule, value: string): boolean {
  // Lengths in code points, as JSON Schema counts them.
  const length = Array.from(value).length;
  if (rule.minLength !== undefined && length < rule.minLength) return false;
  if (rule.maxLength !== undefined && length > rule.maxLength) return false;
  return rule.pattern === undefined || new RegExp(rule.pattern, 'u').test(value);
}

/** The whole number typed in `text`, if it is one within the schema's bounds. */
export function wholeNumberWithin(rule: ContractRule, text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  if (rule.minimum !== undefined && n < rule.minimum) return undefined;
  if (rule.maximum !== undefined && n > rule.maximum) return undefined;
  return n;
}

export const accountRules = {
  required: t.auth.required(t.auth.account),
  validate: (v: string) => fitsText(contractRules.UserAccount, v) || t.auth.accountRule,
};

export const passwordRules = {
  required: t.auth.required(t.auth.password),
  validate: (v: string) => fitsText(contractRules.Password, v) || t.auth.passwordRule,
};

/** Optional: an empty invitation code is no code. */
export const invitationRules = {
  validate: (v: string) => v === '' || fitsText(contractRules.InvitationCode, v) || t.auth.invitationRule,
};
