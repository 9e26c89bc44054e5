// ESLint 9 flat config: typescript-eslint's strict type-checked rules over all TypeScript, the React hooks and
// accessibility rules over the web app. Generated files and build output are not linted.
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    // The screen map and the web app have no import circle: the map names hand screens and behaviours by key and the
    // web app registers them (src/web/app/custom-screens.ts, behaviours.ts), so no module the map imports leads back.
    files: ['screens.config.ts', 'src/web/**/*.{ts,tsx}', 'src/api/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: globals.node },
    // As for TypeScript above: a rest sibling is how a field is left out.
    rules: { 'no-unused-vars': ['error', { ignoreRestSiblings: true }] },
  },
);
