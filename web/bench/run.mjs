#!/usr/bin/env node
// The browser half of the benchmarks (issue 10): serves web/dist, opens dist/bench.html in
// headless Chromium (WebGPU through --enable-unsafe-webgpu), waits for the page to finish and
// prints its result. Not a test: numbers for speed live in docs/benchmarks.md, never in tests.
//
//   cd web && npm run build && node bench/run.mjs [--json|--table] [--n 128,256] [--runs 5]
//       [--warmup 2] [--where wasm|webgpu] [--impl tpu-playground,jax-js,tfjs] [--trips 1,16,64]
//       [--timeout-min 15]
//   node bench/run.mjs --table --from result.json   (renders a saved JSON result; runs nothing)
//
// stdout: the page's `window.benchResult` as JSON (default), or markdown tables (`--table`).
// stderr: progress. Exit status 0; 1 when the page failed or timed out; 2 when a checksum
// disagreed (the result is printed all the same).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { launchChromium, openPage, serveStatic } from '../e2e/harness.mjs';

const { values: opts } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    table: { type: 'boolean', default: false },
    n: { type: 'string' },
    runs: { type: 'string' },
    warmup: { type: 'string' },
    where: { type: 'string' },
    impl: { type: 'string' },
    trips: { type: 'string' },
    'timeout-min': { type: 'string', default: '15' },
    from: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(
    'usage: node bench/run.mjs [--json|--table] [--n 128,256,512,1024] [--runs 5] [--warmup 2]\n' +
      '       [--where wasm|webgpu] [--impl tpu-playground,jax-js,tfjs] [--trips 1,16,64] [--timeout-min 15]\n' +
      '       node bench/run.mjs --table --from result.json  (render a saved result)\n' +
      'Runs web/dist/bench.html (build it first: npm run build) in headless Chromium.',
  );
  process.exit(0);
}

if (opts.from) {
  const saved = JSON.parse(readFileSync(opts.from, 'utf8'));
  process.stdout.write(opts.table ? tables(saved) : `${JSON.stringify(saved, null, 2)}\n`);
  process.exit(0);
}

const query = new URLSearchParams();
for (const key of ['n', 'runs', 'warmup', 'where', 'impl']) if (opts[key]) query.set(key, opts[key]);
// `--trips ''` skips the loops.
if (opts.trips !== undefined) query.set('trips', opts.trips);
const timeoutMs = Number(opts['timeout-min']) * 60_000;

const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);
const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;

const server = await serveStatic();
const browser = await launchChromium();
let exitCode = 0;
try {
  const origin = server.url.replace(/\/$/, '');
  const { page, log: pageLog, foreignRequests } = await openPage(browser, origin);
  // The page logs each step as `[bench] ...`; pass them on as progress.
  page.on('console', (msg) => {
    const text = msg.text();
    if (text.startsWith('[bench] ')) log(`${elapsed()} ${text.slice(8)}`);
  });
  // An uncaught error (a wasm trap, say) ends the run at once: the page will not report
  // done or error after one, and waiting out the timeout only hides it.
  let onPageError;
  const pageError = new Promise((resolve) => (onPageError = resolve));
  page.on('pageerror', (err) => {
    log(`page error: ${err.message}`);
    onPageError(err);
  });
  const url = `${server.url}bench.html${query.size ? `?${query}` : ''}`;
  log(`opening ${url}`);
  await page.goto(url);
  let status;
  try {
    const finished = page.waitForFunction(
      () => ['done', 'error'].includes(document.querySelector('[data-testid="bench-status"]')?.textContent ?? ''),
      null,
      { timeout: timeoutMs, polling: 500 },
    );
    const failed = await Promise.race([finished.then(() => null), pageError]);
    status = failed ? 'page error' : await page.locator('[data-testid="bench-status"]').textContent();
  } catch (err) {
    log(`the page did not finish within ${opts['timeout-min']} min: ${err.message}`);
    status = 'timeout';
  }
  const result = await page.evaluate(() => window.benchResult ?? null);
  if (pageLog.length) log(`page console errors/warnings:\n  ${pageLog.slice(0, 40).join('\n  ')}`);
  if (foreignRequests.length) log(`WARNING: the page reached outside its origin: ${foreignRequests.join(', ')}`);
  if (status !== 'done' || !result) {
    exitCode = 1;
    log(`status: ${status}`);
  }
  if (result) {
    for (const m of result.mismatches ?? []) log(`CHECKSUM MISMATCH: ${m}`);
    if (result.mismatches?.length && exitCode === 0) exitCode = 2;
    process.stdout.write(opts.table ? tables(result) : `${JSON.stringify(result, null, 2)}\n`);
  }
  log(`finished in ${elapsed()} (${status})`);
} finally {
  await browser.close();
  await server.close();
}
process.exit(exitCode);

