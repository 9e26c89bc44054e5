import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { mapPage, type Page } from '../../db/paging.js';
import { notFound } from '../../lib/errors.js';
import { writeAudit } from '../../support/audit/repo.js';
import type { SessionUser } from '../sessions/service.js';
import { onShelfChanged } from '../services/shelving.js';
import { allKinds, kindOf, requireKind } from './kinds.js';
import * as repo from './repo.js';

type EditableFields = Omit<Schemas['PlatformUpdateRequest'], 'id'>;
const FIELD_KEYS = ['name', 'description', 'price', 'billingUnit', 'retryLimit', 'status', 'sort'] as const;

export const toView = (r: repo.PlatformRow): Schemas['Platform'] => {
  const kind = kindOf(r.kind);
  return {
    id: r.id,
    kind: r.kind,
    kindTitle: kind?.title ?? r.kind,
    settingsSchema: kind?.settings ?? '',
    name: r.name,
    description: r.description,
    price: Number(r.price),
    billingUnit: r.billingUnit,
    retryLimit: Number(r.retryLimit),
    status: Number(r.onShelf) as 0 | 1,
    sort: Number(r.sort),
    services: Number(r.services ?? 0),
    activeServices: Number(r.activeServices ?? 0),
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
};

/** API fields to columns: `status` is the on-shelf flag, as for mall packages. */
function columns(fields: EditableFields) {
  const picked = Object.fromEntries(
    FIELD_KEYS.filter((k) => fields[k] !== undefined).map((k) => [k, fields[k]]),
  ) as EditableFields;
  const { status, ...rest } = picked;
  return { ...rest, ...(status !== undefined ? { onShelf: status } : {}) };
}

export async function requirePlatform(app: AppContext, id: number): Promise<repo.PlatformRow> {
  const row = await repo.findPlatform(app.db, id);
  if (!row) throw notFound('平台不存在');
  return row;
}

export const kinds = (): Schemas['PlatformKind'][] => allKinds().map((k) => ({ ...k }));

export async function list(app: AppContext): Promise<Schemas['Platform'][]> {
  return (await repo.listOnShelf(app.db)).map(toView);
}

export async function listPage(app: AppContext, query: repo.PlatformListQuery): Promise<Page<Schemas['Platform']>> {
  return mapPage(await repo.listPlatforms(app.db, query), toView);
}

export async function get(app: AppContext, id: number): Promise<Schemas['Platform']> {
  return toView(await requirePlatform(app, id));
}

export async function add(app: AppContext, actor: SessionUser, input: Schemas['PlatformAddRequest']): Promise<number> {
  requireKind(input.kind);
  const now = app.now();
  const row = {
    kind: input.kind,
    name: input.name,
    description: input.description ?? '',
    price: input.price,
    billingUnit: input.billingUnit,
    retryLimit: input.retryLimit ?? 3,
    onShelf: input.status ?? 0,
    sort: input.sort ?? 0,
  };
  return app.db.transaction().execute(async (trx) => {
    const id = await repo.insertPlatform(trx, { ...row, createdAt: now, updatedAt: now });
    await writeAudit(
      trx,
      { actorId: actor.id, action: 'platform.add', targetType: 'platform', targetId: id, after: row },
      now,
    );
    return id;
  });
}

export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PlatformUpdateRequest'],
): Promise<void> {
  const before = toView(await requirePlatform(app, input.id));
  const { id, ...fields } = input;
  const patch = columns(fields);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updatePlatform(trx, id, { ...patch, updatedAt: now });
    if (patch.onShelf !== undefined)
      await onShelfChanged(trx, {
        platformId: id,
        wasOnShelf: before.status === 1,
        onShelf: patch.onShelf === 1,
        now,
        timeZone: app.config.jobs.timeZone,
      });
    const previous = Object.fromEntries(Object.keys(fields).map((k) => [k, before[k as keyof EditableFields]]));
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'platform.update',
        targetType: 'platform',
        targetId: id,
        before: previous,
        after: fields,
      },
      now,
    );
  });
}

/**
 * On or off shelf (never deleted): off shelf, no new runs are planned, runs not started are skipped and users see
 * '该平台暂未开放'; back on shelf, planning resumes from now (services/shelving.ts).
 */
export async function shelf(app: AppContext, actor: SessionUser, input: Schemas['ShelfRequest']): Promise<void> {
  const before = await requirePlatform(app, input.id);
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    await repo.updatePlatform(trx, input.id, { onShelf: input.status, updatedAt: now });
    await onShelfChanged(trx, {
      platformId: input.id,
      wasOnShelf: Number(before.onShelf) === 1,
      onShelf: input.status === 1,
      now,
      timeZone: app.config.jobs.timeZone,
    });
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'platform.shelf',
        targetType: 'platform',
        targetId: input.id,
        before: { status: Number(before.onShelf) },
        after: { status: input.status },
      },
      now,
    );
  });
}

/** First start (and a start after a kind is added): one record per declared kind, off shelf, so an admin prices it first. */
export async function seedKinds(app: AppContext): Promise<void> {
  const seeded = await repo.seededKinds(app.db);
  const now = app.now();
  for (const kind of allKinds()) {
    if (seeded.has(kind.code)) continue;
    await repo.seedPlatform(app.db, {
      kind: kind.code,
      seedKind: kind.code,
      name: kind.title,
      description: '',
      price: 0,
      billingUnit: 'per_run',
      retryLimit: 3,
      onShelf: 0,
      sort: 0,
      createdAt: now,
      updatedAt: now,
    });
  }
}
