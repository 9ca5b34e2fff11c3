//! The CPU reference backend: executes a program's instructions on host memory.

use crate::vpu_math;
use crate::{Backend, EmuError, Executed, RunFuture};
use isa::{Block, ElemType, Instr, Operand, Part, Program, ReduceOp, VectorOp};

/// The bf16 `part` of an f32 (see [`isa::Part`]).
#[inline]
pub fn bf16_part(x: f32, part: Part) -> f32 {
    let hi = bf16_round(x);
    if part == Part::Hi {
        return hi;
    }
    let rest = x - hi;
    let mid = bf16_round(rest);
    if part == Part::Mid {
        return mid;
    }
    bf16_round(rest - mid)
}

/// `x` rounded to bf16 (to nearest, ties to even; a NaN stays NaN, made quiet), as an f32:
/// `half::bf16::from_f32(x).to_f32()` without its branches, so loops over it vectorise. Adding
/// 0x7fff plus the lowest kept bit carries into the kept bits exactly when the dropped half is
/// above one half, or one half with an odd kept part.
#[inline]
pub fn bf16_round(x: f32) -> f32 {
    let bits = x.to_bits();
    let rounded = bits.wrapping_add(0x7fff + ((bits >> 16) & 1)) & 0xffff_0000;
    let quiet_nan = (bits & 0xffff_0000) | 0x0040_0000;
    f32::from_bits(if x.is_nan() { quiet_nan } else { rounded })
}

/// The one NaN that arithmetic produces. Hosts differ in the NaN an invalid operation returns
/// (x86 gives 0xffc00000, Arm 0x7fc00000, wasm leaves it open) and in which operand's NaN a
/// sum propagates, so every arithmetic result of the vector unit and the MXU that is NaN is
/// written as this quiet NaN instead. Moves (DMA) and sign operations (neg, abs) keep bits.
pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

fn canonical(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(CANONICAL_NAN)
    } else {
        x
    }
}

/// One vector-unit operation on one lane.
pub fn vector_op(op: VectorOp, a: f32, b: f32) -> f32 {
    let r = match op {
        VectorOp::Add => a + b,
        VectorOp::Sub => a - b,
        VectorOp::Mul => a * b,
        VectorOp::Div => vpu_math::div(a, b),
        VectorOp::Max => vpu_math::max(a, b),
        VectorOp::Min => vpu_math::min(a, b),
        VectorOp::Neg => -a,
        VectorOp::Abs => a.abs(),
        VectorOp::Exp => vpu_math::exp(a),
        VectorOp::Log => vpu_math::log(a),
        VectorOp::Tanh => vpu_math::tanh(a),
        VectorOp::Eq => (a == b) as u32 as f32,
        VectorOp::Ne => (a != b) as u32 as f32,
        VectorOp::Lt => (a < b) as u32 as f32,
        VectorOp::Le => (a <= b) as u32 as f32,
        VectorOp::Gt => (a > b) as u32 as f32,
        VectorOp::Ge => (a >= b) as u32 as f32,
        VectorOp::Where => unreachable!("a masked move reads its destination: see Machine::step"),
        VectorOp::Sqrt => vpu_math::sqrt(a),
        VectorOp::Rsqrt => vpu_math::div(1.0, vpu_math::sqrt(a)),
        VectorOp::Floor => vpu_math::floor(a),
        VectorOp::Ceil => vpu_math::ceil(a),
        VectorOp::Round => vpu_math::round_away(a),
        VectorOp::RoundEven => vpu_math::round_even(a),
        VectorOp::Sign => vpu_math::sign(a),
        VectorOp::Sin => vpu_math::sin(a),
        VectorOp::Cos => vpu_math::cos(a),
        VectorOp::Expm1 => vpu_math::expm1(a),
        VectorOp::Log1p => vpu_math::log1p(a),
        VectorOp::Erf => vpu_math::erf(a),
        VectorOp::Rem => vpu_math::rem(a, b),
        VectorOp::ToBf16 => bf16_round(a),
        VectorOp::BitAnd | VectorOp::BitOr | VectorOp::BitXor | VectorOp::ShiftLeft | VectorOp::ShiftRight => {
            vpu_math::integer_op(op, a, b)
        }
        VectorOp::IntToU32 => f32::from_bits(vpu_math::int_of_word(a) as u32),
        VectorOp::U32ToInt => a.to_bits() as i32 as f32,
        VectorOp::EqU32 => (a.to_bits() == b.to_bits()) as u32 as f32,
        VectorOp::LtU32 => (a.to_bits() < b.to_bits()) as u32 as f32,
        VectorOp::AddU32
        | VectorOp::OrU32
        | VectorOp::XorU32
        | VectorOp::ShlU32
        | VectorOp::ShrU32
        | VectorOp::MulU32
        | VectorOp::RemU32 => f32::from_bits(vpu_math::u32_op(op, a.to_bits(), b.to_bits())),
    };
    match op {
        VectorOp::Neg | VectorOp::Abs => r,
        op if op.is_u32() => r,
        _ => canonical(r),
    }
}

