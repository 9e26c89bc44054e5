import { createApi } from '../api/client';
import { closeDialogs, toast } from './feedback';
import { messages } from './i18n/zh-CN';
import { signOut } from './state/session';

let goToLogin: () => void = () => window.location.assign('/login');

/** The router registers its navigate here once it exists, so a redirect keeps the single-page app alive. */
export function setLoginNavigator(navigate: () => void): void {
  goToLogin = navigate;
}

const redirectToLogin = () => {
  closeDialogs();
  signOut();
  if (window.location.pathname !== '/login') goToLogin();
};

/** The session ended on the server's word (its event stream said so): why, then the sign-in page. */
export function sessionEnded(message: string): void {
  toast(message);
  redirectToLogin();
}

export const api = createApi(
  {
    toast: (message) => toast(message),
    redirectToLogin,
    logError: (code, message) => console.error(`[api] ${code} ${message}`),
  },
  messages,
);
