import { Button } from 'antd-mobile';
import { createContext, useContext, type ReactNode } from 'react';
import type { OperationInput } from '../../../api/client';
import type { OperationId } from '../../../api/operations';
import type { FieldAction, FormAction } from '../../config/types';
import { alert, choose, toast } from '../../feedback';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { useOperationRunner } from '../../operations/useOperation';

// The form's extra buttons from screens.config.ts: a field action (AI 润色) proposes a new value for its field, which
// changes only when the user accepts it; a form action (测试连接) calls its operation and shows the answer.

type Erased<A> = A extends { operation: infer K extends OperationId } ? A & { operation: K } : never;

/** A field action's button, given the field's current text and how to set it. */
export function FieldActionButton({
  action,
  text,
  onAccept,
}: {
  action: FieldAction;
  text: string;
  onAccept: (value: string) => void;
}) {
  const { run, busy } = useOperationRunner();
  const { operation, args, pick } = action;
  const onClick = async () => {
    if (text.trim() === '') {
      toast(w.ai.writeFirst);
      return;
    }
    const outcome = await run(operation, args(text) as OperationInput<typeof operation>);
    if (!outcome.ok) return;
    const { value, message } = (pick as (data: unknown) => { value: string | null; message: string })(outcome.data);
    if (value === null) {
      toast(message);
      return;
    }
    if (await choose(w.ai.polishTitle, value, { accept: w.ai.accept, discard: w.ai.discard })) onAccept(value);
  };
  return (
    <Button size="mini" color="primary" fill="outline" loading={busy} onClick={() => void onClick()}>
      {action.label}
    </Button>
  );
}

/** The buttons under the submit button. */
export function FormActions({ actions, disabled }: { actions: readonly FormAction[]; disabled: boolean }) {
  const { run, busy } = useOperationRunner();
  const onClick = async (action: Erased<FormAction>) => {
    const outcome = await run(action.operation, action.args() as OperationInput<typeof action.operation>);
    if (!outcome.ok) return;
    const { title, content } = (action.show as (data: unknown) => { title: string; content: string })(outcome.data);
    await alert(title, content);
  };
  return (
    <>
      {actions.map((action) => (
        <div key={action.label} style={{ padding: '0 12px 12px' }}>
          <Button block fill="outline" loading={busy} disabled={disabled || busy} onClick={() => void onClick(action)}>
            {action.label}
          </Button>
        </div>
      ))}
    </>
  );
}

/** What the field template shows beside a field's label: the field's action, if the screen gives one. */
export const FieldExtras = createContext<Readonly<Record<string, ReactNode>>>({});

export const useFieldExtra = (name: string): ReactNode => useContext(FieldExtras)[name];
