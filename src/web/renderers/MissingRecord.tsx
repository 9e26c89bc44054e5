import { Button, ErrorBlock } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { screens } from '../app/screens';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';

/** The URL value naming a record (`?id=`): a whole number from 1, as every record id of the contract is. */
export function namesRecord(value: string | null): boolean {
  return value !== null && /^[1-9]\d*$/.test(value.trim()) && Number.isSafeInteger(Number(value));
}

/**
 * A screen about one record opened without it (a link that lost its `?id=`): said plainly, with the way back to the
 * list the record is picked from (`recordOf`), or home, instead of a failed load.
 */
export function MissingRecord({ listPath, purpose }: { listPath: string | undefined; purpose: 'edit' | 'view' }) {
  const navigate = useNavigate();
  const list = listPath ? screens.find((s) => s.path === listPath) : undefined;
  return (
    <ErrorBlock
      status="empty"
      title={w.form.missingRecord[purpose]}
      description={list ? w.form.pickFromList[purpose](list.title) : w.form.pickFromHome[purpose]}
      style={{ padding: '48px 0' }}
    >
      <Button color="primary" onClick={() => void navigate(list?.path ?? '/', { replace: true })}>
        {list ? w.form.backToList(list.title) : t.shell.goHome}
      </Button>
    </ErrorBlock>
  );
}
