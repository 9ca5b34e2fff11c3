//! The rest of the array API: more of `jax.numpy`, `jax.nn` and `jax.lax`, as compositions of
//! `jaxlite::numpy` (so every one of them traces, differentiates and batches).

use super::builtins::{arity, no_more_kwargs, take_kwarg};
use super::control::{Conditional, ScanBody, ScanOptions};
use super::jax::{axes_arg, int_arg, precision_arg};
use super::value::Value;
use super::{err, unsupported, Interp, R};
use jaxlite::numpy::{self as jnp, Reduction};
use jaxlite::{Array, BinaryOp, CompareOp, DType, LocalFuture, Primitive, Tensor, UnaryOp};

/// `jax.numpy` names implemented here.
pub const JNP_MORE: &[&str] = &[
    "sin",
    "cos",
    "log1p",
    "expm1",
    "exp2",
    "sign",
    "floor",
    "ceil",
    "round",
    "square",
    "power",
    "arctan2",
    "take",
    "take_along_axis",
    "prod",
    "set_printoptions",
    "get_printoptions",
    "remainder",
    "mod",
    "floor_divide",
    "fmod",
    "divmod",
    "where",
    "min",
    "argmax",
    "argmin",
    "clip",
    "var",
    "std",
    "expand_dims",
    "squeeze",
    "cumsum",
    "concatenate",
    "stack",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "einsum",
    "broadcast_to",
    "outer",
    "isnan",
    "swapaxes",
    "linspace",
    "eye",
    "split",
    "tensordot",
    "allclose",
    "tril",
    "triu",
];

/// The `JNP_MORE` functions with keyword arguments of their own.
const OWN_KWARGS: &[&str] =
    &["linspace", "eye", "split", "tensordot", "allclose", "tril", "triu", "take", "take_along_axis"];

/// The most factors `jnp.prod` multiplies (one traced op each).
pub(super) const MAX_PROD_FACTORS: usize = 4096;

/// A (strongly typed) int32 scalar, as an index computation's constant.
pub(super) fn int32(v: i32) -> Tensor {
    Tensor::from(Array::new(vec![], jaxlite::Data::I32(vec![v])))
}

/// A lax function of two operands of one dtype, elementwise.
enum Pairwise {
    Arithmetic(BinaryOp),
    Comparison(CompareOp),
}

/// The letters of a convolution spec given as positions (`ConvDimensionNumbers`): the two
/// roles' letters at their positions, the spatial letters at the others in order.
fn spec_letters(positions: &[Value], roles: [&str; 2]) -> Option<String> {
    let rank = positions.len();
    let mut letters = vec![""; rank];
    let spatial = ["H", "W", "D"];
    for (k, p) in positions.iter().enumerate() {
        let Value::Int(p) = p else { return None };
        let slot = letters.get_mut(usize::try_from(*p).ok()?)?;
        if !slot.is_empty() {
            return None;
        }
        *slot = if k < 2 { roles[k] } else { spatial.get(k - 2)? };
    }
    Some(letters.concat())
}

pub(super) fn weak(x: f32) -> Tensor {
    Tensor::from(Array::weak_scalar_f32(x))
}

impl Interp<'_, '_> {
    /// Calls `name` of `jax._loops`, the control flow JAX writes in Python (crates/pylib/python/jax/loops.py).
    async fn python_helper(&mut self, name: &str, args: Vec<Value>) -> R<Value> {
        let Value::PyModule(loops) = self.import("jax._loops").await? else {
            return err("internal error: jax._loops is not a module");
        };
        let f = loops.scope.vars.borrow().get(name).cloned();
        let Some(f) = f else {
            return err(format!("internal error: jax._loops has no {name}"));
        };
        self.call(f, args, vec![]).await
    }

    /// A loop's final carry as JAX returns it: Python numbers among its leaves become
    /// (weakly typed) arrays.
    pub(super) async fn carry_arrays(&mut self, carry: &Value) -> R<Value> {
        let mut leaves = Vec::new();
        let tree = self.tree_of(carry, None, &mut leaves).await?;
        let mut arrays = Vec::with_capacity(leaves.len());
        for leaf in leaves {
            arrays.push(match leaf {
                Value::Int(_) | Value::Float(_) | Value::Bool(_) => Value::Array(self.to_tensor(&leaf)?),
                other => other,
            });
        }
        self.unflatten_tree(&tree, &mut arrays.into_iter()).await
    }

