import { lazy, Suspense, useEffect, useState } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';
import { recordLocation } from '../state/history';
import { followSiteChanges, reloadSite, siteStore } from '../state/site';
import { useScreenTitle } from '../state/screen-title';
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
  siteRequest ??= reloadSite().finally(() => (siteRequest = undefined));
  return siteRequest;
}

/**
 * Reads the site information at start (quietly: /500 must show even when the API is down, and shows the site's name
 * when it is not), then follows saves from other tabs of this browser and on a return to the foreground. The event
 * stream's saves (another admin's phone) are followed by the signed-in frame (live/useLiveSession.ts), so /login
 * downloads no live-update code.
 */
function useSiteInformation() {
  useEffect(() => {
    void loadSiteInformation();
    return followSiteChanges();
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
  useSiteInformation();
  useEffect(() => recordLocation(location.pathname + location.search), [location.pathname, location.search]);
  useAnalytics(site?.analyticsUrl ?? '', location.pathname);

  const title = useScreenTitle(location.pathname, screen?.title ?? t.shell.notFound);
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
