//! The reference evaluator: the numeric oracle inside the project. It runs a Jaxpr on the
//! host, with the MXU's arithmetic for matmuls at DEFAULT and HIGH (operands rounded to bf16
//! parts, products exact in f32, sums in f32 in order along the contracting axis), and
//! elsewhere float32 as JAX computes it on a CPU, where the fixtures come from: float32 dots at
//! HIGHEST, XLA's math functions (`xla_cpu`), its order of summation (`xla_cpu_sum`) and its
//! fused multiply-adds inside one program (`contraction`).

use crate::array::{Array, Aval, Data};
use crate::contraction::{fused_multiply_add, integer_pow_factors, passes_on, Contraction, Product, Products};
use crate::dtype::DType;
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{BinaryOp, DotDims, Precision, Primitive, ScanLoop, UnaryOp, WhileLoop};
use crate::trace::{Executor, JaxError, LocalFuture, ProgramCall};
use crate::xla_cpu;
use half::bf16;
use std::collections::HashMap;

/// Whose float32 arithmetic the evaluator follows where JAX's CPU backend and the emulated
/// TPU differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// JAX's CPU backend, where the fixtures come from: float32 dots at HIGHEST, and inside one
    /// program a multiply fused into the add that uses it (`contraction`).
    JaxCpu,
    /// The TPU the compiler lowers for, which the emulator runs bit for bit: HIGHEST as six
    /// bf16 passes, every multiply rounded. (Its vector unit's exp, log and tanh are the
    /// emulator's own; the compiler's tests compare those within a tolerance.)
    Tpu,
}

/// Evaluates `jaxpr` on `args` (constants first, then arguments), as JAX's CPU backend does.
pub fn eval_jaxpr(jaxpr: &Jaxpr, args: &[Array], default_precision: Precision) -> Result<Vec<Array>, JaxError> {
    eval_jaxpr_with(jaxpr, args, default_precision, Arithmetic::JaxCpu)
}

/// Evaluates `jaxpr` on `args` with `arithmetic`'s rounding.
pub fn eval_jaxpr_with(
    jaxpr: &Jaxpr,
    args: &[Array],
    default_precision: Precision,
    arithmetic: Arithmetic,
) -> Result<Vec<Array>, JaxError> {
    run(jaxpr, &contraction(jaxpr, arithmetic), args, default_precision, arithmetic)
}

/// Which products of `jaxpr` are fused into their adds: XLA's CPU backend's, or none.
fn contraction(jaxpr: &Jaxpr, arithmetic: Arithmetic) -> Contraction {
    match arithmetic {
        Arithmetic::JaxCpu => Contraction::of(jaxpr),
        Arithmetic::Tpu => Contraction::default(),
    }
}

/// `eval_jaxpr_with`, with `jaxpr`'s contraction worked out once (a loop body runs many times).
fn run(
    jaxpr: &Jaxpr,
    contraction: &Contraction,
    args: &[Array],
    default_precision: Precision,
    arithmetic: Arithmetic,
) -> Result<Vec<Array>, JaxError> {
    let inputs: Vec<Var> = jaxpr.all_inputs().collect();
    if inputs.len() != args.len() {
        return Err(JaxError(format!("expected {} inputs, got {}", inputs.len(), args.len())));
    }
    let mut env: HashMap<Var, Array> = inputs.into_iter().zip(args.iter().cloned()).collect();
    let read = |env: &HashMap<Var, Array>, atom: &Atom| -> Array {
        match atom {
            Atom::Var(v) => env[v].clone(),
            Atom::Literal(l) => literal_array(l.value, &l.aval),
        }
    };
    // What each broadcast broadcasts: XLA divides by a broadcast through its reciprocal.
    let mut broadcasts: HashMap<Var, (&Primitive, &Atom)> = HashMap::new();
    // The factors of the products XLA's CPU backend fuses into the adds that use them.
    let mut factors: HashMap<Var, Product> = HashMap::new();
    for (index, eqn) in jaxpr.eqns.iter().enumerate() {
        let ins: Vec<Array> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let looped = match &eqn.prim {
            Primitive::While { function } => Some(eval_while(function, &ins, default_precision, arithmetic)?),
            Primitive::Scan { function } => Some(eval_scan(function, &ins, default_precision, arithmetic)?),
            Primitive::Cond { function } => {
                let branch = &function.branches[function.taken(ins[0].to_f64_vec()[0] as i64)];
                Some(eval_jaxpr_with(branch, &ins[1..], default_precision, arithmetic)?)
            }
            prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => {
                let body = prim.call_body().expect("a call");
                Some(eval_jaxpr_with(body, &ins, default_precision, arithmetic)?)
            }
            prim => match prim.custom_body(&ins) {
                Some((call, call_ins)) => Some(eval_jaxpr_with(call, &call_ins, default_precision, arithmetic)?),
                None => None,
            },
        };
        if let Some(outs) = looped {
            env.extend(eqn.outputs.iter().copied().zip(outs));
            continue;
        }
        let keep = eqn.outputs.first().is_some_and(|v| contraction.keeps_factors(*v));
        let fused = contraction.fused_operand(index).and_then(|k| match &eqn.inputs[k] {
            Atom::Var(v) => Some((k, factors.remove(v)?)),
            Atom::Literal(_) => None,
        });
        let out = match (&eqn.prim, reciprocal_divisor(eqn, &ins, &broadcasts)) {
            (Primitive::Binary(BinaryOp::Div), Some(source)) => {
                // XLA's algebraic simplifier, on every backend: `A / C` is `A * (1/C)` for a
                // constant, `A / broadcast(B)` is `A * broadcast(1/B)`, float32 only (the
                // compiler's `hlo` pass does the same).
                let (prim, operand) = source;
                let operand = read(&env, operand);
                let one = literal_array(1.0, &Aval::new(vec![], DType::F32));
                let mut reciprocal = apply(&Primitive::Binary(BinaryOp::Div), &[one, operand], default_precision)?;
                if let Some(prim) = prim {
                    reciprocal = apply(prim, &[reciprocal], default_precision)?;
                }
                if keep {
                    factors.insert(eqn.outputs[0], Product { a: ins[0].clone(), b: reciprocal.clone(), square: false });
                }
                apply(&Primitive::Binary(BinaryOp::Mul), &[ins[0].clone(), reciprocal], default_precision)?
            }
            _ => match fused {
                Some((k, product)) => from_f64(jaxpr.aval(eqn.outputs[0]), &multiply_add(&eqn.prim, k, &product, &ins)),
                None => apply_with(&eqn.prim, &ins, default_precision, arithmetic)?,
            },
        };
        if keep {
            if let Some(f) = product_factors(jaxpr, eqn, &ins, &mut factors) {
                factors.insert(eqn.outputs[0], f);
            }
        }
        if let Primitive::BroadcastInDim { .. } = eqn.prim {
            broadcasts.insert(eqn.outputs[0], (&eqn.prim, &eqn.inputs[0]));
        }
        env.insert(eqn.outputs[0], out);
    }
    Ok(jaxpr.outvars.iter().map(|a| read(&env, a)).collect())
}

