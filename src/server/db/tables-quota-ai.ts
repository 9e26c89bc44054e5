import type { Generated } from 'kysely';

// The tables of free quotas (migration 0008) and the AI configuration (0009), kept apart from types.ts so their
// areas grow without touching the shared list. Times are UTC epoch milliseconds.

export type QuotaUnit = 'runs' | 'days';
export type QuotaEntryKind = 'grant' | 'use' | 'refund' | 'revoke';

export interface QuotaGrantsTable {
  id: Generated<number>;
  userId: number;
  /** null: every platform. */
  platformId: number | null;
  unit: QuotaUnit;
  amount: number;
  /** Always the sum of the grant's entries; written only by modules/quotas/ledger.ts. */
  remaining: number;
  reason: string;
  expiresAt: number | null;
  revokedAt: number | null;
  actorId: number | null;
  createdAt: number;
}

export interface QuotaEntriesTable {
  id: Generated<number>;
  grantId: number;
  userId: number;
  amount: number;
  remainingAfter: number;
  kind: QuotaEntryKind;
  runId: number | null;
  reference: string;
  actorId: number | null;
  createdAt: number;
}

export interface AiConfigTable {
  id: number;
  enabled: number;
  baseUrl: string;
  model: string;
  apiKeyCipher: string | null;
  timeoutMs: number;
  dailyBudget: number;
  updatedAt: number;
}

export interface AiUsageTable {
  day: string;
  requests: number;
}

export interface QuotaAiTables {
  quotaGrants: QuotaGrantsTable;
  quotaEntries: QuotaEntriesTable;
  aiConfig: AiConfigTable;
  aiUsage: AiUsageTable;
}
