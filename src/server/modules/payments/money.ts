// The 易支付 protocol writes money as yuan with two decimals ("9.90"); the product keeps fen as integers. Both ways
// exactly, without floating point: a notify's money must equal the order's price to the fen.

/** 990 → "9.90". */
export const yuanOf = (fen: number): string => `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')}`;

/** "9.90" or "9.9" or "9" → 990; anything else (negative, three decimals, exponent, spaces) → null. */
export function fenOf(money: string): number | null {
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(money);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
