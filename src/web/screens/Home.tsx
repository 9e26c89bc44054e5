import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { platforms } from '../../../screens.config';
import { api } from '../api';
import { menuFor } from '../app/menu';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { sessionStore } from '../state/session';
import { siteStore } from '../state/site';
import { useStore } from '../state/store';
import { MenuGrid } from './MenuGrid';
import './home.css';

const PLATFORM_PAGES = new Set(platforms.map((p) => `/${p.code}`));

/**
 * Which platform pages lead nowhere yet (no platform of their kind on shelf), from the platforms on shelf. Until that
 * answer comes (or if it fails), every entry stays a link: its page says the rest.
 */
function useClosedPlatforms(): ((path: string) => boolean) | undefined {
  const [open, setOpen] = useState<Set<string> | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    api.call('platformList', { signal: controller.signal, quiet: true }).then(
      (list) => setOpen(new Set(list.map((p) => `/${p.kind}`))),
      () => undefined,
    );
    return () => controller.abort();
  }, []);
  return open ? (path) => PLATFORM_PAGES.has(path) && !open.has(path) : undefined;
}

const NO_SECTIONS: ReturnType<typeof menuFor> = [];

/**
 * Home: a greeting and the entries the signed-in role may use, from the screen map. The entries' grids (most of the
 * page's elements) render just after the first paint, as a transition React slices: the frame, the greeting and the
 * announcement the seed opens with the page paint without waiting for them, and no long task holds the phone.
 */
export default function Home() {
  const { user, role } = useStore(sessionStore);
  const site = useStore(siteStore);
  const sections = useDeferredValue(
    useMemo(() => menuFor(role, 'home'), [role]),
    NO_SECTIONS,
  );
  const closed = useClosedPlatforms();
  return (
    <div className="app-page">
      <div className="home-hero">
        <h2>{w.user.greeting(user?.userName ?? '')}</h2>
        <p>
          {site?.websiteName} · {site?.coinName || w.coins.balance} {user?.coin ?? 0}
        </p>
      </div>
      {sections.map((section) => (
        <MenuGrid key={section.group} section={section} closed={closed} />
      ))}
    </div>
  );
}
