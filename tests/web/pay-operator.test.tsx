import { cleanup, fireEvent, render, screen as view, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screens } from '../../screens.config';
import { ApiError } from '../../src/api/api-error';
import type { Schemas } from '../../src/api/operations';
import { api } from '../../src/web/api';
import type { ComposedScreen, ListScreen } from '../../src/web/config/types';
import { actionSheet, alert, confirm, toast } from '../../src/web/feedback';
import { ComposedRenderer } from '../../src/web/renderers/ComposedRenderer';
import { ListRenderer } from '../../src/web/renderers/ListRenderer';
import { signIn } from '../../src/web/state/session';
import { anAdmin } from './users';

// The operator's payment screens (issue 41), drawn from screens.config.ts by the generic renderers: 订单详情 with its
// payments (refunds that name what they take back, none offered while a balance falls short) and its timeline, 回调记录,
// and 渠道自检, each outcome where it can be read (a dialog, the page), never only in a toast.

vi.mock('../../src/web/api', () => ({ api: { call: vi.fn() } }));
vi.mock('../../src/web/feedback', () => ({ toast: vi.fn(), confirm: vi.fn(), actionSheet: vi.fn(), alert: vi.fn() }));
const call = vi.mocked(api.call) as unknown as ReturnType<typeof vi.fn>;

const byPath = (path: string) => screens.find((s) => s.path === path)!;
const page = (records: unknown[]) => ({ records, total: records.length, current: 1, pageSize: 20 });
const bodiesOf = (op: string) =>
  call.mock.calls.filter(([o]) => o === op).map(([, input]) => (input as { body?: unknown }).body);

const order = (fields: Partial<Schemas['Order']> = {}): Schemas['Order'] => ({
  id: 7,
  orderNo: '261129K7P2MQXA',
  userAccount: 'buyer_01',
  packageId: 1,
  coinName: '百积分',
  amount: 990,
  addCoin: 100,
  status: 'paid',
  createdAt: 1795000000000,
  paidAt: 1795000060000,
  cancelledAt: null,
  channelId: 2,
  channelName: '某某易支付',
  method: 'alipay',
  tradeNo: 'T1',
  expiresAt: 1795000900000,
  paidBy: 'online',
  paidLate: false,
  needsRefund: false,
  refundedAt: null,
  ...fields,
});
const payment = (fields: Partial<Schemas['GatewayPayment']> = {}): Schemas['GatewayPayment'] => ({
  id: 11,
  orderId: 7,
  orderNo: '261129K7P2MQXA',
  channelId: 2,
  channelName: '某某易支付',
  tradeNo: 'T1',
  amount: 990,
  credited: true,
  receivedAt: 1795000060000,
  refundState: null,
  refundMode: null,
  refundedAt: null,
  refundedBy: null,
  takeBack: [
    { userId: 3, account: 'buyer_01', kind: 'buyer', coins: 100, balance: 130 },
    { userId: 4, account: 'agent_01', kind: 'agent', coins: 10, balance: 10 },
  ],
  ...fields,
});
const event = (fields: Partial<Schemas['PaymentEvent']> = {}): Schemas['PaymentEvent'] => ({
  id: 1,
  at: 1795000060000,
  kind: 'notify',
  orderId: 7,
  orderNo: '261129K7P2MQXA',
  channelId: 2,
  channelName: '某某易支付',
  method: 'alipay',
  tradeNo: 'T1',
  money: '9.99',
  verdict: 'wrong_amount',
  expectedAmount: 990,
  source: null,
  sender: '203.0.113.7',
  actorAccount: null,
  detail: null,
  ...fields,
});

function open(path: string, element: React.ReactNode, search = '') {
  const router = createMemoryRouter([{ path, element }], { initialEntries: [path + search] });
  render(<RouterProvider router={router} />);
}

beforeEach(() => {
  call.mockReset();
  for (const f of [toast, confirm, actionSheet, alert]) vi.mocked(f).mockReset();
  signIn(anAdmin());
});
afterEach(cleanup);