/// The state of one TensorCore: its memories, as 32-bit words.
pub struct Machine {
    pub hbm: Vec<u32>,
    pub vmem: Vec<u32>,
    /// Each MXU's weight registers.
    mxus: Vec<Weights>,
}

/// One MXU's weight registers: K×N values (already bf16-rounded), and their shape.
#[derive(Clone, Default)]
struct Weights {
    values: Vec<f32>,
    rows: usize,
    cols: usize,
}

fn rows(b: &Block<u32>) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..b.rows as usize).map(move |r| (b.addr as usize + r * b.stride as usize, b.cols as usize))
}

impl Machine {
    pub fn new(program: &Program) -> Machine {
        Machine {
            hbm: vec![0; program.hbm_words as usize],
            vmem: vec![0; program.vmem_words as usize],
            mxus: vec![Weights::default(); isa::MAX_MXUS as usize],
        }
    }

    fn vf(&self, addr: usize) -> f32 {
        f32::from_bits(self.vmem[addr])
    }

    /// Executes one operation (from [`Program::ops`] of a validated program).
    pub fn step(&mut self, instr: &Instr<u32>) {
        match instr {
            Instr::DmaLoad { src, dst, elem: ElemType::F32, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    self.vmem[d..d + n].copy_from_slice(&self.hbm[s..s + n]);
                }
            }
            Instr::DmaStore { src, dst, elem: ElemType::F32, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    self.hbm[d..d + n].copy_from_slice(&self.vmem[s..s + n]);
                }
            }
            // Packed bf16 in HBM: element `h` is half `h % 2` of word `h / 2`.
            Instr::DmaLoad { src, dst, elem: ElemType::Bf16, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    for k in 0..n {
                        let h = (s + k) as u64;
                        self.vmem[d + k] = isa::load_bf16(self.hbm[(h / 2) as usize], h);
                    }
                }
            }
            Instr::DmaStore { src, dst, elem: ElemType::Bf16, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    for k in 0..n {
                        let h = (d + k) as u64;
                        let word = &mut self.hbm[(h / 2) as usize];
                        *word = isa::store_bf16(*word, h, self.vmem[s + k]);
                    }
                }
            }
            // The scalar unit's work is done by `Program::ops`, which runs the control.
            Instr::Wait { .. }
            | Instr::Loop { .. }
            | Instr::End
            | Instr::ScalarLoad { .. }
            | Instr::Scalar { .. }
            | Instr::While { .. }
            | Instr::If { .. }
            | Instr::Else => {}
            Instr::Transpose { src, dst } => {
                for (r, (s, n)) in rows(src).enumerate() {
                    for c in 0..n {
                        self.vmem[dst.addr as usize + c * dst.stride as usize + r] = self.vmem[s + c];
                    }
                }
            }
            Instr::Reduce { op, src, dst } => {
                for (r, (s, n)) in rows(src).enumerate() {
                    let mut acc = op.identity();
                    for i in s..s + n {
                        let x = self.vf(i);
                        acc = match op {
                            ReduceOp::Sum => acc + x,
                            ReduceOp::Max => vpu_math::max(acc, x),
                            ReduceOp::Min => vpu_math::min(acc, x),
                        };
                    }
                    self.vmem[*dst as usize + r] = canonical(acc).to_bits();
                }
            }
            Instr::MxuWeights { src, part, mxu } => {
                let mut values = std::mem::take(&mut self.mxus[*mxu as usize].values);
                values.clear();
                for (s, n) in rows(src) {
                    values.extend((s..s + n).map(|i| bf16_part(self.vf(i), *part)));
                }
                self.mxus[*mxu as usize] = Weights { values, rows: src.rows as usize, cols: src.cols as usize };
            }
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => {
                let w = std::mem::take(&mut self.mxus[*mxu as usize]);
                // Rows go through in order, each read before its result is written; when the
                // result block overlaps the activations a later row may read an earlier row's
                // result, so then they go one at a time.
                let ((s0, s1), (d0, d1)) = (src.span(), dst.span());
                let rows_at_once = if s0 < d1 && d0 < s1 { 1 } else { src.rows.max(1) as usize };
                let (src_rows, dst_rows): (Vec<_>, Vec<_>) = rows(src).zip(rows(dst)).unzip();
                let mut lhs = Vec::with_capacity(rows_at_once * w.rows);
                let mut sums = Vec::with_capacity(rows_at_once * w.cols);
                for (srcs, dsts) in src_rows.chunks(rows_at_once).zip(dst_rows.chunks(rows_at_once)) {
                    lhs.clear();
                    for &(s, _) in srcs {
                        let row = &self.vmem[s..s + w.rows];
                        match part {
                            Part::Hi => lhs.extend(row.iter().map(|&x| bf16_round(f32::from_bits(x)))),
                            _ => lhs.extend(row.iter().map(|&x| bf16_part(f32::from_bits(x), *part))),
                        }
                    }
                    sums.clear();
                    sums.resize(srcs.len() * w.cols, 0.0);
                    systolic_matmul_threaded(&lhs, &w.values, w.rows, w.cols, &mut sums);
                    for (&(d, n), row) in dsts.iter().zip(sums.chunks_exact(w.cols.max(1))) {
                        let out = &mut self.vmem[d..d + n];
                        if *accumulate {
                            out.iter_mut()
                                .zip(row)
                                .for_each(|(o, &sum)| *o = canonical(f32::from_bits(*o) + sum).to_bits());
                        } else {
                            out.iter_mut().zip(row).for_each(|(o, &sum)| *o = canonical(sum).to_bits());
                        }
                    }
                }
                self.mxus[*mxu as usize] = w;
            }
            Instr::Vector { op, dst, a, b } => {
                let stride = dst.stride as usize;
                let fetch = |m: &Machine, o: &Operand<u32>, r: usize, c: usize| -> f32 {
                    match *o {
                        Operand::Vmem(x) => m.vf(x as usize + r * stride + c),
                        Operand::Row(x) => m.vf(x as usize + c),
                        Operand::Col(x) => m.vf(x as usize + r),
                        Operand::Splat(x) => m.vf(x as usize),
                        Operand::Imm(v) => v,
                    }
                };
                for r in 0..dst.rows as usize {
                    for c in 0..dst.cols as usize {
                        let d = dst.addr as usize + r * stride + c;
                        let (x, y) = (fetch(self, a, r, c), fetch(self, b, r, c));
                        self.vmem[d] = if *op == VectorOp::Where {
                            if x != 0.0 || x.is_nan() {
                                y.to_bits()
                            } else {
                                self.vmem[d]
                            }
                        } else {
                            vector_op(*op, x, y).to_bits()
                        };
                    }
                }
            }
        }
    }
}

