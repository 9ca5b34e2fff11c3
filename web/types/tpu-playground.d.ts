// Types for the <tpu-playground> custom element (docs/embedding.md). Importing the package's
// module (`import 'tpu-playground-web'`, or a <script type="module"> of dist/tpu-playground.js)
// defines the element; these declarations describe it. web/src/embed.ts checks at compile time
// that the element matches them.

export type Machine = 'v1' | 'v2' | 'v3' | 'v4' | 'v5e' | 'v5p' | 'v6e';
export type Precision = 'default' | 'high' | 'highest';
export type BackendChoice = 'auto' | 'cpu' | 'gpu';
export type Panel = 'editor' | 'output' | 'jaxpr' | 'fused' | 'asm' | 'counters' | 'timeline' | 'roofline' | 'systolic';
export type EmbedState = 'idle' | 'loading' | 'queued' | 'running' | 'done' | 'error' | 'stopped';

export interface RunOptions {
  backend: BackendChoice;
  precision: Precision;
  machine: Machine;
}

/** Timing-model counters of one call of a program (docs/timing.md); the set grows with the engine. */
export interface Counters {
  cycles: number;
  seconds: number;
  flops: number;
  hbm_bytes_read: number;
  hbm_bytes_written: number;
  arithmetic_intensity: number;
  roofline_fraction: number;
  /** Fractions of `cycles × mxus_per_core`, summing to 1. */
  breakdown: Record<string, number>;
  [counter: string]: number | Record<string, number>;
}

/** One compiled program of a run: a jitted function, or one op run eagerly. */
export interface ProgramReport {
  name: string;
  calls: number;
  counters: Counters;
  eager?: boolean;
  jaxpr?: string;
  hlo?: string;
  fused?: string;
  asm?: string;
  /** Each instruction of `asm` with its executions, busy and wait cycles. */
  listing?: unknown[];
  /** When each operation of one call ran (the timeline panel). */
  timeline?: unknown;
}

export interface ScriptError {
  message: string;
  /** 1-based; 0 when the error has no place in the script. */
  line: number;
  col: number;
}

export interface RunOk {
  ok: true;
  /** What the script printed, as NumPy prints it. */
  stdout: string;
  /** Each print() call's arguments as JSON values (arrays as nested lists). */
  prints: unknown[][];
  programs: ProgramReport[];
  machine: string;
  machine_info?: Record<string, unknown>;
  backend: 'cpu' | 'gpu';
  adapter: string | null;
  backend_reason: string;
}

export interface RunFailed {
  ok: false;
  errors: ScriptError[];
  stdout: string;
}

export type RunResult = RunOk | RunFailed;

export interface RunStartDetail {
  code: string;
  options: RunOptions;
}

export interface RunProgressDetail {
  /** Milliseconds since run() (time waiting for another element's run included). */
  elapsedMs: number;
  /** True while another element's run holds the shared engine. */
  queued: boolean;
  /** The outermost loop running, once one has reported: its line, iteration (from 1) and length. */
  loop?: { line: number; iteration: number; total?: number; steps: number };
}

export interface RunCompleteDetail {
  result: RunOk;
  elapsedMs: number;
}

export interface RunErrorDetail {
  reason: 'script' | 'engine' | 'stopped' | 'load';
  errors: ScriptError[];
  result: RunResult | null;
  elapsedMs: number;
}

export interface TpuPlaygroundEventMap extends HTMLElementEventMap {
  'run-start': CustomEvent<RunStartDetail>;
  'run-progress': CustomEvent<RunProgressDetail>;
  'run-complete': CustomEvent<RunCompleteDetail>;
  'run-error': CustomEvent<RunErrorDetail>;
}

export declare class TpuPlaygroundElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** The script (what the editor holds). Settable even when `readonly`. */
  get code(): string;
  set code(text: string);
  /** The last finished run's report, or null. */
  get result(): RunResult | null;
  get state(): EmbedState;
  /** Whether this element has asked for the shared engine (scrolled into view, or run). */
  get engineStarted(): boolean;
  /** The `readonly` attribute. */
  get readOnly(): boolean;
  /** Runs the code; resolves to the report, or null when stopped or `src` failed to load. */
  run(): Promise<RunResult | null>;
  /** Ends this element's run (queued or running); returns whether there was one. */
  stop(): boolean;

  addEventListener<K extends keyof TpuPlaygroundEventMap>(
    type: K,
    listener: (this: TpuPlaygroundElement, ev: TpuPlaygroundEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
  removeEventListener<K extends keyof TpuPlaygroundEventMap>(
    type: K,
    listener: (this: TpuPlaygroundElement, ev: TpuPlaygroundEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | EventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'tpu-playground': TpuPlaygroundElement;
  }
}
