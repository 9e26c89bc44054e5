/**
 * The 两步验证 screen's path (screens.config.ts): where an admin that must turn two-factor sign-in on
 * (`enrolTwoFactor`, ADMIN_2FA=required) is sent after its password, and the one screen it may open until then.
 */
export const TWO_FACTOR_PATH = '/two_factor';
