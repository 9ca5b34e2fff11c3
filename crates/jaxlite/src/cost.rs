//! What JAX's `cost_analysis()` reports: XLA's `HloCostAnalysis` counts over a program, here
//! over its Jaxpr, one HLO operation per equation (as JAX lowers most of them).
//!
//! XLA's rules, checked against JAX 0.10.2's `jax.jit(f).lower(...).cost_analysis()`:
//! - `flops`: one per output element of an elementwise operation (arithmetic, comparisons,
//!   `select`, conversions), `2·M·N·K` for a matmul (two per multiply-accumulate), one per
//!   element folded by a reduction (`input − output` elements); none for moving data.
//! - `transcendentals`: one per output element of `exp`, `log`, `tanh`, `sqrt`, `pow`, … (not
//!   also counted as flops).
//! - `bytes accessed`: each operation's operands and results, summed over the program;
//!   `bytes accessed{i}{}` the operands in position `i`, `bytes accessedout{}` the results. A
//!   slice reads only the elements it keeps; a transpose is free (XLA lays it out instead).
//! - `utilization{i}{}`: per operation, the fraction of operand `i`'s elements it reads.
//! - A scalar operand of an elementwise operation is broadcast first, as JAX lowers it (an
//!   operation of its own: the scalar in, the full array out).
//! - Loop bodies count once, not once per trip (XLA's analysis does not run the loop; a scan's
//!   counter adds its two flops); every branch of a `cond` counts.
//!
//! Where JAX's lowering expands an equation into several operations (`logistic`, the random
//! bits' Threefry rounds), the counts follow the equation, so they can differ from JAX's.
//! Keys whose value is 0 are left out, as XLA leaves them out.

use crate::jaxpr::Jaxpr;
use crate::prim::{BinaryOp, Primitive, UnaryOp};
use crate::Aval;

/// The counts of one program (see the module's comment).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostAnalysis {
    pub flops: f64,
    pub transcendentals: f64,
    /// Bytes read through operand `i`, summed over every operation.
    pub operand_bytes: Vec<f64>,
    /// Bytes every operation wrote.
    pub output_bytes: f64,
    /// Per operand position, the fractions of their operands the operations read, summed.
    pub utilization: Vec<f64>,
}

impl CostAnalysis {
    pub fn bytes_accessed(&self) -> f64 {
        self.operand_bytes.iter().sum::<f64>() + self.output_bytes
    }

    /// JAX's dict, in the order JAX 0.10 lists it, without zeros (XLA reports a key once it
    /// is nonzero).
    pub fn entries(&self) -> Vec<(String, f64)> {
        let mut entries = vec![
            ("flops".to_string(), self.flops),
            ("transcendentals".to_string(), self.transcendentals),
            ("bytes accessed".to_string(), self.bytes_accessed()),
        ];
        for (i, u) in self.utilization.iter().enumerate() {
            entries.push((format!("utilization{i}{{}}"), *u));
        }
        for (i, b) in self.operand_bytes.iter().enumerate() {
            entries.push((format!("bytes accessed{i}{{}}"), *b));
        }
        entries.push(("bytes accessedout{}".to_string(), self.output_bytes));
        entries.retain(|(_, v)| *v != 0.0);
        entries
    }

    /// One operation: what it reads through each operand (bytes, and the fraction of that
    /// operand), what it writes, and its flops and transcendentals.
    pub fn operation(&mut self, operands: &[(f64, f64)], output_bytes: f64, flops: f64, transcendentals: f64) {
        for (i, &(bytes, used)) in operands.iter().enumerate() {
            if self.operand_bytes.len() <= i {
                self.operand_bytes.resize(i + 1, 0.0);
                self.utilization.resize(i + 1, 0.0);
            }
            self.operand_bytes[i] += bytes;
            self.utilization[i] += used;
        }
        self.output_bytes += output_bytes;
        self.flops += flops;
        self.transcendentals += transcendentals;
    }

    /// Another program's counts added to these (a loop's body, a branch).
    pub fn add(&mut self, other: &CostAnalysis) {
        let operands: Vec<(f64, f64)> =
            other.operand_bytes.iter().copied().zip(other.utilization.iter().copied()).collect();
        self.operation(&operands, other.output_bytes, other.flops, other.transcendentals);
    }
}

