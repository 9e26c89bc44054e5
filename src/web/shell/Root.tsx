import { lazy, Suspense, useEffect } from 'react';
import { Outlet, useLocation, useNavigation } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';
import { recordLocation } from '../state/history';
import { followSiteChanges, reloadSite, siteStore } from '../state/site';
import { useStore } from '../state/store';
import { Loading } from './Loading';
import { useAnalytics } from './useAnalytics';
import { useCurrentScreen } from './useCurrentScreen';

// Login and register show no frame, so its pieces (nav bar, tab bar, notice bar, watermark, bubble) load later.
const Frame = lazy(() => import('./Frame'));

/**
 * Reads the site information at start (quietly: /500 must show even when the API is down, and shows the site's name
 * when it is not), then follows saves made in other tabs and returns to the foreground.
 */
function useSiteInformation() {
  useEffect(() => {
    if (!siteStore.get()) void reloadSite();
    return followSiteChanges();
  }, []);
}

export function Root() {
  const location = useLocation();
  const navigation = useNavigation();
  const screen = useCurrentScreen();
  const site = useStore(siteStore);
  useSiteInformation();
  useEffect(() => recordLocation(location.pathname + location.search), [location.pathname, location.search]);
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
