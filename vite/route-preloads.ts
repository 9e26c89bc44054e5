import { fileURLToPath } from 'node:url';
import type { OutputBundle, PluginContext } from 'rolldown';
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
 */
export function routePreloads(): Plugin {
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
