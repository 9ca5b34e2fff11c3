// The in-browser half of the benchmarks (issue 10): n×n float32 matmul throughput of this
// engine beside jax-js and TensorFlow.js, on WebGPU and on wasm, in the browser that opens
// bench.html; then what one trip of a loop whose test reads a computed value costs this engine
// on each (issue 28: on WebGPU each trip's test word is read back to the host). `web/bench/run.mjs`
// drives it in headless Chromium and prints `window.benchResult`.
//
// Every implementation is timed the same way: its inputs are uploaded from JS arrays, the
// product is computed, and the result is read back to JS, all inside the timed region. The
// peers are imported dynamically, after this engine's first result, so their download and
// initialisation neither delay nor count in our time to first result, and a peer that fails to
// load is recorded as an error row instead of breaking the page.
import init, { bench_loop, bench_matmul } from '../pkg/tpu_wasm.js';
// The TF.js wasm binaries, emitted by vite into dist/assets (no network at run time).
import tfWasmUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url';
import tfWasmSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url';
import tfWasmThreadedSimdUrl from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url';
import webPackage from '../package.json';

type Where = 'chromium-webgpu' | 'chromium-wasm';
type ImplName = 'tpu-playground' | 'jax-js' | 'tfjs';

interface Row {
  where: Where;
  impl: ImplName;
  n: number;
  gflops: number | null;
  /** Median of the timed runs, milliseconds. */
  median_ms: number | null;
  /** The first (cold) call at this n: compilation, pipeline creation and the run. */
  first_call_ms: number | null;
  runs: number;
  /** Each timed run's ms per call, in order. */
  times_ms: number[];
  warmup: number;
  /** Calls per timed run (a run shorter than the timer's resolution is repeated; see minSampleMs). */
  reps: number;
  adapter: string;
  checksum: number | null;
  error?: string;
  /** Set when the checksum disagrees with the reference: the row's numbers are suspect. */
  mismatch?: string;
  note?: string;
}

/** One loop length on one backend (`bench_loop`). */
interface LoopRow {
  where: Where;
  trips: number;
  /** Median of the timed calls, milliseconds. */
  median_ms: number | null;
  times_ms: number[];
  checksum: number | null;
  error?: string;
  mismatch?: string;
}

/** What one more trip costs on one backend: the medians' slope between the shortest and longest loops. */
interface TripCost {
  where: Where;
  ms_per_trip: number | null;
  /** The shortest loop's median: what a call costs besides its trips (compile excluded). */
  base_ms: number | null;
}

interface BenchResult {
  matmul: Row[];
  loops: LoopRow[];
  trip_cost: TripCost[];
  /** performance.now() (ms since navigation start) when this engine's first 128³ result was back. */
  first_result_ms: number | null;
  /** Of that: the wasm module's init, and the first 128³ run (compile, run, readback). */
  first_result_detail: { init_ms: number | null; first_run_ms: number | null; error?: string };
  webgpu_adapter: string;
  cross_origin_isolated: boolean;
  hardware_concurrency: number;
  user_agent: string;
  params: {
    n: number[];
    runs: number;
    warmup: number;
    gpu_large_n: number;
    gpu_large_runs: number;
    min_sample_ms: number;
    trips: number[];
  };
  mismatches: string[];
  started: string;
  elapsed_ms: number;
}

declare global {
  interface Window {
    benchResult?: BenchResult;
  }
}

// ---------------------------------------------------------------------------------------------
// Parameters.

const query = new URLSearchParams(location.search);
const intList = (s: string | null, fallback: number[]) =>
  s ? s.split(',').map((x) => Number.parseInt(x, 10)).filter((x) => Number.isFinite(x) && x > 0) : fallback;
