import { useRouteError } from 'react-router-dom';
import { messages as t } from '../i18n/zh-CN';

/**
 * A screen that failed to load (network down, a chunk gone after a deploy): say so and offer a retry. Plain markup on
 * purpose: this is in the first download of every page.
 */
export function RouteError() {
  const error = useRouteError();
  const offline = error instanceof TypeError;
  return (
    <div className="app-loading" role="alert" style={{ flexDirection: 'column' }}>
      <strong>{t.shell.loadFailed}</strong>
      <span>{offline ? t.networkError : t.fetchFailedTryLater}</span>
      <button type="button" className="app-retry" onClick={() => window.location.reload()}>
        {t.shell.retry}
      </button>
    </div>
  );
}
