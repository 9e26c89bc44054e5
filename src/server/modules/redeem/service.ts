import * as events from '../notices/events.js';
import { randomInt } from 'node:crypto';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import { badParams, conflict, notFound } from '../../lib/errors.js';
import { REDEEM_CSV_HEADER, redeemCsvRow } from '../../lib/csv-format.js';
import type { CsvFile } from '../../lib/csv-file.js';
import { writeAudit } from '../../support/audit/repo.js';
import { idempotent, isKeyUsed } from '../coins/idempotency.js';
import { moveCoins } from '../coins/ledger.js';
import * as limits from '../../support/limits/service.js';
import type { SessionUser } from '../sessions/service.js';
import { readableBatchNo } from '../../support/security/tokens.js';
import { siteDay } from '../../lib/site-time.js';
import * as repo from './repo.js';

const HOUR = 60 * 60 * 1000;
/** 9999-12-31T23:59:59.999Z: later expiries are typing mistakes, and no date format can show them. */
const LATEST_EXPIRY = 253_402_300_799_999;

/** No 0/O, 1/I/L: codes are read aloud and typed on phones. 31 symbols, 12 of them: about 59 bits. */
const CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const CODE_LENGTH = 12;
const newCode = () =>
  Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(0, CODE_ALPHABET.length)]).join('');

/** Failed redemptions per user: codes cannot be guessed by trying them. */
const redeemFailuresByUser = (userId: number): limits.Lockout => ({
  bucket: `redeem-fail:user:${userId}`,
  max: 10,
  windowMs: HOUR,
  lockMs: HOUR,
  message: '兑换码错误次数过多，请一小时后再试',
});

const REFUSED_MESSAGE = '兑换码不存在、已使用、已停用或已过期';

type CodeRow = Awaited<ReturnType<typeof repo.batchCodes>>[number];

function statusOf(row: Pick<CodeRow, 'usedAt' | 'disabledAt' | 'expiresAt'>, now: number): repo.RedeemStatus {
  if (row.usedAt !== null) return 'used';
  if (row.disabledAt !== null) return 'disabled';
  if (Number(row.expiresAt) <= now) return 'expired';
  return 'unused';
}

const toView = (r: CodeRow, now: number): Schemas['RedeemCode'] => ({
  id: r.id,
  code: r.code,
  batchId: r.batchId,
  coin: Number(r.coin),
  packageId: r.packageId,
  note: r.note,
  status: statusOf(r, now),
  expiresAt: Number(r.expiresAt),
  usedByAccount: r.usedByAccount,
  usedAt: r.usedAt === null ? null : Number(r.usedAt),
  createdAt: Number(r.createdAt),
});

/** A batch of codes for a package's coins or a fixed amount; answered once per Idempotency-Key. */
export async function generate(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['RedeemGenerateRequest'],
): Promise<Schemas['RedeemBatch']> {
  return idempotent(app, { actorId: actor.id, key, operation: 'redeem_generate', request: input }, async (trx) => {
    if ((input.packageId === undefined) === (input.coin === undefined))
      throw badParams('请选择兑换套餐或填写积分，二选一');
    const now = app.now();
    if (input.expiresAt <= now) throw badParams('过期时间必须晚于现在');
    if (input.expiresAt > LATEST_EXPIRY) throw badParams('过期时间不正确');
    let coin = input.coin;
    let packageId: number | null = null;
    if (input.packageId !== undefined) {
      const pkg = await repo.findPackage(trx, input.packageId);
      if (!pkg) throw notFound('兑换套餐不存在');
      coin = Number(pkg.addCoin);
      packageId = pkg.id;
    }
    const batchId = readableBatchNo(siteDay(now, app.config.jobs.timeZone));
    const note = input.note ?? '';
    const codes: string[] = [];
    // A new code may already exist (about one in 10^17 per pair): the taken ones are drawn again.
    for (let round = 0; codes.length < input.count; round++) {
      if (round >= 5) throw new Error('could not draw unique redeem codes');
      const wanted = new Set<string>();
      while (wanted.size < input.count - codes.length) {
        const code = newCode();
        if (!codes.includes(code)) wanted.add(code);
      }
      const inserted = await repo.insertCodes(
        trx,
        [...wanted].map((code) => ({
          code,
          batchId,
          coin: coin!,
          packageId,
          note,
          expiresAt: input.expiresAt,
          createdBy: actor.id,
          createdAt: now,
        })),
      );
      codes.push(...[...wanted].filter((c) => inserted.has(c)));
    }
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'redeem.generate',
        targetType: 'redeem',
        targetId: batchId,
        after: { count: input.count, coin, packageId, expiresAt: input.expiresAt, note },
      },
      now,
    );
    return { batchId, coin: coin!, expiresAt: input.expiresAt, codes };
  });
}

