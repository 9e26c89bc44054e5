import { Skeleton } from 'antd-mobile';
import { LoadFailed } from '../../shell/LoadFailed';
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
  return <LoadFailed retry={retry} />;
}
