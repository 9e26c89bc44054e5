import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { setLoginNavigator } from '../api';
import { buildRoutes } from './routes';
import type { RouteEntry, Screen } from '../config/types';
import { routeTable } from '../generated/route-table.gen';

/** A screen's full config from the map, which is fetched (once) when a framed or generic screen first needs it. */
async function fullScreen(entry: RouteEntry): Promise<Screen> {
  const { screens } = await import('./screens');
  const screen = screens.find((s) => s.path === entry.path);
  if (!screen) throw new Error(`${entry.path} is in the route table but not in screens.config.ts: run npm run codegen`);
  return screen;
}

/**
 * The app's router. Created before React's first render (main.tsx), not inside it: creating it starts the first
 * page's navigation (its loaders, its screen's and the frame's chunks, the site record), so those requests leave as
 * soon as the entry has run instead of after a render of the loading state.
 */
export function createAppRouter() {
  const r = createBrowserRouter(buildRoutes(routeTable, fullScreen));
  // Keep where the user was going (the screen being opened, else the current one), as the route guard does; the
  // client calls this before the guard's own redirect, which then no longer applies.
  setLoginNavigator(() => {
    const from = r.state.navigation.location ?? r.state.location;
    const back = from.pathname === '/login' ? '' : `?redirect=${encodeURIComponent(from.pathname + from.search)}`;
    void r.navigate(`/login${back}`, { replace: true });
  });
  return r;
}

export function App({ router }: { router: ReturnType<typeof createAppRouter> }) {
  return <RouterProvider router={router} />;
}
