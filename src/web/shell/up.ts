import { routeTable } from '../generated/route-table.gen';

// Where the back arrow leads when the app has no history of its own (a link opened from a chat app): the screen the
// page belongs to, not home. An edit page's own list (`recordOf`) when it names one, else the route one level up
// (/gxy/update → /gxy, /tasks/detail → /tasks) when there is one, else home.

const ROUTES = new Set(routeTable.map((r) => r.path));

export function upFrom(pathname: string, recordOf?: string): string {
  if (recordOf && ROUTES.has(recordOf)) return recordOf;
  const parent = pathname.replace(/\/[^/]*$/, '');
  return parent && ROUTES.has(parent) ? parent : '/';
}

/** The tab bar's pages besides home: their back arrow leads home, whatever tab was open before (a tab switch keeps no history). */
export const TAB_PAGES: ReadonlySet<string> = new Set(['/mall', '/clockInfo', '/about']);
