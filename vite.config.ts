import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import type { OutputBundle, PluginContext } from 'rolldown';
import react from '@vitejs/plugin-react';
import { messages as t } from './src/web/i18n/zh-CN.js';
import { routeTable } from './src/web/generated/route-table.gen.js';
import { firstScreenModules } from './src/web/app/first-screen-modules.js';
import { pwa } from './vite.pwa.js';

/**
 * Modules every page runs before its first screen (the entry's static imports). One chunk instead of seven: fewer
 * requests on a phone's first visit, and brotli packs one stream tighter than several. Screens, renderers and the UI
 * kit stay out: each page fetches only its own.
 */
const BOOT = [
  /node_modules\/(react|react-dom|scheduler|react-router|react-router-dom|openapi-fetch)\//,
  /src\/api\/(client|catalogue|api-error|message-filter|generated\/operations\.gen)\.ts$/,
  /src\/web\/(api|i18n\/zh-CN|config\/constants|state\/(store|session|site)|feedback\/index|operations\/useOperation)\.tsx?$/,
  /vite\/preload-helper|rolldown\/runtime/,
];

/**
 * The sign-in pages' shared pieces (the page, its fields, the visitors' contract rules and their checks): one chunk, not four
 * of half a kilobyte each, on /login and /register.
 */
const AUTH = /src\/(web\/screens\/(AuthPage|AuthField|auth-fields|rules)|api\/generated\/visitor-rules\.gen)\.tsx?$/;

