import { defineConfig } from 'vite';

export default defineConfig({
  // Relative asset URLs: the built page works from any folder, not only from a server root.
  base: './',
  // The engine worker imports the wasm-bindgen glue as an ES module; the default worker
  // format (iife) cannot bundle that.
  worker: { format: 'es' },
  // The page is one chunk, mostly CodeMirror plus the bundled examples (about 520 kB, 175 kB
  // gzipped), loaded once; splitting it would only add requests.
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 640 },
  preview: { host: '127.0.0.1', strictPort: true },
  // The examples gallery bundles ../examples/*.py (src/examples.ts); the dev server may read them.
  server: { host: '127.0.0.1', fs: { allow: ['..'] } },
});
