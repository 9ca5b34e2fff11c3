//! More of `jax.numpy`: logical reductions (any, all, count_nonzero), elementwise functions
//! JAX expands into others (log2, log10, the inverse and hyperbolic trigonometric functions,
//! isinf, isfinite, nan_to_num, reciprocal, logical_xor), the bitwise functions (bitwise_and,
//! left_shift, invert, ...), diagonals (diag, diagonal, trace),
//! stacking (vstack, hstack, column_stack), statistics (median, average, the NaN-ignoring
//! reductions), diff, cumprod, searchsorted, kron,
//! `jnp.linalg.norm`, and the array constructors and queries that are aliases (identity,
//! empty, full_like, ravel, size, shape, ndim, array_equal). Each is a composition of
//! primitives, so it traces, differentiates, batches and compiles like the rest.

use super::api::weak;
use super::arrange::{shape_i64, slice_axis, sorts_before};
use super::builtins::{no_more_kwargs, take_kwarg};
use super::jax::{axes_arg, int_arg, optional_dtype};
use super::value::{repr, Value};
use super::{err, unsupported, Interp, R};
use jaxlite::numpy::{self as jnp, Reduction};
use jaxlite::{Array, BinaryOp, CompareOp, Context, DType, LocalFuture, Primitive, Tensor, UnaryOp};

/// `jax.numpy` names implemented here.
pub const JNP_NUMERIC: &[&str] = &[
    "any",
    "all",
    "count_nonzero",
    "log2",
    "log10",
    "isinf",
    "isfinite",
    "nan_to_num",
    "reciprocal",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_invert",
    "invert",
    "left_shift",
    "right_shift",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "tan",
    "arctan",
    "arcsin",
    "arccos",
    "sinh",
    "cosh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "diag",
    "diagonal",
    "trace",
    "vstack",
    "hstack",
    "column_stack",
    "median",
    "quantile",
    "percentile",
    "average",
    "diff",
    "identity",
    "empty",
    "full_like",
    "ravel",
    "size",
    "shape",
    "ndim",
    "array_equal",
    "searchsorted",
    "kron",
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
    "cumprod",
    "linalg.norm",
];

/// The most factors `jnp.cumprod` multiplies along its axis (one traced op each).
const MAX_CUMPROD_LENGTH: usize = 4096;

type Ctx = Context;

pub(super) async fn un(ctx: &mut Ctx, op: UnaryOp, x: &Tensor) -> R<Tensor> {
    Ok(jnp::unary(ctx, op, x).await?)
}

pub(super) async fn bin(ctx: &mut Ctx, op: BinaryOp, x: &Tensor, y: &Tensor) -> R<Tensor> {
    Ok(jnp::binary(ctx, op, x, y).await?)
}

/// `x` as a float (integers and booleans promote to float32, as jnp's inexact functions do).
pub(super) async fn inexact(ctx: &mut Ctx, x: &Tensor) -> R<Tensor> {
    if x.aval().dtype.is_float() {
        return Ok(x.clone());
    }
    let float = ctx.default_float();
    Ok(jnp::astype(ctx, x, float).await?)
}

/// `x != 0`, as a boolean array.
async fn nonzero(ctx: &mut Ctx, x: &Tensor) -> R<Tensor> {
    if x.aval().dtype == DType::Bool {
        return Ok(x.clone());
    }
    Ok(jnp::compare(ctx, CompareOp::Ne, x, &Tensor::from(Array::weak_scalar_i32(0))).await?)
}

/// √(1 − x²), as the inverse sine and cosine need it.
async fn sqrt_one_minus_square(ctx: &mut Ctx, x: &Tensor) -> R<Tensor> {
    let sq = jnp::integer_pow(ctx, x, 2).await?;
    let d = bin(ctx, BinaryOp::Sub, &weak(1.0), &sq).await?;
    un(ctx, UnaryOp::Sqrt, &d).await
}

/// The elementwise functions JAX lowers to others: the formulas XLA expands them into.
async fn expanded(ctx: &mut Ctx, name: &str, x: &Tensor) -> R<Tensor> {
    let x = &inexact(ctx, x).await?;
    Ok(match name {
        // log(x) / log(base), as jnp.log2 and jnp.log10.
        "log2" | "log10" => {
            let l = un(ctx, UnaryOp::Log, x).await?;
            let base = if name == "log2" { std::f32::consts::LN_2 } else { std::f32::consts::LN_10 };
            bin(ctx, BinaryOp::Div, &l, &weak(base)).await?
        }
        "tan" => {
            let (s, c) = (un(ctx, UnaryOp::Sin, x).await?, un(ctx, UnaryOp::Cos, x).await?);
            bin(ctx, BinaryOp::Div, &s, &c).await?
        }
        "arctan" => bin(ctx, BinaryOp::Atan2, x, &weak(1.0)).await?,
        // 2·atan2(x, 1 + √(1 − x²)) and 2·atan2(√(1 − x²), 1 + x): XLA's expansions (arccos
        // is π at −1, where the second would be atan2(0, 0) = 0).
        "arcsin" => {
            let r = sqrt_one_minus_square(ctx, x).await?;
            let d = bin(ctx, BinaryOp::Add, &weak(1.0), &r).await?;
            let a = bin(ctx, BinaryOp::Atan2, x, &d).await?;
            bin(ctx, BinaryOp::Mul, &weak(2.0), &a).await?
        }
        "arccos" => {
            let r = sqrt_one_minus_square(ctx, x).await?;
            let d = bin(ctx, BinaryOp::Add, &weak(1.0), x).await?;
            let a = bin(ctx, BinaryOp::Atan2, &r, &d).await?;
            let value = bin(ctx, BinaryOp::Mul, &weak(2.0), &a).await?;
            let at_minus_one = jnp::compare(ctx, CompareOp::Eq, x, &weak(-1.0)).await?;
            let pi = jnp::astype(ctx, &weak(std::f32::consts::PI), x.aval().dtype).await?;
            let pi = jnp::broadcast_to(ctx, &pi, &x.aval().shape).await?;
            jnp::where_(ctx, &at_minus_one, &pi, &value).await?
        }
        // XLA's: e^(x − ln 2) ± e^(−x − ln 2), which overflows only where the result does;
        // sinh below 1 in magnitude as (expm1(x) − expm1(−x))/2, accurate near 0.
        "sinh" | "cosh" => {
            let n = un(ctx, UnaryOp::Neg, x).await?;
            let half = weak(-std::f32::consts::LN_2);
            let up = bin(ctx, BinaryOp::Add, x, &half).await?;
            let down = bin(ctx, BinaryOp::Add, &n, &half).await?;
            let (up, down) = (un(ctx, UnaryOp::Exp, &up).await?, un(ctx, UnaryOp::Exp, &down).await?);
            if name == "cosh" {
                bin(ctx, BinaryOp::Add, &up, &down).await?
            } else {
                let large = bin(ctx, BinaryOp::Sub, &up, &down).await?;
                let (e, f) = (un(ctx, UnaryOp::Expm1, x).await?, un(ctx, UnaryOp::Expm1, &n).await?);
                let small = bin(ctx, BinaryOp::Sub, &e, &f).await?;
                let small = bin(ctx, BinaryOp::Mul, &small, &weak(0.5)).await?;
                let a = un(ctx, UnaryOp::Abs, x).await?;
                let near_zero = jnp::compare(ctx, CompareOp::Lt, &a, &weak(1.0)).await?;
                jnp::where_(ctx, &near_zero, &small, &large).await?
            }
        }
        // sign(x)·log(|x| + √(x² + 1)); log(x + √(x² − 1)); ½·log1p(2x / (1 − x)).
        "arcsinh" | "arccosh" => {
            let sq = jnp::integer_pow(ctx, x, 2).await?;
            let one = weak(if name == "arcsinh" { 1.0 } else { -1.0 });
            let r = bin(ctx, BinaryOp::Add, &sq, &one).await?;
            let r = un(ctx, UnaryOp::Sqrt, &r).await?;
            let a = if name == "arcsinh" { un(ctx, UnaryOp::Abs, x).await? } else { x.clone() };
            let s = bin(ctx, BinaryOp::Add, &a, &r).await?;
            let l = un(ctx, UnaryOp::Log, &s).await?;
            if name == "arcsinh" {
                let sign = un(ctx, UnaryOp::Sign, x).await?;
                bin(ctx, BinaryOp::Mul, &sign, &l).await?
            } else {
                l
            }
        }
        "arctanh" => {
            let twice = bin(ctx, BinaryOp::Mul, &weak(2.0), x).await?;
            let d = bin(ctx, BinaryOp::Sub, &weak(1.0), x).await?;
            let q = bin(ctx, BinaryOp::Div, &twice, &d).await?;
            let l = un(ctx, UnaryOp::Log1p, &q).await?;
            bin(ctx, BinaryOp::Mul, &weak(0.5), &l).await?
        }
        _ => return super::unsupported(format!("jnp.{name} is not supported by the playground yet")),
    })
}