describe('/order_detail', () => {
  const openDetail = () =>
    open('/order_detail', <ComposedRenderer screen={byPath('/order_detail') as ComposedScreen} />, '?id=7');

  it('shows the order, what a refund takes back from whom, and the timeline with verdicts in words', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'orderGet'
        ? order({ needsRefund: true })
        : op === 'orderPaymentPage'
          ? page([payment(), payment({ id: 12, tradeNo: 'T2', credited: false, takeBack: [] })])
          : op === 'orderEventPage'
            ? page([event({ id: 1, kind: 'created', verdict: null, money: null, sender: null }), event({ id: 2 })])
            : true,
    );
    openDetail();
    await view.findByText('261129K7P2MQXA');
    expect(view.getByText(/第二笔付款：请在下方「付款记录」/)).toBeTruthy();
    expect(bodiesOf('orderPaymentPage')[0]).toMatchObject({ orderId: 7 });
    expect(await view.findByText(/退款时从下单人 buyer_01 扣回 100 积分（现有 130）/)).toBeTruthy();
    expect(view.getByText(/第二笔付款：退款不动积分/)).toBeTruthy();
    expect(await view.findByText('收到异步通知：金额不符（应付 ¥9.90，通知 ¥9.99）')).toBeTruthy();
    expect(view.getByText(/来自 203\.0\.113\.7/)).toBeTruthy();

    // 原路退款 asks first, naming the money and every account's coins it takes back.
    fireEvent.click(view.getAllByText('某某易支付 · ¥9.90')[0]!);
    const actions = vi.mocked(actionSheet).mock.calls[0]![0];
    expect(actions.map((a) => a.text)).toEqual(['原路退款', '记为已线下退款', '复制交易号']);
    vi.mocked(confirm).mockResolvedValueOnce(false);
    actions[0]!.onAction();
    await waitFor(() => expect(confirm).toHaveBeenCalled());
    expect(vi.mocked(confirm).mock.calls[0]![0]).toBe(
      '通过「某某易支付」把 ¥9.90 原路退给付款人吗？同时扣回：buyer_01 的 100 积分、agent_01 的 10 积分。',
    );
    expect(bodiesOf('orderRefund')).toEqual([]);
  });

  it('offers no refund while a balance falls short, and says by how much', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'orderGet'
        ? order()
        : op === 'orderPaymentPage'
          ? page([payment({ takeBack: [{ userId: 3, account: 'buyer_01', kind: 'buyer', coins: 100, balance: 40 }] })])
          : page([]),
    );
    openDetail();
    expect(await view.findByText(/buyer_01 的积分不够扣回（差 60 积分），暂时不能退款：看看积分去了哪里/)).toBeTruthy();
    fireEvent.click(view.getByText('某某易支付 · ¥9.90'));
    // No refund offered, but the way on: where the buyer's coins went.
    const offered = vi.mocked(actionSheet).mock.calls[0]?.[0].map((a) => a.text) ?? [];
    expect(offered).toEqual(['查看积分去向', '复制交易号']);
  });

  it("shows a gateway's refusal of a refund in a dialog, not a toast", async () => {
    call.mockImplementation(async (op: string) => {
      if (op === 'orderRefund')
        throw new ApiError('支付平台拒绝退款：该商户未开通退款功能。积分已退回。', 'envelope', { code: 40900 });
      return op === 'orderGet' ? order() : op === 'orderPaymentPage' ? page([payment()]) : page([]);
    });
    openDetail();
    fireEvent.click(await view.findByText('某某易支付 · ¥9.90'));
    vi.mocked(confirm).mockResolvedValueOnce(true);
    vi.mocked(actionSheet).mock.calls[0]![0][0]!.onAction();
    await waitFor(() => expect(alert).toHaveBeenCalled());
    expect(vi.mocked(alert).mock.calls[0]).toEqual([
      '没有退款',
      '支付平台拒绝退款：该商户未开通退款功能。积分已退回。',
    ]);
    expect(bodiesOf('orderRefund')).toEqual([{ paymentId: 11, mode: 'gateway' }]);
    expect(toast).not.toHaveBeenCalled();
  });
});

describe('/pay_notify_log', () => {
  it('lists notifications with their verdicts in words, the sender, and a way to the order', async () => {
    call.mockImplementation(async (op: string) =>
      op === 'payNotifyLogPage'
        ? page([event(), event({ id: 3, orderId: null, orderNo: '261129ZZZZZZZZ', verdict: 'unknown_order' })])
        : page([]),
    );
    open('/pay_notify_log', <ListRenderer screen={byPath('/pay_notify_log') as ListScreen} />, '?searchText=261129');
    expect(await view.findByText(/金额不符（应付 ¥9\.90，通知 ¥9\.99）/)).toBeTruthy();
    expect(bodiesOf('payNotifyLogPage')[0]).toMatchObject({ searchText: '261129' });
    expect(view.getAllByText(/来自 203\.0\.113\.7/).length).toBeGreaterThan(0);
    fireEvent.click(view.getByText('261129ZZZZZZZZ'));
    // No order of ours: nothing to open, the number to copy.
    expect(
      vi
        .mocked(actionSheet)
        .mock.calls.at(-1)?.[0]
        .map((a) => a.text) ?? ['复制订单号'],
    ).toEqual(['复制订单号']);
  });
});

describe('/pay_channel_check', () => {
  it('says each check in words with its state, and the last notification', async () => {
    const check: Schemas['ChannelCheck'] = {
      channelId: 2,
      name: '某某易支付',
      kind: 'epay',
      gateway: 'https://pay.example.com/',
      pid: '1001',
      checkedAt: 1795000060000,
      notifyUrl: 'https://mall.example.com/api/pay/notify',
      items: [
        { item: 'key', state: 'ok', reason: 'readable', detail: null },
        { item: 'gateway', state: 'ok', reason: 'answered', detail: null },
        { item: 'merchant', state: 'fail', reason: 'refused', detail: 'KEY校验失败' },
        { item: 'publicOrigin', state: 'ok', reason: 'https', detail: 'https://mall.example.com' },
        { item: 'notifyPath', state: 'fail', reason: 'not_ours', detail: 'HTTP 404' },
      ],
      lastNotify: event(),
    };
    call.mockImplementation(async (op: string) => (op === 'payChannelCheck' ? check : true));
    open('/pay_channel_check', <ComposedRenderer screen={byPath('/pay_channel_check') as ComposedScreen} />, '?id=2');
    expect(await view.findByText('自检：某某易支付')).toBeTruthy();
    expect(bodiesOf('payChannelCheck')[0]).toEqual({ id: 2 });
    expect(view.getByText('网关不认这个商户号和密钥：请对照商户后台重新填写：KEY校验失败')).toBeTruthy();
    expect(view.getByText(/反向代理是否把 \/api\/pay\/notify 转给本站（不要登录、不要改写）：HTTP 404/)).toBeTruthy();
    expect(view.getAllByText('有问题')).toHaveLength(2);
    expect(view.getByText('金额不符（应付 ¥9.90，通知 ¥9.99）')).toBeTruthy();
  });
});