/// Output rows and columns one step of [`systolic_matmul`] keeps in registers: 4 × 8 sums are
/// eight 128-bit vectors (wasm SIMD, SSE), which leaves registers for the weights and the
/// broadcast operand on every target.
const BLOCK_ROWS: usize = 4;
const BLOCK_COLS: usize = 8;

/// `out` (m×n) = `lhs` (m×k) · `weights` (k×n), each sum in the MXU's order: output (i, j)'s
/// partial sum flows down column j of the array adding one product per row, in order of k,
/// from +0. The products of two bf16 values are exact in f32, and Rust never fuses them into the
/// adds, so only that order decides the bits.
///
/// The loops are register-blocked (the way BLIS and every fast GEMM are): a block of
/// [`BLOCK_ROWS`] × [`BLOCK_COLS`] sums stays in registers while k runs, so each weight row
/// loaded serves four rows of `lhs` and no sum goes back to memory until it is final. Blocking
/// over i and j never reorders a sum; it only chooses which sums advance together.
pub fn systolic_matmul(lhs: &[f32], weights: &[f32], k: usize, n: usize, out: &mut [f32]) {
    if n == 0 {
        return;
    }
    let m = out.len() / n;
    debug_assert_eq!((lhs.len(), weights.len(), out.len()), (m * k, k * n, m * n));
    let blocked_cols = n - n % BLOCK_COLS;
    let mut i = 0;
    while i + BLOCK_ROWS <= m {
        sum_block::<BLOCK_ROWS>(lhs, weights, k, n, i, blocked_cols, out);
        i += BLOCK_ROWS;
    }
    for i in i..m {
        sum_block::<1>(lhs, weights, k, n, i, blocked_cols, out);
    }
    // The last n % BLOCK_COLS columns, one sum at a time.
    for i in 0..m {
        for j in blocked_cols..n {
            let mut sum = 0.0f32;
            for kk in 0..k {
                sum += lhs[i * k + kk] * weights[kk * n + j];
            }
            out[i * n + j] = sum;
        }
    }
}

