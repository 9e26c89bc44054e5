import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';

/** The app's HTML as sent: the body in each encoding a browser may ask for. */
export interface AppHtml {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** Where the web build lists per route (vite/route-preloads.ts) the files its first screen loads lazily. */
export const ROUTE_PRELOADS = '.vite/route-preloads.json';

const link = (file: string) =>
  file.endsWith('.css')
    ? `<link rel="preload" as="style" crossorigin href="/${file}">`
    : `<link rel="modulepreload" crossorigin href="/${file}">`;

function encoded(html: string): AppHtml {
  const identity = Buffer.from(html);
  return {
    identity,
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: gzipSync(identity, { level: 9 }),
  };
}

/**
 * The web app's index.html for a deep link: for a route of the screen map, with <link>s to the chunks and stylesheets
 * its first screen loads lazily, so the browser fetches them beside the boot chunk instead of after the boot chunk
 * has downloaded and run (one round trip and the start-up's run time sooner on a phone's first visit). Built once per
 * route when first asked for, compressed then; read from the build at start (a deploy restarts the server).
 */
export function appHtml(webRoot: string): (pathname: string) => AppHtml {
  const html = readFileSync(join(webRoot, 'index.html'), 'utf8');
  const listFile = join(webRoot, ROUTE_PRELOADS);
  const preloads = (existsSync(listFile) ? JSON.parse(readFileSync(listFile, 'utf8')) : {}) as Record<string, string[]>;
  const canAddLinks = html.includes('</head>');
  // By route, and the page as built under '' (every path with nothing to add): each compressed when first asked for.
  const pages = new Map<string, AppHtml>();
  return (pathname) => {
    const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
    const files = canAddLinks && Object.hasOwn(preloads, path) ? preloads[path]! : [];
    const key = files.length > 0 ? path : '';
    let page = pages.get(key);
    if (!page) {
      page = encoded(key === '' ? html : html.replace('</head>', `${files.map(link).join('')}</head>`));
      pages.set(key, page);
    }
    return page;
  };
}

const ENCODINGS = ['br', 'gzip', 'identity'] as const;

/** The encoding to send, by the request's Accept-Encoding and its weights (as @fastify/static's preCompressed does). */
export const chooseEncoding = (acceptEncoding: string | undefined): keyof AppHtml =>
  negotiate(acceptEncoding ?? '', [...ENCODINGS]) ?? 'identity';
