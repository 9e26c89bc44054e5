import { sql, type RawBuilder } from 'kysely';

/**
 * The form text is compared in when searching: NFKC (full-width letters, ligatures and compatibility forms become
 * their plain letters) and full case folding (`ß` and `SS`, `ς` and `Σ`, `Ä` and `ä`, `İ` and `i̇` compare equal).
 * The server computes it for both sides, so SQLite (whose LOWER and LIKE fold ASCII only) and PostgreSQL (whose
 * LOWER depends on the database's collation) match exactly the same rows.
 */
export function foldForSearch(text: string): string {
  // Upper then lower case folds what lower case alone keeps apart (ß → SS → ss); final sigma is a context form;
  // the dotted capital İ folds to i plus a combining dot, which is dropped so that İzmir, IZMIR and izmir all meet.
  return text
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .replace(/i\u0307/g, 'i')
    .normalize('NFKC');
}

/**
 * The row with its search columns (`*_key`, written by the server beside the text they fold) filled from the fields
 * it carries; a field the row leaves out (a partial update) leaves its key alone.
 */
export function withSearchKeys<R extends object>(row: R, keys: Record<string, keyof R>): R {
  const out = { ...row } as Record<string, unknown>;
  for (const [key, field] of Object.entries(keys)) {
    const value = row[field];
    if (typeof value === 'string') out[key] = foldForSearch(value);
  }
  return out as R;
}

/** The LIKE pattern finding `text` anywhere in a search column (escaped; `\` is the escape character). */
export const containsPattern = (text: string) => `%${foldForSearch(text).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** `text` anywhere in a search column (one the server folded on write). */
export function keyContains(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} like ${containsPattern(text)} escape '\\'`;
}

/** `text` anywhere in an ASCII-only column (account names, order numbers), where LOWER folds all there is. */
export function asciiContains(column: string, text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}
