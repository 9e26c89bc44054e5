import type { Schemas } from '../api/operations.js';

// The Chinese words for coded values that both the screens (src/web/i18n/zh-CN.ts) and the server's CSV exports
// (src/server/lib/csv-format.ts) show, kept once so a statement reads the same on the phone and in a spreadsheet.
// Typed by the contract's enums: a new kind without its word fails the type check.

export const coinKindWords: Readonly<Record<Schemas['CoinEntryKind'], string>> = {
  admin_add: '管理员加积分',
  admin_reduce: '管理员扣积分',
  transfer_out: '转出',
  transfer_in: '转入',
  order_credit: '购买套餐',
  redeem: '兑换码',
  service_charge: '服务扣费',
  service_refund: '服务退款',
  signup_bonus: '注册赠送',
  agent_rebate: '代理返利',
  order_refund: '订单退款',
  rebate_refund: '返利退回',
};

export const redeemStatusWords: Readonly<Record<Schemas['RedeemCode']['status'], string>> = {
  unused: '未使用',
  used: '已使用',
  disabled: '已停用',
  expired: '已过期',
};

/** The word for a code, or the code itself for one this build does not know (an older client, a newer server). */
export const wordFor = (words: Readonly<Record<string, string>>, code: string): string => words[code] ?? code;
