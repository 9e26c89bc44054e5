import type { Handlers } from '../handler-types.js';
import * as coins from './service.js';

type CoinHandlers = Pick<
  Handlers,
  'userAddCoin' | 'userReduceCoin' | 'userTransferCoin' | 'coinEntries' | 'coinEntriesExport' | 'coinLedgerCheck'
>;

/** The contract requires the header on these operations, so it is always there by the time a handler runs. */
const keyOf = (ctx: { header(name: string): string | undefined }) => ctx.header('idempotency-key')!;

export const coinHandlers: CoinHandlers = {
  userAddCoin: (ctx) => coins.adminChange(ctx.app, ctx.actor, keyOf(ctx), ctx.body, 'add'),
  userReduceCoin: (ctx) => coins.adminChange(ctx.app, ctx.actor, keyOf(ctx), ctx.body, 'reduce'),
  userTransferCoin: (ctx) => coins.transfer(ctx.app, ctx.actor, keyOf(ctx), ctx.body),
  coinEntries: ({ app, actor, query }) => coins.statement(app, actor, query),
  coinEntriesExport: ({ app, actor, query }) => coins.statementCsv(app, actor, query.userId),
  coinLedgerCheck: ({ app }) => coins.check(app),
};