const intParam = (name: string, fallback: number, min: number) => {
  const v = Number.parseInt(query.get(name) ?? '', 10);
  return Number.isFinite(v) && v >= min ? v : fallback;
};
const SIZES = intList(query.get('n'), [128, 256, 512, 1024]);
const RUNS = intParam('runs', 5, 1);
const WARMUP = intParam('warmup', 2, 0);
// Software WebGPU is slow (about 1 GFLOP/s): at n ≥ this, WebGPU rows get one warm-up and
// `gpuRuns` timed runs so the whole page stays within minutes.
const GPU_LARGE_N = intParam('gpuLargeN', 1024, 1);
const GPU_LARGE_RUNS = intParam('gpuRuns', 1, 1);
/**
 * A timed run lasts at least about this long: performance.now() is coarsened to 0.1 ms in a page
 * that is not cross-origin isolated, so a call that takes under a few ms is repeated `reps`
 * times (sized from the last warm-up) and the run's time divided by `reps`.
 */
const MIN_SAMPLE_MS = intParam('minSampleMs', 20, 0);
/** The loop lengths timed on each backend (`?trips=1,64`; `?trips=` alone skips the loops). */
const TRIPS = query.get('trips') === '' ? [] : intList(query.get('trips'), [1, 16, 64]);
/** Per call: a step that takes longer is recorded as an error and the implementation skipped. */
const STEP_TIMEOUT_MS = intParam('stepTimeoutMs', 180_000, 1000);
/** What the page was asked for, as the result records it. */
const PARAMS: BenchResult['params'] = {
  n: SIZES,
  runs: RUNS,
  warmup: WARMUP,
  gpu_large_n: GPU_LARGE_N,
  gpu_large_runs: GPU_LARGE_RUNS,
  min_sample_ms: MIN_SAMPLE_MS,
  trips: TRIPS,
};
/** Implementations to run (all by default): `?impl=tpu-playground,jax-js`. */
const ONLY_IMPLS = query.get('impl')?.split(',');
/** `?where=wasm` or `?where=webgpu` keeps one side. */
const ONLY_WHERE = query.get('where');

// ---------------------------------------------------------------------------------------------
// Page.

const statusEl = document.querySelector<HTMLElement>('[data-testid="bench-status"]')!;
const progressEl = document.querySelector<HTMLElement>('[data-testid="bench-progress"]')!;
const firstEl = document.querySelector<HTMLElement>('[data-testid="bench-first-result"]')!;
const tbody = document.querySelector<HTMLTableSectionElement>('[data-testid="bench-table"] tbody')!;
const jsonEl = document.querySelector<HTMLElement>('[data-testid="bench-json"]')!;

function progress(msg: string): void {
  progressEl.textContent = msg;
  console.log(`[bench] ${msg}`);
}

function fmt(x: number | null, digits: number): string {
  return x === null ? '—' : x.toFixed(digits);
}