/// The elements `a[i, i + offset]` of a matrix: the flattened matrix sliced with a step of one
/// row plus one (a strided slice, so exact, -0 and NaN kept).
async fn diagonal(ctx: &mut Ctx, a: &Tensor, offset: i64) -> R<Tensor> {
    let [rows, cols] = a.aval().shape[..] else {
        return err(format!(
            "diagonal: the playground takes the diagonal of a 2-D array, got shape {}",
            jnp::shape_str(&a.aval().shape)
        ));
    };
    let (start, len) = if offset >= 0 {
        let k = offset as usize;
        (k, rows.min(cols.saturating_sub(k)))
    } else {
        let k = offset.unsigned_abs() as usize;
        (k * cols, rows.saturating_sub(k).min(cols))
    };
    let flat = jnp::reshape(ctx, a, &[-1]).await?;
    let step = cols + 1;
    let (start, limit) = if len == 0 { (0, 0) } else { (start, start + (len - 1) * step + 1) };
    let prim = Primitive::Slice { start_indices: vec![start], limit_indices: vec![limit], strides: Some(vec![step]) };
    Ok(jnp::apply1(ctx, prim, &flat).await?)
}

impl Interp<'_, '_> {
    pub(super) fn call_numeric<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let first = match name {
                "diag" => "v",
                "vstack" | "hstack" | "column_stack" => "tup",
                "identity" => "n",
                "empty" => "shape",
                "array_equal" => "a1",
                "linalg.norm" => "x",
                "logical_xor"
                | "bitwise_and"
                | "bitwise_or"
                | "bitwise_xor"
                | "left_shift"
                | "right_shift"
                | "bitwise_left_shift"
                | "bitwise_right_shift" => "x1",
                "kron" => "a",
                "any" | "all" | "count_nonzero" | "diagonal" | "trace" | "median" | "quantile" | "percentile"
                | "average" | "diff" | "full_like" | "ravel" | "size" | "shape" | "ndim" | "searchsorted"
                | "nansum" | "nanmean" | "nanmax" | "nanmin" | "cumprod" => "a",
                _ => "x",
            };
            let first =
                arg(0, first).ok_or_else(|| super::RtError::new(format!("{name}() missing argument '{first}'")))?;
            // The functions that take no array first.
            match name {
                "identity" | "empty" => {
                    let dtype = optional_dtype(take_kwarg(&mut kwargs, "dtype"))?.unwrap_or(self.ctx.default_float());
                    no_more_kwargs(name, &kwargs)?;
                    let shape = match name {
                        "identity" => {
                            let n = int_arg(&first)?;
                            if n < 0 {
                                return super::value_err(format!(
                                    "identity: negative dimensions are not allowed ({n})"
                                ));
                            }
                            vec![n as usize; 2]
                        }
                        _ => super::jax::shape_arg(&first)?,
                    };
                    super::jax::check_size(&shape)?;
                    let n = if name == "identity" { shape[0] } else { 0 };
                    let values = (0..shape.iter().product::<usize>())
                        .map(|i| if name == "identity" && i % (n + 1) == 0 { 1.0 } else { 0.0 })
                        .collect();
                    return Ok(Value::array(Array::from_f32(shape, values).astype(dtype)));
                }
                "vstack" | "hstack" | "column_stack" => {
                    no_more_kwargs(name, &kwargs)?;
                    return self.stack_along(name, &first).await;
                }
                _ => {}
            }
            let x = self.to_tensor(&first)?;
            let rank = x.aval().rank();
            let out = match name {
                "any" | "all" | "count_nonzero" => {
                    let (axes, keepdims) = self.axes_and_keepdims(name, arg(1, "axis"), &mut kwargs)?;
                    let ctx = &mut *self.ctx;
                    let b = nonzero(ctx, &x).await?;
                    let r = match name {
                        "count_nonzero" => jnp::reduce(ctx, &b, axes.as_deref(), Reduction::Sum).await?,
                        // Over nothing, `any` is False and `all` True (reduce_or and reduce_and
                        // have identities, where max and min have none).
                        _ if reduces_nothing(x.aval(), axes.as_deref()) => {
                            let shape = reduced_shape(x.aval(), axes.as_deref());
                            Tensor::from(jnp::full(&shape, f64::from(u8::from(name == "all")), DType::Bool))
                        }
                        // As reduce_or and reduce_and: the largest and smallest of 0s and 1s.
                        _ => {
                            let kind = if name == "any" { Reduction::Max } else { Reduction::Min };
                            let i = jnp::astype(ctx, &b, DType::I32).await?;
                            let r = jnp::reduce(ctx, &i, axes.as_deref(), kind).await?;
                            jnp::astype(ctx, &r, DType::Bool).await?
                        }
                    };
                    self.maybe_keepdims(r, &x, axes, keepdims).await?
                }
                "log2" | "log10" | "tan" | "arctan" | "arcsin" | "arccos" | "sinh" | "cosh" | "arcsinh" | "arccosh"
                | "arctanh" => {
                    no_more_kwargs(name, &kwargs)?;
                    expanded(self.ctx, name, &x).await?
                }
                // |x| = inf; |x| < inf (NaN neither); integers are always finite.
                "isinf" | "isfinite" => {
                    no_more_kwargs(name, &kwargs)?;
                    if !x.aval().dtype.is_float() {
                        let full = jnp::full(&x.aval().shape, f64::from(u8::from(name == "isfinite")), DType::Bool);
                        return Ok(Value::array(full));
                    }
                    let a = un(self.ctx, UnaryOp::Abs, &x).await?;
                    let op = if name == "isinf" { CompareOp::Eq } else { CompareOp::Lt };
                    jnp::compare(self.ctx, op, &a, &weak(f32::INFINITY)).await?
                }
                "nan_to_num" => {
                    let _ = arg(1, "copy");
                    let number = |v: Option<Value>, default: f32| -> R<f32> {
                        match v {
                            None | Some(Value::None) => Ok(default),
                            Some(v) => super::value::as_f64(&v).map(|f| f as f32).ok_or_else(|| {
                                super::RtError::new(format!("nan_to_num: expected a number, got {}", repr(&v)))
                            }),
                        }
                    };
                    let nan = number(arg(2, "nan"), 0.0)?;
                    let posinf = number(arg(3, "posinf"), f32::MAX)?;
                    let neginf = number(arg(4, "neginf"), f32::MIN)?;
                    no_more_kwargs(name, &kwargs)?;
                    if !x.aval().dtype.is_float() {
                        return Ok(Value::Array(x));
                    }
                    let ctx = &mut *self.ctx;
                    let mut out = x.clone();
                    for (value, replace) in [(f32::NAN, nan), (f32::INFINITY, posinf), (f32::NEG_INFINITY, neginf)] {
                        let hit = if value.is_nan() {
                            jnp::compare(ctx, CompareOp::Ne, &x, &x).await?
                        } else {
                            jnp::compare(ctx, CompareOp::Eq, &x, &weak(value)).await?
                        };
                        let r = jnp::astype(ctx, &weak(replace), x.aval().dtype).await?;
                        out = jnp::where_(ctx, &hit, &r, &out).await?;
                    }
                    out
                }
                "reciprocal" => {
                    no_more_kwargs(name, &kwargs)?;
                    let x = inexact(self.ctx, &x).await?;
                    jnp::integer_pow(self.ctx, &x, -1).await?
                }
                "bitwise_and"
                | "bitwise_or"
                | "bitwise_xor"
                | "left_shift"
                | "right_shift"
                | "bitwise_left_shift"
                | "bitwise_right_shift" => {
                    let y =
                        arg(1, "x2").ok_or_else(|| super::RtError::new(format!("{name}() missing argument 'x2'")))?;
                    no_more_kwargs(name, &kwargs)?;
                    let y = self.to_tensor(&y)?;
                    let op = match name {
                        "bitwise_and" => BinaryOp::And,
                        "bitwise_or" => BinaryOp::Or,
                        "bitwise_xor" => BinaryOp::Xor,
                        "left_shift" | "bitwise_left_shift" => BinaryOp::ShiftLeft,
                        _ => BinaryOp::ShiftRightArithmetic,
                    };
                    jnp::bitwise(self.ctx, op, &x, &y).await?
                }
                "bitwise_not" | "bitwise_invert" | "invert" => {
                    no_more_kwargs(name, &kwargs)?;
                    jnp::bitwise_not(self.ctx, &x).await?
                }
                "logical_xor" => {
                    let y = arg(1, "x2").ok_or_else(|| super::RtError::new("logical_xor() missing argument 'x2'"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let y = self.to_tensor(&y)?;
                    let ctx = &mut *self.ctx;
                    let (a, b) = (nonzero(ctx, &x).await?, nonzero(ctx, &y).await?);
                    jnp::compare(ctx, CompareOp::Ne, &a, &b).await?
                }
                "diag" | "diagonal" | "trace" => {
                    let offset = match arg(1, if name == "diag" { "k" } else { "offset" }) {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let ctx = &mut *self.ctx;
                    match (name, rank) {
                        ("diag", 1) => {
                            // v on the offset-th diagonal of a square of side n + |offset|: v
                            // (padded) down the rows above the main diagonal, along the
                            // columns below it, selected where j − i = offset.
                            let n = x.aval().shape[0] + offset.unsigned_abs() as usize;
                            let extra = offset.unsigned_abs() as i64;
                            let zero = jnp::astype(ctx, &weak(0.0), x.aval().dtype).await?;
                            let config = vec![(0, extra, 0)];
                            let padded = jnp::apply(ctx, Primitive::Pad { config }, &[x.clone(), zero.clone()]).await?;
                            let line: &[i64] = if offset >= 0 { &[n as i64, 1] } else { &[1, n as i64] };
                            let line = jnp::reshape(ctx, &padded, line).await?;
                            let square = jnp::broadcast_to(ctx, &line, &[n, n]).await?;
                            let mask: Vec<f32> = (0..n * n)
                                .map(|e| f32::from(u8::from((e % n) as i64 - (e / n) as i64 == offset)))
                                .collect();
                            let mask = Tensor::from(Array::from_f32(vec![n, n], mask).astype(DType::Bool));
                            jnp::where_(ctx, &mask, &square, &zero).await?
                        }
                        ("diag", _) if rank != 2 => return err("diag: the input must be 1-D or 2-D"),
                        ("trace", _) => {
                            let d = diagonal(ctx, &x, offset).await?;
                            jnp::reduce(ctx, &d, None, Reduction::Sum).await?
                        }
                        _ => diagonal(ctx, &x, offset).await?,
                    }
                }
                "median" | "average" => {
                    let axis = arg(1, "axis");
                    let weights = if name == "average" { arg(2, "weights") } else { None };
                    let (axes, keepdims) = self.axes_and_keepdims(name, axis, &mut kwargs)?;
                    let r = match name {
                        "median" => self.quantile(&x, 0.5, axes.clone(), "midpoint").await?,
                        _ => self.average(&x, axes.clone(), weights).await?,
                    };
                    self.maybe_keepdims(r, &x, axes, keepdims).await?
                }
                // One quantile, or one per q stacked first, as NumPy.
                "quantile" | "percentile" => {
                    let q = arg(1, "q").ok_or_else(|| super::RtError::new(format!("{name}() missing argument 'q'")))?;
                    let axis = arg(2, "axis");
                    let method = match take_kwarg(&mut kwargs, "method") {
                        None => "linear".to_string(),
                        Some(Value::Str(m)) => m.to_string(),
                        Some(other) => {
                            return err(format!("{name}: method must be a string, not {}", other.type_name()))
                        }
                    };
                    let (axes, keepdims) = self.axes_and_keepdims(name, axis, &mut kwargs)?;
                    let scale = if name == "percentile" { 100.0f32 } else { 1.0 };
                    let (qs, many) = match &q {
                        Value::List(_) | Value::Tuple(_) => {
                            let class = if matches!(q, Value::List(_)) { "list" } else { "tuple" };
                            return err(format!(
                                "{name} requires ndarray or scalar arguments, got <class '{class}'> at position 1."
                            ));
                        }
                        Value::Array(t) if t.aval().rank() == 1 => (self.iterate(&q)?, true),
                        _ => (vec![q.clone()], false),
                    };
                    let mut parts = Vec::new();
                    for q in &qs {
                        // q decides which elements are read: it must be known while tracing.
                        let q = match q {
                            Value::Array(t) if t.aval().rank() == 0 => match t.concrete() {
                                Some(a) => Some(a.to_f64_vec()[0]),
                                None => {
                                    return err(format!("{name}: q must be a concrete value, not traced inside jit"))
                                }
                            },
                            other => super::value::as_f64(other),
                        };
                        let q = q.ok_or_else(|| {
                            super::RtError::new(format!("{name}: q must be a number or an array of numbers"))
                        })? as f32;
                        let r = self.quantile(&x, q / scale, axes.clone(), &method).await?;
                        parts.push(self.maybe_keepdims(r, &x, axes.clone(), keepdims).await?);
                    }
                    if many {
                        let ctx = &mut *self.ctx;
                        let mut stacked = Vec::new();
                        for p in &parts {
                            let mut shape = shape_i64(&p.aval().shape);
                            shape.insert(0, 1);
                            stacked.push(jnp::reshape(ctx, p, &shape).await?);
                        }
                        jnp::apply(ctx, Primitive::Concatenate { dimension: 0 }, &stacked).await?
                    } else {
                        parts.remove(0)
                    }
                }
                // a[1:] − a[:-1] along the axis, n times.
                "diff" => {
                    let n = match arg(1, "n") {
                        None => 1,
                        Some(v) => int_arg(&v)?,
                    };
                    let axis = match arg(2, "axis") {
                        None => -1,
                        Some(v) => int_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    if n < 0 {
                        return super::value_err(format!("diff: order must be non-negative but got {n}"));
                    }
                    if rank == 0 {
                        return super::value_err("diff requires input that is at least one dimensional");
                    }
                    let axis = jnp::normalize_axes(Some(&[axis]), rank)?[0];
                    let ctx = &mut *self.ctx;
                    let mut out = x.clone();
                    for _ in 0..n {
                        let len = out.aval().shape[axis];
                        if len == 0 {
                            break;
                        }
                        let a = slice_axis(ctx, &out, axis, 1, len).await?;
                        let b = slice_axis(ctx, &out, axis, 0, len - 1).await?;
                        out = if out.aval().dtype == DType::Bool {
                            jnp::compare(ctx, CompareOp::Ne, &a, &b).await?
                        } else {
                            bin(ctx, BinaryOp::Sub, &a, &b).await?
                        };
                    }
                    out
                }
                "full_like" => {
                    let fill = arg(1, "fill_value")
                        .ok_or_else(|| super::RtError::new("full_like() missing argument 'fill_value'"))?;
                    let dtype = optional_dtype(arg(2, "dtype"))?.unwrap_or(x.aval().dtype);
                    let shape = match arg(3, "shape") {
                        None | Some(Value::None) => x.aval().shape.clone(),
                        Some(v) => super::jax::shape_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let fill = self.to_tensor(&fill)?;
                    let ctx = &mut *self.ctx;
                    let fill = jnp::astype(ctx, &fill, dtype).await?;
                    jnp::broadcast_to(ctx, &fill, &shape).await?
                }
                "ravel" => {
                    no_more_kwargs(name, &kwargs)?;
                    jnp::reshape(self.ctx, &x, &[-1]).await?
                }
                "size" | "shape" | "ndim" => {
                    let axis = if name == "size" { arg(1, "axis") } else { None };
                    no_more_kwargs(name, &kwargs)?;
                    let shape = &x.aval().shape;
                    return Ok(match (name, axis) {
                        ("size", None | Some(Value::None)) => Value::Int(shape.iter().product::<usize>() as i64),
                        ("size", Some(a)) => {
                            Value::Int(shape[jnp::normalize_axes(Some(&[int_arg(&a)?]), rank)?[0]] as i64)
                        }
                        ("shape", _) => Value::tuple(shape.iter().map(|&d| Value::Int(d as i64)).collect()),
                        _ => Value::Int(rank as i64),
                    });
                }
                "array_equal" => {
                    let y = arg(1, "a2").ok_or_else(|| super::RtError::new("array_equal() missing argument 'a2'"))?;
                    let equal_nan = match arg(2, "equal_nan") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let y = self.to_tensor(&y)?;
                    if x.aval().shape != y.aval().shape {
                        return Ok(Value::array(jnp::full(&[], 0.0, DType::Bool)));
                    }
                    let ctx = &mut *self.ctx;
                    let mut same = jnp::compare(ctx, CompareOp::Eq, &x, &y).await?;
                    if equal_nan {
                        let (nx, ny) = (
                            jnp::compare(ctx, CompareOp::Ne, &x, &x).await?,
                            jnp::compare(ctx, CompareOp::Ne, &y, &y).await?,
                        );
                        let both = bin(ctx, BinaryOp::And, &nx, &ny).await?;
                        same = bin(ctx, BinaryOp::Or, &same, &both).await?;
                    }
                    let i = jnp::astype(ctx, &same, DType::I32).await?;
                    let r = jnp::reduce(ctx, &i, None, Reduction::Min).await?;
                    jnp::astype(ctx, &r, DType::Bool).await?
                }
                // The count of a's elements that sort before v ("left") or not after it
                // ("right"), NaN sorting last as in jnp.sort: a compare against every element,
                // exact and branch-free, as the vector unit would do it.
                "searchsorted" => {
                    let v = arg(1, "v").ok_or_else(|| super::RtError::new("searchsorted() missing argument 'v'"))?;
                    let side = match arg(2, "side") {
                        None => "left".to_string(),
                        Some(Value::Str(s)) if &*s == "left" || &*s == "right" => s.to_string(),
                        Some(other) => {
                            return super::value_err(format!(
                                "searchsorted: side must be 'left' or 'right', got {}",
                                repr(&other)
                            ))
                        }
                    };
                    if !matches!(arg(3, "sorter"), None | Some(Value::None)) {
                        return super::unsupported("searchsorted with sorter= is not supported by the playground yet");
                    }
                    let _ = take_kwarg(&mut kwargs, "method");
                    no_more_kwargs(name, &kwargs)?;
                    if rank != 1 {
                        return err(format!(
                            "searchsorted: a must be 1-D, got shape {}",
                            jnp::shape_str(&x.aval().shape)
                        ));
                    }
                    let v = self.to_tensor(&v)?;
                    let ctx = &mut *self.ctx;
                    let n = x.aval().shape[0];
                    // v with a new last axis against a along it.
                    let mut vs = shape_i64(&v.aval().shape);
                    vs.push(1);
                    let v = jnp::reshape(ctx, &v, &vs).await?;
                    let mut square: Vec<usize> = v.aval().shape.clone();
                    *square.last_mut().expect("just pushed") = n;
                    let v = jnp::broadcast_to(ctx, &v, &square).await?;
                    let a = jnp::broadcast_to(ctx, &x, &square).await?;
                    let counted = if side == "left" {
                        sorts_before(ctx, &a, &v).await?
                    } else {
                        let after = sorts_before(ctx, &v, &a).await?;
                        jnp::unary(ctx, UnaryOp::Not, &after).await?
                    };
                    let last = [counted.aval().rank() as i64 - 1];
                    jnp::reduce(ctx, &counted, Some(&last), Reduction::Sum).await?
                }
                // Every product a[i] · b[j], laid out block by block: a's axes interleaved with
                // b's, multiplied, merged pairwise.
                "kron" => {
                    let b = arg(1, "b").ok_or_else(|| super::RtError::new("kron() missing argument 'b'"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let b = self.to_tensor(&b)?;
                    let ctx = &mut *self.ctx;
                    let r = rank.max(b.aval().rank());
                    let padded = |t: &Tensor| -> Vec<usize> {
                        let s = &t.aval().shape;
                        [vec![1; r - s.len()], s.clone()].concat()
                    };
                    let (sa, sb) = (padded(&x), padded(&b));
                    let ia: Vec<i64> = sa.iter().flat_map(|&n| [n as i64, 1]).collect();
                    let ib: Vec<i64> = sb.iter().flat_map(|&n| [1, n as i64]).collect();
                    let a = jnp::reshape(ctx, &x, &ia).await?;
                    let b = jnp::reshape(ctx, &b, &ib).await?;
                    let p = bin(ctx, BinaryOp::Mul, &a, &b).await?;
                    let merged: Vec<i64> = sa.iter().zip(&sb).map(|(&m, &n)| (m * n) as i64).collect();
                    jnp::reshape(ctx, &p, &merged).await?
                }
                // NaN counts as nothing: 0 in a sum, −inf in a max, +inf in a min; an all-NaN
                // max or min is NaN, an all-NaN mean 0/0.
                "nansum" | "nanmean" | "nanmax" | "nanmin" => {
                    let (axes, keepdims) = self.axes_and_keepdims(name, arg(1, "axis"), &mut kwargs)?;
                    let r = self.nan_reduce(name, &x, axes.clone()).await?;
                    self.maybe_keepdims(r, &x, axes, keepdims).await?
                }
                // A chain of multiplies along the axis, in order (what reduce_window computes
                // for each prefix), concatenated; at most MAX_CUMPROD_LENGTH long.
                "cumprod" => {
                    let axis = arg(1, "axis");
                    let _ = arg(2, "dtype");
                    no_more_kwargs(name, &kwargs)?;
                    let ctx = &mut *self.ctx;
                    let x = if x.aval().dtype == DType::Bool { jnp::astype(ctx, &x, DType::I32).await? } else { x };
                    let (x, axis) = match axis {
                        None | Some(Value::None) => (jnp::reshape(ctx, &x, &[-1]).await?, 0),
                        Some(v) => (x.clone(), jnp::normalize_axes(Some(&[int_arg(&v)?]), rank)?[0]),
                    };
                    let shape = x.aval().shape.clone();
                    let n = shape[axis];
                    if n > MAX_CUMPROD_LENGTH {
                        return unsupported(format!(
                            "cumprod along an axis of {n} is not supported by the playground yet (at most {MAX_CUMPROD_LENGTH}: it is traced as a chain of multiplies)"
                        ));
                    }
                    if n <= 1 {
                        return Ok(Value::Array(x));
                    }
                    let mut parts = Vec::with_capacity(n);
                    let mut product: Option<Tensor> = None;
                    for k in 0..n {
                        let xk = slice_axis(ctx, &x, axis, k, k + 1).await?;
                        let p = match &product {
                            None => xk,
                            Some(p) => bin(ctx, BinaryOp::Mul, p, &xk).await?,
                        };
                        parts.push(p.clone());
                        product = Some(p);
                    }
                    jnp::apply(ctx, Primitive::Concatenate { dimension: axis }, &parts).await?
                }
                "linalg.norm" => {
                    let ord = arg(1, "ord");
                    let axis = arg(2, "axis");
                    let keepdims = match arg(3, "keepdims") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    no_more_kwargs("norm", &kwargs)?;
                    let axes = axes_arg(axis.as_ref())?;
                    let r = self.norm(&x, ord, axes.clone()).await?;
                    self.maybe_keepdims(r, &x, axes, keepdims).await?
                }
                _ => return super::unsupported(format!("jnp.{name} is not supported by the playground yet")),
            };
            Ok(Value::Array(out))
        })
    }

    /// A reduction's `axis` (None, an int or a tuple) and `keepdims=`; any other keyword is
    /// refused.
    fn axes_and_keepdims(
        &self,
        name: &str,
        axis: Option<Value>,
        kwargs: &mut Vec<(String, Value)>,
    ) -> R<(Option<Vec<i64>>, bool)> {
        let keepdims = match take_kwarg(kwargs, "keepdims") {
            Some(v) => self.truthy(&v)?,
            None => false,
        };
        no_more_kwargs(name, kwargs)?;
        Ok((axes_arg(axis.as_ref())?, keepdims))
    }

    /// vstack: 1-D arrays become rows, then concatenate along axis 0; hstack: along axis 1
    /// (axis 0 for 1-D arrays); column_stack: 1-D arrays become columns, then along axis 1.
    fn stack_along<'a>(&'a mut self, name: &'a str, tup: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let items = match tup {
                Value::List(_) | Value::Tuple(_) => self.iterate(tup)?,
                other => return err(format!("{name} expects a list or tuple of arrays, got {}", other.type_name())),
            };
            if items.is_empty() {
                return super::value_err(format!("need at least one array to {name}"));
            }
            let mut parts = Vec::new();
            for item in &items {
                let t = self.to_tensor(item)?;
                let shape = t.aval().shape.clone();
                let t = match (name, shape.len()) {
                    ("vstack", 0) => jnp::reshape(self.ctx, &t, &[1, 1]).await?,
                    ("vstack", 1) => jnp::reshape(self.ctx, &t, &[1, shape[0] as i64]).await?,
                    ("hstack", 0) => jnp::reshape(self.ctx, &t, &[1]).await?,
                    ("column_stack", 0) => jnp::reshape(self.ctx, &t, &[1, 1]).await?,
                    ("column_stack", 1) => jnp::reshape(self.ctx, &t, &[shape[0] as i64, 1]).await?,
                    _ => t,
                };
                parts.push(t);
            }
            let parts = super::api::promoted(self.ctx, &parts).await?;
            let axis = match name {
                "vstack" => 0,
                "hstack" if parts[0].aval().rank() == 1 => 0,
                _ => 1,
            };
            if let Some(p) = parts.iter().find(|p| p.aval().rank() != parts[0].aval().rank()) {
                return err(format!(
                    "{name}: all the input arrays must have the same number of dimensions, got shapes {} and {}",
                    jnp::shape_str(&parts[0].aval().shape),
                    jnp::shape_str(&p.aval().shape)
                ));
            }
            Ok(Value::Array(jnp::apply(self.ctx, Primitive::Concatenate { dimension: axis }, &parts).await?))
        })
    }