/**
 * The signed-in frame (shell/Frame.tsx) with what it imports that neither the entry nor the sign-in pages do: its
 * antd-mobile parts, the screen map, the signed-in strings, live updates. Every signed-in screen needs all of it before
 * its first render, so one chunk and one stylesheet instead of a dozen small ones of each: on a phone's first visit
 * to / that many fewer requests queued on HTTP/1.1's six connections. Chosen from the module graph rather than from a list of names, so a new import of the
 * frame's lands here, and a module /login or /register uses (even lazily: a passkey's ceremony) never does.
 */
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const FRAME_ROOT = source('src/web/shell/Frame.tsx');
const ENTRY = source('src/web/main.tsx');
const SIGN_IN = ['src/web/screens/Login.tsx', 'src/web/screens/Register.tsx'].map(source);
/** The modules whose lazy imports are the router's: the screens, the renderers, the map, the frame. */
const ROUTER = new Set(
  ['src/web/app/routes.tsx', 'src/web/app/custom-screens.ts', 'src/web/app/App.tsx', 'src/web/shell/Root.tsx'].map(
    source,
  ),
);
/** The UI kit's index files re-export every component: through them only the components a module names count. */
const BARREL = /node_modules\/(antd-mobile|antd-mobile-icons)\/es\/index\.js$/;
const NAMED_FROM_BARREL = /import\s*\{([^}]*)\}\s*from\s*["'](?:antd-mobile|antd-mobile-icons)["']/g;
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
    [...names].some((n) => id.includes(`/components/${kebab(n)}/`) || id.endsWith(`/${n}.js`));
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
      if (BARREL.test(next.replaceAll('\\', '/'))) {
        todo.push(...info.importedIds.filter(wanted));
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

/** Per chunking pass (keyed by the frame's module record, which a pass reuses): the frame chunk's modules. */
const frameChunks = new WeakMap<object, Set<string>>();
function inFrameChunk(id: string, graph: ModuleGraph): boolean {
  const root = graph.getModuleInfo(FRAME_ROOT);
  if (!root) return false;
  let modules = frameChunks.get(root);
  if (!modules) {
    // Everything the entry and the sign-in pages load, now or later (the feedback kit, the second step, a passkey's
    // ceremony), except the screens the router loads: a module any of them may load is never in the frame's chunk,
    // or loading it would pull in the frame.
    const elsewhere = reach(graph, [ENTRY, ...SIGN_IN], ROUTER);
    // Frame.tsx itself stays the chunk its dynamic import names (inside the group, Rolldown 1.0 gave that import a
    // facade whose namespace export it never defined).
    modules = new Set([...reach(graph, [FRAME_ROOT])].filter((m) => m !== FRAME_ROOT && !elsewhere.has(m)));
    frameChunks.set(root, modules);
  }
  return modules.has(id);
}

/**
 * The loading state in index.html itself (the markup of shell/Loading.tsx, styled by the render-blocking global CSS):
 * the phone paints it as soon as the HTML and CSS arrive instead of a blank page while the scripts download; React
 * replaces it on its first render.
 */
function loadingInHtml(): Plugin {
  return {
    name: 'points-mall:loading-in-html',
    transformIndexHtml: (html) =>
      html.replace(
        '<div id="root"></div>',
        `<div id="root"><div class="app-loading" role="status" aria-live="polite"><span class="app-spinner" aria-hidden="true"></span><span>${t.shell.loading}</span></div></div>`,
      ),
  };
}

/** Where routePreloads writes its list, and the server reads it (src/server/http/app-html.ts). */
const ROUTE_PRELOADS = '.vite/route-preloads.json';

/**
 * For each route of the screen map, the files its first screen loads lazily (firstScreenModules: the screen's chunk,
 * the frame's, the map's) with the chunks and stylesheets they import, less what index.html already names. The server
 * names them in that page's HTML, so a phone fetches them beside the boot chunk rather than after the boot chunk has
 * downloaded and run, and the preload helper finds them there instead of adding a <link> each.
 */
function routePreloads(): Plugin {
  return {
    name: 'points-mall:route-preloads',
    apply: 'build',
    // After Vite's own passes (which drop chunks that only carried CSS, and the imports of them).
    generateBundle: { order: 'post', handler: listPreloads },
    // Each file named is one the build wrote.
    writeBundle(_options, bundle) {
      const list = bundle[ROUTE_PRELOADS];
      if (list?.type !== 'asset') throw new Error(`route preloads: ${ROUTE_PRELOADS} missing`);
      for (const [path, files] of Object.entries(JSON.parse(String(list.source)) as Record<string, string[]>))
        for (const file of files)
          if (!bundle[file]) throw new Error(`route preloads: ${path} names ${file}, which the build did not write`);
    },
  };
}

/** routePreloads' list: see there. */
function listPreloads(this: PluginContext, _options: unknown, bundle: OutputBundle): void {
  const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  /** A chunk's file, its stylesheets, and those of every chunk it imports (what loading it fetches). */
  const closure = (fileName: string, into = new Set<string>()) => {
    if (into.has(fileName)) return into;
    into.add(fileName);
    const chunk = byFile.get(fileName);
    for (const css of chunk?.viteMetadata?.importedCss ?? []) into.add(css);
    for (const imported of chunk?.imports ?? []) closure(imported, into);
    return into;
  };
  const inHtml = new Set(chunks.filter((chunk) => chunk.isEntry).flatMap((chunk) => [...closure(chunk.fileName)]));
  const chunkOf = (module: string) => {
    const id = source(module);
    const chunk = chunks.find((c) => c.moduleIds.includes(id));
    if (!chunk) throw new Error(`route preloads: ${module} is in no chunk (see src/web/app/first-screen-modules.ts)`);
    return chunk.fileName;
  };
  const preloads: Record<string, string[]> = {};
  for (const entry of routeTable) {
    const files = new Set<string>();
    for (const module of firstScreenModules(entry)) closure(chunkOf(module), files);
    preloads[entry.path] = [...files].filter((file) => !inHtml.has(file));
  }
  this.emitFile({ type: 'asset', fileName: ROUTE_PRELOADS, source: JSON.stringify(preloads) });
}

/**
 * React Router publishes two identical builds that differ in one flag, ENABLE_DEV_WARNINGS, and its package exports
 * point every bundler at the development one. The production one leaves out the warnings and the "Hey developer"
 * error page (RouteError.tsx is ours), which every page downloads in the boot chunk.
 */
const reactRouterProduction = (file: string) =>
  fileURLToPath(new URL(`node_modules/react-router/dist/production/${file}`, import.meta.url));

/**
 * The global CSS (app/global.css and the two themes, a few KB) inside index.html instead of a render-blocking request:
 * the phone paints the loading state from the HTML alone, one round trip sooner on every first load (HTML is never
 * cached, so it costs a visit about 1.6 KB brotli it would have downloaded anyway). The CSP allows inline styles.
 * Screens' own CSS still comes with their chunks.
 */
function globalCssInHtml(): Plugin {
  const inlined = new Set<string>();
  return {
    name: 'points-mall:global-css-in-html',
    apply: 'build',
    // A chunk that still names the deleted file (a lazy chunk's preload list, when it imports the entry's chunk from
    // elsewhere than the entry) would have the preload helper fetch a missing stylesheet and reload the page.
    writeBundle(_options, bundle) {
      for (const file of Object.values(bundle))
        for (const css of inlined)
          if (file.type === 'chunk' && file.code.includes(css))
            throw new Error(`${css} is inlined into index.html, but ${file.fileName} still loads it`);
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        return html.replace(/<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)">/g, (tag, file: string) => {
          const asset = bundle[file];
          if (asset?.type !== 'asset') return tag;
          // Nothing else may refer to it (writeBundle checks); the service worker's precache then skips it too.
          inlined.add(file);
          Reflect.deleteProperty(bundle, file);
          return `<style>${String(asset.source).replaceAll('</style', '<\\/style')}</style>`;
        });
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), loadingInHtml(), globalCssInHtml(), routePreloads(), pwa()],
  resolve: {
    alias: [
      { find: /^react-router$/, replacement: reactRouterProduction('index.mjs') },
      { find: /^react-router\/dom$/, replacement: reactRouterProduction('dom-export.mjs') },
    ],
  },
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill script: the server's CSP allows scripts from this origin only.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
    // dist/web/.vite/manifest.json: which source each hashed file comes from (the page-weight bench names them).
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'boot', test: (id) => BOOT.some((re) => re.test(id.replaceAll('\\', '/'))), priority: 20 },
            { name: 'auth', test: (id) => AUTH.test(id.replaceAll('\\', '/')), priority: 10 },
            {
              debugName: 'frame',
              name: (id, graph) => (inFrameChunk(id, graph) ? 'frame' : null),
              priority: 5,
              includeDependenciesRecursively: false,
            },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
