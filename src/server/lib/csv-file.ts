// What a CSV export is, for the services that build one and the http layer that writes it (http/csv.ts).

/** A file answer (the CSV exports): sent as it is, not in the envelope. */
export interface CsvFile {
  filename: string;
  /**
   * Rows, header first; cells are escaped when written. A long file comes as an async sequence of row chunks
   * instead, and is streamed as they come.
   */
  rows: readonly CsvRow[] | AsyncIterable<readonly CsvRow[]>;
}

export type CsvRow = readonly (string | number | null)[];
