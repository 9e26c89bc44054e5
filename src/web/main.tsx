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
