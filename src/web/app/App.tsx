import { useMemo } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { setLoginNavigator } from '../api';
import { buildRoutes } from './routes';
import { screens } from './screens';

export function App() {
  const router = useMemo(() => {
    const r = createBrowserRouter(buildRoutes(screens));
    // Keep where the user was going (the screen being opened, else the current one), as the route guard does; the
    // client calls this before the guard's own redirect, which then no longer applies.
    setLoginNavigator(() => {
      const from = r.state.navigation.location ?? r.state.location;
      const back = from.pathname === '/login' ? '' : `?redirect=${encodeURIComponent(from.pathname + from.search)}`;
      void r.navigate(`/login${back}`, { replace: true });
    });
    return r;
  }, []);
  return <RouterProvider router={router} />;
}
