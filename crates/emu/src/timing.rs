//! The timing model: when each operation runs on its unit, and the counters that follow.
//!
//! Deterministic by construction: it reads the program and the machine description only,
//! never the host clock or the backend that computed the values.
//!
//! - Operations issue in program order (loops unrolled), one per cycle, from the scalar unit.
//! - Each unit runs its operations one at a time, in order; different units overlap.
//! - An operation starts when its unit is free, it has issued, and the VMEM it reads (or
//!   writes) is no longer being written (or read) by an earlier operation: a scoreboard over
//!   VMEM pages, so data hazards cost time but never change values.
//! - `wait` holds issue until its semaphore has enough completed DMAs, then takes them.
//!
//! Costs (docs/timing.md explains each):
//! - DMA: `dma_latency_cycles + ceil(bytes / hbm_bytes_per_cycle)`.
//! - MXU weights: `mxu_rows` cycles on the weight shifter (one row per cycle), overlapping the
//!   array's work on the other weight buffer when the machine double-buffers weights.
//! - MXU matmul: occupies the array's row stream for `M` cycles (one activation row per
//!   cycle); its results are written `mxu_rows + mxu_cols - 2` cycles after the last row
//!   enters (the systolic skew). One isolated weights + matmul fold therefore takes
//!   SCALE-Sim's `2·rows + cols + M - 2`; back-to-back folds pipeline.
//! - Cross-lane reduce: one vector register of the source per cycle.
//! - Vector: one vector register (a `sublanes × lanes` tile of the block) per cycle,
//!   `transcendental_cycles` per register on the transcendental path.

use crate::config::TpuConfig;
use isa::{Instr, Program, Unit};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// When one operation ran, and which instruction it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Span {
    pub instr: usize,
    pub unit: Unit,
    pub start: u64,
    pub end: u64,
}

/// Per-program counters, all derived from the timing model. JSON names are documented in
/// docs/cli.md and docs/timing.md.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    pub cycles: u64,
    /// `cycles / clock_hz`: the emulated machine's time, not the host's.
    pub seconds: f64,
    pub flops: u64,
    pub hbm_bytes_read: u64,
    pub hbm_bytes_written: u64,
    pub mxu_busy_cycles: u64,
    pub vector_busy_cycles: u64,
    pub dma_busy_cycles: u64,
    pub xlu_busy_cycles: u64,
    /// Instructions in the program, and operations executed (loops unrolled).
    pub instructions: u64,
    pub operations: u64,
    /// Multiply-accumulates the MXU performed on real (unpadded) data, every precision pass
    /// included, over what it could have done in the elapsed cycles: `cycles × mxus_per_core ×
    /// rows × cols`. The compiler drives one MXU of the core so far, so on a core with four
    /// the utilization is at most 25 %.
    pub mxu_macs: u64,
    pub mxu_peak_macs: u64,
    pub mxu_utilization: f64,
    /// The VMEM the program allocates (its largest kernel's footprint).
    pub vmem_peak_bytes: u64,
    /// `flops / (hbm_bytes_read + hbm_bytes_written)`.
    pub arithmetic_intensity: f64,
    /// The roofline bound: the larger of `flops / peak_flops_per_cycle` (bf16 peak of one core)
    /// and `hbm bytes / hbm_bytes_per_cycle`; and `roofline_cycles / cycles`, how close the
    /// program comes to it.
    pub roofline_cycles: u64,
    pub roofline_fraction: f64,
    /// Where the MXU's cycles went, after the TPU v1 paper's breakdown (fractions of `cycles`,
    /// summing to 1; docs/timing.md).
    pub breakdown: Breakdown,
}

/// The MXU array's time, cycle by cycle: streaming rows, idle waiting for its weights to be
/// shifted in, idle waiting for data a DMA or another unit is still writing, idle waiting for
/// the next MXU instruction to issue, or idle with no matrix work left.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    pub matmul: f64,
    pub weight_stall: f64,
    pub data_stall: f64,
    pub issue_stall: f64,
    pub no_matrix_work: f64,
}
/// The result of timing a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub counters: Counters,
    pub spans: Vec<Span>,
}

/// Cycles an operation occupies its unit (for the MXU: the weight shifter or the row stream).
pub fn cost(op: &Instr<u32>, cfg: &TpuConfig) -> u64 {
    match op {
        Instr::DmaLoad { src, .. } | Instr::DmaStore { src, .. } => {
            let bytes = src.words() * 4;
            cfg.dma_latency_cycles + (bytes as f64 / cfg.hbm_bytes_per_cycle()).ceil() as u64
        }
        Instr::Wait { .. } | Instr::Loop { .. } | Instr::End => 0,
        // One vector register of the row block enters the XLU's reduction tree per cycle.
        // A transpose passes each vector register of the source through the XLU once.
        Instr::Reduce { src, .. } | Instr::Transpose { src, .. } => {
            (src.rows as u64).div_ceil(cfg.vector_sublanes as u64) * (src.cols as u64).div_ceil(cfg.vector_lanes as u64)
        }
        // The weight shifter and the array's row stream (results follow `rows + cols - 2` later).
        Instr::MxuWeights { .. } => cfg.mxu_rows as u64,
        Instr::MxuMatmul { src, .. } => src.rows as u64,
        Instr::Vector { op, dst, .. } => {
            // A register holds `sublanes` rows of `lanes` columns: a block costs its tiles.
            let regs = (dst.rows as u64).div_ceil(cfg.vector_sublanes as u64)
                * (dst.cols as u64).div_ceil(cfg.vector_lanes as u64);
            regs * if op.is_transcendental() { cfg.transcendental_cycles } else { 1 }
        }
    }
}

