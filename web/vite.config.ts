import { defineConfig } from 'vite';

export default defineConfig({
  // Relative asset URLs: the built page works from any folder, not only from a server root.
  base: './',
  // The engine worker imports the wasm-bindgen glue as an ES module; the default worker
  // format (iife) cannot bundle that.
  worker: { format: 'es' },
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true },
  preview: { host: '127.0.0.1', strictPort: true },
  server: { host: '127.0.0.1' },
});
