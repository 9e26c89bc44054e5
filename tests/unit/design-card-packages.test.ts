import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The design card names the packages the product is built with. Each must be declared in package.json and imported
// somewhere it does its job: the app's code in src; the build, test and codegen tools (vite, vitest,
// openapi-typescript) in their config or codegen files. A package swapped for a hand-written copy fails here.

const ROOT = join(import.meta.dirname, '../..');
const CARD = join(ROOT, '../shared/seed/design-card.md');
/** The card's list as of 2026-11-21, for checkouts without ../shared (CI). The card itself wins when it is there. */
const CARD_COPY =
  'react, react-dom, react-router-dom, vite, openapi-typescript, openapi-fetch, react-hook-form, @rjsf/core, ' +
  '@rjsf/validator-ajv8, vitest';
/** Tools that do their work at build, test or codegen time, so their imports live outside src. */
const TOOLS = new Set(['vite', 'vitest', 'openapi-typescript']);

function cardPackages(): string[] {
  const text = existsSync(CARD) ? readFileSync(CARD, 'utf8') : `- packages: ${CARD_COPY}`;
  const line = /^\s*-\s*packages:\s*(.+)$/m.exec(text);
  if (!line) throw new Error(`${CARD}: no "- packages:" line`);
  return line[1]!
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}
const toolFiles = [
  ...readdirSync(ROOT)
    .filter((name) => /\.config\.(ts|mts|js|mjs)$/.test(name))
    .map((name) => join(ROOT, name)),
  ...sourcesUnder('codegen'),
];
const appFiles = sourcesUnder('src');

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** `from 'pkg'`, `from 'pkg/sub'`, `import 'pkg'` and `import('pkg')`: code that runs, so type-only imports are left out. */
const importsOf = (name: string) => new RegExp(`(?:from\\s+|import\\s*\\(?\\s*)['"]${escape(name)}(?:/[^'"]*)?['"]`);
const TYPE_ONLY = /(?:import|export)\s+type\s[^;]*?from\s+['"][^'"]+['"]/g;
const importedIn = (files: string[], name: string) => {
  const pattern = importsOf(name);
  return files.filter((file) => pattern.test(readFileSync(file, 'utf8').replace(TYPE_ONLY, '')));
};

describe("the design card's packages", () => {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const declared = { ...packageJson.dependencies, ...packageJson.devDependencies };
  const packages = cardPackages();

  it('reads a list from the card', () => {
    expect(packages.length).toBeGreaterThan(0);
  });

  it.each(packages)('%s is declared in package.json', (name) => {
    expect(declared, `${name} is missing from package.json`).toHaveProperty([name]);
  });

  it.each(packages)('%s is imported where it does its job', (name) => {
    const where = TOOLS.has(name) ? [...appFiles, ...toolFiles] : appFiles;
    expect(
      importedIn(where, name),
      `${name} is imported nowhere in ${TOOLS.has(name) ? 'src, config or codegen' : 'src'}`,
    ).not.toHaveLength(0);
  });
});
