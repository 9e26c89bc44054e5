import { Button, ErrorBlock } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';

export default function ServerError() {
  const navigate = useNavigate();
  return (
    <ErrorBlock status="disconnected" title={t.notice.serverError} description="" style={{ padding: '48px 0' }}>
      <Button color="primary" onClick={() => navigate('/')}>
        {t.shell.goHome}
      </Button>
    </ErrorBlock>
  );
}
