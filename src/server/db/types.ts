import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Role } from '../../api/generated/operations.gen.js';
import type { QuotaAiTables } from './tables-quota-ai.js';

/** Times are UTC epoch milliseconds in both databases, so comparisons and ordering need no dialect care. */
type EpochMs = number;

/** A signed-in account's role: the contract's roles but the visitor. */
export type UserRole = Exclude<Role, 'visitor'>;
export type UserStatus = 'active' | 'banned';

export interface UsersTable {
  id: Generated<number>;
  userAccount: string;
  userName: string;
  /** Search column: the server's folding of the field above (db/search.ts); written with it, never by hand. */
  userNameKey: Generated<string>;
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
  /** Balance: always the sum of the user's coin entries; written only by modules/coins moveCoins. */
  coin: Generated<number>;
  /** How many coin entries the user has: kept by a database trigger on coin_entries (migration 0012). */
  entryCount: Generated<number>;
  /** How many services the user's latest ban paused (modules/users setBanned); 0 until a ban pauses any. */
  banPausedServices: Generated<number>;
  /** When the account turned two-factor sign-in on; null while it is off (modules/two-factor). */
  twoFactorAt: EpochMs | null;
  /** The version of 用户协议 and 隐私政策 the user last agreed to; 0 when never (modules/policies). */
  policyAccepted: Generated<number>;
  /** When the user asked to close the account; null when not closing (modules/closing). */
  closingAt: EpochMs | null;
  /** When the account was closed for good; the row stays, masked, for the orders and the ledger (modules/closing). */
  closedAt: EpochMs | null;
}

export type CoinEntryKind =
  | 'admin_add'
  | 'admin_reduce'
  | 'transfer_out'
  | 'transfer_in'
  | 'order_credit'
  | 'redeem'
  | 'service_charge'
  | 'service_refund'
  | 'signup_bonus'
  | 'agent_rebate'
  /** A refunded order's coins taken back from its buyer (or given back when the gateway refused the refund). */
  | 'order_refund'
  /** The agent's rebate of a refunded order taken back (or given back with it). */
  | 'rebate_refund';

export interface CoinEntriesTable {
  id: Generated<number>;
  userId: number;
  /** Signed: credits are positive, debits negative. */
  amount: number;
  balanceAfter: number;
  kind: CoinEntryKind;
  counterpartyId: number | null;
  /** Ties the entries of one movement together (a transfer's two sides, an order's credit and rebate). */
  reference: string;
  description: string;
  actorId: number | null;
  createdAt: EpochMs;
}

export interface IdempotencyKeysTable {
  actorId: number;
  key: string;
  operation: string;
  requestHash: string;
  response: string;
  createdAt: EpochMs;
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
  /** The device it was signed in from, parsed from the User-Agent at sign-in ('' when unknown). */
  browser: string;
  system: string;
  /** The client address at sign-in (the proxy's X-Forwarded-For with TRUST_PROXY). */
  address: string;
  /** How it began: a password alone, a password and a second step, or a passkey (which counts as two factors). */
  signedInWith: Generated<SignInMethod>;
  /** The passkey it began with (signedInWith 'passkey'): removing that passkey ends it. */
  passkeyId: number | null;
}

export type SignInMethod = 'password' | 'two-factor' | 'passkey';

/** The browsers a user has signed in from (name and system, no versions): a new one is told in the inbox. */
/** 用户协议 / 隐私政策 an admin edited; a kind without a row is read as its default text (modules/policies). */
export interface PoliciesTable {
  kind: PolicyKind;
  body: string;
  updatedAt: EpochMs;
  updatedBy: number | null;
}

export type PolicyKind = 'terms' | 'privacy';

