//! `jax.numpy` functions that move elements rather than compute them: flip, roll, pad, repeat,
//! tile, meshgrid, sort and argsort; and `lax.rev`, `lax.reduce_window` and the
//! `lax.dynamic_*slice*` family. Each is a composition of primitives
//! (`rev`, `slice`, `concatenate`, `pad`, `broadcast_in_dim`, `reshape`, compares and sums), as
//! JAX's own `jnp` writes them, so they trace, differentiate, batch and compile like the rest.

use super::builtins::{no_more_kwargs, take_kwarg};
use super::jax::{axes_arg, int_arg};
use super::value::{repr, Value};
use super::{err, unsupported, Interp, R};
use jaxlite::numpy::{self as jnp, Reduction};
use jaxlite::{Array, BinaryOp, CompareOp, Context, DType, LocalFuture, Primitive, Tensor};

/// `jax.numpy` names implemented here.
pub const JNP_ARRANGE: &[&str] =
    &["flip", "fliplr", "flipud", "roll", "pad", "repeat", "tile", "meshgrid", "sort", "argsort"];

/// `jax.lax` names implemented here.
pub const LAX_ARRANGE: &[&str] = &[
    "rev",
    "reduce_window",
    "dynamic_slice",
    "dynamic_update_slice",
    "dynamic_slice_in_dim",
    "dynamic_index_in_dim",
    "dynamic_update_slice_in_dim",
];

/// The most elements one `reduce_window` window may hold (one traced slice each).
const MAX_WINDOW: usize = 1024;

/// The most comparisons one sort may make (rows × n²): it sorts by counting (below).
const MAX_SORT_COMPARISONS: usize = 1 << 24;

type Ctx = Context;

pub(super) fn shape_i64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

async fn rev(ctx: &mut Ctx, x: &Tensor, dimensions: Vec<usize>) -> R<Tensor> {
    if dimensions.is_empty() {
        return Ok(x.clone());
    }
    Ok(jnp::apply1(ctx, Primitive::Rev { dimensions }, x).await?)
}

/// `x[lo:hi]` along `axis`.
pub(super) async fn slice_axis(ctx: &mut Ctx, x: &Tensor, axis: usize, lo: usize, hi: usize) -> R<Tensor> {
    let shape = &x.aval().shape;
    let mut start = vec![0; shape.len()];
    let mut limit = shape.clone();
    start[axis] = lo;
    limit[axis] = hi;
    Ok(jnp::apply1(ctx, Primitive::Slice { start_indices: start, limit_indices: limit, strides: None }, x).await?)
}

async fn concatenate(ctx: &mut Ctx, parts: Vec<Tensor>, axis: usize) -> R<Tensor> {
    let parts: Vec<Tensor> = parts.into_iter().filter(|p| p.aval().shape[axis] > 0).collect();
    match parts.len() {
        0 => err("concatenate of nothing"),
        1 => Ok(parts[0].clone()),
        _ => Ok(jnp::apply(ctx, Primitive::Concatenate { dimension: axis }, &parts).await?),
    }
}

/// `x` with a new axis of size `n` inserted at `at`, repeating it.
async fn repeat_new_axis(ctx: &mut Ctx, x: &Tensor, at: usize, n: usize) -> R<Tensor> {
    let mut shape = x.aval().shape.clone();
    shape.insert(at, 1);
    let x = jnp::reshape(ctx, x, &shape_i64(&shape)).await?;
    shape[at] = n;
    Ok(jnp::broadcast_to(ctx, &x, &shape).await?)
}

/// A sequence argument (an int alone is one item) as ints.
fn ints(interp: &Interp<'_, '_>, v: &Value) -> R<Vec<i64>> {
    match v {
        Value::Int(_) => Ok(vec![int_arg(v)?]),
        Value::Array(Tensor::Concrete(a)) if a.shape().is_empty() => Ok(vec![int_arg(v)?]),
        other => interp.iterate(other)?.iter().map(int_arg).collect(),
    }
}