/// The factors of a product equation whose product is fused into its use (see
/// `contraction`): a multiply's operands, a square's operand twice, the last multiply of an
/// integer power; a reshape or a same-type conversion passes on its operand's. A division is
/// handled where it becomes a multiplication (or not, and stays rounded).
fn product_factors(
    jaxpr: &Jaxpr,
    eqn: &crate::jaxpr::Eqn,
    ins: &[Array],
    factors: &mut HashMap<Var, Product>,
) -> Option<Product> {
    match &eqn.prim {
        Primitive::Binary(BinaryOp::Mul) => {
            Some(Product { a: ins[0].clone(), b: ins[1].clone(), square: eqn.inputs[0] == eqn.inputs[1] })
        }
        Primitive::Unary(UnaryOp::Square) => Some(Product { a: ins[0].clone(), b: ins[0].clone(), square: true }),
        Primitive::IntegerPow { y } if *y >= 2 => {
            let (a, b): (Vec<f64>, Vec<f64>) = ins[0]
                .to_f32_vec()
                .iter()
                .map(|&x| {
                    let (a, b) = integer_pow_factors(x, *y as u32);
                    (a as f64, b as f64)
                })
                .unzip();
            // A power of two ends in squaring one value.
            let square = y.unsigned_abs().is_power_of_two();
            Some(Product { a: from_f64(&ins[0].aval, &a), b: from_f64(&ins[0].aval, &b), square })
        }
        _ => match &eqn.inputs[0] {
            Atom::Var(v) if passes_on(jaxpr, eqn) => factors.remove(v),
            _ => None,
        },
    }
}

/// An add, subtract or sum whose operand `k` is `product`, unrounded.
fn multiply_add(prim: &Primitive, k: usize, product: &Product, ins: &[Array]) -> Vec<f64> {
    let n = ins.iter().map(|x| x.size()).max().unwrap_or(1);
    let (a, b) = (&product.a, &product.b);
    match prim {
        Primitive::ReduceSum { axes } => {
            let products = Products::new(product, ins[0].size());
            xla_cpu_sum(&ins[0].to_f64_vec(), ins[0].shape(), axes, Some(&products))
        }
        // c − a·b
        Primitive::Binary(BinaryOp::Sub) if k == 1 => fused_multiply_add(a, b, &ins[0], true, false, n),
        // a·b − c
        Primitive::Binary(BinaryOp::Sub) => fused_multiply_add(a, b, &ins[1], false, true, n),
        _ => fused_multiply_add(a, b, &ins[1 - k], false, false, n),
    }
}

/// For a float32 division that XLA turns into a multiplication by a reciprocal (see
/// `eval_jaxpr`), the divisor's source: the broadcast that spreads it and what it broadcasts,
/// or no broadcast and the divisor itself (a literal, or a scalar dividing a larger array).
/// `None` when the dividend is a constant (XLA folds that instead) or the division stays one.
fn reciprocal_divisor<'j>(
    eqn: &'j crate::jaxpr::Eqn,
    ins: &[Array],
    broadcasts: &HashMap<Var, (&'j Primitive, &'j Atom)>,
) -> Option<(Option<&'j Primitive>, &'j Atom)> {
    if eqn.prim != Primitive::Binary(BinaryOp::Div) || ins[1].dtype() != DType::F32 {
        return None;
    }
    let constant = |a: &Atom| match a {
        Atom::Literal(_) => true,
        Atom::Var(v) => broadcasts.get(v).is_some_and(|(_, source)| matches!(source, Atom::Literal(_))),
    };
    if constant(&eqn.inputs[0]) {
        return None;
    }
    match &eqn.inputs[1] {
        a @ Atom::Literal(_) => Some((None, a)),
        Atom::Var(v) => match broadcasts.get(v) {
            Some(&(prim, source)) => Some((Some(prim), source)),
            None if ins[1].shape().is_empty() && !ins[0].shape().is_empty() => Some((None, &eqn.inputs[1])),
            None => None,
        },
    }
}

pub(crate) fn literal_array(value: f64, aval: &Aval) -> Array {
    let data = match aval.dtype {
        DType::F32 => Data::F32(vec![value as f32]),
        DType::F64 => Data::F64(vec![value]),
        DType::I64 => Data::I64(vec![value as i64]),
        DType::BF16 => Data::BF16(vec![bf16::from_f64(value)]),
        DType::I32 => Data::I32(vec![value as i32]),
        DType::U32 => Data::U32(vec![value as i64 as u32]),
        DType::Bool => Data::Bool(vec![value != 0.0]),
        DType::Key => Data::Key(vec![[0, 0]]),
    };
    let mut a = Array::new(vec![], data);
    a.aval.weak_type = aval.weak_type;
    a
}

/// The most iterations a `while` runs before it is taken to never end (an error, not a hang).
/// `Context` runs loops with the script's step budget instead.
pub const MAX_WHILE_ITERATIONS: u64 = 10_000_000;

/// The error for a loop stopped after `limit` iterations.
pub fn endless_loop(limit: u64) -> JaxError {
    JaxError(format!(
        "a while_loop ran {limit} iterations and its condition still held; the playground stops a loop there \
         (the step budget), taking it for one that never ends"
    ))
}

/// Runs a `while` equation: the body while the condition holds.
fn eval_while(
    w: &WhileLoop,
    operands: &[Array],
    default_precision: Precision,
    arithmetic: Arithmetic,
) -> Result<Vec<Array>, JaxError> {
    let (w, operands) = crate::transform::scalar_loop(w, operands)?;
    let [cond_consts, body_consts, carries] = w.split(&operands);
    let mut carries = carries.to_vec();
    let (cond, body) = (contraction(&w.cond, arithmetic), contraction(&w.body, arithmetic));
    for _ in 0..MAX_WHILE_ITERATIONS {
        let predicate = run(&w.cond, &cond, &[cond_consts, &carries].concat(), default_precision, arithmetic)?;
        if predicate[0].to_f64_vec()[0] == 0.0 {
            return Ok(carries);
        }
        carries = run(&w.body, &body, &[body_consts, &carries].concat(), default_precision, arithmetic)?;
    }
    Err(endless_loop(MAX_WHILE_ITERATIONS))
}

/// Runs a `scan` equation: the body once per row of the `xs`, the rows of the `ys` stacked.
fn eval_scan(
    scan: &ScanLoop,
    operands: &[Array],
    default_precision: Precision,
    arithmetic: Arithmetic,
) -> Result<Vec<Array>, JaxError> {
    let [consts, carries, xs] = scan.split(operands);
    let mut carries = carries.to_vec();
    let mut ys = ScanYs::new(scan);
    let body = contraction(&scan.body, arithmetic);
    for i in 0..scan.length {
        let row = scan.row(i);
        let xs: Vec<Array> = xs.iter().map(|x| x.row(row)).collect();
        let mut outs = run(&scan.body, &body, &[consts, &carries, &xs].concat(), default_precision, arithmetic)?;
        ys.put(row, 1, outs.drain(scan.carries..));
        carries = outs;
    }
    Ok(carries.into_iter().chain(ys.stacked()?).collect())
}

