import { Button, ErrorBlock } from 'antd-mobile';
import { messages as t } from '../i18n/zh-CN';

/** What a screen or a part of one shows when its data could not be read: 加载失败, and a retry. */
export function LoadFailed({ retry }: { retry?: () => void }) {
  return (
    <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
      <Button color="primary" onClick={retry}>
        {t.shell.retry}
      </Button>
    </ErrorBlock>
  );
}
