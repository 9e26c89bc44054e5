import type { Schemas } from '../../api/operations.js';
import { coinKindWords, redeemStatusWords, wordFor } from '../../shared/words.js';
import { zoneOffsetAt } from './site-time.js';

// How a CSV export writes coded values and instants: in the words the screens use (src/shared/words.ts) and in the
// site's time zone (TZ_SITE), so a spreadsheet reads like the screen it was exported from. Every CSV row builder
// (statement, redeem batch, batch-task output) goes through here; none writes a code or an ISO instant itself.

type Cell = string | number | null;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  return format;
}

function partsOf(ms: number, timeZone: string) {
  const part = Object.fromEntries(
    formatFor(timeZone)
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  return part as Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', string>;
}

const HOUR_MS = 3600_000;
/** The zone's offset from UTC (ms) at the start of each UTC hour asked so far; bounded, cleared when full. */
const offsets = new Map<string, Map<number, number>>();

function offsetAt(hourStart: number, timeZone: string): number {
  let forZone = offsets.get(timeZone);
  if (!forZone) offsets.set(timeZone, (forZone = new Map<number, number>()));
  let offset = forZone.get(hourStart);
  if (offset === undefined) {
    offset = zoneOffsetAt(hourStart, timeZone);
    if (forZone.size >= 100_000) forZone.clear();
    forZone.set(hourStart, offset);
  }
  return offset;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** An instant as `yyyy-mm-dd HH:mm:ss` in `timeZone`: the screen's date and time, with seconds for ordering rows. */
export function csvTime(at: number | string | null, timeZone: string): string | null {
  if (at === null) return null;
  // A number is epoch milliseconds; a string is an ISO instant written by an older build (a stored task output).
  const ms = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(ms)) return typeof at === 'string' ? at : null;
  // Intl's formatting costs about 10 µs an instant, most of a long export's time. The zone's offset is looked up
  // once per hour instead; where it differs at the hour's two ends (a clock change inside it) Intl answers.
  const hourStart = Math.floor(ms / HOUR_MS) * HOUR_MS;
  const offset = offsetAt(hourStart, timeZone);
  const local = new Date(ms + offset);
  const year = local.getUTCFullYear();
  if (offset === offsetAt(hourStart + HOUR_MS, timeZone) && year >= 1000 && year <= 9999) {
    return (
      `${year}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())} ` +
      `${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`
    );
  }
  const part = partsOf(ms, timeZone);
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
}

export const csvCoinKind = (kind: string): string => wordFor(coinKindWords, kind);
export const csvRedeemStatus = (status: string): string => wordFor(redeemStatusWords, status);

/** The statement export's columns and one entry as a row of them. */
export const STATEMENT_CSV_HEADER: readonly string[] = [
  '时间',
  '类型',
  '变动',
  '变动后余额',
  '对方账号',
  '说明',
  '编号',
  '操作人',
];
export const statementCsvRow = (e: Schemas['CoinEntry'], timeZone: string): Cell[] => [
  csvTime(e.createdAt, timeZone),
  csvCoinKind(e.kind),
  e.amount,
  e.balanceAfter,
  e.counterpartyAccount,
  e.description,
  e.reference,
  e.actorAccount,
];

/** A redeem batch's columns and one code as a row of them. */
export const REDEEM_CSV_HEADER: readonly string[] = ['兑换码', '积分', '状态', '过期时间', '使用者', '使用时间'];
export const redeemCsvRow = (
  c: {
    code: string;
    coin: number;
    status: string;
    expiresAt: number;
    usedByAccount: string | null;
    usedAt: number | null;
  },
  timeZone: string,
): Cell[] => [
  c.code,
  c.coin,
  csvRedeemStatus(c.status),
  csvTime(c.expiresAt, timeZone),
  c.usedByAccount,
  csvTime(c.usedAt, timeZone),
];

/**
 * A line of the all-statements task's output, stored as `[account, instant, kind, amount, balanceAfter, description,
 * reference]` (the instant as written when the task ran): formatted when the file is downloaded, so outputs stored by
 * an older build read the same.
 */
export function statementTaskCsvRow(stored: readonly Cell[], timeZone: string): Cell[] {
  const [account = null, at = null, kind = null, ...rest] = stored;
  return [account, csvTime(at, timeZone), kind === null ? null : csvCoinKind(String(kind)), ...rest];
}
