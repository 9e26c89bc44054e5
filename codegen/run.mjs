// `npm run codegen`: everything generated from openapi.yaml. `--check` regenerates in memory and fails when a
// committed file differs, so CI catches a contract change whose generated files were not refreshed.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFiles } from './generate.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');

const files = await generateFiles(root);
let stale = 0;
for (const [path, contents] of files) {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === contents) continue;
  if (check) {
    stale++;
    console.error(`stale generated file: ${relative(root, path)} (run npm run codegen)`);
  } else {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, contents);
    console.log(`wrote ${relative(root, path)}`);
  }
}
if (stale > 0) process.exit(1);
if (check) console.log(`codegen: ${files.size} generated files are current`);
