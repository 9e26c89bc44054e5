import { useMemo } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { setLoginNavigator } from '../api';
import { buildRoutes } from './routes';
import { screens } from './screens';

export function App() {
  const router = useMemo(() => {
    const r = createBrowserRouter(buildRoutes(screens));
    setLoginNavigator(() => void r.navigate('/login', { replace: true }));
    return r;
  }, []);
  return <RouterProvider router={router} />;
}
