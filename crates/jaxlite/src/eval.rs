//! The reference evaluator: the numeric oracle inside the project. It runs a Jaxpr on the
//! host, with the MXU's arithmetic for matmuls (operands rounded to bf16 at DEFAULT precision,
//! products exact in f32, sums in f32 in order along the contracting axis).

use crate::array::{Array, Aval, Data};
use crate::dtype::DType;
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{BinaryOp, DotDims, Precision, Primitive, UnaryOp};
use crate::trace::{Executor, JaxError, LocalFuture, ProgramCall};
use half::bf16;
use std::collections::HashMap;

/// Evaluates `jaxpr` on `args` (constants first, then arguments).
pub fn eval_jaxpr(
    jaxpr: &Jaxpr,
    args: &[Array],
    default_precision: Precision,
) -> Result<Vec<Array>, JaxError> {
    let inputs: Vec<Var> = jaxpr.all_inputs().collect();
    if inputs.len() != args.len() {
        return Err(JaxError(format!(
            "expected {} inputs, got {}",
            inputs.len(),
            args.len()
        )));
    }
    let mut env: HashMap<Var, Array> = inputs.into_iter().zip(args.iter().cloned()).collect();
    let read = |env: &HashMap<Var, Array>, atom: &Atom| -> Array {
        match atom {
            Atom::Var(v) => env[v].clone(),
            Atom::Literal(l) => literal_array(l.value, &l.aval),
        }
    };
    for eqn in &jaxpr.eqns {
        let ins: Vec<Array> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let out = apply(&eqn.prim, &ins, default_precision)?;
        env.insert(eqn.outputs[0], out);
    }
    Ok(jaxpr.outvars.iter().map(|a| read(&env, a)).collect())
}

fn literal_array(value: f64, aval: &Aval) -> Array {
    let data = match aval.dtype {
        DType::F32 => Data::F32(vec![value as f32]),
        DType::BF16 => Data::BF16(vec![bf16::from_f64(value)]),
        DType::I32 => Data::I32(vec![value as i32]),
        DType::Bool => Data::Bool(vec![value != 0.0]),
    };
    let mut a = Array::new(vec![], data);
    a.aval.weak_type = aval.weak_type;
    a
}