    fn un<'a>(&'a mut self, op: UnaryOp, x: &'a Tensor) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move { Ok(jnp::unary(self.ctx, op, x).await?) })
    }

    fn bin<'a>(&'a mut self, op: BinaryOp, x: &'a Tensor, y: &'a Tensor) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move { Ok(jnp::binary(self.ctx, op, x, y).await?) })
    }

    /// `jnp.max(x, axis, keepdims=True)` with its gradient stopped, the shift of softmax and
    /// logsumexp (as `jax.nn` does it).
    fn shift_max<'a>(&'a mut self, x: &'a Tensor, axis: &'a [i64]) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let m = jnp::reduce(self.ctx, x, Some(axis), Reduction::Max).await?;
            let m = self.keepdims(&m, x.aval().rank(), axis).await?;
            let m = self.stop_gradient(&m).await?;
            Ok(m)
        })
    }

    /// Reinserts reduced axes as size-1 dimensions.
    fn keepdims<'a>(&'a mut self, r: &'a Tensor, rank: usize, axes: &'a [i64]) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let axes = jnp::normalize_axes(Some(axes), rank)?;
            let mut shape = Vec::new();
            let mut it = r.aval().shape.iter();
            for d in 0..rank {
                shape.push(if axes.contains(&d) { 1 } else { *it.next().unwrap_or(&1) as i64 });
            }
            Ok(jnp::reshape(self.ctx, r, &shape).await?)
        })
    }

    fn stop_gradient<'a>(&'a mut self, x: &'a Tensor) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            if !self.ctx.is_tracing() {
                return Ok(x.clone());
            }
            Ok(jnp::apply1(self.ctx, Primitive::StopGradient, x).await?)
        })
    }

    fn sum_axes<'a>(&'a mut self, x: &'a Tensor, axes: &'a [i64]) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move { Ok(jnp::reduce(self.ctx, x, Some(axes), Reduction::Sum).await?) })
    }

    /// The max of `x` over `axes` (its gradient stopped), `x` minus it, that exp, and the exp's
    /// sum, each with the axes kept: how jax.nn's softmax, log_softmax and logsumexp begin.
    fn shifted_exp_sum<'a>(&'a mut self, x: &'a Tensor, axes: &'a [i64]) -> LocalFuture<'a, R<[Tensor; 4]>> {
        Box::pin(async move {
            let m = self.shift_max(x, axes).await?;
            let shifted = self.bin(BinaryOp::Sub, x, &m).await?;
            let e = self.un(UnaryOp::Exp, &shifted).await?;
            let s = self.sum_axes(&e, axes).await?;
            let s = self.keepdims(&s, x.aval().rank(), axes).await?;
            Ok([m, shifted, e, s])
        })
    }

    /// `jax.nn.softmax(x, axes)`.
    fn softmax<'a>(&'a mut self, x: &'a Tensor, axes: &'a [i64]) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let [_, _, e, s] = self.shifted_exp_sum(x, axes).await?;
            self.bin(BinaryOp::Div, &e, &s).await
        })
    }

    /// softmax and log_softmax with `where=`, as JAX computes them: the masked-out elements are
    /// −inf for the max and left out of the sum, and come out as 0 (softmax) or −inf.
    fn masked_softmax<'a>(
        &'a mut self,
        name: &'a str,
        x: &'a Tensor,
        axes: &'a [i64],
        mask: &'a Value,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let mask = self.to_tensor(mask)?;
            let mask = jnp::astype(self.ctx, &mask, DType::Bool).await?;
            let mask = jnp::broadcast_to(self.ctx, &mask, &x.aval().shape).await?;
            let x = jnp::astype(
                self.ctx,
                x,
                if x.aval().dtype.is_float() { x.aval().dtype } else { self.ctx.default_float() },
            )
            .await?;
            let dtype = x.aval().dtype;
            let full = |v: f32| Tensor::from(Array::from_f32(vec![], vec![v]).astype(dtype));
            let x_safe = jnp::where_(self.ctx, &mask, &x, &full(f32::NEG_INFINITY)).await?;
            let m = self.shift_max(&x_safe, axes).await?;
            let shifted = self.bin(BinaryOp::Sub, &x_safe, &m).await?;
            let e = self.un(UnaryOp::Exp, &shifted).await?;
            let kept = jnp::where_(self.ctx, &mask, &e, &full(0.0)).await?;
            let s = self.sum_axes(&kept, axes).await?;
            let s = self.keepdims(&s, x.aval().rank(), axes).await?;
            if name == "softmax" {
                let r = self.bin(BinaryOp::Div, &e, &s).await?;
                return Ok(jnp::where_(self.ctx, &mask, &r, &full(0.0)).await?);
            }
            let l = self.un(UnaryOp::Log, &s).await?;
            let r = self.bin(BinaryOp::Sub, &shifted, &l).await?;
            Ok(jnp::where_(self.ctx, &mask, &r, &full(f32::NEG_INFINITY)).await?)
        })
    }

    /// `logsumexp(x, axis)`, shifted by the stopped max for stability.
    fn logsumexp<'a>(&'a mut self, x: &'a Tensor, axis: &'a [i64], keep: bool) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let [m, _, _, s] = self.shifted_exp_sum(x, axis).await?;
            let l = self.un(UnaryOp::Log, &s).await?;
            let out = self.bin(BinaryOp::Add, &l, &m).await?;
            if keep {
                return Ok(out);
            }
            let axes = jnp::normalize_axes(Some(axis), x.aval().rank())?;
            let shape: Vec<i64> =
                (0..x.aval().rank()).filter(|d| !axes.contains(d)).map(|d| x.aval().shape[d] as i64).collect();
            Ok(jnp::reshape(self.ctx, &out, &shape).await?)
        })
    }

    fn axis_list(&self, axis: Option<&Value>, default_all: usize) -> R<Vec<i64>> {
        Ok(axes_arg(axis)?.unwrap_or_else(|| (0..default_all as i64).collect()))
    }

    pub(super) fn call_nn<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if name == "dot_product_attention" {
                return self.dot_product_attention(args, kwargs).await;
            }
            if super::numeric::NN_MORE.contains(&name) {
                return self.call_nn_more(name, args, kwargs).await;
            }
            let axis = take_kwarg(&mut kwargs, "axis");
            let keep = if name == "logsumexp" { take_kwarg(&mut kwargs, "keepdims") } else { None };
            let approximate = take_kwarg(&mut kwargs, "approximate");
            let num_classes = if name == "one_hot" { take_kwarg(&mut kwargs, "num_classes") } else { None };
            let one_hot_dtype = if name == "one_hot" { take_kwarg(&mut kwargs, "dtype") } else { None };
            let mask = match name {
                "softmax" | "log_softmax" => take_kwarg(&mut kwargs, "where").filter(|w| !matches!(w, Value::None)),
                _ => None,
            };
            no_more_kwargs(name, &kwargs)?;
            arity(name, &args, 1, 2)?;
            let x = self.to_tensor(&args[0])?;
            let rank = x.aval().rank();
            let last = [-1i64];
            let axis_vec = match (&axis, name) {
                (None, "logsumexp") => (0..rank as i64).collect(),
                (None, _) | (_, "one_hot") => last.to_vec(),
                (Some(a), _) => self.axis_list(Some(a), rank)?,
            };
            if let Some(mask) = mask {
                let out = self.masked_softmax(name, &x, &axis_vec, &mask).await?;
                return Ok(Value::Array(out));
            }
            let out = match name {
                // max(x, 0), with relu'(0) = 0 as jax.nn.relu's custom JVP gives: x where
                // positive, else max(x, 0) (0, or NaN for NaN) with its gradient stopped.
                "relu" => {
                    let zero = Tensor::from(Array::weak_scalar_i32(0));
                    let positive = jnp::compare(self.ctx, CompareOp::Gt, &x, &zero).await?;
                    let rest = jnp::binary(self.ctx, BinaryOp::Max, &x, &zero).await?;
                    let rest = self.stop_gradient(&rest).await?;
                    jnp::where_(self.ctx, &positive, &x, &rest).await?
                }
                "sigmoid" => self.un(UnaryOp::Logistic, &x).await?,
                "silu" | "swish" => {
                    let s = self.un(UnaryOp::Logistic, &x).await?;
                    self.bin(BinaryOp::Mul, &x, &s).await?
                }
                // softplus(x) = log1p(exp(-|x|)) + max(x, 0), with -|x| written min(x, -x) so
                // that the derivative at 0 is 1/2 (= sigmoid(0)), as JAX's logaddexp gives.
                "softplus" => {
                    let n = self.un(UnaryOp::Neg, &x).await?;
                    let m = self.bin(BinaryOp::Min, &x, &n).await?;
                    let e = self.un(UnaryOp::Exp, &m).await?;
                    let l = self.un(UnaryOp::Log1p, &e).await?;
                    let r = self.bin(BinaryOp::Max, &x, &Tensor::from(Array::weak_scalar_i32(0))).await?;
                    self.bin(BinaryOp::Add, &l, &r).await?
                }
                "gelu" => {
                    let approximate = match approximate.or_else(|| args.get(1).cloned()) {
                        Some(v) => self.truthy(&v)?,
                        None => true,
                    };
                    if approximate {
                        // 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))
                        let cube = jnp::integer_pow(self.ctx, &x, 3).await?;
                        let inner = self.bin(BinaryOp::Mul, &cube, &weak(0.044715)).await?;
                        let inner = self.bin(BinaryOp::Add, &x, &inner).await?;
                        let c = (2.0f64 / std::f64::consts::PI).sqrt() as f32;
                        let inner = self.bin(BinaryOp::Mul, &inner, &weak(c)).await?;
                        let t = self.un(UnaryOp::Tanh, &inner).await?;
                        let t = self.bin(BinaryOp::Add, &t, &weak(1.0)).await?;
                        let h = self.bin(BinaryOp::Mul, &x, &weak(0.5)).await?;
                        self.bin(BinaryOp::Mul, &h, &t).await?
                    } else {
                        // 0.5 x (1 + erf(x / √2))
                        let s = self.bin(BinaryOp::Div, &x, &weak(std::f32::consts::SQRT_2)).await?;
                        let e = self.un(UnaryOp::Erf, &s).await?;
                        let e = self.bin(BinaryOp::Add, &e, &weak(1.0)).await?;
                        let h = self.bin(BinaryOp::Mul, &x, &weak(0.5)).await?;
                        self.bin(BinaryOp::Mul, &h, &e).await?
                    }
                }
                "softmax" => self.softmax(&x, &axis_vec).await?,
                "log_softmax" => {
                    let [_, shifted, _, s] = self.shifted_exp_sum(&x, &axis_vec).await?;
                    let l = self.un(UnaryOp::Log, &s).await?;
                    self.bin(BinaryOp::Sub, &shifted, &l).await?
                }
                "logsumexp" => {
                    let out = self.logsumexp(&x, &axis_vec, false).await?;
                    match keep {
                        Some(k) if self.truthy(&k)? => self.keepdims(&out, rank, &axis_vec).await?,
                        _ => out,
                    }
                }
                "one_hot" => {
                    let n = num_classes
                        .or_else(|| args.get(1).cloned())
                        .ok_or_else(|| super::RtError::new("one_hot() missing required argument 'num_classes'"))?;
                    let n = int_arg(&n)?;
                    if n < 0 {
                        return super::value_err("one_hot: num_classes must be non-negative");
                    }
                    let mut shape = x.aval().shape.clone();
                    shape.push(n as usize);
                    let iota = jnp::apply(
                        self.ctx,
                        Primitive::Iota { dtype: DType::I32, shape: shape.clone(), dimension: rank },
                        &[],
                    )
                    .await?;
                    let xi = jnp::astype(self.ctx, &x, DType::I32).await?;
                    let mut dims: Vec<i64> = x.aval().shape.iter().map(|&d| d as i64).collect();
                    dims.push(1);
                    let xr = jnp::reshape(self.ctx, &xi, &dims).await?;
                    let xb = jnp::broadcast_to(self.ctx, &xr, &shape).await?;
                    let eq = jnp::compare(self.ctx, CompareOp::Eq, &xb, &iota).await?;
                    let dtype = super::jax::optional_dtype(one_hot_dtype)?.unwrap_or(self.ctx.default_float());
                    let out = jnp::astype(self.ctx, &eq, dtype).await?;
                    // The classes' axis where `axis` puts it (last by default).
                    let at = match &axis {
                        None => rank,
                        Some(a) => jnp::normalize_axes(Some(&[int_arg(a)?]), rank + 1)?[0],
                    };
                    if at == rank {
                        out
                    } else {
                        let mut order: Vec<usize> = (0..rank).collect();
                        order.insert(at, rank);
                        jnp::transpose(self.ctx, &out, Some(&order)).await?
                    }
                }
                _ => return super::unsupported(format!("jax.nn.{name} is not supported by the playground yet")),
            };
            Ok(Value::Array(out))
        })
    }

    /// `jax.nn.dot_product_attention` as JAX's XLA implementation computes it: logits
    /// `einsum('BTNH,BSNH->BNTS')` times the scale (1/√H unless given), plus the bias, masked
    /// to −0.7·f32::MAX where `mask` is false or (`is_causal`) above the diagonal, a softmax
    /// over S, then `einsum('BNTS,BSNH->BTNH')` with the values. Inputs of rank 3 lack the B axis.
    fn dot_product_attention(
        &mut self,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'_, R<Value>> {
        Box::pin(async move {
            let name = "dot_product_attention";
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let (q, k, v) = (arg(0, "query"), arg(1, "key"), arg(2, "value"));
            let (bias, mask) = (arg(3, "bias"), arg(4, "mask"));
            let scale = take_kwarg(&mut kwargs, "scale");
            let is_causal = take_kwarg(&mut kwargs, "is_causal");
            for unsupported in ["query_seq_lengths", "key_value_seq_lengths", "local_window_size"] {
                if let Some(v) = take_kwarg(&mut kwargs, unsupported) {
                    if !matches!(v, Value::None) {
                        return super::unsupported(format!(
                            "{name}: {unsupported} is not supported by the playground yet"
                        ));
                    }
                }
            }
            match take_kwarg(&mut kwargs, "implementation") {
                None | Some(Value::None) => {}
                Some(Value::Str(s)) if &*s == "xla" => {}
                Some(other) => {
                    return err(format!(
                        "{name}: the playground has only implementation='xla', got {}",
                        super::value::repr(&other)
                    ))
                }
            }
            no_more_kwargs(name, &kwargs)?;
            let (Some(q), Some(k), Some(v)) = (q, k, v) else {
                return err(format!("{name}() needs query, key and value"));
            };
            let is_causal = match is_causal {
                Some(c) => self.truthy(&c)?,
                None => false,
            };
            let (mut q, mut k, mut v) = (self.to_tensor(&q)?, self.to_tensor(&k)?, self.to_tensor(&v)?);
            let rank = q.aval().rank();
            if !(rank == 3 || rank == 4) || k.aval().rank() != rank || v.aval().rank() != rank {
                return err(format!(
                    "{name}: query, key and value must all be (B, T, N, H) or (T, N, H), got {}, {} and {}",
                    jnp::shape_str(&q.aval().shape),
                    jnp::shape_str(&k.aval().shape),
                    jnp::shape_str(&v.aval().shape)
                ));
            }
            if rank == 3 {
                for t in [&mut q, &mut k, &mut v] {
                    let shape: Vec<i64> = std::iter::once(1).chain(t.aval().shape.iter().map(|&d| d as i64)).collect();
                    *t = jnp::reshape(self.ctx, t, &shape).await?;
                }
            }
            let (qs, ks, vs) = (q.aval().shape.clone(), k.aval().shape.clone(), v.aval().shape.clone());
            if ks != vs || qs[0] != ks[0] || qs[3] != ks[3] {
                return err(format!(
                    "{name}: key and value must have equal shapes, with query's batch and head size (query {}, key {}, value {})",
                    jnp::shape_str(&qs),
                    jnp::shape_str(&ks),
                    jnp::shape_str(&vs)
                ));
            }
            if qs[2] != ks[2] {
                return unsupported(format!(
                    "{name}: {} query heads over {} key/value heads (grouped-query attention) is not supported by the playground yet",
                    qs[2], ks[2]
                ));
            }
            if [&q, &k, &v].iter().any(|t| t.aval().dtype != DType::F32) {
                return err(format!(
                    "{name}: the playground supports float32 inputs only (bfloat16 needs preferred_element_type)"
                ));
            }
            let logits = jnp::einsum(self.ctx, "BTNH,BSNH->BNTS", &[q, k], None).await?;
            let scale = match scale {
                None | Some(Value::None) => 1.0 / (qs[3] as f64).sqrt(),
                Some(s) => super::value::as_f64(&s)
                    .ok_or_else(|| super::RtError::new(format!("{name}: scale must be a number")))?,
            };
            let scale = Tensor::from(Array::from_f32(vec![], vec![scale as f32]));
            let mut logits = self.bin(BinaryOp::Mul, &logits, &scale).await?;
            if let Some(b) = bias.filter(|b| !matches!(b, Value::None)) {
                let b = self.to_tensor(&b)?;
                logits = self.bin(BinaryOp::Add, &logits, &b).await?;
                logits = jnp::astype(self.ctx, &logits, DType::F32).await?;
            }
            let mask = mask.filter(|m| !matches!(m, Value::None));
            if mask.is_some() || is_causal {
                let (t, s) = (qs[1], ks[1]);
                let mut keep = jnp::astype(self.ctx, &weak(1.0), DType::Bool).await?;
                if let Some(m) = mask {
                    let m = self.to_tensor(&m)?;
                    if m.aval().dtype != DType::Bool {
                        return err(format!("{name}: mask must be a bool array, got {}", m.aval().dtype.name()));
                    }
                    keep = jnp::binary(self.ctx, BinaryOp::And, &keep, &m).await?;
                }
                if is_causal {
                    let causal: Vec<f32> = (0..t * s).map(|e| f32::from(u8::from(e % s <= e / s))).collect();
                    let causal = Array::from_f32(vec![1, 1, t, s], causal).astype(DType::Bool);
                    keep = jnp::binary(self.ctx, BinaryOp::And, &keep, &Tensor::from(causal)).await?;
                }
                let large_negative = Tensor::from(Array::from_f32(vec![], vec![-0.7 * f32::MAX]));
                logits = jnp::where_(self.ctx, &keep, &logits, &large_negative).await?;
            }
            let probs = self.softmax(&logits, &[-1]).await?;
            let mut out = jnp::einsum(self.ctx, "BNTS,BSNH->BTNH", &[probs, v], None).await?;
            if rank == 3 {
                let shape: Vec<i64> = out.aval().shape[1..].iter().map(|&d| d as i64).collect();
                out = jnp::reshape(self.ctx, &out, &shape).await?;
            }
            Ok(Value::Array(out))
        })
    }

    /// A window's `padding=` (convolutions, `reduce_window`): `'SAME'`, `'VALID'` or (low, high)
    /// pairs.
    /// A dot's two operands at the dtype they promote to, and that dtype.
    async fn dot_operands(&mut self, a: &Tensor, b: &Tensor) -> R<([Tensor; 2], DType)> {
        let (dtype, _) =
            jaxlite::dtype::promote(a.aval().dtype, a.aval().weak_type, b.aval().dtype, b.aval().weak_type);
        Ok(([jnp::astype(self.ctx, a, dtype).await?, jnp::astype(self.ctx, b, dtype).await?], dtype))
    }

    pub(super) fn padding_arg(&self, name: &str, v: &Value) -> R<jnp::ConvPadding> {
        Ok(match v {
            Value::Str(p) if &**p == "SAME" => jnp::ConvPadding::Same,
            Value::Str(p) if &**p == "VALID" => jnp::ConvPadding::Valid,
            Value::Str(p) => return super::value_err(format!("{name}: padding '{p}' is not 'SAME' or 'VALID'")),
            pairs => {
                let mut out = Vec::new();
                for p in &self.iterate(pairs)? {
                    match self.iterate(p)?.as_slice() {
                        [lo, hi] => out.push((int_arg(lo)?, int_arg(hi)?)),
                        _ => return err(format!("{name}: padding must be 'SAME', 'VALID' or (low, high) pairs")),
                    }
                }
                jnp::ConvPadding::Explicit(out)
            }
        })
    }

    /// linspace, eye, split, tensordot, allclose, tril and triu, each with its own keywords.
    fn call_jnp_own_kwargs<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // linspace between arrays of bounds is written in Python, as JAX writes it.
            if name == "linspace" {
                let bound = |i: usize, key: &str| kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v).or(args.get(i));
                let scalar = |v: Option<&Value>| v.is_none_or(|v| super::value::as_f64(v).is_some());
                if !scalar(bound(0, "start")) || !scalar(bound(1, "stop")) {
                    let module = self.import("jax._numpy").await?;
                    let linspace = self.get_attr(&module, "linspace").await?;
                    return self.call(linspace, args, kwargs).await;
                }
            }
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let number = |v: &Value| -> R<f64> {
                super::value::as_f64(v)
                    .ok_or_else(|| super::RtError::new(format!("{name}: expected a number, got {}", v.type_name())))
            };
            let out = match name {
                // As JAX's jitted linspace after XLA's simplifier: with r = 1/div and
                // c = stop·r, start·(1 − i·r) + i·c, the second product fused (an ulp from the
                // formula's exact rounding at times; the endpoint exact).
                "linspace" => {
                    let (start, stop) = (arg(0, "start"), arg(1, "stop"));
                    let num = match arg(2, "num") {
                        None => 50,
                        Some(v) => int_arg(&v)?,
                    };
                    let endpoint = match arg(3, "endpoint") {
                        None => true,
                        Some(v) => self.truthy(&v)?,
                    };
                    let dtype = super::jax::optional_dtype(take_kwarg(&mut kwargs, "dtype"))?
                        .unwrap_or(self.ctx.default_float());
                    let (Some(start), Some(stop)) = (start, stop) else {
                        return err("linspace() needs start and stop");
                    };
                    if !(0..=super::jax::MAX_ELEMENTS as i64).contains(&num) {
                        return super::value_err(format!(
                            "linspace: num must be from 0 to {}, got {num}",
                            super::jax::MAX_ELEMENTS
                        ));
                    }
                    let n = num as usize;
                    if dtype == DType::F64 || self.ctx.on_host() {
                        // NumPy's: i·step + start in float64, the endpoint exact, then cast.
                        let (a, b) = (number(&start)?, number(&stop)?);
                        let div = if endpoint { n.saturating_sub(1) } else { n };
                        let step = (b - a) / div as f64;
                        let mut values: Vec<f64> = (0..n)
                            .map(
                                |i| if step == 0.0 { i as f64 / div as f64 * (b - a) + a } else { i as f64 * step + a },
                            )
                            .collect();
                        if endpoint && n > 1 {
                            values[n - 1] = b;
                        }
                        return Ok(Value::array(Array::new(vec![n], jaxlite::Data::F64(values)).astype(dtype)));
                    }
                    let (a, b) = (number(&start)? as f32, number(&stop)? as f32);
                    let div = if endpoint { n.saturating_sub(1) } else { n };
                    let mut values: Vec<f32> = (0..div.min(n))
                        .map(|i| {
                            let (r, i) = (1.0 / div as f32, i as f32);
                            i.mul_add(b * r, a * (1.0 - i * r))
                        })
                        .collect();
                    if n == 1 {
                        values = vec![a];
                    } else if endpoint && n > 1 {
                        values.push(b);
                    }
                    let out = Array::from_f32(vec![values.len()], values);
                    Tensor::from(if dtype == DType::F32 { out } else { out.astype(dtype) })
                }
                "eye" => {
                    let n = int_arg(&arg(0, "N").ok_or_else(|| super::RtError::new("eye() needs N"))?)?;
                    let m = match arg(1, "M") {
                        None | Some(Value::None) => n,
                        Some(v) => int_arg(&v)?,
                    };
                    let k = match arg(2, "k") {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    let dtype = super::jax::optional_dtype(take_kwarg(&mut kwargs, "dtype"))?
                        .unwrap_or(self.ctx.default_float());
                    if n < 0 || m < 0 {
                        return super::value_err(format!("eye: negative dimensions are not allowed ({n}, {m})"));
                    }
                    super::jax::check_size(&[n as usize, m as usize])?;
                    let k = i32::try_from(k).map_err(|_| {
                        super::RtError::of(super::objects::Builtin::IndexError, format!("eye: k {k} out of range"))
                    })?;
                    jnp::eye_in(self.ctx, n as usize, m as usize, k, dtype).await?
                }
                // Equal sections, or the pieces between the given indices, along an axis.
                "split" => {
                    let x =
                        self.to_tensor(&arg(0, "ary").ok_or_else(|| super::RtError::new("split() needs an array"))?)?;
                    let how = arg(1, "indices_or_sections")
                        .ok_or_else(|| super::RtError::new("split() needs indices_or_sections"))?;
                    let axis = match arg(2, "axis") {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let shape = x.aval().shape.clone();
                    let axis = jnp::normalize_axes(Some(&[axis]), shape.len())?[0];
                    let n = shape[axis];
                    let bounds: Vec<usize> = match &how {
                        Value::Int(k) if *k > 0 && n % *k as usize == 0 => {
                            (0..=*k as usize).map(|i| i * n / *k as usize).collect()
                        }
                        Value::Int(k) => {
                            return super::value_err(format!(
                                "array split does not result in an equal division: {n} into {k}"
                            ))
                        }
                        v => {
                            let mut b = vec![0];
                            for i in self.iterate(v)? {
                                b.push((int_arg(&i)?.max(0) as usize).min(n));
                            }
                            b.push(n);
                            b
                        }
                    };
                    let mut pieces = Vec::new();
                    for w in bounds.windows(2) {
                        let (lo, hi) = (w[0], w[1].max(w[0]));
                        let mut start = vec![0; shape.len()];
                        let mut limit = shape.clone();
                        start[axis] = lo;
                        limit[axis] = hi;
                        let prim =
                            jaxlite::Primitive::Slice { start_indices: start, limit_indices: limit, strides: None };
                        pieces.push(Value::Array(jnp::apply1(self.ctx, prim, &x).await?));
                    }
                    return Ok(Value::List(std::rc::Rc::new(std::cell::RefCell::new(pieces))));
                }
                // The last `axes` axes of a against the first of b, or the named pairs.
                "tensordot" => {
                    let (a, b) = (arg(0, "a"), arg(1, "b"));
                    let axes = arg(2, "axes");
                    let precision = precision_arg(take_kwarg(&mut kwargs, "precision"))?;
                    let preferred = take_kwarg(&mut kwargs, "preferred_element_type");
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(a), Some(b)) = (a, b) else { return err("tensordot() needs a and b") };
                    let (a, b) = (self.to_tensor(&a)?, self.to_tensor(&b)?);
                    let sums = super::jax::preferred_sums(name, preferred, &[&a, &b])?;
                    let (ra, rb) = (a.aval().rank(), b.aval().rank());
                    let (ca, cb): (Vec<usize>, Vec<usize>) = match &axes {
                        None => ((ra.saturating_sub(2)..ra).collect(), (0..2.min(rb)).collect()),
                        Some(Value::Int(k)) if *k >= 0 && *k as usize <= ra.min(rb) => {
                            let k = *k as usize;
                            ((ra - k..ra).collect(), (0..k).collect())
                        }
                        Some(v) => {
                            let pair = self.iterate(v)?;
                            let [pa, pb] = pair.as_slice() else {
                                return err("tensordot: axes must be an int or a pair of axis lists");
                            };
                            let list = |p: &Value, r: usize| -> R<Vec<usize>> {
                                let items = match p {
                                    Value::Int(_) => vec![p.clone()],
                                    other => self.iterate(other)?,
                                };
                                let ints: Vec<i64> = items.iter().map(int_arg).collect::<R<_>>()?;
                                Ok(jnp::normalize_axes(Some(&ints), r)?)
                            };
                            (list(pa, ra)?, list(pb, rb)?)
                        }
                    };
                    if ca.iter().zip(&cb).any(|(&i, &j)| a.aval().shape[i] != b.aval().shape[j]) || ca.len() != cb.len()
                    {
                        return err(format!(
                            "tensordot: the contracted axes of {} and {} do not match",
                            jnp::shape_str(&a.aval().shape),
                            jnp::shape_str(&b.aval().shape)
                        ));
                    }
                    let dims = jaxlite::DotDims {
                        lhs_contracting: ca,
                        rhs_contracting: cb,
                        lhs_batch: vec![],
                        rhs_batch: vec![],
                    };
                    let ([a, b], dtype) = self.dot_operands(&a, &b).await?;
                    let preferred_element_type = Some(sums.unwrap_or(dtype));
                    let prim = jaxlite::Primitive::DotGeneral { dims, precision, preferred_element_type };
                    jnp::apply(self.ctx, prim, &[a, b]).await?
                }
                // The lower (upper) triangle of the last two axes, the rest zero: a constant mask
                // and a select, so it traces, differentiates and batches like any `where`.
                // jnp.take: a gather along `axis` (the flattened array when None). Negative
                // indices count from the end; out-of-range ones give NaN for floats (mode
                // "fill", JAX's default), the nearest element ("clip"), or wrap ("wrap").
                "take" => {
                    let need = |v: Option<Value>, what: &str| {
                        v.ok_or_else(|| super::RtError::new(format!("take() needs {what}")))
                    };
                    let mut x = self.to_tensor(&need(arg(0, "a"), "a")?)?;
                    let idx = self.as_array(&need(arg(1, "indices"), "indices")?, None).await?;
                    if !idx.aval().dtype.is_integer() {
                        return err(format!("take: indices must be integers, got {}", idx.aval().dtype));
                    }
                    let axis = match arg(2, "axis") {
                        None | Some(Value::None) => {
                            x = jnp::reshape(self.ctx, &x, &[-1]).await?;
                            0
                        }
                        Some(v) => jnp::normalize_axes(Some(&[int_arg(&v)?]), x.aval().rank())?[0],
                    };
                    let mode = match arg(3, "mode") {
                        None | Some(Value::None) => "fill".to_string(),
                        Some(Value::Str(m)) if ["fill", "clip", "wrap"].contains(&&*m) => m.to_string(),
                        Some(other) => {
                            return err(format!(
                                "take: mode must be 'fill', 'clip' or 'wrap', got {}",
                                super::value::repr(&other)
                            ))
                        }
                    };
                    let n = x.aval().shape[axis];
                    let ctx = &mut *self.ctx;
                    let (idx, valid) = index_mode(ctx, &idx, n, &mode, false).await?;
                    let out = jnp::take(ctx, &x, &idx, axis).await?;
                    match valid {
                        None => out,
                        Some(valid) => {
                            // The index's validity, placed where its axes sit in the result.
                            let rank = x.aval().rank();
                            let mut shape: Vec<i64> = vec![1; axis];
                            shape.extend(idx.aval().shape.iter().map(|&d| d as i64));
                            shape.extend(std::iter::repeat_n(1, rank - axis - 1));
                            let valid = jnp::reshape(ctx, &valid, &shape).await?;
                            fill_invalid(ctx, &out, &valid).await?
                        }
                    }
                }
                // jnp.take_along_axis: out[..., j, ...] = a[..., idx[..., j, ...], ...] along
                // `axis`, the other axes broadcast between a and the indices. On the host one
                // gather of the flattened array at row-major offsets (an iota per other axis,
                // times its stride, plus the index times the axis's stride); on the device a
                // selection within each row (`take_within_axis`). Modes as jnp.take ("fill"
                // default).
                "take_along_axis" => {
                    let need = |v: Option<Value>, what: &str| {
                        v.ok_or_else(|| super::RtError::new(format!("take_along_axis() needs {what}")))
                    };
                    let x = self.to_tensor(&need(arg(0, "arr"), "arr")?)?;
                    let idx = self.as_array(&need(arg(1, "indices"), "indices")?, None).await?;
                    let axis = need(arg(2, "axis"), "axis")?;
                    let mode = match arg(3, "mode") {
                        None | Some(Value::None) => "fill".to_string(),
                        Some(Value::Str(m)) if ["fill", "clip"].contains(&&*m) => m.to_string(),
                        Some(other) => {
                            return err(format!(
                                "take_along_axis: mode must be 'fill' or 'clip', got {}",
                                super::value::repr(&other)
                            ))
                        }
                    };
                    let (xs, is) = (x.aval().shape.clone(), idx.aval().shape.clone());
                    if !idx.aval().dtype.is_integer() {
                        return err(format!("take_along_axis: indices must be integers, got {}", idx.aval().dtype));
                    }
                    if xs.len() != is.len() {
                        return err(format!(
                            "take_along_axis: indices and arr must have the same number of dimensions; {} vs. {}",
                            is.len(),
                            xs.len()
                        ));
                    }
                    let rank = xs.len();
                    let axis = match axis {
                        Value::None => {
                            return super::unsupported(
                                "take_along_axis with axis=None is not supported by the playground yet",
                            )
                        }
                        v => jnp::normalize_axes(Some(&[int_arg(&v)?]), rank)?[0],
                    };
                    let ctx = &mut *self.ctx;
                    // The result's shape: the indices' along `axis`, broadcast elsewhere.
                    let mut out_shape = Vec::with_capacity(rank);
                    let mut arr_shape = Vec::with_capacity(rank);
                    for d in 0..rank {
                        if d == axis {
                            out_shape.push(is[d]);
                            arr_shape.push(xs[d]);
                        } else {
                            let b = jnp::broadcast_shapes("take_along_axis", &[xs[d]], &[is[d]])?[0];
                            out_shape.push(b);
                            arr_shape.push(b);
                        }
                    }
                    let x = jnp::broadcast_to(ctx, &x, &arr_shape).await?;
                    let idx = jnp::broadcast_to(ctx, &idx, &out_shape).await?;
                    // (Unlike jnp.take, negative indices count from the end under "clip" too.)
                    let (idx, valid) = index_mode(ctx, &idx, xs[axis], &mode, true).await?;
                    let out = if ctx.on_host() {
                        // NumPy's gather reads only what it takes.
                        let stride = |d: usize| arr_shape[d + 1..].iter().product::<usize>() as i32;
                        let mut flat = jnp::binary(ctx, BinaryOp::Mul, &idx, &int32(stride(axis))).await?;
                        for d in (0..rank).filter(|&d| d != axis && out_shape[d] > 1) {
                            let prim =
                                jaxlite::Primitive::Iota { dtype: DType::I32, shape: out_shape.clone(), dimension: d };
                            let along = jnp::apply(ctx, prim, &[]).await?;
                            let offset = jnp::binary(ctx, BinaryOp::Mul, &along, &int32(stride(d))).await?;
                            flat = jnp::binary(ctx, BinaryOp::Add, &flat, &offset).await?;
                        }
                        let x = jnp::reshape(ctx, &x, &[-1]).await?;
                        jnp::take(ctx, &x, &flat, 0).await?
                    } else {
                        take_within_axis(ctx, &x, &idx, axis).await?
                    };
                    match valid {
                        None => out,
                        Some(valid) => fill_invalid(ctx, &out, &valid).await?,
                    }
                }
                "tril" | "triu" => {
                    let x =
                        self.to_tensor(&arg(0, "m").ok_or_else(|| super::RtError::new(format!("{name}() needs m")))?)?;
                    let k = match arg(1, "k") {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    let shape = x.aval().shape.clone();
                    let [.., n, m] = shape[..] else {
                        return err(format!(
                            "{name}: the argument must be at least 2-D, got shape {}",
                            jnp::shape_str(&shape)
                        ));
                    };
                    let keep = |i: usize, j: usize| {
                        let d = j as i64 - i as i64;
                        if name == "tril" {
                            d <= k
                        } else {
                            d >= k
                        }
                    };
                    let mask: Vec<f32> = (0..n * m).map(|e| f32::from(u8::from(keep(e / m, e % m)))).collect();
                    let mask = Tensor::from(Array::from_f32(vec![n, m], mask));
                    let zero = jnp::astype(self.ctx, &weak(0.0), x.aval().dtype).await?;
                    jnp::where_(self.ctx, &mask, &x, &zero).await?
                }
                // |a − b| <= atol + rtol·|b| everywhere, NaN never close (equal_nan=False).
                _ => {
                    let (a, b) = (arg(0, "a"), arg(1, "b"));
                    let rtol = match arg(2, "rtol") {
                        None => 1e-5,
                        Some(v) => number(&v)?,
                    };
                    let atol = match arg(3, "atol") {
                        None => 1e-8,
                        Some(v) => number(&v)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(a), Some(b)) = (a, b) else { return err("allclose() needs a and b") };
                    let (a, b) = (self.to_tensor(&a)?, self.to_tensor(&b)?);
                    let float = self.ctx.default_float();
                    let a = jnp::astype(self.ctx, &a, float).await?;
                    let b = jnp::astype(self.ctx, &b, float).await?;
                    let diff = jnp::binary(self.ctx, BinaryOp::Sub, &a, &b).await?;
                    let diff = jnp::unary(self.ctx, UnaryOp::Abs, &diff).await?;
                    let scale = jnp::unary(self.ctx, UnaryOp::Abs, &b).await?;
                    let scale = jnp::binary(self.ctx, BinaryOp::Mul, &scale, &weak(rtol as f32)).await?;
                    let bound = jnp::binary(self.ctx, BinaryOp::Add, &scale, &weak(atol as f32)).await?;
                    let close = jnp::compare(self.ctx, CompareOp::Le, &diff, &bound).await?;
                    let close = jnp::astype(self.ctx, &close, DType::F32).await?;
                    let all = jnp::reduce(self.ctx, &close, None, jnp::Reduction::Min).await?;
                    let one = weak(1.0);
                    jnp::compare(self.ctx, CompareOp::Eq, &all, &one).await?
                }
            };
            no_more_kwargs(name, &kwargs)?;
            Ok(Value::Array(out))
        })
    }

    pub(super) fn call_jnp_more<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if OWN_KWARGS.contains(&name) {
                return self.call_jnp_own_kwargs(name, args, kwargs).await;
            }
            if name == "set_printoptions" || name == "get_printoptions" {
                return print_options(name, args, kwargs);
            }
            let axis = take_kwarg(&mut kwargs, "axis");
            let keepdims = match take_kwarg(&mut kwargs, "keepdims") {
                Some(v) => self.truthy(&v)?,
                None => false,
            };
            let ddof = take_kwarg(&mut kwargs, "ddof");
            // jnp.clip's bounds by name: `min`/`max` (NumPy 2), or the older `a_min`/`a_max`.
            let mut args = args;
            if name == "clip" {
                for (i, [key, old_key]) in [(1, ["min", "a_min"]), (2, ["max", "a_max"])] {
                    let Some(bound) = take_kwarg(&mut kwargs, key).or_else(|| take_kwarg(&mut kwargs, old_key)) else {
                        continue;
                    };
                    if args.len() > i {
                        return err(format!("clip() got multiple values for argument '{key}'"));
                    }
                    args.resize(i, Value::None);
                    args.push(bound);
                }
            }
            // jnp.round(x, decimals): JAX scales by 10^decimals in float32 (at least), rounds half
            // to even and scales back.
            if name == "round" {
                if let Some(d) = take_kwarg(&mut kwargs, "decimals").or_else(|| args.get(1).cloned()) {
                    let decimals = super::jax::int_arg(&d)?;
                    args.truncate(1);
                    if decimals != 0 {
                        no_more_kwargs(name, &kwargs)?;
                        arity(name, &args, 1, 1)?;
                        let x = self.to_tensor(&args[0])?;
                        let dtype = x.aval().dtype;
                        if !dtype.is_float() {
                            if decimals > 0 {
                                return Ok(Value::Array(x));
                            }
                            return unsupported(
                                "jnp.round of integers with negative decimals is not supported by the playground yet",
                            );
                        }
                        let float = self.ctx.default_float();
                        let wide = jnp::astype(self.ctx, &x, float).await?;
                        // The factor at the computation's width (float64 for NumPy on the host).
                        let factor = Tensor::from(jnp::full(&[], 10f64.powi(decimals.clamp(-60, 60) as i32), float));
                        let scaled = jnp::binary(self.ctx, BinaryOp::Mul, &wide, &factor).await?;
                        let rounded = jnp::unary(self.ctx, UnaryOp::RoundEven, &scaled).await?;
                        let back = jnp::binary(self.ctx, BinaryOp::Div, &rounded, &factor).await?;
                        return Ok(Value::Array(jnp::astype(self.ctx, &back, dtype).await?));
                    }
                }
            }
            let precision = if name == "einsum" { precision_arg(take_kwarg(&mut kwargs, "precision"))? } else { None };
            let preferred = if name == "einsum" { take_kwarg(&mut kwargs, "preferred_element_type") } else { None };
            no_more_kwargs(name, &kwargs)?;
            let unary = match name {
                "sin" => Some(UnaryOp::Sin),
                "cos" => Some(UnaryOp::Cos),
                "log1p" => Some(UnaryOp::Log1p),
                "expm1" => Some(UnaryOp::Expm1),
                "exp2" => Some(UnaryOp::Exp2),
                "sign" => Some(UnaryOp::Sign),
                "floor" => Some(UnaryOp::Floor),
                "ceil" => Some(UnaryOp::Ceil),
                "round" => Some(UnaryOp::RoundEven),
                "square" => Some(UnaryOp::Square),
                "logical_not" => Some(UnaryOp::Not),
                _ => None,
            };
            if let Some(op) = unary {
                arity(name, &args, 1, 1)?;
                let mut x = self.to_tensor(&args[0])?;
                if op == UnaryOp::Not {
                    x = jnp::astype(self.ctx, &x, DType::Bool).await?;
                }
                // Integer floor/ceil/round are the identity, as in NumPy.
                if matches!(op, UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::RoundEven) && !x.aval().dtype.is_float() {
                    return Ok(Value::Array(x));
                }
                return Ok(Value::Array(jnp::unary(self.ctx, op, &x).await?));
            }
            let compare = match name {
                "equal" => Some(CompareOp::Eq),
                "not_equal" => Some(CompareOp::Ne),
                "less" => Some(CompareOp::Lt),
                "less_equal" => Some(CompareOp::Le),
                "greater" => Some(CompareOp::Gt),
                "greater_equal" => Some(CompareOp::Ge),
                _ => None,
            };
            if let Some(op) = compare {
                arity(name, &args, 2, 2)?;
                let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                return Ok(Value::Array(jnp::compare(self.ctx, op, &x, &y).await?));
            }
            let out = match name {
                "power" => {
                    arity(name, &args, 2, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    return self.power(&x, &args[1]).await;
                }
                "einsum" => {
                    let Some(Value::Str(spec)) = args.first() else {
                        return err("einsum expects a subscripts string first ('ij,jk->ik')");
                    };
                    let operands: Vec<Tensor> = args[1..].iter().map(|a| self.to_tensor(a)).collect::<R<_>>()?;
                    let sums = super::jax::preferred_sums(name, preferred, &operands.iter().collect::<Vec<_>>())?;
                    jnp::einsum_preferring(self.ctx, spec, &operands, precision, sums).await?
                }
                "broadcast_to" => {
                    arity(name, &args, 2, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let shape: Vec<usize> = super::jax::shape_arg(&args[1])?;
                    jnp::broadcast_to(self.ctx, &x, &shape).await?
                }
                // The flattened operands' products: a[:, None] * b[None, :].
                "outer" => {
                    arity(name, &args, 2, 2)?;
                    let (a, b) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                    let a = jnp::reshape(self.ctx, &a, &[-1, 1]).await?;
                    let b = jnp::reshape(self.ctx, &b, &[1, -1]).await?;
                    jnp::binary(self.ctx, BinaryOp::Mul, &a, &b).await?
                }
                // NaN is the only value unequal to itself.
                "isnan" => {
                    arity(name, &args, 1, 1)?;
                    let x = self.to_tensor(&args[0])?;
                    jnp::compare(self.ctx, CompareOp::Ne, &x, &x).await?
                }
                "remainder" | "mod" | "floor_divide" | "fmod" | "divmod" => {
                    arity(name, &args, 2, 2)?;
                    let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                    match name {
                        "floor_divide" => jnp::floor_divide(self.ctx, &x, &y).await?,
                        "fmod" => jnp::fmod(self.ctx, &x, &y).await?,
                        "divmod" => {
                            let q = jnp::floor_divide(self.ctx, &x, &y).await?;
                            let r = jnp::remainder(self.ctx, &x, &y).await?;
                            return Ok(Value::tuple(vec![Value::Array(q), Value::Array(r)]));
                        }
                        _ => jnp::remainder(self.ctx, &x, &y).await?,
                    }
                }
                "arctan2" | "logical_and" | "logical_or" => {
                    arity(name, &args, 2, 2)?;
                    let (mut x, mut y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                    let op = match name {
                        "arctan2" => {
                            if !x.aval().dtype.is_float() {
                                x = jnp::astype(self.ctx, &x, self.ctx.default_float()).await?;
                            }
                            if !y.aval().dtype.is_float() {
                                y = jnp::astype(self.ctx, &y, self.ctx.default_float()).await?;
                            }
                            BinaryOp::Atan2
                        }
                        "logical_and" => BinaryOp::And,
                        _ => BinaryOp::Or,
                    };
                    if op != BinaryOp::Atan2 {
                        x = jnp::astype(self.ctx, &x, DType::Bool).await?;
                        y = jnp::astype(self.ctx, &y, DType::Bool).await?;
                    }
                    self.bin(op, &x, &y).await?
                }
                "where" => {
                    if args.len() == 1 {
                        return super::unsupported("jnp.where with one argument (nonzero) is not supported by the playground (its output shape depends on the values); pass x and y");
                    }
                    arity(name, &args, 3, 3)?;
                    let (c, x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?, self.to_tensor(&args[2])?);
                    jnp::where_(self.ctx, &c, &x, &y).await?
                }
                "min" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let axes = axes_arg(axis.as_ref().or(args.get(1)))?;
                    let r = jnp::reduce(self.ctx, &x, axes.as_deref(), Reduction::Min).await?;
                    self.maybe_keepdims(r, &x, axes, keepdims).await?
                }
                "argmax" | "argmin" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let a = match axis.as_ref().or(args.get(1)) {
                        None | Some(Value::None) => None,
                        Some(v) => Some(int_arg(v)?),
                    };
                    let r = jnp::arg_reduce(self.ctx, &x, a, name == "argmax").await?;
                    self.maybe_keepdims(r, &x, a.map(|a| vec![a]), keepdims).await?
                }
                "clip" => {
                    arity(name, &args, 1, 3)?;
                    let mut x = self.to_tensor(&args[0])?;
                    if let Some(lo) = args.get(1).filter(|v| !matches!(v, Value::None)) {
                        let lo = self.to_tensor(lo)?;
                        x = self.bin(BinaryOp::Max, &x, &lo).await?;
                    }
                    if let Some(hi) = args.get(2).filter(|v| !matches!(v, Value::None)) {
                        let hi = self.to_tensor(hi)?;
                        x = self.bin(BinaryOp::Min, &x, &hi).await?;
                    }
                    x
                }
                "var" | "std" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let x = if x.aval().dtype.is_float() {
                        x
                    } else {
                        jnp::astype(self.ctx, &x, self.ctx.default_float()).await?
                    };
                    let rank = x.aval().rank();
                    let axes = self.axis_list(axis.as_ref().or(args.get(1)), rank)?;
                    let norm = jnp::normalize_axes(Some(&axes), rank)?;
                    let n: usize = norm.iter().map(|&d| x.aval().shape[d]).product();
                    let ddof = match ddof {
                        Some(v) => int_arg(&v)?,
                        None => 0,
                    };
                    let s = self.sum_axes(&x, &axes).await?;
                    let mean = self.bin(BinaryOp::Div, &s, &weak(n as f32)).await?;
                    let mean = self.keepdims(&mean, rank, &axes).await?;
                    let d = self.bin(BinaryOp::Sub, &x, &mean).await?;
                    let sq = jnp::integer_pow(self.ctx, &d, 2).await?;
                    let ss = self.sum_axes(&sq, &axes).await?;
                    let v = self.bin(BinaryOp::Div, &ss, &weak((n as i64 - ddof) as f32)).await?;
                    let v = if name == "std" { self.un(UnaryOp::Sqrt, &v).await? } else { v };
                    self.maybe_keepdims(v, &x, Some(axes), keepdims).await?
                }
                // jnp.prod: the emulated TPU has no product reduction, so the product is traced as
                // what it runs instead: the reduced axes moved last and flattened, then a chain
                // of multiplies of the slices along them, in order. The product rule gives grad
                // (zeros included) and vmap batches it; at most MAX_PROD_FACTORS factors.
                "prod" => {
                    arity(name, &args, 1, 2)?;
                    let mut x = self.to_tensor(&args[0])?;
                    // As sum: booleans multiply as int32, and NumPy takes every narrower
                    // integer to its default int64.
                    if self.ctx.on_host() && matches!(x.aval().dtype, DType::Bool | DType::I32) {
                        x = jnp::astype(self.ctx, &x, DType::I64).await?;
                    } else if x.aval().dtype == DType::Bool {
                        x = jnp::astype(self.ctx, &x, DType::I32).await?;
                    }
                    let shape = x.aval().shape.clone();
                    let rank = shape.len();
                    let axes = self.axis_list(axis.as_ref().or(args.get(1)), rank)?;
                    let reduced = jnp::normalize_axes(Some(&axes), rank)?;
                    let kept: Vec<usize> = (0..rank).filter(|d| !reduced.contains(d)).collect();
                    let kept_shape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
                    let n: usize = reduced.iter().map(|&d| shape[d]).product();
                    if n > MAX_PROD_FACTORS {
                        return unsupported(format!(
                            "prod over {n} elements is not supported by the playground yet (at most {MAX_PROD_FACTORS}: it is traced as a chain of multiplies)"
                        ));
                    }
                    let order: Vec<usize> = kept.iter().chain(&reduced).copied().collect();
                    let ctx = &mut *self.ctx;
                    let moved = if order.iter().enumerate().all(|(i, &d)| i == d) {
                        x.clone()
                    } else {
                        jnp::transpose(ctx, &x, Some(&order)).await?
                    };
                    let mut rows: Vec<i64> = kept_shape.iter().map(|&d| d as i64).collect();
                    rows.push(n as i64);
                    let rows_t = jnp::reshape(ctx, &moved, &rows).await?;
                    let kept_dims: Vec<i64> = kept_shape.iter().map(|&d| d as i64).collect();
                    let mut product: Option<Tensor> = None;
                    for i in 0..n {
                        let mut start = vec![0; kept.len() + 1];
                        start[kept.len()] = i;
                        let mut limit = kept_shape.clone();
                        limit.push(i + 1);
                        let prim = Primitive::Slice { start_indices: start, limit_indices: limit, strides: None };
                        let factor = jnp::apply1(ctx, prim, &rows_t).await?;
                        let factor = jnp::reshape(ctx, &factor, &kept_dims).await?;
                        product = Some(match product {
                            None => factor,
                            Some(p) => jnp::binary(ctx, BinaryOp::Mul, &p, &factor).await?,
                        });
                    }
                    let product = match product {
                        Some(p) => p,
                        // The empty product.
                        None => Tensor::from(jnp::full(&kept_shape, 1.0, x.aval().dtype)),
                    };
                    self.maybe_keepdims(product, &x, Some(axes), keepdims).await?
                }
                "swapaxes" => {
                    arity(name, &args, 3, 3)?;
                    let x = self.to_tensor(&args[0])?;
                    let rank = x.aval().rank();
                    let pair = [axes_arg(Some(&args[1]))?, axes_arg(Some(&args[2]))?];
                    let [a, b] = pair.map(|p| p.unwrap_or_default());
                    let (a, b) = match (a.as_slice(), b.as_slice()) {
                        ([a], [b]) => (*a, *b),
                        _ => return err("swapaxes expects two integer axes"),
                    };
                    let (a, b) = (jnp::normalize_axes(Some(&[a]), rank)?[0], jnp::normalize_axes(Some(&[b]), rank)?[0]);
                    let mut perm: Vec<usize> = (0..rank).collect();
                    perm.swap(a, b);
                    jnp::transpose(self.ctx, &x, Some(&perm)).await?
                }
                "expand_dims" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let a = axes_arg(axis.as_ref().or(args.get(1)))?.unwrap_or_default();
                    let out_rank = x.aval().rank() + a.len();
                    let positions = jnp::normalize_axes(Some(&a), out_rank)?;
                    let mut it = x.aval().shape.iter();
                    let shape: Vec<i64> = (0..out_rank)
                        .map(|d| if positions.contains(&d) { 1 } else { *it.next().unwrap_or(&1) as i64 })
                        .collect();
                    jnp::reshape(self.ctx, &x, &shape).await?
                }
                "squeeze" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let rank = x.aval().rank();
                    let dims = match axes_arg(axis.as_ref().or(args.get(1)))? {
                        None => (0..rank).filter(|&d| x.aval().shape[d] == 1).collect(),
                        Some(a) => jnp::normalize_axes(Some(&a), rank)?,
                    };
                    jnp::apply1(self.ctx, Primitive::Squeeze { dimensions: dims }, &x).await?
                }
                "cumsum" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    match axis.as_ref().or(args.get(1)) {
                        None | Some(Value::None) => {
                            let n = x.aval().size() as i64;
                            let flat = jnp::reshape(self.ctx, &x, &[n]).await?;
                            jnp::apply1(self.ctx, Primitive::Cumsum { axis: 0, reverse: false }, &flat).await?
                        }
                        Some(v) => {
                            let a = jnp::normalize_axes(Some(&[int_arg(v)?]), x.aval().rank())?[0];
                            jnp::apply1(self.ctx, Primitive::Cumsum { axis: a, reverse: false }, &x).await?
                        }
                    }
                }
                "concatenate" | "stack" => {
                    arity(name, &args, 1, 2)?;
                    let items: Vec<Value> = match &args[0] {
                        Value::List(l) => l.borrow().clone(),
                        Value::Tuple(t) => t.to_vec(),
                        other => {
                            return err(format!("{name} expects a list or tuple of arrays, got {}", other.type_name()))
                        }
                    };
                    if items.is_empty() {
                        return super::value_err(format!("need at least one array to {name}"));
                    }
                    let a = match axis.as_ref().or(args.get(1)) {
                        None => 0,
                        Some(v) => int_arg(v)?,
                    };
                    let mut ts = Vec::new();
                    for i in &items {
                        ts.push(self.to_tensor(i)?);
                    }
                    // Stacking is concatenating after a reshape; say what is wrong in the
                    // caller's terms rather than the reshaped arrays'.
                    if name == "stack" {
                        if let Some(t) = ts.iter().find(|t| t.aval().shape != ts[0].aval().shape) {
                            return err(format!(
                                "stack requires arrays of one shape, got {} and {}",
                                jnp::shape_str(&ts[0].aval().shape),
                                jnp::shape_str(&t.aval().shape)
                            ));
                        }
                    }
                    let mut parts = Vec::new();
                    for t in promoted(self.ctx, &ts).await? {
                        let t = if name == "stack" {
                            let rank = t.aval().rank() + 1;
                            let pos = jnp::normalize_axes(Some(&[a]), rank)?[0];
                            let mut shape: Vec<i64> = t.aval().shape.iter().map(|&d| d as i64).collect();
                            shape.insert(pos, 1);
                            jnp::reshape(self.ctx, &t, &shape).await?
                        } else {
                            t
                        };
                        parts.push(t);
                    }
                    let rank = parts[0].aval().rank();
                    if rank == 0 {
                        return super::value_err("zero-dimensional arrays cannot be concatenated");
                    }
                    let dim = jnp::normalize_axes(Some(&[a]), rank)?[0];
                    jnp::apply(self.ctx, Primitive::Concatenate { dimension: dim }, &parts).await?
                }
                _ => return super::unsupported(format!("jnp.{name} is not implemented")),
            };
            Ok(Value::Array(out))
        })
    }

    pub(super) fn maybe_keepdims<'a>(
        &'a mut self,
        r: Tensor,
        x: &'a Tensor,
        axes: Option<Vec<i64>>,
        keep: bool,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            if !keep {
                return Ok(r);
            }
            let rank = x.aval().rank();
            let axes = axes.unwrap_or_else(|| (0..rank as i64).collect());
            self.keepdims(&r, rank, &axes).await
        })
    }

    pub(super) fn call_lax<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match name {
                _ if super::arrange::LAX_ARRANGE.contains(&name) => return self.call_arrange(name, args, kwargs).await,
                _ if super::pmap::LAX_COLLECTIVES.contains(&name) => {
                    return self.call_collective(name, args, kwargs).await
                }
                _ if super::shorthands::LAX_SHORTHANDS.contains(&name) => {
                    return self.call_lax_shorthand(name, args, kwargs).await
                }
                "fori_loop" => {
                    let mut args = args;
                    super::builtins::by_position(
                        name,
                        &mut args,
                        &mut kwargs,
                        &["lower", "upper", "body_fun", "init_val"],
                    )?;
                    let unroll = take_kwarg(&mut kwargs, "unroll");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 4, 4)?;
                    // Bounds known while tracing: a scan over (i, carry); known only when the
                    // program runs: a while loop over (i, upper, carry). As JAX stages them.
                    let traced = args[..2].iter().any(|v| matches!(v, Value::Array(Tensor::Traced(_))));
                    let (helper, args) = if traced {
                        if unroll
                            .as_ref()
                            .is_some_and(|u| !matches!(u, Value::None | Value::Bool(false) | Value::Int(1)))
                        {
                            return super::value_err(
                                "Can only use `unroll` in `fori_loop` if the loop bounds are statically known.",
                            );
                        }
                        ("fori_loop_while", args)
                    } else {
                        let (lo, hi) = (int_arg(&args[0])?, int_arg(&args[1])?);
                        let mut args = args;
                        args[0] = Value::Int(lo);
                        args[1] = Value::Int(hi);
                        args.push(unroll.unwrap_or(Value::None));
                        ("fori_loop_scan", args)
                    };
                    return self.python_helper(helper, args).await;
                }
                "while_loop" => {
                    let mut args = args;
                    super::builtins::by_position(name, &mut args, &mut kwargs, &["cond_fun", "body_fun", "init_val"])?;
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 3, 3)?;
                    let mut args = args.into_iter();
                    let (cond, body, init) = (args.next(), args.next(), args.next());
                    let (Some(cond), Some(body), Some(init)) = (cond, body, init) else {
                        return err("while_loop() needs cond_fun, body_fun and init_val");
                    };
                    return self.while_loop(cond, body, init).await;
                }
                // Traced once, staged as one `scan` equation (see control.rs).
                "scan" => {
                    let mut kwargs = kwargs;
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (f, init, xs) = (arg(0, "f"), arg(1, "init"), arg(2, "xs"));
                    let (length, reverse, unroll) = (arg(3, "length"), arg(4, "reverse"), arg(5, "unroll"));
                    let _ = take_kwarg(&mut kwargs, "_split_transpose");
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(f), Some(init)) = (f, init) else {
                        return err("scan() needs f and init");
                    };
                    let reverse = match &reverse {
                        Some(v) => self.truthy(v)?,
                        None => false,
                    };
                    let options = ScanOptions { length, reverse, unroll };
                    return self.scan(ScanBody::Scan(f), init, xs, options).await;
                }
                // `lax.dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch,
                // rhs_batch)))`: the primitive itself, batch axes first in the result, then
                // lhs's free axes, then rhs's. Operands of different dtypes are promoted first.
                "dot_general" => {
                    let mut kwargs = kwargs;
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (lhs, rhs, numbers) = (arg(0, "lhs"), arg(1, "rhs"), arg(2, "dimension_numbers"));
                    let precision = precision_arg(arg(3, "precision"))?;
                    let preferred = arg(4, "preferred_element_type");
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(lhs), Some(rhs), Some(numbers)) = (lhs, rhs, numbers) else {
                        return err("dot_general() needs lhs, rhs and dimension_numbers");
                    };
                    let dims = self.dot_dimension_numbers(&numbers)?;
                    let (lhs, rhs) = (self.to_tensor(&lhs)?, self.to_tensor(&rhs)?);
                    let named_preferred = !matches!(preferred, None | Some(Value::None));
                    let sums = super::jax::preferred_sums(name, preferred, &[&lhs, &rhs])?;
                    let ([a, b], dtype) = self.dot_operands(&lhs, &rhs).await?;
                    // JAX records `preferred_element_type` only where the call names one.
                    let preferred_element_type = named_preferred.then_some(sums.unwrap_or(dtype));
                    let prim = jaxlite::Primitive::DotGeneral { dims, precision, preferred_element_type };
                    return Ok(Value::Array(jnp::apply(self.ctx, prim, &[a, b]).await?));
                }
                "conv_general_dilated" | "conv" | "conv_with_general_padding" => {
                    let mut kwargs = kwargs;
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (lhs, rhs) = (arg(0, "lhs"), arg(1, "rhs"));
                    let (strides, padding) = (arg(2, "window_strides"), arg(3, "padding"));
                    let general = name == "conv_general_dilated";
                    // conv_with_general_padding: conv_general_dilated's first six parameters,
                    // then the precision.
                    let dilated = general || name == "conv_with_general_padding";
                    let dilations =
                        if dilated { [arg(4, "lhs_dilation"), arg(5, "rhs_dilation")] } else { [None, None] };
                    let numbers = if general { arg(6, "dimension_numbers") } else { None };
                    let groups = if general { arg(7, "feature_group_count") } else { None };
                    let precision = if general {
                        None
                    } else if dilated {
                        arg(6, "precision")
                    } else {
                        arg(4, "precision")
                    };
                    let precision = precision_arg(precision.or_else(|| take_kwarg(&mut kwargs, "precision")))?;
                    let preferred = take_kwarg(&mut kwargs, "preferred_element_type");
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(lhs), Some(rhs), Some(strides), Some(padding)) = (lhs, rhs, strides, padding) else {
                        return err(format!("{name}() needs lhs, rhs, window_strides and padding"));
                    };
                    let operands = vec![self.to_tensor(&lhs)?, self.to_tensor(&rhs)?];
                    let mut xw = self.preferred_operands(name, preferred, operands).await?;
                    // A 1-D convolution (`(N, C, W)` operands, as a sequence model's) is the 2-D
                    // one with a trailing spatial axis of one: taps, strides and padding of one
                    // along it, its axis dropped from the result.
                    let one_spatial = xw[0].aval().rank() == 3;
                    let spatial = xw[0].aval().rank().saturating_sub(2);
                    let lift = |v: Vec<i64>| if one_spatial { [v, vec![1]].concat() } else { v };
                    let mut dilation = jnp::ConvDilation::default();
                    for (d, slot) in dilations.iter().zip([&mut dilation.lhs, &mut dilation.rhs]) {
                        if let Some(d) = d.as_ref().filter(|d| !matches!(d, Value::None)) {
                            let ds: Vec<i64> = self.iterate(d)?.iter().map(int_arg).collect::<R<_>>()?;
                            if ds.len() != spatial || ds.iter().any(|&f| f <= 0) {
                                return err(format!(
                                    "{name}: a dilation needs a positive factor per spatial dimension ({spatial}), got {}",
                                    super::value::repr(d)
                                ));
                            }
                            *slot = lift(ds).into_iter().map(|f| f as usize).collect();
                        }
                    }
                    if let Some(g) = groups.as_ref().filter(|g| !matches!(g, Value::None)) {
                        match int_arg(g)? {
                            g if g > 0 => dilation.groups = g as usize,
                            g => {
                                return super::value_err(format!(
                                    "{name}: feature_group_count must be positive, got {g}"
                                ))
                            }
                        }
                    }
                    let strides: Vec<i64> = self.iterate(&strides)?.iter().map(int_arg).collect::<R<_>>()?;
                    if strides.len() != spatial || strides.iter().any(|&s| s <= 0) {
                        return err(format!(
                            "{name}: window_strides needs a positive stride per spatial dimension ({spatial}), got {}",
                            super::value::repr(&Value::tuple(strides.iter().map(|&s| Value::Int(s)).collect()))
                        ));
                    }
                    let strides: Vec<usize> = lift(strides).into_iter().map(|s| s as usize).collect();
                    let mut padding = self.padding_arg(name, &padding)?;
                    if let jnp::ConvPadding::Explicit(pairs) = &mut padding {
                        if one_spatial && pairs.len() == 1 {
                            pairs.push((0, 0));
                        }
                    }
                    let specs: Vec<String> = match numbers {
                        // JAX's default: batch and features first, then the spatial dimensions.
                        None | Some(Value::None) => {
                            let letters: String = "HWDUVXYZ".chars().take(spatial).collect();
                            vec![format!("NC{letters}"), format!("OI{letters}"), format!("NC{letters}")]
                        }
                        Some(v) => self
                            .iterate_values(&v)
                            .await?
                            .iter()
                            .zip([["N", "C"], ["O", "I"], ["N", "C"]])
                            .map(|(s, roles)| match s {
                                Value::Str(s) => Ok(s.to_string()),
                                // A `ConvDimensionNumbers` spec: positions of the two roles,
                                // then of the spatial dimensions in the kernel's order.
                                Value::Tuple(positions) => spec_letters(positions, roles).ok_or_else(|| {
                                    super::RtError::new(format!("{name}: a dimension_numbers spec must be a permutation of the dimensions, got {}", super::value::repr(s)))
                                }),
                                _ => err(format!(
                                    "{name}: dimension_numbers must be three strings such as ('NHWC', 'HWIO', 'NHWC')"
                                )),
                            })
                            .collect::<R<_>>()?,
                    };
                    let [a, b, c] = specs.as_slice() else {
                        return err(format!("{name}: dimension_numbers must be three strings"));
                    };
                    let (a, b, c) = if one_spatial {
                        // '1' names the added axis: neither a batch nor a feature axis.
                        for t in xw.iter_mut() {
                            let mut shape: Vec<i64> = t.aval().shape.iter().map(|&d| d as i64).collect();
                            shape.push(1);
                            *t = jnp::reshape(self.ctx, t, &shape).await?;
                        }
                        (format!("{a}1"), format!("{b}1"), format!("{c}1"))
                    } else {
                        (a.clone(), b.clone(), c.clone())
                    };
                    let specs = [a.as_str(), b.as_str(), c.as_str()];
                    let y = jnp::conv(self.ctx, &xw[0], &xw[1], &strides, &padding, dilation, specs, precision).await?;
                    if one_spatial {
                        let shape: Vec<i64> = y.aval().shape[..3].iter().map(|&d| d as i64).collect();
                        return Ok(Value::Array(jnp::reshape(self.ctx, &y, &shape).await?));
                    }
                    return Ok(Value::Array(y));
                }
                "cond" => {
                    // `operand=x`: JAX's older spelling of one operand.
                    let operand = take_kwarg(&mut kwargs, "operand");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 3, usize::MAX)?;
                    let operands = match operand {
                        Some(_) if args.len() > 3 => {
                            return err("cond: if `operand` is passed, positional `operands` should not be")
                        }
                        Some(x) => vec![x],
                        None => args[3..].to_vec(),
                    };
                    if !self.is_callable(&args[1]) || !self.is_callable(&args[2]) {
                        // `cond(pred, true_operand, true_fun, false_operand, false_fun)`, the old
                        // form JAX still falls back to.
                        if self.is_callable(&args[2]) && operands.len() == 2 && self.is_callable(&operands[1]) {
                            return self.python_helper("cond_with_operands", args).await;
                        }
                        return super::type_err("lax.cond: true_fun and false_fun arguments should be callable.");
                    }
                    let pred = &args[0];
                    let tensor = self.to_tensor(pred)?;
                    if tensor.aval().rank() != 0 {
                        let shape = jnp::shape_str(&tensor.aval().shape);
                        return super::type_err(format!(
                            "Pred must be a scalar, got {} of shape {shape}.",
                            super::value::to_str(pred)
                        ));
                    }
                    // Outside a trace a known predicate picks its branch at once.
                    if !self.ctx.is_tracing() {
                        let branch = if self.truthy(pred)? { &args[1] } else { &args[2] };
                        return self.call(branch.clone(), operands, vec![]).await;
                    }
                    // The index: the predicate as an int32 (a number compared with zero first);
                    // a Python value is a constant, as JAX converts it without staging anything.
                    let index = match pred {
                        Value::Array(_) => {
                            let holds = if tensor.aval().dtype == DType::Bool {
                                tensor
                            } else {
                                let zero = Tensor::from(jnp::full(&[], 0.0, tensor.aval().dtype));
                                jnp::compare(self.ctx, CompareOp::Ne, &tensor, &zero).await?
                            };
                            let to_int = Primitive::ConvertElementType { new_dtype: DType::I32, weak_type: false };
                            self.ctx.bind(to_int, &[holds]).await?.remove(0)
                        }
                        other => super::jax::int32_scalar(i64::from(self.truthy(other)?)),
                    };
                    let branches = [args[2].clone(), args[1].clone()];
                    return self.branch_on(Conditional::Cond, index, &branches, &operands).await;
                }
                // `branches[index]` with the index clamped into range, as JAX.
                "switch" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, usize::MAX)?;
                    let branches = self.iterate(&args[1])?;
                    let operands = args[2..].to_vec();
                    let index = self.to_tensor(&args[0])?;
                    let aval = index.aval().clone();
                    if aval.rank() != 0 {
                        let shape = jnp::shape_str(&aval.shape);
                        let shown = super::value::to_str(&args[0]);
                        return super::type_err(format!("Branch index must be scalar, got {shown} of shape {shape}."));
                    }
                    if !matches!(aval.dtype, DType::I32 | DType::I64 | DType::U32) {
                        let shown = super::value::to_str(&args[0]);
                        return super::type_err(format!(
                            "Index type must be an integer, got {shown} as {}",
                            aval.dtype.name()
                        ));
                    }
                    let Some(last) = branches.len().checked_sub(1) else {
                        return super::value_err("Empty branch sequence");
                    };
                    if last == 0 || !self.ctx.is_tracing() {
                        let i = match index.concrete() {
                            Some(a) => a.to_f64_vec()[0] as i64,
                            None => 0,
                        };
                        return self.call(branches[i.clamp(0, last as i64) as usize].clone(), operands, vec![]).await;
                    }
                    let index = match &args[0] {
                        Value::Array(_) if aval.dtype != DType::I32 || aval.weak_type => {
                            let to_int = Primitive::ConvertElementType { new_dtype: DType::I32, weak_type: false };
                            self.ctx.bind(to_int, &[index]).await?.remove(0)
                        }
                        Value::Array(_) => index,
                        other => super::jax::int32_scalar(int_arg(other)?),
                    };
                    let bounds = [super::jax::int32_scalar(0), index, super::jax::int32_scalar(last as i64)];
                    let index = self.ctx.bind(Primitive::Clamp, &bounds).await?.remove(0);
                    return self.branch_on(Conditional::Switch, index, &branches, &operands).await;
                }
                // `x` held within `[min, max]`; a Python number is int32 or float32 (weakly
                // typed), and every operand must have one dtype, as JAX requires.
                "clamp" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 3, 3)?;
                    let operands = args.iter().map(|a| self.to_tensor(a)).collect::<R<Vec<Tensor>>>()?;
                    if operands.iter().any(|t| t.aval().dtype != operands[1].aval().dtype) {
                        let dtypes: Vec<&str> = operands.iter().map(|t| t.aval().dtype.name()).collect();
                        return super::type_err(format!(
                            "lax.clamp requires arguments to have the same dtypes, got {}.",
                            dtypes.join(", ")
                        ));
                    }
                    return Ok(Value::Array(self.ctx.bind(Primitive::Clamp, &operands).await?.remove(0)));
                }
                // The primitive itself: always strongly typed, as JAX's.
                "convert_element_type" => {
                    let mut kwargs = kwargs;
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (operand, new_dtype) = (arg(0, "operand"), arg(1, "new_dtype"));
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(operand), Some(new_dtype)) = (operand, new_dtype) else {
                        return super::type_err("convert_element_type() needs operand and new_dtype");
                    };
                    let new_dtype = super::jax::dtype_arg(&new_dtype)?;
                    let out = match self.to_tensor(&operand)? {
                        Tensor::Concrete(a) => {
                            let mut a = a.astype(new_dtype);
                            a.aval.weak_type = false;
                            Tensor::from(a)
                        }
                        x => {
                            let prim = Primitive::ConvertElementType { new_dtype, weak_type: false };
                            jnp::apply(self.ctx, prim, &[x]).await?
                        }
                    };
                    return Ok(Value::Array(out));
                }
                "cumsum" => {
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (operand, axis, reverse) = (arg(0, "operand"), arg(1, "axis"), arg(2, "reverse"));
                    no_more_kwargs(name, &kwargs)?;
                    let Some(operand) = operand else {
                        return super::type_err("cumsum() missing 1 required positional argument: 'operand'");
                    };
                    let x = self.to_tensor(&operand)?;
                    let axis = match axis {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    let axis = jnp::normalize_axes(Some(&[axis]), x.aval().rank())?[0];
                    let reverse = match reverse {
                        None => false,
                        Some(v) => self.truthy(&v)?,
                    };
                    return Ok(Value::Array(jnp::apply1(self.ctx, Primitive::Cumsum { axis, reverse }, &x).await?));
                }
                "reduce_precision" => {
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (operand, exponent, mantissa) =
                        (arg(0, "operand"), arg(1, "exponent_bits"), arg(2, "mantissa_bits"));
                    no_more_kwargs(name, &kwargs)?;
                    let (Some(operand), Some(exponent), Some(mantissa)) = (operand, exponent, mantissa) else {
                        return super::type_err("reduce_precision() missing required arguments: 'operand', 'exponent_bits' and 'mantissa_bits'");
                    };
                    let bits = |v: &Value, what: &str| -> R<u32> {
                        let n = int_arg(v)?;
                        u32::try_from(n).map_err(|_| {
                            super::RtError::of(
                                super::objects::Builtin::ValueError,
                                format!("reduce_precision: {what} must be non-negative; got {n}"),
                            )
                        })
                    };
                    let (exponent_bits, mantissa_bits) =
                        (bits(&exponent, "exponent_bits")?, bits(&mantissa, "mantissa_bits")?);
                    if exponent_bits < 1 {
                        return super::value_err(format!(
                            "reduce_precision: exponent_bits must be positive; got {exponent_bits}"
                        ));
                    }
                    let x = self.to_tensor(&operand)?;
                    let out = self
                        .ctx
                        .bind(jaxlite::Primitive::ReducePrecision { exponent_bits, mantissa_bits }, &[x])
                        .await?;
                    return Ok(Value::of_tensor(out.into_iter().next().expect("one output")));
                }
                _ => {}
            }
            no_more_kwargs(name, &kwargs)?;
            let unary = match name {
                "exp" => Some(UnaryOp::Exp),
                "log" => Some(UnaryOp::Log),
                "tanh" => Some(UnaryOp::Tanh),
                "sin" => Some(UnaryOp::Sin),
                "cos" => Some(UnaryOp::Cos),
                "sqrt" => Some(UnaryOp::Sqrt),
                "rsqrt" => Some(UnaryOp::Rsqrt),
                "abs" => Some(UnaryOp::Abs),
                "neg" => Some(UnaryOp::Neg),
                "sign" => Some(UnaryOp::Sign),
                "logistic" => Some(UnaryOp::Logistic),
                "erf" => Some(UnaryOp::Erf),
                _ => None,
            };
            if let Some(op) = unary {
                return self.unary_call(name, &args, op).await;
            }
            let pairwise = match name {
                "add" => Some(Pairwise::Arithmetic(BinaryOp::Add)),
                "sub" => Some(Pairwise::Arithmetic(BinaryOp::Sub)),
                "mul" => Some(Pairwise::Arithmetic(BinaryOp::Mul)),
                "div" => Some(Pairwise::Arithmetic(BinaryOp::Div)),
                "max" => Some(Pairwise::Arithmetic(BinaryOp::Max)),
                "min" => Some(Pairwise::Arithmetic(BinaryOp::Min)),
                "pow" => Some(Pairwise::Arithmetic(BinaryOp::Pow)),
                "rem" => Some(Pairwise::Arithmetic(BinaryOp::Rem)),
                "lt" => Some(Pairwise::Comparison(CompareOp::Lt)),
                "le" => Some(Pairwise::Comparison(CompareOp::Le)),
                "gt" => Some(Pairwise::Comparison(CompareOp::Gt)),
                "ge" => Some(Pairwise::Comparison(CompareOp::Ge)),
                "eq" => Some(Pairwise::Comparison(CompareOp::Eq)),
                "ne" => Some(Pairwise::Comparison(CompareOp::Ne)),
                _ => None,
            };
            if let Some(op) = pairwise {
                arity(name, &args, 2, 2)?;
                let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                // lax does not promote (jnp does): two arrays of different dtypes are an error in
                // JAX. Python scalars are weakly typed and take the other operand's dtype.
                // (`pow` is left out: JAX lets an integer exponent raise a float.)
                let (xa, ya) = (x.aval(), y.aval());
                if name != "pow" && xa.dtype != ya.dtype && !xa.weak_type && !ya.weak_type {
                    let message = format!(
                        "lax.{name} requires arguments to have the same dtypes, got {}, {}.",
                        xa.dtype, ya.dtype
                    );
                    let jnp_name = match name {
                        "sub" => "subtract",
                        "mul" => "multiply",
                        "div" => "divide",
                        "max" => "maximum",
                        "min" => "minimum",
                        other => other,
                    };
                    return match op {
                        Pairwise::Arithmetic(_) => err(format!(
                            "{message} (Tip: jnp.{jnp_name} is a similar function that does automatic type promotion on inputs)."
                        )),
                        Pairwise::Comparison(_) => super::type_err(message),
                    };
                }
                let out = match op {
                    Pairwise::Arithmetic(op) => jnp::binary(self.ctx, op, &x, &y).await?,
                    Pairwise::Comparison(op) => jnp::compare(self.ctx, op, &x, &y).await?,
                };
                return Ok(Value::Array(out));
            }
            match name {
                "stop_gradient" => {
                    arity(name, &args, 1, 1)?;
                    let mut leaves = Vec::new();
                    let tree = self.flatten(&args[0], &mut leaves).await?;
                    let mut outs = Vec::new();
                    for l in &leaves {
                        outs.push(self.stop_gradient(l).await?);
                    }
                    Ok(self.unflatten_tensors(&tree, outs).await?)
                }
                "integer_pow" => {
                    arity(name, &args, 2, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let y = i32::try_from(int_arg(&args[1])?).map_err(|_| {
                        super::RtError::of(super::objects::Builtin::IndexError, "integer_pow exponent out of range")
                    })?;
                    Ok(Value::Array(jnp::integer_pow(self.ctx, &x, y).await?))
                }
                "select" => {
                    arity(name, &args, 3, 3)?;
                    let (c, x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?, self.to_tensor(&args[2])?);
                    // Unlike jnp.where, lax.select neither broadcasts nor promotes: JAX refuses
                    // what jnp.where would accept, so the playground does too.
                    let (ca, xa, ya) = (c.aval(), x.aval(), y.aval());
                    if xa.shape != ya.shape {
                        return err(format!(
                            "lax.select cases must have the same shapes, got {} and {}",
                            jnp::shape_str(&xa.shape),
                            jnp::shape_str(&ya.shape)
                        ));
                    }
                    if !ca.shape.is_empty() && ca.shape != xa.shape {
                        return err(format!(
                            "lax.select: the predicate must be a scalar or have the cases' shape {}, got shape {}",
                            jnp::shape_str(&xa.shape),
                            jnp::shape_str(&ca.shape)
                        ));
                    }
                    if ca.dtype != DType::Bool {
                        return err(format!("lax.select: the predicate must be boolean, got {}", ca.dtype));
                    }
                    if xa.dtype != ya.dtype && !xa.weak_type && !ya.weak_type {
                        return err(format!(
                            "lax.select cases must have the same dtypes, got {} and {}",
                            xa.dtype, ya.dtype
                        ));
                    }
                    Ok(Value::Array(jnp::where_(self.ctx, &c, &x, &y).await?))
                }
                _ => super::unsupported(format!("jax.lax.{name} is not supported by the playground yet")),
            }
        })
    }
}