/// Multiply-adds below which one thread does a matmul alone (a thread costs tens of µs).
const MACS_PER_THREAD: usize = 1 << 22;

/// [`systolic_matmul`] with the rows of `out` shared among the host's cores: each row's sums
/// are independent, so the bits are the same however they are split. (In the browser wasm has
/// no threads here; there it is one.)
pub fn systolic_matmul_threaded(lhs: &[f32], weights: &[f32], k: usize, n: usize, out: &mut [f32]) {
    let m = out.len().checked_div(n).unwrap_or(0);
    let threads = if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |p| p.get()).min((m * k * n / MACS_PER_THREAD).max(1))
    };
    systolic_matmul_on(threads, lhs, weights, k, n, out);
}

/// [`systolic_matmul`] on `threads` threads, each a run of `out`'s rows.
fn systolic_matmul_on(threads: usize, lhs: &[f32], weights: &[f32], k: usize, n: usize, out: &mut [f32]) {
    let m = out.len().checked_div(n).unwrap_or(0);
    if threads <= 1 || m == 0 {
        return systolic_matmul(lhs, weights, k, n, out);
    }
    // Rows per thread, a multiple of the register block so only the last chunk has a remainder.
    let rows = m.div_ceil(threads).div_ceil(BLOCK_ROWS) * BLOCK_ROWS;
    std::thread::scope(|scope| {
        for (chunk, out) in out.chunks_mut(rows * n).enumerate() {
            let lhs = &lhs[chunk * rows * k..][..out.len() / n * k];
            scope.spawn(move || systolic_matmul(lhs, weights, k, n, out));
        }
    });
}

