import { Button } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { OPERATIONS } from '../../../api/generated/operations.gen';
import type { ToolbarAction } from '../../config/types';
import { sessionStore } from '../../state/session';
import { useStore } from '../../state/store';
import { useActionButtons } from './row-actions';

/** Buttons above a list: calls on the whole list (mark all read, start an export) and links to start forms. */
export function ListToolbar({ actions, onDone }: { actions: readonly ToolbarAction[]; onDone: () => Promise<void> }) {
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  const { runAction, pending, press } = useActionButtons();
  const allowed = actions.filter(
    (a) =>
      !('call' in a) ||
      (role !== 'notLogin' && (OPERATIONS[a.call.operation].roles as readonly string[]).includes(role)),
  );
  if (allowed.length === 0) return null;
  return (
    <div className="list-toolbar-actions">
      {allowed.map((a) => (
        <Button
          key={a.label}
          size="small"
          color={a.color ?? 'primary'}
          fill="outline"
          loading={pending === a.label}
          disabled={pending !== null}
          onClick={() =>
            void press(a.label, async () => {
              if ('to' in a) return navigate(a.to);
              const ask = a.confirm;
              if (await runAction({ ...a, confirm: ask === undefined ? undefined : () => ask }, undefined))
                await onDone();
            })
          }
        >
          {a.label}
        </Button>
      ))}
    </div>
  );
}
