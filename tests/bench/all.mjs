// `npm run bench` after the build: every bench script in turn, each in a process of its own. A script that is not
// there (yet) is reported and skipped, one that fails does not stop the others; the exit code is non-zero when any
// failed. Arguments name scripts to run instead of the list below (`node tests/bench/all.mjs run.mjs`).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** In the order a reader of the report wants them: read path, ledger, scheduler, scale, dashboard, page weight. */
const SCRIPTS = ['run.mjs', 'transfers.mjs', 'scheduler.mjs', 'scale.mjs', 'dashboard.mjs', 'page-weight.mjs'];

const wanted = process.argv.length > 2 ? process.argv.slice(2) : SCRIPTS;
const outcomes = [];
for (const script of wanted) {
  const path = join(HERE, script);
  if (!existsSync(path)) {
    console.log(`\n=== ${script}: not present, skipped`);
    outcomes.push([script, 'missing']);
    continue;
  }
  console.log(`\n=== ${script}`);
  const started = Date.now();
  // The child inherits the environment (BENCH_* settings) and the terminal; Ctrl-C reaches it directly.
  const { status, signal } = spawnSync(process.execPath, [path], { stdio: 'inherit' });
  const seconds = Math.round((Date.now() - started) / 1000);
  outcomes.push([script, status === 0 ? `ok (${seconds} s)` : `FAILED (${signal ?? `exit ${status}`}, ${seconds} s)`]);
  if (signal === 'SIGINT' || signal === 'SIGTERM') break;
}

console.log('\n=== bench summary');
for (const [script, outcome] of outcomes) console.log(`  ${script.padEnd(18)} ${outcome}`);
process.exit(outcomes.some(([, outcome]) => outcome.startsWith('FAILED')) ? 1 : 0);
