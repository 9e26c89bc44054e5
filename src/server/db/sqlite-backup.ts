import BetterSqlite3 from 'better-sqlite3';
import { existsSync, renameSync, statSync } from 'node:fs';
import { openDatabase, type Db } from './database.js';

// Online backups of the embedded database, and putting one back (npm run db:backup, db:restore).

export interface BackupReport {
  bytes: number;
  users: number;
  entries: number;
  /** PRAGMA integrity_check's answer: 'ok', or what it found. */
  integrity: string;
  /** Users whose balance differs from the sum of their entries (the ledger check). */
  mismatches: number;
}

/**
 * Copies the live database to `target` while the server runs and writes: better-sqlite3's backup API, every page in
 * one step, so the copy is one consistent moment (a step that stopped half-way would start over after each commit of
 * the server's). In WAL mode that step only reads: the server's writes go on meanwhile.
 */
export async function backupSqlite(livePath: string, target: string): Promise<void> {
  if (existsSync(target)) throw new Error(`${target} exists already: name a new file`);
  const live = new BetterSqlite3(livePath, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    await live.backup(target, { progress: ({ totalPages }) => Math.max(totalPages, 1) * 2 });
  } finally {
    live.close();
  }
}

/** The ledger check, given by the caller (the app's own, modules/coins/service.ts `check`): this layer sits below it. */
export type LedgerCheck = (db: Db) => Promise<{ users: number; entries: number; mismatches: readonly unknown[] }>;

/** Checks a copy as a restore would need it: SQLite's integrity check, then the ledger check. */
export async function verifySqlite(path: string, checkLedger: LedgerCheck): Promise<BackupReport> {
  const raw = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  let integrity: string;
  try {
    integrity = String(raw.pragma('integrity_check', { simple: true }));
  } finally {
    raw.close();
  }
  const handle = openDatabase({ kind: 'sqlite', path });
  try {
    const ledger = await checkLedger(handle.db);
    return {
      bytes: statSync(path).size,
      users: ledger.users,
      entries: ledger.entries,
      integrity,
      mismatches: ledger.mismatches.length,
    };
  } finally {
    await handle.close();
  }
}

/** Where the server that runs on `dbPath` writes its pid (SQLite only): a restore refuses while that process lives. */
export const serverPidFile = (dbPath: string) => `${dbPath}.pid`;

/** The pid of a live server on that database, or undefined (none, or one that died without removing its file). */
export function runningServer(dbPath: string, readPid: (file: string) => string | undefined): number | undefined {
  const pid = Number(readPid(serverPidFile(dbPath)));
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive, owned by another user. ESRCH: gone.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

/**
 * Puts a backup in the database's place. The database it replaces (with its -wal and -shm) is kept beside it as
 * `<name>.replaced-<time>`; answers that name, or undefined when there was none.
 */
export async function restoreSqlite(backup: string, dbPath: string, now: Date): Promise<string | undefined> {
  let kept: string | undefined;
  if (existsSync(dbPath)) {
    kept = `${dbPath}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(dbPath, kept);
    for (const suffix of ['-wal', '-shm']) if (existsSync(dbPath + suffix)) renameSync(dbPath + suffix, kept + suffix);
  }
  const copy = new BetterSqlite3(backup, { readonly: true, fileMustExist: true });
  try {
    await copy.backup(dbPath);
  } finally {
    copy.close();
  }
  return kept;
}
