// `npm run build`: the server bundled by esbuild into dist/server/main.js (dependencies stay in node_modules),
// and the web app built by Vite into dist/web when it exists.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

await build({
  entryPoints: ['src/server/main.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  outfile: 'dist/server/main.js',
  logLevel: 'warning',
});
console.log('built dist/server/main.js');

if (existsSync('index.html')) {
  const vite = spawnSync('npx', ['vite', 'build'], { stdio: 'inherit' });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
}
