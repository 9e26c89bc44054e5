import type { Schemas } from './src/api/operations';
import {
  choiceAction,
  composedScreen,
  detailScreen,
  formScreen,
  listScreen,
  type Choice,
  type FieldAction,
  type HomeAlert,
  type ListItem,
  type MenuEntryIcon,
  type MenuGroup,
  type RowAction,
  type Screen,
  type SettingsSchemaName,
  type SignedInRole,
  type Subject,
  type TagValue,
  type Tone,
} from './src/web/config/types';
import { signedInMessages as w } from './src/web/i18n/zh-CN-signed-in';

// The screen map: every route of the app, its title, notice text, frame, access and what renders it. The router,
// the frame, home's entries and my page's links are all built from this list; a screen is added here, not in code.

const SIGNED_IN: readonly SignedInRole[] = ['user', 'agent', 'admin'];
const ADMIN: readonly SignedInRole[] = ['admin'];
const AGENT: readonly SignedInRole[] = ['agent', 'admin'];

export type { SettingsSchemaName };

/**
 * A platform kind, declared once: the route segment, the title, and the name of its settings schema in openapi.yaml.
 * `npm run codegen` extracts these into src/api/generated/platform-kinds.gen.ts for the server (which never imports this file).
 */
export interface PlatformEntry {
  /** The route segment, e.g. `gxy` for /gxy and /gxy/update; also the kind stored on a platform record. */
  code: string;
  title: string;
  /** The settings form of the edit page and what the server validates a service's settings against. */
  settings: SettingsSchemaName;
  /** The entry's icon on home and my page (a generic app icon without it). */
  icon?: MenuEntryIcon;
}

const P = w.platform;
const SERVICE_TONES: Record<Schemas['ServiceState'], Tone> = {
  draft: 'default',
  active: 'success',
  paused: 'warning',
  stopped: 'danger',
};
const RUN_TONES: Record<Schemas['RunState'], Tone> = {
  due: 'primary',
  running: 'primary',
  succeeded: 'success',
  failed: 'danger',
  refunded: 'warning',
  skipped: 'default',
};
const serviceTag = (state: Schemas['ServiceState']): TagValue => ({
  text: P.serviceStates[state] ?? state,
  tone: SERVICE_TONES[state],
});
const runTag = (state: Schemas['RunState']): TagValue => ({
  text: P.runStates[state] ?? state,
  tone: RUN_TONES[state],
});
const priceOf = (p: Schemas['Platform']) => P.price(p.price, P.billingUnits[p.billingUnit] ?? p.billingUnit);
const ORDER_TONES: Record<Schemas['Order']['status'], Tone> = {
  pending: 'warning',
  paid: 'success',
  cancelled: 'default',
};
/** An order's state as a tag: a paid order whose payment was refunded reads 已退款. */
const orderTag = (o: Pick<Schemas['Order'], 'status' | 'refundedAt'>): TagValue =>
  o.status === 'paid' && o.refundedAt !== null
    ? { text: w.orders.refunded, tone: 'default' }
    : { text: w.orders.statuses[o.status] ?? o.status, tone: ORDER_TONES[o.status] };
const timeOrDash = (ms: number | null) => (ms === null ? '—' : w.format.dateTime(ms));

const PA = w.payAdmin;
const CHECK_TONES: Record<Schemas['ChannelCheckItem']['state'], Tone> = {
  ok: 'success',
  warn: 'warning',
  fail: 'danger',
  skipped: 'default',
};
type PayChannel = Schemas['PayChannel'];
const methodWords = (methods: readonly Schemas['PayMethod'][]) => methods.map((m) => w.pay.methods[m] ?? m).join('、');
/**
 * Whether a channel is the built-in sandbox at a public address (PUBLIC_ORIGIN not localhost, the server's rule in
 * lib/public-origin.ts): switching it on there needs the server's confirmPublic, sent only after the admin was asked.
 * The site's address is the one the channel's notify URL is built on.
 */
const sandboxInPublic = (c: PayChannel) => {
  const host = new URL(c.notifyUrl).hostname;
  return c.kind === 'sandbox' && host !== 'localhost' && !host.endsWith('.localhost');
};
const siteOf = (c: PayChannel) => new URL(c.notifyUrl).origin;
/** A channel saved as it is but for its switch (and, at a public address, the sandbox's confirmation once asked). */
const switchedTo = (c: PayChannel, enabled: 0 | 1): Schemas['PayChannelUpdateRequest'] =>
  c.kind === 'sandbox'
    ? { id: c.id, methods: c.methods, enabled, ...(enabled === 1 && sandboxInPublic(c) ? { confirmPublic: true } : {}) }
    : { id: c.id, name: c.name, gateway: c.gateway, pid: c.pid, methods: c.methods, enabled };
const channelActions: readonly RowAction<PayChannel>[] = [
  { label: PA.edit, color: 'primary', to: (c) => `/update_pay_channel?id=${c.id}` },
  {
    label: PA.enable,
    color: 'success',
    when: (c) => c.enabled === 0,
    confirm: (c) =>
      sandboxInPublic(c)
        ? PA.sandboxPublicAsk(siteOf(c))
        : c.kind === 'sandbox'
          ? PA.sandboxEnableAsk
          : PA.enableAsk(c.name, methodWords(c.methods)),
    confirmLabels: PA.enableLabels,
    done: PA.enabled,
    call: { operation: 'payChannelUpdate', args: (c) => ({ body: switchedTo(c, 1) }) },
  },
  {
    label: PA.disable,
    color: 'warning',
    when: (c) => c.enabled === 1,
    confirm: (c) => PA.disableAsk(c.name),
    confirmLabels: PA.disableLabels,
    done: PA.disabled,
    call: { operation: 'payChannelUpdate', args: (c) => ({ body: switchedTo(c, 0) }) },
  },
  { label: PA.selfCheck, to: (c) => `/pay_channel_check?id=${c.id}` },
  // What the gateway's merchant backend asks for; the sandbox is built in and needs neither.
  { label: PA.copyNotify, when: (c) => c.kind === 'epay', copy: (c) => c.notifyUrl },
  { label: PA.copyReturn, when: (c) => c.kind === 'epay', copy: (c) => c.returnUrl },
];
const channelItem: ListItem<PayChannel> = {
  title: (c) => c.name,
  description: (c) =>
    c.kind === 'sandbox'
      ? `${PA.sandboxRow(methodWords(c.methods), c.orders)}\n${PA.sandboxLine}`
      : [
          PA.epayRow(methodWords(c.methods), c.orders, c.pid),
          PA.gatewayLine(c.gateway),
          PA.notifyLine(c.notifyUrl),
          PA.returnLine(c.returnUrl),
        ].join('\n'),
  tag: (c) => [
    { text: PA.states[c.enabled] ?? String(c.enabled), tone: c.enabled === 1 ? 'success' : 'default' },
    ...(c.kind === 'sandbox' ? [{ text: PA.sandbox, tone: 'warning' as const }] : []),
    // The key cannot be opened (SESSION_SECRET changed): the mall no longer offers the channel until it is entered.
    ...(c.keySet ? [] : [{ text: PA.needsKey, tone: 'danger' as const }]),
  ],
};

/** A notification's or a query's verdict in words; an amount that differs names both. */
const verdictWords = (e: Pick<Schemas['PaymentEvent'], 'verdict' | 'expectedAmount' | 'money'>): string =>
  e.verdict === 'wrong_amount' && e.expectedAmount !== null && e.money !== null
    ? PA.wrongAmount(w.mall.yuan(e.expectedAmount), `¥${e.money}`)
    : e.verdict
      ? (PA.verdicts[e.verdict] ?? e.verdict)
      : '';
/** Verdicts whose money is accounted for (green), and the refusals worth a look (red); the rest are neutral. */
const VERDICT_TONES: Partial<Record<Schemas['PaymentVerdict'], Tone>> = {
  credited: 'success',
  credited_late: 'warning',
  duplicate: 'default',
  second_payment: 'warning',
  not_paid: 'default',
  bad_signature: 'danger',
  wrong_merchant: 'danger',
  wrong_amount: 'danger',
  wrong_order: 'danger',
  gateway_error: 'warning',
  gateway_refused: 'warning',
  key_unusable: 'danger',
  insecure: 'danger',
};
const verdictTag = (e: Schemas['PaymentEvent']): TagValue | null =>
  e.verdict ? { text: PA.verdicts[e.verdict] ?? e.verdict, tone: VERDICT_TONES[e.verdict] ?? 'default' } : null;
/** The details of a payment event, one line: where, how much, from whom, by whom, what the gateway said. */
const eventLine = (e: Schemas['PaymentEvent']) =>
  PA.eventLine([
    w.format.dateTime(e.at),
    e.channelName,
    e.method ? (w.pay.methods[e.method] ?? e.method) : null,
    e.tradeNo ? PA.tradeLine(e.tradeNo) : null,
    e.money ? PA.moneyLine(e.money) : null,
    // A notification's own row needs no 异步通知; the credit it caused says where it came from.
    e.source && e.kind !== 'notify' ? PA.sources[e.source] : null,
    e.actorAccount && e.source !== 'admin'
      ? PA.byLine(e.actorAccount)
      : e.source === 'admin' && e.actorAccount
        ? e.actorAccount
        : null,
    e.sender ? PA.senderLine(e.sender) : null,
    e.detail,
  ]);
/** 补单's conclusion: what the answers mean and what to do next. */
const reconcileConclusion = (r: Schemas['OrderReconciled']): string =>
  r.answers.some((a) => a.verdict === 'credited' || a.verdict === 'credited_late')
    ? PA.reconcileCredited
    : r.answers.some((a) => a.verdict === 'second_payment')
      ? PA.reconcileSecond
      : r.order.status === 'paid'
        ? ''
        : PA.reconcileNothing;
/** 补单's answer: what each channel said, then what it means. */
const reconcileAnswer = (r: Schemas['OrderReconciled']) => ({
  title: PA.reconcileTitle,
  content:
    r.answers.length === 0
      ? PA.reconcileNone
      : [
          ...r.answers.map((a) =>
            PA.reconcileLine(
              a.channelName,
              [
                verdictWords({
                  verdict: a.verdict,
                  expectedAmount: a.verdict === 'wrong_amount' ? r.order.amount : null,
                  money: a.money,
                }),
                a.detail,
              ]
                .filter(Boolean)
                .join('：'),
            ),
          ),
          reconcileConclusion(r),
        ]
          .filter(Boolean)
          .join('\n'),
});
const reconcileAction: RowAction<Schemas['Order']> = {
  label: PA.reconcile,
  color: 'primary',
  when: (o) => o.channelId !== null,
  call: { operation: 'orderReconcile', args: (o) => ({ body: { id: o.id } }), show: reconcileAnswer },
};
/** Only an offline order waits for the admin's 确认收款; an online one is settled by its gateway (the server refuses). */
const confirmOfflineAction: RowAction<Schemas['Order']> = {
  label: w.orders.confirmPaid,
  color: 'success',
  when: (o) => o.status === 'pending' && o.channelId === null,
  confirm: (o) => PA.confirmPaidAsk(o.coinName, o.userAccount, w.mall.yuan(o.amount), o.addCoin),
  done: w.orders.paidDone,
  call: { operation: 'orderConfirm', args: (o) => ({ body: { id: o.id } }) },
};
const cancelOrderAction: RowAction<Schemas['Order']> = {
  label: w.orders.cancel,
  color: 'danger',
  when: (o) => o.status === 'pending',
  confirm: (o) => w.orders.cancelAsk(o.orderNo),
  confirmLabels: w.orders.cancelLabels,
  done: w.orders.cancelled,
  call: { operation: 'orderCancel', args: (o) => ({ body: { id: o.id } }) },
};
type GatewayPayment = Schemas['GatewayPayment'];
/** The first account a refund could not take its coins back from, if any. */
const shortOf = (p: GatewayPayment) => p.takeBack.find((t) => t.balance < t.coins);
const takeBackWords = (p: GatewayPayment) =>
  p.takeBack.length === 0
    ? PA.refundNoCoins
    : PA.refundTakes(p.takeBack.map((t) => PA.refundTakesPart(t.account, t.coins)).join('、'));
