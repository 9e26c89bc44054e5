import { Link } from 'react-router-dom';
import type { MenuSection } from '../app/menu';
import { messages as t } from '../i18n/zh-CN';

const COLORS = ['#1677ff', '#00b578', '#ff8f1f', '#7f5af0', '#ff3141', '#13c2c2'];

/** A section of entries as a 4-column grid of tiles; the tile shows the title's first character. */
export function MenuGrid({ section, index }: { section: MenuSection; index: number }) {
  return (
    <section className="app-card" aria-label={t.menu[section.group]}>
      <h3 className="menu-title">{t.menu[section.group]}</h3>
      <div className="menu-grid">
        {section.entries.map((screen, i) => (
          <Link key={screen.path} to={screen.path} className="menu-item">
            <span className="menu-icon" style={{ background: COLORS[(index + i) % COLORS.length] }} aria-hidden>
              {Array.from(screen.title)[0]}
            </span>
            {screen.title}
          </Link>
        ))}
      </div>
    </section>
  );
}
