import type { AppConfig } from '../../config/config.js';

/**
 * Under ADMIN_2FA=required an admin without two-factor sign-in may do nothing but enrol (the guard refuses every other
 * operation with 40102), unless this session began with a passkey: possession of the device and the user verified on
 * it are two factors already. Asked on every request from the session lookup's row, so a reset takes effect at once.
 */
export const mustEnrolTwoFactor = (
  config: Pick<AppConfig, 'admin2fa'>,
  user: { userRole: string; twoFactor: boolean; signedInWithPasskey?: boolean },
): boolean =>
  config.admin2fa === 'required' && user.userRole === 'admin' && !user.twoFactor && !user.signedInWithPasskey;
