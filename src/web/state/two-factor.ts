/**
 * The 两步验证 screen's path (screens.config.ts): where an admin that must turn two-factor sign-in on
 * (`enrolTwoFactor`, ADMIN_2FA=required) is sent after its password, and the one screen it may open until then.
 */
export const TWO_FACTOR_PATH = '/two_factor';

/**
 * The screens such an admin may open besides: adding a passkey, whose sign-in counts as two factors (the server lets
 * their operations through: x-before-two-factor).
 */
export const ENROLMENT_PATHS: ReadonlySet<string> = new Set([TWO_FACTOR_PATH, '/passkeys', '/passkey_add']);
