import { copyText } from '../../feedback/copy';
import { Button, Card, List } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import type { DetailPart, RowAction } from '../../config/types';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { sessionStore } from '../../state/session';
import { useStore } from '../../state/store';
import { actionsFor, useActionButtons } from '../list/row-actions';
import { useChoiceAction } from '../choice-action';
import { StateTag } from '../StateTag';

type Data = unknown;

/** The record as a card: heading, rows of values (some with a state tag) and the actions this user may take. */
export function DetailPartView({
  part,
  data,
  onChanged,
}: {
  part: DetailPart<Data>;
  data: Data;
  onChanged: () => void;
}) {
  const navigate = useNavigate();
  const { role } = useStore(sessionStore);
  // The same hook as a list's row actions: confirmation, the operation through useOperation, the toast.
  const { runAction, pending, press } = useActionButtons();
  const actions = actionsFor(part.actions, data, role);
  const note = part.note?.(data);
  const choice = useChoiceAction<Data>(onChanged);

  const act = (action: RowAction<Data>) =>
    press(action.label, async () => {
      if ('to' in action) return navigate(action.to(data));
      if ('copy' in action) return copyText(action.copy(data));
      if ('choose' in action) {
        choice.start(action.choose, data);
        return;
      }
      if (await runAction(action, data)) onChanged();
    });

  return (
    <Card title={part.title?.(data)} className="composed-detail">
      {note ? <div className="composed-note">{note}</div> : null}
      <List className="composed-fields">
        {part.fields.map((field) => {
          const tag = field.tag?.(data);
          // A field may also say why (a check's finding): its words go under the label.
          const note = field.note?.(data);
          return (
            <List.Item
              key={field.label}
              extra={tag ? <StateTag value={tag} /> : field.value(data) || '—'}
              description={note || undefined}
            >
              {field.label}
            </List.Item>
          );
        })}
      </List>
      {actions.length > 0 ? (
        <div className="composed-actions" role="group" aria-label={w.composed.actions}>
          {actions.map((action) => (
            <Button
              key={action.label}
              size="small"
              color={action.color === 'light' ? 'default' : (action.color ?? 'default')}
              fill={action.color === 'primary' ? 'solid' : 'outline'}
              loading={pending === action.label}
              disabled={pending !== null}
              onClick={() => void act(action)}
            >
              {action.label}
            </Button>
          ))}
        </div>
      ) : null}
      {choice.dialog}
    </Card>
  );
}