    /// jnp.quantile (and percentile, median) at `q` in [0, 1] along `axes`: the reduced axes
    /// sorted, then the order statistics around position q·(n−1) combined as `method` says,
    /// with JAX's float32 arithmetic for the position and weights (`linear`: low·(1−w) +
    /// high·w). median is the `midpoint` method at 0.5, as in JAX.
    fn quantile<'a>(
        &'a mut self,
        x: &'a Tensor,
        q: f32,
        axes: Option<Vec<i64>>,
        method: &'a str,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            if !(0.0..=1.0).contains(&q) {
                return super::value_err("quantile: q must be in the range [0, 1] (percentile: [0, 100])");
            }
            let x = inexact(self.ctx, x).await?;
            // The reduced axes flattened, last.
            let rank = x.aval().rank();
            let reduced = jnp::normalize_axes(axes.as_deref(), rank)?;
            let mut order: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
            let kept: Vec<usize> = order.iter().map(|&d| x.aval().shape[d]).collect();
            order.extend(&reduced);
            let moved = jnp::transpose(self.ctx, &x, Some(&order)).await?;
            let n: usize = reduced.iter().map(|&d| x.aval().shape[d]).product();
            if n == 0 {
                return super::value_err("quantile of an empty axis");
            }
            let mut flat = shape_i64(&kept);
            flat.push(n as i64);
            let rows = jnp::reshape(self.ctx, &moved, &flat).await?;
            let sorted = self.call_arrange("sort", vec![Value::Array(rows)], vec![]).await?;
            let Value::Array(sorted) = sorted else { return err("quantile: sort gave no array") };
            let position = q * (n - 1) as f32;
            let (lo, hi) = (position.floor(), position.ceil());
            let high_weight = position - lo;
            let ctx = &mut *self.ctx;
            let k = kept.len();
            let low = slice_axis(ctx, &sorted, k, lo as usize, lo as usize + 1).await?;
            let high = slice_axis(ctx, &sorted, k, hi as usize, hi as usize + 1).await?;
            let m = match method {
                "linear" => {
                    let l = bin(ctx, BinaryOp::Mul, &low, &weak(1.0 - high_weight)).await?;
                    let h = bin(ctx, BinaryOp::Mul, &high, &weak(high_weight)).await?;
                    bin(ctx, BinaryOp::Add, &l, &h).await?
                }
                "lower" => low,
                "higher" => high,
                "nearest" if high_weight <= 0.5 => low,
                "nearest" => high,
                "midpoint" => {
                    let s = bin(ctx, BinaryOp::Add, &low, &high).await?;
                    bin(ctx, BinaryOp::Mul, &s, &weak(0.5)).await?
                }
                other => {
                    return err(format!(
                        "quantile: method must be one of linear, lower, higher, midpoint, nearest; got '{other}'"
                    ))
                }
            };
            Ok(jnp::reshape(ctx, &m, &shape_i64(&kept)).await?)
        })
    }

    /// nansum, nanmean, nanmax, nanmin over `axes`: NaN replaced by what changes nothing (0,
    /// −inf, +inf), then the reduction; a max or min of NaN alone is NaN, a mean over no
    /// numbers 0/0. Integers have no NaN: the plain reduction.
    fn nan_reduce<'a>(
        &'a mut self,
        name: &'a str,
        x: &'a Tensor,
        axes: Option<Vec<i64>>,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let ctx = &mut *self.ctx;
            let kind = match name {
                "nanmax" => Reduction::Max,
                "nanmin" => Reduction::Min,
                _ => Reduction::Sum,
            };
            let rank = x.aval().rank();
            if !x.aval().dtype.is_float() {
                let s = jnp::reduce(ctx, x, axes.as_deref(), kind).await?;
                if name != "nanmean" {
                    return Ok(s);
                }
                let n: usize = jnp::normalize_axes(axes.as_deref(), rank)?.iter().map(|&d| x.aval().shape[d]).product();
                let s = inexact(ctx, &s).await?;
                return bin(ctx, BinaryOp::Div, &s, &weak(n as f32)).await;
            }
            let dtype = x.aval().dtype;
            let nan = jnp::compare(ctx, CompareOp::Ne, x, x).await?;
            let fill = match kind {
                Reduction::Max => f32::NEG_INFINITY,
                Reduction::Min => f32::INFINITY,
                Reduction::Sum => 0.0,
            };
            let fill = jnp::astype(ctx, &weak(fill), dtype).await?;
            let clean = jnp::where_(ctx, &nan, &fill, x).await?;
            let r = jnp::reduce(ctx, &clean, axes.as_deref(), kind).await?;
            let numbers = jnp::unary(ctx, UnaryOp::Not, &nan).await?;
            let count = jnp::reduce(ctx, &numbers, axes.as_deref(), Reduction::Sum).await?;
            Ok(match name {
                "nansum" => r,
                "nanmean" => {
                    let count = jnp::astype(ctx, &count, dtype).await?;
                    bin(ctx, BinaryOp::Div, &r, &count).await?
                }
                _ => {
                    let zero = Tensor::from(Array::weak_scalar_i32(0));
                    let none = jnp::compare(ctx, CompareOp::Eq, &count, &zero).await?;
                    let nan = jnp::astype(ctx, &weak(f32::NAN), dtype).await?;
                    jnp::where_(ctx, &none, &nan, &r).await?
                }
            })
        })
    }

    /// jnp.average: the mean, or Σ a·w / Σ w with weights of a's shape or 1-D along the one
    /// axis.
    fn average<'a>(
        &'a mut self,
        x: &'a Tensor,
        axes: Option<Vec<i64>>,
        weights: Option<Value>,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let x = inexact(self.ctx, x).await?;
            let rank = x.aval().rank();
            let reduced = jnp::normalize_axes(axes.as_deref(), rank)?;
            let ctx = &mut *self.ctx;
            let Some(w) = weights.filter(|w| !matches!(w, Value::None)) else {
                let n: usize = reduced.iter().map(|&d| x.aval().shape[d]).product();
                let s = jnp::reduce(ctx, &x, axes.as_deref(), Reduction::Sum).await?;
                return bin(ctx, BinaryOp::Div, &s, &weak(n as f32)).await;
            };
            let w = self.to_tensor(&w)?;
            let ctx = &mut *self.ctx;
            let w = inexact(ctx, &w).await?;
            let w = if w.aval().shape == x.aval().shape {
                w
            } else if w.aval().rank() == 1 && reduced.len() == 1 && w.aval().shape[0] == x.aval().shape[reduced[0]] {
                let mut shape = vec![1i64; rank];
                shape[reduced[0]] = w.aval().shape[0] as i64;
                let w = jnp::reshape(ctx, &w, &shape).await?;
                jnp::broadcast_to(ctx, &w, &x.aval().shape).await?
            } else {
                return err(format!(
                    "average: weights of shape {} do not fit an array of shape {} averaged over {reduced:?}",
                    jnp::shape_str(&w.aval().shape),
                    jnp::shape_str(&x.aval().shape)
                ));
            };
            let xw = bin(ctx, BinaryOp::Mul, &x, &w).await?;
            let num = jnp::reduce(ctx, &xw, axes.as_deref(), Reduction::Sum).await?;
            let den = jnp::reduce(ctx, &w, axes.as_deref(), Reduction::Sum).await?;
            bin(ctx, BinaryOp::Div, &num, &den).await
        })
    }

    /// jnp.linalg.norm: vector norms (None or 2, 1, inf, −inf, 0, any p) over one axis or the
    /// whole array, and the matrix norms that need no decomposition ('fro', 1, −1, inf, −inf)
    /// over two axes (the stdlib's `norm` computes 2, −2 and 'nuc' from the SVD, and calls this
    /// for the others).
    fn norm<'a>(&'a mut self, x: &'a Tensor, ord: Option<Value>, axes: Option<Vec<i64>>) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let x = inexact(self.ctx, x).await?;
            let rank = x.aval().rank();
            let axes = match axes {
                Some(a) => jnp::normalize_axes(Some(&a), rank)?,
                None if matches!(ord, None | Some(Value::None)) => (0..rank).collect(),
                None if rank <= 2 => (0..rank).collect(),
                None => return err("norm: an ord with no axis needs a 1-D or 2-D array"),
            };
            let ord = match ord {
                None | Some(Value::None) => None,
                Some(Value::Str(s)) => Some(s.to_string()),
                Some(v) => {
                    let f = super::value::as_f64(&v).ok_or_else(|| {
                        super::RtError::of(
                            super::objects::Builtin::ValueError,
                            format!("norm: invalid ord {}", repr(&v)),
                        )
                    })?;
                    Some(if f.is_infinite() {
                        if f > 0.0 {
                            "inf".into()
                        } else {
                            "-inf".into()
                        }
                    } else {
                        f.to_string()
                    })
                }
            };
            let ax: Vec<i64> = axes.iter().map(|&d| d as i64).collect();
            let ctx = &mut *self.ctx;
            let abs = un(ctx, UnaryOp::Abs, &x).await?;
            let sum_sq = async |ctx: &mut Ctx| -> R<Tensor> {
                let sq = bin(ctx, BinaryOp::Mul, &x, &x).await?;
                let s = jnp::reduce(ctx, &sq, Some(&ax), Reduction::Sum).await?;
                un(ctx, UnaryOp::Sqrt, &s).await
            };
            if ord.is_none() || (axes.len() == 2 && ord.as_deref() == Some("fro")) {
                return sum_sq(ctx).await;
            }
            let ord = ord.unwrap_or_default();
            match axes.len() {
                1 => Ok(match ord.as_str() {
                    "inf" => jnp::reduce(ctx, &abs, Some(&ax), Reduction::Max).await?,
                    "-inf" => jnp::reduce(ctx, &abs, Some(&ax), Reduction::Min).await?,
                    "0" => {
                        let nz = nonzero(ctx, &x).await?;
                        let nz = jnp::astype(ctx, &nz, x.aval().dtype).await?;
                        jnp::reduce(ctx, &nz, Some(&ax), Reduction::Sum).await?
                    }
                    "1" => jnp::reduce(ctx, &abs, Some(&ax), Reduction::Sum).await?,
                    "2" => sum_sq(ctx).await?,
                    p => {
                        let p: f32 = p.parse().map_err(|_| {
                            super::RtError::of(super::objects::Builtin::ValueError, format!("norm: invalid ord '{p}'"))
                        })?;
                        let pw = bin(ctx, BinaryOp::Pow, &abs, &weak(p)).await?;
                        let s = jnp::reduce(ctx, &pw, Some(&ax), Reduction::Sum).await?;
                        bin(ctx, BinaryOp::Pow, &s, &weak(1.0 / p)).await?
                    }
                }),
                2 => {
                    // 1 and −1: the largest and smallest column sum of |x|; inf and −inf: rows.
                    let (sum_over, kind) = match ord.as_str() {
                        "1" => (ax[0], Reduction::Max),
                        "-1" => (ax[0], Reduction::Min),
                        "inf" => (ax[1], Reduction::Max),
                        "-inf" => (ax[1], Reduction::Min),
                        other => {
                            return unsupported(format!(
                                "norm with ord={other} over a matrix is not supported by the playground yet (it needs a singular value decomposition)"
                            ))
                        }
                    };
                    let s = jnp::reduce(ctx, &abs, Some(&[sum_over]), Reduction::Sum).await?;
                    // The other axis, renumbered after the sum removed one.
                    let other = if sum_over == ax[0] { ax[1] } else { ax[0] };
                    let other = if other > sum_over { other - 1 } else { other };
                    Ok(jnp::reduce(ctx, &s, Some(&[other]), kind).await?)
                }
                n => err(format!("norm: improper number of axes ({n}) for a norm")),
            }
        })
    }
}

