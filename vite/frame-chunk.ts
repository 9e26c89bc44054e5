import { fileURLToPath } from 'node:url';

/**
 * vite.config.ts's `frame` and `frame-shared` chunks: what the signed-in frame (shell/Frame.tsx) needs before its first
 * render that the entry and the sign-in pages do not (its UI kit parts, the screen map, the signed-in strings, live
 * updates), and the UI kit parts it shares with what a sign-in page may load later (the feedback kit, a passkey's
 * ceremony), so that /login never loads the frame.
 *
 * Measured (issue 36, tests/bench/page-weight.mjs, 5 runs paired with the build before): without them Rolldown's own
 * splitting leaves / signed in 49 requests instead of 23 and Lighthouse mobile on / 15 points lower (4 to 20 in every
 * pair, LCP 950 ms later); /login's entry grows too (more file names in its preload map). Nothing simpler fits: the
 * group options that choose by module graph (`includeDependenciesRecursively` from Frame.tsx, `minShareCount`) see
 * all of antd-mobile behind its index file (87 KB brotli and 99 KB of CSS on /), and `entriesAware` splits as finely
 * as the default or, merging (`entriesAwareMergeThreshold`), puts echarts on / or fails at run time (a sane merging
 * strategy is still an open request upstream, rolldown/rolldown#7473). Only the names a module imports from the kit's
 * index say which components it uses, so those are read from its code.
 */
const source = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const FRAME = source('src/web/shell/Frame.tsx');
/** What loads without the frame: the entry and the sign-in pages. */
const START = ['src/web/main.tsx', 'src/web/screens/Login.tsx', 'src/web/screens/Register.tsx'].map(source);
/** The modules whose lazy imports are the router's (screens, renderers, the map, the frame): not the sign-in pages'. */
const ROUTER = new Set(
  ['app/routes.tsx', 'app/custom-screens.ts', 'app/App.tsx', 'shell/Root.tsx'].map((f) => source(`src/web/${f}`)),
);
/** The UI kit's index files re-export everything (antd-mobile's also imports its global styles). */
const BARREL = /node_modules[\\/](antd-mobile|antd-mobile-icons|ahooks)[\\/]es[\\/]index\.js$/;
const NAMED = /import\s*\{([^}]*)\}\s*from\s*["'](?:antd-mobile|antd-mobile-icons|ahooks)["']/g;
const GLOBAL_STYLES = /antd-mobile[\\/]es[\\/]global[\\/]/;
const kebab = (name: string) => name.replace(/[A-Z]/g, (c, at: number) => (at ? '-' : '') + c.toLowerCase());

interface ModuleGraph {
  getModuleInfo(id: string): { code: string | null; importedIds: string[]; dynamicallyImportedIds: string[] } | null;
}

/**
 * Modules `roots` import, now and (with `lazy`, except through the router) later; through the kit's index files, only
 * the components some module on the way names.
 */
function reach(graph: ModuleGraph, roots: string[], lazy: boolean): Set<string> {
  const names = new Set<string>();
  const named = (id: string) =>
    GLOBAL_STYLES.test(id) ||
    [...names].some(
      (n) => id.includes(`/components/${kebab(n)}/`) || id.endsWith(`/${n}.js`) || id.includes(`/ahooks/es/${n}/`),
    );
  for (;;) {
    const known = names.size; // again while a pass meets a name it had not seen (its module imports more)
    const seen = new Set<string>();
    for (let todo = [...roots], id = todo.pop(); id !== undefined; id = todo.pop()) {
      const info = seen.has(id) ? null : graph.getModuleInfo(id);
      if (!info) continue;
      seen.add(id);
      if (BARREL.test(id)) {
        todo.push(...info.importedIds.filter((i) => named(i.replaceAll('\\', '/'))));
        continue;
      }
      for (const [, list] of (info.code ?? '').matchAll(NAMED))
        for (const name of list!.split(',')) names.add(name.trim().split(/\s+as\s+/)[0]!);
      todo.push(...info.importedIds, ...(lazy && !ROUTER.has(id) ? info.dynamicallyImportedIds : []));
    }
    if (names.size === known) return seen;
  }
}

/** Per chunking pass (keyed by Frame.tsx's module record, which a pass reuses). */
const passes = new WeakMap<object, Map<string, string>>();
export function frameChunk(id: string, graph: ModuleGraph): string | null {
  const root = graph.getModuleInfo(FRAME);
  if (!root) return null;
  let chunks = passes.get(root);
  if (!chunks) {
    const elsewhere = reach(graph, START, true);
    const atStart = reach(graph, START, false);
    chunks = new Map();
    for (const m of reach(graph, [FRAME], false))
      if (!elsewhere.has(m)) chunks.set(m, 'frame');
      else if (!atStart.has(m) && /[\\/]node_modules[\\/]/.test(m)) chunks.set(m, 'frame-shared');
    passes.set(root, chunks);
  }
  return chunks.get(id) ?? null;
}
