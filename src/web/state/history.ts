// The page shown before the current one, as the router last moved (path and query). A form that is done goes back
// to its list when that is where the admin came from (keeping the list's search and scroll), instead of stacking a
// second copy of the list on the history.

let current = '';
let previous = '';

/** Called by the shell on every location change. */
export function recordLocation(path: string): void {
  if (path === current) return;
  previous = current;
  current = path;
}

/** Whether the page before this one is `path` (a path without a query matches any query on it). */
export function cameFrom(path: string): boolean {
  return previous === path || (!path.includes('?') && previous.split('?')[0] === path);
}
