import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The programs the test run needs beside Node and PostgreSQL, each with the Debian package that installs it (README,
// Quick start). vitest.config.ts checks them before anything runs: in CI (CI=true) a missing one fails the run at
// once, naming its package; elsewhere the tests that need it are skipped with a warning.

/** Where Debian's fonts-noto-cjk puts the font the e2e tests expect the app's Chinese text in. */
const NOTO_CJK = '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc';

/**
 * The first executable `name` on PATH, then in the system directories: nginx lives in /usr/sbin, which is often off a
 * user's PATH.
 */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The Chromium the e2e tests drive: Debian's, or another binary named by CHROMIUM_PATH. */
export const chromiumPath = (env: NodeJS.ProcessEnv = process.env): string => env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface NeededProgram {
  /** What it is and which tests use it. */
  what: string;
  debianPackage: string;
  found: boolean;
}

export function neededPrograms(
  env: NodeJS.ProcessEnv = process.env,
): Record<'chromium' | 'fonts' | 'nginx' | 'faketime', NeededProgram> {
  const chromium = chromiumPath(env);
  return {
    chromium: {
      what: `Chromium at ${chromium} (another binary with CHROMIUM_PATH), for the e2e tests`,
      debianPackage: 'chromium',
      found: existsSync(chromium),
    },
    fonts: {
      what: `the Noto CJK fonts (${NOTO_CJK}), for the e2e tests`,
      debianPackage: 'fonts-noto-cjk',
      found: existsSync(NOTO_CJK),
    },
    nginx: {
      what: 'nginx, for tests/api/behind-nginx.test.ts',
      debianPackage: 'nginx-light',
      found: findProgram('nginx', env) !== undefined,
    },
    faketime: {
      what: 'faketime, for npm run test:moved-clock (tools/test-moved-clock.sh)',
      debianPackage: 'faketime',
      found: findProgram('faketime', env) !== undefined,
    },
  };
}
