import { ESLint } from 'eslint';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { serverLayers, SQL_ONLY_IN_REPOSITORIES } from '../../eslint.config.js';

// The house rules of `npm run lint` (eslint.config.js), run on planted files: a wrong-way import is an error, type
// imports included, a downward one is not; a query outside a repository is an error.
const eslint = new ESLint({
  cwd: process.cwd(),
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { 'import-x': importX },
      settings: {
        'import-x/extensions': ['.ts', '.tsx'],
        'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${process.cwd()}/tsconfig.json` })],
      },
      rules: { 'import-x/no-restricted-paths': ['error', { zones: serverLayers() }] },
    },
    { ...SQL_ONLY_IN_REPOSITORIES, languageOptions: { parser: tseslint.parser } },
  ],
});

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.message);
}

describe('import layers', () => {
  it('refuses db/ importing a module', async () => {
    const found = await problems('src/server/db/planted.ts', "import { check } from '../modules/coins/service.js';\n");
    expect(found).toEqual([expect.stringContaining('db may not import a layer above it')]);
  });

  it('refuses a type-only import upward too (a module reaching into jobs/)', async () => {
    const found = await problems(
      'src/server/modules/runs/planted.ts',
      "import type { Scheduler } from '../../jobs/scheduler.js';\n",
    );
    expect(found).toEqual([expect.stringContaining('modules may not import a layer above it')]);
  });

  it('refuses the web app importing the server', async () => {
    const found = await problems(
      'src/web/planted.ts',
      "import type { DatabaseConfig } from '../server/config/config.js';\n",
    );
    expect(found).toEqual([expect.stringContaining('the web app may not import the server')]);
  });

  it('lets a layer import downward and within itself', async () => {
    const code = [
      "import { moveCoins } from '../modules/coins/ledger.js';",
      "import { lockName } from '../db/locks.js';",
      "import { giveWay } from '../lib/give-way.js';",
      "import { Worker } from './worker.js';",
    ].join('\n');
    expect(await problems('src/server/jobs/planted.ts', `${code}\n`)).toEqual([]);
  });

  it('refuses SQL in a service, and lets a repository hold it', async () => {
    const code = [
      "import { sql } from 'kysely';",
      "import type { Db } from '../../db/database.js';",
      "export const a = (db: Db) => db.selectFrom('users').selectAll().execute();",
      'export const b = (db: Db) => sql<number>`select 1`.execute(db);',
    ].join('\n');
    const inService = await problems('src/server/modules/users/planted-service.ts', `${code}\n`);
    expect(inService).toEqual([
      expect.stringContaining('SQL belongs in a repository (repo.ts): selectFrom here'),
      expect.stringContaining('SQL belongs in a repository'),
    ]);
    expect(await problems('src/server/modules/users/planted-repo.ts', `${code}\n`)).toEqual([]);
  });
});
