import { ErrorBlock } from 'antd-mobile';
import { messages as t } from '../i18n/zh-CN';

/** A route whose operations are not in the contract yet: the frame and a plain notice, never made-up data. */
export function Pending() {
  return (
    <ErrorBlock
      status="empty"
      title={t.shell.comingSoon}
      description={t.shell.comingSoonHint}
      style={{ padding: '48px 0' }}
    />
  );
}
