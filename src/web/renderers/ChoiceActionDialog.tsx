import { useCallback, useEffect, useState } from 'react';
import { ApiError } from '../../api/client';
import { api } from '../api';
import type { ChoiceAction } from '../config/types';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';
import { useOperationRunner } from '../operations/useOperation';
import { ChoiceDialog, type ChoiceOutcome } from './ChoiceDialog';
import { leavePage } from './leave';

/** The map checked the spec against its two operations (choiceAction); here the answers are only passed back. */
type Erased = Omit<ChoiceAction<unknown>, 'from' | 'leave'> & {
  from: Omit<ChoiceAction<unknown>['from'], 'choices' | 'note'> & {
    choices: (data: unknown) => readonly { label: string; value: unknown }[];
    note?: (data: unknown, row: unknown) => string | null;
  };
  leave?: (data: unknown) => string;
};

/**
 * A `choose` row action's dialog (the screen map's `choiceAction`): reads the choices from their operation when it
 * opens, then makes the call with the row and the value picked. A refusal stays in the dialog, beside the choice.
 */
export default function ChoiceActionDialog({
  action: typed,
  row,
  onChanged,
  onClose,
}: {
  action: ChoiceAction<unknown>;
  row: unknown;
  onChanged: () => unknown;
  onClose: () => void;
}) {
  const action = typed as unknown as Erased;
  const [data, setData] = useState<unknown>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const { run } = useOperationRunner();

  const load = useCallback(async () => {
    setFailed(null);
    setData(null);
    try {
      setData(await api.call(action.from.operation, { ...action.from.args, quiet: true }));
    } catch (error) {
      setFailed(error instanceof ApiError && error.kind === 'envelope' ? error.message : t.fetchFailedTryLater);
    }
  }, [action]);
  useEffect(() => void load(), [load]);

  const onOk = async (value: unknown): Promise<ChoiceOutcome> => {
    let refused: string | null = null;
    const outcome = await run(action.call.operation, action.call.args(row, value), {
      report: (error) => {
        refused = error.message;
        return true;
      },
    });
    // Set by `report` meanwhile (the checker cannot see the callback run): the refusal's words, or none (no answer).
    if (!outcome.ok) return { error: (refused as string | null) ?? t.networkError };
    if (action.leave) {
      leavePage.to(action.leave(outcome.data));
      return { leaving: null };
    }
    toast(action.done ?? w.list.done, 'success');
    void onChanged();
    return { done: true };
  };

  return (
    <ChoiceDialog
      title={action.title(row)}
      lines={action.lines?.(row) ?? []}
      legend={action.legend}
      choices={data === null ? null : action.from.choices(data)}
      loadFailed={failed === null ? null : { message: failed, retry: () => void load() }}
      empty={action.empty}
      note={data === null ? null : action.from.note?.(data, row)}
      ok={action.ok}
      busy={action.busy}
      onOk={onOk}
      onClose={onClose}
    />
  );
}
