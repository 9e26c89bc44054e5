import type { CsvRow } from '../lib/csv-file.js';

const BOM = '\ufeff';

/**
 * RFC 4180 CSV with a UTF-8 byte-order mark, so Excel opens Chinese text correctly. Cells that a spreadsheet would
 * run as a formula (=, +, -, @ first) are prefixed with a quote: exported user text must stay inert.
 */
export function toCsv(rows: readonly CsvRow[]): string {
  return BOM + csvLines(rows);
}

const cell = (value: string | number | null) => {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** Rows as CSV lines, each ending in CRLF. */
const csvLines = (rows: readonly CsvRow[]) => rows.map((row) => row.map(cell).join(',') + '\r\n').join('');

/** The same file from chunks of rows as they are read: the text of each chunk as soon as it arrives. */
export async function* csvStream(chunks: AsyncIterable<readonly CsvRow[]>): AsyncGenerator<string> {
  yield BOM;
  for await (const rows of chunks) if (rows.length > 0) yield csvLines(rows);
}
