import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The dark theme's colours, read from the stylesheets themselves (src/web/app/theme-dark.css, and the frame's
// src/web/shell/frame.css for the icon tints only signed-in screens draw): every text colour against every surface it
// is drawn on reaches WCAG AA (4.5:1), and the icon tints, which always sit beside their label, reach 3:1 (non-text).

const sheets = ['../../src/web/app/theme-dark.css', '../../src/web/shell/frame.css'].map((file) =>
  readFileSync(resolve(import.meta.dirname, file), 'utf8'),
);

/** The custom properties of the rules whose selector ends with `selectorEnd`, in every sheet that has one. */
function rule(selectorEnd: string): Record<string, string> {
  const bodies = sheets.flatMap((css) => {
    const at = css.indexOf(`${selectorEnd} {`);
    return at < 0 ? [] : [css.slice(at, css.indexOf('}', at))];
  });
  if (bodies.length === 0) throw new Error(`no rule for ${selectorEnd}`);
  return Object.fromEntries(
    bodies.flatMap((body) => [...body.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\b/gi)].map(([, k, v]) => [k!, v!])),
  );
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
};

const dark = rule("html[data-prefers-color-scheme='dark']:root");
const v = (name: string) => {
  const value = dark[name];
  if (!value) throw new Error(`theme-dark.css sets no ${name}`);
  return value;
};

describe('the dark theme', () => {
  const surfaces = ['--adm-color-background', '--adm-color-box', '--adm-color-fill-content'];

  it.each([
    '--adm-color-text',
    '--adm-color-text-secondary',
    '--adm-color-weak',
    '--app-color-placeholder',
    '--adm-color-primary',
    '--adm-color-danger',
    '--adm-color-success',
    '--adm-color-warning',
  ])('%s reads at 4.5:1 on the page, cards and fills', (text) => {
    for (const surface of surfaces) expect(contrast(v(text), v(surface)), surface).toBeGreaterThanOrEqual(4.5);
  });

  it('text on solid fills (buttons, badges, swipe actions) reads at 4.5:1 on every fill colour', () => {
    for (const fill of ['--adm-color-primary', '--adm-color-danger', '--adm-color-success', '--adm-color-warning'])
      expect(contrast(v('--adm-color-text-light-solid'), v(fill)), fill).toBeGreaterThanOrEqual(4.5);
  });

  it('links on the selected (wathet) background, the banner text and the notice bar read at 4.5:1', () => {
    expect(contrast(v('--adm-color-primary'), v('--adm-color-wathet'))).toBeGreaterThanOrEqual(4.5);
    for (const end of ['--app-hero-from', '--app-hero-to'])
      expect(contrast(v('--app-hero-text'), v(end)), end).toBeGreaterThanOrEqual(4.5);
    const notice = rule('.adm-notice-bar.adm-notice-bar-alert');
    expect(contrast(notice['--text-color']!, notice['--background-color']!)).toBeGreaterThanOrEqual(4.5);
  });

  it('icon tints stand out at 3:1 from the cards they sit on', () => {
    const tints = Object.keys(dark).filter((k) => k.startsWith('--app-tint-'));
    expect(tints).toHaveLength(6);
    for (const tint of tints) expect(contrast(v(tint), v('--adm-color-background')), tint).toBeGreaterThanOrEqual(3);
  });
});
