//! The timing model: when each instruction runs on its unit, and the counters that follow.
//!
//! Deterministic by construction: it reads the program and the machine description only,
//! never the host clock or the backend that computed the values.
//!
//! - Instructions issue in program order, one per cycle, from the scalar unit.
//! - Each unit runs its instructions one at a time, in order; different units overlap.
//! - An instruction starts when its unit is free, it has issued, and the VMEM words it reads
//!   (or writes) are no longer being written (or read) by an earlier instruction: a scoreboard,
//!   so data hazards cost time but never change values.
//! - `wait` holds issue until the DMAs that signal its semaphore have completed.
//!
//! Costs (docs/timing.md explains each):
//! - DMA: `dma_latency_cycles + ceil(bytes / hbm_bytes_per_cycle)`.
//! - MXU weights: `mxu_rows` cycles (weights shift in one row per cycle).
//! - MXU matmul: `M + mxu_rows + mxu_cols - 2` (one activation row per cycle, plus the
//!   systolic fill and drain skew), so one weights+matmul fold costs SCALE-Sim's
//!   `2·rows + cols + M - 2`.
//! - Vector: one vector register (`sublanes × lanes` words) per cycle, `transcendental_cycles`
//!   per register on the transcendental path.

use crate::config::TpuConfig;
use isa::{Instr, Program, Unit};
use serde::Serialize;

/// When one instruction ran.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Span {
    pub unit: Unit,
    pub start: u64,
    pub end: u64,
}

/// Per-program counters, all derived from the timing model. JSON names are documented in
/// docs/timing.md.
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
    pub instructions: u64,
}

/// The result of timing a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub counters: Counters,
    pub spans: Vec<Span>,
}

/// Cycles an instruction occupies its unit.
pub fn cost(instr: &Instr, cfg: &TpuConfig) -> u64 {
    match instr {
        Instr::DmaLoad { src, .. } | Instr::DmaStore { src, .. } => {
            let bytes = src.words() * 4;
            cfg.dma_latency_cycles + (bytes as f64 / cfg.hbm_bytes_per_cycle()).ceil() as u64
        }
        Instr::Wait { .. } => 0,
        Instr::MxuWeights { .. } => cfg.mxu_rows as u64,
        Instr::MxuMatmul { src, .. } => {
            src.rows as u64 + cfg.mxu_rows as u64 + cfg.mxu_cols as u64 - 2
        }
        Instr::Vector { op, len, .. } => {
            let regs = (*len as u64).div_ceil(cfg.vector_words());
            regs * if op.is_transcendental() {
                cfg.transcendental_cycles
            } else {
                1
            }
        }
    }
}

fn overlaps(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Times `program` on `cfg`.
pub fn simulate(program: &Program, cfg: &TpuConfig) -> Timing {
    let mut unit_free = [0u64; 4];
    let mut issue = 0u64;
    // Completion times of each semaphore's signals, in signal order.
    let mut signals: Vec<Vec<u64>> = vec![Vec::new(); 256];
    // (range, end) of earlier writes and reads, for the scoreboard.
    let mut writes: Vec<((u32, u32), u64)> = Vec::new();
    let mut reads: Vec<((u32, u32), u64)> = Vec::new();
    let mut spans = Vec::with_capacity(program.instrs.len());
    let mut c = Counters {
        flops: program.flops,
        instructions: program.instrs.len() as u64,
        ..Counters::default()
    };

    for instr in &program.instrs {
        let unit = instr.unit();
        if let Instr::Wait { sem, count } = instr {
            let done = &signals[*sem as usize];
            let ready = if *count == 0 {
                0
            } else {
                done.get(*count as usize - 1).copied().unwrap_or(u64::MAX)
            };
            // A wait for signals that never come is rejected by validation; treat as no-op here.
            if ready != u64::MAX {
                issue = issue.max(ready);
            }
            spans.push(Span {
                unit,
                start: issue,
                end: issue,
            });
            issue += 1;
            continue;
        }
        let (rd, wr) = (instr.vmem_reads(), instr.vmem_writes());
        let mut start = issue.max(unit_free[unit as usize]);
        for r in &rd {
            for (w, end) in &writes {
                if overlaps(*r, *w) {
                    start = start.max(*end);
                }
            }
        }
        for w in &wr {
            for (x, end) in writes.iter().chain(&reads) {
                if overlaps(*w, *x) {
                    start = start.max(*end);
                }
            }
        }
        let end = start + cost(instr, cfg);
        unit_free[unit as usize] = end;
        writes.extend(wr.into_iter().map(|r| (r, end)));
        reads.extend(rd.into_iter().map(|r| (r, end)));
        let busy = end - start;
        match instr {
            Instr::DmaLoad { src, sem, .. } => {
                c.hbm_bytes_read += src.words() * 4;
                signals[*sem as usize].push(end);
                c.dma_busy_cycles += busy;
            }
            Instr::DmaStore { src, sem, .. } => {
                c.hbm_bytes_written += src.words() * 4;
                signals[*sem as usize].push(end);
                c.dma_busy_cycles += busy;
            }
            Instr::MxuWeights { .. } | Instr::MxuMatmul { .. } => c.mxu_busy_cycles += busy,
            Instr::Vector { .. } => c.vector_busy_cycles += busy,
            Instr::Wait { .. } => unreachable!("handled above"),
        }
        spans.push(Span { unit, start, end });
        issue += 1;
    }
    c.cycles = spans.iter().map(|s| s.end).max().unwrap_or(0).max(issue);
    c.seconds = c.cycles as f64 / cfg.clock_hz;
    Timing { counters: c, spans }
}
