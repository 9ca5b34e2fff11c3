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
//! - The scalar unit runs the control: `s.load` waits for its VMEM word to be written, then
//!   holds issue `scalar_load_cycles` until the word arrives; `while` and `if` each cost
//!   `branch_cycles` of issue (the pipeline refilling after a branch on a value). The
//!   branches taken are those of the run being timed: the model replays its loaded words,
//!   and is otherwise independent of values.
//!
//! Costs (docs/timing.md explains each):
//! - DMA: `ceil(bytes / hbm_bytes_per_cycle)` on HBM's one channel, which loads and stores
//!   share; the data lands `dma_latency_cycles` later (latency overlaps other transfers).
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
use crate::EmuError;
use isa::{Instr, Program, Unit};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// When one operation ran, and which instruction it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Span {
    pub instr: usize,
    pub unit: Unit,
    /// Which of the unit's resources ran it: the MXU's number, or for DMA 0 for the load queue
    /// and 1 for the store queue; 0 otherwise.
    pub track: u8,
    /// The cycles it occupied its resource: `start..end`.
    pub start: u64,
    pub end: u64,
    /// When its results are written (after a DMA's latency or the MXU's systolic skew).
    pub done: u64,
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
    /// Cycles the MXUs stream activation rows, summed over the core's MXUs (so up to
    /// `cycles × mxus_per_core`).
    pub mxu_busy_cycles: u64,
    pub vector_busy_cycles: u64,
    pub dma_busy_cycles: u64,
    pub xlu_busy_cycles: u64,
    /// Cycles issue spent on the scalar unit's control: waiting for and loading the words
    /// `s.load` reads, and refilling after `while` and `if` (0 without them).
    pub scalar_cycles: u64,
    /// Instructions in the program, and operations executed (loops unrolled).
    pub instructions: u64,
    pub operations: u64,
    /// How many of the core's MXUs the program drives.
    pub mxus_used: u64,
    /// Multiply-accumulates the MXUs performed on real (unpadded) data, every precision pass
    /// included, over what they could have done in the elapsed cycles: `cycles ×
    /// mxus_per_core × rows × cols`.
    pub mxu_macs: u64,
    pub mxu_peak_macs: u64,
    pub mxu_utilization: f64,
    /// The v1 paper's "unused MACs": array cells that streamed padding while the array was
    /// active, `mxu_busy_cycles × rows × cols − mxu_macs`.
    pub mxu_unused_macs: u64,
    /// The VMEM the program allocates (its largest kernel's footprint).
    pub vmem_peak_bytes: u64,
    /// `flops / (hbm_bytes_read + hbm_bytes_written)`.
    pub arithmetic_intensity: f64,
    /// The roofline bound: the larger of `flops / peak_flops_per_cycle` (bf16 peak of one core)
    /// and `hbm bytes / hbm_bytes_per_cycle`; and `roofline_cycles / cycles`, how close the
    /// program comes to it.
    pub roofline_cycles: u64,
    pub roofline_fraction: f64,
    /// Where the MXUs' cycles went, after the TPU v1 paper's breakdown (fractions of `cycles ×
    /// mxus_per_core`, summing to 1; docs/timing.md).
    pub breakdown: Breakdown,
}

/// The MXUs' time, cycle by cycle, each cycle of each MXU in exactly one category: streaming
/// rows, or idle for the reason that was last to release it (docs/timing.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Breakdown {
    /// Streaming activation rows through the array.
    pub array_active: f64,
    /// Waiting for its next weights to shift in (the weight shifter, or a weight buffer still
    /// in use).
    pub weight_shift: f64,
    /// Waiting for the next weights' data to reach VMEM.
    pub weight_stall: f64,
    /// Waiting for activations to reach VMEM, or for issue held at a `wait` for a DMA.
    pub input_stall: f64,
    /// Waiting for the vector unit or the XLU to finish writing (or reading) its operands or
    /// result block: a read-after-write or write-after-read hazard.
    pub raw_stall: f64,
    /// Waiting for the instruction to issue (one per cycle, in program order).
    pub issue_stall: f64,
    /// No matrix work: after its last matmul, or never used.
    pub non_matrix: f64,
}

