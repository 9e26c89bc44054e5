import { confirm, toast } from '../../feedback';
import { OPERATIONS } from '../../../api/generated/operations.gen';
import type { RowAction, SignedInRole } from '../../config/types';
import { api } from '../../api';
import { messages as t } from '../../i18n/zh-CN';

/** The actions this role may take on this row: the contract's x-roles decide, the row's state narrows. */
export function actionsFor<R>(actions: readonly RowAction<R>[] | undefined, row: R, role: SignedInRole | 'notLogin'): RowAction<R>[] {
  return (actions ?? []).filter((action) => {
    if (action.when && !action.when(row)) return false;
    if ('call' in action) return role !== 'notLogin' && (OPERATIONS[action.call.operation].roles as readonly string[]).includes(role);
    return true;
  });
}

/** Runs a call action after its confirmation; true when it changed something (the list then reloads). */
export async function runAction<R>(action: Extract<RowAction<R>, { call: unknown }>, row: R): Promise<boolean> {
  if (action.confirm) {
    if (!(await confirm(action.confirm(row)))) return false;
  }
  try {
    await (api.call as (op: string, init: unknown) => Promise<unknown>)(action.call.operation, action.call.args(row));
  } catch {
    return false; // the client has shown the failure
  }
  toast(action.done ?? t.list.done, 'success');
  return true;
}
