//! The systolic-array model: SCALE-Sim's analytic compute model for one GEMM on one array, and a
//! cycle-by-cycle trace of a weight-stationary array for small tiles.
//!
//! `docs/systolic.md` derives every formula here from SCALE-Sim v2's source
//! (`scalesim/compute/systolic_compute_{ws,os,is}.py`) and checks it against SCALE-Sim's golden
//! reports. In short, for a GEMM `A[M×K] @ B[K×N]` on an `R×C` array:
//!
//! | dataflow | array rows hold (Sr) | array cols hold (Sc) | streamed (T) | cycles per fold |
//! | --- | --- | --- | --- | --- |
//! | ws | K | N | M | `2R + C + T − 2` |
//! | os | M | N | K | `R + C + T − 2` |
//! | is | K | M | N | `2R + C + T − 2` |
//!
//! `folds = ceil(Sr/R) · ceil(Sc/C)`, and the array is busy `folds × cycles per fold` cycles.
//! SCALE-Sim reports one less (its "Total Cycles" is the index of the last cycle, counting from
//! 0); [`Analysis::cycles`] follows SCALE-Sim so the numbers can be compared directly.

use serde::Serialize;
use std::fmt;

/// Which operand stays in the processing elements while the other streams through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dataflow {
    /// Weight stationary (the TPU's MXU): B is preloaded, rows of A stream in.
    Ws,
    /// Output stationary: each PE accumulates one output; A and B both stream.
    Os,
    /// Input stationary: A is preloaded, columns of B stream in.
    Is,
}

impl Dataflow {
    pub fn name(self) -> &'static str {
        match self {
            Dataflow::Ws => "ws",
            Dataflow::Os => "os",
            Dataflow::Is => "is",
        }
    }

    pub fn long_name(self) -> &'static str {
        match self {
            Dataflow::Ws => "weight stationary",
            Dataflow::Os => "output stationary",
            Dataflow::Is => "input stationary",
        }
    }

    pub fn parse(s: &str) -> Option<Dataflow> {
        match s {
            "ws" => Some(Dataflow::Ws),
            "os" => Some(Dataflow::Os),
            "is" => Some(Dataflow::Is),
            _ => None,
        }
    }
}

/// How a GEMM's dimensions land on the array: `sr` along its rows, `sc` along its columns, `t`
/// through time. Each field names the GEMM dimension it came from (`"K"`, `"N"`, `"M"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mapping {
    pub sr: u64,
    pub sc: u64,
    pub t: u64,
    pub sr_dim: &'static str,
    pub sc_dim: &'static str,
    pub t_dim: &'static str,
}

/// SCALE-Sim's operand mapping (`set_params` in `systolic_compute_{ws,os,is}.py`, where the
/// ifmap operand matrix is `M×K` and the filter matrix `K×N`).
pub fn mapping(dataflow: Dataflow, m: u64, k: u64, n: u64) -> Mapping {
    let (sr, sc, t, sr_dim, sc_dim, t_dim) = match dataflow {
        Dataflow::Ws => (k, n, m, "K", "N", "M"),
        Dataflow::Os => (m, n, k, "M", "N", "K"),
        Dataflow::Is => (k, m, n, "K", "M", "N"),
    };
    Mapping { sr, sc, t, sr_dim, sc_dim, t_dim }
}

/// Cycles one weight-stationary fold occupies an `rows × cols` array while `m` activation rows
/// stream through: `rows` to shift the weights in (one array row per cycle), then the first
/// activation row reaches the bottom-right PE after `rows + cols − 2` more cycles of skew, and the
/// last of the `m` rows leaves it `m − 1` cycles after the first. Total `2·rows + cols + m − 2`.
///
/// This is the timing model's `mxu.weights` (`rows`) plus `mxu.matmul` (`m + rows + cols − 2`)
/// when the two run back to back; with double-buffered weights the `rows` of the weight load can
/// hide behind the previous fold's stream, leaving [`ws_stream_cycles`].
pub fn ws_fold_cycles(rows: u64, cols: u64, m: u64) -> u64 {
    weight_load_cycles(rows) + ws_stream_cycles(rows, cols, m)
}

