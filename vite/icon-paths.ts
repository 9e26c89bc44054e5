import type { Plugin } from 'vite';
import { optimize } from 'svgo';

/**
 * antd-mobile-icons ships each glyph's outline with eight-digit coordinates (`M29.6635785,4.09347573 C…` on a 48-unit
 * box) in absolute commands: about two thirds of a glyph's bytes. The build passes each outline through SVGO's
 * convertPathData at two decimals, with relative and shorthand commands and arcs: / draws about thirty glyphs before
 * its first render, and its menu's chunk shrinks from 18 to 6 KB brotli. Every glyph's edge moves by 0.03 of a unit
 * at most, on average along it (tests/e2e/icon-paths.test.ts, which Chromium measures; one decimal would move it ten
 * times as far).
 */
const ICON_MODULE = /node_modules[\\/]antd-mobile-icons[\\/]es[\\/][A-Z]\w*\.js$/;
const PATH_DATA = /\bd: "([^"]*)"/g;
const PRECISION = 2;

/** One outline, as short as SVGO writes it at PRECISION decimals. */
export function compactPathData(d: string): string {
  const { data } = optimize(`<svg xmlns="http://www.w3.org/2000/svg"><path d="${d}"/></svg>`, {
    plugins: [{ name: 'convertPathData', params: { floatPrecision: PRECISION } }],
  });
  const compact = / d="([^"]*)"/.exec(data)?.[1];
  if (compact === undefined) throw new Error(`SVGO dropped the outline ${d.slice(0, 40)}…`);
  return compact;
}

/** An icon module's source with every outline compacted, the rest as it was. */
export const compactIconModule = (code: string): string =>
  code.replace(PATH_DATA, (_, d: string) => `d: "${compactPathData(d)}"`);

export function compactIconPaths(): Plugin {
  return {
    name: 'points-mall:compact-icon-paths',
    apply: 'build',
    transform: {
      filter: { id: ICON_MODULE },
      handler: (code) => ({ code: compactIconModule(code), map: null }),
    },
  };
}
