import { createHash, timingSafeEqual } from 'node:crypto';

// The 易支付 signature: the parameters except sign and sign_type, without empty values, sorted by name (ASCII, as
// PHP's ksort), joined as a=1&b=2, then the merchant key appended, MD5 in lower-case hex. Gateways sign every
// parameter they send, including ones this product does not read, so all of them take part.

export type EpayParams = Record<string, string | undefined>;

export function epaySign(params: EpayParams, key: string): string {
  const text = Object.keys(params)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && params[name] !== undefined && params[name] !== '')
    .sort()
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

/** Whether `params.sign` is the signature of the rest under `key`, compared in constant time. */
export function epayVerify(params: EpayParams, key: string): boolean {
  const sign = params.sign;
  if (typeof sign !== 'string' || !/^[0-9a-fA-F]{32}$/.test(sign)) return false;
  if (params.sign_type !== undefined && params.sign_type.toUpperCase() !== 'MD5') return false;
  return timingSafeEqual(Buffer.from(epaySign(params, key)), Buffer.from(sign.toLowerCase()));
}

/** The parameters with their signature added, ready to send. */
export const signed = (params: Record<string, string>, key: string): Record<string, string> => ({
  ...params,
  sign: epaySign(params, key),
  sign_type: 'MD5',
});
