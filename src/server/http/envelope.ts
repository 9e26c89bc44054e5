// The answer every /api operation sends: `{code, message, data}`, code 0 for success (PRODUCT.md).

export interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

export const ok = <T>(data: T): Envelope<T> => ({ code: 0, message: 'ok', data });
export const failure = (code: number, message: string): Envelope<null> => ({ code, message, data: null });
