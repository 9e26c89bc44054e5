import type { Db } from '../../db/database.js';
import { sqliteDriverOf, type Prepared } from '../../db/sqlite-driver.js';

/**
 * The live site's per-transfer cap (site_information.amount), read by every transfer on SQLite from memory instead of
 * the table. Two things end a cached value:
 * - this process updating the site (repo.updateSite calls forgetTransferCap after its UPDATE);
 * - another process writing the database file: `PRAGMA data_version` on the write connection changes whenever any
 *   other connection commits, so the cached value is used only while nothing else has written. In practice one
 *   process writes a SQLite file, but a second one (an admin's script, a second server by mistake) stays correct.
 * PostgreSQL keeps no such cache: several servers may share the database, so transfer_coins reads the cap in the same
 * round trip as the transfer (migration 0011).
 */
const cached = new WeakMap<Prepared, { siteId: number; dataVersion: number; amount: number }>();

/** Call only inside a write transaction on `writer` (a transfer's). */
export function transferCapOn(writer: Prepared, siteId: number): number {
  const dataVersion = writer.prepare('pragma data_version').pluck().get() as number;
  const hit = cached.get(writer);
  if (hit?.siteId === siteId && hit.dataVersion === dataVersion) return hit.amount;
  const row = writer.prepare('select amount from site_information where id = ?').get(siteId) as
    { amount: number } | undefined;
  const amount = Number(row?.amount ?? 0);
  cached.set(writer, { siteId, dataVersion, amount });
  return amount;
}

export function forgetTransferCap(db: Db): void {
  const driver = sqliteDriverOf(db);
  if (driver) cached.delete(driver.writer);
}