/// A scan's `ys` as its steps give them, each row kept at its index, stacked at the end.
pub(crate) struct ScanYs<'s> {
    scan: &'s ScanLoop,
    columns: Vec<Vec<Option<Array>>>,
}

impl<'s> ScanYs<'s> {
    pub(crate) fn new(scan: &'s ScanLoop) -> ScanYs<'s> {
        ScanYs { scan, columns: vec![vec![None; scan.length]; scan.ys()] }
    }

    /// One output per `ys`: its row `first` when `rows` is 1, else its rows `first..first + rows`
    /// (an unrolled block's).
    pub(crate) fn put(&mut self, first: usize, rows: usize, outs: impl IntoIterator<Item = Array>) {
        for (column, y) in self.columns.iter_mut().zip(outs) {
            if rows == 1 {
                column[first] = Some(y);
            } else {
                for r in 0..rows {
                    column[first + r] = Some(y.row(r));
                }
            }
        }
    }

    pub(crate) fn stacked(self) -> Result<Vec<Array>, JaxError> {
        let rows = self.scan.body.outvars[self.scan.carries..].iter().map(|a| self.scan.body.atom_aval(a));
        self.columns
            .into_iter()
            .zip(rows)
            .map(|(column, row)| {
                let column: Option<Vec<Array>> = column.into_iter().collect();
                let column =
                    column.ok_or_else(|| JaxError("internal error: a scan left a row of its ys unwritten".into()))?;
                Ok(Array::stack(&column, row))
            })
            .collect()
    }
}

/// JAX's message when forward mode meets a `custom_vjp` function.
pub const CUSTOM_VJP_FORWARD: &str = "can't apply forward-mode autodiff (jvp) to a custom_vjp function.";

/// Applies one primitive to concrete arrays, as JAX's CPU backend does.
pub fn apply(prim: &Primitive, ins: &[Array], default_precision: Precision) -> Result<Array, JaxError> {
    apply_with(prim, ins, default_precision, Arithmetic::JaxCpu)
}

/// Applies one primitive to concrete arrays with `arithmetic`'s rounding.
pub fn apply_with(
    prim: &Primitive,
    ins: &[Array],
    default_precision: Precision,
    arithmetic: Arithmetic,
) -> Result<Array, JaxError> {
    if let Primitive::While { .. }
    | Primitive::Scan { .. }
    | Primitive::Cond { .. }
    | Primitive::Jit { .. }
    | Primitive::Remat { .. }
    | Primitive::CustomJvpCall { .. }
    | Primitive::CustomVjpCall { .. } = prim
    {
        return Err(JaxError(format!("internal error: a {} equation is evaluated by eval_jaxpr", prim.name())));
    }
    if let Primitive::Callback { .. } = prim {
        return Err(JaxError(format!("{}: only a program run with a Python host can call back", prim.name())));
    }
    if let Primitive::Collective { axis_name, .. } = prim {
        return Err(JaxError(format!(
            "{} over axis '{axis_name}' reads every chip's operand: only a mapped call (jax.pmap) runs it",
            prim.name()
        )));
    }
    if let Primitive::ShardMap { function } = prim {
        return Err(JaxError(format!(
            "shard_map '{}' runs on its mesh's chips: only a jitted call partitioned over the mesh runs it",
            function.name
        )));
    }
    let avals: Vec<Aval> = ins.iter().map(|a| a.aval.clone()).collect();
    let out_aval = prim.abstract_eval(&avals)?.remove(0);
    if let Primitive::CustomVjpTangent { .. } = prim {
        return Err(JaxError(CUSTOM_VJP_FORWARD.into()));
    }
    if let Primitive::Unary(UnaryOp::Copy) = prim {
        return Ok(ins[0].clone());
    }
    if let Primitive::AddAny = prim {
        return apply(&Primitive::Binary(BinaryOp::Add), ins, default_precision);
    }
    if let Primitive::Clamp = prim {
        let raised = apply(&Primitive::Binary(BinaryOp::Max), &[ins[1].clone(), ins[0].clone()], default_precision)?;
        return apply(&Primitive::Binary(BinaryOp::Min), &[raised, ins[2].clone()], default_precision);
    }
    if let Some(out) = apply_on_words(prim, ins, &out_aval) {
        return Ok(out);
    }
    if let Primitive::Iota { shape, dimension, .. } = prim {
        let values: Vec<f64> = (0..out_aval.size()).map(|i| unravel(i, shape)[*dimension] as f64).collect();
        return Ok(from_f64(&out_aval, &values));
    }
    let x = &ins[0];
    let float = x.dtype().is_float();
    // NumPy's 64-bit types compute at their own width (host arrays only).
    let wide = x.dtype().is_host_only();
    let values: Vec<f64> = match prim {
        Primitive::Iota { .. }
        | Primitive::Collective { .. }
        | Primitive::ShardMap { .. }
        | Primitive::AddAny
        | Primitive::BitcastConvertType { .. }
        | Primitive::RandomWrap
        | Primitive::RandomUnwrap
        | Primitive::RandomSeed
        | Primitive::RandomBits { .. }
        | Primitive::RandomSplit { .. }
        | Primitive::RandomFoldIn
        | Primitive::CustomJvpCall { .. }
        | Primitive::CustomVjpCall { .. }
        | Primitive::CustomVjpTangent { .. }
        | Primitive::While { .. }
        | Primitive::Scan { .. }
        | Primitive::Cond { .. }
        | Primitive::Jit { .. }
        | Primitive::Remat { .. }
        | Primitive::Callback { .. }
        | Primitive::Clamp => unreachable!("handled above"),
        Primitive::Unary(op) => {
            let f = x.to_f64_vec();
            if x.dtype() == DType::F64 {
                f.iter().map(|&v| unary_f64(*op, v)).collect()
            } else if x.dtype() == DType::I64 {
                f.iter().map(|&v| unary_int(*op, v as i64, DType::I64) as f64).collect()
            } else if float && *op == UnaryOp::Erf && f.len() == 1 {
                vec![xla_cpu::erf_of_one(f[0] as f32) as f64]
            } else if float {
                f.iter().map(|&v| unary_f32(*op, v as f32) as f64).collect()
            } else {
                f.iter().map(|&v| unary_int(*op, v as i64, x.dtype()) as f64).collect()
            }
        }
        Primitive::Binary(_) | Primitive::Compare(_) => {
            let (a, b) = (x.to_f64_vec(), ins[1].to_f64_vec());
            let at = |v: &Vec<f64>, i: usize| if v.len() == 1 { v[0] } else { v[i] };
            (0..out_aval.size())
                .map(|i| {
                    let (p, q) = (at(&a, i), at(&b, i));
                    match prim {
                        Primitive::Compare(op) => op.holds(p, q) as i32 as f64,
                        Primitive::Binary(op) => binary_of(*op, x.dtype(), p, q),
                        _ => 0.0,
                    }
                })
                .collect()
        }
        Primitive::SelectN => {
            let which = x.to_f64_vec();
            let cases: Vec<Vec<f64>> = ins[1..].iter().map(|c| c.to_f64_vec()).collect();
            (0..out_aval.size())
                .map(|i| {
                    let w = if which.len() == 1 { which[0] } else { which[i] };
                    let k = (w.max(0.0) as usize).min(cases.len() - 1);
                    cases[k][i]
                })
                .collect()
        }
        Primitive::ReducePrecision { exponent_bits, mantissa_bits } => {
            let (e, m) = (*exponent_bits, *mantissa_bits);
            let f = x.to_f64_vec();
            if x.dtype() == DType::F64 {
                f.iter().map(|&v| f64::from_bits(reduce_precision_bits(v.to_bits(), 11, 52, e, m))).collect()
            } else {
                // A bfloat16 value is a float32 one; the result fits bfloat16 again.
                f.iter()
                    .map(|&v| {
                        let bits = reduce_precision_bits(u64::from((v as f32).to_bits()), 8, 23, e, m);
                        f64::from(f32::from_bits(bits as u32))
                    })
                    .collect()
            }
        }
        Primitive::IntegerPow { y } => x
            .to_f64_vec()
            .iter()
            .map(|&v| {
                if x.dtype() == DType::F64 {
                    v.powi(*y)
                } else if x.dtype() == DType::I64 {
                    (v as i64).wrapping_pow(y.unsigned_abs()) as f64
                } else if float {
                    integer_pow_f32(v as f32, *y) as f64
                } else {
                    (v as i64).wrapping_pow(y.unsigned_abs()) as i32 as f64
                }
            })
            .collect(),
        Primitive::DotGeneral { dims, precision, .. } => {
            dot_general(x, &ins[1], dims, precision.unwrap_or(default_precision), arithmetic, &out_aval.shape)
        }
        Primitive::Reshape { .. }
        | Primitive::ConvertElementType { .. }
        | Primitive::Squeeze { .. }
        | Primitive::StopGradient
        | Primitive::Name { .. }
        | Primitive::ShardingConstraint { .. } => x.to_f64_vec(),
        Primitive::BroadcastInDim { shape, broadcast_dimensions } => {
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            (0..out_aval.size())
                .map(|i| {
                    let idx = unravel(i, shape);
                    let src: usize = broadcast_dimensions
                        .iter()
                        .enumerate()
                        .map(|(k, &d)| if x.shape()[k] == 1 { 0 } else { idx[d] * in_strides[k] })
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
                    permutation.iter().enumerate().map(|(k, &p)| idx[k] * in_strides[p]).sum::<usize>()
                })
                .map(|src| f[src])
                .collect()
        }
        // A float32 sum in the order XLA's CPU backend adds (`xla_cpu_sum`).
        Primitive::ReduceSum { axes } if x.dtype() == DType::F32 => xla_cpu_sum(&x.to_f64_vec(), x.shape(), axes, None),
        // A float64 sum (on the host only) over trailing axes (each output a contiguous block)
        // is NumPy's pairwise summation, so that host sums agree with NumPy's to the last bit.
        Primitive::ReduceSum { axes }
            if x.dtype() == DType::F64
                && !axes.is_empty()
                && axes.iter().all(|&a| a >= x.shape().len() - axes.len()) =>
        {
            let f = x.to_f64_vec();
            let block: usize = axes.iter().map(|&a| x.shape()[a]).product();
            match block {
                0 => vec![0.0; out_aval.size()],
                _ => f.chunks(block).map(pairwise_sum).collect(),
            }
        }
        Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } | Primitive::ReduceMin { axes } => {
            let f = x.to_f64_vec();
            let init = match prim {
                Primitive::ReduceMax { .. } => f64::NEG_INFINITY,
                Primitive::ReduceMin { .. } => f64::INFINITY,
                _ => 0.0,
            };
            let mut acc = vec![init; out_aval.size()];
            let kept: Vec<usize> = (0..x.shape().len()).filter(|a| !axes.contains(a)).collect();
            let out_strides = strides(&out_aval.shape);
            for (i, &v) in f.iter().enumerate() {
                let idx = unravel(i, x.shape());
                let o: usize = kept.iter().enumerate().map(|(k, &a)| idx[a] * out_strides[k]).sum();
                acc[o] = match prim {
                    Primitive::ReduceMax { .. } => max(acc[o], v),
                    Primitive::ReduceMin { .. } => min(acc[o], v),
                    _ if x.dtype() == DType::F64 => acc[o] + v,
                    _ if wide => (acc[o] as i64).wrapping_add(v as i64) as f64,
                    _ if float => (acc[o] as f32 + v as f32) as f64,
                    _ => (acc[o] as i64).wrapping_add(v as i64) as i32 as f64,
                };
            }
            acc
        }
        Primitive::ArgReduce { axis, is_max, .. } => {
            let f = x.to_f64_vec();
            let n = x.shape()[*axis];
            let inner: usize = x.shape()[axis + 1..].iter().product();
            (0..out_aval.size())
                .map(|o| {
                    let (outer, rest) = (o / inner, o % inner);
                    let at = |k: usize| f[(outer * n + k) * inner + rest];
                    let mut best = 0;
                    for k in 1..n {
                        let (v, b) = (at(k), at(best));
                        // The first NaN wins, as in NumPy and JAX.
                        let better = if *is_max { v > b } else { v < b };
                        if !b.is_nan() && (v.is_nan() || better) {
                            best = k;
                        }
                    }
                    best as f64
                })
                .collect()
        }
        Primitive::Cumsum { axis, reverse } => {
            let mut f = x.to_f64_vec();
            let n = x.shape()[*axis];
            let inner: usize = x.shape()[axis + 1..].iter().product();
            let outer = x.size() / (n * inner).max(1);
            // JAX's CPU backend sums in its own order (`xla_cpu::cumsum`).
            let jax_cpu = arithmetic == Arithmetic::JaxCpu && x.dtype() == DType::F32;
            for o in 0..outer {
                for r in 0..inner {
                    if jax_cpu {
                        let at = |k: usize| (o * n + k) * inner + r;
                        let line: Vec<f32> = (0..n).map(|k| f[at(k)] as f32).collect();
                        for (k, v) in crate::xla_cpu::cumsum(&line, *reverse).into_iter().enumerate() {
                            f[at(k)] = f64::from(v);
                        }
                        continue;
                    }
                    let mut acc = 0.0f64;
                    for k in 0..n {
                        let k = if *reverse { n - 1 - k } else { k };
                        let i = (o * n + k) * inner + r;
                        acc = if x.dtype() == DType::F64 {
                            acc + f[i]
                        } else if wide {
                            (acc as i64).wrapping_add(f[i] as i64) as f64
                        } else if float {
                            (acc as f32 + f[i] as f32) as f64
                        } else {
                            (acc as i64).wrapping_add(f[i] as i64) as i32 as f64
                        };
                        f[i] = acc;
                    }
                }
            }
            f
        }
        Primitive::Concatenate { dimension } => {
            let parts: Vec<Vec<f64>> = ins.iter().map(|a| a.to_f64_vec()).collect();
            let inner: usize = out_aval.shape[dimension + 1..].iter().product();
            let outer: usize = out_aval.shape[..*dimension].iter().product();
            let mut out = Vec::with_capacity(out_aval.size());
            for o in 0..outer {
                for (part, a) in parts.iter().zip(ins) {
                    let chunk = a.shape()[*dimension] * inner;
                    out.extend_from_slice(&part[o * chunk..(o + 1) * chunk]);
                }
            }
            out
        }
        Primitive::Pad { config } => {
            let f = x.to_f64_vec();
            let fill = ins[1].to_f64_vec()[0];
            let mut out = vec![fill; out_aval.size()];
            let out_strides = strides(&out_aval.shape);
            'elements: for (i, &v) in f.iter().enumerate() {
                let idx = unravel(i, x.shape());
                let mut o = 0i64;
                for (d, &(lo, _, interior)) in config.iter().enumerate() {
                    let p = lo + (idx[d] * (interior + 1)) as i64;
                    if p < 0 || p >= out_aval.shape[d] as i64 {
                        continue 'elements;
                    }
                    o += p * out_strides[d] as i64;
                }
                out[o as usize] = v;
            }
            out
        }
        Primitive::Slice { start_indices, strides: steps, .. } => {
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            (0..out_aval.size())
                .map(|i| {
                    let idx = unravel(i, &out_aval.shape);
                    let src: usize = (0..idx.len())
                        .map(|d| {
                            let step = steps.as_ref().map_or(1, |s| s[d]);
                            (start_indices[d] + idx[d] * step) * in_strides[d]
                        })
                        .sum();
                    f[src]
                })
                .collect()
        }
        Primitive::Rev { dimensions } => {
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            (0..out_aval.size())
                .map(|i| {
                    let idx = unravel(i, x.shape());
                    let src = (0..idx.len()).map(|d| {
                        let at = if dimensions.contains(&d) { x.shape()[d] - 1 - idx[d] } else { idx[d] };
                        at * in_strides[d]
                    });
                    f[src.sum::<usize>()]
                })
                .collect()
        }
        Primitive::DynamicSlice { slice_sizes } => {
            let starts = clamped_starts(&ins[1..], x.shape(), slice_sizes);
            let f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            (0..out_aval.size())
                .map(|i| {
                    let idx = unravel(i, slice_sizes);
                    f[(0..idx.len()).map(|d| (starts[d] + idx[d]) * in_strides[d]).sum::<usize>()]
                })
                .collect()
        }
        Primitive::Gather => {
            let n = x.shape()[0];
            if n == 0 {
                return Ok(from_f64(&out_aval, &vec![0.0; out_aval.size()]));
            }
            let f = x.to_f64_vec();
            let row: usize = x.shape()[1..].iter().product();
            let mut out = Vec::with_capacity(out_aval.size());
            for i in ins[1].to_f64_vec() {
                // Clamped into range, as XLA clamps PROMISE_IN_BOUNDS.
                let r = (i.max(0.0) as usize).min(n - 1);
                out.extend_from_slice(&f[r * row..(r + 1) * row]);
            }
            out
        }
        Primitive::Scatter { combine, axes } => {
            let (indices, updates) = (ins[1].to_f64_vec(), ins[2].to_f64_vec());
            let mut f = x.to_f64_vec();
            // An index out of range drops the whole update (FILL_OR_DROP).
            let inside = axes.iter().zip(&indices).all(|(&d, &i)| i >= 0.0 && (i as usize) < x.shape()[d]);
            if inside {
                let mut window = x.shape().to_vec();
                let mut starts = vec![0; window.len()];
                for (&d, &i) in axes.iter().zip(&indices) {
                    window[d] = 1;
                    starts[d] = i as usize;
                }
                let in_strides = strides(x.shape());
                for (e, u) in updates.into_iter().enumerate() {
                    let idx = unravel(e, &window);
                    let o: usize = (0..idx.len()).map(|d| (starts[d] + idx[d]) * in_strides[d]).sum();
                    f[o] = match combine {
                        None => u,
                        Some(op) => binary_of(*op, x.dtype(), f[o], u),
                    };
                }
            }
            f
        }
        Primitive::DynamicUpdateSlice => {
            let update = &ins[1];
            let starts = clamped_starts(&ins[2..], x.shape(), update.shape());
            let mut f = x.to_f64_vec();
            let in_strides = strides(x.shape());
            for (i, v) in update.to_f64_vec().into_iter().enumerate() {
                let idx = unravel(i, update.shape());
                let o: usize = (0..idx.len()).map(|d| (starts[d] + idx[d]) * in_strides[d]).sum();
                f[o] = v;
            }
            f
        }
    };
    Ok(from_f64(&out_aval, &values))
}

