import { messages as t } from '../i18n/zh-CN';

/** The seed's loading indicator: '加载中...'. A CSS spinner: this is in every page's first download. */
export function Loading() {
  return (
    <div className="app-loading" role="status" aria-live="polite">
      <span className="app-spinner" aria-hidden />
      <span>{t.shell.loading}</span>
    </div>
  );
}
