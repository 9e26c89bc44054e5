import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import './app/theme.css';
import './app/color-scheme';
import './app/reload-on-stale-chunk';
import './app/global.css';
import './app/theme-dark.css';

createRoot(document.getElementById('root')!).render(<App />);
