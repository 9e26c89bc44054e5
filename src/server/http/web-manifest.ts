import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../modules/context.js';
import { DEFAULT_SITE_NAME, liveSiteName } from '../modules/site/repo.js';

/** Launchers cut longer names; the full one stays in `name`. */
const SHORT_NAME_LENGTH = 12;

/**
 * The web app manifest (install to home screen). Built per request rather than at build time because its name is the
 * site's own, which an admin may change at any time on /system. Icons and the service worker come from the build
 * (public/icons, vite.pwa.ts).
 */
export function webManifest(name: string) {
  return {
    id: '/',
    name,
    short_name: Array.from(name).slice(0, SHORT_NAME_LENGTH).join(''),
    description: `${name}：积分、商城与平台服务`,
    lang: 'zh-CN',
    dir: 'ltr',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    orientation: 'portrait',
    background_color: '#f5f5f5',
    theme_color: '#1260d0',
    categories: ['shopping', 'productivity'],
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
    ],
  };
}

export function registerWebManifest(fastify: FastifyInstance, app: AppContext): void {
  fastify.get('/manifest.webmanifest', { schema: { hide: true } }, async (request, reply) => {
    let siteName = DEFAULT_SITE_NAME;
    try {
      siteName = await liveSiteName(app.db);
    } catch (error) {
      // A database that cannot answer must not make the app uninstallable: the default name will do.
      request.log.warn({ err: error }, 'web manifest: site name unavailable');
    }
    return reply
      .header('cache-control', 'no-cache')
      .type('application/manifest+json; charset=utf-8')
      .send(JSON.stringify(webManifest(siteName)));
  });
}
