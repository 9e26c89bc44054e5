import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README is where a new engineer starts: every file it names by path exists, and following its example of a new
// platform page does not collide with a kind the tests or the screen map already use.
const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('names only files that exist', () => {
    const named = [...README.matchAll(/`((?:src|tests|codegen|tools|vite)\/[\w./-]+\.(?:ts|tsx|mjs|sh))`/g)].map(
      (m) => m[1]!,
    );
    expect(named.length).toBeGreaterThan(40);
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('names, beside a file, only functions that file holds', () => {
    // "`src/…/repo.ts` `pauseIfActive`" or "`…/connector.ts` — `SandboxConnector.run`": the reader opens the file for that
    // name, so a renamed or removed function leaves the README pointing at nothing.
    const pairs = [
      ...README.matchAll(
        /`((?:src|tests|codegen|tools|vite)\/[\w./-]+\.(?:ts|tsx|mjs|sh))`(?: —|,)? `([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)`/g,
      ),
    ]
      .map((m) => ({ path: m[1]!, name: m[2]! }))
      .filter(({ name }) => !/\.(ts|tsx|mjs|sh)$/.test(name));
    expect(pairs.length).toBeGreaterThan(30);
    const missing = pairs.filter(({ path, name }) => {
      const source = readFileSync(join(ROOT, path), 'utf8');
      return name.split('.').some((part) => !new RegExp(`\\b${part.replaceAll('$', '\\$')}\\b`).test(source));
    });
    expect(missing).toEqual([]);
  });

  it('adds a platform page with a code nothing else uses', () => {
    const code = /`\{ code: '(\w+)', title: '[^']+', settings: '\w+' \}` gives/.exec(README)?.[1];
    expect(code).toBeDefined();
    const files = [
      'screens.config.ts',
      ...readdirSync(join(ROOT, 'tests'), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|tsx|mjs)$/.test(f))
        .map((f) => join('tests', f)),
    ];
    const users = files.filter((f) => new RegExp(`['"/]${code}['"/]`).test(readFileSync(join(ROOT, f), 'utf8')));
    expect(users).toEqual([]);
  });
});
