import { createApi } from '../api/client';
import { toast } from './feedback';
import { messages } from './i18n/zh-CN';
import { signOut } from './state/session';

let goToLogin: () => void = () => window.location.assign('/login');

/** The router registers its navigate here once it exists, so a redirect keeps the single-page app alive. */
export function setLoginNavigator(navigate: () => void): void {
  goToLogin = navigate;
}

export const api = createApi(
  {
    toast: (message) => toast(message),
    redirectToLogin: () => {
      signOut();
      if (window.location.pathname !== '/login') goToLogin();
    },
    logError: (code, message) => console.error(`[api] ${code} ${message}`),
  },
  messages,
);
