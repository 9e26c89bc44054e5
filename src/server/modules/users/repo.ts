import { sql } from 'kysely';
import { compiledOnce } from '../../db/compiled-once.js';
import { isPostgresDb, type Db } from '../../db/database.js';
import type { NewUser, UserPatch, UserRow } from '../../db/types.js';
import { direction, paginate, type Page, type PageQuery } from '../../db/paging.js';
import { asciiContains, containsPattern, foldForSearch, keyContains, withSearchKeys } from '../../db/search.js';

/** Account names compare without letter case (the unique index is on lower(user_account)). */
const sameAccount = (userAccount: string) =>
  sql<boolean>`lower(${sql.ref('users.userAccount')}) = ${userAccount.toLowerCase()}`;

/** Live users: deleted ones keep their rows (and their account names) but are invisible everywhere else. */
const live = (db: Db) => db.selectFrom('users').where('users.deletedAt', 'is', null);

export const findLiveById = (db: Db, id: number): Promise<UserRow | undefined> =>
  live(db).selectAll().where('id', '=', id).executeTakeFirst();

// Every transfer, order and admin change looks its user up by account: compiled once (db/compiled-once.ts).
const liveByAccount = compiledOnce(
  (db: Db, lowerAccount: string) =>
    live(db)
      .selectAll()
      .where(sql<boolean>`lower(${sql.ref('users.userAccount')}) = ${lowerAccount}`),
  ['<account>'] as const,
);

export const findLiveByAccount = async (db: Db, userAccount: string): Promise<UserRow | undefined> =>
  (await liveByAccount(db, userAccount.toLowerCase()))[0];

export const findLiveByInvitationCode = (db: Db, code: string): Promise<UserRow | undefined> =>
  live(db).selectAll().where('invitationCode', '=', code).executeTakeFirst();

export const findLiveByEmail = (db: Db, email: string): Promise<UserRow | undefined> =>
  live(db).selectAll().where('email', '=', email).executeTakeFirst();

export async function isClosed(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('closedAt').where('id', '=', id).executeTakeFirst();
  return row?.closedAt != null;
}

/** Any user, deleted or not, holding the account name (names are never reused). */
export async function accountTaken(db: Db, userAccount: string): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where(sameAccount(userAccount)).executeTakeFirst();
  return row !== undefined;
}

export async function countAdmins(db: Db): Promise<number> {
  const row = await live(db)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userRole', '=', 'admin')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const SEARCH_KEYS = { userNameKey: 'userName' } as const;

export async function insertUser(db: Db, user: NewUser): Promise<number> {
  const row = await db
    .insertInto('users')
    .values(withSearchKeys(user, SEARCH_KEYS))
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateUser(db: Db, id: number, patch: UserPatch): Promise<void> {
  await db.updateTable('users').set(withSearchKeys(patch, SEARCH_KEYS)).where('id', '=', id).execute();
}

export const USER_SORT_COLUMNS = {
  id: 'users.id',
  userAccount: 'users.userAccount',
  userName: 'users.userName',
  createdAt: 'users.createdAt',
  lastLoginAt: 'users.lastLoginAt',
} as const;

export interface UserListQuery extends PageQuery {
  id?: number;
  sortField?: keyof typeof USER_SORT_COLUMNS;
}

export type UserWithInviter = UserRow & { inviterAccount: string | null };

/**
 * On SQLite, the search as an FTS5 phrase over the trigram index of the same folded texts (migration 0012): it finds
 * the rows the LIKE below finds, through the index. A text shorter than a trigram cannot use it and takes the LIKE
 * (a scan of the users). PostgreSQL always takes the LIKE, which its pg_trgm indexes serve.
 */
function sqliteTrigramPhrase(db: Db, text: string): string | undefined {
  if (isPostgresDb(db)) return undefined;
  const folded = foldForSearch(text);
  // Code points, as the trigram tokenizer counts characters.
  return Array.from(folded).length >= 3 ? `"${folded.replaceAll('"', '""')}"` : undefined;
}

/** The live users a list query matches (its filters and search), before selection, order and paging. */
/** On PostgreSQL in the form its trigram index on accounts is built on (migration 0012 says why). */
function accountContains(db: Db, text: string) {
  if (!isPostgresDb(db)) return asciiContains('users.userAccount', text);
  return sql<boolean>`(lower(${sql.ref('users.userAccount')}) || '') like ${containsPattern(text)} escape '\\'`;
}

/** Lists show live users and closed ones (masked, for the admin's and the agent's record), never deleted ones. */
const listed = (db: Db) =>
  db
    .selectFrom('users')
    .where((eb) => eb.or([eb('users.deletedAt', 'is', null), eb('users.closedAt', 'is not', null)]));

export function userListQuery(db: Db, query: UserListQuery, inviterId?: number) {
  let q = listed(db).leftJoin('users as inviter', 'inviter.id', 'users.inviterId');
  if (query.id !== undefined) q = q.where('users.id', '=', query.id);
  if (inviterId !== undefined) q = q.where('users.inviterId', '=', inviterId);
  if (query.searchText) {
    const text = query.searchText;
    const trigrams = sqliteTrigramPhrase(db, text);
    q = trigrams
      ? q.where('users.id', 'in', sql<number>`(select rowid from users_search where users_search match ${trigrams})`)
      : q.where((eb) => eb.or([accountContains(db, text), keyContains('users.userNameKey', text)]));
  }
  return q;
}

/** One page of users, newest first unless a whitelisted sort says otherwise; `total` counts the whole match. */
export async function listUsers(
  db: Db,
  query: UserListQuery,
  options: { inviterId?: number; withTotal: boolean },
): Promise<Page<UserWithInviter>> {
  const column = USER_SORT_COLUMNS[query.sortField ?? 'id'];
  // Newest first when nothing is asked; a sortOrder alone applies to the default field (id).
  const order = query.sortOrder ? direction(query.sortOrder) : query.sortField ? 'asc' : 'desc';
  return paginate(
    query,
    (limit, offset) =>
      userListQuery(db, query, options.inviterId)
        .selectAll('users')
        .select('inviter.userAccount as inviterAccount')
        // NULLs (a user who never logged in) go last in either direction; SQLite and PostgreSQL disagree otherwise.
        .orderBy(column, (ob) => (order === 'asc' ? ob.asc() : ob.desc()).nullsLast())
        .orderBy('users.id', order)
        .limit(limit)
        .offset(offset)
        .execute(),
    options.withTotal ? () => userListQuery(db, query, options.inviterId) : undefined,
  );
}

/** Ends the cooling-off (the user signed in): answers whether it was running. */
export async function clearClosing(db: Db, userId: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ closingAt: null, updatedAt: now })
    .where('id', '=', userId)
    .where('closingAt', 'is not', null)
    .where('closedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The address bound to the account, or null (also for a closed or unknown account). */
export async function emailOf(db: Db, id: number): Promise<string | null> {
  const user = await db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirst();
  return user?.email ?? null;
}
