import type { Schemas } from '../../../api/operations.js';
import type { AppConfig } from '../../config.js';
import type { UserRow } from '../../db/types.js';
import { mustEnrolTwoFactor } from '../two-factor/policy.js';
import type { UserWithInviter } from './repo.js';

// Responses are built field by field from rows: a new column (a hash, a token) can never leak by accident.

export const toLoginUser = (
  u: UserRow,
  config: Pick<AppConfig, 'admin2fa'>,
  signedInWithPasskey = false,
): Schemas['LoginUser'] => ({
  id: u.id,
  userAccount: u.userAccount,
  userName: u.userName,
  userRole: u.userRole,
  email: u.email,
  invitationCode: u.invitationCode,
  coin: u.coin,
  createdAt: u.createdAt,
  twoFactor: u.twoFactorAt !== null,
  enrolTwoFactor: mustEnrolTwoFactor(config, {
    userRole: u.userRole,
    twoFactor: u.twoFactorAt !== null,
    signedInWithPasskey,
  }),
});

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
