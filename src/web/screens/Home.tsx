import { menuFor } from '../app/menu';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { MenuGrid } from './MenuGrid';
import './home.css';

/** Home: a greeting and the entries the signed-in role may use, from the screen map. */
export default function Home() {
  const { user, role } = useStore(sessionStore);
  const site = useStore(siteStore);
  const sections = menuFor(role, 'home');
  return (
    <div className="app-page">
      <div className="home-hero">
        <h2>{w.user.greeting(user?.userName ?? '')}</h2>
        <p>
          {site?.websiteName} · {site?.coinName || w.coins.balance} {user?.coin ?? 0}
        </p>
      </div>
      {sections.map((section) => (
        <MenuGrid key={section.group} section={section} />
      ))}
    </div>
  );
}
