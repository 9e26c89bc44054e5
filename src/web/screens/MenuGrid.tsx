import { Link } from 'react-router-dom';
import type { MenuSection } from '../app/menu';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { MenuIcon } from './MenuIcon';

/**
 * A section of entries as a 4-column grid of tiles under its heading: each tile the entry's icon and title. An entry
 * `closed` says (a platform off shelf) is greyed out with 未开放 and leads nowhere, instead of to a page that only says so.
 */
export function MenuGrid({ section, closed }: { section: MenuSection; closed?: (path: string) => boolean }) {
  const heading = `menu-${section.group}`;
  return (
    <section className="app-card menu-section" aria-labelledby={heading}>
      <h2 className="menu-title" id={heading}>
        {w.menu[section.group]}
      </h2>
      <div className="menu-grid">
        {section.entries.map((screen) =>
          closed?.(screen.path) ? (
            <div key={screen.path} className="menu-item menu-item-closed" aria-disabled="true">
              <MenuIcon icon={screen.icon} />
              <span className="menu-label">{screen.title}</span>
              <span className="menu-closed">{w.platform.notOpen}</span>
            </div>
          ) : (
            <Link key={screen.path} to={screen.path} className="menu-item">
              <MenuIcon icon={screen.icon} />
              <span className="menu-label">{screen.title}</span>
            </Link>
          ),
        )}
      </div>
    </section>
  );
}
