import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CoinEntryKind } from '../../db/types.js';
import { badParams } from '../../lib/errors.js';

/**
 * The statement's keyset cursor: the id of the last entry shown, signed with the server's secret together with the
 * query it belongs to (whose statement, which kind). Opaque to clients: one that was altered, or taken from another
 * query, is refused instead of paging from somewhere unintended.
 */
export interface CursorScope {
  userId: number;
  kind?: CoinEntryKind | undefined;
}

const BAD_CURSOR = '翻页位置无效，请从第一页重新加载';

const signature = (secret: string, scope: CursorScope, id: number) =>
  createHmac('sha256', secret)
    .update(`coin-entries\n${scope.userId}\n${scope.kind ?? ''}\n${id}`)
    .digest()
    .subarray(0, 12);

export function encodeCursor(secret: string, scope: CursorScope, lastId: number): string {
  return `${lastId.toString(36)}.${signature(secret, scope, lastId).toString('base64url')}`;
}

/** The id the next page starts below; 400 / 40000 for anything this server did not hand out for this query. */
export function decodeCursor(secret: string, scope: CursorScope, cursor: string): number {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{16})$/.exec(cursor);
  if (!match) throw badParams(BAD_CURSOR);
  const id = parseInt(match[1]!, 36);
  const given = Buffer.from(match[2]!, 'base64url');
  if (!Number.isSafeInteger(id) || id < 1 || !timingSafeEqual(given, signature(secret, scope, id)))
    throw badParams(BAD_CURSOR);
  return id;
}