/// XLA's max: NaN propagates, and +0 is greater than −0 whichever comes first (Rust's `max`
/// may return either zero).
fn max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && b.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// XLA's min: NaN propagates, and −0 is less than +0.
fn min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a < b || (a == b && b.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// Start indices of a dynamic slice, clamped so the window fits, as XLA does.
fn clamped_starts(indices: &[Array], shape: &[usize], sizes: &[usize]) -> Vec<usize> {
    indices
        .iter()
        .zip(shape.iter().zip(sizes))
        .map(|(i, (&n, &s))| {
            let start = i.scalar_f64().unwrap_or(0.0) as i64;
            start.clamp(0, (n - s) as i64) as usize
        })
        .collect()
}

/// `x ** y` for an integer `y` by repeated squaring, as XLA expands `integer_pow`.
fn integer_pow_f32(x: f32, y: i32) -> f32 {
    let (a, b) = integer_pow_factors(x, y.unsigned_abs());
    let r = a * b;
    if y < 0 {
        1.0 / r
    } else {
        r
    }
}

fn unary_int(op: UnaryOp, v: i64, dtype: DType) -> i64 {
    match op {
        UnaryOp::Abs => v.wrapping_abs(),
        UnaryOp::Sign => v.signum(),
        UnaryOp::Square if dtype == DType::I64 => v.wrapping_mul(v),
        UnaryOp::Square => v.wrapping_mul(v) as i32 as i64,
        UnaryOp::Not if dtype == DType::Bool => (v == 0) as i64,
        UnaryOp::Not => !v,
        UnaryOp::Copy => v,
        _ if dtype == DType::I64 => v.wrapping_neg(),
        _ => (v as i32).wrapping_neg() as i64,
    }
}

fn from_f64(aval: &Aval, v: &[f64]) -> Array {
    let data = match aval.dtype {
        DType::F32 => Data::F32(v.iter().map(|&x| x as f32).collect()),
        DType::F64 => Data::F64(v.to_vec()),
        DType::I64 => Data::I64(v.iter().map(|&x| x as i64).collect()),
        DType::BF16 => Data::BF16(v.iter().map(|&x| bf16::from_f32(x as f32)).collect()),
        DType::I32 => Data::I32(v.iter().map(|&x| x as i32).collect()),
        DType::U32 => Data::U32(v.iter().map(|&x| x as i64 as u32).collect()),
        DType::Bool => Data::Bool(v.iter().map(|&x| x != 0.0).collect()),
        // Structural primitives never take keys (see `Primitive::abstract_eval`).
        DType::Key => Data::Key(vec![[0, 0]; v.len()]),
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

/// `unary_f32` and `unary_f64`: one body for both widths, which differ in the functions
/// passed in, the transcendental ones (each arm names the parameter `$x`).
macro_rules! unary_float {
    ($(#[$doc:meta])* $name:ident, $t:ty, $x:ident, { $($transcendental:tt)* }) => {
        $(#[$doc])*
        pub fn $name(op: UnaryOp, $x: $t) -> $t {
            match op {
                $($transcendental)*
                UnaryOp::Neg => -$x,
                UnaryOp::Sqrt => $x.sqrt(),
                UnaryOp::Rsqrt => 1.0 / $x.sqrt(),
                UnaryOp::Abs => $x.abs(),
                UnaryOp::Sign => {
                    if $x.is_nan() || $x == 0.0 {
                        $x
                    } else {
                        $x.signum()
                    }
                }
                UnaryOp::Sin => $x.sin(),
                UnaryOp::Cos => $x.cos(),
                UnaryOp::Floor => $x.floor(),
                UnaryOp::Ceil => $x.ceil(),
                UnaryOp::Round => $x.round(),
                UnaryOp::RoundEven => $x.round_ties_even(),
                UnaryOp::Square => $x * $x,
                UnaryOp::Not | UnaryOp::Copy => $x,
            }
        }
    };
}

unary_float!(
    /// A unary op on float32 as JAX computes it on the CPU: XLA's own exp, log, tanh, erf and
    /// their kin, bit for bit (`xla_cpu.rs`); sin, cos and sqrt are libm's there as here.
    /// `rsqrt` is the one left an ulp apart at times: XLA refines the processor's `rsqrtss`
    /// estimate, whose table differs between Intel and AMD.
    unary_f32,
    f32,
    x,
    {
        UnaryOp::Exp => xla_cpu::exp(x),
        UnaryOp::Log => xla_cpu::log(x),
        UnaryOp::Tanh => xla_cpu::tanh(x),
        UnaryOp::Logistic => xla_cpu::logistic(x),
        UnaryOp::Log1p => xla_cpu::log1p(x),
        UnaryOp::Expm1 => xla_cpu::expm1(x),
        UnaryOp::Exp2 => xla_cpu::exp2(x),
        UnaryOp::Erf => xla_cpu::erf(x),
        UnaryOp::ErfInv => crate::random::erf_inv(x),
    }
);
unary_float!(
    /// A unary op on float64, NumPy's host arithmetic (the platform's libm, as NumPy's loops call).
    unary_f64,
    f64,
    x,
    {
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Logistic => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Log1p => x.ln_1p(),
        UnaryOp::Expm1 => x.exp_m1(),
        UnaryOp::Exp2 => x.exp2(),
        UnaryOp::Erf => erf(x),
        UnaryOp::ErfInv => crate::random::erf_inv(x as f32) as f64,
    }
);

/// The error function in f64: its Maclaurin series below 4 (where f64 keeps ~10 digits
/// through the cancellation), and ±1 beyond, where erfc is below half an f32 ulp.
fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() >= 4.0 {
        return x.signum();
    }
    let (mut term, mut sum) = (x, x);
    let x2 = x * x;
    for n in 1..200 {
        term *= -x2 / n as f64;
        let add = term / (2 * n + 1) as f64;
        sum += add;
        if add.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    sum * std::f64::consts::FRAC_2_SQRT_PI
}

/// `op` on two elements of `dtype` (held as f64), at that type's width and rules.
fn binary_of(op: BinaryOp, dtype: DType, a: f64, b: f64) -> f64 {
    match dtype {
        DType::F64 => binary_f64(op, a, b),
        DType::I64 => binary_i64(op, a as i64, b as i64) as f64,
        d if d.is_float() => binary_f32(op, a as f32, b as f32) as f64,
        DType::U32 => binary_u32(op, a as u32, b as u32) as f64,
        _ => binary_int(op, a as i64, b as i64) as f64,
    }
}

pub fn binary_f32(op: BinaryOp, a: f32, b: f32) -> f32 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Max => max(a as f64, b as f64) as f32,
        BinaryOp::Min => min(a as f64, b as f64) as f32,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Atan2 => a.atan2(b),
        BinaryOp::Rem => a % b,
        BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical => f32::NAN,
    }
}

/// A binary op on float64 (NumPy's host arithmetic).
pub fn binary_f64(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Max => max(a, b),
        BinaryOp::Min => min(a, b),
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Atan2 => a.atan2(b),
        BinaryOp::Rem => a % b,
        _ => f64::NAN,
    }
}

/// A binary op on int64 (NumPy's default integer): wrapping, with the int32 rules' zero
/// cases, and shifts within 64 bits.
fn binary_i64(op: BinaryOp, a: i64, b: i64) -> i64 {
    match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => a.checked_div(b).unwrap_or(-1),
        BinaryOp::Rem => a.checked_rem(b).unwrap_or(a),
        BinaryOp::ShiftLeft => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)).unwrap_or(0),
        BinaryOp::ShiftRightArithmetic => a >> b.clamp(0, 63),
        BinaryOp::ShiftRightLogical => {
            u32::try_from(b).ok().and_then(|s| (a as u64).checked_shr(s)).unwrap_or(0) as i64
        }
        _ => binary_int_unwrapped(op, a, b),
    }
}

