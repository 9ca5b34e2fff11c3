// The engine's JSON contract (crate `tpu-wasm`, `run_script`) and the messages between the
// page and its worker. One place, so the page and the worker cannot disagree.

import type { Machine, Precision } from './share';

export type BackendChoice = 'auto' | 'cpu' | 'gpu';

export interface RunOptions {
  backend: BackendChoice;
  precision: Precision;
  machine: Machine;
  /** A square MXU of this size in place of the machine's own (`--set mxu=N`). */
  mxu?: number;
}

/** The emulated machine (`machine_info`): its published figures and those derived from them. */
export interface MachineInfo {
  name: string;
  clock_hz: number;
  cores_per_chip: number;
  mxus_per_core: number;
  mxu_rows: number;
  mxu_cols: number;
  hbm_bytes_per_second: number;
  /** What one TensorCore's DMAs see: the roofline's memory roof. */
  hbm_bytes_per_second_per_core: number;
  hbm_bytes_per_cycle: number;
  peak_bf16_flops_per_core: number;
  vmem_bytes: number;
  [field: string]: unknown;
}

/**
 * Timing-model counters of one call (docs/timing.md); the set grows with the engine. Most are
 * numbers; some are groups of numbers (`breakdown`: each cause's share of the MXUs' cycles).
 */
export interface Counters {
  cycles: number;
  seconds: number;
  flops: number;
  hbm_bytes_read: number;
  hbm_bytes_written: number;
  arithmetic_intensity: number;
  roofline_fraction: number;
  /** Fractions of `cycles × mxus_per_core`, summing to 1, in the engine's order. */
  breakdown: Record<string, number>;
  [counter: string]: number | Record<string, number>;
}

export type Unit = 'scalar' | 'dma' | 'mxu' | 'vector' | 'xlu';

/** One instruction of the assembly with the time it took over one call. */
export interface ListingLine {
  /** As the assembly prints it, without its index. */
  text: string;
  /** Nesting depth in loops and branches. */
  depth: number;
  unit: Unit;
  executions: number;
  busy_cycles: number;
  wait_cycles: number;
  /** A `while`'s trips in the call and their mean cycles, test to test. */
  trips?: number;
  cycles_per_trip?: number;
}

/** When each operation of one call ran. */
export interface Timeline {
  /** Row names: scalar, dma load, dma store, mxu0..., vector, xlu. */
  tracks: string[];
  /** `[instruction index, track index, start cycle, end cycle]`, at most 20000 of them. */
  spans: [number, number, number, number][];
  /** True when the program ran more operations than `spans` holds. */
  truncated: boolean;
  /** `[while instruction, start cycle, end cycle]` of each loop trip, by start, at most 20000. */
  trips?: [number, number, number][];
}

export interface ProgramReport {
  name: string;
  calls: number;
  counters: Counters;
  /** Bytes copied from the host (NumPy arrays, Python lists) for its calls, over all of them. */
  host_to_device_bytes?: number;
  /** True for a single op run outside jit (op-by-op), false for a jitted function. */
  eager?: boolean;
  /** Present while the program has no counters: why (it branches on the values it computes,
   * so its runs time it, and it has not run). */
  untimed?: string;
  /** Each compiler stage as text: the Jaxpr, the HLO graph, the fused graph, TPU assembly. */
  jaxpr?: string;
  hlo?: string;
  fused?: string;
  asm?: string;
  /** One entry per instruction of `asm`, indexed like the program's instructions. */
  listing?: ListingLine[];
  timeline?: Timeline;
}

export interface Transfers {
  host_to_device_bytes: number;
  host_to_device_copies: number;
  device_to_host_bytes: number;
  device_to_host_copies: number;
  /** The bytes' time over the chip's PCIe link, each way. */
  host_to_device_seconds?: number;
  device_to_host_seconds?: number;
}

/** One step of a mapped call, with when it runs in the call (cycles from its start). */
export type MappedStep =
  | { kind: 'program'; name: string; program: number; cycles: number; start: number; end: number }
  | {
      kind: 'collective';
      primitive: string;
      hlo: string;
      axis_name: string;
      group_size: number;
      bytes_per_chip: number;
      cycles: number;
      seconds: number;
      hops: number;
      latency_bound: boolean;
      busiest_link_bytes: number;
      start: number;
      end: number;
    };

/** A mapped call (`jax.pmap`) on the slice's chips (docs/cli.md, "Mapped calls"). */
export interface MappedReport {
  name: string;
  calls: number;
  chips: number;
  steps: MappedStep[];
  cycles: number;
  seconds: number;
  compute_cycles: number;
  collective_cycles: number;
  exposed_collective_cycles: number;
  ici_bytes_sent: number;
  links: { from: number; to: number; bytes: number }[];
}

export interface RunOk {
  ok: true;
  stdout: string;
  /** What the script wrote to standard error: warnings, `logging`, `print(file=sys.stderr)`. */
  stderr?: string;
  prints: unknown[][];
  programs: ProgramReport[];
  /** Mapped calls (`jax.pmap`); absent when the script made none. */
  mapped?: MappedReport[];
  /** Every copy between the host (Python, NumPy) and the device over the run. */
  transfers?: Transfers;
  machine: string;
  machine_info?: MachineInfo;
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
  stderr?: string;
}

export type RunResult = RunOk | RunFailed;

/** Page → worker. */
export interface RunRequest {
  id: number;
  source: string;
  options: RunOptions;
}

/**
 * Where a long run is: the outermost loop running, at its `iteration`-th pass (from 1) of
 * `total` (absent for a `while`), after `steps` interpreter steps.
 */
export interface RunProgress {
  line: number;
  iteration: number;
  total?: number;
  steps: number;
}

/**
 * Worker → page: the engine's JSON text, or why the engine itself failed (a bug, not a script
 * error); before either, any number of progress reports.
 */
export type RunReply =
  | { id: number; json: string }
  | { id: number; engineError: string }
  | { id: number; progress: RunProgress };
