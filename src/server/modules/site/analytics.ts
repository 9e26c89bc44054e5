import type { AppContext } from '../context.js';
import { findSite, LIVE_SITE_ID } from './repo.js';

/** A real DNS host name: dot-separated labels and an alphabetic top-level label (no wildcard, no IP address). */
const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * The origin of the admin-set analytics script, or '' for none (then nothing third-party may load). Only an https
 * address on a real host name yields one, rebuilt from the parsed parts, so nothing the admin typed (a wildcard, a
 * `;` starting another directive, a `,`) can reach the Content-Security-Policy. Also guards values stored before
 * the contract's pattern was this strict.
 */
export function originOf(url: string): string {
  if (/[\s;,'"*]/.test(url)) return '';
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' || parsed.username || parsed.password || !HOST_NAME.test(parsed.hostname))
      return '';
    return `https://${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`;
  } catch {
    return '';
  }
}

/**
 * Reads the analytics address of the live site record into the app's memory, where the Content-Security-Policy
 * reads it on every response. Called at start, after the record changes here, and periodically (other processes).
 */
export async function refreshAnalyticsOrigin(app: AppContext): Promise<void> {
  const site = await findSite(app.db, LIVE_SITE_ID);
  app.live.analyticsOrigin = originOf(site?.analyticsUrl ?? '');
}