fn binary_int(op: BinaryOp, a: i64, b: i64) -> i64 {
    binary_int_unwrapped(op, a, b) as i32 as i64
}

/// The integer ops whose rule does not depend on the width, before wrapping to it.
fn binary_int_unwrapped(op: BinaryOp, a: i64, b: i64) -> i64 {
    match op {
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
        // A negative power is 0 but for the bases 1 and -1, whose powers are ±1.
        BinaryOp::Pow => match (a, b) {
            (1, _) => 1,
            (-1, _) => 1 - 2 * (b & 1),
            (_, ..0) => 0,
            _ => a.wrapping_pow(b as u32),
        },
        BinaryOp::Atan2 => ((a as f64).atan2(b as f64)) as i64,
        BinaryOp::Rem => {
            if b == 0 {
                a
            } else {
                a % b
            }
        }
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::ShiftLeft => match u32::try_from(b) {
            Ok(s) if s < 32 => ((a as i32) << s) as i64,
            _ => 0,
        },
        // A shift outside 0..32 fills with the sign.
        BinaryOp::ShiftRightArithmetic => (a as i32 >> if (0..32).contains(&b) { b } else { 31 }) as i64,
        BinaryOp::ShiftRightLogical => binary_u32(op, a as i32 as u32, b as i32 as u32) as i32 as i64,
    }
}

