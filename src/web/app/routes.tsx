import type { ComponentType } from 'react';
import { redirect, type RouteObject } from 'react-router-dom';
import { ApiError } from '../../api/client';
import { api } from '../api';
import { customScreens } from './custom-screens';
import type { RouteEntry, Screen } from '../config/types';
import { safeRedirect } from '../screens/safe-redirect';
import { toast } from '../feedback';
import { sessionStore, signIn, signOut } from '../state/session';
import { ENROLMENT_PATHS, TWO_FACTOR_PATH } from '../state/two-factor';
import { Loading } from '../shell/Loading';
import { loadFrame, loadSiteInformation, Root } from '../shell/Root';
import { RouteError } from '../shell/RouteError';

/**
 * The component a screen renders: a hand screen (named in the route table, registered in ./custom-screens), or a generic renderer bound
 * to its full config. The renderer's chunk and the full map are fetched side by side. Loaded lazily.
 */
async function componentFor(entry: RouteEntry, screen: () => Promise<Screen>): Promise<ComponentType> {
  const of = async <K extends Screen['kind']>(kind: K) => {
    const s = await screen();
    if (s.kind !== kind)
      throw new Error(`${entry.path} is ${s.kind} in the map, ${kind} in the route table: run codegen`);
    return s as Extract<Screen, { kind: K }>;
  };
  switch (entry.kind) {
    case 'custom':
      return (await customScreens[entry.screen]()).default;
    case 'list': {
      const [{ ListRenderer }, s] = await Promise.all([import('../renderers/ListRenderer'), of('list')]);
      return () => <ListRenderer screen={s} />;
    }
    case 'form': {
      const [{ FormRenderer }, s] = await Promise.all([import('../renderers/FormRenderer'), of('form')]);
      return () => <FormRenderer screen={s} />;
    }
    case 'detail': {
      const [{ DetailRenderer }, s] = await Promise.all([import('../renderers/DetailRenderer'), of('detail')]);
      return () => <DetailRenderer screen={s} />;
    }
    case 'composed': {
      const [{ ComposedRenderer }, s] = await Promise.all([import('../renderers/ComposedRenderer'), of('composed')]);
      return () => <ComposedRenderer screen={s} />;
    }
    case 'pending': {
      const { Pending } = await import('../shell/Pending');
      return Pending;
    }
  }
}

/** The envelope code of "not signed in" (no session at all), as opposed to a session that ended (40001). */
const NOT_LOGGED_IN = 40100;

/**
 * The seed's guard: before every navigation to a signed-in screen the current user is fetched again. Success makes it
 * the login user; a server fault (5xx) opens /500 and keeps the user; anything else makes the role notLogin and, for
 * 40001/40100, sends the visitor to /login.
 */
async function currentUserLoader({ request }: { request: Request }) {
  // Nobody signed in on this page yet (a first visit): "please sign in" is the answer, not news, so /login opens
  // without a toast. A session that ended while in use (or a ban, 40001) still says why, as the seed's catalogue does.
  const known = sessionStore.get().user !== null;
  try {
    const user = await api.call('userGetLogin', { signal: request.signal, quiet: true, probe: !known });
    signIn(user);
  } catch (error) {
    // A server fault says nothing about the session: /500 keeps the frame of whoever was signed in (their
    // watermark and the bubble), as every other framed page does.
    if (error instanceof ApiError && (error.status ?? 0) >= 500) throw redirect('/500');
    // No answer at all (offline): nothing is known about the session, so a user signed in on this page stays signed
    // in and the screen opens in its frame (header, back arrow, tab bar), where its own reads say they failed.
    if (!(error instanceof ApiError) && known) return null;
    signOut();
    if (error instanceof ApiError && error.signInAgain) {
      if (!known && error.code !== NOT_LOGGED_IN) toast(error.message);
      const from = new URL(request.url);
      throw redirect(`/login?redirect=${encodeURIComponent(from.pathname + from.search)}`);
    }
    throw error;
  }
  // An admin that must turn two-factor sign-in on first may open nothing but enrolment, two-factor codes or a passkey
  // (the server refuses the rest: 40102).
  if (sessionStore.get().user?.enrolTwoFactor && !ENROLMENT_PATHS.has(new URL(request.url).pathname))
    throw redirect(TWO_FACTOR_PATH);
  return null;
}

