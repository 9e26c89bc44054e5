import { sql, type SelectQueryBuilder } from 'kysely';

export interface PageQuery {
  current?: number;
  pageSize?: number;
  sortOrder?: 'ascend' | 'descend';
  searchText?: string;
}

export interface Page<T> {
  records: T[];
  total: number;
  current: number;
  pageSize: number;
}

export const direction = (order: PageQuery['sortOrder']) => (order === 'descend' ? 'desc' : 'asc');

/**
 * One page of a list, the one way every list pages: `rows` reads the page's rows (ordered, limited, offset) and
 * `matching` is the filtered query they come from, counted for `total`. Without `matching` (a list that shows no
 * total, or an export reading page by page) nothing is counted and `total` is the page's length.
 */
export async function paginate<R>(
  query: Pick<PageQuery, 'current' | 'pageSize'>,
  rows: (limit: number, offset: number) => Promise<R[]>,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tables and selection: the query is only counted
  matching?: () => SelectQueryBuilder<any, any, any>,
): Promise<Page<R>> {
  const current = query.current ?? 1;
  const pageSize = query.pageSize ?? 10;
  const records = await rows(pageSize, (current - 1) * pageSize);
  if (!matching) return { records, total: records.length, current, pageSize };
  const count = await matching()
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return { records, total: Number((count as { n: unknown }).n), current, pageSize };
}

/** The same page with its rows turned into what the API answers. */
export const mapPage = <R, V>(page: Page<R>, view: (row: R) => V): Page<V> => ({
  ...page,
  records: page.records.map(view),
});
