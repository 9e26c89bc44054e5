import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { pwa } from './vite.pwa.js';

export default defineConfig({
  plugins: [react(), pwa()],
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // No inline polyfill script: the server's CSP allows scripts from this origin only.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 400,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
