import { listAudit, type AuditEntry } from '../../src/server/support/audit/repo.js';
import type { TestApp } from './test-app.js';

/** The audit rows written about one target, oldest first, with before/after parsed. */
export async function auditTrail(app: TestApp, targetType: AuditEntry['targetType'], targetId: number) {
  const rows = await listAudit(app.built.context.db, targetType, targetId);
  return rows.map((r) => ({
    ...r,
    before: r.before === null ? null : JSON.parse(r.before),
    after: r.after === null ? null : JSON.parse(r.after),
  }));
}