/// Cycles to shift a tile of weights into an array of `rows` rows: one row per cycle.
pub fn weight_load_cycles(rows: u64) -> u64 {
    rows
}

/// Cycles from the first activation row entering a loaded weight-stationary array to the last
/// partial sum leaving it: `m` rows one per cycle, plus `rows + cols − 2` cycles of skew.
pub fn ws_stream_cycles(rows: u64, cols: u64, m: u64) -> u64 {
    m + rows + cols - 2
}

/// Cycles one output-stationary fold takes with `k` reduction steps: operands stream in from two
/// edges with `rows − 1` and `cols − 1` cycles of skew, then the `k`-th product lands in the last
/// PE. No preload phase. Total `rows + cols + k − 2`.
pub fn os_fold_cycles(rows: u64, cols: u64, k: u64) -> u64 {
    rows + cols + k - 2
}

/// Cycles one input-stationary fold takes streaming `n` columns of B: the same shape as
/// weight stationary with the operands' roles swapped. Total `2·rows + cols + n − 2`.
pub fn is_fold_cycles(rows: u64, cols: u64, n: u64) -> u64 {
    2 * rows + cols + n - 2
}

/// Cycles one fold takes under `dataflow` with `t` streamed steps.
pub fn fold_cycles(dataflow: Dataflow, rows: u64, cols: u64, t: u64) -> u64 {
    match dataflow {
        Dataflow::Ws => ws_fold_cycles(rows, cols, t),
        Dataflow::Os => os_fold_cycles(rows, cols, t),
        Dataflow::Is => is_fold_cycles(rows, cols, t),
    }
}

/// One GEMM on one array, as SCALE-Sim's compute report gives it (with no memory stalls).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    pub rows: u64,
    pub cols: u64,
    pub dataflow: Dataflow,
    pub m: u64,
    pub k: u64,
    pub n: u64,
    pub mapping: Mapping,
    /// `ceil(sr / rows)` and `ceil(sc / cols)`.
    pub row_folds: u64,
    pub col_folds: u64,
    pub folds: u64,
    pub fold_cycles: u64,
    /// `folds × fold_cycles`: cycles the array is occupied.
    pub busy_cycles: u64,
    /// SCALE-Sim's "Total Cycles": `busy_cycles − 1` (the last cycle's 0-based index).
    pub cycles: u64,
    /// `m × k × n`.
    pub macs: u64,
    /// SCALE-Sim's "Overall Util": `macs / (rows × cols × cycles)`, a fraction.
    pub utilization: f64,
    /// SCALE-Sim's "Mapping Efficiency": PEs holding an operand, averaged over folds.
    pub mapping_efficiency: f64,
    /// SCALE-Sim's "Compute Util": per-fold `used PEs × t / (rows × cols × fold window)`,
    /// averaged over folds. Its fold window is `fold_cycles + cols − 1` for ws and is (the
    /// filter demand matrix's rows plus its width, minus one) and `fold_cycles` for os.
    pub compute_utilization: f64,
}

/// A GEMM or array dimension out of range.
#[derive(Clone, Debug, PartialEq)]
pub struct SystolicError(pub String);

impl fmt::Display for SystolicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SystolicError {}

/// Largest array side and GEMM dimension accepted: keeps every product below 2^64.
pub const MAX_ARRAY: u64 = 1 << 16;
pub const MAX_DIM: u64 = 1 << 20;

fn check(name: &str, v: u64, max: u64) -> Result<(), SystolicError> {
    if v == 0 || v > max {
        return Err(SystolicError(format!("{name} must be from 1 to {max}, got {v}")));
    }
    Ok(())
}

