//! API functions that are short compositions of others the playground has, written as JAX
//! writes them so that values (and the cases at zero, infinity and NaN) are JAX's:
//! `jnp.fabs`, `trunc`, `rint`, `deg2rad`/`radians`, `rad2deg`/`degrees`, `hypot`,
//! `heaviside`, `isclose`, `moveaxis`, `atleast_1d`/`2d`/`3d`, `inner`, `vdot`, `select`,
//! `logaddexp` and `logaddexp2` (with JAX's custom JVPs, so their derivatives at ties and
//! infinities are JAX's);
//! `jax.nn.tanh`; `jax.lax.clamp`, `square`, `broadcast`, `expand_dims`, `concatenate`, `pad`,
//! `sort`, `argmax`, `argmin`, `map`.

use super::api::weak;
use super::builtins::{arity, no_more_kwargs, take_kwarg};
use super::jax::{dtype_arg, int_arg};
use super::numeric::{bin, inexact, un};
use super::value::{as_f64, repr, Value};
use super::{err, Interp, R};
use jaxlite::numpy as jnp;
use jaxlite::{BinaryOp, CompareOp, Context, DType, LocalFuture, Primitive, Tensor, UnaryOp};

/// `jax.numpy` names implemented here.
pub const JNP_SHORTHANDS: &[&str] = &[
    "fabs",
    "trunc",
    "rint",
    "deg2rad",
    "radians",
    "rad2deg",
    "degrees",
    "hypot",
    "heaviside",
    "isclose",
    "moveaxis",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "inner",
    "vdot",
    "select",
    "logaddexp",
    "logaddexp2",
    "isposinf",
    "isneginf",
    "matrix_transpose",
];

/// `jax.lax` names implemented here.
pub const LAX_SHORTHANDS: &[&str] =
    &["clamp", "square", "broadcast", "expand_dims", "concatenate", "pad", "sort", "argmax", "argmin", "map"];

/// Two operands promoted to their common float dtype.
async fn inexact_pair(ctx: &mut Context, x: &Tensor, y: &Tensor) -> R<(Tensor, Tensor)> {
    let (a, b) = (x.aval(), y.aval());
    let (dtype, _) = ctx.promote(a, b);
    let dtype = if dtype.is_float() { dtype } else { ctx.default_float() };
    let x = if a.dtype == dtype { x.clone() } else { jnp::astype(ctx, x, dtype).await? };
    let y = if b.dtype == dtype { y.clone() } else { jnp::astype(ctx, y, dtype).await? };
    Ok((x, y))
}

async fn cmp(ctx: &mut Context, op: CompareOp, x: &Tensor, y: &Tensor) -> R<Tensor> {
    Ok(jnp::compare(ctx, op, x, y).await?)
}

/// `value` in `like`'s dtype (JAX's `_lax_const`).
async fn constant(ctx: &mut Context, value: f32, like: &Tensor) -> R<Tensor> {
    Ok(jnp::astype(ctx, &weak(value), like.aval().dtype).await?)
}

