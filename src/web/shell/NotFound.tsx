import { Button, ErrorBlock } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';

export function NotFound() {
  const navigate = useNavigate();
  return (
    <ErrorBlock
      status="empty"
      title={t.shell.notFound}
      description={t.shell.notFoundHint}
      style={{ padding: '48px 0' }}
    >
      <Button color="primary" onClick={() => navigate('/')}>
        {t.shell.goHome}
      </Button>
    </ErrorBlock>
  );
}
