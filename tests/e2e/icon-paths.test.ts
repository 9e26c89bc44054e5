import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactIconModule, compactPathData } from '../../vite/icon-paths';
import { launchBrowser } from './helpers';

// The build rewrites antd-mobile-icons' outlines shorter (vite/icon-paths.ts): every glyph must keep its shape, as
// Chromium, which draws them, measures it.

const ICONS = join(import.meta.dirname, '../../node_modules/antd-mobile-icons/es');
const glyphs = readdirSync(ICONS).filter((file) => /^[A-Z]\w*\.js$/.test(file));
const outlines = (code: string) => [...code.matchAll(/\bd: "([^"]*)"/g)].map((m) => m[1]!);
const SIZE = 192;
/** A thousandth of the box: a fortieth of a pixel where the app draws its largest glyphs (the menu's, 24 px). */
const TOLERANCE = 0.048;

let browser: Browser;
let page: Page;
beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * For each pair, how far the compact outline's edge lies from the original's, on average along it, in the glyphs'
 * 48-unit box: the area their fills differ by (both drawn SIZE px wide, coverage from the pixels' alpha) over the
 * outline's length. A pixel-by-pixel maximum would measure Skia's flattening of curves (a quarter pixel either way),
 * which differs between a Bézier and the arc SVGO writes for it, rather than the outline.
 */
function meanEdgeShift(pairs: [string, string][], size: number): Promise<number[]> {
  return page.evaluate(
    ({ pairs, size }) => {
      const unit = size / 48;
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const context = canvas.getContext('2d', { willReadFrequently: true })!;
      const coverage = (d: string) => {
        context.setTransform(unit, 0, 0, unit, 0, 0);
        context.clearRect(0, 0, 48, 48);
        context.fill(new Path2D(d), 'evenodd');
        return context.getImageData(0, 0, size, size).data;
      };
      const outline = document.createElementNS('http://www.w3.org/2000/svg', 'path');
      return pairs.map(([original, compact]) => {
        const [a, b] = [coverage(original), coverage(compact)];
        let differing = 0;
        for (let i = 3; i < a.length; i += 4) differing += Math.abs(a[i]! - b[i]!) / 255;
        outline.setAttribute('d', original);
        return differing / unit ** 2 / outline.getTotalLength();
      });
    },
    { pairs, size },
  );
}

describe("the build's compact icon outlines", () => {
  it('draw every glyph of antd-mobile-icons where it was drawn, in under half the characters', async () => {
    expect(glyphs.length).toBeGreaterThan(100);
    const pairs: [string, string][] = [];
    const names: string[] = [];
    for (const file of glyphs)
      for (const d of outlines(readFileSync(join(ICONS, file), 'utf8'))) {
        pairs.push([d, compactPathData(d)]);
        names.push(`${file}: ${d.slice(0, 30)}…`);
      }
    const shifts = await meanEdgeShift(pairs, SIZE);
    shifts.forEach((shift, i) => expect(shift, names[i]).toBeLessThan(TOLERANCE));
    const length = (which: 0 | 1) => pairs.reduce((sum, pair) => sum + pair[which].length, 0);
    expect(length(1)).toBeLessThan(length(0) / 2);
  });

  it('change nothing in a glyph module but its outlines', () => {
    const code = readFileSync(join(ICONS, 'SetOutline.js'), 'utf8');
    const compact = compactIconModule(code);
    expect(compact).not.toBe(code);
    const withoutOutlines = (source: string) => source.replace(/\bd: "[^"]*"/g, 'd: ""');
    expect(withoutOutlines(compact)).toBe(withoutOutlines(code));
    expect(outlines(compact)).toHaveLength(outlines(code).length);
  });
});
