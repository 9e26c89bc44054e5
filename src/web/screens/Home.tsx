import { NoticeBar } from 'antd-mobile';
import { ExclamationTriangleOutline } from 'antd-mobile-icons';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router-dom';
import { homeAlerts, platforms } from '../../../screens.config';
import { OPERATIONS } from '../../api/generated/operations.gen';
import type { RecordOperation, SignedInRole } from '../config/types';
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

type Alert = { text: string; link: { label: string; to: string } };
type ErasedAlert = { operation: RecordOperation; show: (data: unknown) => Alert | null };

/**
 * The screen map's home alerts this role's operations allow, each read quietly once per visit home: shown while its
 * record says so (沙箱支付 on at a public address), gone once it is put right. A failed read shows nothing.
 */
function useHomeAlerts(role: SignedInRole | 'notLogin'): Alert[] {
  const [shown, setShown] = useState<Alert[]>([]);
  useEffect(() => {
    if (role === 'notLogin') return;
    const controller = new AbortController();
    const mine = (homeAlerts as readonly ErasedAlert[]).filter((a) =>
      (OPERATIONS[a.operation].roles as readonly string[]).includes(role),
    );
    // Each operation is read once, however many alerts word themselves from it (支付设置 says two things).
    const reads = new Map<RecordOperation, Promise<unknown>>();
    const read = (operation: RecordOperation) => {
      let found = reads.get(operation);
      if (!found)
        reads.set(
          operation,
          (found = (api.call as (op: RecordOperation, init: object) => Promise<unknown>)(operation, {
            signal: controller.signal,
            quiet: true,
          })),
        );
      return found;
    };
    void Promise.all(mine.map((a) => read(a.operation).then(a.show, () => null))).then((found) => {
      if (!controller.signal.aborted) setShown(found.filter((a): a is Alert => a !== null));
    });
    return () => controller.abort();
  }, [role]);
  return shown;
}

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
  const alerts = useHomeAlerts(role);
  return (
    <div className="app-page">
      {alerts.map((alert) => (
        <div key={alert.text} className="home-alert" role="alert">
          <NoticeBar
            color="alert"
            wrap
            icon={<ExclamationTriangleOutline />}
            content={
              <>
                <span className="home-alert-text">{alert.text}</span>
                <Link className="home-alert-link" to={alert.link.to}>
                  {alert.link.label}
                </Link>
              </>
            }
          />
        </div>
      ))}
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
