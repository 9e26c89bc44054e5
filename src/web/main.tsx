import { createRoot } from 'react-dom/client';
import { App, createAppRouter } from './app/App';
import './app/theme.css';
import './app/color-scheme';
import './app/reload-on-stale-chunk';
import './app/global.css';
import './app/theme-dark.css';

// The router first: it starts the page's requests (main.tsx's imports have run by now: the theme, the colour scheme).
const router = createAppRouter();
createRoot(document.getElementById('root')!).render(<App router={router} />);

// The service worker (vite.pwa.ts), registered after the page's load so its precache never competes with the first
// screen. Here rather than in the plugin's separate registerSW.js: one request fewer on every first visit.
if ('serviceWorker' in navigator)
  window.addEventListener('load', () => void navigator.serviceWorker.register('/sw.js', { scope: '/' }));
