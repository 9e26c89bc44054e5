import type { Schemas } from '../../../api/operations.js';
import type { AppContext } from '../context.js';
import { cappedFetch } from '../../lib/capped-fetch.js';
import { isLocalOrigin } from '../../lib/public-origin.js';
import { notFound } from '../../lib/errors.js';
import * as records from '../orders/payment-records-repo.js';
import { notifyUrl, openChannel } from './channels.js';
import { GATEWAY_TIMEOUT_MS } from './connectors/epay.js';
import { connectorFor } from './connectors/index.js';
import { SELF_CHECK_PARAM } from './notify.js';
import { eventView } from './records.js';
import * as repo from './repo.js';

// 渠道自检: what commonly keeps a 易支付 channel from working, each checked and said in words on the screen (the
// codes here, the words in the web app's messages): the key readable, the gateway's address answering as a 易支付
// gateway, the merchant id and key accepted by it, the site's public address, and the notify route reachable through
// it (a proxy rule missing for /api/pay/notify is the commonest cause of lost notifications), with the channel's last
// notification and its verdict.

type Item = Schemas['ChannelCheckItem'];
const item = (
  name: Item['item'],
  state: Item['state'],
  reason: Item['reason'],
  detail: string | null = null,
): Item => ({
  item: name,
  state,
  reason,
  detail,
});

export async function checkChannel(app: AppContext, id: number): Promise<Schemas['ChannelCheck']> {
  const row = await repo.findChannel(app.db, id);
  if (!row) throw notFound('支付渠道不存在');
  const channel = await openChannel(app, id);
  const items: Item[] = [item('key', channel ? 'ok' : 'fail', channel ? 'readable' : 'unreadable')];
  // The sandbox is built in: nothing of it is checked, and the screen says so (未检查, 内置), not 正常.
  if (row.kind === 'sandbox') {
    items.push(item('gateway', 'skipped', 'builtin'), item('merchant', 'skipped', 'builtin'));
  } else if (!channel) {
    items.push(item('gateway', 'skipped', 'not_checked'), item('merchant', 'skipped', 'not_checked'));
  } else {
    const said = await connectorFor(app, channel.kind).queryMerchant(channel);
    if (said.state === 'accepted') items.push(item('gateway', 'ok', 'answered'), item('merchant', 'ok', 'accepted'));
    else if (said.state === 'refused')
      items.push(item('gateway', 'ok', 'answered'), item('merchant', 'fail', 'refused', said.message));
    else
      items.push(
        // A timeout's detail (5 s) is in its words already.
        item('gateway', 'fail', said.reason, said.reason === 'timeout' ? null : said.detail),
        item('merchant', 'skipped', 'not_checked'),
      );
  }
  // The sandbox notifies over loopback: the public address and the proxy do not concern it.
  if (row.kind === 'sandbox')
    items.push(item('publicOrigin', 'skipped', 'builtin'), item('notifyPath', 'skipped', 'builtin'));
  else items.push(publicOriginItem(app), await notifyPathItem(app));
  const last = await records.lastNotifyOf(app.db, id);
  return {
    channelId: row.id,
    name: row.name,
    kind: row.kind,
    gateway: row.kind === 'sandbox' ? '' : row.gateway,
    pid: row.pid,
    checkedAt: app.now(),
    notifyUrl: notifyUrl(app),
    items,
    lastNotify: last ? eventView(last) : null,
  };
}

/** A gateway on the internet reaches the site only at a public https address. */
function publicOriginItem(app: AppContext): Item {
  const origin = app.config.publicOrigin.origin;
  if (isLocalOrigin(app.config.publicOrigin)) return item('publicOrigin', 'warn', 'localhost', origin);
  return origin.startsWith('https://')
    ? item('publicOrigin', 'ok', 'https', origin)
    : item('publicOrigin', 'fail', 'http_public', origin);
}

/**
 * Whether /api/pay/notify is reached through PUBLIC_ORIGIN: the server asks its own public address as a gateway would
 * and expects the notify route's own plain-text `fail` (a login page, a 404 or a redirect means the proxy in front
 * does not pass the route on).
 */
async function notifyPathItem(app: AppContext): Promise<Item> {
  const url = new URL(notifyUrl(app));
  url.searchParams.set(SELF_CHECK_PARAM, '1');
  const reply = await cappedFetch(url, { timeoutMs: GATEWAY_TIMEOUT_MS, maxBytes: 4096 });
  if (!reply.ok) return item('notifyPath', 'fail', reply.reason, reply.reason === 'timeout' ? null : reply.detail);
  if (reply.status === 200 && reply.text === 'fail' && reply.contentType.startsWith('text/plain'))
    return item('notifyPath', 'ok', 'ours');
  return item('notifyPath', 'fail', 'not_ours', `HTTP ${reply.status}`);
}
