import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import { conflict, notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import type { SessionUser } from '../sessions/service.js';
import * as repo from './repo.js';

type Fields = Omit<Schemas['MallPackageUpdateRequest'], 'id'>;
const FIELD_KEYS = ['coinName', 'amount', 'addCoin', 'status', 'sort'] as const;

const NOT_FOUND = '套餐不存在';

export const toView = (r: repo.PackageRow): Schemas['MallPackage'] => ({
  id: r.id,
  coinName: r.coinName,
  amount: Number(r.amount),
  addCoin: Number(r.addCoin),
  status: r.status as 0 | 1,
  sort: Number(r.sort),
  orders: Number(r.orders ?? 0),
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

/** Only the fields the caller sent, so an update never resets what it did not mention. */
function pickFields(input: Fields): Fields {
  return Object.fromEntries(FIELD_KEYS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]));
}

async function requirePackage(app: AppContext, id: number): Promise<repo.PackageRow> {
  const row = await repo.findPackage(app.db, id);
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

/** What users may buy: on-shelf packages only. */
export async function list(app: AppContext): Promise<Schemas['MallPackage'][]> {
  return (await repo.listOnShelf(app.db)).map(toView);
}

export async function listPage(app: AppContext, query: repo.PackageListQuery): Promise<Page<Schemas['MallPackage']>> {
  return mapPage(await repo.listPackages(app.db, query), toView);
}

export async function get(app: AppContext, id: number): Promise<Schemas['MallPackage']> {
  return toView(await requirePackage(app, id));
}

export async function add(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['MallPackageAddRequest'],
): Promise<number> {
  const now = app.now();
  const row = {
    coinName: input.coinName,
    amount: input.amount,
    addCoin: input.addCoin,
    status: input.status ?? 1,
    sort: input.sort ?? 0,
  };
  return app.db.transaction().execute(async (trx) => {
    const id = await repo.insertPackage(trx, { ...row, createdAt: now, updatedAt: now });
    await writeAudit(
      trx,
      { actorId: actor.id, action: 'package.add', targetType: 'package', targetId: id, after: row },
      now,
    );
    return id;
  });
}

export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['MallPackageUpdateRequest'],
): Promise<void> {
  const before = await requirePackage(app, input.id);
  const fields = pickFields(input);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updatePackage(trx, input.id, { ...fields, updatedAt: now });
    const previous = Object.fromEntries(Object.keys(fields).map((k) => [k, toView(before)[k as keyof Fields]]));
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'package.update',
        targetType: 'package',
        targetId: input.id,
        before: previous,
        after: fields,
      },
      now,
    );
  });
}

/** On or off shelf: an off-shelf package is hidden from users; its orders are not affected. */
export async function shelf(app: AppContext, actor: SessionUser, input: Schemas['ShelfRequest']): Promise<void> {
  const before = await requirePackage(app, input.id);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updatePackage(trx, input.id, { status: input.status, updatedAt: now });
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'package.shelf',
        targetType: 'package',
        targetId: input.id,
        before: { status: before.status },
        after: { status: input.status },
      },
      now,
    );
  });
}

/** A foreign-key failure in either database: something (an order, a redeem code) came to refer to the row meanwhile. */
function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Deletes a package nothing refers to; one with orders (or redeem codes) can only go off shelf. */
export async function remove(app: AppContext, actor: SessionUser, id: number): Promise<void> {
  const before = await requirePackage(app, id);
  if (Number(before.orders) > 0) throw conflict('套餐已有订单，不能删除，只能下架');
  if ((await repo.countRedeemCodes(app.db, id)) > 0) throw conflict('套餐已有兑换码，不能删除，只能下架');
  const now = app.now();
  try {
    await app.db.transaction().execute(async (trx) => {
      await repo.deletePackage(trx, id);
      await writeAudit(
        trx,
        { actorId: actor.id, action: 'package.delete', targetType: 'package', targetId: id, before: toView(before) },
        now,
      );
    });
  } catch (error) {
    // An order placed between the check and the delete: the database refuses, and so do we.
    if (isForeignKeyViolation(error)) throw conflict('套餐已有订单，不能删除，只能下架');
    throw error;
  }
}