/// Applies one primitive to concrete arrays.
pub fn apply(
    prim: &Primitive,
    ins: &[Array],
    default_precision: Precision,
) -> Result<Array, JaxError> {
    let avals: Vec<Aval> = ins.iter().map(|a| a.aval.clone()).collect();
    let out_aval = prim.abstract_eval(&avals)?.remove(0);
    let x = &ins[0];
    let values: Vec<f64> = match prim {
        Primitive::Unary(op) => {
            let f = x.to_f64_vec();
            if x.dtype().is_float() {
                f.iter().map(|&v| unary_f32(*op, v as f32) as f64).collect()
            } else {
                f.iter()
                    .map(|&v| if *op == UnaryOp::Abs { v.abs() } else { -v })
                    .collect()
            }
        }
        Primitive::Binary(op) => {
            let (a, b) = (x.to_f64_vec(), ins[1].to_f64_vec());
            let n = out_aval.size();
            let at = |v: &Vec<f64>, i: usize| if v.len() == 1 { v[0] } else { v[i] };
            (0..n)
                .map(|i| {
                    let (p, q) = (at(&a, i), at(&b, i));
                    if out_aval.dtype.is_float() {
                        binary_f32(*op, p as f32, q as f32) as f64
                    } else {
                        binary_int(*op, p as i64, q as i64) as f64
                    }
                })
                .collect()
        }
        Primitive::DotGeneral {
            dims, precision, ..
        } => dot_general(
            x,
            &ins[1],
            dims,
            precision.unwrap_or(default_precision),
            &out_aval.shape,
        ),
        Primitive::Reshape { .. } | Primitive::ConvertElementType { .. } => x.to_f64_vec(),
        Primitive::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            let out_size: usize = shape.iter().product();
            (0..out_size)
                .map(|i| {
                    let idx = unravel(i, shape);
                    let src: usize = broadcast_dimensions
                        .iter()
                        .enumerate()
                        .map(|(k, &d)| {
                            if x.shape()[k] == 1 {
                                0
                            } else {
                                idx[d] * in_strides[k]
                            }
                        })
                        .sum();
                    f[src]
                })
                .collect()
        }
        Primitive::Transpose { permutation } => {
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            (0..x.size())
                .map(|i| {
                    let idx = unravel(i, &out_aval.shape);
                    permutation
                        .iter()
                        .enumerate()
                        .map(|(k, &p)| idx[k] * in_strides[p])
                        .sum::<usize>()
                })
                .map(|src| f[src])
                .collect()
        }
        Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } => {
            let is_max = matches!(prim, Primitive::ReduceMax { .. });
            let f = x.to_f64_vec();
            let init = if is_max { f64::NEG_INFINITY } else { 0.0 };
            let mut acc = vec![init; out_aval.size()];
            let kept: Vec<usize> = (0..x.shape().len()).filter(|a| !axes.contains(a)).collect();
            let out_strides = strides(&out_aval.shape);
            for (i, &v) in f.iter().enumerate() {
                let idx = unravel(i, x.shape());
                let o: usize = kept
                    .iter()
                    .enumerate()
                    .map(|(k, &a)| idx[a] * out_strides[k])
                    .sum();
                acc[o] = if is_max {
                    acc[o].max(v)
                } else if x.dtype().is_float() {
                    (acc[o] as f32 + v as f32) as f64
                } else {
                    acc[o] + v
                };
            }
            acc
        }
    };
    Ok(from_f64(&out_aval, &values))
}

fn from_f64(aval: &Aval, v: &[f64]) -> Array {
    let data = match aval.dtype {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|&x| bf16::from_f32(x as f32)).collect()),
        DType::I32 => Data::I32(v.iter().map(|&x| x as i32).collect()),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
    };
    let mut a = Array::new(aval.shape.clone(), data);
    a.aval.weak_type = aval.weak_type;
    a
}

pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d].max(1);
        i /= shape[d].max(1);
    }
    idx
}

pub fn unary_f32(op: UnaryOp, x: f32) -> f32 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Logistic => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Abs => x.abs(),
    }
}

pub fn binary_f32(op: BinaryOp, a: f32, b: f32) -> f32 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Max => {
            if a.is_nan() || b.is_nan() {
                f32::NAN
            } else {
                a.max(b)
            }
        }
        BinaryOp::Min => {
            if a.is_nan() || b.is_nan() {
                f32::NAN
            } else {
                a.min(b)
            }
        }
    }
}

fn binary_int(op: BinaryOp, a: i64, b: i64) -> i64 {
    let r = match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        // XLA's integer division truncates toward zero; division by zero gives -1.
        BinaryOp::Div => {
            if b == 0 {
                -1
            } else {
                a / b
            }
        }
        BinaryOp::Max => a.max(b),
        BinaryOp::Min => a.min(b),
    };
    r as i32 as i64
}

/// Splits an f32 into bf16 parts whose sum approximates it: one part at DEFAULT, and the
/// hi/mid/lo parts that the HIGH and HIGHEST passes multiply.
pub fn bf16_split(x: f32, parts: usize) -> [f32; 3] {
    let mut out = [0.0f32; 3];
    let mut rest = x;
    for slot in out.iter_mut().take(parts) {
        let p = bf16::from_f32(rest).to_f32();
        *slot = p;
        rest -= p;
    }
    out
}