/// Indices for `n` elements under a `jnp.take` mode: "wrap" takes them modulo n, "clip" into
/// [0, n) (negative ones to the first, unless `negative_from_end`), "fill" counts negative ones
/// from the end and clips the rest, returning also which were in range (for `fill_invalid`).
pub(super) async fn index_mode(
    ctx: &mut jaxlite::Context,
    idx: &Tensor,
    n: usize,
    mode: &str,
    negative_from_end: bool,
) -> R<(Tensor, Option<Tensor>)> {
    let n = n as i32;
    let clip = async |ctx: &mut jaxlite::Context, idx: &Tensor| -> R<Tensor> {
        let idx = jnp::binary(ctx, BinaryOp::Max, idx, &int32(0)).await?;
        Ok(jnp::binary(ctx, BinaryOp::Min, &idx, &int32((n - 1).max(0))).await?)
    };
    let from_end = async |ctx: &mut jaxlite::Context, idx: &Tensor| -> R<Tensor> {
        let negative = jnp::compare(ctx, CompareOp::Lt, idx, &int32(0)).await?;
        let wrapped = jnp::binary(ctx, BinaryOp::Add, idx, &int32(n)).await?;
        Ok(jnp::where_(ctx, &negative, &wrapped, idx).await?)
    };
    Ok(match mode {
        "wrap" => (jnp::remainder(ctx, idx, &int32(n)).await?, None),
        "clip" if negative_from_end => {
            let idx = from_end(ctx, idx).await?;
            (clip(ctx, &idx).await?, None)
        }
        "clip" => (clip(ctx, idx).await?, None),
        _ => {
            let idx = from_end(ctx, idx).await?;
            let low = jnp::compare(ctx, CompareOp::Ge, &idx, &int32(0)).await?;
            let high = jnp::compare(ctx, CompareOp::Lt, &idx, &int32(n)).await?;
            let valid = jnp::binary(ctx, BinaryOp::And, &low, &high).await?;
            (clip(ctx, &idx).await?, Some(valid))
        }
    })
}

