import { TabBar } from 'antd-mobile';
import { AppOutline, GlobalOutline, ShopbagOutline, UserOutline } from 'antd-mobile-icons';
import { useLocation, useNavigate } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useUnreadCount } from '../state/unread';

const TABS = [
  { key: '/', title: t.shell.tabs.home, icon: <AppOutline /> },
  { key: '/mall', title: t.shell.tabs.mall, icon: <ShopbagOutline /> },
  { key: '/clockInfo', title: t.shell.tabs.hub, icon: <GlobalOutline /> },
  { key: '/about', title: t.shell.tabs.me, icon: <UserOutline /> },
];

export function BottomTabs() {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const active = TABS.find((tab) => tab.key === pathname)?.key ?? '';
  const unread = useUnreadCount();
  return (
    <nav className="app-tabbar" aria-label="主导航">
      {/* A tab switch replaces the page: back from any tab never walks through every tab visited before. */}
      <TabBar activeKey={active} onChange={(key) => navigate(key, { replace: true })} safeArea={false}>
        {TABS.map((tab) => (
          <TabBar.Item
            key={tab.key}
            icon={tab.icon}
            title={tab.title}
            // The my-page tab carries the inbox's unread count.
            badge={tab.key === '/about' && unread > 0 ? w.inbox.unreadBadge(unread) : undefined}
          />
        ))}
      </TabBar>
    </nav>
  );
}
