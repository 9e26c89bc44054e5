import Bowser from 'bowser';

/** A signed-in device as 登录设备 names it: browser and system with their major versions ('' when unknown). */
export interface Device {
  browser: string;
  system: string;
  /** Browser and system without versions: the same browser after an update is not a new browser. */
  signature: string;
}

const MAX = 64;
const major = (version: string | undefined) => version?.split('.')[0] ?? '';
const named = (name: string | undefined, version: string) =>
  [name ?? '', version].filter(Boolean).join(' ').slice(0, MAX);

/** Parses a User-Agent header (bowser); anything it cannot read gives empty names, never an error. */
export function deviceOf(userAgent: string | undefined): Device {
  if (!userAgent) return { browser: '', system: '', signature: '' };
  const { browser, os } = Bowser.parse(userAgent.slice(0, 512));
  return {
    browser: named(browser.name, major(browser.version)),
    system: named(os.name, os.versionName ?? major(os.version)),
    signature: `${browser.name ?? ''}|${os.name ?? ''}`,
  };
}
