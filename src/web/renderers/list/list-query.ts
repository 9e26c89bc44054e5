import type { ListScreen } from '../../config/types';

/** List state lives in the URL (search, sort, page size, pages loaded), so a reload or a shared link keeps it. */
export interface ListQuery {
  searchText?: string;
  sortField?: string;
  sortOrder?: 'ascend' | 'descend';
  pageSize: number;
  /** Pages loaded so far (infinite scroll); reloading the URL loads them again. */
  current: number;
  /** The screen's URL filters that are set, as given. */
  filters: Record<string, string>;
}

export const DEFAULT_PAGE_SIZE = 20;

export function readListQuery(
  params: URLSearchParams,
  screen: Pick<ListScreen, 'sortFields' | 'urlFilters' | 'search' | 'chips' | 'switches'>,
): ListQuery {
  const pageSize = Number(params.get('pageSize'));
  const current = Number(params.get('current'));
  const sortField = params.get('sortField') ?? undefined;
  const sortOrder = params.get('sortOrder');
  return {
    searchText: screen.search ? params.get('searchText') || undefined : undefined,
    sortField: sortField && screen.sortFields?.some((s) => s.field === sortField) ? sortField : undefined,
    sortOrder: sortOrder === 'ascend' || sortOrder === 'descend' ? sortOrder : undefined,
    pageSize: Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 100 ? pageSize : DEFAULT_PAGE_SIZE,
    current: Number.isInteger(current) && current >= 1 && current <= 50 ? current : 1,
    filters: Object.fromEntries([
      ...[...(screen.urlFilters ?? []), ...(screen.chips ?? []).map((c) => c.field)].flatMap(
        (name): [string, string][] => (params.get(name) ? [[name, params.get(name)!]] : []),
      ),
      // A switch is on with `true` alone: any other value in a link leaves it off.
      ...(screen.switches ?? []).flatMap(({ field }): [string, string][] =>
        params.get(field) === 'true' ? [[field, 'true']] : [],
      ),
    ]),
  };
}

/** The URL parameters for a query, leaving out defaults so links stay short. */
export function writeListQuery(query: ListQuery): URLSearchParams {
  const params = new URLSearchParams(query.filters);
  if (query.searchText) params.set('searchText', query.searchText);
  if (query.sortField) params.set('sortField', query.sortField);
  if (query.sortField && query.sortOrder) params.set('sortOrder', query.sortOrder);
  if (query.pageSize !== DEFAULT_PAGE_SIZE) params.set('pageSize', String(query.pageSize));
  if (query.current > 1) params.set('current', String(query.current));
  return params;
}

/** A URL filter's value as the operation takes it: digits (an id) as a number, `true`/`false` as booleans. */
export const filterValue = (v: string): string | number | boolean =>
  /^\d{1,9}$/.test(v) ? Number(v) : v === 'true' ? true : v === 'false' ? false : v;

/** What the operation receives for one page (URL filters as filterValue reads them). */
export function pageArgs(query: ListQuery, current: number): Record<string, unknown> {
  const filters = Object.fromEntries(Object.entries(query.filters).map(([k, v]) => [k, filterValue(v)]));
  return {
    ...filters,
    current,
    pageSize: query.pageSize,
    ...(query.searchText ? { searchText: query.searchText } : {}),
    ...(query.sortField ? { sortField: query.sortField, sortOrder: query.sortOrder ?? 'descend' } : {}),
  };
}
