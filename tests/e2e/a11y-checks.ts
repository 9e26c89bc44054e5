import { AxeBuilder } from '@axe-core/playwright';
import type { Result } from 'axe-core';
import type { Page } from 'playwright-core';

// The two checks the accessibility suite runs on every screen: axe-core's WCAG 2.1 AA rules, and the size of every
// thing a finger can tap. Each answers plain findings, so the test can gather them over all screens and fail once
// with a readable list.

export const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
/** Impacts that fail the suite; 'minor' and 'moderate' findings are left to review. */
const BLOCKING = new Set(['serious', 'critical']);

/** The serious and critical WCAG 2.1 AA violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<Result[]> {
  const found = await runAxe(page);
  if (found.length === 0) return found;
  // A dialog or toast that opened after the screen settled may still be fading in (antd-mobile animates them in
  // script), and axe reads its half-transparent colours as poor contrast: once they are fully in, ask again. A real
  // violation is still there the second time.
  await page.waitForFunction(() =>
    [
      ...document.querySelectorAll(
        '.adm-mask, .adm-toast-mask, .adm-center-popup-wrap, .adm-popup-body, .adm-toast-main',
      ),
    ]
      .map((el) => getComputedStyle(el).opacity)
      .every((opacity) => opacity === '1' || opacity === '0'),
  );
  return runAxe(page);
}

async function runAxe(page: Page): Promise<Result[]> {
  // The walk stays in one page, so axe (half a megabyte of script) is sent once; AxeBuilder would send it twice on
  // every call. Legacy mode runs axe inside the page itself: the default opens a blank page per call to merge frame
  // results, and this app has no iframes to merge.
  const loaded = await page.evaluate(() => 'axe' in window);
  const results = await new AxeBuilder({ page, ...(loaded ? { axeSource: 'void 0' } : {}) })
    .withTags(WCAG_21_AA)
    .options({ resultTypes: ['violations'] })
    .setLegacyMode(true)
    .analyze();
  return results.violations.filter((v) => BLOCKING.has(v.impact ?? ''));
}

/** One violation, readable: rule, impact, what it asks, and each offending element with axe's own explanation. */
export function describeViolation(v: Result): string {
  const nodes = v.nodes.map((n) => {
    const why = (n.failureSummary ?? '').replace(/\s*\n\s*/g, ' ');
    return `      ${n.target.join(' ')}  ${n.html.slice(0, 120)}\n        ${why}`;
  });
  return [`    [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})`, ...nodes].join('\n');
}

export const MIN_TARGET_PX = 44;

export interface SmallTarget {
  what: string;
  width: number;
  height: number;
}

/**
 * Every tappable thing smaller than 44×44 CSS px. Tappable: links, buttons, form controls, ARIA widgets, and anything
 * the page styles with a pointer cursor (antd-mobile's tab-bar items, list rows and swipe actions are divs). An
 * element inside another tappable one is measured as part of it, and a control inside a <label> counts the label's
 * box, since a tap there reaches it too. Hidden elements are skipped; swipe actions are measured even while tucked
 * away, because they have their size when swiped open.
 */
export function smallTouchTargets(page: Page): Promise<SmallTarget[]> {
  return page.evaluate((min) => {
    const SEMANTIC = [
      'a[href]',
      'button',
      'input:not([type=hidden])',
      'select',
      'textarea',
      'summary',
      '[role=button]',
      '[role=link]',
      '[role=tab]',
      '[role=checkbox]',
      '[role=radio]',
      '[role=switch]',
      '[role=menuitem]',
      '[role=option]',
      '[tabindex]:not([tabindex="-1"])',
    ].join(',');
    const tappable = (el: Element) =>
      el.matches(SEMANTIC) || (el instanceof HTMLElement && getComputedStyle(el).cursor === 'pointer');
    const hidden = (el: Element) => {
      if (el.closest('[aria-hidden=true], [inert]')) return true;
      const style = getComputedStyle(el);
      const box = el.getBoundingClientRect();
      return style.visibility === 'hidden' || style.display === 'none' || box.width === 0 || box.height === 0;
    };
    const describe = (el: Element) => {
      const text = (el.getAttribute('aria-label') ?? (el as HTMLElement).innerText ?? '').trim().replace(/\s+/g, ' ');
      const cls = [...el.classList].slice(0, 2).join('.');
      return `${el.tagName.toLowerCase()}${cls ? `.${cls}` : ''}${text ? ` '${text.slice(0, 20)}'` : ''}`;
    };
    const found: { what: string; width: number; height: number }[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!tappable(el) || hidden(el)) continue;
      // Measured once, as the outermost tappable element around it.
      if ([...ancestors(el)].some(tappable)) continue;
      const box = (el.closest('label') ?? el).getBoundingClientRect();
      if (box.width < min || box.height < min) {
        found.push({ what: describe(el), width: Math.round(box.width), height: Math.round(box.height) });
      }
    }
    return found;

    function* ancestors(el: Element) {
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) yield up;
    }
  }, MIN_TARGET_PX);
}

/**
 * The page's outline as WCAG 1.3.1 and 2.4.6 want it for this app: one main landmark and one level-one heading (the
 * screen's title). axe files these under best practices, so they are checked here.
 */
export function structureProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const mains = document.querySelectorAll('main, [role=main]').length;
    if (mains !== 1) problems.push(`${mains} main landmarks (want 1)`);
    const headings = [...document.querySelectorAll('h1, [role=heading][aria-level="1"]')];
    const texts = headings.map((h) => `'${(h.textContent ?? '').trim()}'`).join(', ');
    if (headings.length !== 1)
      problems.push(`${headings.length} level-one headings (want 1)${texts ? `: ${texts}` : ''}`);
    return problems;
  });
}

/** Every check above on the page as it is now (a state the route-by-route a11y suite does not reach). */
export async function expectAccessible(page: Page): Promise<void> {
  const problems = [
    ...(await axeViolations(page)).map(describeViolation),
    ...(await structureProblems(page)),
    ...(await smallTouchTargets(page)).map((s) => `${s.what}: ${s.width}×${s.height}`),
  ];
  if (problems.length > 0) throw new Error(`accessibility problems:\n${problems.join('\n')}`);
}
