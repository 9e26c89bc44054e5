import { Button, ErrorBlock } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';

/** A page that leads nowhere for this user: says why and offers 返回首页, never a bare line of text. */
function DeadEnd({ title, hint }: { title: string; hint: string }) {
  const navigate = useNavigate();
  return (
    <ErrorBlock status="empty" title={title} description={hint} style={{ padding: '48px 0' }}>
      <Button color="primary" onClick={() => navigate('/')}>
        {t.shell.goHome}
      </Button>
    </ErrorBlock>
  );
}

export function NotFound() {
  return <DeadEnd title={t.shell.notFound} hint={t.shell.notFoundHint} />;
}

/** A screen the signed-in role may not open (/subordinate for a user who is no agent). */
export function Forbidden() {
  return <DeadEnd title={t.shell.forbidden} hint={t.shell.forbiddenHint} />;
}
