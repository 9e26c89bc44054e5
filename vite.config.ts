import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { messages as t } from './src/web/i18n/zh-CN.js';
import { frameChunk } from './vite/frame-chunk.js';
import { compactIconPaths } from './vite/icon-paths.js';
import { routePreloads } from './vite/route-preloads.js';
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
  plugins: [react(), compactIconPaths(), loadingInHtml(), globalCssInHtml(), routePreloads(), pwa()],
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
    // Minified kB (the largest chunks: the dashboard's chart, about 505, FormRenderer about 350, the boot chunk about
    // 340). The chart is ECharts through echarts/core with only the parts DrawnChart.tsx draws, and no smaller build of
    // it exists; it loads only on the dashboard, on its own, and is never precached (vite.pwa.ts). 400 warned of it on
    // every build; 520 still warns when any chunk grows past it.
    chunkSizeWarningLimit: 520,
    // dist/web/.vite/manifest.json: which source each hashed file comes from (the page-weight bench names them).
    manifest: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'boot', test: (id) => BOOT.some((re) => re.test(id.replaceAll('\\', '/'))), priority: 20 },
            { name: 'auth', test: (id) => AUTH.test(id.replaceAll('\\', '/')), priority: 10 },
            { debugName: 'frame', name: frameChunk, priority: 5, includeDependenciesRecursively: false },
          ],
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