/// JAX's fill for out-of-range indices (where `valid`, broadcast to `out`, is false): NaN, or
/// int32's minimum, which the emulated machine's float32 words hold exactly (selected in
/// float32 and converted back, so only a result that holds it is an int32 array out of the
/// exact range, which the runtime then refuses loudly rather than rounds).
/// `x` taken along `axis` at `idx` (in range, of x's shape elsewhere), each position choosing
/// among the axis's elements of its own row: the largest of the one element whose index
/// matches and the lowest value of the dtype in place of the others, which gives that element
/// exactly (−0.0, NaN and infinities too). On the machine a gather is a one-hot selection over
/// what it reads from, so this reads one row's `n` elements per position, where a gather from
/// the flattened array read all of them (a 1000×50 `argsort` reorder: 2.5 million, not 2.5
/// billion).
async fn take_within_axis(ctx: &mut jaxlite::Context, x: &Tensor, idx: &Tensor, axis: usize) -> R<Tensor> {
    let rank = x.aval().rank();
    let n = x.aval().shape[axis];
    let dtype = x.aval().dtype;
    // Indices (…, k, …) against the axis's positions: (…, k, …, n), n last.
    let mut choices_shape = idx.aval().shape.clone();
    choices_shape.push(n);
    let positions = jnp::apply(
        ctx,
        jaxlite::Primitive::Iota { dtype: DType::I32, shape: choices_shape.clone(), dimension: rank },
        &[],
    )
    .await?;
    let spread = |dims: Vec<usize>| jaxlite::Primitive::BroadcastInDim {
        shape: choices_shape.clone(),
        broadcast_dimensions: dims,
    };
    let wanted = jnp::apply(ctx, spread((0..rank).collect()), std::slice::from_ref(idx)).await?;
    let chosen = jnp::compare(ctx, jaxlite::CompareOp::Eq, &wanted, &positions).await?;
    // x's axis moved to the end and spread over the taken positions: x[…, j, …, i] = x[…, i, …].
    let mut kept: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
    let mut perm = kept.clone();
    perm.push(axis);
    let moved = jnp::transpose(ctx, x, Some(&perm)).await?;
    kept.push(rank);
    let values = jnp::apply(ctx, spread(kept), &[moved]).await?;
    let values = if dtype == DType::Bool { jnp::astype(ctx, &values, DType::I32).await? } else { values };
    let lowest = match values.aval().dtype {
        d if d.is_float() => f64::NEG_INFINITY,
        DType::U32 => 0.0,
        // The emulated TPU holds integers exactly within ±2^24, so none is lower.
        _ => -16_777_216.0,
    };
    let lowest = Tensor::from(jnp::full(&[], lowest, values.aval().dtype));
    let picked = jnp::where_(ctx, &chosen, &values, &lowest).await?;
    let out = jnp::reduce(ctx, &picked, Some(&[rank as i64]), jnp::Reduction::Max).await?;
    Ok(jnp::astype(ctx, &out, dtype).await?)
}

