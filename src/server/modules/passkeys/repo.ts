import type { Db } from '../../db/database.js';
import { paginate, type PageQuery } from '../../db/paging.js';

export const MAX_PASSKEYS = 10;

export const listOfUser = (db: Db, userId: number, page: Pick<PageQuery, 'current' | 'pageSize'>) =>
  paginate(
    page,
    (limit, offset) =>
      db
        .selectFrom('passkeys')
        .select(['id', 'userId', 'name', 'backedUp', 'createdAt', 'lastUsedAt'])
        .where('userId', '=', userId)
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute(),
    () => db.selectFrom('passkeys').where('userId', '=', userId),
  );

/** The credential ids of the user's passkeys: the browser is told not to register one of them again. */
export const credentialsOfUser = (db: Db, userId: number) =>
  db.selectFrom('passkeys').select(['credentialId', 'transports']).where('userId', '=', userId).execute();

export async function countOfUser(db: Db, userId: number): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('userId', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const findByCredentialId = (db: Db, credentialId: string) =>
  db.selectFrom('passkeys').selectAll().where('credentialId', '=', credentialId).executeTakeFirst();

export interface NewPasskey {
  userId: number;
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string;
  backedUp: boolean;
  name: string;
  now: number;
}

/** Adds a passkey; false when the credential is already registered (to anyone): one credential, one account. */
export async function insert(db: Db, p: NewPasskey): Promise<number | null> {
  const row = await db
    .insertInto('passkeys')
    .values({
      userId: p.userId,
      credentialId: p.credentialId,
      publicKey: p.publicKey,
      counter: p.counter,
      transports: p.transports,
      backedUp: p.backedUp ? 1 : 0,
      name: p.name,
      createdAt: p.now,
      lastUsedAt: null,
    })
    .onConflict((oc) => oc.column('credentialId').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Removes one passkey of the user; answers what it was (for the audit and the notice), or undefined. */
export const remove = (db: Db, userId: number, id: number) =>
  db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('userId', '=', userId)
    .returning(['id', 'name', 'createdAt', 'lastUsedAt'])
    .executeTakeFirst();

export async function removeAllOfUser(db: Db, userId: number): Promise<number> {
  const result = await db.deleteFrom('passkeys').where('userId', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Records a sign-in's signature counter, only if it moved forward (or the authenticator does not count: 0 and 0): one
 * conditional update, so two sign-ins with the same counter cannot both pass. Answers whether it was recorded.
 */
export async function advanceCounter(db: Db, id: number, counter: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter, lastUsedAt: now })
    .where('id', '=', id)
    .where((eb) => (counter === 0 ? eb('counter', '=', 0) : eb('counter', '<', counter)))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
