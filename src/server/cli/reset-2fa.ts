import { loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { resetTwoFactor } from '../modules/two-factor/service.js';
import { findLiveByAccount } from '../modules/users/repo.js';

// `npm run admin:reset-2fa -- <account>`: turns an account's two-factor sign-in off from the server's command line,
// for an admin locked out of it (a lost phone, no recovery code) when no other admin can reset it from the app. Uses
// the server's own settings (DATABASE_URL, …), so it reaches the same database. Audited with no actor, and the account
// is told in its inbox; under ADMIN_2FA=required the admin is asked to enrol again right after its password.
const account = process.argv[2];
if (!account) {
  console.error('usage: npm run admin:reset-2fa -- <account>');
  process.exit(2);
}
const { database } = loadConfig();
const handle = openDatabase(database);
try {
  const user = await findLiveByAccount(handle.db, account);
  if (!user) {
    console.error(`no account "${account}"`);
    process.exitCode = 1;
  } else if (user.twoFactorAt === null) {
    console.log(`${user.userAccount} has no two-factor sign-in: nothing to reset`);
  } else {
    await resetTwoFactor(handle.db, user, null, Date.now());
    console.log(`two-factor sign-in of ${user.userAccount} reset: it signs in with its password and enrols again`);
  }
} finally {
  await handle.close();
}