function render(rows: Row[]): void {
  tbody.replaceChildren(
    ...rows.map((r) => {
      const tr = document.createElement('tr');
      const cells: [string, boolean][] = [
        [r.where, false],
        [r.impl, false],
        [String(r.n), true],
        [fmt(r.gflops, 2), true],
        [fmt(r.median_ms, 2), true],
        [fmt(r.first_call_ms, 1), true],
        [r.checksum === null ? '—' : r.checksum.toPrecision(7), true],
        [[r.error ? `ERROR: ${r.error}` : '', r.mismatch ? `MISMATCH: ${r.mismatch}` : '', r.adapter, r.note ?? '']
          .filter(Boolean)
          .join('; '), false],
      ];
      for (const [text, num] of cells) {
        const td = document.createElement('td');
        td.textContent = text;
        if (num) td.className = 'num';
        tr.append(td);
      }
      if (r.error || r.mismatch) tr.className = 'error';
      return tr;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Inputs and the reference checksum.

/** The engine's inputs (crates/wasm, `bench_matmul`): a[i] = (i % 97)·0.01 − 0.3, b[i] = (i % 89)·0.02 − 0.7. */
function inputs(n: number): { a: Float32Array; b: Float32Array } {
  const a = new Float32Array(n * n);
  const b = new Float32Array(n * n);
  for (let i = 0; i < n * n; i++) {
    a[i] = (i % 97) * 0.01 - 0.3;
    b[i] = (i % 89) * 0.02 - 0.7;
  }
  return { a, b };
}

/** float32 → bfloat16 (round to nearest even), back as a float32 value. */
function toBf16(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const bits = new Uint32Array(x.buffer, x.byteOffset, x.length);
  const outBits = new Uint32Array(out.buffer);
  for (let i = 0; i < x.length; i++) {
    const u = bits[i];
    outBits[i] = ((u + 0x7fff + ((u >>> 16) & 1)) & 0xffff0000) >>> 0;
  }
  return out;
}

/**
 * Σᵢⱼ (a·b)ᵢⱼ = Σₖ (Σᵢ aᵢₖ)(Σⱼ bₖⱼ), in float64, O(n²); `scale` is the same sum of absolute
 * values, an upper bound on Σ|(a·b)ᵢⱼ| that sizes the absolute tolerance.
 */
function exactSum(a: Float32Array, b: Float32Array, n: number): { sum: number; scale: number } {
  const colA = new Float64Array(n);
  const colAbsA = new Float64Array(n);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < n; k++) {
      const v = a[i * n + k];
      colA[k] += v;
      colAbsA[k] += Math.abs(v);
    }
  let sum = 0;
  let scale = 0;
  for (let k = 0; k < n; k++) {
    let row = 0;
    let rowAbs = 0;
    for (let j = 0; j < n; j++) {
      const v = b[k * n + j];
      row += v;
      rowAbs += Math.abs(v);
    }
    sum += colA[k] * row;
    scale += colAbsA[k] * rowAbs;
  }
  return { sum, scale };
}

function sumOf(data: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < data.length; i++) s += data[i];
  return s;
}

// ---------------------------------------------------------------------------------------------
// Implementations.

interface Impl {
  impl: ImplName;
  where: Where;
  adapter: string;
  note?: string;
  /** Why it cannot run (set by its setup, or by a failure that retires it). */
  error?: string;
  /** One timed call: upload, matmul, readback. Resolves to the result's sum. */
  run(n: number, a: Float32Array, b: Float32Array): Promise<number>;
}

/** A peer's WebGPU and wasm rows before its setup gives them a `run` (or an `error`). */
function uninitialised(impl: ImplName, webgpuAdapter: string): [Impl, Impl] {
  const row = (where: Where, adapter: string): Impl => ({
    impl,
    where,
    adapter,
    run: () => Promise.reject(new Error('not initialised')),
  });
  return [row('chromium-webgpu', webgpuAdapter), row('chromium-wasm', 'none')];
}

function errText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; device?: string; description?: string };
  isFallbackAdapter?: boolean;
}

async function describeAdapter(): Promise<string> {
  const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } }).gpu;
  if (!gpu) return 'none (navigator.gpu is undefined)';
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return 'none (requestAdapter() returned null)';
    const info = adapter.info ?? {};
    const parts = [info.vendor, info.architecture, info.device, info.description].filter((s) => s);
    const fallback = adapter.isFallbackAdapter ? ' (fallback adapter)' : '';
    return (parts.join(' / ') || 'unnamed adapter') + fallback;
  } catch (err) {
    return `none (${errText(err)})`;
  }
}

function oursImpls(webgpuAdapter: string): Impl[] {
  return [
    {
      impl: 'tpu-playground',
      where: 'chromium-wasm',
      adapter: 'none',
      note: 'emulated v5e, DEFAULT precision (bf16 operands, f32 accumulation), 1 thread',
      run: (n) => bench_matmul(n, 'cpu'),
    },
    {
      impl: 'tpu-playground',
      where: 'chromium-webgpu',
      adapter: webgpuAdapter,
      note: 'emulated v5e, DEFAULT precision (bf16 operands, f32 accumulation)',
      run: (n) => bench_matmul(n, 'gpu'),
    },
  ];
}