/// A binary operation on uint32 values, as XLA defines them: wrapping arithmetic, division
/// by zero giving all ones, shifts by 32 or more giving 0 (the arithmetic one the sign).
fn binary_u32(op: BinaryOp, a: u32, b: u32) -> u32 {
    match op {
        BinaryOp::Add => a.wrapping_add(b),
        BinaryOp::Sub => a.wrapping_sub(b),
        BinaryOp::Mul => a.wrapping_mul(b),
        BinaryOp::Div => a.checked_div(b).unwrap_or(u32::MAX),
        BinaryOp::Rem => a.checked_rem(b).unwrap_or(a),
        BinaryOp::Max => a.max(b),
        BinaryOp::Min => a.min(b),
        BinaryOp::Pow => a.wrapping_pow(b),
        BinaryOp::Atan2 => (a as f64).atan2(b as f64) as u32,
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::ShiftLeft => a.checked_shl(b).unwrap_or(0),
        BinaryOp::ShiftRightLogical => a.checked_shr(b).unwrap_or(0),
        BinaryOp::ShiftRightArithmetic => ((a as i32) >> b.min(31)) as u32,
    }
}

/// The primitives that work on words rather than numbers: the random ones (Threefry on each
/// key, `crate::random`) and `bitcast_convert_type`. `None` for every other primitive.
fn apply_on_words(prim: &Primitive, ins: &[Array], out: &Aval) -> Option<Array> {
    let words = |a: &Array| -> Vec<u32> { a.to_f32_vec().iter().map(|w| w.to_bits()).collect() };
    let keys = |a: &Array| -> Vec<[u32; 2]> {
        match &a.data {
            Data::Key(k) => k.clone(),
            _ => vec![],
        }
    };
    // How many values each key makes.
    let per_key = |shape: &[usize]| shape.iter().product::<usize>();
    let data = match prim {
        Primitive::BitcastConvertType { new_dtype } => {
            let w = words(&ins[0]);
            match new_dtype {
                DType::F32 => Data::F32(w.into_iter().map(f32::from_bits).collect()),
                DType::I32 => Data::I32(w.into_iter().map(|x| x as i32).collect()),
                _ => Data::U32(w),
            }
        }
        Primitive::RandomWrap => Data::Key(words(&ins[0]).chunks(2).map(|k| [k[0], k[1]]).collect()),
        Primitive::RandomUnwrap => Data::U32(keys(&ins[0]).into_iter().flatten().collect()),
        Primitive::RandomSeed => match &ins[0].astype(DType::I32).data {
            Data::I32(seeds) => Data::Key(seeds.iter().map(|&s| crate::random::seed(s)).collect()),
            _ => return None,
        },
        Primitive::RandomBits { shape } => {
            Data::U32(keys(&ins[0]).into_iter().flat_map(|k| crate::random::bits(k, per_key(shape))).collect())
        }
        Primitive::RandomSplit { shape } => {
            Data::Key(keys(&ins[0]).into_iter().flat_map(|k| crate::random::split(k, per_key(shape))).collect())
        }
        Primitive::RandomFoldIn => {
            let data = words(&ins[1]);
            let at = |i: usize| if data.len() == 1 { data[0] } else { data[i] };
            Data::Key(keys(&ins[0]).into_iter().enumerate().map(|(i, k)| crate::random::fold_in(k, at(i))).collect())
        }
        _ => return None,
    };
    Some(Array::new(out.shape.clone(), data))
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
    arithmetic: Arithmetic,
    out_shape: &[usize],
) -> Vec<f64> {
    let layout = DotLayout::new(x, y, dims);
    if x.dtype().is_host_only() {
        return dot_general_wide(x, y, &layout, out_shape);
    }
    let float = x.dtype().is_float();
    let (xf, yf) = (x.to_f32_vec(), y.to_f32_vec());
    // A float32 operand takes the precision's passes; bfloat16 values are their own bf16 part.
    let wide = x.dtype() == DType::F32 || y.dtype() == DType::F32;
    let passes = if float && wide { precision_passes(precision) } else { &[(0, 0)] };
    let parts = passes.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(1);
    // A float32 dot at HIGHEST is the float32 dot JAX's CPU backend computes (products added
    // to the running sum by fused multiply-adds, in order of k, as XLA's dot loops and Eigen do
    // for most shapes), where the fixtures come from; the TPU's six bf16 passes are the
    // compiler's (`precision_passes`), within an ulp or two of it.
    let float32 = arithmetic == Arithmetic::JaxCpu
        && precision == Precision::Highest
        && x.dtype() == DType::F32
        && y.dtype() == DType::F32;
    let out_size: usize = out_shape.iter().product();
    (0..out_size)
        .map(|i| {
            let pairs = layout.positions(i, out_shape).map(|(xi, yi)| (xf[xi], yf[yi]));
            if !float {
                return pairs.map(|(a, b)| a as f64 * b as f64).sum();
            }
            let pairs: Vec<(f32, f32)> = pairs.collect();
            if float32 {
                return pairs.iter().fold(0.0f32, |acc, &(a, b)| a.mul_add(b, acc)) as f64;
            }
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

/// Where a dot's operands are read: for each output element, the positions in `x` and `y` of
/// its products, in order of k.
struct DotLayout<'d> {
    dims: &'d DotDims,
    xs: Vec<usize>,
    ys: Vec<usize>,
    xfree: Vec<usize>,
    yfree: Vec<usize>,
    contract_shape: Vec<usize>,
}

impl<'d> DotLayout<'d> {
    fn new(x: &Array, y: &Array, dims: &'d DotDims) -> DotLayout<'d> {
        let free = |a: &Array, c: &[usize], b: &[usize]| -> Vec<usize> {
            (0..a.shape().len()).filter(|d| !c.contains(d) && !b.contains(d)).collect()
        };
        DotLayout {
            dims,
            xs: strides(x.shape()),
            ys: strides(y.shape()),
            xfree: free(x, &dims.lhs_contracting, &dims.lhs_batch),
            yfree: free(y, &dims.rhs_contracting, &dims.rhs_batch),
            contract_shape: dims.lhs_contracting.iter().map(|&d| x.shape()[d]).collect(),
        }
    }

    /// The (x, y) positions of output element `i`'s products.
    fn positions(&self, i: usize, out_shape: &[usize]) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (dims, xs, ys) = (self.dims, &self.xs, &self.ys);
        let idx = unravel(i, out_shape);
        let nb = dims.lhs_batch.len();
        let (mut xo, mut yo) = (0, 0);
        for (k, (&lb, &rb)) in dims.lhs_batch.iter().zip(&dims.rhs_batch).enumerate() {
            xo += idx[k] * xs[lb];
            yo += idx[k] * ys[rb];
        }
        for (k, &d) in self.xfree.iter().enumerate() {
            xo += idx[nb + k] * xs[d];
        }
        for (k, &d) in self.yfree.iter().enumerate() {
            yo += idx[nb + self.xfree.len() + k] * ys[d];
        }
        let k_total: usize = self.contract_shape.iter().product();
        (0..k_total).map(move |kk| {
            let kidx = unravel(kk, &self.contract_shape);
            let xi = xo + dims.lhs_contracting.iter().zip(&kidx).map(|(&d, &j)| j * xs[d]).sum::<usize>();
            let yi = yo + dims.rhs_contracting.iter().zip(&kidx).map(|(&d, &j)| j * ys[d]).sum::<usize>();
            (xi, yi)
        })
    }
}

/// A dot of NumPy's 64-bit types: products and sums at full width, in order of k (BLAS may
/// order its sums otherwise, so the last bits of a long float64 dot can differ from NumPy's).
fn dot_general_wide(x: &Array, y: &Array, layout: &DotLayout, out_shape: &[usize]) -> Vec<f64> {
    let out_size: usize = out_shape.iter().product();
    if x.dtype().is_float() {
        let (xv, yv) = (x.to_f64_vec(), y.to_f64_vec());
        (0..out_size).map(|i| layout.positions(i, out_shape).fold(0.0, |acc, (xi, yi)| acc + xv[xi] * yv[yi])).collect()
    } else {
        let (xv, yv) = (x.to_i64_vec(), y.to_i64_vec());
        (0..out_size)
            .map(|i| {
                let products = layout.positions(i, out_shape).map(|(xi, yi)| xv[xi].wrapping_mul(yv[yi]));
                products.fold(0i64, i64::wrapping_add) as f64
            })
            .collect()
    }
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

/// NumPy's `pairwise_sum`: fewer than 8 values in order; up to 128 in eight interleaved partial
/// sums combined as a tree, then the rest in order; more, the two halves (the first a multiple
/// of 8 long) summed so and added.
fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |s, &x| s + x);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let whole = n - n % 8;
        for chunk in a[8..whole].chunks_exact(8) {
            for (acc, &x) in r.iter_mut().zip(chunk) {
                *acc += x;
            }
        }
        let tree = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        return a[whole..].iter().fold(tree, |s, &x| s + x);
    }
    let half = n / 2 - (n / 2) % 8;
    pairwise_sum(&a[..half]) + pairwise_sum(&a[half..])
}