export async function listPage(app: AppContext, query: Schemas['RedeemQuery']): Promise<Page<Schemas['RedeemCode']>> {
  const now = app.now();
  return mapPage(await repo.listCodes(app.db, query, now), (r) => toView(r, now));
}

/** A batch as CSV, in the order the codes were generated. */
export async function exportBatch(app: AppContext, batchId: string): Promise<CsvFile> {
  const now = app.now();
  const rows = await repo.batchCodes(app.db, batchId);
  if (rows.length === 0) throw notFound('批次不存在');
  return {
    filename: `redeem-${batchId}.csv`,
    rows: [[...REDEEM_CSV_HEADER], ...rows.map((r) => redeemCsvRow(toView(r, now), app.config.jobs.timeZone))],
  };
}

/** Only an unused code can be disabled; a used, disabled or expired one is a conflict. */
export async function disable(app: AppContext, actor: SessionUser, id: number): Promise<void> {
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    if (!(await repo.disableUsable(trx, id, now))) {
      const row = await repo.findById(trx, id);
      if (!row) throw notFound('兑换码不存在');
      const status = statusOf(row, now);
      throw conflict(
        status === 'used'
          ? '兑换码已被使用，不能停用'
          : status === 'disabled'
            ? '兑换码已停用'
            : '兑换码已过期，不能停用',
      );
    }
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'redeem.disable',
        targetType: 'redeem',
        targetId: id,
        before: { status: 'unused' },
        after: { status: 'disabled' },
      },
      now,
    );
  });
}

/**
 * Redeems a code for the caller: the claim and the credit commit together, once per Idempotency-Key. Failed tries
 * count against the caller (10 an hour, then 429), so codes cannot be found by guessing; each attempt counts from its
 * start, so guesses sent all at once cannot pass the limit either.
 */
export async function use(
  app: AppContext,
  actor: SessionUser,
  key: string,
  input: Schemas['RedeemUseRequest'],
): Promise<Schemas['CoinBalance']> {
  const code = input.code.toUpperCase();
  const refused = badParams(REFUSED_MESSAGE);
  const redeem = () =>
    idempotent(app, { actorId: actor.id, key, operation: 'redeem', request: { code } }, async (trx) => {
      const now = app.now();
      const claimed = await repo.claim(trx, code, actor.id, now);
      if (!claimed) throw refused;
      const balances = await moveCoins(trx, {
        postings: [
          {
            userId: actor.id,
            amount: Number(claimed.coin),
            kind: 'redeem',
            description: `兑换码 ${claimed.code.slice(0, 4)}…`,
          },
        ],
        reference: `${claimed.batchId}-${claimed.id}`,
        actorId: actor.id,
        now,
        metrics: app.metrics,
      });
      await events.redeemUsed(trx, { userId: actor.id, coin: Number(claimed.coin) }, now);
      return { userId: actor.id, userAccount: actor.userAccount, coin: balances.get(actor.id)! };
    });
  // A retry of a finished redemption only reads its first answer: it is no guess, and a locked caller still gets it.
  if (await isKeyUsed(app.db, actor.id, key)) return redeem();
  const attempt = await limits.beginAttempt(app.db, redeemFailuresByUser(actor.id), app.now());
  let result: Schemas['CoinBalance'];
  try {
    result = await redeem();
  } catch (error) {
    if (error === refused) await limits.failAttempt(app.db, attempt, app.now());
    else await limits.cancelAttempt(app.db, attempt);
    throw error;
  }
  await limits.cancelAttempt(app.db, attempt);
  return result;
}
