import { randomBytes } from 'node:crypto';
import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import type { PayMethod } from '../../db/types.js';
import { mapPage, type Page, type PageQuery } from '../../db/paging.js';
import { badParams, notFound } from '../../lib/errors.js';
import { isLocalOrigin } from '../../lib/public-origin.js';
import { writeAudit } from '../../support/audit/repo.js';
import type { SessionUser } from '../sessions/service.js';
import type { OpenChannel } from './connectors/index.js';
import { keySafeAt } from './connectors/epay.js';
import { cashierUrl } from './connectors/sandbox.js';
import { countNeedingRefund } from '../orders/repo.js';
import * as repo from './repo.js';
import * as secret from './secret.js';

// Payment channels as the admin sets them up (支付设置) and as the mall offers them. The sandbox channel is made at
// the first start; it is on by default only while PUBLIC_ORIGIN is localhost (its `enabled` stays null until an admin
// switches it), because the coins it credits are real coins.

export const SANDBOX_NAME = '沙箱支付（测试用）';
/** How a payer reads the sandbox where a channel must be named: its cashier is 模拟收银台. */
const SANDBOX_LABEL = '模拟';
export const METHOD_LABELS: Record<PayMethod, string> = { alipay: '支付宝', wxpay: '微信支付', qqpay: 'QQ 钱包' };
const METHOD_ORDER: PayMethod[] = ['alipay', 'wxpay', 'qqpay'];

const methodsOf = (row: repo.ChannelRow): PayMethod[] => METHOD_ORDER.filter((m) => row.methods.split(',').includes(m));
const methodsText = (methods: readonly PayMethod[]) => METHOD_ORDER.filter((m) => methods.includes(m)).join(',');

/** Whether a channel takes payments now: the sandbox follows PUBLIC_ORIGIN until an admin switches it. */
export const isOn = (app: AppContext, row: repo.ChannelRow): boolean =>
  row.enabled === null ? row.kind === 'sandbox' && isLocalOrigin(app.config.publicOrigin) : row.enabled === 1;

/** Where gateways send notifications and payers come back: fixed by PUBLIC_ORIGIN. */
export const notifyUrl = (app: AppContext) => new URL('/api/pay/notify', app.config.publicOrigin.origin).toString();
export const returnUrl = (app: AppContext) => new URL('/pay_result', app.config.publicOrigin.origin).toString();

/** Adds the sandbox channel once (at start), with a random key of its own. */
export async function ensureSandboxChannel(app: AppContext): Promise<void> {
  if (await repo.findSandboxChannel(app.db)) return;
  const now = app.now();
  await repo.insertChannel(app.db, {
    kind: 'sandbox',
    name: SANDBOX_NAME,
    gateway: '/cashier',
    pid: 'sandbox',
    keyCipher: secret.seal(app.config.sessionSecret, randomBytes(24).toString('base64url')),
    methods: METHOD_ORDER.join(','),
    enabled: null,
    createdAt: now,
    updatedAt: now,
  });
}

/** A channel with its key unsealed, for signing and checking; undefined when missing or its key cannot be read. */
export async function openChannel(
  app: AppContext,
  id: number,
): Promise<(OpenChannel & { row: repo.ChannelRow }) | undefined> {
  const row = await repo.findChannel(app.db, id);
  if (!row) return undefined;
  const key = secret.open(app.config.sessionSecret, row.keyCipher);
  if (key === null) {
    app.log.error({ channelId: id }, 'payment channel key cannot be opened (SESSION_SECRET changed?): enter it again');
    return undefined;
  }
  return { id: row.id, kind: row.kind, gateway: row.gateway, pid: row.pid, key, row };
}

const toView = (app: AppContext, row: repo.ChannelRow, orders: number): Schemas['PayChannel'] => ({
  id: row.id,
  kind: row.kind,
  name: row.name,
  gateway: row.kind === 'sandbox' ? cashierUrl(app.config.publicOrigin.origin).toString() : row.gateway,
  pid: row.pid,
  methods: methodsOf(row),
  enabled: isOn(app, row) ? 1 : 0,
  // False when the stored key cannot be opened (SESSION_SECRET changed): the admin enters it again.
  keySet: secret.open(app.config.sessionSecret, row.keyCipher) !== null,
  orders,
  notifyUrl: notifyUrl(app),
  returnUrl: returnUrl(app),
  updatedAt: Number(row.updatedAt),
});

export async function listPage(app: AppContext, query: PageQuery): Promise<Page<Schemas['PayChannel']>> {
  const page = await repo.channelPage(app.db, query);
  const counts = await repo.orderCounts(
    app.db,
    page.records.map((r) => r.id),
  );
  return mapPage(page, (row) => toView(app, row, counts.get(row.id) ?? 0));
}

export async function get(app: AppContext, id: number): Promise<Schemas['PayChannel']> {
  const row = await repo.findChannel(app.db, id);
  if (!row) throw notFound('支付渠道不存在');
  return toView(app, row, (await repo.orderCounts(app.db, [id])).get(id) ?? 0);
}