async function jaxImpls(webgpuAdapter: string): Promise<Impl[]> {
  const [gpuImpl, wasmImpl] = uninitialised('jax-js', webgpuAdapter);
  try {
    const jax = await import('@jax-js/jax');
    const available = await jax.init('wasm', 'webgpu');
    const np = jax.numpy;
    // One jitted function per device: jit's cache is keyed on shapes, and arrays carry their device.
    const matmul = jax.jit((x: InstanceType<typeof np.Array>, y: InstanceType<typeof np.Array>) => np.matmul(x, y));
    const runOn = (device: 'wasm' | 'webgpu') => async (n: number, a: Float32Array, b: Float32Array) => {
      const x = np.array(a, { shape: [n, n], device });
      const y = np.array(b, { shape: [n, n], device });
      // `matmul` takes ownership of x and y; `data()` realises the result, reads it back and
      // disposes it.
      const data = await matmul(x, y).data();
      return sumOf(data as Float32Array);
    };
    const threads = crossOriginIsolated ? `${navigator.hardwareConcurrency} threads` : '1 thread (no SharedArrayBuffer)';
    wasmImpl.note = `jax-js ${JAX_VERSION}, f32, ${threads}`;
    gpuImpl.note = `jax-js ${JAX_VERSION}, f32`;
    if (available.includes('wasm')) wasmImpl.run = runOn('wasm');
    else wasmImpl.error = `jax-js init() did not offer the wasm device (got ${JSON.stringify(available)})`;
    if (available.includes('webgpu')) gpuImpl.run = runOn('webgpu');
    else gpuImpl.error = `jax-js init() did not offer the webgpu device (got ${JSON.stringify(available)})`;
  } catch (err) {
    wasmImpl.error = gpuImpl.error = `jax-js failed to load: ${errText(err)}`;
  }
  return [gpuImpl, wasmImpl];
}

