import { fileURLToPath } from 'node:url';

/**
 * vite.config.ts's `frame` chunk: the signed-in frame (shell/Frame.tsx) with what it imports that neither the entry
 * nor the sign-in pages do: its antd-mobile parts, the screen map, the signed-in strings, live updates. Every
 * signed-in screen needs all of it before its first render, so one chunk and one stylesheet instead of a dozen small
 * ones of each: on a phone's first visit to / that many fewer requests queued on HTTP/1.1's six connections. Chosen
 * from the module graph rather than from a list of names, so a new import of the frame's lands here, and a module
 * /login or /register uses (even lazily: a passkey's ceremony) never does.
 */
const source = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));
const FRAME_ROOT = source('src/web/shell/Frame.tsx');
const ENTRY = source('src/web/main.tsx');
const SIGN_IN = ['src/web/screens/Login.tsx', 'src/web/screens/Register.tsx'].map(source);
/** The modules whose lazy imports are the router's: the screens, the renderers, the map, the frame. */
const ROUTER = new Set(
  ['src/web/app/routes.tsx', 'src/web/app/custom-screens.ts', 'src/web/app/App.tsx', 'src/web/shell/Root.tsx'].map(
    source,
  ),
);
/**
 * The UI kit's index files (and its hooks library's, which antd-mobile imports through) re-export everything: through
 * them only what a module names counts.
 */
const BARREL = /node_modules\/(antd-mobile|antd-mobile-icons|ahooks)\/es\/index\.js$/;
const NAMED_FROM_BARREL = /import\s*\{([^}]*)\}\s*from\s*["'](?:antd-mobile|antd-mobile-icons|ahooks)["']/g;
const NODE_MODULES = /\/node_modules\//;
const GLOBAL_STYLES = /node_modules\/antd-mobile\/es\/global\//;
/** A module id with forward slashes (Rolldown's ids use the platform's separator), for the patterns above. */
const posix = (id: string) => id.replaceAll('\\', '/');
const kebab = (name: string) => name.replace(/[A-Z]/g, (c, at: number) => (at ? '-' : '') + c.toLowerCase());

interface ModuleGraph {
  getModuleInfo(id: string): { code: string | null; importedIds: string[]; dynamicallyImportedIds: string[] } | null;
}

/**
 * Modules `roots` import, and the ones those import, and so on (what is lazily imported too, unless by a module in
 * `dynamicUnless`); through the UI kit's index, only the components some module on the way names.
 */
function reach(graph: ModuleGraph, roots: string[], dynamicUnless?: Set<string>): Set<string> {
  const names = new Set<string>();
  const wanted = (id: string) =>
    [...names].some(
      (n) => id.includes(`/components/${kebab(n)}/`) || id.endsWith(`/${n}.js`) || id.includes(`/ahooks/es/${n}/`),
    );
  // Again while a pass finds a component name it had not seen (its module imports more).
  for (;;) {
    const known = names.size;
    const seen = new Set<string>();
    const todo = [...roots];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      const info = graph.getModuleInfo(next);
      if (!info) continue;
      if (BARREL.test(posix(next))) {
        // and antd-mobile's global styles, which its index imports for every component
        todo.push(...info.importedIds.filter((id) => wanted(id) || GLOBAL_STYLES.test(posix(id))));
        continue;
      }
      for (const [, list] of (info.code ?? '').matchAll(NAMED_FROM_BARREL))
        for (const name of list!.split(',')) names.add(name.trim().split(/\s+as\s+/)[0]!);
      todo.push(...info.importedIds);
      if (dynamicUnless && !dynamicUnless.has(next)) todo.push(...info.dynamicallyImportedIds);
    }
    if (names.size === known) return seen;
  }
}

/** The frame's two chunks: its own modules, and the ones it shares with what the sign-in pages may load later. */
interface FrameChunks {
  frame: Set<string>;
  shared: Set<string>;
}

/** Per chunking pass (keyed by the frame's module record, which a pass reuses). */
const frameChunks = new WeakMap<object, FrameChunks>();
function frameChunksOf(graph: ModuleGraph): FrameChunks | undefined {
  const root = graph.getModuleInfo(FRAME_ROOT);
  if (!root) return undefined;
  let chunks = frameChunks.get(root);
  if (!chunks) {
    // Everything the entry and the sign-in pages load, now or later (the feedback kit, the second step, a passkey's
    // ceremony), except the screens the router loads: a module any of them may load is never in the frame's chunk,
    // or loading it would pull in the frame.
    const elsewhere = reach(graph, [ENTRY, ...SIGN_IN], ROUTER);
    // What they load before their first render: the boot and entry chunks and /login's own, never moved.
    const atStart = reach(graph, [ENTRY, ...SIGN_IN]);
    const framed = [...reach(graph, [FRAME_ROOT])];
    chunks = {
      // Frame.tsx itself too: the chunk its dynamic import names (Rolldown 1.2 gives that import the right namespace;
      // 1.0 gave it a facade whose export it never defined, which kept Frame.tsx a 0.9 KB request of its own).
      frame: new Set(framed.filter((m) => !elsewhere.has(m))),
      shared: new Set(framed.filter((m) => elsewhere.has(m) && !atStart.has(m) && NODE_MODULES.test(posix(m)))),
    };
    frameChunks.set(root, chunks);
  }
  return chunks;
}

export const inFrameChunk = (id: string, graph: ModuleGraph): boolean => frameChunksOf(graph)?.frame.has(id) ?? false;

/**
 * vite.config.ts's `frame-shared` chunk: the UI kit's parts the frame needs before its first render that a sign-in
 * page may also load later (antd-mobile's global styles, its config, safe area, button and dialog parts, which the
 * feedback kit uses too). Left to Rolldown they were ten files of 0.1 to 1.7 KB on /'s first load, each a request of
 * its own on HTTP/1.1's six connections; together they are one script and one stylesheet, which the feedback kit
 * fetches too (it needed nearly all of them: 18 files instead of 25 after a failed sign-in). The app's own modules
 * stay out: a sign-in page's lazy step that needs one of them (a string, a helper) need not fetch the kit with it.
 */
export const inFrameSharedChunk = (id: string, graph: ModuleGraph): boolean =>
  frameChunksOf(graph)?.shared.has(id) ?? false;
