import type { ReactNode } from 'react';
import { LeftOutline } from 'antd-mobile-icons';
import { messages as t } from '../i18n/zh-CN';

/**
 * The header's bar: back button, the screen's title as the page's one level-one heading, and an action on the right.
 * Hand-made rather than antd-mobile's NavBar, whose left area is a nameless role="button" around the real (unnamed,
 * 30 px) back target. The class names stay antd-mobile's, so the look and the tests that find the title stay as they
 * were.
 */
export function HeaderBar({ title, onBack, right }: { title: ReactNode; onBack?: () => void; right?: ReactNode }) {
  return (
    <div className="adm-nav-bar app-nav-bar">
      <div className="adm-nav-bar-left">
        {onBack && (
          <button type="button" className="adm-nav-bar-back" aria-label={t.shell.back} onClick={onBack}>
            <span className="adm-nav-bar-back-arrow" aria-hidden="true">
              <LeftOutline />
            </span>
          </button>
        )}
      </div>
      <h1 className="adm-nav-bar-title">{title}</h1>
      <div className="adm-nav-bar-right">{right}</div>
    </div>
  );
}