async fn fill_invalid(ctx: &mut jaxlite::Context, out: &Tensor, valid: &Tensor) -> R<Tensor> {
    Ok(match out.aval().dtype {
        DType::I32 => {
            let out = jnp::astype(ctx, out, DType::F32).await?;
            let fill = Tensor::from(Array::from_f32(vec![], vec![i32::MIN as f32]));
            let out = jnp::where_(ctx, valid, &out, &fill).await?;
            jnp::astype(ctx, &out, DType::I32).await?
        }
        DType::Bool => {
            let fill = Tensor::from(Array::new(vec![], jaxlite::Data::Bool(vec![true])));
            jnp::where_(ctx, valid, out, &fill).await?
        }
        dtype => {
            let nan = jnp::astype(ctx, &weak(f32::NAN), dtype).await?;
            jnp::where_(ctx, valid, out, &nan).await?
        }
    })
}

/// `np.set_printoptions(precision=4, suppress=True)` (also `jnp.`'s, the same options: JAX
/// prints with NumPy) and `np.get_printoptions()`. The options that change the layout
/// (line width, threshold, edge items) are not settable in the playground.
fn print_options(name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Value> {
    use jaxlite::format::{print_options, set_print_options};
    let mut options = print_options();
    if name == "get_printoptions" {
        arity(name, &args, 0, 0)?;
        let s = |v: &str| Value::str(v);
        let entries = vec![
            (s("edgeitems"), Value::Int(3)),
            (s("threshold"), Value::Int(1000)),
            (s("floatmode"), s("maxprec")),
            (s("precision"), Value::Int(options.precision as i64)),
            (s("suppress"), Value::Bool(options.suppress)),
            (s("linewidth"), Value::Int(jaxlite::format::LINE_WIDTH as i64)),
            (s("nanstr"), s("nan")),
            (s("infstr"), s("inf")),
            (s("sign"), s("-")),
            (s("formatter"), Value::None),
            (s("legacy"), Value::Bool(false)),
            (s("override_repr"), Value::None),
        ];
        return Ok(Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(super::value::Dict { entries }))));
    }
    let mut named: Vec<(String, Value)> = ["precision", "threshold", "edgeitems", "linewidth", "suppress"]
        .iter()
        .zip(args)
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    named.extend(kwargs);
    for (key, value) in named {
        match (key.as_str(), &value) {
            (_, Value::None) => {}
            ("precision", v) => match int_arg(v)? {
                p @ 0..=100 => options.precision = p as usize,
                _ => return super::value_err("precision must be a non-negative integer"),
            },
            ("suppress", v) => {
                options.suppress = matches!(v, Value::Bool(true)) || matches!(v, Value::Int(i) if *i != 0)
            }
            (other, _) => {
                return unsupported(format!(
                    "set_printoptions({other}=...) is not supported by the playground yet (precision and suppress are)"
                ))
            }
        }
    }
    set_print_options(options);
    Ok(Value::None)
}

/// `arrays` converted to the one dtype JAX's promotion gives them all (what `concatenate`,
/// `stack` and `vstack` join).
pub(super) async fn promoted(ctx: &mut jaxlite::Context, arrays: &[Tensor]) -> R<Vec<Tensor>> {
    let Some(first) = arrays.first() else { return Ok(Vec::new()) };
    let (mut dtype, mut weak) = (first.aval().dtype, first.aval().weak_type);
    for t in &arrays[1..] {
        (dtype, weak) = jaxlite::dtype::promote(dtype, weak, t.aval().dtype, t.aval().weak_type);
    }
    let mut out = Vec::with_capacity(arrays.len());
    for t in arrays {
        out.push(jnp::astype(ctx, t, dtype).await?);
    }
    Ok(out)
}
