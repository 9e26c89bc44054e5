import { useEffect } from 'react';

/**
 * The seed loads a statistics script on each navigation. Here nothing third-party loads unless an admin has set an
 * analytics address (https only); the server's CSP then allows that origin.
 */
export function useAnalytics(url: string, pathname: string) {
  useEffect(() => {
    if (!url.startsWith('https://')) return;
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.dataset.analytics = pathname;
    document.head.appendChild(script);
    return () => script.remove();
  }, [url, pathname]);
}