async function tfjsImpls(webgpuAdapter: string): Promise<Impl[]> {
  const [gpuImpl, wasmImpl] = uninitialised('tfjs', webgpuAdapter);
  try {
    const tf = await import('@tensorflow/tfjs-core');
    // Importing a backend registers it with tfjs-core.
    await import('@tensorflow/tfjs-backend-webgpu');
    const tfWasm = await import('@tensorflow/tfjs-backend-wasm');
    tfWasm.setWasmPaths({
      'tfjs-backend-wasm.wasm': tfWasmUrl,
      'tfjs-backend-wasm-simd.wasm': tfWasmSimdUrl,
      'tfjs-backend-wasm-threaded-simd.wasm': tfWasmThreadedSimdUrl,
    });
    // Backends initialise once; switching between them later is cheap.
    const init = async (name: 'webgpu' | 'wasm', impl: Impl) => {
      try {
        if (!(await tf.setBackend(name))) impl.error = `tf.setBackend('${name}') failed (see the console)`;
      } catch (err) {
        impl.error = `tf.setBackend('${name}'): ${errText(err)}`;
      }
    };
    await init('webgpu', gpuImpl);
    await init('wasm', wasmImpl);
    const runOn = (name: 'webgpu' | 'wasm') => async (n: number, a: Float32Array, b: Float32Array) => {
      if (tf.getBackend() !== name) await tf.setBackend(name);
      const x = tf.tensor2d(a, [n, n], 'float32');
      const y = tf.tensor2d(b, [n, n], 'float32');
      const z = tf.matMul(x, y);
      try {
        return sumOf((await z.data()) as Float32Array);
      } finally {
        tf.dispose([x, y, z]);
      }
    };
    if (!gpuImpl.error) gpuImpl.run = runOn('webgpu');
    if (!wasmImpl.error) {
      wasmImpl.run = runOn('wasm');
      let simd = '?';
      let threads = '?';
      try {
        simd = (await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')) ? 'SIMD' : 'no SIMD';
        threads =
          (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) && crossOriginIsolated
            ? `${navigator.hardwareConcurrency} threads`
            : '1 thread (no SharedArrayBuffer)';
      } catch {
        // The flags are only informative.
      }
      wasmImpl.note = `TF.js ${TF_VERSION}, f32, ${simd}, ${threads}`;
    }
    gpuImpl.note = `TF.js ${TF_VERSION}, f32`;
  } catch (err) {
    wasmImpl.error ??= `TF.js failed to load: ${errText(err)}`;
    gpuImpl.error ??= `TF.js failed to load: ${errText(err)}`;
  }
  return [gpuImpl, wasmImpl];
}

// The peers' versions, pinned in package.json (vite inlines the JSON at build time).
const JAX_VERSION = webPackage.devDependencies['@jax-js/jax'];
const TF_VERSION = webPackage.devDependencies['@tensorflow/tfjs-core'];

// ---------------------------------------------------------------------------------------------
// The run.

function median(xs: number[]): number {
  const s = [...xs].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const started = new Date().toISOString();
  const t0 = performance.now();
  const result: BenchResult = {
    matmul: [],
    loops: [],
    trip_cost: [],
    first_result_ms: null,
    first_result_detail: { init_ms: null, first_run_ms: null },
    webgpu_adapter: 'none',
    cross_origin_isolated: crossOriginIsolated,
    hardware_concurrency: navigator.hardwareConcurrency,
    user_agent: navigator.userAgent,
    params: PARAMS,
    mismatches: [],
    started,
    elapsed_ms: 0,
  };
  window.benchResult = undefined;

  // Time to first result: this module starts at page load; the engine's wasm is fetched and
  // instantiated, then the first 128³ matmul is compiled, run and read back.
  statusEl.textContent = 'running';
  progress('loading the engine');
  let oursOk = true;
  try {
    const tInit = performance.now();
    await init();
    const tRun = performance.now();
    await bench_matmul(128, 'cpu');
    const tEnd = performance.now();
    result.first_result_ms = tEnd;
    result.first_result_detail = { init_ms: tRun - tInit, first_run_ms: tEnd - tRun };
    firstEl.textContent =
      `Time to first result (TPU Playground, 128³ on wasm, from navigation start): ${tEnd.toFixed(0)} ms ` +
      `(engine init ${(tRun - tInit).toFixed(0)} ms, first run ${(tEnd - tRun).toFixed(0)} ms).`;
  } catch (err) {
    oursOk = false;
    result.first_result_detail.error = errText(err);
    firstEl.textContent = `TPU Playground failed to start: ${errText(err)}`;
  }

  progress('looking for a WebGPU adapter');
  result.webgpu_adapter = await describeAdapter();

  const impls: Impl[] = [];
  const want = (i: Impl) =>
    (!ONLY_IMPLS || ONLY_IMPLS.includes(i.impl)) &&
    (!ONLY_WHERE || i.where === `chromium-${ONLY_WHERE}`);
  const ours = oursImpls(result.webgpu_adapter);
  if (!oursOk) for (const i of ours) i.error = `engine failed to start: ${result.first_result_detail.error}`;
  impls.push(...ours);
  if (!ONLY_IMPLS || ONLY_IMPLS.includes('jax-js')) {
    progress('loading jax-js');
    impls.push(...(await jaxImpls(result.webgpu_adapter)));
  }
  if (!ONLY_IMPLS || ONLY_IMPLS.includes('tfjs')) {
    progress('loading TF.js');
    impls.push(...(await tfjsImpls(result.webgpu_adapter)));
  }
  const active = impls.filter(want);

  for (const n of SIZES) {
    const { a, b } = inputs(n);
    const ref = exactSum(a, b, n);
    const refBf16 = exactSum(toBf16(a), toBf16(b), n);
    const gpuLarge = n >= GPU_LARGE_N;
    const plan = active.map((impl) => {
      const large = impl.where === 'chromium-webgpu' && gpuLarge;
      return {
        impl,
        runs: large ? Math.min(RUNS, GPU_LARGE_RUNS) : RUNS,
        warmup: large ? Math.min(WARMUP, 1) : WARMUP,
        times: [] as number[],
        reps: 1,
        lastMs: null as number | null,
        firstCall: null as number | null,
        checksum: null as number | null,
        error: impl.error as string | undefined,
      };
    });
    /** One warm-up (one call) or one timed run (`reps` calls); resolves to ms per call. */
    const step = async (p: (typeof plan)[number], label: string, reps: number) => {
      const what = `${p.impl.impl} ${p.impl.where} ${n}³ ${label}`;
      const t = performance.now();
      let sum = NaN;
      for (let i = 0; i < reps; i++) sum = await withTimeout(p.impl.run(n, a, b), STEP_TIMEOUT_MS, what);
      const ms = (performance.now() - t) / reps;
      if (p.firstCall === null) p.firstCall = ms;
      p.checksum = sum;
      p.lastMs = ms;
      return ms;
    };
    // Interleaved: each round gives every implementation one call in turn, so a slow phase of
    // the machine (another process, thermal) is spread over all of them.
    const rounds = Math.max(...plan.map((p) => p.warmup + p.runs), 0);
    for (let r = 0; r < rounds; r++) {
      for (const p of plan) {
        if (p.error || r >= p.warmup + p.runs) continue;
        const warm = r < p.warmup;
        if (r === p.warmup && p.lastMs !== null) {
          // With a single warm-up, the call that sizes `reps` was the cold one (compilation
          // included): a fast implementation gets one more untimed call to size it from.
          if (p.warmup < 2 && p.lastMs < 10 * MIN_SAMPLE_MS) {
            try {
              await step(p, 'calibration', 1);
            } catch (err) {
              p.error = errText(err);
              continue;
            }
          }
          p.reps = Math.min(64, Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(p.lastMs, 0.01))));
        }
        const label = warm ? `warm-up ${r + 1}/${p.warmup}` : `run ${r - p.warmup + 1}/${p.runs}` + (p.reps > 1 ? ` (×${p.reps})` : '');
        progress(`n=${n} ${p.impl.impl} ${p.impl.where}: ${label}`);
        try {
          const ms = await step(p, label, warm ? 1 : p.reps);
          if (!warm) p.times.push(ms);
        } catch (err) {
          p.error = errText(err);
        }
        // Let the page paint and the console flush between calls.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
    for (const p of plan) {
      const med = p.times.length ? median(p.times) : null;
      const row: Row = {
        where: p.impl.where,
        impl: p.impl.impl,
        n,
        gflops: med !== null && !p.error ? (2 * n ** 3) / (med / 1000) / 1e9 : null,
        median_ms: p.error ? null : med,
        first_call_ms: p.firstCall,
        runs: p.times.length,
        times_ms: p.times.map((t) => Math.round(t * 1000) / 1000),
        warmup: p.warmup,
        reps: p.reps,
        adapter: p.impl.adapter,
        checksum: p.checksum,
      };
      if (p.error) row.error = p.error;
      if (p.impl.note) row.note = p.impl.note;
      if (p.checksum !== null) {
        // Ours rounds the operands to bf16 (DEFAULT precision); the peers compute in f32. Each is
        // held to its own exact reference, and all to the f32 one within 2e-2 relative.
        const own = p.impl.impl === 'tpu-playground' ? refBf16 : ref;
        const tolOwn = 2e-4 * Math.abs(own.sum) + 2e-6 * own.scale;
        const tolF32 = 2e-2 * Math.abs(ref.sum) + 1e-4 * ref.scale;
        const dOwn = Math.abs(p.checksum - own.sum);
        const dF32 = Math.abs(p.checksum - ref.sum);
        if (!Number.isFinite(p.checksum) || dOwn > tolOwn || dF32 > tolF32) {
          row.mismatch =
            `checksum ${p.checksum} vs exact ${own.sum.toPrecision(9)}` +
            (own === ref ? '' : ` (bf16 operands; f32 operands: ${ref.sum.toPrecision(9)})`) +
            `, |Δ| ${dOwn.toPrecision(3)} > tolerance ${tolOwn.toPrecision(3)}`;
          result.mismatches.push(`${row.impl} ${row.where} n=${n}: ${row.mismatch}`);
        }
      }
      result.matmul.push(row);
      // Once an implementation fails it is not retried at larger n (it would fail again, slowly).
      if (p.error && !p.impl.error) p.impl.error = `skipped: failed at n=${n}`;
    }
    render(result.matmul);
  }
  if (oursOk && (!ONLY_IMPLS || ONLY_IMPLS.includes('tpu-playground'))) {
    for (const where of ['chromium-wasm', 'chromium-webgpu'] as const) {
      if (ONLY_WHERE && where !== `chromium-${ONLY_WHERE}`) continue;
      await benchLoops(where, result);
    }
  }
  result.elapsed_ms = performance.now() - t0;
  window.benchResult = result;
  jsonEl.textContent = JSON.stringify(result, null, 2);
  progress(
    `${result.matmul.length} rows in ${(result.elapsed_ms / 1000).toFixed(1)} s` +
      (result.mismatches.length ? `; ${result.mismatches.length} CHECKSUM MISMATCH(ES)` : ''),
  );
  statusEl.textContent = 'done';
}

/**
 * Times `bench_loop` at each of TRIPS on one backend (one warm-up, which compiles, then RUNS
 * calls each), checks every result against the exact `1024 · (2 − 2^(1−n))`, and records what
 * one more trip costs: the slope of the medians between the shortest and the longest loop.
 */
async function benchLoops(where: Where, result: BenchResult): Promise<void> {
  const backend = where === 'chromium-webgpu' ? 'gpu' : 'cpu';
  const rows: LoopRow[] = [];
  for (const trips of TRIPS) {
    const row: LoopRow = { where, trips, median_ms: null, times_ms: [], checksum: null };
    const exact = trips === 0 ? 0 : 1024 * (2 - 2 ** (1 - trips));
    try {
      for (let r = 0; r < 1 + RUNS; r++) {
        progress(`loop of ${trips} trips on ${where}: ${r === 0 ? 'warm-up' : `run ${r}/${RUNS}`}`);
        const t = performance.now();
        row.checksum = await withTimeout(bench_loop(trips, backend), STEP_TIMEOUT_MS, `a loop of ${trips} trips`);
        if (r > 0) row.times_ms.push(Math.round((performance.now() - t) * 1000) / 1000);
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      row.median_ms = median(row.times_ms);
      if (row.checksum !== exact) {
        row.mismatch = `sum ${row.checksum}, exactly ${exact}`;
        result.mismatches.push(`loop ${where} ${trips} trips: ${row.mismatch}`);
      }
    } catch (err) {
      row.error = errText(err);
    }
    rows.push(row);
    result.loops.push(row);
  }
  const timed = rows.filter((r) => r.median_ms !== null);
  const [first, last] = [timed[0], timed[timed.length - 1]];
  const slope = first && last && last.trips > first.trips ? (last.median_ms! - first.median_ms!) / (last.trips - first.trips) : null;
  result.trip_cost.push({ where, ms_per_trip: slope, base_ms: first?.median_ms ?? null });
}

main().catch((err) => {
  // Only a bug in this page gets here; say so rather than hang the driver.
  window.benchResult = {
    matmul: [],
    loops: [],
    trip_cost: [],
    first_result_ms: null,
    first_result_detail: { init_ms: null, first_run_ms: null, error: `bench page failed: ${errText(err)}` },
    webgpu_adapter: 'unknown',
    cross_origin_isolated: crossOriginIsolated,
    hardware_concurrency: navigator.hardwareConcurrency,
    user_agent: navigator.userAgent,
    params: PARAMS,
    mismatches: [],
    started: '',
    elapsed_ms: 0,
  };
  progress(`failed: ${errText(err)}`);
  statusEl.textContent = 'error';
});
