// Renders public/icons/logo.svg into the PNG icons the web app manifest and iOS ask for, with Debian's Chromium
// (playwright-core, as the e2e tests use). Run after changing the logo: `node tools/render-icons.mjs`; the PNGs are
// committed, so a build never needs a browser. Each PNG then goes through Debian's pngquant (`apt-get install
// pngquant`): 256 colours, dithered, look the same at icon sizes and weigh a quarter as much as Chromium's lossless
// screenshot (icon-192.png 21 → 5.5 KB; Chrome fetches it with the manifest while the first page is still loading).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

const dir = resolve(import.meta.dirname, '../public/icons');
const svg = readFileSync(resolve(dir, 'logo.svg'), 'utf8');
// name, size, corner radius as a share of the size: the plain icon is rounded like a phone's; the maskable and the
// apple-touch ones stay square (the launcher or iOS cuts their shape).
const outputs = [
  ['icon-192.png', 192, 0.22],
  ['icon-512.png', 512, 0.22],
  ['maskable-512.png', 512, 0],
  ['apple-touch-icon.png', 180, 0],
];

// Before any icon is rewritten: without pngquant the run would stop after the first one, leaving it unquantised.
try {
  execFileSync('pngquant', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('render-icons: pngquant is missing (apt-get install pngquant)');
  process.exit(1);
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
try {
  for (const [name, size, radius] of outputs) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const clip = radius ? `border-radius:${Math.round(size * radius)}px;overflow:hidden;` : '';
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><div style="width:${size}px;height:${size}px;${clip}">` +
        svg.replace('<svg ', `<svg width="${size}" height="${size}" `) +
        '</div></body></html>',
    );
    await page.screenshot({ path: resolve(dir, name), omitBackground: true });
    await page.close();
    execFileSync('pngquant', ['--quality=80-95', '--speed=1', '--strip', '--force', '--ext=.png', resolve(dir, name)]);
    console.log(`wrote public/icons/${name}`);
  }
} finally {
  await browser.close();
}
