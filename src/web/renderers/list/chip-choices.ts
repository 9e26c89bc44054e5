import { useEffect, useState } from 'react';
import type { CallInit } from '../../../api/client';
import { OPERATIONS } from '../../../api/generated/operations.gen';
import type { ChipSource, ListChip, PageOperation } from '../../config/types';
import { api } from '../../api';

/** One choice of a filter: the value as the URL holds it, and its words. */
export interface ChipChoice {
  value: string;
  label: string;
}

/** A chip's fixed options in their order (a record keeps its keys' order, but digits would sort first). */
const isList = (options: ListChip['options']): options is readonly ChipChoice[] => Array.isArray(options);
export const fixedChoices = (options: ListChip['options']): ChipChoice[] =>
  isList(options)
    ? options.map(({ value, label }) => ({ value, label }))
    : Object.entries(options).map(([value, label]) => ({ value, label }));

type ErasedSource = Omit<ChipSource, 'choice'> & {
  choice: (row: unknown) => { value: string | number; label: string };
};

/**
 * A chip's choices: its fixed options, then one per row of its `from` read (the payment channels), read once when
 * the list opens. Until that answer (or if it fails) the fixed options show alone, so the filter is never a dead end.
 */
export function useChipChoices(chip: ListChip): ChipChoice[] {
  const source = chip.from as ErasedSource | undefined;
  const [read, setRead] = useState<ChipChoice[]>([]);
  useEffect(() => {
    if (!source) return;
    const controller = new AbortController();
    const page = { ...(source.args ?? {}), current: 1, pageSize: 100 };
    // The source is a page operation by its type; its method says whether the page goes as the query or the body.
    const init = (
      OPERATIONS[source.operation].method === 'get' ? { query: page } : { body: page }
    ) as CallInit<PageOperation>;
    api.call(source.operation, { ...init, signal: controller.signal, quiet: true }).then(
      (answer) => {
        if (controller.signal.aborted) return;
        const rows = (answer as { records: unknown[] }).records;
        setRead(rows.map((row) => source.choice(row)).map(({ value, label }) => ({ value: String(value), label })));
      },
      () => undefined,
    );
    return () => controller.abort();
  }, [source]);
  const fixed = fixedChoices(chip.options);
  return [...fixed, ...read.filter((c) => !fixed.some((f) => f.value === c.value))];
}
