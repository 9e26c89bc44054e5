import type { RouteEntry } from '../config/types';

/**
 * The source modules a route's first render loads lazily (routes.tsx's `lazy`): the screen (a hand screen, or the
 * generic renderer with the full screen map), and the frame around it. The build turns them into the chunks the
 * server names in that page's HTML (`<link rel="modulepreload">`, vite/route-preloads.ts), so a phone downloads
 * them beside the boot chunk instead of after it has run. routes.tsx and custom-screens.ts load exactly these
 * (tests/web/first-screen-modules.test.ts checks it). Paths from the repository's root; imports nothing at run time.
 */
export function firstScreenModules(entry: RouteEntry): string[] {
  const framed = entry.chrome !== 'bare';
  const screen =
    entry.kind === 'custom'
      ? `src/web/screens/${entry.screen[0]!.toUpperCase()}${entry.screen.slice(1)}.tsx`
      : entry.kind === 'pending'
        ? 'src/web/shell/Pending.tsx'
        : `src/web/renderers/${entry.kind[0]!.toUpperCase()}${entry.kind.slice(1)}Renderer.tsx`;
  return [
    screen,
    // A framed or generic screen reads its full config from the map (routes.tsx `screen()`).
    ...(framed || entry.kind !== 'custom' ? ['src/web/app/screens.ts'] : []),
    ...(framed ? ['src/web/shell/Frame.tsx'] : []),
  ];
}