/// A float32 sum as XLA's CPU compiler arranges it (its `TreeReductionRewriter`): while a
/// summed axis is longer than 32, that axis is cut into windows of 32 (padded with zeros, half
/// the padding in front), each window summed on its own (a `reduce-window`), and then the
/// window sums are summed the same way. A sum with every summed axis at most 32 long adds its
/// values in order, from +0. A row of two million values summed one after another would lose
/// four digits, which no backend does. Checked against JAX for one summed axis and for 1-D
/// sums. Two places where the last bits may still differ: from 4096 values on XLA hands the sum
/// to YNNPACK, whose order this does not follow; and where two summed axes are both windowed,
/// LLVM may vectorize the sum of the window sums (XLA lets it reassociate), pairing them
/// otherwise. Given the factors of the values (`contraction`), a sum short enough to need no
/// windows adds each product unrounded.
fn xla_cpu_sum(values: &[f64], shape: &[usize], axes: &[usize], products: Option<&Products>) -> Vec<f64> {
    const WINDOW: usize = 32;
    let mut values: Vec<f32> = values.iter().map(|&v| v as f32).collect();
    let mut shape = shape.to_vec();
    let mut products = products;
    loop {
        let windowed = axes.iter().any(|&a| shape[a] > WINDOW);
        // Each summed axis: how many windows it has, their length, and the zeros in front.
        let cut: Vec<(usize, usize, usize)> = (0..shape.len())
            .map(|d| {
                let n = shape[d];
                if !axes.contains(&d) {
                    (n, 1, 0)
                } else if windowed && n > WINDOW {
                    let count = n.div_ceil(WINDOW);
                    (count, WINDOW, (count * WINDOW - n) / 2)
                } else {
                    (1, n, 0)
                }
            })
            .collect();
        let out_shape: Vec<usize> = cut.iter().map(|c| c.0).collect();
        let in_strides = strides(&shape);
        let window_size: usize = cut.iter().map(|c| c.1).product();
        let sums: Vec<f32> = (0..out_shape.iter().product())
            .map(|o| {
                let window = unravel(o, &out_shape);
                // The window's values, row-major, as indices into `values` (the padding's zeros
                // are left out: adding +0 to a sum from +0 changes nothing).
                let at = (0..window_size).filter_map(|w| {
                    let (mut rest, mut flat) = (w, 0);
                    for d in (0..shape.len()).rev() {
                        let (_, len, front) = cut[d];
                        let i = (window[d] * len + rest % len).checked_sub(front).filter(|&i| i < shape[d])?;
                        rest /= len;
                        flat += i * in_strides[d];
                    }
                    Some(flat)
                });
                match products {
                    Some(p) if !windowed => p.sum(at),
                    _ => at.fold(0.0f32, |acc, i| acc + values[i]),
                }
            })
            .collect();
        values = sums;
        shape = out_shape;
        // Later passes add window sums.
        products = None;
        if !windowed {
            // The summed axes are all 1 long now: the values are the outputs, in order.
            return values.into_iter().map(f64::from).collect();
        }
    }
}

