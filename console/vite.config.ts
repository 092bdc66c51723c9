import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { bootScript } from './boot-plugin.ts';
import { recordBuildInputs } from './build-inputs.ts';

/** The console: a single-page app served at `/` beside the API at `/api` (same origin, no CORS). */
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), bootScript(), recordBuildInputs()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The entry carries React, React Router and TanStack Query (about 110 KB gzipped); the analytics
    // charts are large and load only with the pages that draw them.
    chunkSizeWarningLimit: 400,
  },
  logLevel: 'warn',
});