/// The bf16 passes of a matmul at each precision, as (lhs part, rhs part), smallest terms first
/// so they are summed before the large ones (as XLA's bf16_3x and bf16_6x algorithms do).
pub fn precision_passes(p: Precision) -> &'static [(usize, usize)] {
    match p {
        Precision::Default => &[(0, 0)],
        Precision::High => &[(1, 0), (0, 1), (0, 0)],
        Precision::Highest => &[(1, 1), (2, 0), (0, 2), (1, 0), (0, 1), (0, 0)],
    }
}

fn dot_general(
    x: &Array,
    y: &Array,
    dims: &DotDims,
    precision: Precision,
    out_shape: &[usize],
) -> Vec<f64> {
    let float = x.dtype().is_float();
    let (xf, yf) = (x.to_f32_vec(), y.to_f32_vec());
    let (xs, ys) = (strides(x.shape()), strides(y.shape()));
    let free = |a: &Array, c: &[usize], b: &[usize]| -> Vec<usize> {
        (0..a.shape().len())
            .filter(|d| !c.contains(d) && !b.contains(d))
            .collect()
    };
    let (xfree, yfree) = (
        free(x, &dims.lhs_contracting, &dims.lhs_batch),
        free(y, &dims.rhs_contracting, &dims.rhs_batch),
    );
    let contract_shape: Vec<usize> = dims.lhs_contracting.iter().map(|&d| x.shape()[d]).collect();
    let k_total: usize = contract_shape.iter().product();
    let nb = dims.lhs_batch.len();
    let passes = if float && x.dtype() == DType::F32 {
        precision_passes(precision)
    } else {
        &[(0, 0)]
    };
    let parts = passes.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(1);
    let out_size: usize = out_shape.iter().product();
    (0..out_size)
        .map(|i| {
            let idx = unravel(i, out_shape);
            let mut xo = 0;
            let mut yo = 0;
            for (k, (&lb, &rb)) in dims.lhs_batch.iter().zip(&dims.rhs_batch).enumerate() {
                xo += idx[k] * xs[lb];
                yo += idx[k] * ys[rb];
            }
            for (k, &d) in xfree.iter().enumerate() {
                xo += idx[nb + k] * xs[d];
            }
            for (k, &d) in yfree.iter().enumerate() {
                yo += idx[nb + xfree.len() + k] * ys[d];
            }
            let pairs = (0..k_total).map(|kk| {
                let kidx = unravel(kk, &contract_shape);
                let xi = xo
                    + dims
                        .lhs_contracting
                        .iter()
                        .zip(&kidx)
                        .map(|(&d, &j)| j * xs[d])
                        .sum::<usize>();
                let yi = yo
                    + dims
                        .rhs_contracting
                        .iter()
                        .zip(&kidx)
                        .map(|(&d, &j)| j * ys[d])
                        .sum::<usize>();
                (xf[xi], yf[yi])
            });
            if !float {
                return pairs.map(|(a, b)| a as f64 * b as f64).sum();
            }
            let pairs: Vec<(f32, f32)> = pairs.collect();
            // Each pass sums its products from +0 in order of k; the first pass's sum is the
            // initial value of the total (as the MXU overwrites its destination), later passes
            // are added to it.
            let mut total: Option<f32> = None;
            for &(pa, pb) in passes {
                let mut acc = 0.0f32;
                for &(a, b) in &pairs {
                    acc += bf16_split(a, parts)[pa] * bf16_split(b, parts)[pb];
                }
                total = Some(total.map_or(acc, |t| t + acc));
            }
            total.unwrap_or(0.0) as f64
        })
        .collect()
}

/// An executor that evaluates on the host with the reference evaluator.
#[derive(Default)]
pub struct ReferenceExecutor {
    /// Names of the programs run, in order (for tests of dispatch behaviour).
    pub calls: Vec<String>,
}

impl Executor for ReferenceExecutor {
    fn execute(&mut self, call: ProgramCall) -> LocalFuture<'_, Result<Vec<Array>, JaxError>> {
        self.calls.push(call.name.clone());
        Box::pin(async move { eval_jaxpr(&call.jaxpr, &call.args, call.default_precision) })
    }
}