/// SCALE-Sim's analytic compute model for `A[m×k] @ B[k×n]` on a `rows × cols` array.
pub fn analyze(rows: u64, cols: u64, dataflow: Dataflow, m: u64, k: u64, n: u64) -> Result<Analysis, SystolicError> {
    check("rows", rows, MAX_ARRAY)?;
    check("cols", cols, MAX_ARRAY)?;
    check("m", m, MAX_DIM)?;
    check("k", k, MAX_DIM)?;
    check("n", n, MAX_DIM)?;
    let map = mapping(dataflow, m, k, n);
    let row_folds = map.sr.div_ceil(rows);
    let col_folds = map.sc.div_ceil(cols);
    let folds = row_folds * col_folds;
    let fold = fold_cycles(dataflow, rows, cols, map.t);
    let busy = folds * fold;
    let cycles = busy - 1;
    let macs = m * k * n;
    let pes = (rows * cols) as f64;
    // Summed over folds, the PEs in use are sr × sc: each fold uses the part of the sr × sc
    // operand tile that falls in it, and the folds tile it exactly.
    let used = (map.sr * map.sc) as f64;
    let window = match dataflow {
        Dataflow::Ws | Dataflow::Is => fold + cols - 1,
        Dataflow::Os => fold,
    };
    Ok(Analysis {
        rows,
        cols,
        dataflow,
        m,
        k,
        n,
        mapping: map,
        row_folds,
        col_folds,
        folds,
        fold_cycles: fold,
        busy_cycles: busy,
        cycles,
        macs,
        utilization: macs as f64 / (pes * cycles as f64),
        mapping_efficiency: used / (pes * folds as f64),
        compute_utilization: used * map.t as f64 / (pes * window as f64 * folds as f64),
    })
}

/// What the array is doing in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Weights shift in from the top, one array row per cycle.
    LoadWeights,
    /// Activations stream in from the left; partial sums flow down and leave at the bottom.
    Stream,
}

/// A partial sum: the output element it belongs to and its value so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Psum {
    pub m: usize,
    pub n: usize,
    pub value: f32,
}

/// One processing element in one cycle. Indices are into the whole GEMM, not the tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Pe {
    /// `(k, n)`: the element of B held here, if any (padding PEs hold none).
    pub weight: Option<(usize, usize)>,
    /// `(m, k)`: the element of A passing through this cycle, if any.
    pub activation: Option<(usize, usize)>,
    /// The partial sum this PE passes down at the end of the cycle, if any.
    pub psum: Option<Psum>,
    /// Whether the PE did a useful multiply-accumulate this cycle.
    pub mac: bool,
}

/// One cycle of the trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceCycle {
    pub cycle: u64,
    pub fold: usize,
    pub phase: Phase,
    /// `rows × cols` PEs, row-major.
    pub pes: Vec<Pe>,
    /// Finished partial sums leaving the bottom row this cycle (added into the output).
    pub outputs: Vec<Psum>,
}

/// A weight-stationary run of `A[m×k] @ B[k×n]`, cycle by cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    pub rows: usize,
    pub cols: usize,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub cycles: Vec<TraceCycle>,
    /// The accumulated `m × n` result, row-major.
    pub output: Vec<f32>,
}

/// Largest trace accepted, in PE-cycles (`rows × cols × cycles`).
pub const MAX_TRACE_PE_CYCLES: u64 = 4_000_000;