/// More `jax.nn` activations and normalisations, as JAX's `jax.nn` writes them.
pub const NN_MORE: &[&str] = &[
    "leaky_relu",
    "elu",
    "selu",
    "celu",
    "relu6",
    "hard_tanh",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "soft_sign",
    "log_sigmoid",
    "mish",
    "standardize",
    "glu",
];

impl Interp<'_, '_> {
    pub(super) fn call_nn_more<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let x = arg(0, "x").ok_or_else(|| super::RtError::new(format!("{name}() missing argument 'x'")))?;
            let number = |v: Option<Value>, default: f64| -> R<f32> {
                match v {
                    None => Ok(default as f32),
                    Some(v) => super::value::as_f64(&v)
                        .map(|f| f as f32)
                        .ok_or_else(|| super::RtError::new(format!("{name}: expected a number, got {}", repr(&v)))),
                }
            };
            let (param, axis) = match name {
                "leaky_relu" => (number(arg(1, "negative_slope"), 0.01)?, None),
                "elu" | "celu" => (number(arg(1, "alpha"), 1.0)?, None),
                "standardize" => {
                    let axis = arg(1, "axis");
                    for lacking in ["mean", "variance", "where"] {
                        if !matches!(take_kwarg(&mut kwargs, lacking), None | Some(Value::None)) {
                            return unsupported(format!(
                                "jax.nn.standardize: {lacking}= is not supported by the playground yet"
                            ));
                        }
                    }
                    (number(take_kwarg(&mut kwargs, "epsilon"), 1e-5)?, axis)
                }
                "glu" => (0.0, arg(1, "axis")),
                _ => (0.0, None),
            };
            no_more_kwargs(name, &kwargs)?;
            let x = inexact(self.ctx, &self.to_tensor(&x)?).await?;
            let rank = x.aval().rank();
            let ctx = &mut *self.ctx;
            let zero = weak(0.0);
            let out = match name {
                "leaky_relu" => {
                    let keep = jnp::compare(ctx, CompareOp::Ge, &x, &zero).await?;
                    let scaled = bin(ctx, BinaryOp::Mul, &weak(param), &x).await?;
                    jnp::where_(ctx, &keep, &x, &scaled).await?
                }
                // where(x > 0, x, α·expm1(x)), the expm1 of the negative part only (so its
                // gradient never overflows); selu scales elu with α and λ fixed.
                "elu" | "selu" => {
                    const SELU_ALPHA: f32 = 1.673_263_2;
                    const SELU_SCALE: f32 = 1.050_701;
                    let alpha = if name == "selu" { SELU_ALPHA } else { param };
                    let positive = jnp::compare(ctx, CompareOp::Gt, &x, &zero).await?;
                    let typed_zero = jnp::astype(ctx, &zero, x.aval().dtype).await?;
                    let zeros = jnp::broadcast_to(ctx, &typed_zero, &x.aval().shape).await?;
                    let safe = jnp::where_(ctx, &positive, &zeros, &x).await?;
                    let e = un(ctx, UnaryOp::Expm1, &safe).await?;
                    let e = bin(ctx, BinaryOp::Mul, &weak(alpha), &e).await?;
                    let out = jnp::where_(ctx, &positive, &x, &e).await?;
                    if name == "selu" {
                        bin(ctx, BinaryOp::Mul, &weak(SELU_SCALE), &out).await?
                    } else {
                        out
                    }
                }
                "celu" => {
                    let pos = bin(ctx, BinaryOp::Max, &x, &zero).await?;
                    let neg = bin(ctx, BinaryOp::Min, &x, &zero).await?;
                    let neg = bin(ctx, BinaryOp::Div, &neg, &weak(param)).await?;
                    let e = un(ctx, UnaryOp::Expm1, &neg).await?;
                    let e = bin(ctx, BinaryOp::Mul, &weak(param), &e).await?;
                    bin(ctx, BinaryOp::Add, &pos, &e).await?
                }
                "relu6" | "hard_sigmoid" | "hard_silu" | "hard_swish" => {
                    let shifted =
                        if name == "relu6" { x.clone() } else { bin(ctx, BinaryOp::Add, &x, &weak(3.0)).await? };
                    let r6 = relu6(ctx, &shifted).await?;
                    match name {
                        "relu6" => r6,
                        "hard_sigmoid" => bin(ctx, BinaryOp::Div, &r6, &weak(6.0)).await?,
                        _ => {
                            let s = bin(ctx, BinaryOp::Div, &r6, &weak(6.0)).await?;
                            bin(ctx, BinaryOp::Mul, &x, &s).await?
                        }
                    }
                }
                "hard_tanh" => {
                    let one = jnp::astype(ctx, &weak(1.0), x.aval().dtype).await?;
                    let minus = jnp::astype(ctx, &weak(-1.0), x.aval().dtype).await?;
                    let below = jnp::compare(ctx, CompareOp::Lt, &x, &minus).await?;
                    let inner = jnp::where_(ctx, &below, &minus, &x).await?;
                    let above = jnp::compare(ctx, CompareOp::Gt, &x, &one).await?;
                    jnp::where_(ctx, &above, &one, &inner).await?
                }
                "soft_sign" => {
                    let a = un(ctx, UnaryOp::Abs, &x).await?;
                    let d = bin(ctx, BinaryOp::Add, &a, &weak(1.0)).await?;
                    bin(ctx, BinaryOp::Div, &x, &d).await?
                }
                "log_sigmoid" | "mish" => {
                    let input = if name == "log_sigmoid" { un(ctx, UnaryOp::Neg, &x).await? } else { x.clone() };
                    let sp = self.call_nn("softplus", vec![Value::Array(input)], vec![]).await?;
                    let Value::Array(sp) = sp else { return err("softplus gave no array") };
                    let ctx = &mut *self.ctx;
                    if name == "log_sigmoid" {
                        un(ctx, UnaryOp::Neg, &sp).await?
                    } else {
                        let t = un(ctx, UnaryOp::Tanh, &sp).await?;
                        bin(ctx, BinaryOp::Mul, &x, &t).await?
                    }
                }
                // (x − mean) · rsqrt(mean(x²) − mean² + ε) over the axis, as jax.nn does.
                "standardize" => {
                    let axes = match axis {
                        None => vec![-1],
                        Some(v) => axes_arg(Some(&v))?.unwrap_or_else(|| (0..rank as i64).collect()),
                    };
                    let n: usize = jnp::normalize_axes(Some(&axes), rank)?.iter().map(|&d| x.aval().shape[d]).product();
                    let mean_of = async |ctx: &mut Ctx, t: &Tensor| -> R<Tensor> {
                        let s = jnp::reduce(ctx, t, Some(&axes), Reduction::Sum).await?;
                        let m = bin(ctx, BinaryOp::Div, &s, &weak(n as f32)).await?;
                        let mut shape = t.aval().shape.clone();
                        for d in jnp::normalize_axes(Some(&axes), rank)? {
                            shape[d] = 1;
                        }
                        Ok(jnp::reshape(ctx, &m, &shape_i64(&shape)).await?)
                    };
                    let mean = mean_of(ctx, &x).await?;
                    let sq = jnp::integer_pow(ctx, &x, 2).await?;
                    let mean_sq = mean_of(ctx, &sq).await?;
                    let mean2 = jnp::integer_pow(ctx, &mean, 2).await?;
                    let var = bin(ctx, BinaryOp::Sub, &mean_sq, &mean2).await?;
                    let var = bin(ctx, BinaryOp::Add, &var, &weak(param)).await?;
                    let r = un(ctx, UnaryOp::Rsqrt, &var).await?;
                    let d = bin(ctx, BinaryOp::Sub, &x, &mean).await?;
                    bin(ctx, BinaryOp::Mul, &d, &r).await?
                }
                // The first half along the axis gated by the sigmoid of the second.
                "glu" => {
                    let axis = match axis {
                        None | Some(Value::None) => -1,
                        Some(v) => int_arg(&v)?,
                    };
                    let axis = jnp::normalize_axes(Some(&[axis]), rank)?[0];
                    let size = x.aval().shape[axis];
                    if size % 2 != 0 {
                        return super::value_err(format!("jax.nn.glu: the axis to split has odd size {size}"));
                    }
                    let a = slice_axis(ctx, &x, axis, 0, size / 2).await?;
                    let b = slice_axis(ctx, &x, axis, size / 2, size).await?;
                    let s = un(ctx, UnaryOp::Logistic, &b).await?;
                    bin(ctx, BinaryOp::Mul, &a, &s).await?
                }
                _ => return super::unsupported(format!("jax.nn.{name} is not supported by the playground yet")),
            };
            Ok(Value::Array(out))
        })
    }
}

