import type { ComponentType } from 'react';
import { redirect, type RouteObject } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { api } from '../api';
import type { Screen } from '../config/types';
import { signIn, signOut } from '../state/session';
import { Loading } from '../shell/Loading';
import { loadFrame, loadSiteInformation, Root } from '../shell/Root';
import { RouteError } from '../shell/RouteError';

/** The component a screen renders: a hand screen, or a generic renderer bound to its config. Loaded lazily. */
async function componentFor(screen: Screen): Promise<ComponentType> {
  switch (screen.kind) {
    case 'custom':
      return (await screen.component()).default;
    case 'list': {
      const { ListRenderer } = await import('../renderers/ListRenderer');
      return () => <ListRenderer screen={screen} />;
    }
    case 'form': {
      const { FormRenderer } = await import('../renderers/FormRenderer');
      return () => <FormRenderer screen={screen} />;
    }
    case 'detail': {
      const { DetailRenderer } = await import('../renderers/DetailRenderer');
      return () => <DetailRenderer screen={screen} />;
    }
    case 'composed': {
      const { ComposedRenderer } = await import('../renderers/ComposedRenderer');
      return () => <ComposedRenderer screen={screen} />;
    }
    case 'pending': {
      const { Pending } = await import('../shell/Pending');
      return Pending;
    }
  }
}

/**
 * The seed's guard: before every navigation to a signed-in screen the current user is fetched again. Success makes it
 * the login user; anything else makes the role notLogin and, for 40001/40100, sends the visitor to /login.
 */
async function currentUserLoader({ request }: { request: Request }) {
  try {
    const user = await api.call('userGetLogin', { signal: request.signal, quiet: true });
    signIn(user);
    return null;
  } catch (error) {
    signOut();
    if (error instanceof ApiError && error.signInAgain) {
      const from = new URL(request.url);
      throw redirect(`/login?redirect=${encodeURIComponent(from.pathname + from.search)}`);
    }
    if (error instanceof ApiError && (error.status ?? 0) >= 500) throw redirect('/500');
    throw error;
  }
}

/** The site record, waited for at most a second: an API that hangs on it must not hold the page back. */
const siteInformationOrTimeout = () =>
  Promise.race([loadSiteInformation(), new Promise((resolve) => setTimeout(resolve, SITE_WAIT_MS))]);
const SITE_WAIT_MS = 1000;

export function buildRoutes(screens: readonly Screen[]): RouteObject[] {
  // Every screen is its own chunk, fetched when first opened (a new screen in the map is split with no code here). A
  // framed screen fetches the frame at the same time, and a signed-in one the site record its notice bar shows, so
  // nothing waits for the first render and nothing moves after it.
  const toRoute = (screen: Screen): RouteObject => ({
    path: screen.path,
    handle: { screen },
    lazy: async () => {
      const [Component] = await Promise.all([
        componentFor(screen),
        screen.chrome === 'bare' ? null : loadFrame(),
        screen.access === 'public' ? null : siteInformationOrTimeout(),
      ]);
      return { Component };
    },
  });
  return [
    {
      Component: Root,
      HydrateFallback: Loading,
      ErrorBoundary: RouteError,
      children: [
        ...screens.filter((s) => s.access === 'public').map(toRoute),
        {
          loader: currentUserLoader,
          // Run the guard on every navigation, not only the first.
          shouldRevalidate: () => true,
          children: [
            ...screens.filter((s) => s.access !== 'public').map(toRoute),
            {
              path: '*',
              lazy: async () => {
                const [{ NotFound }] = await Promise.all([import('../shell/NotFound'), loadFrame()]);
                return { Component: NotFound };
              },
            },
          ],
        },
      ],
    },
  ];
}
