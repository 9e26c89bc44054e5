import { useCallback, useRef, useState } from 'react';
import { alert, confirm, toast } from '../../feedback';
import { busyWhile } from '../../feedback/busy';
import { OPERATIONS } from '../../../api/generated/operations.gen';
import type { OperationId } from '../../../api/operations';
import type { ActionCall, RowAction, SignedInRole } from '../../config/types';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { useOperationRunner } from '../../operations/useOperation';

/** The actions this role may take on this row: the contract's x-roles decide, the row's state narrows. */
export function actionsFor<R>(
  actions: readonly RowAction<R>[] | undefined,
  row: R,
  role: SignedInRole | 'notLogin',
): RowAction<R>[] {
  return (actions ?? []).filter((action) => {
    if (action.when && !action.when(row)) return false;
    const operation: OperationId | undefined =
      'call' in action
        ? action.call.operation
        : 'choose' in action
          ? (action.choose.call.operation as OperationId)
          : undefined;
    if (operation) return role !== 'notLogin' && (OPERATIONS[operation].roles as readonly string[]).includes(role);
    return true;
  });
}

/**
 * Splits a row's actions between the swipe and the '更多' sheet: all of them when they fit in `max`, else the first
 * `max - 1` (the screen map lists the common ones first) and '更多' for the rest.
 */
export function splitForSwipe<A>(actions: readonly A[], max: number): { swipe: A[]; more: A[] } {
  if (actions.length <= max) return { swipe: [...actions], more: [] };
  const keep = Math.max(max - 1, 0);
  return { swipe: actions.slice(0, keep), more: actions.slice(keep) };
}

type Run = ReturnType<typeof useOperationRunner>['run'];

/**
 * Generic in K, so the row's arguments are checked as the arguments of that very operation. Answers whether it
 * succeeded and, for a call with `show` or a refusal of one with `refusalTitle`, the dialog to show once the wait is
 * over (shown before the busy indicator leaves, it would sit under it).
 */
async function send<R, K extends OperationId>(
  run: Run,
  call: ActionCall<R, K>,
  row: R,
): Promise<{ ok: boolean; dialog?: { title: string; content: string } }> {
  const { refusalTitle } = call;
  let refusal: string | undefined;
  const outcome = await run(
    call.operation,
    call.args(row),
    refusalTitle
      ? {
          report: (error) => {
            refusal = error.message;
            return true;
          },
        }
      : {},
  );
  if (!outcome.ok)
    return { ok: false, ...(refusalTitle && refusal ? { dialog: { title: refusalTitle, content: refusal } } : {}) };
  return { ok: true, ...(call.show ? { dialog: call.show(outcome.data, row) } : {}) };
}

/** Runs a call action after its confirmation; answers true when it changed something (the list then reloads). */
export function useRowAction() {
  const { run } = useOperationRunner();
  return useCallback(
    async <R>(
      action: Pick<Extract<RowAction<R>, { call: unknown }>, 'confirm' | 'confirmLabels' | 'done' | 'call'>,
      row: R,
      /** quiet: no toast at all (a call behind a dialog); ownBusy: the caller's button shows the wait. */
      options: { quiet?: boolean; ownBusy?: boolean } = {},
    ): Promise<boolean> => {
      const ask = action.confirm?.(row);
      if (ask !== undefined && !(await (action.confirmLabels ? confirm(ask, action.confirmLabels) : confirm(ask))))
        return false;
      // A quiet call (marking a notice read behind its dialog) has nothing to wait for on screen.
      const stopBusy = options.quiet || options.ownBusy ? undefined : busyWhile();
      const { ok, dialog } = await send(run, action.call, row).finally(stopBusy);
      if (dialog) await alert(dialog.title, dialog.content);
      else if (ok && !options.quiet) toast(action.done ?? w.list.done, 'success');
      // A refusal worth a dialog says the record is not what the screen showed (a balance spent, a refund given back):
      // the screen reads it again, as after a success.
      return ok || (dialog !== undefined && action.call.refusalTitle !== undefined);
    },
    [run],
  );
}

/**
 * For a row of action buttons (a detail's, a composed part's, a list's toolbar): runs one action at a time and names
 * the one under way, so its button shows it is busy and none can be tapped again until it ends.
 */
export function useActionButtons() {
  const runRowAction = useRowAction();
  const runAction: typeof runRowAction = (action, row, options) =>
    runRowAction(action, row, { ...options, ownBusy: true });
  const [pending, setPending] = useState<string | null>(null);
  const inFlight = useRef(false);
  const press = useCallback(async (label: string, work: () => Promise<unknown>): Promise<void> => {
    if (inFlight.current) return;
    inFlight.current = true;
    setPending(label);
    try {
      await work();
    } finally {
      inFlight.current = false;
      setPending(null);
    }
  }, []);
  return { runAction, pending, press };
}
