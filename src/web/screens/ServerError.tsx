import { Button, ErrorBlock } from 'antd-mobile';
import { useNavigate } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';

export default function ServerError() {
  const navigate = useNavigate();
  return (
    <ErrorBlock status="disconnected" title={w.notice.serverError} description="" style={{ padding: '48px 0' }}>
      <Button color="primary" onClick={() => navigate('/')}>
        {t.shell.goHome}
      </Button>
    </ErrorBlock>
  );
}
