import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/**
 * Builds the merchant dashboard into the gateway's dist/dashboard, which the gateway serves at /dashboard.
 * Preact's automatic JSX runtime; react-hook-form's `react` import is Preact's compat layer.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  resolve: {
    alias: {
      react: 'preact/compat',
      'react-dom': 'preact/compat',
      'react/jsx-runtime': 'preact/jsx-runtime',
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: resolve(import.meta.dirname, '../dist/dashboard'),
    emptyOutDir: true,
    // No inline script anywhere: the CSP allows only 'self'.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
