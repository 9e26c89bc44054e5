import { lazy, startTransition, Suspense, useEffect, useState, type ReactNode } from 'react';
import { NoticeBar, WaterMark } from 'antd-mobile';
import { useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api';
import { toast } from '../feedback';
import type { FrameScreen } from '../config/types';
import { messages as t } from '../i18n/zh-CN';
import { sessionStore, signOut } from '../state/session';
import { siteStore } from '../state/site';
import { useScreenTitle } from '../state/screen-title';
import { useStore } from '../state/store';
import { useColorScheme } from '../app/color-scheme';
import { useLiveSession } from '../live/useLiveSession';
import { canOpen } from '../app/screens';
import { useAnnouncementOnce } from './announcement';
import { AnnouncementDialog } from './AnnouncementDialog';
import { afterNextPaint } from './after-paint';
import { AnnouncementBubble } from './lazy-bubble';
import { BottomTabs } from './BottomTabs';
import { HeaderBar } from './HeaderBar';
import { TAB_PAGES, upFrom } from './up';

/**
 * True once the frame's first paint is on screen (a frame, then a task): the bubble is asked for only then, so its
 * download and start-up do not compete with the page (and the announcement) for the network and the main thread; the
 * watermark too (it draws a canvas and turns it into an image, then renders again), a frame after the page. Rendered
 * as a transition, so React renders them in slices between which the page answers taps.
 */
function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => afterNextPaint(() => startTransition(() => setPainted(true))), []);
  return painted;
}

/** The watermark is drawn on a canvas, out of CSS's reach: as faint on a dark page as antd-mobile's default on a light one. */
const WATERMARK_INK = { light: 'rgba(0, 0, 0, 0.15)', dark: 'rgba(255, 255, 255, 0.15)' } as const;
import { SubjectLine } from './SubjectLine';
import './frame.css';

// The same page as 404's (says why, offers 返回首页), loaded only when a role opens a screen it may not.
const Forbidden = lazy(() => import('./NotFound').then((m) => ({ default: m.Forbidden })));
// Asked for only when the texts changed since this user agreed: most sessions never load it.
const PolicyGate = lazy(() => import('./PolicyGate'));

/**
 * The policy version this signed-in user has yet to agree to, or null. Admins edit the texts and are not asked; the
 * texts' own pages are readable under the question; the enrolment an admin must finish comes first.
 */
function policyDue(
  user: { userRole: string; policyAccepted: number; enrolTwoFactor: boolean } | null,
  version: number | undefined,
  chrome: string | undefined,
): number | null {
  if (!user || user.userRole === 'admin' || user.enrolTwoFactor || version === undefined) return null;
  if (chrome === 'document' || user.policyAccepted >= version) return null;
  return version;
}

/**
 * Back if the app has history of its own; otherwise (a deep link opened from a chat app) up to the page it belongs to.
 * A tab page's arrow leads home, in place of the tab (tabs replace one another, so going back would leave their row).
 */
function useBack(pathname: string, recordOf: string | undefined) {
  const navigate = useNavigate();
  return () =>
    TAB_PAGES.has(pathname)
      ? navigate('/', { replace: true })
      : (window.history.state as { idx?: number } | null)?.idx
        ? navigate(-1)
        : navigate(upFrom(pathname, recordOf), { replace: true });
}

function LogoutButton() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const logout = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await api.call('userLogout');
      toast(t.auth.loggedOut, 'success');
    } finally {
      signOut();
      void navigate('/login', { replace: true });
    }
  };
  return (
    <button type="button" className="app-header-right" onClick={logout} disabled={busy} aria-busy={busy}>
      {t.shell.logout}
    </button>
  );
}

/**
 * The seed's frame around every screen but login and register: header with title and back arrow, the scrolling
 * notice bar, the bottom tab bar, the account watermark and the announcement bubble. Chrome comes from the screen's
 * config, never from comparing paths.
 */
export default function Frame({ screen, children }: { screen: FrameScreen | undefined; children: ReactNode }) {
  const { pathname } = useLocation();
  const back = useBack(pathname, screen?.recordOf);
  const session = useStore(sessionStore);
  const site = useStore(siteStore);
  const scheme = useColorScheme();
  const showBack = screen?.back !== false && pathname !== '/';
  const title = useScreenTitle(pathname, screen?.title ?? t.shell.notFound);
  const notice = screen?.notice ?? site?.noticeBar ?? '';
  const allowed = !screen || canOpen(screen, session.role) || session.role === 'notLogin';
  // An error page (404, no permission, /500) and the enrolment an admin must finish first show only themselves:
  // no tab bar and no announcement (it waits for the next page).
  const dueVersion = policyDue(session.user, site?.policyVersion, screen?.chrome);
  const onlyThePage =
    dueVersion !== null ||
    !screen ||
    !allowed ||
    screen.chrome === 'error' ||
    screen.chrome === 'document' ||
    session.user?.enrolTwoFactor === true;
  const dueAnnouncement = useAnnouncementOnce(!onlyThePage);
  // The bubble rests in the tab bar (AnnouncementBubble.tsx): it comes with it, for a signed-in user.
  const bubble = !!session.user && !onlyThePage;
  const painted = useAfterFirstPaint();
  useLiveSession();
  return (
    <div className={bubble ? 'app-frame app-frame-bubble' : 'app-frame'}>
      <header className="app-header">
        <HeaderBar
          title={title}
          onBack={showBack ? back : undefined}
          right={screen?.headerRight === 'logout' ? <LogoutButton /> : null}
        />
        {notice && <NoticeBar content={notice} color="alert" speed={40} wrap={false} />}
        {screen?.subject && allowed && <SubjectLine subject={screen.subject} />}
      </header>
      <main className="app-main">
        {allowed ? (
          children
        ) : (
          <Suspense fallback={null}>
            <Forbidden />
          </Suspense>
        )}
      </main>
      {!onlyThePage && <BottomTabs />}
      {session.user && painted && (
        <WaterMark content={session.user.userAccount} fullPage gapX={36} gapY={64} fontColor={WATERMARK_INK[scheme]} />
      )}
      {bubble && painted && (
        <Suspense fallback={null}>
          <AnnouncementBubble />
        </Suspense>
      )}
      <AnnouncementDialog due={dueAnnouncement} />
      {dueVersion !== null && (
        <Suspense fallback={null}>
          <PolicyGate version={dueVersion} />
        </Suspense>
      )}
    </div>
  );
}
