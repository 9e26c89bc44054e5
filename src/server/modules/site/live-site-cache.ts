import type { Schemas } from '../../../api/operations.js';
import type { Db } from '../../db/database.js';

type SiteView = Schemas['BasicInformation'];

/**
 * The one cache of database rows in the app (sessions and everything else are read on every request).
 *
 * How long a server answers the live site record from memory. Every page asks for it; it changes when an admin edits
 * it. This server's own edits are answered at once (forgetLiveSite, after their commit); another server's on the same
 * PostgreSQL database, or SQL typed by an operator into either database, within this long. The record is public
 * display text: a second of delay across servers harms no one, while reading it per page view cost more than the rest
 * of the request (a round trip on PostgreSQL; on SQLite the read lock that even `PRAGMA data_version` takes). What must
 * be exact reads the table itself: a transfer checks the cap in its own transaction (coins/ledger-sqlite.ts,
 * transfer_coins).
 */
export const LIVE_SITE_TTL_MS = 1000;

/** Bumped after every committed change of the site by this process; an entry of an older epoch is never answered. */
let epoch = 0;
const cached = new WeakMap<Db, { epoch: number; readAt: number; view: SiteView }>();

/** Call after the transaction that changed the live site has committed. */
export function forgetLiveSite(): void {
  epoch++;
}

export async function liveSiteFromMemory(db: Db, read: () => Promise<SiteView>): Promise<SiteView> {
  const now = performance.now();
  const hit = cached.get(db);
  if (hit && hit.epoch === epoch && now - hit.readAt < LIVE_SITE_TTL_MS) return hit.view;
  const readingIn = epoch;
  const view = Object.freeze(await read());
  // A change committed while this read ran may or may not be in it: kept only if no change happened meanwhile.
  if (readingIn === epoch) cached.set(db, { epoch: readingIn, readAt: now, view });
  return view;
}
