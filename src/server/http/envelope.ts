// The answer every /api operation sends: `{code, message, data}`, code 0 for success (PRODUCT.md).

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export const ok = <T>(data: T): Envelope<T> => ({ code: 0, message: 'ok', data });
/** A failure: `message` is for the person; `detail`, when given, is for the developer only (never shown). */
export const failure = (code: number, message: string, detail?: string): Envelope<null> & { detail?: string } => ({
  code,
  message,
  data: null,
  ...(detail ? { detail } : {}),
});
