import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import './app/theme.css';
import './app/global.css';

createRoot(document.getElementById('root')!).render(<App />);