fn bytes(aval: &Aval) -> f64 {
    (aval.size() * aval.dtype.size_bytes()) as f64
}

fn elements(aval: &Aval) -> f64 {
    aval.size() as f64
}

/// Whether XLA counts the operation as transcendental rather than as flops.
fn transcendental(prim: &Primitive) -> bool {
    use UnaryOp::*;
    match prim {
        Primitive::Unary(op) => {
            matches!(op, Exp | Log | Tanh | Logistic | Sqrt | Rsqrt | Sin | Cos | Log1p | Expm1 | Exp2 | Erf | ErfInv)
        }
        Primitive::Binary(op) => matches!(op, BinaryOp::Pow | BinaryOp::Atan2),
        _ => false,
    }
}

/// The counts of `jaxpr` as JAX's `Lowered.cost_analysis()` reports them.
pub fn lowered(jaxpr: &Jaxpr) -> CostAnalysis {
    let mut cost = CostAnalysis::default();
    count(jaxpr, &mut cost);
    cost
}

fn count(jaxpr: &Jaxpr, cost: &mut CostAnalysis) {
    for eqn in &jaxpr.eqns {
        let ins: Vec<&Aval> = eqn.inputs.iter().map(|a| jaxpr.atom_aval(a)).collect();
        let outs: Vec<&Aval> = eqn.outputs.iter().map(|&v| jaxpr.aval(v)).collect();
        let Some(out) = outs.first().copied() else { continue };
        let written: f64 = outs.iter().map(|a| bytes(a)).sum();
        let n = elements(out);
        let whole = |a: &Aval| (bytes(a), 1.0);
        match &eqn.prim {
            // No operation at all once lowered.
            Primitive::StopGradient
            | Primitive::ShardingConstraint { .. }
            | Primitive::RandomWrap
            | Primitive::RandomUnwrap
            | Primitive::Name { .. }
            | Primitive::Callback { .. } => {}
            prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => count(prim.call_body().expect("a call"), cost),
            Primitive::CustomJvpCall { .. } | Primitive::CustomVjpCall { .. } => {
                if let Some((body, _)) = eqn.prim.custom_body(&eqn.inputs) {
                    count(body, cost);
                }
            }
            Primitive::While { .. } | Primitive::Cond { .. } => {
                for sub in eqn.prim.sub_jaxprs() {
                    cost.add(&lowered(sub));
                }
            }
            Primitive::Scan { function } => {
                cost.add(&lowered(&function.body));
                // The loop's counter: `i + 1` and `i < length`.
                cost.operation(&[(4.0, 1.0), (4.0, 1.0)], 4.0, 1.0, 0.0);
                cost.operation(&[(4.0, 1.0), (4.0, 1.0)], 1.0, 1.0, 0.0);
            }
            Primitive::DotGeneral { dims, .. } => {
                let contracted: usize = dims.lhs_contracting.iter().map(|&d| ins[0].shape[d]).product();
                let operands: Vec<_> = ins.iter().map(|a| whole(a)).collect();
                cost.operation(&operands, written, 2.0 * n * contracted as f64, 0.0);
            }
            Primitive::ReduceSum { .. }
            | Primitive::ReduceMax { .. }
            | Primitive::ReduceMin { .. }
            | Primitive::ArgReduce { .. } => {
                // The operand and the reduction's initial value.
                let init = (ins[0].dtype.size_bytes() as f64, 1.0);
                cost.operation(&[whole(ins[0]), init], written, elements(ins[0]) - n, 0.0);
            }
            Primitive::Cumsum { axis, .. } => {
                // A window over the axis for every element, as XLA's reduce_window counts it.
                let length = ins[0].shape.get(*axis).copied().unwrap_or(1) as f64;
                cost.operation(
                    &[whole(ins[0]), (ins[0].dtype.size_bytes() as f64, 1.0)],
                    written,
                    n * (length - 1.0),
                    0.0,
                );
            }
            // A transpose is a layout, not a copy.
            Primitive::Transpose { .. } => cost.operation(&[(0.0, 1.0)], 0.0, 0.0, 0.0),
            // Reads only the elements it keeps.
            Primitive::Slice { .. } | Primitive::DynamicSlice { .. } | Primitive::Gather => {
                let kept = written / bytes(ins[0]).max(1.0);
                let mut operands = vec![(written, kept)];
                operands.extend(ins[1..].iter().map(|a| whole(a)));
                cost.operation(&operands, written, 0.0, 0.0);
            }
            Primitive::Unary(UnaryOp::Copy) => cost.operation(&[whole(ins[0])], written, 0.0, 0.0),
            Primitive::Unary(UnaryOp::Square) => cost.operation(&[whole(ins[0]), whole(ins[0])], written, n, 0.0),
            Primitive::IntegerPow { y } => {
                // Repeated squaring, each step an operation: a multiply per bit after the first
                // and per set bit but one, and a division for a negative power.
                let k = y.unsigned_abs() as u64;
                let muls = if k == 0 { 0 } else { (u64::BITS - 1 - k.leading_zeros()) + k.count_ones() - 1 };
                for _ in 0..muls + u32::from(*y < 0) {
                    cost.operation(&[whole(ins[0]), whole(ins[0])], written, n, 0.0);
                }
            }
            prim if elementwise(prim) => {
                // A scalar among arrays is broadcast first, an operation of its own.
                let operands: Vec<_> = ins
                    .iter()
                    .map(|a| {
                        if a.shape.is_empty() && !out.shape.is_empty() {
                            let full = n * a.dtype.size_bytes() as f64;
                            cost.operation(&[whole(a)], full, 0.0, 0.0);
                            (full, 1.0)
                        } else {
                            whole(a)
                        }
                    })
                    .collect();
                let logistic = matches!(prim, Primitive::Unary(UnaryOp::Logistic));
                let (flops, trans) = match () {
                    // 1 / (1 + exp(-x)): three flops around one exponential.
                    _ if logistic => (3.0 * n, n),
                    _ if transcendental(prim) => (0.0, n),
                    _ => (n, 0.0),
                };
                cost.operation(&operands, written, flops, trans);
            }
            _ => {
                let operands: Vec<_> = ins.iter().map(|a| whole(a)).collect();
                cost.operation(&operands, written, 0.0, 0.0);
            }
        }
    }
}

