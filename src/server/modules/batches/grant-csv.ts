/**
 * The quota batch's input: a CSV with the header `userAccount,amount` and one account per line. The whole file is
 * checked before anything starts, and every bad line is named (blank, wrong columns, bad amount, duplicate account,
 * and, after the database is asked, unknown account); a file with any error starts nothing.
 */
export interface GrantLine {
  line: number;
  userAccount: string;
  amount: number;
}

export interface LineError {
  line: number;
  message: string;
}

export const GRANT_CSV_HEADER = 'userAccount,amount';
export const GRANT_CSV_MAX_LINES = 20_000;
const ACCOUNT = /^[A-Za-z0-9_]{4,16}$/;

export function parseGrantCsv(text: string): { rows: GrantLine[]; errors: LineError[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  // A file ends with a newline: the empty string after it is no line.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const errors: LineError[] = [];
  const rows: GrantLine[] = [];
  const header = (lines[0] ?? '').replace(/\s/g, '');
  if (header.toLowerCase() !== GRANT_CSV_HEADER.toLowerCase())
    errors.push({ line: 1, message: `表头应为 ${GRANT_CSV_HEADER}` });
  if (lines.length - 1 > GRANT_CSV_MAX_LINES)
    return { rows, errors: [...errors, { line: GRANT_CSV_MAX_LINES + 2, message: `最多 ${GRANT_CSV_MAX_LINES} 行` }] };
  const seen = new Map<string, number>();
  lines.slice(1).forEach((raw, i) => {
    const line = i + 2;
    if (raw.trim() === '') return errors.push({ line, message: '空行' });
    const cells = raw.split(',').map((c) => c.trim());
    if (cells.length !== 2) return errors.push({ line, message: '应为两列：账号,数量' });
    const [userAccount, amountText] = cells as [string, string];
    if (!ACCOUNT.test(userAccount)) return errors.push({ line, message: `账号 ${userAccount.slice(0, 20)} 格式不对` });
    const amount = Number(amountText);
    if (!/^\d+$/.test(amountText) || amount < 1 || amount > 10_000)
      return errors.push({ line, message: '数量应为 1 到 10000 的整数' });
    const first = seen.get(userAccount.toLowerCase());
    if (first !== undefined) return errors.push({ line, message: `账号 ${userAccount} 与第 ${first} 行重复` });
    seen.set(userAccount.toLowerCase(), line);
    rows.push({ line, userAccount, amount });
  });
  if (rows.length === 0 && errors.length === 0) errors.push({ line: 2, message: '没有任何账号' });
  return { rows, errors };
}

/** The 400 answer's message: how many lines are wrong and each of the first ones, by line number. */
export function describeErrors(errors: readonly LineError[], shown = 20): string {
  const sorted = [...errors].sort((a, b) => a.line - b.line);
  const listed = sorted
    .slice(0, shown)
    .map((e) => `第 ${e.line} 行：${e.message}`)
    .join('；');
  return `CSV 有 ${errors.length} 处错误，任务未开始。${listed}${errors.length > shown ? '；……' : ''}`;
}