impl Interp<'_, '_> {
    pub(super) fn call_arrange<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if name == "meshgrid" {
                return self.meshgrid(args, kwargs).await;
            }
            if name.starts_with("dynamic_") {
                return self.dynamic_slice(name, args, kwargs).await;
            }
            if name == "reduce_window" {
                return self.reduce_window(args, kwargs).await;
            }
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let first = match name {
                "pad" => "array",
                "tile" => "A",
                "rev" => "operand",
                "fliplr" | "flipud" | "flip" => "m",
                _ => "a",
            };
            let x = arg(0, first).ok_or_else(|| super::RtError::new(format!("{name}() missing argument '{first}'")))?;
            let x = self.to_tensor(&x)?;
            let rank = x.aval().rank();
            let out = match name {
                "flip" | "rev" => {
                    let axes = match (name, arg(1, if name == "rev" { "dimensions" } else { "axis" })) {
                        ("rev", None) => return err("rev() missing argument 'dimensions'"),
                        (_, None | Some(Value::None)) => (0..rank).collect(),
                        (_, Some(v)) => jnp::normalize_axes(Some(&ints(self, &v)?), rank)?,
                    };
                    no_more_kwargs(name, &kwargs)?;
                    rev(self.ctx, &x, axes).await?
                }
                "fliplr" | "flipud" => {
                    no_more_kwargs(name, &kwargs)?;
                    let axis = usize::from(name == "fliplr");
                    if rank <= axis {
                        return err(format!("{name} requires an array of at least {} dimensions", axis + 1));
                    }
                    rev(self.ctx, &x, vec![axis]).await?
                }
                "roll" => {
                    let shift =
                        arg(1, "shift").ok_or_else(|| super::RtError::new("roll() missing argument 'shift'"))?;
                    let axis = arg(2, "axis");
                    no_more_kwargs(name, &kwargs)?;
                    let shifts = ints(self, &shift)?;
                    match axes_arg(axis.as_ref())? {
                        // The flattened array, rolled, in its shape again.
                        None => {
                            let [shift] = shifts[..] else {
                                return err("roll: with axis=None, shift must be a single int");
                            };
                            let flat = jnp::reshape(self.ctx, &x, &[-1]).await?;
                            let rolled = roll(self.ctx, &flat, shift, 0).await?;
                            jnp::reshape(self.ctx, &rolled, &shape_i64(&x.aval().shape)).await?
                        }
                        Some(axes) => {
                            let axes = jnp::normalize_axes(Some(&axes), rank)?;
                            let shifts = match (shifts.len(), axes.len()) {
                                (1, n) => vec![shifts[0]; n],
                                (a, b) if a == b => shifts,
                                (a, b) => return super::value_err(format!("roll: {a} shifts for {b} axes")),
                            };
                            let mut out = x.clone();
                            for (&axis, &shift) in axes.iter().zip(&shifts) {
                                out = roll(self.ctx, &out, shift, axis).await?;
                            }
                            out
                        }
                    }
                }
                "pad" => {
                    let width =
                        arg(1, "pad_width").ok_or_else(|| super::RtError::new("pad() missing argument 'pad_width'"))?;
                    let mode = match arg(2, "mode") {
                        None => "constant".to_string(),
                        Some(Value::Str(m)) => m.to_string(),
                        Some(other) => return err(format!("pad: mode must be a string, got {}", repr(&other))),
                    };
                    let value = take_kwarg(&mut kwargs, "constant_values");
                    no_more_kwargs(name, &kwargs)?;
                    let widths = self.pad_widths(&width, rank)?;
                    self.pad(&x, &widths, &mode, value).await?
                }
                "repeat" => {
                    let repeats =
                        arg(1, "repeats").ok_or_else(|| super::RtError::new("repeat() missing argument 'repeats'"))?;
                    let axis = arg(2, "axis");
                    let _ = take_kwarg(&mut kwargs, "total_repeat_length");
                    no_more_kwargs(name, &kwargs)?;
                    let n = match &repeats {
                        Value::Int(n) => *n,
                        other => {
                            return unsupported(format!(
                                "repeat with repeats={} (an array of counts) is not supported by the playground yet; pass one int",
                                repr(other)
                            ))
                        }
                    };
                    if n < 0 {
                        return super::value_err(format!("repeat: repeats may not be negative, got {n}"));
                    }
                    let (x, axis) = match axes_arg(axis.as_ref())? {
                        None => (jnp::reshape(self.ctx, &x, &[-1]).await?, 0),
                        Some(a) if a.len() == 1 => (x.clone(), jnp::normalize_axes(Some(&a), rank)?[0]),
                        Some(_) => return err("repeat: axis must be an int or None"),
                    };
                    // Each element followed by its copies: a new axis after `axis`, merged in.
                    let repeated = repeat_new_axis(self.ctx, &x, axis + 1, n as usize).await?;
                    let mut shape = x.aval().shape.clone();
                    shape[axis] *= n as usize;
                    jnp::reshape(self.ctx, &repeated, &shape_i64(&shape)).await?
                }
                "tile" => {
                    let reps = arg(1, "reps").ok_or_else(|| super::RtError::new("tile() missing argument 'reps'"))?;
                    no_more_kwargs(name, &kwargs)?;
                    let mut reps = ints(self, &reps)?;
                    if let Some(r) = reps.iter().find(|&&r| r < 0) {
                        return super::value_err(format!("tile: reps may not be negative, got {r}"));
                    }
                    // As jnp.tile: the shorter of the shape and reps gets leading 1s; then each
                    // axis (n) becomes (reps, n), broadcast, merged.
                    let mut shape = x.aval().shape.clone();
                    while shape.len() < reps.len() {
                        shape.insert(0, 1);
                    }
                    while reps.len() < shape.len() {
                        reps.insert(0, 1);
                    }
                    let pairs: Vec<i64> = shape.iter().flat_map(|&n| [1, n as i64]).collect();
                    let x = jnp::reshape(self.ctx, &x, &pairs).await?;
                    let wide: Vec<usize> = shape.iter().zip(&reps).flat_map(|(&n, &r)| [r as usize, n]).collect();
                    let x = jnp::broadcast_to(self.ctx, &x, &wide).await?;
                    let merged: Vec<i64> = shape.iter().zip(&reps).map(|(&n, &r)| n as i64 * r).collect();
                    jnp::reshape(self.ctx, &x, &merged).await?
                }
                "sort" | "argsort" => {
                    let axis = arg(1, "axis");
                    let stable = take_kwarg(&mut kwargs, "stable");
                    let descending = match take_kwarg(&mut kwargs, "descending") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    let _ = (take_kwarg(&mut kwargs, "kind"), take_kwarg(&mut kwargs, "order"), stable);
                    no_more_kwargs(name, &kwargs)?;
                    let (x, axis) = match axis {
                        Some(Value::None) => (jnp::reshape(self.ctx, &x, &[-1]).await?, 0),
                        None => (x.clone(), jnp::normalize_axes(Some(&[-1]), rank.max(1))?[0]),
                        Some(v) => (x.clone(), jnp::normalize_axes(Some(&[int_arg(&v)?]), rank)?[0]),
                    };
                    if x.aval().rank() == 0 {
                        return err(format!("{name}: the array must have at least one dimension"));
                    }
                    self.sort(&x, axis, name == "argsort", descending).await?
                }
                _ => return super::unsupported(format!("jnp.{name} is not supported by the playground yet")),
            };
            Ok(Value::Array(out))
        })
    }

    /// `lax.dynamic_slice(operand, start_indices, slice_sizes)`, `dynamic_update_slice(operand,
    /// update, start_indices)` and their one-axis forms: the `dynamic_slice` and
    /// `dynamic_update_slice` primitives, start indices clamped into range (as XLA does).
    fn dynamic_slice<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let need = |v: Option<Value>, what: &str| {
                v.ok_or_else(|| super::RtError::new(format!("{name}() missing argument '{what}'")))
            };
            let x = self.to_tensor(&need(arg(0, "operand"), "operand")?)?;
            let rank = x.aval().rank();
            let update = match name {
                "dynamic_update_slice" | "dynamic_update_slice_in_dim" => {
                    Some(self.to_tensor(&need(arg(1, "update"), "update")?)?)
                }
                _ => None,
            };
            let first_index = if update.is_some() { 2 } else { 1 };
            // The start index per axis, the slice's sizes, and the one axis of an `_in_dim` form.
            let (starts, sizes, in_dim): (Vec<Value>, Vec<usize>, Option<usize>) = match name {
                "dynamic_slice" | "dynamic_update_slice" => {
                    let starts = self.iterate(&need(arg(first_index, "start_indices"), "start_indices")?)?;
                    let sizes = match (&update, arg(2, "slice_sizes")) {
                        (Some(u), _) => u.aval().shape.clone(),
                        (None, v) => {
                            let v = need(v, "slice_sizes")?;
                            ints(self, &v)?.iter().map(|&s| s.max(0) as usize).collect()
                        }
                    };
                    (starts, sizes, None)
                }
                _ => {
                    let start =
                        need(arg(first_index, if update.is_some() { "start_index" } else { "index" }), "index")?;
                    let size_at = if name == "dynamic_slice_in_dim" { Some(2) } else { None };
                    let size = match size_at {
                        Some(i) => Some(int_arg(&need(arg(i, "slice_size"), "slice_size")?)?),
                        None => None,
                    };
                    // dynamic_index_in_dim(operand, index, axis); the others (operand, [update,]
                    // start, [size,] axis): the axis is the fourth argument.
                    let axis_at = if name == "dynamic_index_in_dim" { 2 } else { 3 };
                    let axis = match arg(axis_at, "axis") {
                        None => 0,
                        Some(v) => int_arg(&v)?,
                    };
                    let axis = jnp::normalize_axes(Some(&[axis]), rank)?[0];
                    let mut starts = vec![Value::Int(0); rank];
                    starts[axis] = start;
                    let mut sizes = x.aval().shape.clone();
                    sizes[axis] = match (&update, size) {
                        (Some(u), _) => u.aval().shape.get(axis).copied().unwrap_or(0),
                        (None, Some(s)) => s.max(0) as usize,
                        (None, None) => 1,
                    };
                    (starts, sizes, Some(axis))
                }
            };
            let keepdims = match take_kwarg(&mut kwargs, "keepdims") {
                Some(v) => self.truthy(&v)?,
                None => true,
            };
            no_more_kwargs(name, &kwargs)?;
            if starts.len() != rank {
                return err(format!("{name}: {} start indices for an operand of rank {rank}", starts.len()));
            }
            let mut operands = vec![x.clone()];
            operands.extend(update.clone());
            // As jax.lax's wrappers: a negative start counts from the end (then XLA clamps).
            for (s, &n) in starts.iter().zip(&x.aval().shape) {
                let index = match s {
                    Value::Int(i) if *i < 0 => Value::Int(i + n as i64),
                    other => other.clone(),
                };
                let index = self.as_array(&index, None).await?;
                if index.aval().rank() != 0 || index.aval().dtype.is_float() {
                    return err(format!("{name}: start indices must be integer scalars, got {}", repr(s)));
                }
                if index.aval().dtype == DType::I32 && matches!(index, Tensor::Traced(_)) {
                    operands.push(super::jax::nonnegative_start(self.ctx, &index, n, true).await?);
                    continue;
                }
                let index = jnp::astype(self.ctx, &index, DType::I32).await?;
                let index = if matches!(s, Value::Int(_)) {
                    index
                } else {
                    let ctx = &mut *self.ctx;
                    let zero = Tensor::from(Array::new(vec![], jaxlite::Data::I32(vec![0])));
                    let size = Tensor::from(Array::new(vec![], jaxlite::Data::I32(vec![n as i32])));
                    let negative = jnp::compare(ctx, CompareOp::Lt, &index, &zero).await?;
                    let wrapped = jnp::binary(ctx, BinaryOp::Add, &index, &size).await?;
                    jnp::where_(ctx, &negative, &wrapped, &index).await?
                };
                operands.push(index);
            }
            let out = match update {
                Some(_) => jnp::apply(self.ctx, Primitive::DynamicUpdateSlice, &operands).await?,
                None => {
                    let out = jnp::apply(self.ctx, Primitive::DynamicSlice { slice_sizes: sizes }, &operands).await?;
                    match in_dim {
                        Some(axis) if name == "dynamic_index_in_dim" && !keepdims => {
                            let mut shape = out.aval().shape.clone();
                            shape.remove(axis);
                            jnp::reshape(self.ctx, &out, &shape_i64(&shape)).await?
                        }
                        _ => out,
                    }
                }
            };
            Ok(Value::Array(out))
        })
    }

    /// `lax.reduce_window(operand, init_value, computation, window_dimensions, window_strides,
    /// padding)` with `lax.max`, `lax.min`, `lax.add` or `lax.mul` (max and average pooling):
    /// the operand padded with the initial value, then for each position in the window a
    /// strided slice, combined in row-major window order after the initial value, as XLA
    /// reduces each window. No window or base dilation.
    fn reduce_window(&mut self, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> LocalFuture<'_, R<Value>> {
        Box::pin(async move {
            let name = "reduce_window";
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let need = |v: Option<Value>, what: &str| {
                v.ok_or_else(|| super::RtError::new(format!("reduce_window() missing argument '{what}'")))
            };
            let x = self.to_tensor(&need(arg(0, "operand"), "operand")?)?;
            let init = self.to_tensor(&need(arg(1, "init_value"), "init_value")?)?;
            let computation = need(arg(2, "computation"), "computation")?;
            let window = need(arg(3, "window_dimensions"), "window_dimensions")?;
            let strides = arg(4, "window_strides");
            let padding = arg(5, "padding");
            for unsupported in ["base_dilation", "window_dilation"] {
                if let Some(v) = arg(usize::MAX, unsupported) {
                    if !matches!(&v, Value::None) && ints(self, &v)?.iter().any(|&d| d != 1) {
                        return super::unsupported(format!(
                            "reduce_window: {unsupported} is not supported by the playground yet"
                        ));
                    }
                }
            }
            no_more_kwargs(name, &kwargs)?;
            let op = match &computation {
                Value::Native(n) => match &**n {
                    super::value::Native::Lax("max") => BinaryOp::Max,
                    super::value::Native::Lax("min") => BinaryOp::Min,
                    super::value::Native::Lax("add") => BinaryOp::Add,
                    super::value::Native::Lax("mul") => BinaryOp::Mul,
                    _ => return err(
                        "reduce_window: the computation must be lax.max, lax.min, lax.add or lax.mul in the playground",
                    ),
                },
                _ => {
                    return err(
                        "reduce_window: the computation must be lax.max, lax.min, lax.add or lax.mul in the playground",
                    )
                }
            };
            let shape = x.aval().shape.clone();
            let rank = shape.len();
            let window: Vec<usize> = ints(self, &window)?.iter().map(|&d| d.max(0) as usize).collect();
            let strides: Vec<usize> = match &strides {
                None | Some(Value::None) => vec![1; rank],
                Some(v) => ints(self, v)?.iter().map(|&d| d.max(0) as usize).collect(),
            };
            if window.len() != rank || strides.len() != rank || window.contains(&0) || strides.contains(&0) {
                return err(format!(
                    "reduce_window: window_dimensions and window_strides need one positive size per axis of the operand {}",
                    jnp::shape_str(&shape)
                ));
            }
            let taps: usize = window.iter().product();
            if taps > MAX_WINDOW {
                return err(format!(
                    "reduce_window: a window of {taps} elements is more than the playground's {MAX_WINDOW} (one slice each)"
                ));
            }
            let padding = match &padding {
                None => jnp::ConvPadding::Valid,
                Some(p) => self.padding_arg(name, p)?,
            };
            let padding = padding
                .pairs(&shape, &window, &strides)
                .map_err(|e| super::RtError::new(format!("{name}: {}", e.0)))?;
            let ctx = &mut *self.ctx;
            let dtype = x.aval().dtype;
            let init = jnp::astype(ctx, &init, dtype).await?;
            if init.aval().rank() != 0 {
                return err("reduce_window: init_value must be a scalar");
            }
            let x = if padding.iter().any(|&p| p != (0, 0)) {
                let config = padding.iter().map(|&(lo, hi)| (lo, hi, 0)).collect();
                jnp::apply(ctx, Primitive::Pad { config }, &[x.clone(), init.clone()]).await?
            } else {
                x.clone()
            };
            let padded = x.aval().shape.clone();
            if padded.iter().zip(&window).any(|(&n, &k)| n < k) {
                return err(format!(
                    "reduce_window: the window {} does not fit the padded operand {}",
                    jnp::shape_str(&window),
                    jnp::shape_str(&padded)
                ));
            }
            let out_shape: Vec<usize> = (0..rank).map(|d| (padded[d] - window[d]) / strides[d] + 1).collect();
            let mut acc = jnp::broadcast_to(ctx, &init, &out_shape).await?;
            for tap in 0..taps {
                // The tap's offset in the window, row-major.
                let mut offset = vec![0; rank];
                let mut t = tap;
                for d in (0..rank).rev() {
                    offset[d] = t % window[d];
                    t /= window[d];
                }
                let start = offset.clone();
                let limit: Vec<usize> = (0..rank).map(|d| offset[d] + (out_shape[d] - 1) * strides[d] + 1).collect();
                let step = strides.iter().any(|&s| s != 1).then(|| strides.clone());
                let prim = Primitive::Slice { start_indices: start, limit_indices: limit, strides: step };
                let part = jnp::apply1(ctx, prim, &x).await?;
                acc = jnp::binary(ctx, op, &acc, &part).await?;
            }
            Ok(Value::Array(acc))
        })
    }

    /// `pad_width` as (before, after) per axis: an int, a pair, or one pair per axis.
    fn pad_widths(&self, v: &Value, rank: usize) -> R<Vec<(usize, usize)>> {
        let bad = || {
            super::RtError::of(
                super::objects::Builtin::ValueError,
                format!("pad: pad_width {} does not fit an array of rank {rank}", repr(v)),
            )
        };
        let items: Vec<Vec<i64>> = match v {
            Value::Int(_) => vec![vec![int_arg(v)?]],
            other => {
                let items = self.iterate(other)?;
                if items.iter().all(|i| matches!(i, Value::Int(_))) {
                    vec![items.iter().map(int_arg).collect::<R<_>>()?]
                } else {
                    items.iter().map(|i| ints(self, i)).collect::<R<_>>()?
                }
            }
        };
        let pair = |p: &[i64]| -> R<(usize, usize)> {
            match *p {
                [w] | [w, _] if w < 0 => {
                    super::value_err(format!("pad: pad widths may not be negative, got {}", repr(v)))
                }
                [_, w] if w < 0 => super::value_err(format!("pad: pad widths may not be negative, got {}", repr(v))),
                [w] => Ok((w as usize, w as usize)),
                [lo, hi] => Ok((lo as usize, hi as usize)),
                _ => Err(bad()),
            }
        };
        match items.len() {
            1 => Ok(vec![pair(&items[0])?; rank]),
            n if n == rank => items.iter().map(|p| pair(p)).collect(),
            _ => Err(bad()),
        }
    }

    /// `jnp.pad` in the modes that copy the array's own elements: `constant` (XLA's pad),
    /// `edge`, `wrap`, `reflect` and `symmetric` (slices, reversed where they mirror,
    /// concatenated on each side, an axis at a time as NumPy defines them).
    fn pad<'a>(
        &'a mut self,
        x: &'a Tensor,
        widths: &'a [(usize, usize)],
        mode: &'a str,
        value: Option<Value>,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let dtype = x.aval().dtype;
            if mode == "constant" {
                let value = match value {
                    None => Tensor::from(Array::from_f32(vec![], vec![0.0])),
                    Some(v) => self.to_tensor(&v)?,
                };
                if value.aval().rank() != 0 {
                    return super::unsupported(
                        "pad: constant_values other than one scalar are not supported by the playground yet",
                    );
                }
                let value = jnp::astype(self.ctx, &value, dtype).await?;
                let config = widths.iter().map(|&(lo, hi)| (lo as i64, hi as i64, 0)).collect();
                return Ok(jnp::apply(self.ctx, Primitive::Pad { config }, &[x.clone(), value]).await?);
            }
            if value.is_some() {
                return err(format!("pad: constant_values is only for mode 'constant', not '{mode}'"));
            }
            if !["edge", "wrap", "reflect", "symmetric"].contains(&mode) {
                return unsupported(format!(
                    "pad: mode '{mode}' is not supported by the playground yet (it has constant, edge, wrap, reflect and symmetric)"
                ));
            }
            let mut out = x.clone();
            for (axis, &(lo, hi)) in widths.iter().enumerate() {
                if lo == 0 && hi == 0 {
                    continue;
                }
                let n = out.aval().shape[axis];
                // The most each side may take from an axis of n (NumPy repeats the pattern for
                // wider pads; the playground asks for a narrower one).
                let most = match mode {
                    "reflect" => n.saturating_sub(1),
                    _ => n,
                };
                if n == 0 || lo.max(hi) > most || (mode == "reflect" && n == 1) {
                    return unsupported(format!(
                        "pad: mode '{mode}' with pad width ({lo}, {hi}) on an axis of {n} is not supported by the playground yet (at most {most} each side)"
                    ));
                }
                let ctx = &mut *self.ctx;
                let (before, after) = match mode {
                    "edge" => {
                        let first = slice_axis(ctx, &out, axis, 0, 1).await?;
                        let last = slice_axis(ctx, &out, axis, n - 1, n).await?;
                        let grow = |t: &Tensor, k: usize| {
                            let mut s = t.aval().shape.clone();
                            s[axis] = k;
                            s
                        };
                        let (sb, sa) = (grow(&first, lo), grow(&last, hi));
                        (jnp::broadcast_to(ctx, &first, &sb).await?, jnp::broadcast_to(ctx, &last, &sa).await?)
                    }
                    "wrap" => {
                        (slice_axis(ctx, &out, axis, n - lo, n).await?, slice_axis(ctx, &out, axis, 0, hi).await?)
                    }
                    "reflect" => {
                        let b = slice_axis(ctx, &out, axis, 1, lo + 1).await?;
                        let a = slice_axis(ctx, &out, axis, n - 1 - hi, n - 1).await?;
                        (rev(ctx, &b, vec![axis]).await?, rev(ctx, &a, vec![axis]).await?)
                    }
                    _ => {
                        let b = slice_axis(ctx, &out, axis, 0, lo).await?;
                        let a = slice_axis(ctx, &out, axis, n - hi, n).await?;
                        (rev(ctx, &b, vec![axis]).await?, rev(ctx, &a, vec![axis]).await?)
                    }
                };
                out = concatenate(ctx, vec![before, out, after], axis).await?;
            }
            Ok(out)
        })
    }

    /// `jnp.meshgrid(*xs, indexing='xy'|'ij', sparse=False)`: each 1-D input broadcast along
    /// its own axis of the grid (with 'xy', the first two axes swapped, as NumPy's Cartesian
    /// indexing); with `sparse`, only shaped to broadcast there (size 1 on the other axes).
    fn meshgrid(&mut self, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> LocalFuture<'_, R<Value>> {
        Box::pin(async move {
            let indexing = match take_kwarg(&mut kwargs, "indexing") {
                None => "xy".to_string(),
                Some(Value::Str(s)) if &*s == "xy" || &*s == "ij" => s.to_string(),
                Some(other) => {
                    return super::value_err(format!("meshgrid: indexing must be 'xy' or 'ij', got {}", repr(&other)))
                }
            };
            let _ = take_kwarg(&mut kwargs, "copy");
            let sparse = match take_kwarg(&mut kwargs, "sparse") {
                Some(v) => self.truthy(&v)?,
                None => false,
            };
            no_more_kwargs("meshgrid", &kwargs)?;
            let xs: Vec<Tensor> = args.iter().map(|a| self.to_tensor(a)).collect::<R<_>>()?;
            for x in &xs {
                if x.aval().rank() != 1 {
                    return err(format!(
                        "meshgrid: arguments must be 1-D arrays, got shape {}",
                        jnp::shape_str(&x.aval().shape)
                    ));
                }
            }
            let mut sizes: Vec<usize> = xs.iter().map(|x| x.aval().shape[0]).collect();
            let swap = indexing == "xy" && xs.len() >= 2;
            if swap {
                sizes.swap(0, 1);
            }
            let mut out = Vec::new();
            for (i, x) in xs.iter().enumerate() {
                let axis = match (swap, i) {
                    (true, 0) => 1,
                    (true, 1) => 0,
                    _ => i,
                };
                let mut shape = vec![1i64; sizes.len()];
                shape[axis] = sizes[axis] as i64;
                let column = jnp::reshape(self.ctx, x, &shape).await?;
                out.push(Value::Array(if sparse {
                    column
                } else {
                    jnp::broadcast_to(self.ctx, &column, &sizes).await?
                }));
            }
            Ok(Value::List(std::rc::Rc::new(std::cell::RefCell::new(out))))
        })
    }

    /// `jnp.sort` / `jnp.argsort` along `axis`, stable, NaNs last, −0 and +0 equal (JAX's
    /// order). There is no sort primitive yet; this sorts by counting, which is how a machine
    /// of wide vector units can sort short rows with no data-dependent control: element i goes
    /// to position rank(i) = #{j : x[j] sorts before x[i]}, where j sorts before i when
    /// x[j] < x[i], or x[i] is NaN and x[j] is not, or they are equal (both NaN included) and
    /// j < i. Then out[r] = max_i (rank(i) = r ? x[i] : −inf), exact for every float (−0 and
    /// NaN included, which a sum from +0 would not keep); integers and argsort's positions sum
    /// (rank(i) = r ? i : 0). n² comparisons per row, so rows are capped.
    pub(super) fn sort<'a>(
        &'a mut self,
        x: &'a Tensor,
        axis: usize,
        arg: bool,
        descending: bool,
    ) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let name = if arg { "argsort" } else { "sort" };
            let shape = x.aval().shape.clone();
            let rank = shape.len();
            let n = shape[axis];
            let rows: usize = shape.iter().product::<usize>() / n.max(1);
            if rows.saturating_mul(n).saturating_mul(n) > MAX_SORT_COMPARISONS {
                return err(format!(
                    "{name} of {} along axis {axis} makes {rows} × {n}² comparisons, more than the playground's {MAX_SORT_COMPARISONS} (it sorts by counting, with no sort instruction yet)",
                    jnp::shape_str(&shape)
                ));
            }
            if arg && descending {
                return super::unsupported("argsort with descending=True is not supported by the playground yet");
            }
            let ctx = &mut *self.ctx;
            let dtype = x.aval().dtype;
            // The sorted axis last.
            let mut order: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
            order.push(axis);
            let moved = jnp::transpose(ctx, x, Some(&order)).await?;
            let keys = if dtype == DType::Bool { jnp::astype(ctx, &moved, DType::I32).await? } else { moved };
            // (…, i, 1) against (…, 1, j).
            let lead: Vec<usize> = order[..rank - 1].iter().map(|&d| shape[d]).collect();
            let with = |extra: [usize; 2]| -> Vec<i64> { shape_i64(&[&lead[..], &extra[..]].concat()) };
            let xi = jnp::reshape(ctx, &keys, &with([n, 1])).await?;
            let xj = jnp::reshape(ctx, &keys, &with([1, n])).await?;
            let square: Vec<usize> = [&lead[..], &[n, n][..]].concat();
            let xi = jnp::broadcast_to(ctx, &xi, &square).await?;
            let xj = jnp::broadcast_to(ctx, &xj, &square).await?;
            let iota = |d: usize| Primitive::Iota { dtype: DType::I32, shape: square.clone(), dimension: d };
            let (i, j) = (jnp::apply(ctx, iota(rank - 1), &[]).await?, jnp::apply(ctx, iota(rank), &[]).await?);
            let (equal, before) = equal_and_before(ctx, &xi, &xj).await?;
            let earlier = jnp::compare(ctx, CompareOp::Lt, &j, &i).await?;
            let tie = jnp::binary(ctx, BinaryOp::And, &equal, &earlier).await?;
            let before = jnp::binary(ctx, BinaryOp::Or, &before, &tie).await?;
            // rank(i), as (…, i, 1) against the positions r along (…, 1, r).
            let ranks = jnp::reduce(ctx, &before, Some(&[rank as i64]), Reduction::Sum).await?;
            let ranks = jnp::reshape(ctx, &ranks, &with([n, 1])).await?;
            let ranks = jnp::broadcast_to(ctx, &ranks, &square).await?;
            let lands = jnp::compare(ctx, CompareOp::Eq, &ranks, &j).await?;
            let values = if arg {
                i
            } else {
                let x = jnp::transpose(ctx, x, Some(&order)).await?;
                let x = jnp::reshape(ctx, &x, &with([n, 1])).await?;
                let x = jnp::broadcast_to(ctx, &x, &square).await?;
                if dtype == DType::Bool {
                    jnp::astype(ctx, &x, DType::I32).await?
                } else {
                    x
                }
            };
            let float = values.aval().dtype.is_float();
            let fill = Tensor::from(Array::from_f32(vec![], vec![if float { f32::NEG_INFINITY } else { 0.0 }]));
            let fill = jnp::astype(ctx, &fill, values.aval().dtype).await?;
            let placed = jnp::where_(ctx, &lands, &values, &fill).await?;
            let gather = if float { Reduction::Max } else { Reduction::Sum };
            let sorted = jnp::reduce(ctx, &placed, Some(&[rank as i64 - 1]), gather).await?;
            let sorted =
                if dtype == DType::Bool && !arg { jnp::astype(ctx, &sorted, DType::Bool).await? } else { sorted };
            let sorted = if descending { rev(ctx, &sorted, vec![rank - 1]).await? } else { sorted };
            // The axis back in its place.
            let mut back = vec![0; rank];
            for (k, &d) in order.iter().enumerate() {
                back[d] = k;
            }
            Ok(jnp::transpose(ctx, &sorted, Some(&back)).await?)
        })
    }
}