impl Breakdown {
    /// The categories with their JSON names, in order.
    pub fn parts(&self) -> [(&'static str, f64); 7] {
        [
            ("array_active", self.array_active),
            ("weight_shift", self.weight_shift),
            ("weight_stall", self.weight_stall),
            ("input_stall", self.input_stall),
            ("raw_stall", self.raw_stall),
            ("issue_stall", self.issue_stall),
            ("non_matrix", self.non_matrix),
        ]
    }
}

/// How one instruction of the listing spent its time, over every time it ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InstrTime {
    /// Times it ran (loop iterations included).
    pub executions: u64,
    /// Cycles it occupied its unit.
    pub busy_cycles: u64,
    /// Cycles between issuing and starting: waiting for its unit, its data or its weights.
    pub wait_cycles: u64,
}

/// The result of timing a program.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub counters: Counters,
    pub spans: Vec<Span>,
    /// Indexed like `Program::instrs`.
    pub per_instr: Vec<InstrTime>,
}

/// Cycles an operation occupies its unit (for the MXU: the weight shifter or the row stream;
/// for DMA: HBM's channel).
pub fn cost(op: &Instr<u32>, cfg: &TpuConfig) -> u64 {
    match op {
        Instr::DmaLoad { src, elem, .. } | Instr::DmaStore { src, elem, .. } => {
            ((src.words() * elem.bytes()) as f64 / cfg.hbm_bytes_per_cycle()).ceil() as u64
        }
        Instr::Wait { .. } | Instr::Loop { .. } | Instr::End | Instr::Else | Instr::Scalar { .. } => 0,
        Instr::ScalarLoad { .. } => cfg.scalar_load_cycles,
        Instr::While { .. } | Instr::If { .. } => cfg.branch_cycles,
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

/// Who last wrote a VMEM page: a DMA from HBM, or a compute unit (MXU, vector, XLU).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Writer {
    Dma,
    #[default]
    Compute,
}

#[derive(Default)]
struct Scoreboard {
    write_end: Vec<u64>,
    read_end: Vec<u64>,
    /// Who wrote the page last (the write that ends last).
    writer: Vec<Writer>,
    /// Whether the page's last write was an MXU result: matmuls accumulating into the same
    /// block follow each other down the result path without waiting. The model assumes two
    /// MXUs never write the same words (the compiler gives each its own columns), so results
    /// of different MXUs into one page do not wait for each other either.
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
            self.writer.resize(pages.end, Writer::Compute);
            self.mxu_result.resize(pages.end, false);
        }
    }

    /// The earliest start for an operation reading `reads` and writing `writes`, and who holds
    /// it back until then (a write-after-read hazard counts as compute).
    fn ready(&mut self, reads: &[(u32, u32)], writes: &[(u32, u32)]) -> (u64, Writer) {
        let mut t = (0, Writer::Compute);
        let later = |t: &mut (u64, Writer), e: u64, w: Writer| {
            if e > t.0 {
                *t = (e, w);
            }
        };
        for r in reads {
            let pages = Self::pages(*r);
            self.grow(&pages);
            for p in pages {
                later(&mut t, self.write_end[p], self.writer[p]);
            }
        }
        for w in writes {
            let pages = Self::pages(*w);
            self.grow(&pages);
            for p in pages {
                later(&mut t, self.write_end[p], self.writer[p]);
                later(&mut t, self.read_end[p], Writer::Compute);
            }
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

    fn record(&mut self, reads: &[(u32, u32)], writes: &[(u32, u32)], end: u64, by_mxu: bool, by: Writer) {
        for r in reads {
            for e in &mut self.read_end[Self::pages(*r)] {
                *e = (*e).max(end);
            }
        }
        for w in writes {
            for p in Self::pages(*w) {
                self.mxu_result[p] = by_mxu;
                if end >= self.write_end[p] {
                    self.write_end[p] = end;
                    self.writer[p] = by;
                }
            }
        }
    }
}

/// HBM's channel, which loads and stores share: the intervals it is booked, in order. A
/// transfer fills the free gaps from the cycle it can start, as a DMA engine moves a large
/// copy in bursts, so a store that waits for its data does not hold up a later load, nor the
/// reverse, and together they never exceed HBM's bandwidth.
#[derive(Default)]
struct Channel {
    busy: Vec<(u64, u64)>,
}

impl Channel {
    /// Books `len` cycles of transfer from `at` on; returns when the transfer starts and ends.
    /// Intervals ending at or before `floor` (before any transfer still to come can start) are
    /// forgotten.
    fn book(&mut self, at: u64, len: u64, floor: u64) -> (u64, u64) {
        self.busy.retain(|&(_, end)| end > floor);
        let (mut t, mut left, mut i) = (at, len, 0);
        let mut start = None;
        let mut taken = Vec::new();
        while left > 0 {
            while i < self.busy.len() && self.busy[i].1 <= t {
                i += 1;
            }
            let gap_end = self.busy.get(i).map_or(u64::MAX, |b| b.0.max(t));
            let take = left.min(gap_end - t);
            if take > 0 {
                start.get_or_insert(t);
                taken.push((t, t + take));
                left -= take;
                t += take;
            }
            if left > 0 {
                t = self.busy[i].1;
            }
        }
        self.busy.extend(taken);
        self.busy.sort_unstable();
        // Coalesce touching intervals so the list stays short.
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.busy.len());
        for &(s, e) in &self.busy {
            match merged.last_mut() {
                Some(last) if last.1 >= s => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.busy = merged;
        (start.unwrap_or(at), t)
    }
}

/// Why an MXU sat idle: an index into `Breakdown`'s categories.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Idle {
    WeightShift = 1,
    WeightStall = 2,
    InputStall = 3,
    RawStall = 4,
    IssueStall = 5,
}

/// One MXU's resources: the weight shifter (loads the next weights, into the second buffer
/// while the array streams with the first when the machine double-buffers weights) and the
/// array's row stream (one activation row enters per cycle; the last result leaves `rows +
/// cols - 2` cycles later, the systolic skew, which is latency, not occupancy).
#[derive(Default)]
struct Mxu {
    shifter_free: u64,
    stream_free: u64,
    /// When the last weights are in, their width, and what held their loading back.
    weights_ready: u64,
    weight_cols: u64,
    weights_idle: Option<Idle>,
    /// When the stream finishes with each of the last two weights loaded (oldest first).
    stream_use: [u64; 2],
    /// Cycles by `Breakdown` category (index 0: streaming).
    cycles: [u64; 6],
}

/// Times a run of `program` (which must be valid) on `cfg`: the run whose `s.load`s read
/// `loads` ([`crate::Executed::loads`]; none for a program without `s.load`).
pub fn simulate(program: &Program, loads: &[u32], cfg: &TpuConfig) -> Result<Timing, EmuError> {
    simulate_replay(program, program.replay(loads), cfg)
}

/// Times `program` without running it: no values, so the words its `s.load`s read are
/// unknown. The counters equal any run's where those words only move HBM addresses (a row
/// gathered, a window at a computed index); a program that branches on one (a `while` on a
/// computed condition) or addresses VMEM by one cannot be timed this way, and the error
/// names the instruction (see [`isa::Ops::load_unknown`]).
pub fn simulate_without_values(program: &Program, cfg: &TpuConfig) -> Result<Timing, EmuError> {
    simulate_replay(program, program.replay_without_values(), cfg)
}

fn simulate_replay(program: &Program, mut replay: isa::Replay<'_>, cfg: &TpuConfig) -> Result<Timing, EmuError> {
    let mut unit_free = [0u64; Unit::ALL.len()];
    let mut issue = 0u64;
    // Issue was last held at a `wait` for a DMA until this cycle.
    let mut issue_held_until = 0u64;
    // Completion times of each semaphore's signals not yet taken by a wait (a wait takes the
    // earliest ones).
    let mut signals: Vec<BinaryHeap<Reverse<u64>>> = vec![BinaryHeap::new(); 256];
    // Loads and stores go through separate DMA queues, each in order, sharing HBM's channel.
    let mut queue_free = [0u64; 2];
    let mut hbm = Channel::default();
    let mut board = Scoreboard::default();
    let mut spans = Vec::new();
    let mut per_instr = vec![InstrTime::default(); program.instrs.len()];
    let mut c = Counters {
        instructions: program.instrs.len() as u64,
        mxus_used: program.mxus_used() as u64,
        ..Counters::default()
    };
    let mut mxus: Vec<Mxu> = (0..cfg.mxus_per_core.max(program.mxus_used() as u32)).map(|_| Mxu::default()).collect();
    let skew = cfg.mxu_rows as u64 + cfg.mxu_cols as u64 - 2;

    for next in replay.by_ref() {
        let (index, op) = next?;
        c.operations += 1;
        per_instr[index].executions += 1;
        let unit = op.unit();
        // The scalar unit's control: it holds issue, it occupies no other unit.
        if matches!(op, Instr::ScalarLoad { .. } | Instr::Scalar { .. } | Instr::While { .. } | Instr::If { .. }) {
            let mut start = issue;
            if let Instr::ScalarLoad { .. } = op {
                // The word must have been written first.
                start = start.max(board.ready(&op.vmem_reads(), &[]).0);
            }
            let end = start + cost(&op, cfg);
            per_instr[index].busy_cycles += end - start;
            per_instr[index].wait_cycles += start - issue;
            c.scalar_cycles += end - issue;
            spans.push(Span { instr: index, unit, track: 0, start, end, done: end });
            issue = end + 1;
            continue;
        }
        if let Instr::Wait { sem, count } = op {
            let queue = &mut signals[sem as usize];
            let mut ready = issue;
            for _ in 0..count {
                // Validation guarantees the signals exist.
                ready = ready.max(queue.pop().map_or(ready, |Reverse(t)| t));
            }
            if ready > issue {
                per_instr[index].wait_cycles += ready - issue;
                issue_held_until = ready;
            }
            issue = ready;
            spans.push(Span { instr: index, unit, track: 0, start: issue, end: issue, done: issue });
            issue += 1;
            continue;
        }
        let (mut reads, writes) = (op.vmem_reads(), op.vmem_writes());
        let (ready, writer) = match &op {
            // A matmul's accumulation happens in the MXU's result path (see Scoreboard).
            Instr::MxuMatmul { src, dst, .. } => {
                reads = vec![src.span()];
                let data = board.ready(&reads, &[]);
                let results = (board.ready_for_results(dst.span()), Writer::Compute);
                if results.0 > data.0 {
                    results
                } else {
                    data
                }
            }
            _ => board.ready(&reads, &writes),
        };
        // Idle caused by data, by who is still writing it.
        let data_idle = match writer {
            Writer::Dma => Idle::InputStall,
            Writer::Compute => Idle::RawStall,
        };
        // (start, end of occupancy, when its results are written, track)
        let (start, end, done, track) = match &op {
            Instr::MxuWeights { mxu, src, .. } => {
                let m = &mut mxus[*mxu as usize];
                // A weight buffer is free once the stream is done with the weights it held.
                let release = if cfg.weight_double_buffer { m.stream_use[0] } else { m.stream_use[1] };
                let start = issue.max(m.shifter_free).max(ready).max(release);
                m.weights_idle = if start == ready && ready > issue.max(m.shifter_free).max(release) {
                    Some(if writer == Writer::Dma { Idle::WeightStall } else { Idle::RawStall })
                } else if start == issue && issue > m.shifter_free.max(release) {
                    // Issue held at a `wait` for a DMA after the shifter was free: the weights'
                    // (or the tile's) data was still loading.
                    Some(if issue_held_until > m.shifter_free.max(release) {
                        Idle::WeightStall
                    } else {
                        Idle::IssueStall
                    })
                } else {
                    Some(Idle::WeightShift)
                };
                let end = start + cfg.mxu_rows as u64;
                m.shifter_free = end;
                m.weights_ready = end;
                m.weight_cols = src.cols as u64;
                m.stream_use = [m.stream_use[1], 0];
                (start, end, end, *mxu)
            }
            Instr::MxuMatmul { mxu, src, .. } => {
                let m = &mut mxus[*mxu as usize];
                let free = m.stream_free;
                let start = issue.max(free).max(ready).max(m.weights_ready);
                // The idle gap before this op, blamed on what held it back last.
                let idle = if start == m.weights_ready && m.weights_ready > issue.max(ready) {
                    m.weights_idle.unwrap_or(Idle::WeightShift)
                } else if ready > issue {
                    data_idle
                } else if issue_held_until > free {
                    // Issue waited for a DMA after the array went idle.
                    Idle::InputStall
                } else {
                    Idle::IssueStall
                };
                m.cycles[idle as usize] += start - free.min(start);
                let end = start + src.rows as u64;
                m.stream_free = end;
                m.stream_use[1] = m.stream_use[1].max(end);
                m.cycles[0] += end - start;
                c.mxu_macs += src.rows as u64 * src.cols as u64 * m.weight_cols;
                (start, end, end + skew, *mxu)
            }
            Instr::DmaLoad { .. } | Instr::DmaStore { .. } => {
                let queue = matches!(op, Instr::DmaStore { .. }) as usize;
                let len = cost(&op, cfg);
                let at = issue.max(queue_free[queue]).max(ready);
                let (start, end) = hbm.book(at, len, queue_free[0].min(queue_free[1]));
                queue_free[queue] = end;
                (start, end, end + cfg.dma_latency_cycles, queue as u8)
            }
            _ => {
                let start = issue.max(unit_free[unit as usize]).max(ready);
                let end = start + cost(&op, cfg);
                unit_free[unit as usize] = end;
                (start, end, end, 0)
            }
        };
        let by = if matches!(op, Instr::DmaLoad { .. }) { Writer::Dma } else { Writer::Compute };
        board.record(&reads, &writes, done, matches!(op, Instr::MxuMatmul { .. }), by);
        // A DMA's span may include gaps where the other queue had the channel.
        let busy = if unit == Unit::Dma { cost(&op, cfg) } else { end - start };
        per_instr[index].busy_cycles += busy;
        per_instr[index].wait_cycles += start - issue;
        match &op {
            Instr::DmaLoad { src, sem, elem, .. } | Instr::DmaStore { src, sem, elem, .. } => {
                if matches!(op, Instr::DmaLoad { .. }) {
                    c.hbm_bytes_read += src.words() * elem.bytes();
                } else {
                    c.hbm_bytes_written += src.words() * elem.bytes();
                }
                signals[*sem as usize].push(Reverse(done));
                c.dma_busy_cycles += busy;
            }
            Instr::MxuMatmul { .. } => c.mxu_busy_cycles += busy,
            Instr::Vector { .. } => c.vector_busy_cycles += busy,
            Instr::Reduce { .. } | Instr::Transpose { .. } => c.xlu_busy_cycles += busy,
            _ => {}
        }
        spans.push(Span { instr: index, unit, track, start, end, done });
        issue += 1;
    }
    c.flops = replay.flops();
    c.cycles = spans.iter().map(|s| s.done).max().unwrap_or(0).max(issue);
    c.seconds = c.cycles as f64 / cfg.clock_hz;
    let cells = cfg.mxu_rows as u64 * cfg.mxu_cols as u64;
    let array = cfg.mxus_per_core as u64 * cells;
    c.mxu_peak_macs = c.cycles * array;
    c.mxu_utilization = ratio(c.mxu_macs as f64, c.mxu_peak_macs as f64);
    c.mxu_unused_macs = (c.mxu_busy_cycles * cells).saturating_sub(c.mxu_macs);
    c.vmem_peak_bytes = program.vmem_words as u64 * 4;
    let hbm_bytes = c.hbm_bytes_read + c.hbm_bytes_written;
    c.arithmetic_intensity = ratio(c.flops as f64, hbm_bytes as f64);
    let compute = (c.flops as f64 / (2 * array) as f64).ceil() as u64;
    let memory = (hbm_bytes as f64 / cfg.hbm_bytes_per_cycle()).ceil() as u64;
    c.roofline_cycles = compute.max(memory);
    c.roofline_fraction = ratio(c.roofline_cycles as f64, c.cycles as f64);
    c.breakdown = breakdown(&mxus, c.cycles);
    Ok(Timing { counters: c, spans, per_instr })
}

/// Every cycle of every MXU in one category; whatever the MXUs did not account for (after
/// their last matmul, or all of an unused one) has no matrix work.
fn breakdown(mxus: &[Mxu], cycles: u64) -> Breakdown {
    let total = cycles * mxus.len() as u64;
    let sum = |i: usize| mxus.iter().map(|m| m.cycles[i]).sum::<u64>();
    let accounted: u64 = (0..6).map(sum).sum();
    let frac = |x: u64| ratio(x as f64, total as f64);
    Breakdown {
        array_active: frac(sum(0)),
        weight_shift: frac(sum(Idle::WeightShift as usize)),
        weight_stall: frac(sum(Idle::WeightStall as usize)),
        input_stall: frac(sum(Idle::InputStall as usize)),
        raw_stall: frac(sum(Idle::RawStall as usize)),
        issue_stall: frac(sum(Idle::IssueStall as usize)),
        non_matrix: if total == 0 { 1.0 } else { frac(total - accounted) },
    }
}

/// `n / d`, or 0 when there is nothing to divide by.
fn ratio(n: f64, d: f64) -> f64 {
    if d == 0.0 {
        0.0
    } else {
        n / d
    }
}