impl Interp<'_, '_> {
    pub(super) fn call_shorthand<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let out = match name {
                // x == ±∞ (never, for integers), as JAX's.
                "isposinf" | "isneginf" => {
                    let x = arg(0, "x").ok_or_else(|| super::RtError::new(format!("{name}() missing argument 'x'")))?;
                    no_more_kwargs(name, &kwargs)?;
                    let x = self.to_tensor(&x)?;
                    if !x.aval().dtype.is_float() {
                        return Ok(Value::array(jnp::full(&x.aval().shape, 0.0, DType::Bool)));
                    }
                    let inf = if name == "isposinf" { f32::INFINITY } else { f32::NEG_INFINITY };
                    let inf = constant(self.ctx, inf, &x).await?;
                    cmp(self.ctx, CompareOp::Eq, &x, &inf).await?
                }
                // The last two axes swapped (a stack of matrices each transposed).
                "matrix_transpose" => {
                    let x =
                        arg(0, "x").ok_or_else(|| super::RtError::new("matrix_transpose() missing argument 'x'"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let x = self.to_tensor(&x)?;
                    let rank = x.aval().rank();
                    if rank < 2 {
                        return err(format!(
                            "x must be at least two-dimensional for matrix_transpose; got ndim={rank}"
                        ));
                    }
                    let mut perm: Vec<usize> = (0..rank).collect();
                    perm.swap(rank - 2, rank - 1);
                    jnp::transpose(self.ctx, &x, Some(&perm)).await?
                }
                "fabs" | "trunc" | "rint" | "deg2rad" | "radians" | "rad2deg" | "degrees" => {
                    let x = arg(0, "x").ok_or_else(|| super::RtError::new(format!("{name}() missing argument 'x'")))?;
                    no_more_kwargs(name, &kwargs)?;
                    let x = self.to_tensor(&x)?;
                    // Integers truncate to themselves (jnp.trunc keeps their dtype).
                    if name == "trunc" && !x.aval().dtype.is_float() {
                        return Ok(Value::Array(x));
                    }
                    let ctx = &mut *self.ctx;
                    let x = inexact(ctx, &x).await?;
                    match name {
                        "fabs" => un(ctx, UnaryOp::Abs, &x).await?,
                        "rint" => un(ctx, UnaryOp::RoundEven, &x).await?,
                        "trunc" => {
                            let zero = constant(ctx, 0.0, &x).await?;
                            let negative = cmp(ctx, CompareOp::Lt, &x, &zero).await?;
                            let (up, down) = (un(ctx, UnaryOp::Ceil, &x).await?, un(ctx, UnaryOp::Floor, &x).await?);
                            jnp::where_(ctx, &negative, &up, &down).await?
                        }
                        "deg2rad" | "radians" => {
                            // The factor rounded once, from float64, as NumPy's constant is.
                            let k = constant(ctx, (std::f64::consts::PI / 180.0) as f32, &x).await?;
                            bin(ctx, BinaryOp::Mul, &x, &k).await?
                        }
                        _ => {
                            let k = constant(ctx, (180.0 / std::f64::consts::PI) as f32, &x).await?;
                            bin(ctx, BinaryOp::Mul, &x, &k).await?
                        }
                    }
                }
                "logaddexp" | "logaddexp2" => {
                    let (Some(a), Some(b)) = (arg(0, "x1"), arg(1, "x2")) else {
                        return err(format!("{name}() takes two arrays"));
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (a, b) = (self.to_tensor(&a)?, self.to_tensor(&b)?);
                    let base = if name == "logaddexp" { Base::E } else { Base::Two };
                    logaddexp(self.ctx, &a, &b, base).await?
                }
                "hypot" | "heaviside" | "inner" | "vdot" => {
                    let (Some(a), Some(b)) =
                        (arg(0, "x1").or_else(|| arg(0, "a")), arg(1, "x2").or_else(|| arg(1, "b")))
                    else {
                        return err(format!("{name}() takes two arrays"));
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (a, b) = (self.to_tensor(&a)?, self.to_tensor(&b)?);
                    match name {
                        "hypot" => hypot(self.ctx, &a, &b).await?,
                        "heaviside" => heaviside(self.ctx, &a, &b).await?,
                        "inner" => {
                            // The sum over the last axes of both (a product for scalars).
                            if a.aval().rank() == 0 || b.aval().rank() == 0 {
                                bin(self.ctx, BinaryOp::Mul, &a, &b).await?
                            } else {
                                let axes = Value::tuple(vec![Value::Int(-1), Value::Int(-1)]);
                                let tensordot = self
                                    .call_jnp("tensordot", vec![Value::Array(a), Value::Array(b), axes], vec![])
                                    .await?;
                                return Ok(tensordot);
                            }
                        }
                        _ => {
                            let a = jnp::reshape(self.ctx, &a, &[-1]).await?;
                            let b = jnp::reshape(self.ctx, &b, &[-1]).await?;
                            return self.call_jnp("dot", vec![Value::Array(a), Value::Array(b)], vec![]).await;
                        }
                    }
                }
                "isclose" => {
                    let (Some(a), Some(b)) = (arg(0, "a"), arg(1, "b")) else {
                        return err("isclose() takes two arrays");
                    };
                    let number = |v: Option<Value>, default: f64| -> R<f64> {
                        match v {
                            None => Ok(default),
                            Some(v) => as_f64(&v).ok_or_else(|| {
                                super::RtError::new(format!("isclose: expected a number, got {}", repr(&v)))
                            }),
                        }
                    };
                    let rtol = number(arg(2, "rtol"), 1e-5)?;
                    let atol = number(arg(3, "atol"), 1e-8)?;
                    let equal_nan = match arg(4, "equal_nan") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (a, b) = (self.to_tensor(&a)?, self.to_tensor(&b)?);
                    isclose(self.ctx, &a, &b, rtol as f32, atol as f32, equal_nan).await?
                }
                "moveaxis" => {
                    let (Some(a), Some(source), Some(destination)) =
                        (arg(0, "a"), arg(1, "source"), arg(2, "destination"))
                    else {
                        return err("moveaxis() takes an array, source and destination");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let a = self.to_tensor(&a)?;
                    let rank = a.aval().rank();
                    let axes = |v: &Value| -> R<Vec<usize>> {
                        let list = match v {
                            Value::Tuple(t) => t.iter().map(int_arg).collect::<R<Vec<i64>>>()?,
                            Value::List(l) => l.borrow().iter().map(int_arg).collect::<R<Vec<i64>>>()?,
                            other => vec![int_arg(other)?],
                        };
                        Ok(jnp::normalize_axes(Some(&list), rank)?)
                    };
                    let (source, destination) = (axes(&source)?, axes(&destination)?);
                    if source.len() != destination.len() {
                        return err("Inconsistent number of elements: source and destination must name as many axes");
                    }
                    // NumPy's rule: the axes not moved keep their order; each moved one goes
                    // to its destination, in destination order.
                    let mut order: Vec<usize> = (0..rank).filter(|d| !source.contains(d)).collect();
                    let mut moves: Vec<(usize, usize)> = destination.into_iter().zip(source).collect();
                    moves.sort_unstable();
                    for (dest, src) in moves {
                        order.insert(dest, src);
                    }
                    jnp::transpose(self.ctx, &a, Some(&order)).await?
                }
                "atleast_1d" | "atleast_2d" | "atleast_3d" => {
                    no_more_kwargs(name, &kwargs)?;
                    let mut outs = Vec::new();
                    for a in &args {
                        let x = self.to_tensor(a)?;
                        let shape: Vec<i64> = x.aval().shape.iter().map(|&d| d as i64).collect();
                        let new: Vec<i64> = match (name, &shape[..]) {
                            ("atleast_1d", []) => vec![1],
                            ("atleast_2d", []) => vec![1, 1],
                            ("atleast_2d", [n]) => vec![1, *n],
                            ("atleast_3d", []) => vec![1, 1, 1],
                            ("atleast_3d", [n]) => vec![1, *n, 1],
                            ("atleast_3d", [m, n]) => vec![*m, *n, 1],
                            _ => shape.clone(),
                        };
                        outs.push(Value::Array(if new == shape {
                            x
                        } else {
                            jnp::reshape(self.ctx, &x, &new).await?
                        }));
                    }
                    // One array for one argument, a list for several (NumPy's rule).
                    return Ok(match outs.len() {
                        1 => outs.remove(0),
                        _ => Value::list(outs),
                    });
                }
                "select" => {
                    let (Some(conditions), Some(choices)) = (arg(0, "condlist"), arg(1, "choicelist")) else {
                        return err("select() takes a list of conditions and a list of choices");
                    };
                    let default = arg(2, "default").unwrap_or(Value::Int(0));
                    no_more_kwargs(name, &kwargs)?;
                    let (conditions, choices) = (self.iterate(&conditions)?, self.iterate(&choices)?);
                    if conditions.len() != choices.len() {
                        return err(format!(
                            "list of cases must be same length as list of conditions; got {} and {}",
                            conditions.len(),
                            choices.len()
                        ));
                    }
                    if conditions.is_empty() {
                        return super::value_err("select with an empty condition list is not possible");
                    }
                    // The first condition that holds picks its choice, else the default:
                    // selections from the last condition to the first.
                    let mut out = self.to_tensor(&default)?;
                    for (c, v) in conditions.iter().zip(&choices).rev() {
                        let c = self.to_tensor(c)?;
                        let c = jnp::astype(self.ctx, &c, DType::Bool).await?;
                        let v = self.to_tensor(v)?;
                        out = jnp::where_(self.ctx, &c, &v, &out).await?;
                    }
                    out
                }
                _ => return super::unsupported(format!("jnp.{name} is not implemented")),
            };
            Ok(Value::Array(out))
        })
    }

    pub(super) fn call_lax_shorthand<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            match name {
                "clamp" => {
                    let (Some(lo), Some(x), Some(hi)) = (arg(0, "min"), arg(1, "x"), arg(2, "max")) else {
                        return err("clamp() takes min, x and max");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (lo, x, hi) = (self.to_tensor(&lo)?, self.to_tensor(&x)?, self.to_tensor(&hi)?);
                    let low = bin(self.ctx, BinaryOp::Max, &x, &lo).await?;
                    Ok(Value::Array(bin(self.ctx, BinaryOp::Min, &low, &hi).await?))
                }
                "square" => {
                    arity(name, &args, 1, 1)?;
                    no_more_kwargs(name, &kwargs)?;
                    self.call_jnp("square", args, vec![]).await
                }
                "broadcast" => {
                    let (Some(x), Some(sizes)) = (arg(0, "operand"), arg(1, "sizes")) else {
                        return err("broadcast() takes an operand and sizes");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let x = self.to_tensor(&x)?;
                    let mut shape: Vec<usize> = self
                        .iterate(&sizes)?
                        .iter()
                        .map(int_arg)
                        .map(|d| d.map(|d| d.max(0) as usize))
                        .collect::<R<_>>()?;
                    shape.extend(&x.aval().shape);
                    super::jax::check_size(&shape)?;
                    Ok(Value::Array(jnp::broadcast_to(self.ctx, &x, &shape).await?))
                }
                "expand_dims" => {
                    let (Some(x), Some(dims)) = (arg(0, "array"), arg(1, "dimensions")) else {
                        return err("expand_dims() takes an array and dimensions");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    self.call_jnp("expand_dims", vec![x], vec![("axis".into(), dims)]).await
                }
                "concatenate" => {
                    let (Some(operands), Some(dimension)) = (arg(0, "operands"), arg(1, "dimension")) else {
                        return err("concatenate() takes operands and a dimension");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    self.call_jnp("concatenate", vec![operands], vec![("axis".into(), dimension)]).await
                }
                "sort" => {
                    let Some(x) = arg(0, "operand") else { return err("sort() missing argument 'operand'") };
                    let dimension = arg(1, "dimension").unwrap_or(Value::Int(-1));
                    let _ = arg(2, "is_stable");
                    if arg(3, "num_keys").is_some_and(|k| !matches!(k, Value::Int(1))) {
                        return super::unsupported(
                            "lax.sort with num_keys other than 1 is not supported by the playground yet",
                        );
                    }
                    no_more_kwargs(name, &kwargs)?;
                    if matches!(x, Value::Tuple(_) | Value::List(_)) {
                        return super::unsupported(
                            "lax.sort of several operands is not supported by the playground yet",
                        );
                    }
                    self.call_jnp("sort", vec![x], vec![("axis".into(), dimension)]).await
                }
                "argmax" | "argmin" => {
                    let (Some(x), Some(axis), Some(index_dtype)) =
                        (arg(0, "operand"), arg(1, "axis"), arg(2, "index_dtype"))
                    else {
                        return err(format!("{name}() takes an operand, an axis and an index dtype"));
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let index_dtype = dtype_arg(&index_dtype)?;
                    let i = self.call_jnp(name, vec![x], vec![("axis".into(), axis)]).await?;
                    let i = self.to_tensor(&i)?;
                    Ok(Value::Array(jnp::astype(self.ctx, &i, index_dtype).await?))
                }
                "pad" => {
                    let (Some(x), Some(value), Some(config)) =
                        (arg(0, "operand"), arg(1, "padding_value"), arg(2, "padding_config"))
                    else {
                        return err("pad() takes an operand, a padding value and a padding config");
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (x, value) = (self.to_tensor(&x)?, self.to_tensor(&value)?);
                    let mut triples = Vec::new();
                    for dim in self.iterate(&config)? {
                        let parts = self.iterate(&dim)?;
                        let [lo, hi, interior] = &parts[..] else {
                            return err(format!(
                                "pad: each padding_config entry must be (low, high, interior), got {}",
                                repr(&dim)
                            ));
                        };
                        let interior = int_arg(interior)?;
                        if interior < 0 {
                            return super::value_err(format!(
                                "pad: interior padding must be non-negative, got {interior}"
                            ));
                        }
                        triples.push((int_arg(lo)?, int_arg(hi)?, interior as usize));
                    }
                    if triples.len() != x.aval().rank() {
                        return err(format!(
                            "pad: the padding config has {} entries for an operand of rank {}",
                            triples.len(),
                            x.aval().rank()
                        ));
                    }
                    if value.aval().rank() != 0 || value.aval().dtype != x.aval().dtype {
                        return err(format!(
                            "pad: the padding value must be a scalar of the operand's dtype {}, got {}",
                            x.aval().dtype.name(),
                            super::value::aval_text(value.aval())
                        ));
                    }
                    let out = jnp::apply(self.ctx, Primitive::Pad { config: triples }, &[x, value]).await?;
                    Ok(Value::Array(out))
                }
                // A loop over the leading axis of every leaf of `xs`, its results stacked: what
                // `scan` with no carry computes.
                "map" => {
                    let (Some(f), Some(xs)) = (arg(0, "f"), arg(1, "xs")) else {
                        return err("map() takes a function and xs");
                    };
                    let _ = arg(2, "batch_size");
                    no_more_kwargs(name, &kwargs)?;
                    let options = super::control::ScanOptions::default();
                    let scanned = self.scan(super::control::ScanBody::Map(f), Value::None, Some(xs), options).await?;
                    match scanned {
                        Value::Tuple(items) if items.len() == 2 => Ok(items[1].clone()),
                        other => Ok(other),
                    }
                }
                _ => super::unsupported(format!("jax.lax.{name} is not implemented")),
            }
        })
    }
}

/// `jnp.hypot` as JAX computes it: the larger leg times √(1 + (smaller / larger)²), zero where
/// both are zero, infinity where either is.
async fn hypot(ctx: &mut Context, x: &Tensor, y: &Tensor) -> R<Tensor> {
    let (x, y) = inexact_pair(ctx, x, y).await?;
    let (x, y) = (un(ctx, UnaryOp::Abs, &x).await?, un(ctx, UnaryOp::Abs, &y).await?);
    let inf = constant(ctx, f32::INFINITY, &x).await?;
    let x_inf = cmp(ctx, CompareOp::Eq, &x, &inf).await?;
    let y_inf = cmp(ctx, CompareOp::Eq, &y, &inf).await?;
    let any_inf = jnp::binary(ctx, BinaryOp::Or, &x_inf, &y_inf).await?;
    let (big, small) = (bin(ctx, BinaryOp::Max, &x, &y).await?, bin(ctx, BinaryOp::Min, &x, &y).await?);
    let zero = constant(ctx, 0.0, &big).await?;
    let big_zero = cmp(ctx, CompareOp::Eq, &big, &zero).await?;
    let one = constant(ctx, 1.0, &big).await?;
    let one = jnp::broadcast_to(ctx, &one, &big.aval().shape).await?;
    let safe = jnp::where_(ctx, &big_zero, &one, &big).await?;
    let ratio = bin(ctx, BinaryOp::Div, &small, &safe).await?;
    let squared = un(ctx, UnaryOp::Square, &ratio).await?;
    let one = constant(ctx, 1.0, &big).await?;
    let sum = bin(ctx, BinaryOp::Add, &one, &squared).await?;
    let root = un(ctx, UnaryOp::Sqrt, &sum).await?;
    let scaled = bin(ctx, BinaryOp::Mul, &big, &root).await?;
    let out = jnp::where_(ctx, &big_zero, &big, &scaled).await?;
    Ok(jnp::where_(ctx, &any_inf, &inf, &out).await?)
}

/// 0 below zero, 1 above, `x2` at zero.
async fn heaviside(ctx: &mut Context, x1: &Tensor, x2: &Tensor) -> R<Tensor> {
    let (x1, x2) = inexact_pair(ctx, x1, x2).await?;
    let zero = constant(ctx, 0.0, &x1).await?;
    let one = constant(ctx, 1.0, &x1).await?;
    let above = cmp(ctx, CompareOp::Gt, &x1, &zero).await?;
    let inner = jnp::where_(ctx, &above, &one, &x2).await?;
    let below = cmp(ctx, CompareOp::Lt, &x1, &zero).await?;
    Ok(jnp::where_(ctx, &below, &zero, &inner).await?)
}

/// `|a − b| ≤ atol + rtol·|b|` where `b` is finite, or `a == b`; NaNs equal where asked.
/// The tolerances are in the operands' dtype, as in JAX (so bfloat16 rounds them).
async fn isclose(ctx: &mut Context, a: &Tensor, b: &Tensor, rtol: f32, atol: f32, equal_nan: bool) -> R<Tensor> {
    let (a, b) = inexact_pair(ctx, a, b).await?;
    let rtol = constant(ctx, rtol, &a).await?;
    let atol = constant(ctx, atol, &a).await?;
    let a_nan = cmp(ctx, CompareOp::Ne, &a, &a).await?;
    let b_nan = cmp(ctx, CompareOp::Ne, &b, &b).await?;
    let both_nan = jnp::binary(ctx, BinaryOp::And, &a_nan, &b_nan).await?;
    let b_abs = un(ctx, UnaryOp::Abs, &b).await?;
    let inf = constant(ctx, f32::INFINITY, &b).await?;
    let finite = cmp(ctx, CompareOp::Lt, &b_abs, &inf).await?;
    let diff = bin(ctx, BinaryOp::Sub, &a, &b).await?;
    let diff = un(ctx, UnaryOp::Abs, &diff).await?;
    let scaled = bin(ctx, BinaryOp::Mul, &rtol, &b_abs).await?;
    let bound = bin(ctx, BinaryOp::Add, &atol, &scaled).await?;
    let in_range = cmp(ctx, CompareOp::Le, &diff, &bound).await?;
    let in_range = jnp::binary(ctx, BinaryOp::And, &in_range, &finite).await?;
    let equal = cmp(ctx, CompareOp::Eq, &a, &b).await?;
    let out = jnp::binary(ctx, BinaryOp::Or, &equal, &in_range).await?;
    if !equal_nan {
        let no = jnp::full(&[], 0.0, DType::Bool);
        return Ok(jnp::where_(ctx, &both_nan, &Tensor::from(no), &out).await?);
    }
    let yes = jnp::full(&[], 1.0, DType::Bool);
    Ok(jnp::where_(ctx, &both_nan, &Tensor::from(yes), &out).await?)
}

/// The base of `logaddexp` (e) or `logaddexp2` (2).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Base {
    E,
    Two,
}

impl Base {
    fn exp(self) -> UnaryOp {
        match self {
            Base::E => UnaryOp::Exp,
            Base::Two => UnaryOp::Exp2,
        }
    }
}

/// `jnp.logaddexp`: log(exp(x1) + exp(x2)) without overflow (`logaddexp2` in base 2). JAX gives it a custom JVP
/// (`t1·exp(x1 − out) + t2·exp(x2 − out)`, +∞ replaced by zero) so that ties split the
/// derivative evenly and infinite operands give no NaN; inside a trace it is recorded the same
/// way, as a `custom_jvp_call` of the formula with that rule.
async fn logaddexp(ctx: &mut Context, x1: &Tensor, x2: &Tensor, base: Base) -> R<Tensor> {
    let (x1, x2) = inexact_pair(ctx, x1, x2).await?;
    let shape = jnp::broadcast_shapes("logaddexp", &x1.aval().shape, &x2.aval().shape)?;
    let x1 = jnp::broadcast_to(ctx, &x1, &shape).await?;
    let x2 = jnp::broadcast_to(ctx, &x2, &shape).await?;
    if !ctx.is_tracing() {
        return logaddexp_formula(ctx, &x1, &x2, base).await;
    }
    let aval = x1.aval().clone();
    let ins = ctx.begin_trace(&[aval.clone(), aval.clone()]);
    let out = logaddexp_formula(ctx, &ins[0], &ins[1], base).await;
    let (call, call_closed) = finish_trace(ctx, out.map(|o| vec![o]))?;
    let ins = ctx.begin_trace(&[aval.clone(), aval.clone(), aval.clone(), aval]);
    let rule = logaddexp_rule(ctx, &ins, base).await;
    let (rule, rule_closed) = finish_trace(ctx, rule)?;
    let function = std::rc::Rc::new(jaxlite::prim::CustomJvp {
        name: if base == Base::E { "logaddexp" } else { "logaddexp2" }.into(),
        rule_name: if base == Base::E { "_logaddexp_jvp" } else { "_logaddexp2_jvp" }.into(),
        call_consts: call_closed.len(),
        call,
        rule: jaxlite::prim::JvpRule::Traced { jaxpr: rule, consts: rule_closed.len() },
    });
    let mut operands = call_closed;
    operands.extend(rule_closed);
    operands.extend([x1, x2]);
    let prim = Primitive::CustomJvpCall { function };
    Ok(ctx.bind(prim, &operands).await?.remove(0))
}

/// Ends the trace begun for a custom rule's part, or abandons it when tracing failed.
fn finish_trace(ctx: &mut Context, outs: R<Vec<Tensor>>) -> R<(jaxlite::Jaxpr, Vec<Tensor>)> {
    let outs = match outs {
        Ok(outs) => outs,
        Err(e) => {
            ctx.abort_trace();
            return Err(e);
        }
    };
    match ctx.end_trace_open(&outs) {
        Ok(done) => Ok(done),
        Err(e) => {
            ctx.abort_trace();
            Err(e.into())
        }
    }
}

/// JAX's formula, in its order: max + log1p(exp(−|x1 − x2|)) (in base 2, max +
/// log1p(exp2(−|x1 − x2|)) / ln 2), or x1 + x2 where the difference is NaN (infinities of one
/// sign, or a NaN).
async fn logaddexp_formula(ctx: &mut Context, x1: &Tensor, x2: &Tensor, base: Base) -> R<Tensor> {
    let amax = bin(ctx, BinaryOp::Max, x1, x2).await?;
    let delta = bin(ctx, BinaryOp::Sub, x1, x2).await?;
    let nan = cmp(ctx, CompareOp::Ne, &delta, &delta).await?;
    let sum = bin(ctx, BinaryOp::Add, x1, x2).await?;
    let magnitude = un(ctx, UnaryOp::Abs, &delta).await?;
    let minus = un(ctx, UnaryOp::Neg, &magnitude).await?;
    let e = un(ctx, base.exp(), &minus).await?;
    let mut l = un(ctx, UnaryOp::Log1p, &e).await?;
    if base == Base::Two {
        let inverse_ln2 = constant(ctx, (1.0 / std::f64::consts::LN_2) as f32, &l).await?;
        l = bin(ctx, BinaryOp::Mul, &inverse_ln2, &l).await?;
    }
    let value = bin(ctx, BinaryOp::Add, &amax, &l).await?;
    Ok(jnp::where_(ctx, &nan, &sum, &value).await?)
}

/// `_logaddexp_jvp`: (x1, x2, t1, t2) → (out, t1·exp(x1 − out) + t2·exp(x2 − out)), each +∞
/// replaced by zero first (`_logaddexp2_jvp`: exp2, as JAX writes it).
async fn logaddexp_rule(ctx: &mut Context, ins: &[Tensor], base: Base) -> R<Vec<Tensor>> {
    let [x1, x2, t1, t2] = ins else { return err("logaddexp's rule takes two primals and two tangents") };
    let out = logaddexp_formula(ctx, x1, x2, base).await?;
    let finite_out = replace_inf(ctx, &out).await?;
    let mut tangent = None;
    for (x, t) in [(x1, t1), (x2, t2)] {
        let finite_x = replace_inf(ctx, x).await?;
        let d = bin(ctx, BinaryOp::Sub, &finite_x, &finite_out).await?;
        let w = un(ctx, base.exp(), &d).await?;
        let term = bin(ctx, BinaryOp::Mul, t, &w).await?;
        tangent = Some(match tangent {
            None => term,
            Some(sum) => bin(ctx, BinaryOp::Add, &sum, &term).await?,
        });
    }
    Ok(vec![out, tangent.unwrap_or_else(|| t1.clone())])
}

/// `x` with +∞ replaced by zero (JAX's `_replace_inf`; −∞ stays, so its weight is 0).
async fn replace_inf(ctx: &mut Context, x: &Tensor) -> R<Tensor> {
    let inf = constant(ctx, f32::INFINITY, x).await?;
    let infinite = cmp(ctx, CompareOp::Eq, x, &inf).await?;
    let zero = constant(ctx, 0.0, x).await?;
    let zero = jnp::broadcast_to(ctx, &zero, &x.aval().shape).await?;
    Ok(jnp::where_(ctx, &infinite, &zero, x).await?)
}
