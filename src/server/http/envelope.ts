// The answer every /api operation sends: `{code, message, data}`, code 0 for success (PRODUCT.md).
import type { Schemas } from '../../api/operations.js';

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export const ok = <T>(data: T): Envelope<T> => ({ code: 0, message: 'ok', data });
/**
 * A failure: `message` is for the person; `detail`, when given, is for the developer only (never shown); `problems`,
 * when given, lists an uploaded file's bad lines one by one (shown as a list under the message).
 */
export const failure = (
  code: number,
  message: string,
  detail?: string,
  problems?: readonly Schemas['LineProblem'][],
): Envelope<null> & Pick<Schemas['ErrorEnvelope'], 'detail' | 'problems'> => ({
  code,
  message,
  data: null,
  ...(detail ? { detail } : {}),
  ...(problems?.length ? { problems: [...problems] } : {}),
});
