import { lazy, Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router-dom';
import { api } from '../api';
import { SITE_INFORMATION_ID } from '../config/constants';
import { messages as t } from '../i18n/zh-CN';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { Loading } from './Loading';
import { useAnalytics } from './useAnalytics';
import { useCurrentScreen } from './useCurrentScreen';

// Login and register show no frame, so its pieces (nav bar, tab bar, notice bar, watermark) load later: beside the
// first framed screen's own chunk (routes.tsx calls loadFrame), not after that screen has rendered.
type FrameModule = typeof import('./Frame');
let frameModule: FrameModule | undefined;
let framePending: Promise<FrameModule> | undefined;
export function loadFrame(): Promise<FrameModule> {
  framePending ??= import('./Frame').then((m) => (frameModule = m));
  return framePending;
}
const LazyFrame = lazy(loadFrame);

let siteRequest: Promise<void> | undefined;

/**
 * Fetches the site information unless it is already here (one request at a time). Routes call it beside a signed-in
 * screen's chunk, so the frame first draws with its notice bar in place (no shift of the page below it) and the
 * announcement can open without waiting for the first render.
 */
export function loadSiteInformation(): Promise<void> {
  if (siteStore.get()) return Promise.resolve();
  siteRequest ??= api
    .call('basicInformationGet', { query: { id: SITE_INFORMATION_ID } })
    .then(siteStore.set, () => undefined)
    .finally(() => (siteRequest = undefined));
  return siteRequest;
}

/** Reads the site information once at start (except on /500, which must show even when the API is down). */
function useSiteInformation(pathname: string) {
  useEffect(() => {
    if (pathname === '/500') return;
    void loadSiteInformation();
    // Only the first page matters: the record stays in memory for the session.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once at start: a later path never reads it again
  }, []);
}

export function Root() {
  const location = useLocation();
  const navigation = useNavigation();
  const screen = useCurrentScreen();
  const site = useStore(siteStore);
  // Chosen once: the loaded frame when the first screen brought it (no suspense, no flash), else the lazy one. Never
  // switched later, which would remount the screen inside it.
  const [Frame] = useState(() => frameModule?.default ?? LazyFrame);
  useSiteInformation(location.pathname);
  useAnalytics(site?.analyticsUrl ?? '', location.pathname);

  const title = screen?.title ?? t.shell.notFound;
  useEffect(() => {
    document.title = site?.websiteName ? `${site.websiteName} - ${title}` : title;
  }, [site?.websiteName, title]);

  return (
    <>
      {navigation.state === 'loading' && (
        <div className="app-navigating" role="progressbar" aria-label={t.shell.loading} />
      )}
      {screen?.chrome === 'bare' ? (
        <Outlet />
      ) : (
        <Suspense fallback={<Loading />}>
          <Frame screen={screen}>
            <Outlet />
          </Frame>
        </Suspense>
      )}
    </>
  );
}