/** A payment can be refunded when it is not already, no balance falls short, or when it was left 退款中. */
const refundable = (p: GatewayPayment) =>
  p.refundState === 'refunding' || (p.refundState === null && shortOf(p) === undefined);

/** How a run reads in a list (mine on a platform page, everyone's for an admin): its outcome is the tag. */
const runItem = (title: (r: Schemas['Run']) => string, description: (r: Schemas['Run']) => string) => ({
  title,
  description,
  extra: (r: Schemas['Run']) => (r.paidByQuota ? P.paidByQuota : P.charged(r.charged)),
  tag: (r: Schemas['Run']) => runTag(r.state),
});
/** When a run is, led by which of its service's times it is (签到 · …, 签退 · …) when it has one. */
const runWhen = (r: Schemas['Run']) =>
  P.run(r.scheduledAt, P.triggers[r.trigger] ?? r.trigger, r.attempts, r.slot ? P.slots[r.slot] : undefined);

/** Fields of a settings schema picked from fixed values, per family of platforms. */
const settingsChoices: Partial<Record<SettingsSchemaName, Record<string, readonly Choice[]>>> = {
  ClockInSettings: { days: P.weekdays.map((label, i) => ({ value: i + 1, label })) },
};

/** 'AI 润色' by one of the site texts on /system: the admin's own words in, a draft to accept or discard out. */
const polishAction = (field: Schemas['AiPolishRequest']['field']): FieldAction => ({
  label: w.ai.polish,
  operation: 'aiPolish',
  args: (text) => ({ body: { field, text } }),
  pick: (r) => ({ value: r.text, message: r.message }),
});

const D = w.dashboard;
const count = (n: number) => n.toLocaleString('zh-CN');

/** The clock-in calendar's two marks: a success day and a day of only failed or skipped runs (✓ and ✕, not colour alone). */
const CALENDAR_MARKS = {
  succeeded: { label: w.calendar.succeeded, sign: '✓', tone: 'success' },
  unsuccessful: { label: w.calendar.unsuccessful, sign: '✕', tone: 'danger' },
} as const;

/** A platform page's record without a platform on shelf: its page and its edit page say so instead of showing. */
const platformClosed = (o: Schemas['PlatformOverview']) =>
  o.platform ? null : { title: P.unavailable, description: P.unavailableHint };

/** A platform's service page and its edit page: one entry, two routes. */
export function platformScreens({ code, title, settings, icon }: PlatformEntry): Screen[] {
  const edit = `/${code}/update`;
  return [
    composedScreen({
      path: `/${code}`,
      title,
      access: SIGNED_IN,
      kind: 'composed',
      menu: 'service',
      icon: icon ?? { name: 'AppOutline', tint: 'blue' },
      load: { operation: 'platformOverview', args: () => ({ query: { kind: code } }) },
      // 下次执行, 今日成功, the calendar and the run list follow runs as they are planned, claimed and finished.
      liveOn: ['run'],
      unavailable: platformClosed,
      body: [
        {
          type: 'detail',
          title: (o) => o.platform?.name ?? title,
          note: (o) => (o.service ? o.platform?.description || null : P.setUpFirst),
          fields: [
            { label: P.priceLabel, value: (o) => (o.platform ? priceOf(o.platform) : '') },
            {
              label: P.myService,
              value: () => P.notCreated,
              tag: (o) => (o.service ? serviceTag(o.service.state) : { text: P.notCreated, tone: 'default' }),
            },
            { label: P.nextRun, value: (o) => timeOrDash(o.service?.nextRunAt ?? null) },
            { label: P.today, value: (o) => P.times(o.today) },
            { label: P.total, value: (o) => P.times(o.total) },
            { label: P.freeQuota, value: (o) => P.quotaValue(o.quota) },
          ],
          actions: [
            { label: P.setUp, color: 'primary', when: (o) => !o.service, to: () => edit },
            {
              label: P.start,
              color: 'primary',
              when: (o) => o.service !== null && o.service.state !== 'active',
              done: P.started,
              call: { operation: 'serviceStart', args: (o) => ({ body: { id: o.service?.id ?? 0 } }) },
            },
            {
              label: P.runNow,
              color: 'success',
              when: (o) => o.service?.state === 'active' || o.service?.state === 'paused',
              confirm: (o) => P.runNowAsk(o.platform?.name ?? title, o.platform ? priceOf(o.platform) : ''),
              done: P.runQueued,
              call: { operation: 'serviceRunNow', args: (o) => ({ body: { id: o.service?.id ?? 0 } }) },
            },
            {
              label: P.pause,
              color: 'warning',
              when: (o) => o.service?.state === 'active',
              done: P.paused,
              call: { operation: 'servicePause', args: (o) => ({ body: { id: o.service?.id ?? 0 } }) },
            },
            {
              label: P.stop,
              color: 'danger',
              when: (o) => o.service?.state === 'active' || o.service?.state === 'paused',
              confirm: (o) => P.stopAsk(o.platform?.name ?? title),
              done: P.stopped,
              call: { operation: 'serviceStop', args: (o) => ({ body: { id: o.service?.id ?? 0 } }) },
            },
            { label: P.editSettings, when: (o) => o.service !== null, to: () => edit },
          ],
        },
        {
          type: 'calendar',
          title: w.calendar.title,
          operation: 'runCalendar',
          args: (month, o) => (o.platform ? { query: { month, platformId: o.platform.id } } : null),
          marks: CALENDAR_MARKS,
          day: {
            operation: 'runMy',
            filter: (day, o) => ({ day, platformId: o.platform?.id }),
            item: runItem(runWhen, (r) => r.result),
            empty: w.calendar.noRuns,
          },
        },
        {
          type: 'list',
          title: P.runs,
          operation: 'runMy',
          filter: (o) => (o.service ? { serviceId: o.service.id } : null),
          item: runItem(runWhen, (r) => r.result),
          live: (r) => r.state === 'due' || r.state === 'running',
          empty: P.noRuns,
        },
      ],
    }),
    formScreen({
      path: edit,
      title: w.screens.platformEdit(title),
      access: SIGNED_IN,
      kind: 'form',
      submit: 'serviceSave',
      settings: { schema: settings, into: 'settings' },
      choices: settingsChoices[settings],
      load: {
        operation: 'platformOverview',
        args: () => ({ query: { kind: code } }),
        pick: (o) => ({ platformId: o.platform?.id, settings: o.service?.settings }),
        // Off shelf, there is no platform to save a service on: say so, as its page does, before anything is typed.
        unavailable: platformClosed,
        // A first setup opens the service (开通); only an existing one is changed (修改).
        title: (o) => (o.service ? w.screens.platformEdit(title) : w.screens.platformSetUp(title)),
      },
      done: P.saved,
      after: `/${code}`,
    }),
  ];
}

/**
 * The sections of entries home and my page show, in this order; a section with no entry the role may open is left
 * out. Home leads with the admin's areas (an overview, then users and coins, mall and orders, platforms, system), so an
 * admin meets a few headed sections rather than one wall of tiles; my page keeps the user's own things.
 */
export const menuLayout: Readonly<Record<'home' | 'my', readonly MenuGroup[]>> = {
  home: ['admin', 'adminUsers', 'adminMall', 'adminPlatform', 'adminSystem', 'service', 'coins', 'agent'],
  my: ['coins', 'agent', 'account'],
};

/**
 * Warnings on home, each while its record says so, to the roles its operation allows: 沙箱支付 taking payments at a
 * public address credits real coins for no money, so the admin meets it on every visit home until it is off.
 */
export const homeAlerts: readonly HomeAlert[] = [
  {
    operation: 'paySettingsGet',
    show: (s) =>
      s.sandboxOnPublicOrigin
        ? { text: PA.sandboxWarning(s.publicOrigin), link: { label: PA.goToSettings, to: '/pay_settings' } }
        : null,
  },
  // Money a payer paid twice waits to go back: the admin meets it on home until every such payment is refunded.
  {
    operation: 'paySettingsGet',
    show: (s) =>
      s.ordersNeedingRefund > 0
        ? {
            text: PA.needsRefundAlert(s.ordersNeedingRefund),
            link: { label: PA.needsRefundGo, to: '/order_management?needsRefund=true' },
          }
        : null,
  },
];

export const platforms: readonly PlatformEntry[] = [
  { code: 'wk', title: '网课采集', settings: 'CourseSettings', icon: { name: 'VideoOutline', tint: 'blue' } },
  { code: 'gxy', title: '工学云', settings: 'ClockInSettings', icon: { name: 'CalendarOutline', tint: 'green' } },
  { code: 'xxt', title: '学习通', settings: 'CourseSettings', icon: { name: 'ContentOutline', tint: 'orange' } },
  { code: 'xxy', title: '实习签到', settings: 'ClockInSettings', icon: { name: 'CheckCircleOutline', tint: 'cyan' } },
  { code: 'qzt', title: '职教通', settings: 'ClockInSettings', icon: { name: 'FlagOutline', tint: 'red' } },
  {
    code: 'sxzs',
    title: '云实习助手',
    settings: 'ClockInSettings',
    icon: { name: 'UserContactOutline', tint: 'purple' },
  },
  { code: 'zxjy', title: '职校家园', settings: 'ClockInSettings', icon: { name: 'EnvironmentOutline', tint: 'green' } },
  { code: 'xyb', title: '校友邦', settings: 'ClockInSettings', icon: { name: 'UserCircleOutline', tint: 'blue' } },
  { code: 'hzj', title: '智慧职教', settings: 'CourseSettings', icon: { name: 'CompassOutline', tint: 'orange' } },
];

const userRow = (u: Schemas['UserAdminView']) => `${u.userName}（${u.userAccount}）`;

/**
 * How many accounts a quota CSV names and the sum of their amounts, read as the server will (header first, blank
 * lines aside), for the question before sending; the server still checks every line.
 */
function csvGrantSummary(csv: string): { accounts: number; total: number } {
  const lines = csv
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .slice(1)
    .filter((l) => l.trim() !== '');
  const total = lines.reduce((n, l) => n + (Number(l.split(',')[1]?.trim()) || 0), 0);
  return { accounts: lines.length, total };
}

