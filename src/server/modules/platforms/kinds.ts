import { PLATFORM_KINDS, type PlatformKind } from '../../../api/generated/platform-kinds.gen.js';
import { badParams, notFound } from '../../lib/errors.js';

/** The kinds declared in screens.config.ts (through codegen): the only values a platform's `kind` may take. */
const byCode = new Map(PLATFORM_KINDS.map((k) => [k.code, k]));

export const allKinds = (): readonly PlatformKind[] => PLATFORM_KINDS;

export function kindOf(code: string): PlatformKind | undefined {
  return byCode.get(code);
}

/** For input naming a kind (adding a platform): an unknown code is the caller's mistake. */
export function requireKind(code: string): PlatformKind {
  const kind = byCode.get(code);
  if (!kind) throw badParams('平台类型不存在');
  return kind;
}

/** For a page naming a kind in its address: an unknown code is a page that does not exist. */
export function findKindOr404(code: string): PlatformKind {
  const kind = byCode.get(code);
  if (!kind) throw notFound('平台不存在');
  return kind;
}