/** The site record, waited for at most a second: an API that hangs on it must not hold the page back. */
const siteInformationOrTimeout = () =>
  Promise.race([loadSiteInformation(), new Promise((resolve) => setTimeout(resolve, SITE_WAIT_MS))]);
const SITE_WAIT_MS = 1000;

/**
 * For a screen a signed-in user has no use for (login): asks, without a toast or a redirect for a visitor, whether
 * someone is signed in, and sends them on to where they were going, or home.
 */
async function signedInGoesOnLoader({ request }: { request: Request }) {
  let user;
  try {
    user = await api.call('userGetLogin', { signal: request.signal, probe: true });
  } catch {
    return null; // a visitor, or no answer: the screen shows
  }
  signIn(user);
  throw redirect(safeRedirect(new URL(request.url).searchParams.get('redirect')));
}

/** For a public framed screen (/500): who is signed in, if the server can say, without a toast or a redirect. */
async function optionalUserLoader({ request }: { request: Request }) {
  try {
    signIn(await api.call('userGetLogin', { signal: request.signal, probe: true }));
  } catch {
    // a visitor, or the server cannot answer: the screen shows without a user's frame
  }
  return null;
}

/**
 * The router over the screen map. The app passes the generated route table and the full map's loader (so /login
 * loads neither the map nor anything of a framed screen); tests may pass the full screens, which are their own
 * route entries.
 */
export function buildRoutes(screens: readonly Screen[]): RouteObject[];
export function buildRoutes(
  entries: readonly RouteEntry[],
  screenOf: (entry: RouteEntry) => Promise<Screen>,
): RouteObject[];
export function buildRoutes(
  entries: readonly RouteEntry[],
  screenOf: (entry: RouteEntry) => Promise<Screen> = async (entry) => entry as Screen,
): RouteObject[] {
  // Every screen is its own chunk, fetched when first opened (a new screen in the map is split with no code here). A
  // framed screen fetches the frame and its full config (notice, subject) at the same time, and a signed-in one the
  // site record its notice bar shows, so nothing waits for the first render and nothing moves after it. The route's
  // `handle` (what the frame reads) comes with the chunk: a bare screen's entry is all it needs.
  const toRoute = (entry: RouteEntry): RouteObject => ({
    path: entry.path,
    ...(entry.signedInGoesOn ? { loader: signedInGoesOnLoader } : {}),
    ...(entry.framesSignedInUser ? { loader: optionalUserLoader } : {}),
    lazy: async () => {
      const bare = entry.chrome === 'bare';
      let full: Promise<Screen> | undefined;
      const screen = () => (full ??= screenOf(entry));
      const [Component, shown] = await Promise.all([
        componentFor(entry, screen),
        bare ? entry : screen(),
        bare ? null : loadFrame(),
        entry.access === 'public' ? null : siteInformationOrTimeout(),
      ]);
      return { Component, handle: { screen: shown } };
    },
  });
  return [
    {
      Component: Root,
      HydrateFallback: Loading,
      ErrorBoundary: RouteError,
      children: [
        ...entries.filter((s) => s.access === 'public').map(toRoute),
        {
          loader: currentUserLoader,
          // Run the guard on every navigation, not only the first.
          shouldRevalidate: () => true,
          // A signed-in screen that cannot load (offline before anyone signed in on this page, a chunk missing) says
          // so inside the frame, which keeps its header, back arrow and tab bar, rather than on a blank page.
          ErrorBoundary: RouteError,
          children: [
            ...entries.filter((s) => s.access !== 'public').map(toRoute),
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