/// Rows `first..first + R` of `out`, columns `0..cols` (a multiple of [`BLOCK_COLS`]).
#[inline(always)]
fn sum_block<const R: usize>(
    lhs: &[f32],
    weights: &[f32],
    k: usize,
    n: usize,
    first: usize,
    cols: usize,
    out: &mut [f32],
) {
    let lhs_rows: [&[f32]; R] = std::array::from_fn(|r| &lhs[(first + r) * k..][..k]);
    for j in (0..cols).step_by(BLOCK_COLS) {
        let mut sums = [[0.0f32; BLOCK_COLS]; R];
        for (kk, weight_row) in weights.chunks_exact(n).enumerate() {
            let w: &[f32; BLOCK_COLS] = weight_row[j..j + BLOCK_COLS].try_into().unwrap();
            for (row_sums, lhs_row) in sums.iter_mut().zip(&lhs_rows) {
                let x = lhs_row[kk];
                for (sum, &wv) in row_sums.iter_mut().zip(w) {
                    *sum += x * wv;
                }
            }
        }
        for (r, row_sums) in sums.iter().enumerate() {
            out[(first + r) * n + j..][..BLOCK_COLS].copy_from_slice(row_sums);
        }
    }
}

/// The CPU backend.
#[derive(Default)]
pub struct CpuBackend;