export interface UserBrowsersTable {
  userId: number;
  signature: string;
  firstSeenAt: EpochMs;
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
  rebatePercent: Generated<number>;
  status: number;
  analyticsUrl: string;
  userId: number | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /** The version of 用户协议 and 隐私政策 together: raised by every change of either (modules/policies). */
  policyVersion: Generated<number>;
  /** Search columns: the server's folding of coinName, noticeBar, pointsNotification (db/search.ts). */
  coinNameKey: Generated<string>;
  noticeBarKey: Generated<string>;
  pointsNotificationKey: Generated<string>;
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

export interface MallPackagesTable {
  id: Generated<number>;
  coinName: string;
  /** Price in fen (1/100 yuan). */
  amount: number;
  addCoin: number;
  status: number;
  sort: number;
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /** Search column: the server's folding of coinName (db/search.ts). */
  coinNameKey: Generated<string>;
}

export type OrderStatus = 'pending' | 'paid' | 'cancelled';

export interface OrdersTable {
  id: Generated<number>;
  orderNo: string;
  userId: number;
  packageId: number;
  coinName: string;
  amount: number;
  addCoin: number;
  status: OrderStatus;
  createdAt: EpochMs;
  paidAt: EpochMs | null;
  cancelledAt: EpochMs | null;
  handledBy: number | null;
  /** Search column: the server's folding of coinName (db/search.ts). */
  coinNameKey: Generated<string>;
  /** The payment channel and method chosen (null: an offline order an admin confirms). */
  channelId: Generated<number | null>;
  method: Generated<PayMethod | null>;
  /** The gateway's own number for the payment. */
  tradeNo: Generated<string | null>;
  /** An unpaid online order closes itself at this time. */
  expiresAt: Generated<EpochMs | null>;
  paidBy: Generated<'online' | 'manual' | null>;
  /** 1: the money arrived after the order had closed or been cancelled (credited all the same, flagged for the admin). */
  paidLate: Generated<number>;
  /** When the payment sweep asks this order's gateways next (null: never again). */
  nextCheckAt: Generated<EpochMs | null>;
  /** When a buyer's or admin's check last asked the gateways (重新查询 asks at most once every few seconds). */
  lastAskedAt: Generated<EpochMs | null>;
  /** 1 while a second payment for the order (another trade number) waits to be refunded. */
  needsRefund: Generated<number>;
  /** When the payment that credited the order was refunded (the order stays `paid`: its coins were taken back). */
  refundedAt: Generated<EpochMs | null>;
}

/** A channel and method an order was sent to (migration 0025): each stays valid for the order. */
export interface PaymentAttemptsTable {
  orderId: number;
  channelId: number;
  method: PayMethod;
  firstSentAt: EpochMs;
  lastSentAt: EpochMs;
}

/** A payment a gateway reported for an order: the one that credited it, or a second one to refund. */
export interface GatewayPaymentsTable {
  id: Generated<number>;
  orderId: number;
  channelId: number;
  tradeNo: string;
  /** Fen. */
  amount: number;
  /** 1: this payment credited the order; 0: a second payment (需退款). */
  credited: number;
  receivedAt: EpochMs;
  refundState: 'refunding' | 'refunded' | null;
  refundMode: 'gateway' | 'offline' | null;
  refundedAt: EpochMs | null;
  refundedBy: number | null;
}

export type PaymentEventKind =
  'created' | 'sent' | 'notify' | 'query' | 'credited' | 'closed' | 'cancelled' | 'refunded' | 'refund_failed';

/** One step of an order's payment, or a notification that named no order of ours (回调记录). */
export interface PaymentEventsTable {
  id: Generated<number>;
  at: EpochMs;
  kind: PaymentEventKind;
  orderId: number | null;
  /** The order number as the notification named it (also for one that matches no order). */
  orderNo: string | null;
  channelId: number | null;
  method: string | null;
  tradeNo: string | null;
  /** The money as the gateway wrote it ("9.90"). */
  money: string | null;
  verdict: string | null;
  /** The order's price in fen, beside a notification of another amount. */
  expectedAmount: number | null;
  /** What told of it: a notification, or who asked a gateway (the sweep, the buyer's 重新查询, an admin's 补单). */
  source: 'notify' | 'sweep' | 'check' | 'admin' | null;
  /** The notification's sender (its IP address). */
  sender: string | null;
  actorId: number | null;
  /** The gateway's own words (a refusal, an error), cut to 200 characters; never a key or a signature. */
  detail: string | null;
}

export type PayMethod = 'alipay' | 'wxpay' | 'qqpay';

export interface PaymentChannelsTable {
  id: Generated<number>;
  kind: 'epay' | 'sandbox';
  name: string;
  gateway: string;
  pid: string;
  keyCipher: string;
  /** Comma-separated PayMethod values. */
  methods: string;
  /** 0/1; null for the sandbox until an admin switches it (on only while PUBLIC_ORIGIN is localhost). */
  enabled: number | null;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

export interface PaymentSettingsTable {
  id: number;
  orderTimeoutMinutes: number;
  /** How long 回调记录 and the gateway queries are kept. */
  notifyRetentionDays: Generated<number>;
}

export interface SandboxPayTradesTable {
  tradeNo: string;
  channelId: number;
  outTradeNo: string;
  type: PayMethod;
  name: string;
  /** Yuan as the protocol writes it: "9.90". */
  money: string;
  notifyUrl: string;
  returnUrl: string;
  status: 'pending' | 'paid' | 'failed' | 'closed' | 'refunded';
  createdAt: EpochMs;
  paidAt: EpochMs | null;
}

export interface RedeemCodesTable {
  id: Generated<number>;
  code: string;
  batchId: string;
  coin: number;
  packageId: number | null;
  note: string;
  expiresAt: EpochMs;
  disabledAt: EpochMs | null;
  usedBy: number | null;
  usedAt: EpochMs | null;
  createdBy: number | null;
  createdAt: EpochMs;
}

export type BillingUnit = 'per_run' | 'per_day' | 'one_off';
export type ServiceState = 'draft' | 'active' | 'paused' | 'stopped';
export type RunState = 'due' | 'running' | 'succeeded' | 'failed' | 'refunded' | 'skipped';
export type SandboxMode = 'auto' | 'ok' | 'flaky' | 'transient' | 'permanent' | 'timeout';

export interface PlatformsTable {
  id: Generated<number>;
  kind: string;
  seedKind: string | null;
  name: string;
  nameKey: Generated<string>;
  description: string;
  price: number;
  billingUnit: BillingUnit;
  retryLimit: number;
  onShelf: number;
  sort: number;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

export interface ServicesTable {
  id: Generated<number>;
  userId: number;
  platformId: number;
  /** JSON, valid against the kind's settings schema. */
  settings: string;
  state: ServiceState;
  nextRunAt: EpochMs | null;
  succeeded: Generated<number>;
  failed: Generated<number>;
  lastRunState: RunState | null;
  lastRunAt: EpochMs | null;
  sandboxMode: Generated<SandboxMode>;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

export interface RunsTable {
  id: Generated<number>;
  serviceId: number;
  userId: number;
  platformId: number;
  trigger: 'schedule' | 'manual';
  /** Which of its settings' times a planned run is (签到, 签退); null for a manual run and runs planned before 0023. */
  slot: Generated<'checkIn' | 'checkOut' | 'course' | null>;
  scheduledAt: EpochMs;
  /** The scheduled time's calendar day in the site's time zone (yyyy-mm-dd): today's count, per-day billing. */
  day: string;
  state: RunState;
  attempts: Generated<number>;
  leaseOwner: string | null;
  leaseExpiresAt: EpochMs | null;
  /** When a due run may be claimed: its scheduled time, then the backoff after a transient failure. */
  nextAttemptAt: EpochMs;
  startedAt: EpochMs | null;
  finishedAt: EpochMs | null;
  result: Generated<string>;
  charged: Generated<number>;
  chargeReference: string | null;
  refundReference: string | null;
  /** The free-quota grant that paid this run (null: coins, or nothing to pay). */
  quotaGrantId: Generated<number | null>;
  createdAt: EpochMs;
}

export interface ServiceChargesTable {
  serviceId: number;
  period: string;
  runId: number | null;
  amount: number;
  reference: string;
  quotaGrantId: Generated<number | null>;
  createdAt: EpochMs;
}

export interface NoticesTable {
  id: Generated<number>;
  userId: number;
  kind: string;
  title: string;
  body: string;
  readAt: EpochMs | null;
  createdAt: EpochMs;
}

export type BatchKind = 'quota_grant' | 'broadcast' | 'platform_run' | 'platform_pause' | 'statements';
export type BatchState = 'queued' | 'running' | 'done' | 'cancelled' | 'failed';

export interface BatchesTable {
  id: Generated<number>;
  kind: BatchKind;
  title: string;
  params: string;
  state: BatchState;
  total: Generated<number>;
  done: Generated<number>;
  failed: Generated<number>;
  cursor: Generated<number>;
  result: Generated<string>;
  leaseOwner: string | null;
  leaseExpiresAt: EpochMs | null;
  createdBy: number;
  createdAt: EpochMs;
  startedAt: EpochMs | null;
  finishedAt: EpochMs | null;
}

export interface BatchItemsTable {
  batchId: number;
  seq: number;
  label: string;
  payload: Generated<string>;
  state: 'pending' | 'done' | 'failed';
  error: Generated<string>;
}

export interface BatchOutputTable {
  batchId: number;
  seq: number;
  line: string;
}

export interface SandboxAccountsTable {
  serviceId: number;
  received: Generated<number>;
  createdAt: EpochMs;
}

export interface SandboxCheckinsTable {
  id: Generated<number>;
  runId: number;
  serviceId: number;
  deliveries: Generated<number>;
  receivedAt: EpochMs;
}

/** One finished site day's dashboard figures in one time zone (migration 0014; modules/dashboard/rollups.ts). */
export interface DashboardDayRollupsTable {
  timeZone: string;
  day: string;
  coinsIssued: number;
  coinsRemoved: number;
  coinsSpent: number;
  paidOrders: number;
  revenue: number;
  newUsers: number;
  createdAt: EpochMs;
}

export interface Database extends QuotaAiTables {
  users: UsersTable;
  policies: PoliciesTable;
  sessions: SessionsTable;
  userBrowsers: UserBrowsersTable;
  twoFactorKeys: TwoFactorKeysTable;
  recoveryCodes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  passkeyChallengesUsed: PasskeyChallengesUsedTable;
  loginChallengesUsed: LoginChallengesUsedTable;
  siteInformation: SiteInformationTable;
  emailCaptchas: EmailCaptchasTable;
  rateLimits: RateLimitsTable;
  auditLog: AuditLogTable;
  coinEntries: CoinEntriesTable;
  idempotencyKeys: IdempotencyKeysTable;
  mallPackages: MallPackagesTable;
  orders: OrdersTable;
  paymentChannels: PaymentChannelsTable;
  paymentSettings: PaymentSettingsTable;
  paymentAttempts: PaymentAttemptsTable;
  gatewayPayments: GatewayPaymentsTable;
  paymentEvents: PaymentEventsTable;
  sandboxPayTrades: SandboxPayTradesTable;
  redeemCodes: RedeemCodesTable;
  platforms: PlatformsTable;
  services: ServicesTable;
  runs: RunsTable;
  serviceCharges: ServiceChargesTable;
  notices: NoticesTable;
  sandboxAccounts: SandboxAccountsTable;
  sandboxCheckins: SandboxCheckinsTable;
  batches: BatchesTable;
  batchItems: BatchItemsTable;
  batchOutput: BatchOutputTable;
  dashboardDayRollups: DashboardDayRollupsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserPatch = Updateable<UsersTable>;
export type SiteInformationRow = Selectable<SiteInformationTable>;
export type SessionRow = Selectable<SessionsTable>;

/** An account's TOTP key, sealed; present from the start of enrolment (a new start replaces an unconfirmed one). */
export interface TwoFactorKeysTable {
  userId: number;
  sealedKey: string;
  /** The newest time step a code was accepted in: a code of that step or an older one is refused (no replay). */
  lastStep: number | null;
  createdAt: EpochMs;
}

/** A passkey (WebAuthn credential) of an account. */
export interface PasskeysTable {
  id: Generated<number>;
  userId: number;
  /** The credential id as the authenticator answers it (base64url). */
  credentialId: string;
  /** The credential's COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen; 0 for authenticators that do not count. */
  counter: number;
  /** The transports the browser reported at registration, comma-separated (hints for the next sign-in). */
  transports: string;
  /** 1 when the credential is synced (backed up) by its provider. */
  backedUp: number;
  name: string;
  createdAt: EpochMs;
  lastUsedAt: EpochMs | null;
}

/** A passkey challenge already answered (kept until it expires): a second answer to it is refused. */
export interface PasskeyChallengesUsedTable {
  challenge: string;
  expiresAt: EpochMs;
}

/** A two-factor login challenge that completed a sign-in (kept until it expires): it takes no second code. */
export interface LoginChallengesUsedTable {
  challenge: string;
  expiresAt: EpochMs;
}

/** One of an account's ten one-time recovery codes, as its keyed hash. */
export interface RecoveryCodesTable {
  userId: number;
  codeHash: string;
  usedAt: EpochMs | null;
}
