import { useCallback, useState, type ReactNode } from 'react';
import type { ChoiceAction } from '../config/types';
// Imported, not lazy: a lazy chunk asked for from a screen's chunk would name the entry's stylesheet in its preload
// list, which the build inlines into index.html (vite.config.ts, globalCssInHtml).
import ChoiceActionDialog from './ChoiceActionDialog';

/**
 * For a renderer of row actions: `start(action, row)` opens the dialog of a `choose` action on that row, and `dialog`
 * is what to render for it. `onChanged` runs after a call that stays in the app (the rows read again).
 */
export function useChoiceAction<R>(onChanged: () => unknown): {
  start: (action: ChoiceAction<R>, row: R) => void;
  dialog: ReactNode;
} {
  const [open, setOpen] = useState<{ action: ChoiceAction<R>; row: R; n: number } | null>(null);
  const start = useCallback(
    (action: ChoiceAction<R>, row: R) => setOpen((was) => ({ action, row, n: (was?.n ?? 0) + 1 })),
    [],
  );
  const dialog = open && (
    <ChoiceActionDialog
      key={open.n}
      action={open.action as ChoiceAction<unknown>}
      row={open.row}
      onChanged={onChanged}
      onClose={() => setOpen(null)}
    />
  );
  return { start, dialog };
}
