import type { Db } from '../../db/database.js';

export interface AuditEntry {
  actorId: number | null;
  action: string;
  targetType:
    | 'user'
    | 'site'
    | 'policy'
    | 'package'
    | 'order'
    | 'redeem'
    | 'platform'
    | 'service'
    | 'quota'
    | 'ai'
    | 'task'
    | 'payment';
  targetId: string | number;
  before?: unknown;
  after?: unknown;
}

/** Admin actions on roles, bans, passwords and site settings: who, what, when, before and after. */
export async function writeAudit(db: Db, entry: AuditEntry, now: number): Promise<void> {
  await db
    .insertInto('auditLog')
    .values({
      actorId: entry.actorId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: String(entry.targetId),
      before: entry.before === undefined ? null : JSON.stringify(entry.before),
      after: entry.after === undefined ? null : JSON.stringify(entry.after),
      createdAt: now,
    })
    .execute();
}

export function listAudit(db: Db, targetType: string, targetId: string | number) {
  return db
    .selectFrom('auditLog')
    .selectAll()
    .where('targetType', '=', targetType)
    .where('targetId', '=', String(targetId))
    .orderBy('id')
    .execute();
}
