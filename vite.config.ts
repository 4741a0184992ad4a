import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is built to static files: loaded from disk by Electron, served by `serve`.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome120',
    chunkSizeWarningLimit: 2000,
  },
});
