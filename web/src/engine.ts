// The handle on the engine worker: one promise per run. Runs queue and go to the worker one at a
// time, so several callers (the page, or every <tpu-playground> element of a page) share one
// worker, one wasm instance and one GPU device. After an engine failure the worker is dropped
// and the next run starts a fresh one (a fresh wasm instance), because an instance that panicked
// cannot be trusted again. Stop works the same way: wasm cannot be interrupted from outside, so
// the worker is terminated mid-run and a fresh one takes its place; runs still queued go to it.
import type { RunOptions, RunProgress, RunReply, RunResult } from './protocol';

/** What a run's promise resolves to when `stop` (or its ticket's `cancel`) ended it. */
export const STOPPED = 'stopped';
export type RunOutcome = RunResult | typeof STOPPED;

/** One submitted run: its outcome, and a way to end it whether it is queued or running. */
export interface RunTicket {
  readonly promise: Promise<RunOutcome>;
  /** Ends this run (STOPPED); false when it had already ended. */
  cancel(): boolean;
}

interface Job {
  id: number;
  source: string;
  options: RunOptions;
  resolve: (outcome: RunOutcome) => void;
  /** Called when the run leaves the queue for the worker. */
  onStart?: () => void;
  /** Called with each progress report of the run (at most ten a second). */
  onProgress?: (progress: RunProgress) => void;
}

export class Engine {
  private worker: Worker | null = null;
  private nextId = 1;
  /** The run the worker has now, and those waiting for it, in order. */
  private current: Job | null = null;
  private queue: Job[] = [];
  private spawned = 0;

  /** `lazy`: no worker until `start` or the first run (the page spawns at once instead). */
  constructor(options: { lazy?: boolean } = {}) {
    // Spawned now so the wasm loads while the user reads the page.
    if (!options.lazy) this.start();
  }

  /** How many workers this engine has started (0: the wasm was never fetched). */
  get workersStarted(): number {
    return this.spawned;
  }

  /** Starts the worker (and so the wasm's download and compilation) if none is running. */
  start(): void {
    this.worker ??= this.spawn();
  }

  run(source: string, options: RunOptions, onProgress?: (progress: RunProgress) => void): Promise<RunOutcome> {
    return this.submit(source, options, undefined, onProgress).promise;
  }

  /** Queues a run; `onStart` is called when the worker takes it, `onProgress` as it goes. */
  submit(
    source: string,
    options: RunOptions,
    onStart?: () => void,
    onProgress?: (progress: RunProgress) => void,
  ): RunTicket {
    const id = this.nextId++;
    let job!: Job;
    const promise = new Promise<RunOutcome>((resolve) => {
      job = { id, source, options, resolve, onStart, onProgress };
    });
    this.queue.push(job);
    this.pump();
    return { promise, cancel: () => this.cancel(job) };
  }

  /**
   * Ends every run, the one in progress and those queued, now: their promises resolve to
   * STOPPED. A fresh worker starts loading at once, so the next run does not wait for it.
   * Returns whether a run was stopped.
   */
  stop(): boolean {
    const jobs = [...(this.current ? [this.current] : []), ...this.queue];
    if (jobs.length === 0) return false;
    this.queue = [];
    if (this.current) this.restart();
    for (const job of jobs) job.resolve(STOPPED);
    return true;
  }

  private cancel(job: Job): boolean {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
    } else if (this.current === job) {
      this.restart();
    } else {
      return false;
    }
    job.resolve(STOPPED);
    this.pump();
    return true;
  }

  /** Terminates the worker mid-run and starts a fresh one. */
  private restart(): void {
    this.worker?.terminate();
    this.current = null;
    this.worker = this.spawn();
  }

  /** Hands the next queued run to the worker when it has none. */
  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const job = this.queue.shift()!;
    this.current = job;
    this.start();
    this.worker!.postMessage({ id: job.id, source: job.source, options: job.options });
    job.onStart?.();
  }

  private spawn(): Worker {
    this.spawned++;
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<RunReply>) => {
      const msg = event.data;
      const job = this.current;
      if (!job || job.id !== msg.id || this.worker !== worker) return;
      if ('progress' in msg) {
        job.onProgress?.(msg.progress);
        return;
      }
      this.current = null;
      if ('json' in msg) {
        job.resolve(parseResult(msg.json));
        this.pump();
      } else {
        job.resolve(engineFailure(msg.engineError));
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

  /** Drops a failed worker: its run fails with `reason`; queued runs go to a fresh worker. */
  private drop(worker: Worker, reason: string): void {
    worker.terminate();
    if (this.worker !== worker) return;
    this.worker = null;
    const job = this.current;
    this.current = null;
    job?.resolve(engineFailure(reason));
    this.pump();
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
