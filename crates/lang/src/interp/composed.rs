//! `jax.numpy` functions that JAX writes in Python over other `jnp` functions, written here the
//! same way: each calls the playground's own `jnp` functions (through the dispatcher a
//! script's call goes through), so values, promotion, tracing, gradients and batching are
//! theirs. `fmax`, `fmin`, `ptp`, `sinc`, `logspace`, `polyval`, `cross`, `convolve`,
//! `correlate`, `interp`, `trapezoid`, `vecdot`, `matvec`, `vecmat`, `cumulative_sum`,
//! `unstack`, `broadcast_arrays`, `rot90`, `tri`, `tril_indices`, `triu_indices`, `append`,
//! `isin`, `array_split`, `hsplit`, `vsplit`, `dsplit`, `dstack`, `astype`, `copy`,
//! `empty_like`, `positive`.

use super::builtins::{no_more_kwargs, take_kwarg};
use super::jax::{dtype_arg, int_arg};
use super::value::{repr, Value};
use super::{err, Interp, R};
use crate::ast::BinOp;
use jaxlite::numpy::{self as jnp, ConvDilation, ConvPadding};
use jaxlite::{Array, DType, Data, LocalFuture, Tensor};

/// `jax.numpy` names implemented here.
pub const JNP_COMPOSED: &[&str] = &[
    "fmax",
    "fmin",
    "ptp",
    "sinc",
    "logspace",
    "polyval",
    "cross",
    "convolve",
    "correlate",
    "interp",
    "trapezoid",
    "vecdot",
    "matvec",
    "vecmat",
    "cumulative_sum",
    "unstack",
    "broadcast_arrays",
    "rot90",
    "tri",
    "tril_indices",
    "triu_indices",
    "append",
    "isin",
    "array_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "dstack",
    "astype",
    "copy",
    "empty_like",
    "positive",
];

pub(super) fn int(v: i64) -> Value {
    Value::Int(v)
}

fn ints(vs: &[i64]) -> Value {
    Value::tuple(vs.iter().map(|&v| Value::Int(v)).collect())
}

pub(super) fn kw(name: &str, v: Value) -> (String, Value) {
    (name.to_string(), v)
}

/// An int32 vector of `values` (indices the host computes).
fn int32_vector(values: Vec<i32>) -> Value {
    Value::array(Array::new(vec![values.len()], Data::I32(values)))
}

