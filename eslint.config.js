// ESLint 9 flat config: typescript-eslint's strict type-checked rules over all TypeScript, the React hooks and
// accessibility rules over the web app, and no import circles in the product. Generated files and build output are not
// linted.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Each layer of src/server, bottom up; a file may import from its own layer and those below, never above. */
const SERVER_LAYERS = [
  ['lib'],
  ['config'],
  ['db'],
  ['live', 'metrics'],
  ['support'],
  ['modules'],
  ['jobs'],
  ['http'],
  ['app.ts', 'main.ts', 'cluster.ts', 'handlers.ts', 'cli'],
];

export function serverLayers() {
  const at = (part) => `./src/server/${part}`;
  const zones = SERVER_LAYERS.flatMap((layer, i) => {
    const above = SERVER_LAYERS.slice(i + 1)
      .flat()
      .map(at);
    return above.length === 0
      ? []
      : [{ target: layer.map(at), from: above, message: `${layer.join('/')} may not import a layer above it` }];
  });
  // The web app and the server share only src/api and src/shared.
  zones.push({ target: './src/web', from: './src/server', message: 'the web app may not import the server' });
  zones.push({ target: './src/server', from: './src/web', message: 'the server may not import the web app' });
  return zones;
}

/**
 * SQL lives in repositories (`repo.ts`, or a `*-repo.ts` of its area) and in db/: anywhere else, Kysely's query
 * builders and the `sql` tag are errors. The one other place is the ledger's PostgreSQL side: its calls of the
 * plpgsql functions, the ledger's repository on that database.
 */
export const SQL_ONLY_IN_REPOSITORIES = {
  files: ['src/server/**/*.ts'],
  ignores: ['src/server/**/*repo.ts', 'src/server/db/**', 'src/server/modules/coins/ledger-postgres.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom'].map(
        (name) => ({
          selector: `CallExpression[callee.property.name='${name}']`,
          message: `SQL belongs in a repository (repo.ts): ${name} here`,
        }),
      ),
      { selector: "TaggedTemplateExpression[tag.name='sql']", message: 'SQL belongs in a repository (repo.ts)' },
      { selector: "CallExpression[callee.name='compiledOnce']", message: 'SQL belongs in a repository (repo.ts)' },
    ],
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', 'src/api/generated/', 'src/web/generated/', 'node_modules/'] },
  js.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Counts and limits are written into the Chinese sentences (`至少 ${n} 个字符`); objects and unions stay refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => setX(v)` and `onClick={() => toast(…)}` are the house style for one-statement callbacks.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Number() around database values is deliberate: PostgreSQL answers bigint counts and sums as strings while
      // the Kysely types say number, so the "unnecessary" conversion is what makes both databases agree.
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      // React ignores what an event handler returns, so `onClick={async () => …}` is fine; other void slots still checked.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      // noUncheckedIndexedAccess is on: a `!` marks an index or match the line before has just made certain.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Handlers, providers and fakes are async to fit a Promise-returning signature, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      // `const { omitted, ...rest } = row` is how a field is left out.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A timer declared before the close hook that clears it, and set once the server is ready.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // react-router's loaders throw its redirect() Response on purpose.
      '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'lib', name: 'Response' }] }],
    },
  },
  {
    // The YAML reader: the document is untyped input; listOperations checks its shape at start and throws.
    files: ['src/server/http/openapi.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['tests/**/*.{ts,tsx}'],
    rules: {
      // Tests read JSON answers and mock calls, which are `any` by nature; the assertions on them are the check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // In a test a wrong `!` fails the test at that line, which is what the test is for.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Fixtures poke at raw answers and deliberately malformed input.
      '@typescript-eslint/no-explicit-any': 'off',
      // Fakes are async to look like what they replace, so they stand where a void callback is typed.
      '@typescript-eslint/no-misused-promises': 'off',
      // afterAll runs even when beforeAll failed, so a `browser?.close()` the types call needless is not.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Fixtures print arbitrary values into messages and query strings on purpose.
      '@typescript-eslint/no-base-to-string': 'off',
      // `.catch((e) => e)` hands the error to an assertion, which is where its shape is checked.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
    },
  },
  {
    files: ['src/server/db/migrations/**/*.ts'],
    // A migration runs against the database as it was then, not the current schema types: Kysely's docs use Kysely<any>.
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/web/**/*.{ts,tsx}', 'tests/web/**/*.tsx'],
    extends: [reactHooks.configs.flat.recommended, jsxA11y.flatConfigs.recommended],
    languageOptions: { globals: globals.browser },
    rules: {
      // The screens load with a fetch in an effect and show a loading state first (no data layer or Suspense yet).
      'react-hooks/set-state-in-effect': 'off',
    },
  },
  {
    // The house has no circles (ARCHITECTURE.md): a layer imports only those below it, and screens.config.ts names
    // custom screens by key instead of importing them. Type-only imports do not count (they vanish when compiled);
    // packages are not followed, only the product's own files.
    files: ['src/**/*.{ts,tsx}', 'screens.config.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // Which files the rule reads to follow imports (its default is .js only), and with which parser.
      'import-x/extensions': ['.ts', '.tsx'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${import.meta.dirname}/tsconfig.json` })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The server's folders are layers (ARCHITECTURE.md), bottom up: lib, config, db, live and metrics, support,
    // modules, jobs, http, and the process's own files on top. A file imports only from its own layer or those below,
    // type imports included (a reader follows them like any other). What two layers both need moves down.
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    rules: { 'import-x/no-restricted-paths': ['error', { zones: serverLayers() }] },
  },
  SQL_ONLY_IN_REPOSITORIES,
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
    // As for TypeScript above: a rest sibling is how a field is left out.
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
);
