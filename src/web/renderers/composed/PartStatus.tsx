import { Button, ErrorBlock, Skeleton } from 'antd-mobile';
import { messages as t } from '../../i18n/zh-CN';

/** What a part shows while its data loads, or when it could not: a skeleton, or a retry. */
export function PartStatus({ status, retry }: { status: 'loading' | 'error'; retry?: () => void }) {
  if (status === 'loading') {
    return (
      <div className="list-skeleton" aria-busy="true" aria-label={t.shell.loading}>
        <Skeleton.Paragraph lineCount={3} animated />
      </div>
    );
  }
  return (
    <ErrorBlock status="default" title={t.shell.loadFailed} description={t.fetchFailedTryLater}>
      <Button color="primary" onClick={retry}>
        {t.shell.retry}
      </Button>
    </ErrorBlock>
  );
}