fn elementwise(prim: &Primitive) -> bool {
    matches!(
        prim,
        Primitive::Unary(_)
            | Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::SelectN
            | Primitive::Clamp
            | Primitive::ConvertElementType { .. }
            | Primitive::AddAny
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::Builder;
    use crate::{DType, DotDims};

    fn f32s(shape: &[usize]) -> Aval {
        Aval::new(shape.to_vec(), DType::F32)
    }

    #[test]
    fn a_matmul_is_two_flops_per_multiply_accumulate_and_reads_its_operands() {
        // jnp.tanh(a @ b) + 1.0 for a: f32[256,512], b: f32[512,128], as JAX 0.10.2 reports it.
        let mut b = Builder::new();
        let (x, w) = (b.input(f32s(&[256, 512])), b.input(f32s(&[512, 128])));
        let dims = DotDims { lhs_contracting: vec![1], rhs_contracting: vec![0], lhs_batch: vec![], rhs_batch: vec![] };
        let prim = Primitive::DotGeneral { dims, precision: None, preferred_element_type: Some(DType::F32) };
        let y = b.bind(prim, &[x, w]).unwrap().remove(0);
        let t = b.bind(Primitive::Unary(UnaryOp::Tanh), &[y]).unwrap().remove(0);
        let one = b.lit(1.0, DType::F32);
        let out = b.binary(BinaryOp::Add, &t, &one).unwrap();
        let cost = lowered(&b.finish(vec![out]));
        let entries = cost.entries();
        let entries: Vec<(&str, f64)> = entries.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            entries,
            [
                ("flops", 33587200.0),
                ("transcendentals", 32768.0),
                ("bytes accessed", 1703940.0),
                ("utilization0{}", 4.0),
                ("utilization1{}", 2.0),
                ("bytes accessed0{}", 786436.0),
                ("bytes accessed1{}", 393216.0),
                ("bytes accessedout{}", 524288.0),
            ]
        );
    }
}