/** A closing or closed account, said in words on the admin's list. */
const closingTag = (u: Schemas['UserAdminView']): TagValue | null =>
  u.closedAt
    ? { text: w.user.closedTag, tone: 'default' }
    : u.closingAt
      ? { text: w.user.closingTag, tone: 'warning' }
      : null;

/** 用户协议 and 隐私政策: a page anyone reads (linked from /login, /register and 我的) and the admin's edit form. */
function policyScreens(kind: Schemas['PolicyKind'], title: string, icon: MenuEntryIcon): Screen[] {
  return [
    composedScreen({
      path: kind === 'terms' ? '/terms' : '/privacy',
      title,
      access: 'public',
      chrome: 'document',
      framesSignedInUser: true,
      menu: 'account',
      icon,
      kind: 'composed',
      load: { operation: 'policyGet', args: () => ({ query: { kind } }) },
      body: [
        {
          type: 'document',
          title: (p) => p.title,
          note: (p) => w.policies.updatedAt(p.updatedAt),
          text: (p) => p.body,
        },
      ],
    }),
    formScreen({
      path: kind === 'terms' ? '/update_terms' : '/update_privacy',
      title: w.policies.edit(title),
      access: ADMIN,
      kind: 'form',
      menu: 'adminSystem',
      icon,
      submit: 'policyUpdate',
      fields: ['body'],
      textareas: ['body'],
      fixed: () => ({ kind }),
      load: { operation: 'policyGet', args: () => ({ query: { kind } }), pick: ({ body }) => ({ body }) },
      // Every user is asked again after a change: the question says so, and nothing is asked when nothing changed.
      confirm: {
        operation: 'policyGet',
        args: () => ({ query: { kind } }),
        text: (b, p) => (b.body === p.body ? null : w.policies.saveAsk(title, p.version + 1)),
        labels: w.policies.saveLabels,
      },
      onSaved: 'siteChanged',
      done: w.policies.saved,
      after: 'stay',
    }),
  ];
}

/** A batch still queued or running: polled, and the only kind an admin can cancel (in the list and on its detail). */
const taskUnderway = (b: Schemas['Task']) => b.state === 'queued' || b.state === 'running';
const cancelTask: RowAction<Schemas['Task']> = {
  label: w.tasks.cancel,
  color: 'danger',
  when: taskUnderway,
  confirm: (b) => w.tasks.cancelAsk(b.title),
  done: w.tasks.cancelled,
  call: { operation: 'taskCancel', args: (b) => ({ body: { id: b.id } }) },
};

/** The form of /redeem_generate: the generic form, inside a screen that then shows the batch's codes. */
export const redeemGenerateForm = formScreen({
  path: '/redeem_generate',
  title: '生成兑换码',
  access: ADMIN,
  kind: 'form',
  submit: 'redeemGenerate',
  fields: ['coin', 'count', 'expiresAt', 'note'],
  widgets: { expiresAt: 'expiry' },
  initial: { count: 10 },
  submitLabel: w.redeem.generate,
  done: w.redeem.done,
});

/** After coins moved: the statement of the account just changed (an old replayed answer may not name it). */
const statementOf = (r: Schemas['CoinBalance']): `/${string}` =>
  r.userId === undefined ? '/user_management' : `/coin_detail?userId=${r.userId}`;

/** Whose record an admin is looking at, read by the URL's user id. */
const userSubject = (param: string, text: (who: string) => string): Subject => ({
  operation: 'userGet',
  args: (q) => (q.get(param) ? { query: { id: Number(q.get(param)) } } : null),
  text: (u) => text(userRow(u)),
});

/** A signed-in device, on one's own 登录设备 and on an admin's view of a user's. */
const sessionItem: ListItem<Schemas['Session']> = {
  title: (s) => w.devices.name(s.browser, s.system),
  description: (s) => w.devices.row(s.address, w.format.dateTime(s.createdAt), w.format.dateTime(s.lastSeenAt)),
  tag: (s) => (s.current ? { text: w.devices.current, tone: 'success' } : null),
};
const endSession: RowAction<Schemas['Session']> = {
  label: w.devices.end,
  color: 'danger',
  when: (s) => !s.current,
  confirm: (s) => w.devices.endAsk(w.devices.name(s.browser, s.system)),
  done: w.devices.ended,
  call: { operation: 'sessionEnd', args: (s) => ({ body: { id: s.id, userId: s.userId } }) },
};

/** One of my passkeys on 通行密钥: its name, when it was added and last used, and whether a password manager syncs it. */
const passkeyItem: ListItem<Schemas['Passkey']> = {
  title: (p) => p.name,
  description: (p) =>
    w.passkeys.row(w.format.dateTime(p.createdAt), p.lastUsedAt ? w.format.dateTime(p.lastUsedAt) : null),
  tag: (p) => (p.synced ? { text: w.passkeys.synced, tone: 'success' } : null),
};
const removePasskey: RowAction<Schemas['Passkey']> = {
  label: w.passkeys.remove,
  color: 'danger',
  confirm: (p) => w.passkeys.removeAsk(p.name),
  done: w.passkeys.removed,
  call: { operation: 'passkeyRemove', args: (p) => ({ body: { id: p.id } }) },
};
/** 用户详情 → 通行密钥: an admin takes one passkey of a lost phone away; the sessions it began end at once. */
const removePasskeyOfUser: RowAction<Schemas['Passkey']> = {
  label: w.passkeys.remove,
  color: 'danger',
  confirm: (p) => w.passkeys.removeOfUserAsk(p.name),
  done: w.passkeys.removedOfUser,
  call: { operation: 'passkeyRemoveOfUser', args: (p) => ({ body: { userId: p.userId, id: p.id } }) },
};

/** The account a coin change names, read first so the question can say its balance (an exact match of the search). */
const accountOf = (b: { userAccount: string }) => ({ query: { searchText: b.userAccount, pageSize: 100 } });
const exactly = (found: readonly Schemas['UserAdminView'][], account: string) =>
  found.find((u) => u.userAccount.toLowerCase() === account.toLowerCase());

/**
 * The two forms of /coinChange (add, reduce), rendered by the generic form renderer inside one screen. Coins move only
 * after the admin confirms the account and the amount (and, for a reduce, the balance it comes out of).
 */
export const coinChangeForms = {
  add: formScreen({
    path: '/coinChange',
    title: w.coins.add,
    access: ADMIN,
    kind: 'form',
    submit: 'userAddCoin',
    confirm: {
      operation: 'userList',
      args: accountOf,
      text: (b, found) =>
        exactly(found, b.userAccount) ? w.coins.addAsk(b.userAccount, b.coin) : w.coins.noSuchAccount(b.userAccount),
    },
    done: w.coins.added,
    after: statementOf,
  }),
  reduce: formScreen({
    path: '/coinChange',
    title: w.coins.reduce,
    access: ADMIN,
    kind: 'form',
    submit: 'userReduceCoin',
    confirm: {
      operation: 'userList',
      args: accountOf,
      text: (b, found) => {
        const user = exactly(found, b.userAccount);
        return user ? w.coins.reduceAsk(b.userAccount, b.coin, user.coin) : w.coins.noSuchAccount(b.userAccount);
      },
    },
    done: w.coins.reduced,
    after: statementOf,
  }),
};

/** A buyer's unpaid online order that can still be paid (去支付): its time to pay has not run out. */
const payable = (o: Schemas['Order']) => o.status === 'pending' && (o.expiresAt ?? Infinity) > Date.now();
/** An online order whose time to pay ran out: 已关闭 (the server closes it within a minute), not 已取消. */
const closedUnpaid = (o: Schemas['Order']) =>
  o.expiresAt !== null &&
  ((o.status === 'pending' && o.expiresAt <= Date.now()) ||
    (o.status === 'cancelled' && (o.cancelledAt ?? Infinity) >= o.expiresAt));
/** A buyer's order's second line: how it is paid, and until when for an unpaid online one. */
function payLine(o: Schemas['Order']): string {
  const method = o.method ? (w.pay.methods[o.method] ?? o.method) : w.pay.offline;
  if (o.status === 'pending' && o.expiresAt != null)
    return o.expiresAt > Date.now() ? w.pay.payBefore(method, o.expiresAt) : w.pay.expired(method);
  return o.status === 'paid' && o.paidLate ? w.pay.paidLate(method) : method;
}

