import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Times are UTC epoch milliseconds in both databases, so comparisons and ordering need no dialect care. */
type EpochMs = number;

export type UserRole = 'user' | 'agent' | 'admin';
export type UserStatus = 'active' | 'banned';

export interface UsersTable {
  id: Generated<number>;
  userAccount: string;
  userName: string;
  passwordHash: string;
  userRole: UserRole;
  status: UserStatus;
  email: string | null;
  invitationCode: string;
  inviterId: number | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  lastLoginAt: EpochMs | null;
  /** Soft delete: the row, its history and its account name stay. */
  deletedAt: EpochMs | null;
}

export interface SessionsTable {
  /** HMAC of the cookie token; the token itself is never stored. */
  tokenHash: string;
  userId: number;
  createdAt: EpochMs;
  lastSeenAt: EpochMs;
  expiresAt: EpochMs;
  /** A revoked session is kept (until it would have expired) so its next call can answer 40001, not 40100. */
  revokedAt: EpochMs | null;
  revokeReason: string | null;
}

export interface SiteInformationTable {
  id: Generated<number>;
  websiteName: string;
  noticeBar: string;
  noticeAnnouncementTitle: string;
  noticeAnnouncement: string;
  pointsNotification: string;
  coinName: string;
  addCoin: number;
  amount: number;
  status: number;
  analyticsUrl: string;
  userId: number | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

export interface EmailCaptchasTable {
  id: Generated<number>;
  userId: number;
  email: string;
  codeHash: string;
  createdAt: EpochMs;
  expiresAt: EpochMs;
  attempts: number;
  consumedAt: EpochMs | null;
}

export interface RateLimitsTable {
  bucket: string;
  windowStart: EpochMs;
  hits: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  actorId: number | null;
  action: string;
  targetType: string;
  targetId: string;
  before: string | null;
  after: string | null;
  createdAt: EpochMs;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  siteInformation: SiteInformationTable;
  emailCaptchas: EmailCaptchasTable;
  rateLimits: RateLimitsTable;
  auditLog: AuditLogTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;
export type SiteInformationRow = Selectable<SiteInformationTable>;
export type SessionRow = Selectable<SessionsTable>;
