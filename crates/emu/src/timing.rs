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
//! - MXU weights: `mxu_rows` cycles (weights shift in one row per cycle).
//! - MXU matmul: `M + mxu_rows + mxu_cols - 2` (one activation row per cycle, plus the
//!   systolic fill and drain skew), so one weights+matmul fold costs SCALE-Sim's
//!   `2·rows + cols + M - 2`.
//! - Cross-lane reduce: one vector register of the source per cycle.
//! - Vector: one vector register (a `sublanes × lanes` tile of the block) per cycle,
//!   `transcendental_cycles` per register on the transcendental path.

use crate::config::TpuConfig;
use isa::{Instr, Program, Unit};
use serde::Serialize;
use std::collections::VecDeque;

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
}

/// The result of timing a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub counters: Counters,
    pub spans: Vec<Span>,
}

/// Cycles an operation occupies its unit.
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
        Instr::MxuWeights { .. } => cfg.mxu_rows as u64,
        Instr::MxuMatmul { src, .. } => src.rows as u64 + cfg.mxu_rows as u64 + cfg.mxu_cols as u64 - 2,
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

    fn record(&mut self, reads: &[(u32, u32)], writes: &[(u32, u32)], end: u64) {
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
    // Completion times of each semaphore's signals not yet taken by a wait.
    let mut signals: Vec<VecDeque<u64>> = vec![VecDeque::new(); 256];
    let mut board = Scoreboard::default();
    let mut spans = Vec::new();
    let mut c = Counters { flops: program.flops, instructions: program.instrs.len() as u64, ..Counters::default() };

    for (index, op) in program.ops() {
        c.operations += 1;
        let unit = op.unit();
        if let Instr::Wait { sem, count } = op {
            let queue = &mut signals[sem as usize];
            let mut ready = issue;
            for _ in 0..count {
                // Validation guarantees the signals exist.
                ready = ready.max(queue.pop_front().unwrap_or(ready));
            }
            issue = ready;
            spans.push(Span { instr: index, unit, start: issue, end: issue });
            issue += 1;
            continue;
        }
        let (reads, writes) = (op.vmem_reads(), op.vmem_writes());
        let start = issue.max(unit_free[unit as usize]).max(board.ready(&reads, &writes));
        let end = start + cost(&op, cfg);
        unit_free[unit as usize] = end;
        board.record(&reads, &writes, end);
        let busy = end - start;
        match &op {
            Instr::DmaLoad { src, sem, .. } | Instr::DmaStore { src, sem, .. } => {
                if matches!(op, Instr::DmaLoad { .. }) {
                    c.hbm_bytes_read += src.words() * 4;
                } else {
                    c.hbm_bytes_written += src.words() * 4;
                }
                // One DMA engine, in order: completions arrive in issue order.
                signals[*sem as usize].push_back(end);
                c.dma_busy_cycles += busy;
            }
            Instr::MxuWeights { .. } | Instr::MxuMatmul { .. } => c.mxu_busy_cycles += busy,
            Instr::Vector { .. } => c.vector_busy_cycles += busy,
            Instr::Reduce { .. } | Instr::Transpose { .. } => c.xlu_busy_cycles += busy,
            Instr::Wait { .. } | Instr::Loop { .. } | Instr::End => {}
        }
        spans.push(Span { instr: index, unit, start, end });
        issue += 1;
    }
    c.cycles = spans.iter().map(|s| s.end).max().unwrap_or(0).max(issue);
    c.seconds = c.cycles as f64 / cfg.clock_hz;
    Timing { counters: c, spans }
}
