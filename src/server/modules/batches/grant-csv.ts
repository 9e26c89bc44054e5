/**
 * The quota batch's input: a CSV with the header `userAccount,amount` and one account per line. The whole file is
 * checked before anything starts, and every bad line is named (blank, wrong columns, bad amount, duplicate account,
 * and, after the database is asked, unknown account); a file with any error starts nothing.
 */
import type { Schemas } from '../../../api/operations.js';

export interface GrantLine {
  line: number;
  userAccount: string;
  amount: number;
}

/** One bad line: its number, the account it names (as written, clipped; empty when none) and why it is wrong. */
export type LineProblem = Schemas['LineProblem'];

export const GRANT_CSV_HEADER = 'userAccount,amount';
export const GRANT_CSV_MAX_LINES = 20_000;
const ACCOUNT = /^[A-Za-z0-9_]{4,16}$/;
/** The contract's longest `account` of a problem: a longer cell is clipped, the line number still finds it. */
const ACCOUNT_SHOWN = 40;

export function parseGrantCsv(text: string): { rows: GrantLine[]; errors: LineProblem[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // A file ends with a newline: the empty string after it is no line.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const errors: LineProblem[] = [];
  const rows: GrantLine[] = [];
  const fail = (line: number, account: string, reason: string) =>
    errors.push({ line, account: account.slice(0, ACCOUNT_SHOWN), reason });
  const header = (lines[0] ?? '').replace(/\s/g, '');
  if (header.toLowerCase() !== GRANT_CSV_HEADER.toLowerCase()) fail(1, '', `表头应为 ${GRANT_CSV_HEADER}`);
  if (lines.length - 1 > GRANT_CSV_MAX_LINES) {
    fail(GRANT_CSV_MAX_LINES + 2, '', `最多 ${GRANT_CSV_MAX_LINES} 行，请把其余的行分到另一个文件`);
    return { rows, errors };
  }
  const seen = new Map<string, number>();
  lines.slice(1).forEach((raw, i) => {
    const line = i + 2;
    if (raw.trim() === '') return fail(line, '', '空行');
    const cells = raw.split(',').map((c) => c.trim());
    if (cells.length !== 2) return fail(line, cells[0] ?? '', '应为两列：账号,数量');
    const [userAccount, amountText] = cells as [string, string];
    if (!ACCOUNT.test(userAccount)) return fail(line, userAccount, '账号格式不对：应为 4–16 位字母、数字或下划线');
    const amount = Number(amountText);
    if (!/^\d+$/.test(amountText) || amount < 1 || amount > 10_000)
      return fail(line, userAccount, '数量应为 1 到 10000 的整数');
    const first = seen.get(userAccount.toLowerCase());
    if (first !== undefined) return fail(line, userAccount, `与第 ${first} 行的账号重复，每个账号只能出现一次`);
    seen.set(userAccount.toLowerCase(), line);
    rows.push({ line, userAccount, amount });
  });
  if (rows.length === 0 && errors.length === 0) fail(2, '', '没有任何账号');
  return { rows, errors };
}

/** The 400 answer's message: one sentence with the count; the problems themselves go beside it, line by line. */
export const problemsMessage = (count: number): string =>
  `CSV 有 ${count.toLocaleString('en-US')} 处错误，任务未开始，请按下方列表改正后重新上传`;

/** Every problem, by line number (a line has at most one). */
export const byLine = (problems: readonly LineProblem[]): LineProblem[] =>
  [...problems].sort((a, b) => a.line - b.line);