/// Steps a weight-stationary `rows × cols` array through `A[m×k] @ B[k×n]` (row-major `a`, `b`),
/// fold by fold in SCALE-Sim's order (N tiles outer, K tiles inner), and records every cycle.
///
/// Within a fold (K rows `k0..`, N columns `n0..`), with `s` counting cycles from its start:
/// - `s < rows`: weights shift in from the top. The tile's rows enter last-first, so after cycle
///   `s` array row `i ≤ s` holds tile row `rows − 1 − s + i`, and rows below still hold the
///   previous fold's weights, shifted down.
/// - `s ≥ rows`: A[t][k0 + i] is in PE (i, j) at `s = rows + t + i + j` (row i is fed `i` cycles
///   late, the skew, and moves right one PE per cycle). PE (i, j) adds `a × w` to the partial sum
///   from PE (i − 1, j) of the previous cycle, which belongs to the same `t`; row `rows − 1`
///   emits C[t][n0 + j] into the output.
///
/// The fold ends when the last partial sum leaves, after `2·rows + cols + m − 2` cycles
/// ([`ws_fold_cycles`]). Products and sums are f32, added down K from +0 within a fold, and fold
/// results are added into the output in fold order.
pub fn trace(
    rows: usize,
    cols: usize,
    m: usize,
    k: usize,
    n: usize,
    a: &[f32],
    b: &[f32],
) -> Result<Trace, SystolicError> {
    for (name, v) in [("rows", rows), ("cols", cols), ("m", m), ("k", k), ("n", n)] {
        check(name, v as u64, MAX_DIM)?;
    }
    if a.len() != m * k || b.len() != k * n {
        return Err(SystolicError(format!(
            "A must have m×k = {} elements and B k×n = {}, got {} and {}",
            m * k,
            k * n,
            a.len(),
            b.len()
        )));
    }
    let analysis = analyze(rows as u64, cols as u64, Dataflow::Ws, m as u64, k as u64, n as u64)?;
    let pe_cycles = analysis.busy_cycles as u128 * (rows * cols) as u128;
    if pe_cycles > MAX_TRACE_PE_CYCLES as u128 {
        return Err(SystolicError(format!(
            "a trace of {} cycles on {rows}×{cols} PEs is {pe_cycles} PE-cycles; the limit is \
             {MAX_TRACE_PE_CYCLES} (use a smaller tile)",
            analysis.busy_cycles
        )));
    }

    let fold_len = ws_fold_cycles(rows as u64, cols as u64, m as u64) as usize;
    let mut output = vec![0.0f32; m * n];
    let mut cycles = Vec::with_capacity(analysis.busy_cycles as usize);
    // The weights the array holds, as (k, n) per PE; they persist from fold to fold.
    let mut held: Vec<Option<(usize, usize)>> = vec![None; rows * cols];
    let mut fold = 0;
    for n0 in (0..n).step_by(cols) {
        for k0 in (0..k).step_by(rows) {
            // The tile's weight for array position (i, j), if it is inside B.
            let tile = |i: usize, j: usize| {
                let (kk, nn) = (k0 + i, n0 + j);
                (kk < k && nn < n).then_some((kk, nn))
            };
            let mut psum_prev: Vec<Option<Psum>> = vec![None; rows * cols];
            for s in 0..fold_len {
                let cycle = cycles.len() as u64;
                if s < rows {
                    // Shift down one row; the new row enters at the top.
                    held.copy_within(0..(rows - 1) * cols, cols);
                    for (j, w) in held[..cols].iter_mut().enumerate() {
                        *w = tile(rows - 1 - s, j);
                    }
                    let pes = held.iter().map(|&weight| Pe { weight, ..Pe::default() }).collect();
                    cycles.push(TraceCycle { cycle, fold, phase: Phase::LoadWeights, pes, outputs: Vec::new() });
                    continue;
                }
                let step = s - rows;
                let mut pes = vec![Pe::default(); rows * cols];
                let mut psum_now: Vec<Option<Psum>> = vec![None; rows * cols];
                let mut outputs = Vec::new();
                for i in 0..rows {
                    for j in 0..cols {
                        let pe = &mut pes[i * cols + j];
                        pe.weight = held[i * cols + j];
                        let Some(t) = step.checked_sub(i + j).filter(|&t| t < m) else {
                            continue;
                        };
                        let kk = k0 + i;
                        if kk < k {
                            pe.activation = Some((t, kk));
                        }
                        let nn = n0 + j;
                        if nn >= n {
                            // A padding column: activations pass through, nothing accumulates.
                            continue;
                        }
                        let above = if i == 0 { 0.0 } else { psum_prev[(i - 1) * cols + j].map_or(0.0, |p| p.value) };
                        let mut value = above;
                        if let (Some((_, wn)), Some(_)) = (pe.weight, pe.activation) {
                            debug_assert_eq!(wn, nn);
                            value = above + a[t * k + kk] * b[kk * n + nn];
                            pe.mac = true;
                        }
                        let p = Psum { m: t, n: nn, value };
                        pe.psum = Some(p);
                        psum_now[i * cols + j] = Some(p);
                        if i == rows - 1 {
                            output[t * n + nn] += value;
                            outputs.push(p);
                        }
                    }
                }
                psum_prev = psum_now;
                cycles.push(TraceCycle { cycle, fold, phase: Phase::Stream, pes, outputs });
            }
            fold += 1;
        }
    }
    Ok(Trace { rows, cols, m, k, n, cycles, output })
}
