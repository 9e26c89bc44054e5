// A tab opened before a deploy still runs the old version, whose lazy chunks the server no longer has once the new
// one is in place (and the new service worker has dropped the old precache). Vite reports such a failed import as
// `vite:preloadError`; reloading loads the new version. Once per address, so a chunk that is truly missing ends on
// the error screen instead of reloading for ever.
const KEY = 'reloadedForStaleChunk';

window.addEventListener('vite:preloadError', (event) => {
  if (window.sessionStorage.getItem(KEY) === window.location.href) return;
  window.sessionStorage.setItem(KEY, window.location.href);
  event.preventDefault();
  window.location.reload();
});
