//! The CPU reference backend: executes a program's instructions on host memory.

use crate::vpu_math;
use crate::{Backend, EmuError, RunFuture};
use half::bf16;
use isa::{Block, Instr, Operand, Part, Program, ReduceOp, VectorOp};

/// The bf16 `part` of an f32 (see [`isa::Part`]).
pub fn bf16_part(x: f32, part: Part) -> f32 {
    let hi = bf16::from_f32(x).to_f32();
    if part == Part::Hi {
        return hi;
    }
    let rest = x - hi;
    let mid = bf16::from_f32(rest).to_f32();
    if part == Part::Mid {
        return mid;
    }
    bf16::from_f32(rest - mid).to_f32()
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
    };
    match op {
        VectorOp::Neg | VectorOp::Abs => r,
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
            Instr::DmaLoad { src, dst, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    self.vmem[d..d + n].copy_from_slice(&self.hbm[s..s + n]);
                }
            }
            Instr::DmaStore { src, dst, .. } => {
                for ((s, n), (d, _)) in rows(src).zip(rows(dst)) {
                    self.hbm[d..d + n].copy_from_slice(&self.vmem[s..s + n]);
                }
            }
            Instr::Wait { .. } | Instr::Loop { .. } | Instr::End => {}
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
                let (k, n) = (w.rows, w.cols);
                // Column j's partial sum flows down the array adding one product per row, in
                // order of k, from +0. Looping k outside j keeps each column's sum in that order
                // while the inner loop runs over contiguous weights (vectorised); the products
                // of two bf16 values are exact in f32, and Rust never fuses them into the adds.
                let mut sums = vec![0.0f32; n];
                for ((s, _), (d, _)) in rows(src).zip(rows(dst)) {
                    sums.fill(0.0);
                    for kk in 0..k {
                        let a = bf16_part(self.vf(s + kk), *part);
                        for (sum, &wv) in sums.iter_mut().zip(&w.values[kk * n..(kk + 1) * n]) {
                            *sum += a * wv;
                        }
                    }
                    for (j, &sum) in sums.iter().enumerate() {
                        let out = canonical(if *accumulate { self.vf(d + j) + sum } else { sum });
                        self.vmem[d + j] = out.to_bits();
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

/// The CPU backend.
#[derive(Default)]
pub struct CpuBackend;

impl CpuBackend {
    /// Runs synchronously: places `inputs` in HBM, executes, returns the output buffers.
    pub fn run_sync(&self, program: &Program, inputs: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, EmuError> {
        crate::validate(program)?;
        let mut machine = Machine::new(program);
        crate::place_inputs(program, inputs, &mut machine.hbm)?;
        for (_, op) in program.ops() {
            machine.step(&op);
        }
        Ok(crate::read_outputs(program, &machine.hbm))
    }
}

impl Backend for CpuBackend {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn adapter(&self) -> Option<String> {
        None
    }

    fn run<'a>(&'a mut self, program: &'a Program, inputs: &'a [Vec<u32>]) -> RunFuture<'a> {
        Box::pin(async move { self.run_sync(program, inputs) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