impl Interp<'_, '_> {
    /// `jnp.NAME(*args, **kwargs)`, as a script calls it.
    pub(super) async fn np(&mut self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Value> {
        self.call_jnp(name, args, kwargs).await
    }

    /// `x` as an array of a float dtype (integers and booleans promoted, as JAX's inexact ops do).
    pub(super) async fn inexact(&mut self, x: Value) -> R<Value> {
        let t = self.to_tensor(&x)?;
        Ok(Value::Array(super::numeric::inexact(self.ctx, &t).await?))
    }

    /// `jnp.NAME(*args)`.
    pub(super) async fn np1(&mut self, name: &str, args: Vec<Value>) -> R<Value> {
        self.call_jnp(name, args, vec![]).await
    }

    /// `x[..., k]`: the element `k` of the last axis.
    async fn last_axis_at(&mut self, x: &Value, k: usize) -> R<Value> {
        let t = self.to_tensor(x)?;
        let rank = t.aval().rank();
        let part = super::arrange::slice_axis(self.ctx, &t, rank - 1, k, k + 1).await?;
        let shape: Vec<i64> = t.aval().shape[..rank - 1].iter().map(|&d| d as i64).collect();
        Ok(Value::Array(jnp::reshape(self.ctx, &part, &shape).await?))
    }

    /// `x[..., lo:hi]`.
    async fn last_axis_slice(&mut self, x: &Value, lo: usize, hi: usize) -> R<Value> {
        let t = self.to_tensor(x)?;
        let rank = t.aval().rank();
        Ok(Value::Array(super::arrange::slice_axis(self.ctx, &t, rank - 1, lo, hi).await?))
    }

    pub(super) fn call_composed<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let first = match name {
                "fmax" | "fmin" | "vecdot" | "matvec" | "vecmat" | "positive" | "sinc" | "cumulative_sum"
                | "unstack" | "astype" => "x",
                "polyval" => "p",
                "interp" => "x",
                "trapezoid" => "y",
                "isin" => "element",
                "rot90" => "m",
                "tri" => "N",
                "tril_indices" | "triu_indices" => "n",
                "append" => "arr",
                "array_split" | "hsplit" | "vsplit" | "dsplit" => "ary",
                "dstack" => "tup",
                "empty_like" => "prototype",
                _ => "a",
            };
            let missing = || super::RtError::new(format!("{name}() missing 1 required positional argument: '{first}'"));
            // `broadcast_arrays(*args)` takes arrays only.
            if name == "broadcast_arrays" {
                no_more_kwargs(name, &kwargs)?;
                let tensors = args.iter().map(|v| self.to_tensor(v)).collect::<R<Vec<_>>>()?;
                let mut shape: Vec<usize> = vec![];
                for t in &tensors {
                    shape = jnp::broadcast_shapes("broadcast_arrays", &shape, &t.aval().shape)?;
                }
                let mut out = Vec::new();
                for t in &tensors {
                    out.push(Value::Array(jnp::broadcast_to(self.ctx, t, &shape).await?));
                }
                return Ok(Value::list(out));
            }
            let x = arg(0, first).ok_or_else(missing)?;
            let out = match name {
                // x1 where it is greater (fmin: less) or x2 is NaN, else x2: NaN only where both are.
                "fmax" | "fmin" => {
                    let y = arg(1, "x2").ok_or_else(|| super::RtError::new(format!("{name}() takes two arrays")))?;
                    no_more_kwargs(name, &kwargs)?;
                    let ordered =
                        self.np1(if name == "fmax" { "greater" } else { "less" }, vec![x.clone(), y.clone()]).await?;
                    let nan = self.np1("isnan", vec![y.clone()]).await?;
                    let mask = self.np1("logical_or", vec![ordered, nan]).await?;
                    self.np1("where", vec![mask, x, y]).await?
                }
                // max − min.
                "ptp" => {
                    let (axis, keepdims) = (arg(1, "axis").unwrap_or(Value::None), arg(3, "keepdims"));
                    let keepdims = keepdims.unwrap_or(Value::Bool(false));
                    no_more_kwargs(name, &kwargs)?;
                    let options = vec![kw("axis", axis), kw("keepdims", keepdims)];
                    let hi = self.np("max", vec![x.clone()], options.clone()).await?;
                    let lo = self.np("min", vec![x], options).await?;
                    self.binary(BinOp::Sub, hi, lo).await?
                }
                // sin(πx)/(πx), 1 at 0 (πx replaced by 1 there, so no 0/0 reaches a gradient).
                "sinc" => {
                    no_more_kwargs(name, &kwargs)?;
                    let x = self.inexact(x).await?;
                    let zero = self.np1("equal", vec![x.clone(), Value::Float(0.0)]).await?;
                    let pi = Value::Float(f64::from(std::f32::consts::PI));
                    let pi_x = self.binary(BinOp::Mul, pi, x).await?;
                    let safe = self.np1("where", vec![zero.clone(), Value::Float(1.0), pi_x]).await?;
                    let sin = self.np1("sin", vec![safe.clone()]).await?;
                    let ratio = self.binary(BinOp::Div, sin, safe).await?;
                    self.np1("where", vec![zero, Value::Float(1.0), ratio]).await?
                }
                // base ** linspace(start, stop, num).
                "logspace" => {
                    let stop = arg(1, "stop").ok_or_else(|| super::RtError::new("logspace() needs start and stop"))?;
                    let num = arg(2, "num").unwrap_or(int(50));
                    let endpoint = arg(3, "endpoint").unwrap_or(Value::Bool(true));
                    let base = arg(4, "base").unwrap_or(Value::Float(10.0));
                    let dtype = arg(5, "dtype");
                    no_more_kwargs(name, &kwargs)?;
                    let lin = self.np1("linspace", vec![x, stop, num, endpoint]).await?;
                    let out = self.np1("power", vec![base, lin]).await?;
                    match dtype {
                        Some(d) if !matches!(d, Value::None) => self.np1("astype", vec![out, d]).await?,
                        _ => out,
                    }
                }
                // Horner's rule from the leading coefficient: y = y·x + p[i].
                "polyval" => {
                    let at = arg(1, "x").ok_or_else(|| super::RtError::new("polyval() takes p and x"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let p = self.to_tensor(&x)?;
                    let at = self.to_tensor(&at)?;
                    let (pa, xa) = (p.aval().clone(), at.aval().clone());
                    if pa.rank() == 0 {
                        return err("polyval: p must be an array of coefficients (at least 1-D)");
                    }
                    let (dtype, _) = jaxlite::dtype::promote(pa.dtype, pa.weak_type, xa.dtype, xa.weak_type);
                    let p = jnp::astype(self.ctx, &p, dtype).await?;
                    let at = Value::Array(jnp::astype(self.ctx, &at, dtype).await?);
                    let shape = jnp::broadcast_shapes("polyval", &pa.shape[1..], &xa.shape)?;
                    let mut y = Value::array(jnp::full(&shape, 0.0, dtype));
                    let rest: Vec<i64> = pa.shape[1..].iter().map(|&d| d as i64).collect();
                    for i in 0..pa.shape[0] {
                        let row = super::arrange::slice_axis(self.ctx, &p, 0, i, i + 1).await?;
                        let row = Value::Array(jnp::reshape(self.ctx, &row, &rest).await?);
                        let scaled = self.binary(BinOp::Mul, y, at.clone()).await?;
                        y = self.binary(BinOp::Add, scaled, row).await?;
                    }
                    y
                }
                "cross" => {
                    let b = arg(1, "b").ok_or_else(|| super::RtError::new("cross() takes two arrays"))?;
                    let mut axes = [arg(2, "axisa"), arg(3, "axisb"), arg(4, "axisc")]
                        .map(|v| v.map_or(Ok(-1), |v| int_arg(&v)))
                        .into_iter()
                        .collect::<R<Vec<i64>>>()?;
                    if let Some(v) = arg(5, "axis").filter(|v| !matches!(v, Value::None)) {
                        axes = vec![int_arg(&v)?; 3];
                    }
                    no_more_kwargs(name, &kwargs)?;
                    let a = self.np1("moveaxis", vec![x, int(axes[0]), int(-1)]).await?;
                    let b = self.np1("moveaxis", vec![b, int(axes[1]), int(-1)]).await?;
                    let (n, m) = (
                        self.to_tensor(&a)?.aval().shape.last().copied(),
                        self.to_tensor(&b)?.aval().shape.last().copied(),
                    );
                    if !matches!(n, Some(2 | 3)) || !matches!(m, Some(2 | 3)) {
                        return super::value_err("Dimension must be either 2 or 3 for cross product");
                    }
                    let (a0, a1) = (self.last_axis_at(&a, 0).await?, self.last_axis_at(&a, 1).await?);
                    let (b0, b1) = (self.last_axis_at(&b, 0).await?, self.last_axis_at(&b, 1).await?);
                    let p = self.binary(BinOp::Mul, a0.clone(), b1.clone()).await?;
                    let q = self.binary(BinOp::Mul, a1.clone(), b0.clone()).await?;
                    let c2 = self.binary(BinOp::Sub, p, q).await?;
                    if n == Some(2) && m == Some(2) {
                        return Ok(c2);
                    }
                    let a2 = if n == Some(3) {
                        self.last_axis_at(&a, 2).await?
                    } else {
                        self.np1("zeros_like", vec![a0.clone()]).await?
                    };
                    let b2 = if m == Some(3) {
                        self.last_axis_at(&b, 2).await?
                    } else {
                        self.np1("zeros_like", vec![b0.clone()]).await?
                    };
                    let mut parts = Vec::new();
                    for (u, v, s, t) in [(&a1, &b2, &a2, &b1), (&a2, &b0, &a0, &b2)] {
                        let p = self.binary(BinOp::Mul, u.clone(), v.clone()).await?;
                        let q = self.binary(BinOp::Mul, s.clone(), t.clone()).await?;
                        parts.push(self.binary(BinOp::Sub, p, q).await?);
                    }
                    parts.push(c2);
                    let c = self.np1("stack", vec![Value::list(parts)]).await?;
                    self.np1("moveaxis", vec![c, int(0), int(axes[2])]).await?
                }
                // A 1-D convolution on the matrix unit, as JAX's: the shorter operand is the
                // kernel (flipped for convolve), padded for the mode.
                "convolve" | "correlate" => {
                    let v = arg(1, "v").ok_or_else(|| super::RtError::new(format!("{name}() takes two arrays")))?;
                    let mode = arg(2, "mode");
                    let precision = super::jax::precision_arg(take_kwarg(&mut kwargs, "precision"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let mode = match &mode {
                        None => if name == "convolve" { "full" } else { "valid" }.to_string(),
                        Some(Value::Str(s)) => s.to_string(),
                        Some(other) => return err(format!("{name}: mode must be a string, got {}", repr(other))),
                    };
                    let (a, v) = (self.to_tensor(&x)?, self.to_tensor(&v)?);
                    if a.aval().rank() != 1 || v.aval().rank() != 1 {
                        return err(format!("{name}() only support 1-dimensional inputs."));
                    }
                    let (na, nv) = (a.aval().shape[0], v.aval().shape[0]);
                    if na == 0 || nv == 0 {
                        return super::value_err(format!(
                            "{name}: inputs cannot be empty, got shapes ({na},) and ({nv},)."
                        ));
                    }
                    let (ad, vd) = (a.aval(), v.aval());
                    let (promoted, _) = self.ctx.promote(ad, vd);
                    // JAX convolves integers as floats; NumPy keeps their type (exact in
                    // float64, which the host computes in, below 2^53).
                    let dtype = if promoted.is_float() { promoted } else { self.ctx.default_float() };
                    let result_dtype = if self.ctx.on_host() { promoted } else { dtype };
                    let (a, v) = (jnp::astype(self.ctx, &a, dtype).await?, jnp::astype(self.ctx, &v, dtype).await?);
                    let swapped = na < nv;
                    let (a, v) = if swapped { (v, a) } else { (a, v) };
                    let v = if name == "convolve" {
                        let flipped = self.np1("flip", vec![Value::Array(v)]).await?;
                        self.to_tensor(&flipped)?
                    } else {
                        v
                    };
                    let k = v.aval().shape[0] as i64;
                    let pad = match mode.as_str() {
                        "valid" => (0, 0),
                        "same" => (k / 2, k - k / 2 - 1),
                        "full" => (k - 1, k - 1),
                        other => {
                            return super::value_err(format!(
                                "mode must be one of ['full', 'same', 'valid'], got '{other}'"
                            ))
                        }
                    };
                    let n = a.aval().shape[0] as i64;
                    let lhs = jnp::reshape(self.ctx, &a, &[1, 1, 1, n]).await?;
                    let rhs = jnp::reshape(self.ctx, &v, &[1, 1, 1, k]).await?;
                    let padding = ConvPadding::Explicit(vec![(0, 0), pad]);
                    let specs = ["NCHW", "OIHW", "NCHW"];
                    let out =
                        jnp::conv(self.ctx, &lhs, &rhs, &[1, 1], &padding, ConvDilation::default(), specs, precision)
                            .await?;
                    let mut out = jnp::reshape(self.ctx, &out, &[-1]).await?;
                    if result_dtype != dtype {
                        out = jnp::astype(self.ctx, &out, result_dtype).await?;
                    }
                    let out = Value::Array(out);
                    if swapped && name == "correlate" {
                        self.np1("flip", vec![out]).await?
                    } else {
                        out
                    }
                }
                "interp" => {
                    self.interp(x, arg(1, "xp"), arg(2, "fp"), arg(3, "left"), arg(4, "right"), arg(5, "period"))
                        .await?
                }
                // ½ Σ Δx · (y[i+1] + y[i]) along the axis.
                "trapezoid" => {
                    let xs = arg(1, "x").filter(|v| !matches!(v, Value::None));
                    let dx = arg(2, "dx").unwrap_or(Value::Float(1.0));
                    let axis = arg(3, "axis").map_or(Ok(-1), |v| int_arg(&v))?;
                    no_more_kwargs(name, &kwargs)?;
                    let y = self.np1("moveaxis", vec![x, int(axis), int(-1)]).await?;
                    let n = self.to_tensor(&y)?.aval().shape.last().copied().unwrap_or(0);
                    if n == 0 {
                        return super::value_err("trapezoid: the axis is empty");
                    }
                    let dx = match xs {
                        Some(xs) => {
                            let xs = self.np1("moveaxis", vec![xs, int(axis), int(-1)]).await?;
                            self.np1("diff", vec![xs]).await?
                        }
                        None => dx,
                    };
                    let hi = self.last_axis_slice(&y, 1, n).await?;
                    let lo = self.last_axis_slice(&y, 0, n - 1).await?;
                    let sum = self.binary(BinOp::Add, hi, lo).await?;
                    let terms = self.binary(BinOp::Mul, dx, sum).await?;
                    let total = self.np("sum", vec![terms], vec![kw("axis", int(-1))]).await?;
                    self.binary(BinOp::Mul, Value::Float(0.5), total).await?
                }
                // Products over the last axes, batched over the leading ones (broadcast).
                "vecdot" | "matvec" | "vecmat" => {
                    let y = arg(1, "x2").ok_or_else(|| super::RtError::new(format!("{name}() takes two arrays")))?;
                    let axis = if name == "vecdot" { arg(2, "axis").map_or(Ok(-1), |v| int_arg(&v))? } else { -1 };
                    let precision = take_kwarg(&mut kwargs, "precision");
                    no_more_kwargs(name, &kwargs)?;
                    let (x, y) = if name == "vecdot" {
                        let (xt, yt) = (self.to_tensor(&x)?, self.to_tensor(&y)?);
                        let size = |t: &Tensor| {
                            let r = t.aval().rank() as i64;
                            let a = if axis < 0 { axis + r } else { axis };
                            (0..r).contains(&a).then(|| t.aval().shape[a as usize])
                        };
                        if size(&xt).is_none() || size(&xt) != size(&yt) {
                            return err(format!(
                                "axes must match; got shapes {} and {} with axis={axis}",
                                jnp::shape_str(&xt.aval().shape),
                                jnp::shape_str(&yt.aval().shape)
                            ));
                        }
                        let x = self.np1("moveaxis", vec![x, int(axis), int(-1)]).await?;
                        let y = self.np1("moveaxis", vec![y, int(axis), int(-1)]).await?;
                        (x, y)
                    } else {
                        (x, y)
                    };
                    let spec = match name {
                        "vecdot" => "...i,...i->...",
                        "matvec" => "...ij,...j->...i",
                        _ => "...i,...ij->...j",
                    };
                    let options = precision.map(|p| vec![kw("precision", p)]).unwrap_or_default();
                    self.np("einsum", vec![Value::str(spec), x, y], options).await?
                }
                "cumulative_sum" => {
                    let axis = arg(1, "axis").filter(|v| !matches!(v, Value::None));
                    let dtype = arg(2, "dtype");
                    let initial = match arg(3, "include_initial") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let rank = self.to_tensor(&x)?.aval().rank() as i64;
                    if rank == 0 {
                        return super::value_err("The input must be non-scalar to take a cumulative sum, however a scalar value or scalar array was given.");
                    }
                    let axis = match axis {
                        Some(v) => int_arg(&v)?,
                        None if rank == 1 => 0,
                        None => {
                            return err(format!(
                                "The input array has rank {rank}, however axis was not set to an explicit value. The axis argument is only optional for one-dimensional arrays."
                            ))
                        }
                    };
                    let x = match dtype.filter(|d| !matches!(d, Value::None)) {
                        Some(d) => self.np1("astype", vec![x, d]).await?,
                        None => x,
                    };
                    let out = self.np("cumsum", vec![x], vec![kw("axis", int(axis))]).await?;
                    if initial {
                        let t = self.to_tensor(&out)?;
                        let a = if axis < 0 { axis + rank } else { axis } as usize;
                        let mut shape = t.aval().shape.clone();
                        shape[a] = 1;
                        let zeros = Value::array(jnp::full(&shape, 0.0, t.aval().dtype));
                        self.np("concatenate", vec![Value::list(vec![zeros, out])], vec![kw("axis", int(axis))]).await?
                    } else {
                        out
                    }
                }
                // The slices along the axis, as a tuple.
                "unstack" => {
                    let axis = arg(1, "axis").map_or(Ok(0), |v| int_arg(&v))?;
                    no_more_kwargs(name, &kwargs)?;
                    let moved = self.np1("moveaxis", vec![x, int(axis), int(0)]).await?;
                    let t = self.to_tensor(&moved)?;
                    let (n, rest) = (
                        t.aval().shape.first().copied(),
                        t.aval().shape.iter().skip(1).map(|&d| d as i64).collect::<Vec<_>>(),
                    );
                    let Some(n) = n else {
                        return super::value_err(
                            "Unstack requires arrays with rank > 0, however a scalar array was passed.",
                        );
                    };
                    let mut parts = Vec::new();
                    for i in 0..n {
                        let row = super::arrange::slice_axis(self.ctx, &t, 0, i, i + 1).await?;
                        parts.push(Value::Array(jnp::reshape(self.ctx, &row, &rest).await?));
                    }
                    Value::tuple(parts)
                }
                // k quarter turns from the first axis towards the second: flips and a transpose.
                "rot90" => {
                    let k = arg(1, "k").map_or(Ok(1), |v| int_arg(&v))?;
                    let axes = match arg(2, "axes") {
                        None => (0, 1),
                        Some(v) => match super::jax::axes_arg(Some(&v))?.as_deref() {
                            Some(&[p, q]) => (p, q),
                            _ => return err(format!("rot90: axes must be two axes, got {}", repr(&v))),
                        },
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let rank = self.to_tensor(&x)?.aval().rank() as i64;
                    if rank < 2 {
                        let shape = jnp::shape_str(&self.to_tensor(&x)?.aval().shape);
                        return err(format!(
                            "rot90 requires its first argument to have ndim at least two, but got first argument of shape {shape}, which has ndim {rank}"
                        ));
                    }
                    let fix = |a: i64| if a < 0 { a + rank } else { a };
                    let (p, q) = (fix(axes.0), fix(axes.1));
                    if !(0..rank).contains(&p) || !(0..rank).contains(&q) {
                        return super::index_err(format!(
                            "rot90: axes {axes:?} out of bounds for an array of rank {rank}"
                        ));
                    }
                    if p == q {
                        return super::value_err("Axes must be different");
                    }
                    let mut perm: Vec<i64> = (0..rank).collect();
                    perm.swap(p as usize, q as usize);
                    match k.rem_euclid(4) {
                        0 => x,
                        2 => {
                            let f = self.np1("flip", vec![x, int(p)]).await?;
                            self.np1("flip", vec![f, int(q)]).await?
                        }
                        1 => {
                            let f = self.np1("flip", vec![x, int(q)]).await?;
                            self.np1("transpose", vec![f, ints(&perm)]).await?
                        }
                        _ => {
                            let t = self.np1("transpose", vec![x, ints(&perm)]).await?;
                            self.np1("flip", vec![t, int(q)]).await?
                        }
                    }
                }
                // Ones on and below the k-th diagonal.
                "tri" => {
                    let n = int_arg(&x)?;
                    let m = match arg(1, "M") {
                        None | Some(Value::None) => n,
                        Some(v) => int_arg(&v)?,
                    };
                    let k = arg(2, "k").map_or(Ok(0), |v| int_arg(&v))?;
                    let dtype = match arg(3, "dtype") {
                        None | Some(Value::None) => self.ctx.default_float(),
                        Some(v) => dtype_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let shape = super::jax::shape_arg(&ints(&[n, m]))?;
                    let values: Vec<f32> =
                        (0..n).flat_map(|i| (0..m).map(move |j| if j <= i + k { 1.0 } else { 0.0 })).collect();
                    Value::array(Array::new(shape, Data::F32(values)).astype(dtype))
                }
                // The (row, column) indices of a triangle, computed on the host (int32).
                "tril_indices" | "triu_indices" => {
                    let n = int_arg(&x)?;
                    let k = arg(1, "k").map_or(Ok(0), |v| int_arg(&v))?;
                    let m = match arg(2, "m") {
                        None | Some(Value::None) => n,
                        Some(v) => int_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    super::jax::shape_arg(&ints(&[n, m]))?;
                    let inside = |i: i64, j: i64| if name == "tril_indices" { j <= i + k } else { j >= i + k };
                    let (rows, cols): (Vec<i32>, Vec<i32>) = (0..n)
                        .flat_map(|i| (0..m).filter(move |&j| inside(i, j)).map(move |j| (i as i32, j as i32)))
                        .unzip();
                    Value::tuple(vec![int32_vector(rows), int32_vector(cols)])
                }
                "append" => {
                    let values =
                        arg(1, "values").ok_or_else(|| super::RtError::new("append() takes arr and values"))?;
                    let axis = arg(2, "axis").filter(|v| !matches!(v, Value::None));
                    no_more_kwargs(name, &kwargs)?;
                    match axis {
                        None => {
                            let a = self.np1("ravel", vec![x]).await?;
                            let b = self.np1("ravel", vec![values]).await?;
                            self.np1("concatenate", vec![Value::list(vec![a, b])]).await?
                        }
                        Some(axis) => {
                            self.np("concatenate", vec![Value::list(vec![x, values])], vec![kw("axis", axis)]).await?
                        }
                    }
                }
                // Each element compared with every test element (JAX's method for small sets).
                "isin" => {
                    let test = arg(1, "test_elements").ok_or_else(|| super::RtError::new("isin() takes two arrays"))?;
                    let _ = arg(2, "assume_unique");
                    let invert = match arg(3, "invert") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let shape: Vec<i64> = self.to_tensor(&x)?.aval().shape.iter().map(|&d| d as i64).collect();
                    let flat = self.np1("ravel", vec![x]).await?;
                    let column = self.np1("expand_dims", vec![flat, int(1)]).await?;
                    let test = self.np1("ravel", vec![test]).await?;
                    let equal = self.np1("equal", vec![column, test]).await?;
                    let found = self.np("any", vec![equal], vec![kw("axis", int(-1))]).await?;
                    let found = if invert { self.np1("logical_not", vec![found]).await? } else { found };
                    self.np1("reshape", vec![found, ints(&shape)]).await?
                }
                "array_split" | "hsplit" | "vsplit" | "dsplit" => {
                    let sections = arg(1, "indices_or_sections").ok_or_else(|| {
                        super::RtError::new(format!("{name}() missing argument 'indices_or_sections'"))
                    })?;
                    let rank = self.to_tensor(&x)?.aval().rank();
                    let axis = match name {
                        "array_split" => arg(2, "axis").map_or(Ok(0), |v| int_arg(&v))?,
                        "hsplit" if rank == 1 => 0,
                        "hsplit" => 1,
                        "vsplit" => 0,
                        _ => 2,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let least = match name {
                        "vsplit" => 2,
                        "dsplit" => 3,
                        _ => 1,
                    };
                    if rank < least {
                        return super::value_err(format!("{name} only works on arrays of {least} or more dimensions"));
                    }
                    let t = self.to_tensor(&x)?;
                    let a = if axis < 0 { axis + rank as i64 } else { axis };
                    let Some(&len) = usize::try_from(a).ok().and_then(|a| t.aval().shape.get(a)) else {
                        return super::index_err(format!("axis {axis} is out of bounds for array of dimension {rank}"));
                    };
                    // array_split's equal-ish sections: the first len % n one longer.
                    let indices = match (&sections, name) {
                        (Value::Int(n), "array_split") => {
                            if *n <= 0 {
                                return super::value_err("number sections must be larger than 0.");
                            }
                            let (n, len) = (*n as usize, len);
                            let (each, extra) = (len / n, len % n);
                            let mut at = 0;
                            let cuts: Vec<Value> = (0..n - 1)
                                .map(|i| {
                                    at += each + usize::from(i < extra);
                                    int(at as i64)
                                })
                                .collect();
                            Value::list(cuts)
                        }
                        _ => sections,
                    };
                    self.np("split", vec![x, indices], vec![kw("axis", int(axis))]).await?
                }
                "dstack" => {
                    no_more_kwargs(name, &kwargs)?;
                    let mut parts = Vec::new();
                    for v in self.iterate(&x)? {
                        parts.push(self.np1("atleast_3d", vec![v]).await?);
                    }
                    self.np("concatenate", vec![Value::list(parts)], vec![kw("axis", int(2))]).await?
                }
                "astype" => {
                    let dtype =
                        arg(1, "dtype").ok_or_else(|| super::RtError::new("astype() missing argument 'dtype'"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let t = self.to_tensor(&x)?;
                    Value::Array(jnp::astype(self.ctx, &t, super::jax::requested_dtype(&dtype)?).await?)
                }
                "copy" => {
                    no_more_kwargs(name, &kwargs)?;
                    let t = self.to_tensor(&x)?;
                    Value::Array(self.copied(&t).await?)
                }
                "empty_like" => {
                    let dtype = arg(1, "dtype");
                    let shape = arg(2, "shape");
                    no_more_kwargs(name, &kwargs)?;
                    let mut options = Vec::new();
                    if let Some(d) = dtype {
                        options.push(kw("dtype", d));
                    }
                    if let Some(s) = shape {
                        options.push(kw("shape", s));
                    }
                    self.np("zeros_like", vec![x], options).await?
                }
                "positive" => {
                    no_more_kwargs(name, &kwargs)?;
                    let t = self.to_tensor(&x)?;
                    if t.aval().dtype == DType::Bool {
                        return err("positive does not accept dtype bool.");
                    }
                    Value::Array(t)
                }
                _ => return super::unsupported(format!("jnp.{name} is not supported by the playground yet")),
            };
            Ok(out)
        })
    }

    /// `jnp.interp(x, xp, fp, left, right)`: JAX's formula, the interval found by
    /// `searchsorted`, a gap narrower than float32's `spacing(eps)` taking its left value.
    async fn interp(
        &mut self,
        x: Value,
        xp: Option<Value>,
        fp: Option<Value>,
        left: Option<Value>,
        right: Option<Value>,
        period: Option<Value>,
    ) -> R<Value> {
        let (Some(xp), Some(fp)) = (xp, fp) else { return err("interp() takes x, xp and fp") };
        if period.is_some_and(|p| !matches!(p, Value::None)) {
            return super::unsupported("interp: period= is not supported by the playground yet");
        }
        let (x, xp, fp) = (self.inexact(x).await?, self.inexact(xp).await?, self.inexact(fp).await?);
        let (nx, nf) = (self.to_tensor(&xp)?.aval().shape.clone(), self.to_tensor(&fp)?.aval().shape.clone());
        if nx.len() != 1 || nf.len() != 1 || nx != nf || nx[0] == 0 {
            return err(format!(
                "xp and fp must be one-dimensional arrays of equal size, got {} and {}",
                jnp::shape_str(&nx),
                jnp::shape_str(&nf)
            ));
        }
        let n = nx[0] as i64;
        let found = self.np("searchsorted", vec![xp.clone(), x.clone()], vec![kw("side", Value::str("right"))]).await?;
        let i = self.np1("clip", vec![found, int(1), int(n - 1)]).await?;
        let before = self.binary(BinOp::Sub, i.clone(), int(1)).await?;
        let (fp_i, fp_b) = (
            self.np1("take", vec![fp.clone(), i.clone()]).await?,
            self.np1("take", vec![fp.clone(), before.clone()]).await?,
        );
        let (xp_i, xp_b) =
            (self.np1("take", vec![xp.clone(), i]).await?, self.np1("take", vec![xp.clone(), before]).await?);
        let df = self.binary(BinOp::Sub, fp_i, fp_b.clone()).await?;
        let dx = self.binary(BinOp::Sub, xp_i, xp_b.clone()).await?;
        let delta = self.binary(BinOp::Sub, x.clone(), xp_b).await?;
        // np.spacing(np.finfo(float32).eps): the gap after 2^-23, 2^-46.
        let epsilon = Value::Float(2f64.powi(-46));
        let gap = self.np1("abs", vec![dx.clone()]).await?;
        let narrow = self.np1("less_equal", vec![gap, epsilon]).await?;
        let safe = self.np1("where", vec![narrow.clone(), Value::Float(1.0), dx]).await?;
        let slope = self.binary(BinOp::Div, delta, safe).await?;
        let rise = self.binary(BinOp::Mul, slope, df).await?;
        let value = self.binary(BinOp::Add, fp_b.clone(), rise).await?;
        let f = self.np1("where", vec![narrow, fp_b, value]).await?;
        let (first, last) =
            (self.np1("take", vec![xp.clone(), int(0)]).await?, self.np1("take", vec![xp, int(n - 1)]).await?);
        let below = self.np1("less", vec![x.clone(), first]).await?;
        let left = match left.filter(|v| !matches!(v, Value::None)) {
            Some(v) => v,
            None => self.np1("take", vec![fp.clone(), int(0)]).await?,
        };
        let f = self.np1("where", vec![below, left, f]).await?;
        let above = self.np1("greater", vec![x, last]).await?;
        let right = match right.filter(|v| !matches!(v, Value::None)) {
            Some(v) => v,
            None => self.np1("take", vec![fp, int(n - 1)]).await?,
        };
        self.np1("where", vec![above, right, f]).await
    }
}