impl CpuBackend {
    /// Runs synchronously: places `inputs` in HBM, executes, returns the output buffers.
    pub fn run_sync(&self, program: &Program, inputs: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, EmuError> {
        Ok(self.execute(program, inputs)?.outputs)
    }

    /// Runs synchronously, keeping the words the scalar unit loaded (for the timing model).
    pub fn execute(&self, program: &Program, inputs: &[Vec<u32>]) -> Result<Executed, EmuError> {
        self.execute_limited(program, inputs, u64::MAX)
    }

    /// [`CpuBackend::execute`], its `while` loops taking at most `max_trips` trips together.
    pub fn execute_limited(
        &self,
        program: &Program,
        inputs: &[Vec<u32>],
        max_trips: u64,
    ) -> Result<Executed, EmuError> {
        crate::validate(program)?;
        let mut machine = Machine::new(program);
        crate::place_inputs(program, inputs, &mut machine.hbm)?;
        let mut loads = Vec::new();
        let mut ops = program.ops().max_trips(max_trips);
        while let Some(next) = ops.next() {
            let (_, op) = next.map_err(EmuError::from)?;
            if let Instr::ScalarLoad { src, .. } = op {
                // Every operation before it has finished: the word is the one the run wrote.
                let word = machine.vmem[src as usize];
                ops.load(word);
                loads.push(word);
            }
            machine.step(&op);
        }
        Ok(Executed { outputs: crate::read_outputs(program, &machine.hbm), loads })
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn adapter(&self) -> Option<String> {
        None
    }

    fn run_limited<'a>(&'a mut self, program: &'a Program, inputs: &'a [Vec<u32>], max_trips: u64) -> RunFuture<'a> {
        Box::pin(async move { self.execute_limited(program, inputs, max_trips) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn blocked_matmul_sums_in_the_systolic_order() {
        // Every shape around the block sizes, against one sum per output in order of k; values
        // of mixed magnitude so that any other order would round differently somewhere.
        let mut seed = 7u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            bf16_round(((seed >> 8) as f32 / 16_777_216.0 - 0.5) * [1.0, 1e-3, 1e4][(seed % 3) as usize])
        };
        for (m, k, n) in [(1, 1, 1), (3, 5, 7), (4, 8, 8), (5, 0, 9), (9, 17, 17), (13, 130, 25)] {
            let lhs: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let weights: Vec<f32> = (0..k * n).map(|_| next()).collect();
            let mut out = vec![f32::NAN; m * n];
            systolic_matmul(&lhs, &weights, k, n, &mut out);
            let mut shared = vec![f32::NAN; m * n];
            systolic_matmul_on(3, &lhs, &weights, k, n, &mut shared);
            assert_eq!(
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                shared.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
            for i in 0..m {
                for j in 0..n {
                    let want = (0..k).fold(0.0f32, |sum, kk| sum + lhs[i * k + kk] * weights[kk * n + j]);
                    assert_eq!(out[i * n + j].to_bits(), want.to_bits(), "{m}x{k}x{n} at ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn bf16_round_is_halfs_conversion() {
        let edges =
            [0x7f7f_ffff, 0x7f7f_8000, 0x7f80_0000, 0xff80_0001, 0x7fc0_0000, 0x0000_8000, 0x0001_8000, 0x0000_0001];
        let sample = (0..=u32::MAX).step_by(0x0000_0101).chain(edges).chain(edges.map(|b| b | 0x8000_0000));
        for bits in sample {
            let x = f32::from_bits(bits);
            assert_eq!(bf16_round(x).to_bits(), bf16::from_f32(x).to_f32().to_bits(), "{bits:#010x}");
        }
    }

    #[test]
    fn arithmetic_nans_are_canonical_and_sign_ops_keep_bits() {
        let payload = f32::from_bits(0xffc0_1234);
        let inf = f32::INFINITY;
        assert_eq!(vector_op(VectorOp::Sub, inf, inf).to_bits(), CANONICAL_NAN);
        assert_eq!(vector_op(VectorOp::Add, 1.0, payload).to_bits(), CANONICAL_NAN);
        assert_eq!(vector_op(VectorOp::Tanh, payload, 0.0).to_bits(), CANONICAL_NAN);
        assert_eq!(vector_op(VectorOp::Neg, payload, 0.0).to_bits(), 0x7fc0_1234);
        assert_eq!(vector_op(VectorOp::Abs, payload, 0.0).to_bits(), 0x7fc0_1234);
    }

    #[test]
    fn uint32_ops_work_on_bits() {
        let w = f32::from_bits;
        let op = |op, a: u32, b: u32| vector_op(op, w(a), w(b)).to_bits();
        // NaN and subnormal patterns are plain bits here.
        assert_eq!(op(VectorOp::AddU32, 0xffff_ffff, 2), 1);
        assert_eq!(op(VectorOp::AddU32, 0x7f80_0001, 0x0000_0001), 0x7f80_0002);
        assert_eq!(op(VectorOp::XorU32, 0xffc0_1234, 0x0000_00ff), 0xffc0_12cb);
        assert_eq!(op(VectorOp::OrU32, 0x0000_0100, 0x3f80_0000), 0x3f80_0100);
        assert_eq!(op(VectorOp::ShlU32, 0x8000_0001, 1), 2);
        assert_eq!(op(VectorOp::ShrU32, 0x8000_0000, 31), 1);
        assert_eq!(op(VectorOp::ShrU32, 0x8000_0000, 32), 0);
        assert_eq!(op(VectorOp::ShlU32, 1, 40), 0);
        // An int32 held as its float32 becomes its two's complement bits.
        assert_eq!(vector_op(VectorOp::IntToU32, -1.0, 0.0).to_bits(), 0xffff_ffff);
        assert_eq!(vector_op(VectorOp::IntToU32, 16_777_216.0, 0.0).to_bits(), 1 << 24);
        assert_eq!(op(VectorOp::MulU32, 0x8000_0001, 3), 0x8000_0003);
        assert_eq!(op(VectorOp::MulU32, 0xffff_ffff, 0xffff_ffff), 1);
        assert_eq!(op(VectorOp::RemU32, 0xffff_ffff, 10), 5);
        assert_eq!(op(VectorOp::RemU32, 0x7fc0_0001, 0), 0x7fc0_0001);
        // And back: the bits as an int32, held as its float32.
        assert_eq!(vector_op(VectorOp::U32ToInt, w(0xffff_fffe), 0.0), -2.0);
        assert_eq!(vector_op(VectorOp::U32ToInt, w(16_777_217), 0.0), 16_777_216.0);
        // Compared as bits: a NaN pattern equals itself, +0 and -0 differ, the high half is large.
        assert_eq!(vector_op(VectorOp::EqU32, w(0x7fc0_0001), w(0x7fc0_0001)), 1.0);
        assert_eq!(vector_op(VectorOp::EqU32, w(0), w(0x8000_0000)), 0.0);
        assert_eq!(vector_op(VectorOp::LtU32, w(0x7fff_ffff), w(0x8000_0000)), 1.0);
        assert_eq!(vector_op(VectorOp::LtU32, w(0xffff_ffff), w(1)), 0.0);
    }
}