/** Markdown: GFLOP/s per n and implementation, every row in full, then the loops. */
function tables(result) {
  const cols = [
    ['tpu-playground', 'chromium-wasm', 'ours, wasm'],
    ['jax-js', 'chromium-wasm', 'jax-js, wasm'],
    ['tfjs', 'chromium-wasm', 'TF.js, wasm'],
    ['tpu-playground', 'chromium-webgpu', 'ours, WebGPU'],
    ['jax-js', 'chromium-webgpu', 'jax-js, WebGPU'],
    ['tfjs', 'chromium-webgpu', 'TF.js, WebGPU'],
  ];
  const rows = result.matmul;
  const cell = (r) => {
    if (!r) return '—';
    if (r.error) return 'error';
    const v = r.gflops === null ? '—' : r.gflops.toFixed(2);
    return r.mismatch ? `${v} (WRONG)` : v;
  };
  const sizes = [...new Set(rows.map((r) => r.n))];
  let out = `| n | ${cols.map((c) => c[2]).join(' | ')} |\n| ---: | ${cols.map(() => '---:').join(' | ')} |\n`;
  for (const n of sizes) {
    const find = (impl, where) => rows.find((r) => r.n === n && r.impl === impl && r.where === where);
    out += `| ${n} | ${cols.map(([impl, where]) => cell(find(impl, where))).join(' | ')} |\n`;
  }
  out += '\nGFLOP/s (2n³ / median seconds, upload and readback included).\n\n';
  const d = result.first_result_detail ?? {};
  out +=
    result.first_result_ms === null
      ? `Time to first result: none (${d.error})\n`
      : `Time to first result (ours, 128³ on wasm, from navigation start): ${result.first_result_ms.toFixed(0)} ms ` +
        `(engine init ${d.init_ms.toFixed(0)} ms, first run ${d.first_run_ms.toFixed(0)} ms)\n`;
  out += `WebGPU adapter: ${result.webgpu_adapter}; cross-origin isolated: ${result.cross_origin_isolated}; ` +
    `${result.hardware_concurrency} logical cores; ${result.user_agent}\n\n`;
  out += '| where | impl | n | GFLOP/s | median ms | first call ms | runs × reps | checksum | note |\n';
  out += '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n';
  for (const r of rows) {
    const note = [r.error && `ERROR: ${r.error}`, r.mismatch && `MISMATCH: ${r.mismatch}`, r.note]
      .filter(Boolean)
      .join('; ');
    out +=
      `| ${r.where} | ${r.impl} | ${r.n} | ${r.gflops === null ? '—' : r.gflops.toFixed(2)} | ` +
      `${r.median_ms === null ? '—' : r.median_ms.toFixed(2)} | ${r.first_call_ms === null ? '—' : r.first_call_ms.toFixed(1)} | ` +
      `${r.runs} × ${r.reps ?? 1} | ${r.checksum === null ? '—' : r.checksum.toPrecision(7)} | ${note.replaceAll('|', '\\|')} |\n`;
  }
  const loops = result.loops ?? [];
  if (loops.length) {
    const ms = (x) => (x === null || x === undefined ? '—' : x.toFixed(3));
    out += '\nA `while` loop whose test reads a computed value (`bench_loop`): median ms per call by trips.\n\n';
    out += '| where | trips | median ms | runs | note |\n| --- | ---: | ---: | ---: | --- |\n';
    for (const r of loops) {
      const note = [r.error && `ERROR: ${r.error}`, r.mismatch && `MISMATCH: ${r.mismatch}`].filter(Boolean).join('; ');
      out += `| ${r.where} | ${r.trips} | ${ms(r.median_ms)} | ${r.times_ms.length} | ${note.replaceAll('|', '\\|')} |\n`;
    }
    out += '\n| where | ms per trip | ms besides the trips (shortest loop) |\n| --- | ---: | ---: |\n';
    for (const c of result.trip_cost ?? []) out += `| ${c.where} | ${ms(c.ms_per_trip)} | ${ms(c.base_ms)} |\n`;
  }
  return out;
}
