import { fileURLToPath } from 'node:url';
import type { OutputBundle } from 'rolldown';
import type { Plugin } from 'vite';
import { ROUTE_PRELOADS } from '../src/server/http/app-html.js';
import { firstScreenModules } from '../src/web/app/first-screen-modules.js';
import { routeTable } from '../src/web/generated/route-table.gen.js';

const source = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url));

/**
 * For each route of the screen map, the files its first screen loads lazily (firstScreenModules: the screen's chunk,
 * the frame's, the map's) with the chunks and stylesheets they import, less what index.html already names. The server
 * names them in that page's HTML, so a phone fetches them beside the boot chunk rather than after the boot chunk has
 * downloaded and run, and the preload helper finds them there instead of adding a <link> each.
 *
 * Measured (issue 36, tests/bench/page-weight.mjs, 5 runs paired with the build before): without this list
 * Lighthouse mobile on / signed in drops by 9 points (8 to 14 in every pair), LCP 465 ms later (353 to 809). Nothing
 * simpler fits: Vite's modulepreload names only the entry's static imports in index.html (one HTML for every route)
 * and a lazy chunk's imports once it is requested, and React Router's lazy routes start theirs once the boot chunk
 * has run; HTML that differs by route is the server's (src/server/http/app-html.ts), from this list.
 */
export function routePreloads(): Plugin {
  return {
    name: 'points-mall:route-preloads',
    apply: 'build',
    // After Vite's own passes (which drop chunks that only carried CSS, and the imports of them).
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        this.emitFile({ type: 'asset', fileName: ROUTE_PRELOADS, source: JSON.stringify(listPreloads(bundle)) });
      },
    },
    // Each file named is one the build wrote.
    writeBundle(_options, bundle) {
      const list = bundle[ROUTE_PRELOADS];
      if (list?.type !== 'asset') throw new Error(`route preloads: ${ROUTE_PRELOADS} missing`);
      for (const [path, files] of Object.entries(JSON.parse(String(list.source)) as Record<string, string[]>)) {
        const missing = files.find((file) => !bundle[file]);
        if (missing) throw new Error(`route preloads: ${path} names ${missing}, which the build did not write`);
      }
    },
  };
}

/** routePreloads' list: see there. */
function listPreloads(bundle: OutputBundle): Record<string, string[]> {
  const chunks = Object.values(bundle).filter((file) => file.type === 'chunk');
  /** A chunk's file, its stylesheets, and those of every chunk it imports (what loading it fetches). */
  const closure = (fileName: string, into = new Set<string>()): Set<string> => {
    if (into.has(fileName)) return into;
    into.add(fileName);
    const chunk = bundle[fileName];
    if (chunk?.type === 'chunk')
      for (const file of [...(chunk.viteMetadata?.importedCss ?? []), ...chunk.imports]) closure(file, into);
    return into;
  };
  const inHtml = new Set(chunks.filter((chunk) => chunk.isEntry).flatMap((chunk) => [...closure(chunk.fileName)]));
  const chunkOf = (module: string) => {
    const chunk = chunks.find((c) => c.moduleIds.includes(source(module)));
    if (!chunk) throw new Error(`route preloads: ${module} is in no chunk (see src/web/app/first-screen-modules.ts)`);
    return chunk.fileName;
  };
  return Object.fromEntries(
    routeTable.map((entry) => {
      const files = new Set<string>();
      for (const module of firstScreenModules(entry)) closure(chunkOf(module), files);
      return [entry.path, [...files].filter((file) => !inHtml.has(file))];
    }),
  );
}
