import { defineConfig } from 'vite';
// The Content-Security-Policy the page is served with, shared with the end-to-end tests' server
// (docs/reliability.md says why each directive is there).
import securityHeaders from './security-headers.json';

export default defineConfig({
  // Relative asset URLs: the built page works from any folder, not only from a server root.
  base: './',
  // The engine worker imports the wasm-bindgen glue as an ES module; the default worker
  // format (iife) cannot bundle that.
  worker: { format: 'es' },
  // The page and the element share one chunk, mostly CodeMirror plus the bundled examples (about
  // 510 kB, 170 kB gzipped), loaded once; splitting it further would only add requests.
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 640,
    rolldownOptions: {
      // Four entries (paths relative to web/, where the build runs): the page, the embedding
      // demo, the <tpu-playground> element's module, which keeps a fixed name
      // (dist/tpu-playground.js, the package's export) so authors can link it, and the matmul
      // benchmark page (bench.html, driven by bench/run.mjs), the only one that imports the peers
      // (jax-js, TF.js). The worker and the wasm sit in dist/assets beside the chunks they share,
      // found relative to the module.
      input: {
        index: 'index.html',
        'embed-demo': 'embed-demo.html',
        'tpu-playground': 'src/embed.ts',
        bench: 'bench.html',
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'tpu-playground' ? '[name].js' : 'assets/[name]-[hash].js'),
        chunkFileNames: 'assets/shared-[hash].js',
      },
    },
  },
  preview: { host: '127.0.0.1', strictPort: true, headers: securityHeaders },
  // The examples gallery bundles ../examples/*.py (src/examples.ts); the dev server may read them.
  server: { host: '127.0.0.1', fs: { allow: ['..'] }, headers: securityHeaders },
});
