// The page's handle on the engine worker: one promise per run. After an engine failure the
// worker is dropped and the next run starts a fresh one (a fresh wasm instance), because an
// instance that panicked cannot be trusted again. Stop works the same way: wasm cannot be
// interrupted from outside, so the worker is terminated mid-run and a fresh one takes its place.
import type { RunOptions, RunReply, RunResult } from './protocol';

/** What a run's promise resolves to when `stop` ended it. */
export const STOPPED = 'stopped';
export type RunOutcome = RunResult | typeof STOPPED;

type Resolve = (outcome: RunOutcome) => void;

export class Engine {
  private worker: Worker | null;
  private nextId = 1;
  private pending = new Map<number, Resolve>();

  constructor() {
    // Spawned now so the wasm loads while the user reads the page.
    this.worker = this.spawn();
  }

  run(source: string, options: RunOptions): Promise<RunOutcome> {
    const id = this.nextId++;
    this.worker ??= this.spawn();
    const worker = this.worker;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, source, options });
    });
  }

  /**
   * Ends every run in progress now: their promises resolve to STOPPED. A fresh worker starts
   * loading at once, so the next run does not wait for it. Returns whether a run was stopped.
   */
  stop(): boolean {
    if (this.pending.size === 0) return false;
    this.worker?.terminate();
    this.worker = this.spawn();
    for (const resolve of this.pending.values()) resolve(STOPPED);
    this.pending.clear();
    return true;
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<RunReply>) => {
      const msg = event.data;
      const resolve = this.pending.get(msg.id);
      if (!resolve) return;
      this.pending.delete(msg.id);
      if ('json' in msg) {
        resolve(parseResult(msg.json));
      } else {
        resolve(engineFailure(msg.engineError));
        this.drop(worker, 'the engine failed during an earlier run');
      }
    };
    // An uncaught error in the worker, e.g. its script or the wasm failed to load.
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.drop(worker, event.message || 'the engine worker failed to start');
    };
    return worker;
  }

  private drop(worker: Worker, reason: string): void {
    worker.terminate();
    if (this.worker === worker) this.worker = null;
    for (const resolve of this.pending.values()) resolve(engineFailure(reason));
    this.pending.clear();
  }
}

function parseResult(json: string): RunResult {
  try {
    return JSON.parse(json) as RunResult;
  } catch {
    return engineFailure(`the engine returned malformed JSON: ${json.slice(0, 200)}`);
  }
}

function engineFailure(message: string): RunResult {
  return { ok: false, stdout: '', errors: [{ message: `engine error: ${message}`, line: 0, col: 0 }] };
}
