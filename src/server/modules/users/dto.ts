import type { Schemas } from '../../../api/operations.js';
import type { AppConfig } from '../../config/config.js';
import type { UserRow } from '../../db/types.js';
import { mustEnrolTwoFactor } from '../two-factor/policy.js';
import type { UserWithInviter } from './repo.js';

// Responses are built field by field from rows: a new column (a hash, a token) can never leak by accident.

/** The account fields of the signed-in user, as a user row and the session lookup's user both carry them. */
type LoginFields = Pick<
  UserRow,
  'id' | 'userAccount' | 'userName' | 'userRole' | 'email' | 'invitationCode' | 'coin' | 'createdAt' | 'policyAccepted'
>;

/**
 * The signed-in user as the contract's LoginUser (get/login and every sign-in). Written out field by field, also for
 * speed: `{ ...user, enrolTwoFactor }`, a spread followed by one more property, leaves V8's fast object copy, and
 * building and serializing that object cost get/login, the most frequent request, about 3 µs of CPU.
 */
export const loginUser = (u: LoginFields, twoFactor: boolean, enrolTwoFactor: boolean): Schemas['LoginUser'] => ({
  id: u.id,
  userAccount: u.userAccount,
  userName: u.userName,
  userRole: u.userRole,
  email: u.email,
  invitationCode: u.invitationCode,
  coin: u.coin,
  createdAt: u.createdAt,
  twoFactor,
  enrolTwoFactor,
  policyAccepted: u.policyAccepted,
});

/** A user row just signed in (a passkey sign-in counts as two factors: two-factor/policy). */
export function toLoginUser(
  u: UserRow,
  config: Pick<AppConfig, 'admin2fa'>,
  signedInWithPasskey = false,
): Schemas['LoginUser'] {
  const twoFactor = u.twoFactorAt !== null;
  return loginUser(u, twoFactor, mustEnrolTwoFactor(config, { userRole: u.userRole, twoFactor, signedInWithPasskey }));
}

export const toAdminView = (u: UserWithInviter): Schemas['UserAdminView'] => ({
  id: u.id,
  userAccount: u.userAccount,
  userName: u.userName,
  userRole: u.userRole,
  status: u.status,
  email: u.email,
  invitationCode: u.invitationCode,
  inviterAccount: u.inviterAccount,
  coin: u.coin,
  createdAt: u.createdAt,
  lastLoginAt: u.lastLoginAt,
  banPausedServices: u.banPausedServices,
  twoFactor: u.twoFactorAt !== null,
  closingAt: u.closedAt === null ? u.closingAt : null,
  closedAt: u.closedAt,
});

export const toSubordinate = (u: UserRow): Schemas['Subordinate'] => ({
  id: u.id,
  userAccount: u.userAccount,
  userName: u.userName,
  status: u.status,
  coin: u.coin,
  createdAt: u.createdAt,
});

/** Keeps the first character so a payer can recognise the payee without learning the whole name. */
export function maskName(name: string): string {
  const chars = Array.from(name);
  return (chars[0] ?? '') + '*'.repeat(Math.min(Math.max(chars.length - 1, 1), 8));
}
