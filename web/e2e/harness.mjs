// What the end-to-end tests share: a static server for web/dist (node:http, so the tests do not
// depend on xtask or vite for serving) and Debian's Chromium driven by playwright-core.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = join(REPO_ROOT, 'web', 'dist');

// Served with every response, as `cargo xtask serve` (vite preview) serves them, so every test
// runs the page under its Content-Security-Policy.
export const SECURITY_HEADERS = JSON.parse(readFileSync(join(REPO_ROOT, 'web', 'security-headers.json'), 'utf8'));

// Module scripts and workers need a JavaScript MIME type; instantiateStreaming needs application/wasm.
const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Serves `root` on a free loopback port; resolves to { url, close }. */
export async function serveStatic(root = DIST) {
  await stat(join(root, 'index.html')).catch(() => {
    throw new Error(`${root}/index.html is missing: run \`cargo xtask build-web\` first`);
  });
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(root, path.endsWith('/') ? path + 'index.html' : path));
    if (!file.startsWith(root + sep)) {
      res.writeHead(403, SECURITY_HEADERS).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream', ...SECURITY_HEADERS });
      res.end(body);
    } catch {
      res.writeHead(404, SECURITY_HEADERS).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// Flags from shared/HEADLESS.md: WebGPU (SwiftShader) needs --enable-unsafe-webgpu; the rest keep
// Chromium from reaching for a network this machine does not have. --no-sandbox: CI runs as root.
const CHROMIUM_ARGS = [
  '--enable-unsafe-webgpu',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
}

/**
 * A fresh page that records what would make a failure readable (console errors and warnings of
 * the page and its workers, uncaught exceptions) and every request that leaves `origin` (the
 * page must need no network).
 */
export async function openPage(browser, origin) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const log = [];
  const foreignRequests = [];
  const record = (where) => (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') log.push(`${where} console.${msg.type()}: ${msg.text()}`);
  };
  page.on('console', record('page'));
  // The engine runs in a worker: its messages (a panic, say) are the ones that explain a failure.
  page.on('worker', (worker) => worker.on('console', record('worker')));
  page.on('pageerror', (err) => log.push(`pageerror: ${err.message}`));
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !/^(data|blob):/.test(url)) foreignRequests.push(url);
  });
  return { page, log, foreignRequests, close: () => context.close() };
}

/** Waits until a run has ended and returns the final status word (`done` or `error`). */
export async function waitForRunEnd(page, timeout = 120_000) {
  await page.waitForFunction(
    () => ['done', 'error'].includes(document.querySelector('[data-testid="status"]')?.textContent ?? ''),
    null,
    { timeout, polling: 100 },
  );
  return page.locator('[data-testid="status"]').textContent();
}
