import type { AppContext } from '../../context.js';
import { findSite } from './repo.js';
import { LIVE_SITE_ID } from './service.js';

/** The origin of the admin-set analytics script, or '' for none (then nothing third-party may load). */
export function originOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' ? parsed.origin : '';
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