/** The methods of every channel that is on, for the mall; no channel names (the payer never reads 沙箱). */
export async function methods(app: AppContext): Promise<Schemas['PayMethods']> {
  // A channel whose key cannot be opened (SESSION_SECRET changed) cannot sign a payment: not offered until re-entered.
  const on = (await repo.allChannels(app.db)).filter(
    (row) => isOn(app, row) && secret.open(app.config.sessionSecret, row.keyCipher) !== null,
  );
  const offered = on.flatMap((row) => methodsOf(row).map((method) => ({ row, method })));
  // Two channels offering one method are told apart by the channel (the sandbox as 模拟: a payer never reads 沙箱).
  const twice = (method: PayMethod) => offered.filter((o) => o.method === method).length > 1;
  return {
    orderTimeoutMinutes: await repo.orderTimeoutMinutes(app.db),
    methods: offered.map(({ row, method }) => ({
      channelId: row.id,
      method,
      label: twice(method)
        ? `${METHOD_LABELS[method]}（${row.kind === 'sandbox' ? SANDBOX_LABEL : row.name}）`
        : METHOD_LABELS[method],
    })),
  };
}

/** The merchant key rides in every query and refund: a gateway must be https (or this machine, for a local one). */
function refuseInsecure(gateway: string | undefined): void {
  if (gateway && !keySafeAt(gateway))
    throw badParams(
      '网关地址必须以 https:// 开头：查单和退款要带上商户密钥，http 会让密钥以明文经过网络（只有本机地址可以用 http）',
    );
}

export async function add(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PayChannelAddRequest'],
): Promise<number> {
  refuseInsecure(input.gateway);
  const now = app.now();
  return app.db.transaction().execute(async (trx) => {
    const id = await repo.insertChannel(trx, {
      kind: 'epay',
      name: (input.name ?? '').trim(),
      gateway: input.gateway ?? '',
      pid: input.pid ?? '',
      keyCipher: secret.seal(app.config.sessionSecret, input.key),
      methods: methodsText(input.methods ?? []),
      enabled: input.enabled,
      createdAt: now,
      updatedAt: now,
    });
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'payChannel.add',
        targetType: 'payment',
        targetId: id,
        after: {
          name: input.name,
          gateway: input.gateway,
          pid: input.pid,
          methods: input.methods,
          enabled: input.enabled,
        },
      },
      now,
    );
    return id;
  });
}

/**
 * Saves a channel. The sandbox keeps its name, address, merchant id and key (only its methods and switch change);
 * switching it on while PUBLIC_ORIGIN is not localhost needs `confirmPublic` (the screen asks first).
 */
export async function update(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PayChannelUpdateRequest'],
): Promise<true> {
  const row = await repo.findChannel(app.db, input.id);
  if (!row) throw notFound('支付渠道不存在');
  const sandbox = row.kind === 'sandbox';
  // Asked when it is being switched on at a public address; saving its methods while it stays on asks nothing again.
  const switchingOn = input.enabled === 1 && !isOn(app, row);
  if (sandbox && switchingOn && !isLocalOrigin(app.config.publicOrigin) && input.confirmPublic !== true)
    throw badParams(
      `站点地址是 ${app.config.publicOrigin.origin}，不是本机地址：沙箱支付不收真实的钱却会发放真实积分。确认只用于测试后再开启。`,
    );
  if (!sandbox && (!input.name?.trim() || !input.gateway || !input.pid))
    throw badParams('请填写名称、网关地址和商户号');
  if (!sandbox) refuseInsecure(input.gateway);
  const now = app.now();
  const patch = sandbox
    ? { methods: methodsText(input.methods ?? []), enabled: input.enabled, updatedAt: now }
    : {
        name: input.name!.trim(),
        gateway: input.gateway!,
        pid: input.pid!,
        methods: methodsText(input.methods ?? []),
        enabled: input.enabled,
        updatedAt: now,
        ...(input.key ? { keyCipher: secret.seal(app.config.sessionSecret, input.key) } : {}),
      };
  await app.db.transaction().execute(async (trx) => {
    await repo.updateChannel(trx, row.id, patch);
    await writeAudit(
      trx,
      {
        actorId: actor.id,
        action: 'payChannel.update',
        targetType: 'payment',
        targetId: row.id,
        before: { name: row.name, gateway: row.gateway, pid: row.pid, methods: row.methods, enabled: row.enabled },
        after: { ...patch, keyCipher: undefined, keyChanged: Boolean(input.key) && !sandbox },
      },
      now,
    );
  });
  return true;
}

export async function settings(app: AppContext): Promise<Schemas['PaymentSetup']> {
  const sandbox = await repo.findSandboxChannel(app.db);
  return {
    orderTimeoutMinutes: await repo.orderTimeoutMinutes(app.db),
    notifyRetentionDays: await repo.notifyRetentionDays(app.db),
    ordersNeedingRefund: await countNeedingRefund(app.db),
    sandboxOnPublicOrigin: !isLocalOrigin(app.config.publicOrigin) && sandbox !== undefined && isOn(app, sandbox),
    publicOrigin: app.config.publicOrigin.origin,
  };
}

export async function updateSettings(
  app: AppContext,
  actor: SessionUser,
  input: Schemas['PaySettingsUpdateRequest'],
): Promise<true> {
  const now = app.now();
  await app.db.transaction().execute(async (trx) => {
    const before = {
      orderTimeoutMinutes: await repo.orderTimeoutMinutes(trx),
      notifyRetentionDays: await repo.notifyRetentionDays(trx),
    };
    const after = { orderTimeoutMinutes: input.orderTimeoutMinutes, notifyRetentionDays: input.notifyRetentionDays };
    await repo.setPaymentSettings(trx, after);
    await writeAudit(
      trx,
      { actorId: actor.id, action: 'paySettings.update', targetType: 'payment', targetId: 1, before, after },
      now,
    );
  });
  return true;
}