/// VMEM hazards tracked per page of `PAGE` words: when its last write and last read end.
/// Pages make the scoreboard O(words touched / PAGE) per operation; an access to part of a
/// page waits as if it touched all of it (conservative, never optimistic).
const PAGE: u32 = 1024;

#[derive(Default)]
struct Scoreboard {
    write_end: Vec<u64>,
    read_end: Vec<u64>,
    /// Whether the page's last write was an MXU result: matmuls accumulating into the same
    /// block follow each other down the array's in-order result path without waiting.
    mxu_result: Vec<bool>,
}
impl Scoreboard {
    fn pages(range: (u32, u32)) -> std::ops::Range<usize> {
        if range.0 >= range.1 {
            return 0..0;
        }
        (range.0 / PAGE) as usize..range.1.div_ceil(PAGE) as usize
    }

    fn grow(&mut self, pages: &std::ops::Range<usize>) {
        if self.write_end.len() < pages.end {
            self.write_end.resize(pages.end, 0);
            self.read_end.resize(pages.end, 0);
            self.mxu_result.resize(pages.end, false);
        }
    }

    /// The earliest start for an operation reading `reads` and writing `writes`.
    fn ready(&mut self, reads: &[(u32, u32)], writes: &[(u32, u32)]) -> u64 {
        let mut t = 0;
        for r in reads {
            let pages = Self::pages(*r);
            self.grow(&pages);
            t = self.write_end[pages].iter().fold(t, |t, &e| t.max(e));
        }
        for w in writes {
            let pages = Self::pages(*w);
            self.grow(&pages);
            t = self.write_end[pages.clone()].iter().chain(&self.read_end[pages]).fold(t, |t, &e| t.max(e));
        }
        t
    }

    /// The earliest start for a matmul writing (or accumulating into) `dst`: after other
    /// units are done with it, but not after earlier MXU results into it.
    fn ready_for_results(&mut self, dst: (u32, u32)) -> u64 {
        let pages = Self::pages(dst);
        self.grow(&pages);
        pages.fold(0, |t, p| t.max(self.read_end[p]).max(if self.mxu_result[p] { 0 } else { self.write_end[p] }))
    }

    fn record(&mut self, reads: &[(u32, u32)], writes: &[(u32, u32)], end: u64, by_mxu: bool) {
        for w in writes {
            for p in Self::pages(*w) {
                self.mxu_result[p] = by_mxu;
            }
        }
        for r in reads {
            for e in &mut self.read_end[Self::pages(*r)] {
                *e = (*e).max(end);
            }
        }
        for w in writes {
            for e in &mut self.write_end[Self::pages(*w)] {
                *e = (*e).max(end);
            }
        }
    }
}