/// XLA's `ReducePrecision` on the bits of a float with `exp_width` exponent and `man_width`
/// fraction bits: the fraction rounded to `mantissa_bits` (to nearest, ties to even, carrying
/// into the exponent), then an exponent past what `exponent_bits` hold overflowing to
/// infinity and one below it flushing to zero, the sign kept; a NaN stays one (with no
/// fraction bits left too, as XLA's CPU backend keeps it).
pub fn reduce_precision_bits(bits: u64, exp_width: u32, man_width: u32, exponent_bits: u32, mantissa_bits: u32) -> u64 {
    let sign_mask = 1u64 << (exp_width + man_width);
    let exp_mask = ((1u64 << exp_width) - 1) << man_width;
    let is_nan = bits & exp_mask == exp_mask && bits & ((1u64 << man_width) - 1) != 0;
    let mut out = bits;
    if mantissa_bits < man_width {
        let shift = man_width - mantissa_bits;
        let last = 1u64 << shift;
        let bias = ((out & last) >> shift) + (last >> 1) - 1;
        out = out.wrapping_add(bias) & !(last - 1) & (sign_mask | (sign_mask - 1));
    }
    if exponent_bits < exp_width {
        let type_bias = (1u64 << (exp_width - 1)) - 1;
        let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
        let exponent = out & exp_mask;
        let sign = out & sign_mask;
        if exponent > (type_bias + reduced_bias) << man_width {
            out = sign | exp_mask;
        } else if exponent <= (type_bias - reduced_bias) << man_width {
            out = sign;
        }
    }
    if is_nan {
        bits
    } else {
        out
    }
}
