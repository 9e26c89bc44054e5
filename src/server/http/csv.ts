/**
 * RFC 4180 CSV with a UTF-8 byte-order mark, so Excel opens Chinese text correctly. Cells that a spreadsheet would
 * run as a formula (=, +, -, @ first) are prefixed with a quote: exported user text must stay inert.
 */
export function toCsv(rows: readonly (readonly (string | number | null)[])[]): string {
  const cell = (value: string | number | null) => {
    if (value === null) return '';
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return '\ufeff' + rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
