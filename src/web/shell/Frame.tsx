import type { ReactNode } from 'react';
import { NavBar, NoticeBar, WaterMark } from 'antd-mobile';
import { useLocation, useNavigate } from 'react-router-dom';
import { api } from '../api';
import { toast } from '../feedback';
import type { Screen } from '../config/types';
import { messages as t } from '../i18n/zh-CN';
import { sessionStore, signOut } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { canOpen } from '../app/screens';
import { AnnouncementBubble } from './AnnouncementBubble';
import { BottomTabs } from './BottomTabs';
import { SubjectLine } from './SubjectLine';

/** Back if the app has history of its own, home otherwise (a deep link opened from a chat app). */
function useBack() {
  const navigate = useNavigate();
  return () => ((window.history.state as { idx?: number } | null)?.idx ? navigate(-1) : navigate('/'));
}

function LogoutButton() {
  const navigate = useNavigate();
  const logout = async () => {
    try {
      await api.call('userLogout');
      toast(t.auth.loggedOut, 'success');
    } finally {
      signOut();
      void navigate('/login', { replace: true });
    }
  };
  return (
    <button type="button" className="app-header-right" onClick={logout}>
      {t.shell.logout}
    </button>
  );
}

/**
 * The seed's frame around every screen but login and register: header with title and back arrow, the scrolling
 * notice bar, the bottom tab bar, the account watermark and the announcement bubble. Chrome comes from the screen's
 * config, never from comparing paths.
 */
export default function Frame({ screen, children }: { screen: Screen | undefined; children: ReactNode }) {
  const { pathname } = useLocation();
  const back = useBack();
  const session = useStore(sessionStore);
  const site = useStore(siteStore);
  const showBack = screen?.back !== false && pathname !== '/';
  const notice = screen?.notice ?? site?.noticeBar ?? '';
  const allowed = !screen || canOpen(screen, session.role) || session.role === 'notLogin';
  return (
    <div className="app-frame">
      <header className="app-header">
        <NavBar
          back={showBack ? '' : null}
          backIcon={showBack}
          onBack={back}
          right={screen?.headerRight === 'logout' ? <LogoutButton /> : null}
        >
          {screen?.title ?? t.shell.notFound}
        </NavBar>
        {notice && <NoticeBar content={notice} color="alert" speed={40} wrap={false} />}
        {screen?.subject && allowed && <SubjectLine subject={screen.subject} />}
      </header>
      <main className="app-main">{allowed ? children : <Forbidden />}</main>
      <BottomTabs />
      {session.user && <WaterMark content={session.user.userAccount} fullPage gapX={36} gapY={64} />}
      {session.user && <AnnouncementBubble />}
    </div>
  );
}

function Forbidden() {
  return <p className="app-loading">{t.shell.forbidden}</p>;
}