/// Times `program` (which must be valid) on `cfg`.
pub fn simulate(program: &Program, cfg: &TpuConfig) -> Timing {
    let mut unit_free = [0u64; Unit::ALL.len()];
    let mut issue = 0u64;
    // Completion times of each semaphore's signals not yet taken by a wait (a wait takes the
    // earliest ones).
    let mut signals: Vec<BinaryHeap<Reverse<u64>>> = vec![BinaryHeap::new(); 256];
    // Loads and stores go through separate DMA queues (HBM's read and write channels), each
    // in order, so a store waiting for its data does not hold up the next tile's loads.
    let mut store_free = 0u64;
    let mut board = Scoreboard::default();
    let mut spans = Vec::new();
    let mut c = Counters { flops: program.flops, instructions: program.instrs.len() as u64, ..Counters::default() };
    // The MXU is two resources: the weight shifter (loads the next weights, into the second
    // buffer while the array streams with the first when the machine double-buffers weights)
    // and the array's row stream (one activation row enters per cycle; the last result leaves
    // `rows + cols - 2` cycles later, the systolic skew, which is latency, not occupancy).
    // `stream_use[w]`: when the stream finishes with the w-th weights loaded.
    let mut shifter_free = 0u64;
    let mut weights_ready = 0u64;
    let mut weight_cols = 0u64;
    let mut stream_use: Vec<u64> = Vec::new();
    // The array's cycles by cause: streaming, waiting for weights, for data, for issue.
    let mut mxu = [0u64; 4];
    let skew = cfg.mxu_rows as u64 + cfg.mxu_cols as u64 - 2;

    for (index, op) in program.ops() {
        c.operations += 1;
        let unit = op.unit();
        if let Instr::Wait { sem, count } = op {
            let queue = &mut signals[sem as usize];
            let mut ready = issue;
            for _ in 0..count {
                // Validation guarantees the signals exist.
                ready = ready.max(queue.pop().map_or(ready, |Reverse(t)| t));
            }
            issue = ready;
            spans.push(Span { instr: index, unit, start: issue, end: issue });
            issue += 1;
            continue;
        }
        let (mut reads, writes) = (op.vmem_reads(), op.vmem_writes());
        let ready = match &op {
            // A matmul's accumulation happens in the MXU's result path (see Scoreboard).
            Instr::MxuMatmul { src, dst, .. } => {
                reads = vec![src.span()];
                board.ready(&reads, &[]).max(board.ready_for_results(dst.span()))
            }
            _ => board.ready(&reads, &writes),
        };
        // (start, end of occupancy, when its results are written)
        let (start, end, done) = match &op {
            Instr::MxuWeights { src, .. } => {
                // A weight buffer is free once the stream is done with the weights it held.
                let buffers = if cfg.weight_double_buffer { 2 } else { 1 };
                let n = stream_use.len();
                let release = if n >= buffers { stream_use[n - buffers] } else { 0 };
                let start = issue.max(shifter_free).max(ready).max(release);
                let end = start + cfg.mxu_rows as u64;
                shifter_free = end;
                weights_ready = end;
                weight_cols = src.cols as u64;
                stream_use.push(0);
                (start, end, end)
            }
            Instr::MxuMatmul { src, .. } => {
                let free = unit_free[Unit::Mxu as usize];
                let start = issue.max(free).max(ready).max(weights_ready);
                // The idle gap before this op, blamed on what held it back last.
                let cause = if start == weights_ready && weights_ready > issue.max(ready) {
                    1
                } else if ready > issue {
                    2
                } else {
                    3
                };
                mxu[cause] += start - free.min(start);
                let end = start + src.rows as u64;
                unit_free[Unit::Mxu as usize] = end;
                if let Some(last) = stream_use.last_mut() {
                    *last = (*last).max(end);
                }
                mxu[0] += end - start;
                c.mxu_macs += src.rows as u64 * src.cols as u64 * weight_cols;
                (start, end, end + skew)
            }
            Instr::DmaStore { .. } => {
                let start = issue.max(store_free).max(ready);
                let end = start + cost(&op, cfg);
                store_free = end;
                (start, end, end)
            }
            _ => {
                let start = issue.max(unit_free[unit as usize]).max(ready);
                let end = start + cost(&op, cfg);
                unit_free[unit as usize] = end;
                (start, end, end)
            }
        };
        board.record(&reads, &writes, done, matches!(op, Instr::MxuMatmul { .. }));
        let busy = end - start;
        match &op {
            Instr::DmaLoad { src, sem, .. } | Instr::DmaStore { src, sem, .. } => {
                if matches!(op, Instr::DmaLoad { .. }) {
                    c.hbm_bytes_read += src.words() * 4;
                } else {
                    c.hbm_bytes_written += src.words() * 4;
                }
                signals[*sem as usize].push(Reverse(end));
                c.dma_busy_cycles += busy;
            }
            Instr::MxuMatmul { .. } => c.mxu_busy_cycles += busy,
            Instr::Vector { .. } => c.vector_busy_cycles += busy,
            Instr::Reduce { .. } | Instr::Transpose { .. } => c.xlu_busy_cycles += busy,
            Instr::MxuWeights { .. } | Instr::Wait { .. } | Instr::Loop { .. } | Instr::End => {}
        }
        spans.push(Span { instr: index, unit, start, end: done });
        issue += 1;
    }
    c.cycles = spans.iter().map(|s| s.end).max().unwrap_or(0).max(issue);
    c.seconds = c.cycles as f64 / cfg.clock_hz;
    let array = cfg.mxus_per_core as u64 * cfg.mxu_rows as u64 * cfg.mxu_cols as u64;
    c.mxu_peak_macs = c.cycles * array;
    c.mxu_utilization = ratio(c.mxu_macs as f64, c.mxu_peak_macs as f64);
    c.vmem_peak_bytes = program.vmem_words as u64 * 4;
    let hbm_bytes = c.hbm_bytes_read + c.hbm_bytes_written;
    c.arithmetic_intensity = ratio(c.flops as f64, hbm_bytes as f64);
    let compute = (c.flops as f64 / (2 * array) as f64).ceil() as u64;
    let memory = (hbm_bytes as f64 / cfg.hbm_bytes_per_cycle()).ceil() as u64;
    c.roofline_cycles = compute.max(memory);
    c.roofline_fraction = ratio(c.roofline_cycles as f64, c.cycles as f64);
    let tail = c.cycles - mxu.iter().sum::<u64>();
    let frac = |x: u64| ratio(x as f64, c.cycles as f64);
    c.breakdown = Breakdown {
        matmul: frac(mxu[0]),
        weight_stall: frac(mxu[1]),
        data_stall: frac(mxu[2]),
        issue_stall: frac(mxu[3]),
        no_matrix_work: if c.cycles == 0 { 1.0 } else { frac(tail) },
    };
    Timing { counters: c, spans }
}

/// `n / d`, or 0 when there is nothing to divide by.
fn ratio(n: f64, d: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        n / d
    }
}