/// min(max(x, 0), 6) with the gradient of jax.nn.relu6's custom JVP: 1 strictly between 0
/// and 6, 0 at and beyond them.
async fn relu6(ctx: &mut Ctx, x: &Tensor) -> R<Tensor> {
    let zero = weak(0.0);
    let clipped = bin(ctx, BinaryOp::Max, x, &zero).await?;
    let clipped = bin(ctx, BinaryOp::Min, &clipped, &weak(6.0)).await?;
    let clipped = if ctx.is_tracing() { jnp::apply1(ctx, Primitive::StopGradient, &clipped).await? } else { clipped };
    let above = jnp::compare(ctx, CompareOp::Gt, x, &zero).await?;
    let below = jnp::compare(ctx, CompareOp::Lt, x, &weak(6.0)).await?;
    let inside = bin(ctx, BinaryOp::And, &above, &below).await?;
    Ok(jnp::where_(ctx, &inside, x, &clipped).await?)
}

/// Whether a reduction over `axes` (all of them where `None`) of an array of this type reduces
/// no elements at all: one of the axes is empty.
fn reduces_nothing(aval: &jaxlite::Aval, axes: Option<&[i64]>) -> bool {
    let rank = aval.rank() as i64;
    match axes {
        None => aval.shape.contains(&0),
        Some(axes) => axes.iter().any(|&a| aval.shape.get(a.rem_euclid(rank.max(1)) as usize) == Some(&0)),
    }
}

/// The shape a reduction over `axes` (all of them where `None`) leaves.
fn reduced_shape(aval: &jaxlite::Aval, axes: Option<&[i64]>) -> Vec<usize> {
    let rank = aval.rank() as i64;
    match axes {
        None => vec![],
        Some(axes) => {
            let gone: Vec<usize> = axes.iter().map(|&a| a.rem_euclid(rank.max(1)) as usize).collect();
            aval.shape.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, &d)| d).collect()
        }
    }
}
