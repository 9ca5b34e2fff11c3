// The engine's JSON contract (crate `tpu-wasm`, `run_script`) and the messages between the
// page and its worker. One place, so the page and the worker cannot disagree.

import type { Machine, Precision } from './share';

export type BackendChoice = 'auto' | 'cpu' | 'gpu';

export interface RunOptions {
  backend: BackendChoice;
  precision: Precision;
  machine: Machine;
}

export interface ProgramReport {
  name: string;
  calls: number;
  /**
   * Timing-model counters (cycles, flops, bytes, ...); the set grows with the engine. Most are
   * numbers; some are groups of numbers (`breakdown`: each cause's share of the cycles).
   */
  counters: Record<string, number | Record<string, number>>;
  /** True for a single op run outside jit (op-by-op), false for a jitted function. */
  eager?: boolean;
  /** Each compiler stage as text: the Jaxpr, the HLO graph, the fused graph, TPU assembly. */
  jaxpr?: string;
  hlo?: string;
  fused?: string;
  asm?: string;
}

export interface RunOk {
  ok: true;
  stdout: string;
  prints: unknown[][];
  programs: ProgramReport[];
  machine: string;
  backend: 'cpu' | 'gpu';
  adapter: string | null;
  backend_reason: string;
}

export interface ScriptError {
  message: string;
  /** 1-based; 0 when the error has no place in the script (an engine failure). */
  line: number;
  col: number;
}

export interface RunFailed {
  ok: false;
  errors: ScriptError[];
  stdout: string;
}

export type RunResult = RunOk | RunFailed;

/** Page → worker. */
export interface RunRequest {
  id: number;
  source: string;
  options: RunOptions;
}

/** Worker → page: the engine's JSON text, or why the engine itself failed (a bug, not a script error). */
export type RunReply = { id: number; json: string } | { id: number; engineError: string };
