/**
 * The dashboard build: one HTML page and hashed assets in dist/, served by `chs serve` at `/`.
 * No CDN: every byte comes from this build. `scripts/budget.mjs` checks the first screen's size.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The budget script reads the manifest to tell the first screen's files.
    manifest: true,
    reportCompressedSize: false,
    // ECharts in a chunk of its own: cached across releases of the app's code. The budget script,
    // not this warning, is the size check.
    chunkSizeWarningLimit: 800,
    rollupOptions: {
      output: {
        manualChunks: (id) => (/node_modules\/(echarts|zrender|tslib)\//.test(id) ? 'echarts' : undefined),
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