/// Over a square of elements (`xi` the same along the last axis, `xj` along the one before):
/// whether x_j equals x_i (NaNs equal one another, −0 equals +0) and whether x_j sorts before
/// x_i (NaN last). Booleans come as integers.
pub(super) async fn equal_and_before(ctx: &mut Ctx, xi: &Tensor, xj: &Tensor) -> R<(Tensor, Tensor)> {
    let mut equal = jnp::compare(ctx, CompareOp::Eq, xj, xi).await?;
    let before = if xi.aval().dtype.is_float() {
        let (nan_i, nan_j) = (isnan(ctx, xi).await?, isnan(ctx, xj).await?);
        let both_nan = jnp::binary(ctx, BinaryOp::And, &nan_i, &nan_j).await?;
        equal = jnp::binary(ctx, BinaryOp::Or, &equal, &both_nan).await?;
        sorts_before(ctx, xj, xi).await?
    } else {
        jnp::compare(ctx, CompareOp::Lt, xj, xi).await?
    };
    Ok((equal, before))
}

/// p sorts before q: p < q, or q is NaN and p is not (NaN last, as `jnp.sort`).
pub(super) async fn sorts_before(ctx: &mut Ctx, p: &Tensor, q: &Tensor) -> R<Tensor> {
    let lt = jnp::compare(ctx, CompareOp::Lt, p, q).await?;
    let q_nan = jnp::compare(ctx, CompareOp::Ne, q, q).await?;
    let p_number = jnp::compare(ctx, CompareOp::Eq, p, p).await?;
    let nan_last = jnp::binary(ctx, BinaryOp::And, &q_nan, &p_number).await?;
    Ok(jnp::binary(ctx, BinaryOp::Or, &lt, &nan_last).await?)
}

async fn isnan(ctx: &mut Ctx, x: &Tensor) -> R<Tensor> {
    Ok(jnp::compare(ctx, CompareOp::Ne, x, x).await?)
}

/// `jnp.roll` along one axis: the last `shift` elements (modulo the length) come first.
async fn roll(ctx: &mut Ctx, x: &Tensor, shift: i64, axis: usize) -> R<Tensor> {
    let n = x.aval().shape[axis];
    if n == 0 {
        return Ok(x.clone());
    }
    let s = shift.rem_euclid(n as i64) as usize;
    if s == 0 {
        return Ok(x.clone());
    }
    let tail = slice_axis(ctx, x, axis, n - s, n).await?;
    let head = slice_axis(ctx, x, axis, 0, n - s).await?;
    concatenate(ctx, vec![tail, head], axis).await
}
