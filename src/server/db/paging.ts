import { sql, type RawBuilder } from 'kysely';

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

export function pageWindow(query: PageQuery): { current: number; pageSize: number; offset: number } {
  const current = query.current ?? 1;
  const pageSize = query.pageSize ?? 10;
  return { current, pageSize, offset: (current - 1) * pageSize };
}

export const direction = (order: PageQuery['sortOrder']) => (order === 'descend' ? 'desc' : 'asc');

/** A LIKE pattern that matches `text` literally anywhere, case-insensitively, in SQLite and PostgreSQL alike. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export function ilike(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}
