// Times show in the site's time zone (the server's TZ_SITE, told with the site information), whatever zone the phone
// is set to: a schedule set for 18:39 reads 18:39 on every phone. When the phone's zone differs, each time says which
// zone it is in, so a traveller does not read it as their own.

import { siteStore } from '../state/site';

let siteZone: string | undefined;

/** Called when the site information arrives (its `timeZone`); undefined falls back to the phone's own zone. */
export function setSiteTimeZone(zone: string | undefined): void {
  siteZone = zone;
  formats.clear();
}

/** The phone's own zone (what a Date shows without one). */
export const phoneTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

const formats = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, zone: string | undefined) {
  const key = zone ?? '';
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      ...(zone ? { timeZone: zone } : {}),
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(key, format);
  }
  const all = format.formatToParts(ms);
  return (type: Intl.DateTimeFormatPartTypes) => all.find((p) => p.type === type)?.value ?? '';
}

/** The site zone's name in Chinese words (中国标准时间), when the phone is set to another zone; null otherwise. */
export function zoneLabel(): string | null {
  if (!siteZone || siteZone === phoneTimeZone()) return null;
  const name = new Intl.DateTimeFormat('zh-CN', { timeZone: siteZone, timeZoneName: 'long' })
    .formatToParts(0)
    .find((p) => p.type === 'timeZoneName')?.value;
  return name ?? siteZone;
}

/** yyyy-mm-dd HH:mm in the site's zone, labelled with it when the phone's zone differs. */
export function siteDateTime(ms: number): string {
  const part = parts(ms, siteZone);
  const text = `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
  const label = zoneLabel();
  return label ? `${text}（${label}）` : text;
}

/** Today's date (yyyy-mm-dd) on the site's clock: the month a calendar opens on is the site's, not the phone's. */
export function siteToday(now = Date.now()): string {
  const part = parts(now, siteZone);
  return `${part('year')}-${part('month')}-${part('day')}`;
}

// Every time on screen is the site's (TZ_SITE), told with the site information: follow it as it arrives. Loaded with
// the first screen that shows a time, so it starts from the record already read.
siteStore.subscribe(() => setSiteTimeZone(siteStore.get()?.timeZone));
setSiteTimeZone(siteStore.get()?.timeZone);
