import { connect } from 'node:net';
import { defineConfig } from 'vitest/config';
import { chromiumPath, neededPrograms } from './tests/helpers/programs.js';

// API tests run twice, once per database: the same files, the DB_KIND environment telling the helper which.
const apiProject = (kind: 'sqlite' | 'postgres') => ({
  test: {
    name: `api-${kind}`,
    include: ['tests/api/**/*.test.ts'],
    environment: 'node' as const,
    env: { DB_KIND: kind },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

function postgresAnswers(host = '127.0.0.1', port = 5432): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export default defineConfig(async () => {
  const ci = process.env.CI === 'true';
  // CI must run every suite: a program missing there fails the run now, naming its package, not a suite minutes later.
  const programs = neededPrograms();
  const missing = Object.values(programs).filter((p) => !p.found);
  if (ci && missing.length > 0) {
    const lines = missing.map((p) => `  - ${p.what}: Debian package ${p.debianPackage}`);
    const install = `apt-get install ${missing.map((p) => p.debianPackage).join(' ')}`;
    throw new Error(`CI=true, and the test run needs what is not installed:\n${lines.join('\n')}\nInstall: ${install}`);
  }
  // A laptop without PostgreSQL still runs everything else.
  const withPostgres = ci || process.env.TEST_DATABASE_URL !== undefined || (await postgresAnswers());
  if (!withPostgres)
    console.warn('\n⚠ PostgreSQL does not answer on 127.0.0.1:5432: the api-postgres tests are skipped.\n');
  // Outside CI: no Chromium skips the e2e tests; no nginx skips tests/api/behind-nginx.test.ts (it says so itself).
  const withBrowser = programs.chromium.found;
  if (!withBrowser)
    console.warn(
      `\n⚠ No Chromium at ${chromiumPath()} (apt-get install chromium fonts-noto-cjk): the e2e tests are skipped.\n`,
    );
  else if (!programs.fonts.found)
    console.warn(
      '\n⚠ No Noto CJK fonts (apt-get install fonts-noto-cjk): the e2e tests see Chinese in another font.\n',
    );
  return {
    test: {
      projects: [
        apiProject('sqlite'),
        ...(withPostgres ? [apiProject('postgres')] : []),
        { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node' as const } },
        // The React renderers, and the snapshots of what they build from the contract, in a browser-like DOM.
        {
          test: {
            name: 'web',
            include: ['tests/web/**/*.test.tsx', 'tests/snapshots/**/*.test.ts'],
            environment: 'jsdom' as const,
            setupFiles: ['tests/web/setup.ts'],
          },
        },
        // The built app in Debian's Chromium as a phone, against the production server on a fresh SQLite database
        // (tests/e2e/global-setup.ts builds, starts and stops it). One file at a time: they share that server.
        ...(withBrowser
          ? [
              {
                test: {
                  name: 'e2e',
                  include: ['tests/e2e/**/*.test.ts'],
                  environment: 'node' as const,
                  testTimeout: 60_000,
                  hookTimeout: 180_000,
                  fileParallelism: false,
                  globalSetup: 'tests/e2e/global-setup.ts',
                },
              },
            ]
          : []),
      ],
    },
  };
});