export const screens: Screen[] = [
  // Public
  {
    path: '/login',
    title: '登录',
    access: 'public',
    chrome: 'bare',
    signedInGoesOn: true,
    kind: 'custom',
    screen: 'login',
  },
  {
    path: '/register',
    title: '注册',
    access: 'public',
    chrome: 'bare',
    kind: 'custom',
    screen: 'register',
  },
  {
    path: '/500',
    title: '服务器异常',
    access: 'public',
    chrome: 'error',
    framesSignedInUser: true,
    notice: w.notice.serverError,
    kind: 'custom',
    screen: 'serverError',
  },
  // The sandbox payment channel's cashier: the channel's page, not the site's (no frame), open to whoever pays.
  {
    path: '/cashier',
    title: w.pay.cashier.title,
    access: 'public',
    chrome: 'bare',
    kind: 'custom',
    screen: 'cashier',
  },

  // Everyone signed in
  {
    path: '/',
    title: '首页',
    access: SIGNED_IN,
    back: false,
    kind: 'custom',
    screen: 'home',
  },
  {
    path: '/about',
    title: '我的',
    access: SIGNED_IN,
    headerRight: 'logout',
    kind: 'custom',
    screen: 'about',
  },
  composedScreen({
    path: '/clockInfo',
    title: '账号信息',
    access: SIGNED_IN,
    kind: 'composed',
    load: { operation: 'quotaMy', args: () => ({ query: {} }) },
    liveOn: ['run'],
    body: [
      {
        type: 'detail',
        title: () => P.freeQuota,
        note: () => P.quotaHint,
        fields: [
          { label: P.quotaRuns, value: (q) => P.times(q.runs) },
          { label: P.quotaDays, value: (q) => P.days(q.days) },
        ],
      },
      {
        type: 'calendar',
        title: w.calendar.title,
        operation: 'runCalendar',
        args: (month) => ({ query: { month } }),
        marks: CALENDAR_MARKS,
        day: {
          operation: 'runMy',
          filter: (day) => ({ day }),
          item: runItem((r) => r.platformName, runWhen),
          empty: w.calendar.noRuns,
        },
      },
      {
        type: 'cards',
        title: P.myServices,
        operation: 'serviceMy',
        card: {
          title: (s) => s.platformName,
          tag: (s) => serviceTag(s.state),
          lines: (s) => [
            `${P.nextRun}：${timeOrDash(s.nextRunAt)}`,
            `${P.lastRun}：${s.lastRunState ? `${P.runStates[s.lastRunState]}（${timeOrDash(s.lastRunAt)}）` : P.never}`,
            P.serviceCounts(s.succeeded, s.failed),
          ],
          to: (s) => `/${s.kind}`,
        },
        empty: P.noServices,
      },
      {
        type: 'cards',
        title: P.openPlatforms,
        operation: 'platformList',
        card: {
          title: (p) => p.name,
          lines: (p) => [priceOf(p), ...(p.description ? [p.description] : [])],
          to: (p) => `/${p.kind}`,
        },
        empty: P.noPlatforms,
      },
    ],
  }),
  {
    path: '/mall',
    title: '积分商城',
    access: SIGNED_IN,
    kind: 'custom',
    menu: 'coins',
    icon: { name: 'ShopbagOutline', tint: 'orange' },
    screen: 'mall',
  },
  listScreen({
    path: '/my_orders',
    title: '我的订单',
    access: SIGNED_IN,
    kind: 'list',
    menu: 'coins',
    icon: { name: 'BillOutline', tint: 'blue' },
    operation: 'orderMy',
    liveOn: ['order'],
    item: {
      title: (o) => o.coinName,
      description: (o) => `${w.orders.row(o.orderNo, o.createdAt)}\n${payLine(o)}`,
      extra: (o) => w.mall.yuan(o.amount),
      tag: (o) => (closedUnpaid(o) ? { text: w.pay.closed, tone: 'default' } : orderTag(o)),
    },
    rowActions: [
      // 去支付: a method picked from the channels that are on, then the channel's cashier (outside the app).
      {
        label: w.pay.payAgain,
        color: 'primary',
        when: payable,
        choose: choiceAction({
          title: (o: Schemas['Order']) => w.pay.payOrderTitle(o.coinName),
          lines: (o) => [w.pay.orderLine(o.orderNo, w.mall.yuan(o.amount), o.addCoin)],
          legend: w.pay.legend,
          from: {
            operation: 'payMethods',
            args: {},
            choices: (p) => p.methods.map((m) => ({ label: m.label, value: m })),
            note: (p, o) =>
              o.expiresAt === null ? w.pay.closesIn(p.orderTimeoutMinutes) : w.pay.result.payBefore(o.expiresAt),
          },
          empty: w.pay.noMethods,
          ok: w.pay.goPay,
          busy: w.pay.toCashier,
          call: {
            operation: 'orderPay',
            args: (o, m) => ({ body: { id: o.id, channelId: m.channelId, method: m.method } }),
          },
          leave: (answer) => answer.payUrl,
        }),
      },
      { label: w.orders.copyNo, copy: (o) => o.orderNo },
      cancelOrderAction,
    ],
    empty: w.orders.empty,
  }),
  // Where a payment channel's cashier sends the payer back (return_url): the order's result, read from the server.
  {
    path: '/pay_result',
    title: w.pay.result.title,
    access: SIGNED_IN,
    kind: 'custom',
    screen: 'payResult',
    recordOf: '/my_orders',
  },
  {
    path: '/transferCoin',
    title: '积分转账',
    access: SIGNED_IN,
    kind: 'custom',
    menu: 'coins',
    icon: { name: 'SendOutline', tint: 'green' },
    screen: 'transferCoin',
  },
  listScreen({
    path: '/coin_detail',
    title: '积分明细',
    access: SIGNED_IN,
    kind: 'list',
    menu: 'coins',
    icon: { name: 'UnorderedListOutline', tint: 'purple' },
    operation: 'coinEntries',
    liveOn: ['balance'],
    // A statement grows to many thousands of entries while the user scrolls it: keyset pages stay flat and exact.
    paging: 'cursor',
    urlFilters: ['userId'],
    subject: userSubject('userId', w.coins.statementOfUser),
    download: {
      label: w.coins.exportCsv,
      href: (q) =>
        `/api/coin/entries/export${q.get('userId') ? `?userId=${encodeURIComponent(q.get('userId')!)}` : ''}`,
    },
    item: {
      title: (e) => e.description || (w.coins.kinds[e.kind] ?? e.kind),
      description: (e) => `${w.coins.kinds[e.kind] ?? e.kind} · ${w.format.dateTime(e.createdAt)}`,
      extra: (e) => `${w.coins.signed(e.amount)}（${w.coins.balanceAfter(e.balanceAfter)}）`,
      // Gained and spent differ in colour and in sign (+/−), never in colour alone.
      extraTone: (e) => (e.amount > 0 ? 'success' : e.amount < 0 ? 'danger' : 'default'),
    },
    empty: w.coins.noEntries,
  }),
  listScreen({
    path: '/notice',
    title: '消息通知',
    access: SIGNED_IN,
    kind: 'list',
    menu: 'account',
    icon: { name: 'BellOutline', tint: 'orange' },
    operation: 'noticeMy',
    liveOn: ['notice'],
    item: {
      title: (n) => n.title,
      description: (n) => `${n.body}\n${w.format.dateTime(n.createdAt)}`,
    },
    highlight: (n) => !n.read,
    // Opening a notice shows it whole and marks it read.
    open: {
      call: { operation: 'noticeRead', args: (n) => ({ body: { id: n.id } }) },
      dialog: (n) => ({ title: n.title, content: n.body }),
    },
    rowActions: [
      {
        label: w.inbox.markRead,
        color: 'primary',
        when: (n) => !n.read,
        done: w.list.done,
        call: { operation: 'noticeRead', args: (n) => ({ body: { id: n.id } }) },
      },
      {
        label: w.inbox.delete,
        color: 'danger',
        confirm: (n) => w.inbox.deleteAsk(n.title),
        done: w.inbox.deleted,
        call: { operation: 'noticeDelete', args: (n) => ({ body: { id: n.id } }) },
      },
    ],
    toolbar: [
      {
        label: w.inbox.readAll,
        confirm: w.inbox.readAllAsk,
        done: w.inbox.readAllDone,
        call: { operation: 'noticeReadAll', args: () => ({}) },
      },
    ],
    onChange: 'refreshUnread',
    empty: w.inbox.empty,
  }),
  ...platforms.flatMap(platformScreens),
  formScreen({
    path: '/update_password',
    title: '修改密码',
    access: SIGNED_IN,
    kind: 'form',
    submit: 'userUpdatePassword',
    menu: 'account',
    icon: { name: 'LockOutline', tint: 'blue' },
    done: w.form.passwordChanged,
    after: '/about',
  }),
  listScreen({
    path: '/sessions',
    title: '登录设备',
    access: SIGNED_IN,
    kind: 'list',
    menu: 'account',
    icon: { name: 'UserSetOutline', tint: 'purple' },
    operation: 'sessionList',
    item: sessionItem,
    rowActions: [endSession],
    toolbar: [
      {
        label: w.devices.endOthers,
        color: 'danger',
        confirm: w.devices.endOthersAsk,
        done: w.devices.endedOthers,
        call: { operation: 'sessionEndOthers', args: () => ({}) },
      },
    ],
    empty: w.devices.empty,
  }),
  {
    path: '/bind_email',
    title: '绑定邮箱',
    access: SIGNED_IN,
    kind: 'custom',
    menu: 'account',
    icon: { name: 'MailOutline', tint: 'cyan' },
    screen: 'bindEmail',
  },
  {
    // TWO_FACTOR_PATH (src/web/state/two-factor.ts): where an admin that must turn it on is sent after its password.
    path: '/two_factor',
    title: '两步验证',
    access: SIGNED_IN,
    kind: 'custom',
    menu: 'account',
    icon: { name: 'LockOutline', tint: 'orange' },
    screen: 'twoFactor',
  },

  formScreen({
    path: '/close_account',
    title: '注销账号',
    access: ['user', 'agent'],
    kind: 'form',
    menu: 'account',
    icon: { name: 'CloseCircleOutline', tint: 'red' },
    submit: 'userCloseAccount',
    intro: w.closing.intro,
    fields: ['password', 'code'],
    // The code is asked only of an account with two-factor sign-in on.
    load: {
      operation: 'twoFactorGet',
      args: () => ({}),
      pick: () => ({}),
      fields: (s) => (s.enabled ? ['password', 'code'] : ['password']),
    },
    // The balance forfeited and the account, in the question, read now.
    confirm: {
      operation: 'userGetLogin',
      args: () => ({}),
      text: (_b, me) => w.closing.ask(me.userAccount, me.coin),
      labels: w.closing.labels,
    },
    submitLabel: w.closing.submit,
    done: w.closing.done,
    onSaved: 'signedOut',
    after: '/login',
  }),
  ...policyScreens('terms', '用户协议', { name: 'FileOutline', tint: 'blue' }),
  ...policyScreens('privacy', '隐私政策', { name: 'LockOutline', tint: 'green' }),
  listScreen({
    path: '/passkeys',
    title: '通行密钥',
    access: SIGNED_IN,
    kind: 'list',
    menu: 'account',
    icon: { name: 'KeyOutline', tint: 'green' },
    operation: 'passkeyList',
    addLink: { label: w.passkeys.add, to: '/passkey_add' },
    item: passkeyItem,
    rowActions: [removePasskey],
    empty: w.passkeys.empty,
  }),
  formScreen({
    path: '/passkey_add',
    title: w.passkeys.add,
    access: SIGNED_IN,
    kind: 'form',
    submit: 'passkeyAdd',
    fields: ['name'],
    // The phone's authenticator makes the passkey once the name is given; its answer is the body's credential.
    ceremony: { run: 'passkeyRegistration', fills: 'credential' },
    submitLabel: w.passkeys.create,
    done: w.passkeys.added,
    after: '/passkeys',
  }),

  // Agents
  listScreen({
    path: '/subordinate',
    title: '代理',
    access: AGENT,
    kind: 'list',
    menu: 'agent',
    icon: { name: 'TeamOutline', tint: 'purple' },
    operation: 'userSubordinate',
    search: true,
    item: {
      title: (u) => `${u.userName}（${u.userAccount}）`,
      description: (u) => `${w.coins.balance} ${u.coin} · ${w.format.joinedAt(u.createdAt)}`,
      extra: (u) => (u.status === 'banned' ? w.user.banned : ''),
    },
    rowActions: [
      {
        label: w.coins.topUp,
        color: 'primary',
        when: (u) => u.status === 'active',
        to: (u) => `/transferCoin?to=${encodeURIComponent(u.userAccount)}`,
      },
    ],
    empty: w.list.noSubordinates,
  }),

  // Admins
  composedScreen({
    path: '/dashboard',
    title: '数据看板',
    access: ADMIN,
    kind: 'composed',
    menu: 'admin',
    icon: { name: 'PieOutline', tint: 'blue' },
    body: [
      {
        type: 'stats',
        operation: 'dashboardSummary',
        groups: [
          {
            title: D.users,
            stats: [
              { label: D.usersTotal, value: (s) => D.people(count(s.users.total)) },
              { label: D.usersNewToday, value: (s) => D.people(count(s.users.newToday)) },
              { label: D.usersActive, value: (s) => D.people(count(s.users.active7d)) },
            ],
          },
          {
            title: D.coins,
            stats: [
              { label: D.coinsIssued, value: (s) => D.coinsOf(count(s.coins.issued)) },
              { label: D.coinsRemoved, value: (s) => D.coinsOf(count(s.coins.removed)) },
              { label: D.coinsSpent, value: (s) => D.coinsOf(count(s.coins.spent)) },
              { label: D.coinsHeld, value: (s) => D.coinsOf(count(s.coins.held)) },
              {
                label: D.ledger,
                value: (s) => `${count(s.coins.issued)} − ${count(s.coins.removed)} = ${count(s.coins.held)}`,
                tag: (s) =>
                  s.coins.balanced ? { text: D.balanced, tone: 'success' } : { text: D.unbalanced, tone: 'danger' },
              },
            ],
          },
          {
            title: D.orders,
            stats: [
              { label: D.ordersPending, value: (s) => D.ordersOf(count(s.orders.pending)) },
              { label: D.ordersConfirmedToday, value: (s) => D.ordersOf(count(s.orders.confirmedToday)) },
              { label: D.revenueToday, value: (s) => w.mall.yuan(s.orders.revenueToday) },
              { label: D.revenue30d, value: (s) => w.mall.yuan(s.orders.revenue30d) },
              // Left today, right 30 days: paid online (the gateway's notice), then confirmed by an admin.
              { label: D.revenueTodayOnline, value: (s) => w.mall.yuan(s.orders.revenueTodayOnline) },
              { label: D.revenue30dOnline, value: (s) => w.mall.yuan(s.orders.revenue30dOnline) },
              { label: D.revenueTodayManual, value: (s) => w.mall.yuan(s.orders.revenueTodayManual) },
              { label: D.revenue30dManual, value: (s) => w.mall.yuan(s.orders.revenue30dManual) },
            ],
          },
          {
            title: D.services,
            stats: [
              { label: D.servicesActive, value: (s) => D.servicesOf(count(s.services.active)) },
              { label: D.runsToday, value: (s) => D.runsOf(count(s.services.runsToday)) },
              {
                label: D.successRate,
                value: (s) => (s.services.successRate === null ? D.noRateYet : D.percent(s.services.successRate)),
              },
            ],
          },
          {
            title: D.quota,
            stats: [
              { label: D.quotaRuns, value: (s) => D.runsOf(count(s.quota.runs)) },
              { label: D.quotaDays, value: (s) => D.daysOf(count(s.quota.days)) },
            ],
          },
        ],
        note: (s) => D.countedIn(s.today, s.timeZone),
      },
      {
        type: 'chart',
        operation: 'dashboardSeries',
        ranges: [7, 30, 90].map((value) => ({ value, label: D.ranges[value] ?? String(value) })),
        args: (days) => ({ query: { days: days as Schemas['DashboardRange'] } }),
        x: (d) => ({ short: d.day.slice(5), full: d.day }),
        charts: [
          {
            title: D.revenuePerDay,
            kind: 'bar',
            series: [{ label: D.revenue, value: (d) => d.revenue }],
            format: w.mall.yuan,
          },
          {
            title: D.coinsPerDay,
            kind: 'line',
            series: [
              { label: D.issued, value: (d) => d.coinsIssued },
              { label: D.spent, value: (d) => d.coinsSpent },
            ],
          },
          {
            title: D.runsPerDay,
            kind: 'stack',
            series: [
              { label: D.succeeded, value: (d) => d.runsSucceeded, tone: 'success' },
              { label: D.failed, value: (d) => d.runsFailed, tone: 'danger' },
              { label: D.skipped, value: (d) => d.runsSkipped, tone: 'neutral' },
            ],
          },
          { title: D.newUsersPerDay, kind: 'bar', series: [{ label: D.newUsers, value: (d) => d.newUsers }] },
        ],
        empty: D.emptyRange,
      },
    ],
  }),
  formScreen({
    path: '/system',
    title: '系统管理',
    access: ADMIN,
    kind: 'form',
    menu: 'adminSystem',
    icon: { name: 'SetOutline', tint: 'blue' },
    submit: 'basicInformationUpdate',
    fields: [
      'websiteName',
      'noticeBar',
      'noticeAnnouncementTitle',
      'noticeAnnouncement',
      'pointsNotification',
      'coinName',
      'addCoin',
      'amount',
      'rebatePercent',
      'analyticsUrl',
    ],
    textareas: ['noticeAnnouncement', 'pointsNotification'],
    fixed: () => ({ id: 1 }),
    load: { operation: 'basicInformationGet', args: () => ({ query: { id: 1 } }) },
    // A settings page: the admin stays on it, and the frame shows the new notice at once (other tabs too).
    after: 'stay',
    onSaved: 'siteChanged',
    fieldActions: {
      noticeBar: polishAction('noticeBar'),
      noticeAnnouncementTitle: polishAction('noticeAnnouncementTitle'),
      noticeAnnouncement: polishAction('noticeAnnouncement'),
    },
    done: w.form.saved,
  }),
  listScreen({
    path: '/user_management',
    title: '用户管理',
    access: ADMIN,
    kind: 'list',
    menu: 'adminUsers',
    icon: { name: 'TeamOutline', tint: 'blue' },
    operation: 'userListPage',
    search: true,
    sortFields: [
      { field: 'createdAt', label: '注册时间' },
      { field: 'lastLoginAt', label: '最近登录' },
      { field: 'userAccount', label: '账号' },
    ],
    addLink: { label: '新增用户', to: '/add_user' },
    item: {
      title: userRow,
      description: (u) => `${w.user.roles[u.userRole]} · ${w.format.joinedAt(u.createdAt)}`,
      extra: (u) => (u.status === 'banned' ? w.user.banned : ''),
      tag: closingTag,
    },
    rowActions: [
      { label: '详情', to: (u) => `/user_detail?id=${u.id}` },
      { label: w.coins.statementOf, to: (u) => `/coin_detail?userId=${u.id}` },
      { label: P.services, to: (u) => `/service_management?userId=${u.id}` },
      { label: '编辑', when: (u) => !u.closedAt, to: (u) => `/update_user?id=${u.id}` },
      {
        label: '重置密码',
        color: 'warning',
        when: (u) => u.userRole !== 'admin' && !u.closedAt,
        to: (u) => `/reset_password?id=${u.id}&account=${encodeURIComponent(u.userAccount)}`,
      },
      {
        label: '设为代理',
        color: 'primary',
        when: (u) => u.userRole === 'user' && !u.closedAt,
        confirm: (u) => `确定把 ${userRow(u)} 设为代理吗？`,
        call: { operation: 'userUpdateBoss', args: (u) => ({ query: { userAccount: u.userAccount } }) },
      },
      {
        label: '取消代理',
        color: 'warning',
        when: (u) => u.userRole === 'agent',
        confirm: (u) => `确定取消 ${userRow(u)} 的代理身份吗？`,
        call: { operation: 'userUpdateBoss', args: (u) => ({ query: { userAccount: u.userAccount } }) },
      },
      {
        label: '封禁',
        color: 'danger',
        when: (u) => u.userRole !== 'admin' && u.status === 'active' && !u.closedAt,
        confirm: (u) => `确定封禁 ${userRow(u)} 吗？封禁后立即下线。`,
        call: { operation: 'userBan', args: (u) => ({ query: { id: u.id } }) },
      },
      {
        label: '解封',
        color: 'success',
        when: (u) => u.status === 'banned',
        call: { operation: 'userUnBan', args: (u) => ({ query: { id: u.id } }) },
      },
      {
        label: '删除',
        color: 'danger',
        when: (u) => u.userRole !== 'admin' && !u.closedAt,
        confirm: (u) => `确定删除 ${userRow(u)} 吗？删除后不能恢复。`,
        call: { operation: 'userDelete', args: (u) => ({ body: { id: u.id } }) },
      },
    ],
  }),
  detailScreen({
    path: '/user_detail',
    title: '用户详情',
    access: ADMIN,
    kind: 'detail',
    recordOf: '/user_management',
    operation: 'userGet',
    args: (q) => ({ query: { id: Number(q.get('id')) } }),
    fields: [
      { key: 'userAccount', label: '账号' },
      { key: 'userName', label: '昵称' },
      { key: 'userRole', label: '角色', labels: w.user.roles },
      { key: 'status', label: '状态', labels: w.user.statuses },
      { key: 'email', label: '邮箱' },
      { key: 'invitationCode', label: '邀请码' },
      { key: 'inviterAccount', label: '邀请人' },
      { key: 'createdAt', label: '注册时间', format: 'time' },
      { key: 'lastLoginAt', label: '最近登录', format: 'time' },
      { key: 'banPausedServices', label: '封禁时暂停的服务' },
      { key: 'twoFactor', label: '两步验证', labels: w.twoFactor.states },
      { key: 'passkeys', label: '通行密钥' },
      { key: 'closingAt', label: '申请注销时间', format: 'time' },
      { key: 'closedAt', label: '注销时间', format: 'time' },
    ],
    actions: [
      { label: w.devices.link, to: (u) => `/user_sessions?userId=${u.id}` },
      { label: w.passkeys.link, to: (u) => `/user_passkeys?userId=${u.id}` },
      {
        label: w.twoFactor.reset,
        color: 'danger',
        when: (u) => u.twoFactor || (u.passkeys ?? 0) > 0,
        confirm: (u) => w.twoFactor.resetAsk(userRow(u)),
        done: w.twoFactor.resetDone,
        call: { operation: 'twoFactorReset', args: (u) => ({ body: { id: u.id } }) },
      },
    ],
  }),
  listScreen({
    path: '/user_sessions',
    title: '登录设备',
    access: ADMIN,
    kind: 'list',
    operation: 'sessionList',
    urlFilters: ['userId'],
    subject: userSubject('userId', w.devices.ofUser),
    item: sessionItem,
    rowActions: [endSession],
    empty: w.devices.empty,
  }),
  listScreen({
    path: '/user_passkeys',
    title: '通行密钥',
    access: ADMIN,
    kind: 'list',
    operation: 'passkeyListOfUser',
    urlFilters: ['userId'],
    subject: userSubject('userId', w.passkeys.ofUser),
    item: passkeyItem,
    rowActions: [removePasskeyOfUser],
    empty: w.passkeys.emptyOfUser,
  }),
  formScreen({
    path: '/add_user',
    title: '新增用户',
    access: ADMIN,
    kind: 'form',
    submit: 'userAdd',
    done: w.form.created,
  }),
  formScreen({
    path: '/update_user',
    title: '编辑用户',
    access: ADMIN,
    kind: 'form',
    submit: 'userUpdate',
    fields: ['userName'],
    fixed: (q) => ({ id: Number(q.get('id')) }),
    recordOf: '/user_management',
    load: { operation: 'userGet', args: (q) => ({ query: { id: Number(q.get('id')) } }) },
    done: w.form.saved,
  }),
  formScreen({
    path: '/reset_password',
    title: '重置密码',
    access: ADMIN,
    kind: 'form',
    submit: 'userBossUpdatePassword',
    fields: ['newPassword'],
    fixed: (q) => ({ id: Number(q.get('id')) }),
    subject: userSubject('id', w.user.passwordOf),
    recordOf: '/user_management',
    done: w.form.passwordReset,
  }),
  listScreen({
    path: '/clockVip',
    title: '免费额度管理',
    access: ADMIN,
    notice: w.notice.clockVip,
    kind: 'list',
    menu: 'adminUsers',
    icon: { name: 'CouponOutline', tint: 'orange' },
    operation: 'quotaListPage',
    search: true,
    chips: [{ field: 'status', label: w.quota.status, options: w.quota.statuses }],
    addLink: { label: w.quota.grant, to: '/add_quota' },
    item: {
      title: (g) => w.quota.row(g.userAccount, g.remaining, g.amount, w.quota.units[g.unit]!),
      description: (g) => w.quota.detail(g),
      extra: (g) => w.quota.statuses[g.status] ?? g.status,
    },
    rowActions: [
      {
        label: w.quota.revoke,
        color: 'danger',
        when: (g) => g.revokedAt === null && g.remaining > 0,
        confirm: (g) => w.quota.revokeAsk(g.userAccount, g.remaining, w.quota.units[g.unit]!),
        done: w.quota.revoked,
        call: { operation: 'quotaRevoke', args: (g) => ({ body: { id: g.id } }) },
      },
    ],
    empty: w.quota.empty,
  }),
  formScreen({
    path: '/add_quota',
    title: '发放免费额度',
    access: ADMIN,
    kind: 'form',
    submit: 'quotaGrant',
    fields: ['userAccount', 'unit', 'amount', 'platformId', 'expiresAt', 'reason'],
    enumLabels: { unit: w.quota.unitLabels },
    widgets: { platformId: 'platform', expiresAt: 'expiry' },
    initial: { unit: 'runs' },
    fixed: (q) => (q.get('userAccount') ? { userAccount: q.get('userAccount')! } : {}),
    done: w.quota.granted,
  }),
  listScreen({
    path: '/tasks',
    title: '批量任务',
    access: ADMIN,
    kind: 'list',
    menu: 'adminPlatform',
    icon: { name: 'UnorderedListOutline', tint: 'purple' },
    operation: 'taskListPage',
    item: {
      title: (b) => b.title,
      description: (b) => w.tasks.row(b.createdByAccount, b.createdAt),
      extra: (b) => w.tasks.states[b.state] ?? b.state,
    },
    progress: (b) => ({ done: b.done, failed: b.failed, total: b.total }),
    // Progress moves while the page is open: each committed chunk is an event; without the stream, read again every
    // 1.5 s as long as a batch is queued or running.
    liveOn: ['task'],
    poll: { everyMs: 1500, while: taskUnderway },
    rowActions: [{ label: w.tasks.detail, color: 'primary', to: (b) => `/tasks/detail?id=${b.id}` }, cancelTask],
    toolbar: [
      { label: w.inbox.broadcast, to: '/tasks/broadcast' },
      { label: w.tasks.quota, to: '/tasks/quota' },
      { label: w.tasks.platform, to: '/tasks/platform' },
      {
        label: w.tasks.statements,
        confirm: w.tasks.statementsAsk,
        done: w.tasks.started,
        call: { operation: 'taskStatements', args: () => ({}) },
      },
    ],
    empty: w.tasks.empty,
  }),
  detailScreen({
    path: '/tasks/detail',
    title: '任务详情',
    access: ADMIN,
    kind: 'detail',
    recordOf: '/tasks',
    operation: 'taskGet',
    args: (q) => ({ query: { id: Number(q.get('id')) } }),
    progress: (b) => ({ done: b.done, failed: b.failed, total: b.total }),
    liveOn: ['task'],
    poll: { everyMs: 1500, while: taskUnderway },
    fields: [
      { key: 'title', label: '任务' },
      { key: 'kind', label: '类型', labels: w.tasks.kinds },
      { key: 'state', label: '状态', labels: w.tasks.states },
      { key: 'total', label: '条目总数' },
      { key: 'done', label: '已完成' },
      { key: 'failed', label: '失败' },
      { key: 'result', label: '结果' },
      { key: 'createdByAccount', label: '发起人' },
      { key: 'createdAt', label: '创建时间', format: 'time' },
      { key: 'startedAt', label: '开始时间', format: 'time' },
      { key: 'finishedAt', label: '结束时间', format: 'time' },
    ],
    actions: [cancelTask],
    downloads: [
      { label: w.tasks.failuresCsv, href: (b) => `/api/task/failures/export?id=${b.id}`, when: (b) => b.failed > 0 },
      { label: w.tasks.outputCsv, href: (b) => `/api/task/output?id=${b.id}`, when: (b) => b.hasOutput },
    ],
    // A task that finished without a failure says so; otherwise its failed items, with their reasons, under it.
    instead: (b) => (b.state === 'done' && b.failed === 0 ? w.tasks.allDone(b.done) : null),
    below: listScreen({
      path: '/tasks/detail',
      title: w.tasks.failures,
      access: ADMIN,
      kind: 'list',
      operation: 'taskFailures',
      urlFilters: ['id'],
      item: { title: (i) => i.label, description: (i) => w.tasks.failureRow(i.seq, i.error) },
      empty: w.tasks.noFailures,
    }),
  }),
  formScreen({
    path: '/tasks/broadcast',
    title: '群发消息',
    access: ADMIN,
    kind: 'form',
    submit: 'noticeBroadcast',
    fields: ['title', 'body', 'role'],
    textareas: ['body'],
    enumLabels: { role: w.inbox.roles },
    initial: { role: 'all' },
    // A message to many users: the question names how many the chosen role reaches now.
    confirm: {
      operation: 'noticeBroadcastRecipients',
      args: (b) => ({ query: { role: b.role } }),
      text: (b, r) => w.inbox.broadcastAsk(b.title, w.inbox.roles[b.role] ?? b.role, r.count),
      labels: w.inbox.broadcastLabels,
    },
    done: w.inbox.broadcastStarted,
    after: '/tasks',
  }),
  formScreen({
    path: '/tasks/quota',
    title: '批量发放额度',
    access: ADMIN,
    kind: 'form',
    submit: 'taskQuotaGrant',
    fields: ['csv', 'unit', 'platformId', 'expiresAt', 'reason'],
    widgets: { csv: 'csvFile', platformId: 'platform', expiresAt: 'expiry' },
    enumLabels: { unit: w.tasks.unitLabels },
    initial: { unit: 'runs' },
    // A refused file's bad lines are listed under it, not told in a toast.
    problems: { field: 'csv' },
    // A grant to many users: the question counts them and the total from the file itself.
    confirm: {
      text: (b: Schemas['TaskQuotaRequest']) => {
        const { accounts, total } = csvGrantSummary(b.csv);
        return w.tasks.quotaAsk(accounts, total, w.tasks.unitLabels[b.unit] ?? b.unit, b.platformId !== undefined);
      },
      labels: w.tasks.quotaAskLabels,
    },
    done: w.tasks.started,
    after: '/tasks',
  }),
  formScreen({
    path: '/tasks/platform',
    title: '平台批量操作',
    access: ADMIN,
    kind: 'form',
    submit: 'taskPlatform',
    fields: ['platformId', 'action'],
    widgets: { platformId: 'platform' },
    enumLabels: { action: w.tasks.actionLabels },
    // Both actions touch every running service of the platform: neither is chosen for the admin, and the question
    // names the platform and how many services it touches.
    confirm: {
      operation: 'platformGet',
      args: (b) => ({ query: { id: b.platformId } }),
      text: (b, p) => w.tasks.platformAsk(b.action, p.name, p.activeServices),
    },
    done: w.tasks.started,
    after: '/tasks',
  }),
  formScreen({
    path: '/ai/config',
    title: 'AI 配置',
    access: ADMIN,
    notice: w.notice.aiConfig,
    kind: 'form',
    menu: 'adminSystem',
    icon: { name: 'ChatAddOutline', tint: 'purple' },
    submit: 'aiConfigUpdate',
    fields: ['enabled', 'baseUrl', 'model', 'apiKey', 'timeoutMs', 'dailyBudget'],
    enumLabels: { enabled: w.ai.enabled },
    widgets: { apiKey: 'password' },
    load: {
      operation: 'aiConfigGet',
      args: () => ({}),
      pick: ({ enabled, baseUrl, model, timeoutMs, dailyBudget }) => ({
        enabled,
        baseUrl,
        model,
        timeoutMs,
        dailyBudget,
      }),
    },
    actions: [
      {
        label: w.ai.test,
        operation: 'aiConfigTest',
        args: () => ({}),
        show: (r) => ({ title: r.ok ? w.ai.testOk : w.ai.testFailed, content: r.reply ?? r.message }),
      },
    ],
    // A settings page, like /system: the admin stays on it (and may test the saved connection next).
    after: 'stay',
    done: w.form.saved,
  }),
  {
    path: '/coinChange',
    title: '积分变动',
    access: ADMIN,
    kind: 'custom',
    menu: 'adminUsers',
    icon: { name: 'CollectMoneyOutline', tint: 'green' },
    screen: 'coinChange',
  },
  listScreen({
    path: '/mall_management',
    title: '商城管理',
    access: ADMIN,
    notice: w.notice.mallManagement,
    kind: 'list',
    menu: 'adminMall',
    icon: { name: 'ShopbagOutline', tint: 'orange' },
    operation: 'mallListPage',
    search: true,
    addLink: { label: w.mall.add, to: '/add_mall' },
    item: {
      title: (p) => `${p.coinName} · ${w.mall.yuan(p.amount)}`,
      description: (p) => w.mall.row(p.addCoin, p.sort, p.orders),
      extra: (p) => w.mall.shelfStatus[p.status] ?? String(p.status),
    },
    rowActions: [
      { label: w.mall.edit, to: (p) => `/update_mall?id=${p.id}` },
      {
        label: w.mall.onShelf,
        color: 'success',
        when: (p) => p.status === 0,
        done: w.mall.onShelfDone,
        call: { operation: 'mallShelf', args: (p) => ({ body: { id: p.id, status: 1 } }) },
      },
      {
        label: w.mall.offShelf,
        color: 'warning',
        when: (p) => p.status === 1,
        confirm: (p) => w.mall.confirmOffShelf(p.coinName),
        done: w.mall.offShelfDone,
        call: { operation: 'mallShelf', args: (p) => ({ body: { id: p.id, status: 0 } }) },
      },
      {
        label: w.mall.delete,
        color: 'danger',
        confirm: (p) => w.mall.confirmDelete(p.coinName),
        done: w.mall.deleted,
        call: { operation: 'mallDelete', args: (p) => ({ body: { id: p.id } }) },
      },
    ],
    empty: w.mall.emptyAdmin,
  }),
  formScreen({
    path: '/add_mall',
    title: '添加积分套餐',
    access: ADMIN,
    kind: 'form',
    submit: 'mallAdd',
    fields: ['coinName', 'amount', 'addCoin', 'status', 'sort'],
    enumLabels: { status: w.mall.shelfLabels },
    widgets: { amount: 'yuan' },
    initial: { status: 1, sort: 0 },
    done: w.form.created,
    after: '/mall_management',
  }),
  formScreen({
    path: '/update_mall',
    title: '编辑积分套餐',
    access: ADMIN,
    kind: 'form',
    submit: 'mallUpdate',
    fields: ['coinName', 'amount', 'addCoin', 'status', 'sort'],
    enumLabels: { status: w.mall.shelfLabels },
    widgets: { amount: 'yuan' },
    fixed: (q) => ({ id: Number(q.get('id')) }),
    recordOf: '/mall_management',
    load: { operation: 'mallGet', args: (q) => ({ query: { id: Number(q.get('id')) } }) },
    done: w.form.saved,
  }),
  listScreen({
    path: '/order_management',
    title: '订单管理',
    access: ADMIN,
    kind: 'list',
    menu: 'adminMall',
    icon: { name: 'BillOutline', tint: 'blue' },
    operation: 'orderListPage',
    liveOn: ['order'],
    search: true,
    chips: [
      { field: 'status', label: PA.orderState, options: w.orders.statuses },
      {
        field: 'channelId',
        label: PA.channel,
        // 0 is the offline orders (no channel); then one choice per channel, the sandbox among them.
        options: [{ value: '0', label: w.pay.offline }],
        from: { operation: 'payChannelListPage', choice: (c) => ({ value: c.id, label: c.name }) },
      },
    ],
    switches: [
      { field: 'needsRefund', label: PA.onlyNeedsRefund },
      { field: 'paidLate', label: PA.onlyPaidLate },
    ],
    item: {
      title: (o) => w.orders.title(o.coinName, o.userAccount),
      description: (o) =>
        [
          w.orders.row(o.orderNo, o.createdAt),
          PA.payLine(
            o.channelName ?? w.pay.offline,
            o.method ? (w.pay.methods[o.method] ?? o.method) : null,
            o.tradeNo,
          ),
          o.paidAt !== null
            ? PA.paidAt(w.format.dateTime(o.paidAt))
            : o.status === 'pending' && o.expiresAt !== null
              ? PA.closesAt(w.format.dateTime(o.expiresAt))
              : null,
        ]
          .filter((line) => line !== null)
          .join('\n'),
      extra: (o) => w.mall.yuan(o.amount),
      // Money that arrived after the order closed was credited all the same: flagged for the admin to check; a second
      // payment waits to be refunded.
      tag: (o) => [
        orderTag(o),
        ...(o.needsRefund ? [{ text: PA.needsRefund, tone: 'danger' as const }] : []),
        ...(o.paidLate ? [{ text: PA.paidLate, tone: 'danger' as const }] : []),
      ],
    },
    rowActions: [
      { label: PA.detail, color: 'primary', to: (o) => `/order_detail?id=${o.id}` },
      // 补单: every channel the order was sent to is asked now, whatever its state; what each said is shown.
      reconcileAction,
      confirmOfflineAction,
      cancelOrderAction,
      { label: w.orders.copyNo, copy: (o) => o.orderNo },
      { label: PA.copyTradeNo, when: (o) => o.tradeNo !== null, copy: (o) => o.tradeNo ?? '' },
    ],
    empty: w.orders.emptyAdmin,
  }),
  // 订单详情: the order, what the gateways reported for it (each payment refundable once), and how it got here.
  composedScreen({
    path: '/order_detail',
    title: '订单详情',
    access: ADMIN,
    recordOf: '/order_management',
    kind: 'composed',
    load: { operation: 'orderGet', args: (q) => ({ query: { id: Number(q.get('id')) } }) },
    liveOn: ['order'],
    body: [
      {
        type: 'detail',
        title: (o) => w.orders.title(o.coinName, o.userAccount),
        note: (o) =>
          o.needsRefund
            ? PA.orderNote.needsRefund
            : o.paidLate
              ? PA.orderNote.paidLate
              : o.status === 'pending'
                ? o.channelId === null
                  ? PA.orderNote.offline
                  : PA.orderNote.pendingOnline
                : null,
        fields: [
          { label: PA.fields.state, value: () => '', tag: (o) => orderTag(o) },
          { label: PA.fields.orderNo, value: (o) => o.orderNo },
          { label: PA.fields.buyer, value: (o) => o.userAccount },
          { label: PA.fields.amount, value: (o) => w.mall.yuan(o.amount) },
          { label: PA.fields.coins, value: (o) => PA.coinsValue(o.addCoin) },
          {
            label: PA.fields.channel,
            value: (o) =>
              PA.payLine(o.channelName ?? w.pay.offline, o.method ? (w.pay.methods[o.method] ?? o.method) : null, null),
          },
          { label: PA.fields.tradeNo, value: (o) => o.tradeNo ?? '' },
          { label: PA.fields.createdAt, value: (o) => w.format.dateTime(o.createdAt) },
          { label: PA.fields.paidAt, value: (o) => timeOrDash(o.paidAt) },
          { label: PA.fields.closedAt, value: (o) => timeOrDash(o.cancelledAt) },
          { label: PA.fields.refundedAt, value: (o) => timeOrDash(o.refundedAt) },
        ],
        actions: [
          reconcileAction,
          confirmOfflineAction,
          cancelOrderAction,
          { label: w.orders.copyNo, copy: (o) => o.orderNo },
        ],
      },
      {
        type: 'list',
        title: PA.payments,
        operation: 'orderPaymentPage',
        filter: (o) => ({ orderId: o.id }),
        item: {
          title: (p) => PA.paymentTitle(p.channelName, w.mall.yuan(p.amount)),
          description: (p) => {
            const short = shortOf(p);
            return [
              PA.paymentLine(p.tradeNo, w.format.dateTime(p.receivedAt)),
              ...(p.refundState === 'refunded' && p.refundMode && p.refundedAt !== null
                ? [
                    PA.refundedLine(
                      PA.refundModes[p.refundMode] ?? p.refundMode,
                      w.format.dateTime(p.refundedAt),
                      p.refundedBy,
                    ),
                    ...(p.takeBack.length > 0
                      ? [PA.takenBackLine(p.takeBack.map((t) => PA.refundTakesPart(t.account, t.coins)).join('、'))]
                      : []),
                  ]
                : p.takeBack.length === 0
                  ? [PA.noCoinsLine]
                  : p.takeBack.map((t) =>
                      PA.takeBackLine(PA.takeBackWho[t.kind] ?? t.kind, t.account, t.coins, t.balance),
                    )),
              ...(p.refundState === null && short ? [PA.shortLine(short.account, short.coins - short.balance)] : []),
            ].join('\n');
          },
          tag: (p) => [
            p.credited
              ? { text: PA.paymentStates.credited, tone: 'success' as const }
              : { text: PA.paymentStates.second, tone: 'warning' as const },
            ...(p.refundState ? [{ text: PA.paymentStates[p.refundState], tone: 'default' as const }] : []),
          ],
        },
        rowActions: [
          {
            label: PA.refundGateway,
            color: 'danger',
            when: refundable,
            confirm: (p) =>
              PA.refundAsk(w.mall.yuan(p.amount), p.channelName, p.refundState === 'refunding' ? '' : takeBackWords(p)),
            confirmLabels: PA.refundLabels,
            done: PA.refundDone,
            call: {
              operation: 'orderRefund',
              args: (p) => ({ body: { paymentId: p.id, mode: 'gateway' } }),
              refusalTitle: PA.refundRefused,
            },
          },
          {
            label: PA.refundOffline,
            color: 'warning',
            when: refundable,
            confirm: (p) =>
              PA.refundOfflineAsk(w.mall.yuan(p.amount), p.refundState === 'refunding' ? '' : takeBackWords(p)),
            confirmLabels: PA.refundOfflineLabels,
            done: PA.refundDone,
            call: {
              operation: 'orderRefund',
              args: (p) => ({ body: { paymentId: p.id, mode: 'offline' } }),
              refusalTitle: PA.refundRefused,
            },
          },
          {
            // Where the coins went (spent, transferred): the way forward when a refund cannot take them back.
            label: PA.statementOfShort,
            when: (p) => p.refundState === null && shortOf(p) !== undefined,
            to: (p) => `/coin_detail?userId=${shortOf(p)?.userId ?? ''}`,
          },
          { label: PA.copyTradeNo, copy: (p) => p.tradeNo },
        ],
        empty: PA.noPayments,
      },
      {
        type: 'list',
        title: PA.timeline,
        operation: 'orderEventPage',
        filter: (o) => ({ orderId: o.id, pageSize: 50 }),
        item: {
          title: (e) => [PA.eventKinds[e.kind] ?? e.kind, verdictWords(e)].filter(Boolean).join('：'),
          description: eventLine,
          tag: verdictTag,
        },
        empty: PA.noTimeline,
      },
    ],
  }),
  // 回调记录: every notification received, newest first, with its verdict; searchable by order number.
  listScreen({
    path: '/pay_notify_log',
    title: '回调记录',
    access: ADMIN,
    notice: w.notice.notifyLog,
    kind: 'list',
    menu: 'adminMall',
    icon: { name: 'FileOutline', tint: 'purple' },
    operation: 'payNotifyLogPage',
    liveOn: ['order'],
    search: true,
    searchPlaceholder: PA.notifyLogSearch,
    chips: [
      { field: 'accepted', label: PA.notifyAccepted, options: PA.acceptedChoices },
      {
        field: 'channelId',
        label: PA.channel,
        options: [],
        from: { operation: 'payChannelListPage', choice: (c) => ({ value: c.id, label: c.name }) },
      },
    ],
    item: {
      title: (e) => e.orderNo ?? PA.unknownOrderNo,
      // The verdict is the tag; an amount that differs also names both sums.
      description: (e) => (e.verdict === 'wrong_amount' ? `${verdictWords(e)}\n${eventLine(e)}` : eventLine(e)),
      tag: verdictTag,
    },
    rowActions: [
      {
        label: PA.openOrder,
        color: 'primary',
        when: (e) => e.orderId !== null,
        to: (e) => `/order_detail?id=${e.orderId ?? ''}`,
      },
      { label: PA.copyOrderNo, when: (e) => e.orderNo !== null, copy: (e) => e.orderNo ?? '' },
    ],
    empty: PA.notifyLogEmpty,
  }),
  // 渠道自检: the channel checked now, each item in words, and its last notification.
  composedScreen({
    path: '/pay_channel_check',
    title: '渠道自检',
    access: ADMIN,
    recordOf: '/pay_settings',
    kind: 'composed',
    load: { operation: 'payChannelCheck', args: (q) => ({ body: { id: Number(q.get('id')) } }) },
    body: [
      {
        type: 'detail',
        title: (c) => PA.checkTitle(c.name),
        note: (c) => (c.kind === 'sandbox' ? PA.checkNoteSandbox : PA.checkNote),
        fields: [
          { label: PA.checkedGateway, value: (c) => c.gateway },
          { label: PA.checkedPid, value: (c) => c.pid },
          { label: PA.checkedAt, value: (c) => w.format.dateTime(c.checkedAt) },
          ...(['key', 'gateway', 'merchant', 'publicOrigin', 'notifyPath'] as const).map((name) => ({
            label: PA.checkItems[name] ?? name,
            value: () => '',
            note: (c: Schemas['ChannelCheck']) => {
              const found = c.items.find((i) => i.item === name);
              return found ? PA.checkReason(PA.checkReasons[found.reason] ?? found.reason, found.detail) : null;
            },
            tag: (c: Schemas['ChannelCheck']): TagValue | null => {
              const found = c.items.find((i) => i.item === name);
              return found
                ? { text: PA.checkStates[found.state] ?? found.state, tone: CHECK_TONES[found.state] }
                : null;
            },
          })),
        ],
        actions: [
          {
            label: PA.recheck,
            color: 'primary',
            done: PA.rechecked,
            call: { operation: 'payChannelCheck', args: (c) => ({ body: { id: c.channelId } }) },
          },
          { label: PA.editChannel, to: (c) => `/update_pay_channel?id=${c.channelId}` },
          { label: PA.copyNotify, when: (c) => c.kind === 'epay', copy: (c) => c.notifyUrl },
        ],
      },
      {
        type: 'detail',
        title: () => PA.lastNotify,
        note: (c) => (c.lastNotify ? null : PA.noNotify),
        fields: [
          { label: PA.lastNotifyAt, value: (c) => (c.lastNotify ? w.format.dateTime(c.lastNotify.at) : '') },
          {
            label: PA.lastNotifyVerdict,
            value: (c) => (c.lastNotify ? verdictWords(c.lastNotify) : ''),
          },
          { label: PA.lastNotifyOrder, value: (c) => c.lastNotify?.orderNo ?? '' },
        ],
        actions: [
          {
            label: PA.openOrder,
            when: (c) => c.lastNotify?.orderId != null,
            to: (c) => `/order_detail?id=${c.lastNotify?.orderId ?? ''}`,
          },
          { label: PA.notifyLog, to: () => '/pay_notify_log' },
        ],
      },
    ],
  }),
  composedScreen({
    path: '/pay_settings',
    title: '支付设置',
    access: ADMIN,
    notice: w.notice.paySettings,
    kind: 'composed',
    menu: 'adminMall',
    icon: { name: 'PayCircleOutline', tint: 'green' },
    load: { operation: 'paySettingsGet', args: () => ({}) },
    body: [
      {
        type: 'detail',
        title: () => PA.settings,
        note: (s) => (s.sandboxOnPublicOrigin ? PA.sandboxWarning(s.publicOrigin) : null),
        fields: [
          { label: PA.siteAddress, value: (s) => s.publicOrigin },
          { label: PA.orderTimeout, value: (s) => PA.minutes(s.orderTimeoutMinutes) },
          { label: PA.retention, value: (s) => PA.days(s.notifyRetentionDays) },
        ],
        actions: [
          { label: PA.addChannel, color: 'primary', to: () => '/add_pay_channel' },
          { label: PA.editTimeout, to: () => '/pay_settings/timeout' },
          { label: PA.notifyLog, to: () => '/pay_notify_log' },
        ],
      },
      {
        type: 'list',
        title: PA.channels,
        operation: 'payChannelListPage',
        item: channelItem,
        rowActions: channelActions,
        empty: PA.empty,
      },
    ],
  }),
  formScreen({
    path: '/add_pay_channel',
    title: '添加支付渠道',
    access: ADMIN,
    kind: 'form',
    submit: 'payChannelAdd',
    fields: ['name', 'gateway', 'pid', 'key', 'methods', 'enabled'],
    enumLabels: { methods: w.pay.methods, enabled: PA.enabledLabels },
    placeholders: { gateway: PA.gatewayPlaceholder, pid: PA.pidPlaceholder, key: PA.keyPlaceholder },
    initial: { methods: ['alipay', 'wxpay'], enabled: 1 },
    done: w.form.created,
    after: '/pay_settings',
  }),
  formScreen({
    path: '/update_pay_channel',
    title: '编辑支付渠道',
    access: ADMIN,
    kind: 'form',
    submit: 'payChannelUpdate',
    fields: ['name', 'gateway', 'pid', 'key', 'methods', 'enabled'],
    enumLabels: { methods: w.pay.methods, enabled: PA.enabledLabels },
    placeholders: { gateway: PA.gatewayPlaceholder, pid: PA.pidPlaceholder },
    // The key is never answered: blank keeps the saved one.
    widgets: { key: 'password' },
    fixed: (q) => ({ id: Number(q.get('id')) }),
    recordOf: '/pay_settings',
    subject: {
      operation: 'payChannelGet',
      args: (q) => (q.get('id') ? { query: { id: Number(q.get('id')) } } : null),
      text: (c) => (c.kind === 'sandbox' ? PA.sandboxSubject : PA.channelSubject(c.name)),
    },
    load: {
      operation: 'payChannelGet',
      args: (q) => ({ query: { id: Number(q.get('id')) } }),
      // The built-in sandbox keeps its name, address, merchant id and key: only its methods and switch change.
      fields: (c) => (c.kind === 'sandbox' ? ['methods', 'enabled'] : null),
    },
    // Switching the sandbox on at a public address credits real coins for no money: asked first, then confirmed.
    confirm: {
      operation: 'payChannelGet',
      args: (b) => ({ query: { id: b.id } }),
      text: (b, c) => (b.enabled === 1 && sandboxInPublic(c) ? PA.sandboxPublicAsk(siteOf(c)) : null),
      sets: { confirmPublic: true },
      labels: PA.sandboxPublicLabels,
    },
    done: w.form.saved,
    after: '/pay_settings',
  }),
  formScreen({
    path: '/pay_settings/timeout',
    title: '订单关闭与记录保存',
    access: ADMIN,
    notice: w.notice.payTimeout,
    kind: 'form',
    submit: 'paySettingsUpdate',
    load: { operation: 'paySettingsGet', args: () => ({}) },
    done: w.form.saved,
    after: '/pay_settings',
  }),
  listScreen({
    path: '/redeem_management',
    title: '兑换码管理',
    access: ADMIN,
    kind: 'list',
    menu: 'adminMall',
    icon: { name: 'GiftOutline', tint: 'red' },
    operation: 'redeemListPage',
    addLink: { label: w.redeem.generate, to: '/redeem_generate' },
    item: {
      title: (c) => c.code,
      description: (c) => w.redeem.row(c.batchId, c.coin, c.expiresAt, c.note),
      extra: (c) =>
        `${w.redeem.statuses[c.status] ?? c.status}${c.usedByAccount ? w.redeem.usedBy(c.usedByAccount) : ''}`,
    },
    rowActions: [
      {
        label: w.redeem.disable,
        color: 'danger',
        when: (c) => c.status === 'unused',
        confirm: (c) => w.redeem.disableAsk(c.code),
        done: w.redeem.disabled,
        call: { operation: 'redeemDisable', args: (c) => ({ body: { id: c.id } }) },
      },
    ],
    empty: w.redeem.empty,
  }),
  {
    path: '/redeem_generate',
    title: '生成兑换码',
    access: ADMIN,
    kind: 'custom',
    screen: 'redeemGenerate',
  },
  listScreen({
    path: '/platform_management',
    title: '平台管理',
    access: ADMIN,
    notice: w.notice.platformManagement,
    kind: 'list',
    menu: 'adminPlatform',
    icon: { name: 'AppstoreOutline', tint: 'blue' },
    operation: 'platformListPage',
    search: true,
    addLink: { label: P.add, to: '/add_platform' },
    item: {
      title: (p) => p.name,
      description: (p) => P.row(p.kindTitle, priceOf(p), p.services, p.activeServices),
      tag: (p) => ({ text: P.shelfStatus[p.status] ?? String(p.status), tone: p.status === 1 ? 'success' : 'default' }),
    },
    rowActions: [
      { label: P.edit, to: (p) => `/update_platform?id=${p.id}` },
      {
        label: P.onShelf,
        color: 'success',
        when: (p) => p.status === 0,
        done: P.onShelfDone,
        call: { operation: 'platformShelf', args: (p) => ({ body: { id: p.id, status: 1 } }) },
      },
      {
        label: P.offShelf,
        color: 'warning',
        when: (p) => p.status === 1,
        confirm: (p) => P.confirmOffShelf(p.name),
        done: P.offShelfDone,
        call: { operation: 'platformShelf', args: (p) => ({ body: { id: p.id, status: 0 } }) },
      },
      { label: P.services, color: 'primary', to: (p) => `/service_management?platformId=${p.id}` },
      { label: P.runsOf, to: (p) => `/run_management?platformId=${p.id}` },
    ],
    empty: P.empty,
  }),
  formScreen({
    path: '/add_platform',
    title: '添加平台',
    access: ADMIN,
    kind: 'form',
    submit: 'platformAdd',
    fields: ['kind', 'name', 'description', 'price', 'billingUnit', 'retryLimit', 'status', 'sort'],
    textareas: ['description'],
    choices: { kind: platforms.map((p) => ({ value: p.code, label: p.title })) },
    enumLabels: { status: P.shelfLabels },
    initial: { billingUnit: 'per_run', retryLimit: 3, status: 0, sort: 0 },
    done: w.form.created,
    after: '/platform_management',
  }),
  formScreen({
    path: '/update_platform',
    title: '修改平台',
    access: ADMIN,
    kind: 'form',
    submit: 'platformUpdate',
    fields: ['name', 'description', 'price', 'billingUnit', 'retryLimit', 'status', 'sort'],
    textareas: ['description'],
    enumLabels: { status: P.shelfLabels },
    fixed: (q) => ({ id: Number(q.get('id')) }),
    recordOf: '/platform_management',
    load: { operation: 'platformGet', args: (q) => ({ query: { id: Number(q.get('id')) } }) },
    done: w.form.saved,
  }),
  listScreen({
    path: '/service_management',
    title: '服务管理',
    access: ADMIN,
    kind: 'list',
    menu: 'adminPlatform',
    icon: { name: 'UserSetOutline', tint: 'green' },
    operation: 'serviceListPage',
    search: true,
    urlFilters: ['platformId', 'userId'],
    chips: [{ field: 'state', label: P.state, options: P.serviceStates }],
    item: {
      title: (s) => `${s.userAccount} · ${s.platformName}`,
      description: (s) =>
        `${P.nextRun} ${timeOrDash(s.nextRunAt)} · ${P.sandbox(P.sandboxModes[s.sandboxMode] ?? s.sandboxMode)}`,
      extra: (s) => P.serviceCounts(s.succeeded, s.failed),
      tag: (s) => serviceTag(s.state),
    },
    rowActions: [
      {
        label: P.pause,
        color: 'warning',
        when: (s) => s.state === 'active',
        confirm: (s) => P.pauseAsk(s.userAccount, s.platformName),
        done: P.paused,
        call: { operation: 'servicePause', args: (s) => ({ body: { id: s.id } }) },
      },
      { label: P.runsOf, to: (s) => `/run_management?serviceId=${s.id}` },
      ...(['ok', 'flaky', 'permanent', 'auto'] as const).map((mode) => ({
        label: P.sandbox(P.sandboxModes[mode] ?? mode),
        when: (s: Schemas['Service']) => s.sandboxMode !== mode,
        done: P.sandboxSet,
        call: { operation: 'serviceSandbox' as const, args: (s: Schemas['Service']) => ({ body: { id: s.id, mode } }) },
      })),
    ],
    empty: P.noServicesAdmin,
  }),
  listScreen({
    path: '/run_management',
    title: '执行记录',
    access: ADMIN,
    kind: 'list',
    menu: 'adminPlatform',
    icon: { name: 'HistogramOutline', tint: 'cyan' },
    operation: 'runListPage',
    liveOn: ['run'],
    search: true,
    urlFilters: ['platformId', 'userId', 'serviceId'],
    chips: [{ field: 'state', label: P.state, options: P.runStates }],
    item: runItem(
      (r) => P.runRow(r.userAccount, r.platformName),
      (r) => `${runWhen(r)}${r.result ? ` · ${r.result}` : ''}`,
    ),
    empty: P.noRunsAdmin,
  }),
];
