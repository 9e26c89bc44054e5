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
  // Always a production build, even when started from a test runner that sets NODE_ENV=test.
  const vite = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (vite.status !== 0) process.exit(vite.status ?? 1);
  await precompress('dist/web');
}

/** Writes .br and .gz beside every text asset, for @fastify/static's preCompressed serving. */
async function precompress(dir) {
  const { readdir, readFile, writeFile } = await import('node:fs/promises');
  const { brotliCompressSync, gzipSync, constants } = await import('node:zlib');
  const { join } = await import('node:path');
  let count = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(js|css|html|svg|json)$/.test(entry.name)) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    let body = await readFile(path);
    // The SVGs in public/ keep their comments and layout in the repository (they say how the drawing is made); a
    // phone gets neither (logo.svg is on /login: a fifth of its bytes were the comment).
    if (entry.name.endsWith('.svg')) {
      body = Buffer.from(minifySvg(body.toString('utf8')));
      await writeFile(path, body);
    }
    await writeFile(`${path}.gz`, gzipSync(body, { level: 9 }));
    await writeFile(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    count++;
  }
  console.log(`built dist/web (${count} assets precompressed)`);
}

/** An SVG without its comments and the whitespace between its tags (text inside elements is kept). */
function minifySvg(svg) {
  return svg
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/>\s+</g, '><')
    .replace(/\s+/g, ' ')
    .trim();
}
