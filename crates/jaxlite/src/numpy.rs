//! `jax.numpy` semantics on top of primitives: NumPy broadcasting, JAX's dtype promotion,
//! and array creation. `lang` binds Python names to these functions.

use crate::array::{Array, Data};
use crate::dtype::DType;
use crate::prim::{BinaryOp, CompareOp, DotDims, Precision, Primitive, UnaryOp};
use crate::trace::{Context, JaxError, Tensor};

type Result<T> = std::result::Result<T, JaxError>;

async fn bind1(ctx: &mut Context, prim: Primitive, inputs: &[Tensor]) -> Result<Tensor> {
    Ok(ctx.bind(prim, inputs).await?.remove(0))
}

/// Converts to `dtype`; constants convert on the host, traced values through the primitive.
pub async fn astype(ctx: &mut Context, x: &Tensor, dtype: DType) -> Result<Tensor> {
    if x.aval().dtype == dtype {
        return Ok(x.clone());
    }
    match x {
        Tensor::Concrete(a) if !ctx.is_tracing() || a.aval.rank() == 0 => Ok(Tensor::from(a.astype(dtype))),
        _ => convert(ctx, x, dtype, false).await,
    }
}

/// The `convert_element_type` equation, its result weakly typed or not.
async fn convert(ctx: &mut Context, x: &Tensor, new_dtype: DType, weak_type: bool) -> Result<Tensor> {
    bind1(ctx, Primitive::ConvertElementType { new_dtype, weak_type }, std::slice::from_ref(x)).await
}

/// `x` as an operand of a promotion to `dtype`. Where the result is strongly typed, a weakly
/// typed traced operand is made strong by an equation of its own even at its own dtype, as
/// JAX's promotion does (a Python scalar is a literal, which needs none); where it is weak (two
/// weakly typed operands), a traced operand's conversion stays weak.
async fn promoted(ctx: &mut Context, x: &Tensor, dtype: DType, result_weak: bool) -> Result<Tensor> {
    match x {
        Tensor::Traced(t) if t.aval.weak_type && !result_weak && t.aval.dtype == dtype => {
            convert(ctx, x, dtype, false).await
        }
        Tensor::Traced(t) if result_weak && t.aval.dtype != dtype => convert(ctx, x, dtype, true).await,
        // A Python scalar converted on the host stays weak where the result is (`2` in
        // `weak_x * 2` is a weak float32 literal).
        Tensor::Concrete(a) if result_weak && a.aval.dtype != dtype => {
            let mut converted = a.astype(dtype);
            converted.aval.weak_type = true;
            Ok(Tensor::from(converted))
        }
        // A Python scalar beside a strongly typed operand becomes strongly typed, as JAX's
        // promotion makes it: `1.67 * x` multiplies by the float32 literal
        // `1.6699999570846558:f32[]`, which is how make_jaxpr prints it.
        Tensor::Concrete(a) if a.aval.weak_type && !result_weak => {
            let mut converted = a.astype(dtype);
            converted.aval.weak_type = false;
            Ok(Tensor::from(converted))
        }
        _ => astype(ctx, x, dtype).await,
    }
}

/// `x` as a strongly typed array of `dtype`, as `jnp.array` makes its elements: a weakly typed
/// tracer gets a `convert_element_type` of its own even at its own dtype.
pub async fn strongly_typed(ctx: &mut Context, x: &Tensor, dtype: DType) -> Result<Tensor> {
    promoted(ctx, x, dtype, false).await
}

/// NumPy's broadcast of two shapes, or JAX's error message.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() >= rank {
            s[i + s.len() - rank]
        } else {
            1
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Ok(x),
            (1, y) => Ok(y),
            (x, 1) => Ok(x),
            // JAX's two errors: the lax op's for operands of one rank, jnp's rank promotion's
            // (a ValueError) for operands of two.
            _ if a.len() == b.len() => Err(JaxError(format!(
                "{op} got incompatible shapes for broadcasting: {}, {}.",
                shape_str(a),
                shape_str(b)
            ))),
            _ => Err(incompatible_shapes(&[a, b])),
        })
        .collect()
}

/// The shape all of `shapes` broadcast to, or JAX's `lax.broadcast_shapes` error naming them
/// all (a ValueError).
pub fn broadcast_all(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = vec![];
    for s in shapes {
        out = broadcast_shapes("broadcast", &out, s).map_err(|_| incompatible_shapes(shapes))?;
    }
    Ok(out)
}

fn incompatible_shapes(shapes: &[&[usize]]) -> JaxError {
    let shown: Vec<String> = shapes.iter().map(|s| shape_str(s)).collect();
    JaxError(format!("Incompatible shapes for broadcasting: shapes=[{}]", shown.join(", ")))
}

/// A shape as Python prints a tuple: `(3, 4)`, `(3,)`, `()`.
pub fn shape_str(s: &[usize]) -> String {
    match s {
        [x] => format!("({x},)"),
        _ => format!("({})", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

pub async fn broadcast_to(ctx: &mut Context, x: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let xs = x.aval().shape.clone();
    if xs == shape {
        return Ok(x.clone());
    }
    let target = broadcast_shapes("broadcast_to", &xs, shape).map_err(|_| {
        let dims = |s: &[usize]| s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        let dtype = x.aval().dtype.name();
        JaxError(format!(
            "Incompatible types for broadcasting: input type={dtype}[{}] and requested type={dtype}[{}]",
            dims(&xs),
            dims(shape)
        ))
    })?;
    if target != shape {
        return Err(JaxError(format!(
            "cannot broadcast array of shape {} to shape {}",
            shape_str(&xs),
            shape_str(shape)
        )));
    }
    let offset = shape.len() - xs.len();
    let prim =
        Primitive::BroadcastInDim { shape: shape.to_vec(), broadcast_dimensions: (offset..shape.len()).collect() };
    bind1(ctx, prim, std::slice::from_ref(x)).await
}

/// Promotes two operands to a common dtype and broadcasts them to a common shape (rank-0
/// operands stay scalars: the primitives broadcast those themselves).
async fn promote_pair(ctx: &mut Context, name: &str, a: &Tensor, b: &Tensor, dtype: DType) -> Result<(Tensor, Tensor)> {
    let (aa, ba) = (a.aval().clone(), b.aval().clone());
    let result_weak = aa.weak_type && ba.weak_type;
    let mut a = promoted(ctx, a, dtype, result_weak).await?;
    let mut b = promoted(ctx, b, dtype, result_weak).await?;
    if aa.shape != ba.shape && aa.rank() != 0 && ba.rank() != 0 {
        let shape = broadcast_shapes(name, &aa.shape, &ba.shape)?;
        a = broadcast_to(ctx, &a, &shape).await?;
        b = broadcast_to(ctx, &b, &shape).await?;
    }
    Ok((a, b))
}

fn result_dtype(ctx: &Context, a: &Tensor, b: &Tensor) -> DType {
    ctx.promote(a.aval(), b.aval()).0
}

/// An elementwise binary op with promotion and broadcasting (`jnp.add`, `x * 2.0`, ...).
pub async fn binary(ctx: &mut Context, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let mut dtype = result_dtype(ctx, a, b);
    if op == BinaryOp::Div && !dtype.is_float() && (a.aval().weak_type && b.aval().weak_type) {
        dtype = ctx.default_float();
    }
    let (a, b) = promote_pair(ctx, op.name(), a, b, dtype).await?;
    bind1(ctx, Primitive::Binary(op), &[a, b]).await
}

/// A bitwise operation with promotion and broadcasting (`x & y`, `jnp.left_shift`): on
/// integers, or on booleans for and, or and xor (the logical ones, as in JAX; booleans are
/// shifted as int32). Floats are JAX's TypeError.
pub async fn bitwise(ctx: &mut Context, op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let name = match op {
        BinaryOp::And => "bitwise_and",
        BinaryOp::Or => "bitwise_or",
        BinaryOp::Xor => "bitwise_xor",
        BinaryOp::ShiftLeft => "left_shift",
        _ => "right_shift",
    };
    if let Some(f) = [a, b].into_iter().find(|t| t.aval().dtype.is_float()) {
        return Err(JaxError(format!(
            "{name} does not accept dtype {}. Accepted dtypes are boolean or integer",
            f.aval().dtype.name()
        )));
    }
    let mut dtype = result_dtype(ctx, a, b);
    if matches!(op, BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic) && dtype == DType::Bool {
        dtype = DType::I32;
    }
    let (a, b) = promote_pair(ctx, name, a, b, dtype).await?;
    bind1(ctx, Primitive::Binary(op), &[a, b]).await
}

/// `~x`, `jnp.invert`: bitwise not of integers, logical not of booleans.
pub async fn bitwise_not(ctx: &mut Context, x: &Tensor) -> Result<Tensor> {
    if x.aval().dtype.is_float() {
        return Err(JaxError(format!(
            "bitwise_not does not accept dtype {}. Accepted dtypes are boolean or integer",
            x.aval().dtype.name()
        )));
    }
    bind1(ctx, Primitive::Unary(UnaryOp::Not), std::slice::from_ref(x)).await
}

/// An elementwise comparison with promotion and broadcasting (`x > 0`, `jnp.equal`).
pub async fn compare(ctx: &mut Context, op: CompareOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let dtype = result_dtype(ctx, a, b);
    let (a, b) = promote_pair(ctx, op.name(), a, b, dtype).await?;
    bind1(ctx, Primitive::Compare(op), &[a, b]).await
}

/// `jnp.where(cond, x, y)`: `select_n(cond, y, x)` after broadcasting all three.
pub async fn where_(ctx: &mut Context, cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    // All three shapes at once, as JAX checks them (its error names the three).
    broadcast_all(&[&cond.aval().shape, &x.aval().shape, &y.aval().shape])?;
    let dtype = result_dtype(ctx, x, y);
    let (x, y) = promote_pair(ctx, "where", x, y, dtype).await?;
    let cond = astype(ctx, cond, DType::Bool).await?;
    let shape = broadcast_all(&[&cond.aval().shape, &x.aval().shape, &y.aval().shape])?;
    let weak = x.aval().weak_type && y.aval().weak_type;
    let x = broadcast_to(ctx, &x, &shape).await?;
    let y = broadcast_to(ctx, &y, &shape).await?;
    let cond = if cond.aval().rank() == 0 { cond } else { broadcast_to(ctx, &cond, &shape).await? };
    let mut out = bind1(ctx, Primitive::SelectN, &[cond, y, x]).await?;
    if let (Tensor::Concrete(a), false) = (&out, weak) {
        let mut a = (**a).clone();
        a.aval.weak_type = false;
        out = Tensor::from(a);
    }
    Ok(out)
}

/// `lax.integer_pow`: `x ** n` for a Python int `n`.
pub async fn integer_pow(ctx: &mut Context, x: &Tensor, y: i32) -> Result<Tensor> {
    bind1(ctx, Primitive::IntegerPow { y }, std::slice::from_ref(x)).await
}

/// Applies any primitive to one operand (used for the structural ops `lang` builds).
pub async fn apply1(ctx: &mut Context, prim: Primitive, x: &Tensor) -> Result<Tensor> {
    bind1(ctx, prim, std::slice::from_ref(x)).await
}

/// Applies any primitive.
pub async fn apply(ctx: &mut Context, prim: Primitive, xs: &[Tensor]) -> Result<Tensor> {
    bind1(ctx, prim, xs).await
}

/// `jnp.argmax` / `jnp.argmin` along `axis` (over the flattened array when `None`).
pub async fn arg_reduce(ctx: &mut Context, x: &Tensor, axis: Option<i64>, is_max: bool) -> Result<Tensor> {
    let (x, axis) = match axis {
        None => {
            let n = x.aval().size() as i64;
            (reshape(ctx, x, &[n]).await?, 0)
        }
        Some(a) => {
            let axis = normalize_axes(Some(&[a]), x.aval().rank())?[0];
            (x.clone(), axis)
        }
    };
    let prim = Primitive::ArgReduce { axis, is_max, index_dtype: ctx.default_int() };
    bind1(ctx, prim, &[x]).await
}

/// `jnp.divide`: true division, so integers divide as float32.
pub async fn true_divide(ctx: &mut Context, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (dtype, _) = ctx.promote(a.aval(), b.aval());
    if dtype.is_float() {
        binary(ctx, BinaryOp::Div, a, b).await
    } else {
        let float = ctx.default_float();
        let a = astype(ctx, a, float).await?;
        let b = astype(ctx, b, float).await?;
        binary(ctx, BinaryOp::Div, &a, &b).await
    }
}

/// `jnp.fmod`: the C remainder, with the sign of `a` (`lax.rem` after promotion).
pub async fn fmod(ctx: &mut Context, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    binary(ctx, BinaryOp::Rem, a, b).await
}

/// `jnp.remainder` / `a % b`: Python's modulo, with the sign of `b`, as JAX builds it from
/// `lax.rem` (so the bits are JAX's): the C remainder, plus `b` where its sign differs from
/// `b`'s and it is not zero.
pub async fn remainder(ctx: &mut Context, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let dtype = result_dtype(ctx, a, b);
    let (a, b) = promote_pair(ctx, "remainder", a, b, dtype).await?;
    let zero = Tensor::from(Array::from_f32(vec![], vec![0.0]).astype(dtype));
    let trunc = binary(ctx, BinaryOp::Rem, &a, &b).await?;
    let nonzero = compare(ctx, CompareOp::Ne, &trunc, &zero).await?;
    let trunc_negative = compare(ctx, CompareOp::Lt, &trunc, &zero).await?;
    let b_negative = compare(ctx, CompareOp::Lt, &b, &zero).await?;
    let signs_differ = compare(ctx, CompareOp::Ne, &trunc_negative, &b_negative).await?;
    let fix = binary(ctx, BinaryOp::And, &signs_differ, &nonzero).await?;
    let fixed = binary(ctx, BinaryOp::Add, &trunc, &b).await?;
    where_(ctx, &fix, &fixed, &trunc).await
}

/// `jnp.floor_divide` / `a // b`: the quotient rounded toward −∞, as JAX builds it. Floats:
/// `(a − rem(a, b)) / b`, one less where the remainder's sign differs from `b`'s, then rounded.
/// Integers (float32 words here): the same exact quotient (an exact multiple divided is
/// exact), computed in float32 and converted back.
pub async fn floor_divide(ctx: &mut Context, a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let dtype = result_dtype(ctx, a, b);
    let (a, b) = promote_pair(ctx, "floor_divide", a, b, dtype).await?;
    let (a, b) = if dtype.is_float() {
        (a, b)
    } else {
        let float = ctx.default_float();
        (astype(ctx, &a, float).await?, astype(ctx, &b, float).await?)
    };
    let float = a.aval().dtype;
    let constant = |x: f32| Tensor::from(Array::from_f32(vec![], vec![x]).astype(float));
    let zero = constant(0.0);
    let rem = binary(ctx, BinaryOp::Rem, &a, &b).await?;
    let exact = binary(ctx, BinaryOp::Sub, &a, &rem).await?;
    let div = binary(ctx, BinaryOp::Div, &exact, &b).await?;
    let nonzero = compare(ctx, CompareOp::Ne, &rem, &zero).await?;
    let sign_b = unary(ctx, UnaryOp::Sign, &b).await?;
    let sign_rem = unary(ctx, UnaryOp::Sign, &rem).await?;
    let signs_differ = compare(ctx, CompareOp::Ne, &sign_b, &sign_rem).await?;
    let fix = binary(ctx, BinaryOp::And, &nonzero, &signs_differ).await?;
    let less = binary(ctx, BinaryOp::Sub, &div, &constant(1.0)).await?;
    let div = where_(ctx, &fix, &less, &div).await?;
    let q = unary(ctx, UnaryOp::Round, &div).await?;
    if dtype.is_float() {
        Ok(q)
    } else {
        astype(ctx, &q, dtype).await
    }
}

/// Elements of `x` along `axis` at the (int32) indices `idx`: the result has `x`'s shape with
/// that axis replaced by `idx`'s shape (`jnp.take`, `x[idx]`). Indices must already be in
/// range (callers clamp or mask them as their JAX function does).
///
/// Traced as what the emulated TPU runs for a gather, with no primitive of its own: the indices
/// compared with an iota select, for each index, the one row of `x` it names, and a sum over the
/// axis keeps it (every other term is zero). The sum of one value and zeros is that value,
/// infinities and NaN included (a one-hot matmul would turn `0 · inf` into NaN), except that
/// −0 comes back as +0. `grad` and `vmap` need no rules of their own: the gradient is the
/// same selection of the cotangent, summed over the indices, which is scatter-add.
pub async fn take(ctx: &mut Context, x: &Tensor, idx: &Tensor, axis: usize) -> Result<Tensor> {
    let xa = x.aval().clone();
    if axis >= xa.rank() {
        return Err(JaxError(format!("take: axis {axis} is out of bounds for an array of rank {}", xa.rank())));
    }
    if xa.dtype == DType::Bool {
        let as_int = astype(ctx, x, DType::I32).await?;
        let taken = Box::pin(take(ctx, &as_int, idx, axis)).await?;
        return astype(ctx, &taken, DType::Bool).await;
    }
    let n = xa.shape[axis];
    let index_shape = idx.aval().shape.clone();
    let m: usize = index_shape.iter().product();
    // x as (n, rest): the indexed axis first, the others flattened.
    let mut order = vec![axis];
    order.extend((0..xa.rank()).filter(|&d| d != axis));
    let moved = if axis == 0 { x.clone() } else { transpose(ctx, x, Some(&order)).await? };
    let rest_shape: Vec<usize> = order[1..].iter().map(|&d| xa.shape[d]).collect();
    let rest: usize = rest_shape.iter().product();
    let rows = reshape(ctx, &moved, &[1, n as i64, rest as i64]).await?;
    let idx = reshape(ctx, idx, &[m as i64, 1, 1]).await?;
    let positions = bind1(ctx, Primitive::Iota { dtype: DType::I32, shape: vec![1, n, 1], dimension: 1 }, &[]).await?;
    let picked = compare(ctx, CompareOp::Eq, &idx, &positions).await?;
    let zero = Tensor::from(Array::from_f32(vec![], vec![0.0]).astype(xa.dtype));
    let selected = where_(ctx, &picked, &rows, &zero).await?;
    let taken = reduce(ctx, &selected, Some(&[1]), Reduction::Sum).await?;
    // (m, rest) back to x's axes with the index's shape in place of `axis`.
    let mut shape: Vec<i64> = index_shape.iter().map(|&d| d as i64).collect();
    shape.extend(rest_shape.iter().map(|&d| d as i64));
    let out = reshape(ctx, &taken, &shape).await?;
    let k = index_shape.len();
    // Axes now: index dims (k), then x's other axes in order; x's axes before `axis` go first.
    let mut back: Vec<usize> = (k..k + axis).collect();
    back.extend(0..k);
    back.extend(k + axis..k + xa.rank() - 1);
    if back.iter().enumerate().all(|(i, &d)| i == d) {
        Ok(out)
    } else {
        transpose(ctx, &out, Some(&back)).await
    }
}

/// An elementwise unary op; integer inputs to float functions become float32 first.
pub async fn unary(ctx: &mut Context, op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let float = ctx.default_float();
    let x = if op.needs_float() && !x.aval().dtype.is_float() { astype(ctx, x, float).await? } else { x.clone() };
    bind1(ctx, Primitive::Unary(op), &[x]).await
}

/// `a @ b` / `jnp.matmul`, as JAX lowers it: the last axis of `a` contracts with the
/// second-to-last of `b` (its only one when 1-D); leading axes of two operands of rank 3 or
/// more are batch axes and must be equal (NumPy would broadcast them; not supported yet); a
/// matrix times a stack of matrices is a dot_general without batch axes, then a transpose
/// that puts the stack first.
pub async fn matmul(ctx: &mut Context, a: &Tensor, b: &Tensor, precision: Option<Precision>) -> Result<Tensor> {
    matmul_preferring(ctx, a, b, precision, None).await
}

/// `matmul` whose products are summed in `preferred` (`preferred_element_type`: float32 sums of
/// bfloat16 operands, one `dot_general` reading them as they are, as JAX stages it), or in the
/// operands' promoted type.
pub async fn matmul_preferring(
    ctx: &mut Context,
    a: &Tensor,
    b: &Tensor,
    precision: Option<Precision>,
    preferred: Option<DType>,
) -> Result<Tensor> {
    let (aa, ba) = (a.aval().clone(), b.aval().clone());
    let (ra, rb) = (aa.rank(), ba.rank());
    if ra == 0 || rb == 0 {
        return Err(JaxError("matmul: operands must have at least one dimension, got a scalar".into()));
    }
    let (ka, kb) = (ra - 1, if rb == 1 { 0 } else { rb - 2 });
    if aa.shape[ka] != ba.shape[kb] {
        return Err(JaxError(format!(
            "dot_general requires contracting dimensions to have the same shape, got ({},) and ({},)",
            aa.shape[ka], ba.shape[kb]
        )));
    }
    let batch = if ra >= 3 && rb >= 3 {
        let (sa, sb) = (&aa.shape[..ra - 2], &ba.shape[..rb - 2]);
        if sa != sb {
            return Err(JaxError(format!(
                "matmul of {} and {}: batch dimensions {} and {} that differ (broadcast) are not supported by the playground yet",
                shape_str(&aa.shape),
                shape_str(&ba.shape),
                shape_str(sa),
                shape_str(sb)
            )));
        }
        (0..ra - 2).collect()
    } else {
        vec![]
    };
    let (dtype, _) = ctx.promote(&aa, &ba);
    let a = astype(ctx, a, dtype).await?;
    let b = astype(ctx, b, dtype).await?;
    let dims =
        DotDims { lhs_contracting: vec![ka], rhs_contracting: vec![kb], lhs_batch: batch.clone(), rhs_batch: batch };
    let prim = Primitive::DotGeneral { dims, precision, preferred_element_type: Some(preferred.unwrap_or(dtype)) };
    let y = bind1(ctx, prim, &[a, b]).await?;
    if ra == 2 && rb >= 3 {
        // (M, stack..., N) → (stack..., M, N).
        let mut perm: Vec<usize> = (1..rb - 1).collect();
        perm.extend([0, rb - 1]);
        return transpose(ctx, &y, Some(&perm)).await;
    }
    Ok(y)
}

/// `jnp.reshape`, with one `-1` dimension inferred.
pub async fn reshape(ctx: &mut Context, x: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let size = x.aval().size();
    let known: i64 = shape.iter().filter(|&&d| d != -1).product();
    let inferred = shape.iter().filter(|&&d| d == -1).count();
    let bad = || {
        JaxError(format!(
            "cannot reshape array of shape {} (size {size}) into shape ({})",
            shape_str(&x.aval().shape),
            shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
        ))
    };
    if inferred > 1 || shape.iter().any(|&d| d < -1) || (inferred == 1 && (known == 0 || size as i64 % known != 0)) {
        return Err(bad());
    }
    let new: Vec<usize> = shape.iter().map(|&d| if d == -1 { size / known as usize } else { d as usize }).collect();
    if new.iter().product::<usize>() != size {
        return Err(bad());
    }
    if new == x.aval().shape {
        return Ok(x.clone());
    }
    bind1(ctx, Primitive::Reshape { new_sizes: new }, std::slice::from_ref(x)).await
}

/// `jnp.transpose(x, axes)`; no axes reverses them.
pub async fn transpose(ctx: &mut Context, x: &Tensor, axes: Option<&[usize]>) -> Result<Tensor> {
    let rank = x.aval().rank();
    let permutation: Vec<usize> = axes.map_or_else(|| (0..rank).rev().collect(), |a| a.to_vec());
    bind1(ctx, Primitive::Transpose { permutation }, std::slice::from_ref(x)).await
}

/// Normalises possibly negative axes; `None` means all axes.
pub fn normalize_axes(axes: Option<&[i64]>, rank: usize) -> Result<Vec<usize>> {
    match axes {
        None => Ok((0..rank).collect()),
        Some(list) => {
            let axes: Vec<usize> = list
                .iter()
                .map(|&a| {
                    let r = rank as i64;
                    if a < -r || a >= r {
                        Err(JaxError(format!("axis {a} is out of bounds for array of dimension {rank}")))
                    } else {
                        Ok(((a + r) % r.max(1)) as usize)
                    }
                })
                .collect::<Result<_>>()?;
            // `axis=(0, 0)`, or `(0, -2)` of a matrix: NumPy refuses an axis named twice (the
            // compiler would otherwise be handed a reduction it cannot express).
            if let Some(a) = axes.iter().enumerate().find(|&(i, a)| axes[..i].contains(a)).map(|(_, a)| a) {
                let list: Vec<String> = list.iter().map(i64::to_string).collect();
                return Err(JaxError(format!("axes ({}) name axis {a} twice", list.join(", "))));
            }
            Ok(axes)
        }
    }
}

/// Which reduction `reduce` applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    Max,
    Min,
}

/// `jnp.sum` / `jnp.max` / `jnp.min` over `axes` (all when `None`).
pub async fn reduce(ctx: &mut Context, x: &Tensor, axes: Option<&[i64]>, kind: Reduction) -> Result<Tensor> {
    let axes = normalize_axes(axes, x.aval().rank())?;
    // As jnp.sum: booleans count, as int32. NumPy sums every narrower integer as its
    // default int64.
    let dtype = x.aval().dtype;
    let x = &if kind == Reduction::Sum && ctx.on_host() && matches!(dtype, DType::Bool | DType::I32) {
        astype(ctx, x, DType::I64).await?
    } else if kind == Reduction::Sum && dtype == DType::Bool {
        astype(ctx, x, DType::I32).await?
    } else {
        x.clone()
    };
    let prim = match kind {
        Reduction::Sum => Primitive::ReduceSum { axes },
        Reduction::Max => Primitive::ReduceMax { axes },
        Reduction::Min => Primitive::ReduceMin { axes },
    };
    bind1(ctx, prim, std::slice::from_ref(x)).await
}

/// `jnp.arange(start, stop, step)`: int32 when every argument is an integer, else float32.
pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Array> {
    if step == 0.0 {
        return Err(JaxError("arange: step must not be zero".into()));
    }
    let n = ((stop - start) / step).ceil().max(0.0) as usize;
    let values = (0..n).map(|i| start + i as f64 * step);
    Ok(match dtype {
        DType::I32 => Array::new(vec![n], Data::I32(values.map(|v| v as i32).collect())),
        DType::I64 => Array::new(vec![n], Data::I64(values.map(|v| v as i64).collect())),
        // NumPy fills from the first two values: its step is their difference, which may
        // differ from `step` in the last bits.
        DType::F64 => {
            let delta = (start + step) - start;
            Array::new(vec![n], Data::F64((0..n).map(|i| start + i as f64 * delta).collect()))
        }
        // JAX computes `start + step * iota` in float32, each operation rounded (op by op;
        // under `jit` the staged equations are fused, see `arange_in`).
        _ => {
            let (start, step) = (start as f32, step as f32);
            Array::from_f32(vec![n], (0..n).map(|i| start + step * i as f32).collect()).astype(dtype)
        }
    })
}

/// `jnp.arange(start, stop, step)` where it is called: inside a trace, as JAX stages it, an
/// `iota` times `step` plus `start` (each only where it is not 1 or 0), so the Jaxpr shows
/// how the values are made and the program makes them on the chip; outside, the array.
pub async fn arange_in(ctx: &mut Context, start: f64, stop: f64, step: f64, dtype: DType) -> Result<Tensor> {
    let values = arange(start, stop, step, dtype)?;
    let n = values.aval.shape[0];
    if !ctx.is_tracing() || n == 0 {
        return Ok(Tensor::from(values));
    }
    let mut x = bind1(ctx, Primitive::Iota { dtype, shape: vec![n], dimension: 0 }, &[]).await?;
    for (value, op, identity) in [(step, BinaryOp::Mul, 1.0), (start, BinaryOp::Add, 0.0)] {
        if value != identity {
            let scalar = Tensor::from(full(&[], value, dtype));
            x = bind1(ctx, Primitive::Binary(op), &[scalar, x]).await?;
        }
    }
    Ok(x)
}

/// `jnp.full(shape, value, dtype)` where it is called (`zeros`, `ones` and the `_like`s too):
/// inside a trace, as JAX stages `lax.full`, a `broadcast_in_dim` of the scalar (a literal in
/// the Jaxpr); outside, or for a scalar, the array. `weak`: typed by a Python scalar.
pub async fn full_in(ctx: &mut Context, shape: &[usize], value: f64, dtype: DType, weak: bool) -> Result<Tensor> {
    let staged = ctx.is_tracing() && !shape.is_empty();
    let mut filled = full(if staged { &[] } else { shape }, value, dtype);
    filled.aval.weak_type = weak;
    if !staged {
        return Ok(Tensor::from(filled));
    }
    let prim = Primitive::BroadcastInDim { shape: shape.to_vec(), broadcast_dimensions: vec![] };
    bind1(ctx, prim, &[Tensor::from(filled)]).await
}

/// `jnp.eye(n, m, k, dtype)` where it is called: inside a trace, as JAX stages it, whether a
/// row iota plus `k` equals a column iota, converted to `dtype`; outside, the array.
pub async fn eye_in(ctx: &mut Context, n: usize, m: usize, k: i32, dtype: DType) -> Result<Tensor> {
    if !ctx.is_tracing() || n * m == 0 {
        let values: Vec<f32> =
            (0..n * m).map(|i| if (i % m) as i64 - (i / m) as i64 == k as i64 { 1.0 } else { 0.0 }).collect();
        return Ok(Tensor::from(Array::from_f32(vec![n, m], values).astype(dtype)));
    }
    let iota = |dimension| Primitive::Iota { dtype: DType::I32, shape: vec![n, m], dimension };
    let rows = bind1(ctx, iota(0), &[]).await?;
    let cols = bind1(ctx, iota(1), &[]).await?;
    let shifted =
        bind1(ctx, Primitive::Binary(BinaryOp::Add), &[rows, Tensor::from(full(&[], k as f64, DType::I32))]).await?;
    let diagonal = bind1(ctx, Primitive::Compare(CompareOp::Eq), &[shifted, cols]).await?;
    astype(ctx, &diagonal, dtype).await
}

/// `jnp.full(shape, value, dtype)`; `zeros` and `ones` are this with 0 and 1.
pub fn full(shape: &[usize], value: f64, dtype: DType) -> Array {
    let n = shape.iter().product();
    let data = match dtype {
        DType::F32 => Data::F32(vec![value as f32; n]),
        DType::F64 => Data::F64(vec![value; n]),
        DType::I64 => Data::I64(vec![value as i64; n]),
        DType::BF16 => Data::BF16(vec![half::bf16::from_f64(value); n]),
        DType::I32 => Data::I32(vec![value as i32; n]),
        DType::U32 => Data::U32(vec![value as i64 as u32; n]),
        DType::Bool => Data::Bool(vec![value != 0.0; n]),
        DType::Key => Data::Key(vec![[0, 0]; n]),
    };
    Array::new(shape.to_vec(), data)
}

/// `jnp.einsum(spec, *operands)` for one to three operands, as NumPy spells it: explicit
/// (`"bqd,bkd->bqk"`) or implicit (`"ij,jk"`: the labels that appear once, in alphabetical
/// order), `...` standing for the leading axes each operand has beyond its labels (broadcast
/// against each other, right-aligned, as NumPy does), and repeated labels within an operand
/// (`"ii->i"`, `"ii"`) taking its diagonal as JAX does: the off-diagonal elements selected away
/// (a mask of iotas compared, so infinities and NaN elsewhere do not leak in), then summed.
/// Each label is then summed away where it appears once and not in the output, operands are
/// contracted left to right with `dot_general` (shared labels kept for the output or a later
/// operand are batch axes, the others contracted), then transposed to the output's order.
pub async fn einsum(
    ctx: &mut Context,
    spec: &str,
    operands: &[Tensor],
    precision: Option<Precision>,
) -> Result<Tensor> {
    einsum_preferring(ctx, spec, operands, precision, None).await
}

/// `einsum` whose contractions sum in `preferred` (see [`matmul_preferring`]).
pub async fn einsum_preferring(
    ctx: &mut Context,
    spec: &str,
    operands: &[Tensor],
    precision: Option<Precision>,
    preferred: Option<DType>,
) -> Result<Tensor> {
    let bad = |m: String| JaxError(format!("einsum '{spec}': {m}"));
    if operands.is_empty() || operands.len() > 3 {
        return Err(bad("one to three operands are supported".into()));
    }
    let shapes: Vec<Vec<usize>> = operands.iter().map(|x| x.aval().shape.clone()).collect();
    let Labels { inputs, output, ellipsis } = einsum_labels(spec, &shapes).map_err(bad)?;
    let mut operands = operands.to_vec();
    for (x, labels) in operands.iter_mut().zip(&inputs) {
        // An axis of one under `...` stretches to the others' size.
        let shape: Vec<usize> = labels
            .iter()
            .zip(&x.aval().shape)
            .map(|(c, &n)| ellipsis.iter().find(|(l, _)| l == c).map_or(n, |&(_, m)| m))
            .collect();
        *x = broadcast_to(ctx, x, &shape).await?;
    }
    // Label sizes must agree. NumPy words a diagonal of a non-square operand its own way; JAX
    // checks from the last operand and axis back, and names the operand counted from the end.
    if ctx.on_host() {
        for (labels, x) in inputs.iter().zip(&operands) {
            for (k, (&c, &n)) in labels.iter().zip(&x.aval().shape).enumerate() {
                if let Some(j) = labels[..k].iter().position(|&l| l == c) {
                    let m = x.aval().shape[j];
                    if m != n {
                        return Err(JaxError(format!(
                            "dimensions in single operand for collapsing index '{c}' don't match ({m} != {n})"
                        )));
                    }
                }
            }
        }
    }
    let mut sizes: Vec<(char, usize)> = Vec::new();
    for (i, (labels, x)) in inputs.iter().zip(&operands).enumerate().rev() {
        for (&c, &n) in labels.iter().zip(&x.aval().shape).rev() {
            match sizes.iter().find(|(l, _)| *l == c) {
                Some(&(_, m)) if m != n => {
                    return Err(JaxError(format!(
                        "Size of label '{c}' for operand {} ({n}) does not match previous terms ({m}).",
                        inputs.len() - 1 - i
                    )))
                }
                Some(_) => {}
                None => sizes.push((c, n)),
            }
        }
    }
    if let Some(c) = output.iter().find(|c| !sizes.iter().any(|(l, _)| l == *c)) {
        return Err(bad(format!("the output label '{c}' is in no operand")));
    }
    if let Some(c) = output.iter().enumerate().find(|&(k, c)| output[..k].contains(c)).map(|(_, c)| c) {
        return Err(bad(format!("the output label '{c}' appears more than once")));
    }
    // Labels still needed after operand `i`: by the output or a later operand.
    let needed_after = |i: usize, c: char| output.contains(&c) || inputs[i + 1..].iter().any(|l| l.contains(&c));
    // Take each operand's diagonals, then sum its labels that appear nowhere else.
    let mut terms: Vec<(Vec<char>, Tensor)> = Vec::new();
    for (i, (labels, x)) in inputs.iter().zip(&operands).enumerate() {
        let (labels, x) = diagonals(ctx, labels, x).await?;
        let elsewhere =
            |c: char| output.contains(&c) || inputs.iter().enumerate().any(|(j, l)| j != i && l.contains(&c));
        let lone: Vec<i64> = (0..labels.len()).filter(|&k| !elsewhere(labels[k])).map(|k| k as i64).collect();
        let (labels, x) = if lone.is_empty() {
            (labels, x)
        } else {
            let kept = labels.iter().copied().filter(|&c| elsewhere(c)).collect();
            (kept, reduce(ctx, &x, Some(&lone), Reduction::Sum).await?)
        };
        terms.push((labels, x));
    }
    let (mut labels, mut acc) = terms.remove(0);
    for (i, (rl, rhs)) in terms.into_iter().enumerate() {
        // `acc` holds operands 0..=i; `rhs` is operand i + 1.
        let shared: Vec<char> = labels.iter().copied().filter(|c| rl.contains(c)).collect();
        let (batch, contract): (Vec<char>, Vec<char>) = shared.iter().partition(|&&c| needed_after(i + 1, c));
        let pos = |ls: &[char], c: char| ls.iter().position(|&l| l == c).expect("label present");
        let dims = DotDims {
            lhs_contracting: contract.iter().map(|&c| pos(&labels, c)).collect(),
            rhs_contracting: contract.iter().map(|&c| pos(&rl, c)).collect(),
            lhs_batch: batch.iter().map(|&c| pos(&labels, c)).collect(),
            rhs_batch: batch.iter().map(|&c| pos(&rl, c)).collect(),
        };
        let (dtype, _) = ctx.promote(acc.aval(), rhs.aval());
        let a = astype(ctx, &acc, dtype).await?;
        let b = astype(ctx, &rhs, dtype).await?;
        let preferred_element_type = Some(preferred.unwrap_or(dtype));
        let prim = Primitive::DotGeneral { dims, precision, preferred_element_type };
        acc = bind1(ctx, prim, &[a, b]).await?;
        // dot_general's result axes: batch, lhs free, rhs free.
        let mut next = batch.clone();
        next.extend(labels.iter().copied().filter(|c| !shared.contains(c)));
        next.extend(rl.iter().copied().filter(|c| !shared.contains(c)));
        labels = next;
    }
    let perm: Vec<usize> = output.iter().map(|c| labels.iter().position(|l| l == c).expect("checked above")).collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        Ok(acc)
    } else {
        transpose(ctx, &acc, Some(&perm)).await
    }
}

/// An einsum spec read against its operands' shapes: each operand's label per axis, the
/// output's, and the labels made up for the axes under `...` with their broadcast sizes.
struct Labels {
    inputs: Vec<Vec<char>>,
    output: Vec<char>,
    ellipsis: Vec<(char, usize)>,
}

/// Reads `spec` (whitespace ignored), giving the axes under `...` labels of their own (letters
/// the spec does not use, so they behave as any other label) and writing out an implicit
/// output: `...`, then the labels that appear once, in alphabetical (ASCII) order, as NumPy.
fn einsum_labels(spec: &str, shapes: &[Vec<usize>]) -> std::result::Result<Labels, String> {
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (inputs, output) = match spec.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (spec.as_str(), None),
    };
    let inputs: Vec<&str> = inputs.split(',').collect();
    if inputs.len() != shapes.len() {
        return Err(format!("{} operands in the spec, {} given", inputs.len(), shapes.len()));
    }
    // Splits a term at its `...` (if any) into the labels before and after it.
    let split = |term: &str| -> std::result::Result<(Vec<char>, Option<Vec<char>>), String> {
        let (before, after) = match term.split_once("...") {
            Some((b, a)) => (b, Some(a)),
            None => (term, None),
        };
        for c in before.chars().chain(after.unwrap_or("").chars()) {
            if c == '.' {
                return Err("'.' only appears as part of '...'".into());
            }
            if !c.is_ascii_alphabetic() {
                return Err(format!("'{c}' is not a label (letters only)"));
            }
        }
        Ok((before.chars().collect(), after.map(|a| a.chars().collect())))
    };
    let terms = inputs.iter().map(|t| split(t)).collect::<std::result::Result<Vec<_>, _>>()?;
    // How many axes `...` stands for in each operand.
    let mut under: Vec<usize> = Vec::new();
    for ((term, (before, after)), shape) in inputs.iter().zip(&terms).zip(shapes) {
        let named = before.len() + after.as_ref().map_or(0, Vec::len);
        if named > shape.len() || (after.is_none() && named != shape.len()) {
            return Err(format!("'{term}' names {named} axes but the operand has shape {}", shape_str(shape)));
        }
        under.push(shape.len() - named);
    }
    // One made-up label per axis of the widest `...`, each operand's right-aligned to them.
    let widest = under.iter().copied().max().unwrap_or(0);
    let mut unused = ('A'..='Z').chain('a'..='z').filter(|c| !spec.contains(*c));
    let made_up: Vec<char> =
        (0..widest).map(|_| unused.next()).collect::<Option<_>>().ok_or("too many axes under '...'")?;
    let mut ellipsis: Vec<(char, usize)> = made_up.iter().map(|&c| (c, 1)).collect();
    let mut labels = Vec::new();
    for (((before, after), shape), &n) in terms.iter().zip(shapes).zip(&under) {
        let mine = &made_up[widest - n..];
        for k in 0..n {
            let size = shape[before.len() + k];
            let slot = &mut ellipsis[widest - n + k].1;
            if *slot != 1 && size != 1 && *slot != size {
                let shapes: Vec<String> = shapes.iter().map(|s| shape_str(s)).collect();
                return Err(format!(
                    "the axes under '...' do not broadcast together: sizes {slot} and {size} (operand shapes {})",
                    shapes.join(", ")
                ));
            }
            *slot = (*slot).max(size);
        }
        let mut term = before.clone();
        term.extend(mine);
        term.extend(after.iter().flatten());
        labels.push(term);
    }
    let output = match output {
        Some(o) => match split(o)? {
            (before, Some(after)) => before.into_iter().chain(made_up.iter().copied()).chain(after).collect(),
            (before, None) => before,
        },
        None => {
            let all: Vec<char> = labels.iter().flatten().copied().collect();
            let mut once: Vec<char> = all
                .iter()
                .copied()
                .filter(|c| !made_up.contains(c) && all.iter().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            made_up.iter().copied().chain(once).collect()
        }
    };
    Ok(Labels { inputs: labels, output, ellipsis })
}

/// An operand with a label repeated (`ii`) reduced to its diagonal, as JAX's einsum does it:
/// the elements off the diagonal selected to zero, then summed over all but the last axis of
/// the label (every other term is zero, so the diagonal comes back exactly, except that −0
/// becomes +0).
async fn diagonals(ctx: &mut Context, labels: &[char], x: &Tensor) -> Result<(Vec<char>, Tensor)> {
    let mut labels = labels.to_vec();
    let mut x = x.clone();
    while let Some(c) = labels.iter().enumerate().find(|&(k, c)| labels[..k].contains(c)).map(|(_, &c)| c) {
        let axes: Vec<usize> = (0..labels.len()).filter(|&k| labels[k] == c).collect();
        let shape = x.aval().shape.clone();
        let iota = |dimension| Primitive::Iota { dtype: DType::I32, shape: shape.clone(), dimension };
        let first = bind1(ctx, iota(axes[0]), &[]).await?;
        let mut on_diagonal: Option<Tensor> = None;
        for &axis in &axes[1..] {
            let other = bind1(ctx, iota(axis), &[]).await?;
            let equal = bind1(ctx, Primitive::Compare(CompareOp::Eq), &[first.clone(), other]).await?;
            on_diagonal = Some(match on_diagonal {
                None => equal,
                Some(mask) => bind1(ctx, Primitive::Binary(BinaryOp::And), &[mask, equal]).await?,
            });
        }
        let on_diagonal = on_diagonal.expect("a repeated label has two axes");
        let zero = Tensor::from(full(&[], 0.0, x.aval().dtype));
        x = where_(ctx, &on_diagonal, &x, &zero).await?;
        let summed: Vec<i64> = axes[..axes.len() - 1].iter().map(|&a| a as i64).collect();
        x = reduce(ctx, &x, Some(&summed), Reduction::Sum).await?;
        let last = axes[axes.len() - 1];
        labels = labels.iter().enumerate().filter(|&(k, &l)| l != c || k == last).map(|(_, &l)| l).collect();
    }
    Ok((labels, x))
}

/// A convolution's padding: as `'SAME'` or `'VALID'` name it, or (low, high) per spatial axis.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvPadding {
    Same,
    Valid,
    Explicit(Vec<(i64, i64)>),
}

impl ConvPadding {
    /// (low, high) padding per axis for windows of `windows` elements moving `strides` over
    /// axes of `sizes`: none for VALID; for SAME, as XLA, enough for ceil(size / stride)
    /// windows, split with the extra at the end; explicit pairs as given, one per axis.
    pub fn pairs(&self, sizes: &[usize], windows: &[usize], strides: &[usize]) -> Result<Vec<(i64, i64)>> {
        Ok(match self {
            ConvPadding::Explicit(p) if p.len() == sizes.len() => p.clone(),
            ConvPadding::Explicit(p) => {
                return Err(JaxError(format!(
                    "padding needs one (low, high) pair per spatial dimension ({}), got {}",
                    sizes.len(),
                    p.len()
                )))
            }
            ConvPadding::Valid => vec![(0, 0); sizes.len()],
            ConvPadding::Same => (0..sizes.len())
                .map(|d| {
                    let (size, k, s) = (sizes[d] as i64, windows[d] as i64, strides[d].max(1) as i64);
                    let total = (((size + s - 1) / s - 1) * s + k - size).max(0);
                    (total / 2, total - total / 2)
                })
                .collect(),
        })
    }
}

/// A convolution's input (lhs) and kernel (rhs) dilation per spatial axis, and its feature
/// groups.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvDilation {
    /// Per spatial dimension; empty means 1 for each.
    pub lhs: Vec<usize>,
    pub rhs: Vec<usize>,
    pub groups: usize,
}

impl Default for ConvDilation {
    fn default() -> Self {
        ConvDilation { lhs: vec![], rhs: vec![], groups: 1 }
    }
}

/// `jax.lax.conv_general_dilated` for any number of spatial dimensions, written as JAX ops
/// rather than one primitive: the input (as N, spatial…, C) padded, then for every tap of the
/// kernel a strided slice of the input, (N·outputs, C), times that tap's (C, O) weights with
/// `dot_general`, the taps summed in row-major order, and the (N, spatial…, O) result laid out
/// as asked. Input (lhs) dilation is interior padding of the input; kernel (rhs) dilation
/// spaces the taps' slices `d` apart; `groups` feature groups are that many convolutions of
/// channel slices, concatenated along the output features. This is how a TPU computes a
/// convolution on its matrix unit (a sum of matmuls over the kernel's taps, rather than an
/// im2col copy of the input K·K times larger); channels last keeps each slice's rows contiguous
/// for the DMA engine. Made of ordinary ops, it needs no rules of its own for `grad`, `vmap` or
/// the compiler. `specs` are the dimension numbers as strings (`"NCHW"`, `"OIHW"`, `"NCHW"`;
/// any letters for the spatial dimensions, in order).
#[allow(clippy::too_many_arguments)]
pub async fn conv(
    ctx: &mut Context,
    lhs: &Tensor,
    rhs: &Tensor,
    strides: &[usize],
    padding: &ConvPadding,
    dilation: ConvDilation,
    specs: [&str; 3],
    precision: Option<Precision>,
) -> Result<Tensor> {
    let bad = |m: String| JaxError(format!("conv_general_dilated: {m}"));
    let (la, ra) = (lhs.aval().clone(), rhs.aval().clone());
    let rank = la.rank();
    // Where the named axes (batch or output features, input features) and then the spatial
    // axes are, in the kernel spec's order of its spatial letters (as JAX matches them).
    let kernel_spatial: Vec<char> = specs[1].chars().filter(|&c| c != 'O' && c != 'I').collect();
    let axes = |spec: &str, names: [char; 2], operand_rank: usize| -> Result<Vec<usize>> {
        let chars: Vec<char> = spec.chars().collect();
        if chars.len() != operand_rank || operand_rank < 3 || operand_rank != rank {
            return Err(bad(format!(
                "the dimension numbers' spec '{spec}' does not fit operands of rank {operand_rank} and {rank}"
            )));
        }
        let find =
            |name: char| chars.iter().position(|&c| c == name).ok_or_else(|| bad(format!("'{spec}' has no '{name}'")));
        let mut order = vec![find(names[0])?, find(names[1])?];
        for &letter in &kernel_spatial {
            order.push(find(letter)?);
        }
        let mut seen = order.clone();
        seen.sort_unstable();
        seen.dedup();
        if seen.len() != rank {
            return Err(bad(format!("'{spec}' names a dimension twice or leaves one out")));
        }
        Ok(order)
    };
    let lhs_axes = axes(specs[0], ['N', 'C'], la.rank())?;
    let rhs_axes = axes(specs[1], ['O', 'I'], ra.rank())?;
    let out_axes = axes(specs[2], ['N', 'C'], rank)?;
    let k = rank - 2;
    if strides.len() != k || strides.contains(&0) {
        return Err(bad(format!("window_strides needs a positive stride per spatial dimension ({k})")));
    }
    // N, spatial…, C and spatial…, I, O.
    let x_order: Vec<usize> = [&lhs_axes[..1], &lhs_axes[2..], &lhs_axes[1..2]].concat();
    let w_order: Vec<usize> = [&rhs_axes[2..], &rhs_axes[1..2], &rhs_axes[..1]].concat();
    let x = transpose(ctx, lhs, Some(&x_order)).await?;
    let w = transpose(ctx, rhs, Some(&w_order)).await?;
    let (xs, ws) = (x.aval().shape.clone(), w.aval().shape.clone());
    let (n, c, o) = (xs[0], xs[k + 1], ws[k + 1]);
    let taps = &ws[..k];
    let ConvDilation { lhs: ld, rhs: rd, groups } = dilation;
    let ld = if ld.is_empty() { vec![1; k] } else { ld };
    let rd = if rd.is_empty() { vec![1; k] } else { rd };
    if ld.len() != k || rd.len() != k || ld.contains(&0) || rd.contains(&0) || groups == 0 {
        return Err(bad(format!(
            "dilations need a positive factor per spatial dimension ({k}), and feature_group_count must be positive"
        )));
    }
    if ws[k] * groups != c || o % groups != 0 {
        return Err(bad(format!(
            "the kernel has {} input features and {o} output features, which {groups} feature group(s) of the input's {c} features do not fit",
            ws[k]
        )));
    }
    // The input as its dilation spaces it (d - 1 zeros between elements), and the kernel's
    // extent once its taps are spaced.
    let dilated = |size: usize, d: usize| if size == 0 { 0 } else { (size - 1) * d + 1 };
    let input: Vec<usize> = (0..k).map(|d| dilated(xs[d + 1], ld[d])).collect();
    let extent: Vec<usize> = (0..k).map(|d| dilated(taps[d], rd[d])).collect();
    let padding = padding.pairs(&input, &extent, strides).map_err(|e| bad(e.0))?;
    let (dtype, _) = ctx.promote(&la, &ra);
    let x = astype(ctx, &x, dtype).await?;
    let w = astype(ctx, &w, dtype).await?;
    // Pad the spatial axes (negative padding crops, as XLA's pad), dilating the input too.
    let x = if padding.iter().any(|&p| p != (0, 0)) || ld.iter().any(|&d| d != 1) {
        let mut config = vec![(0, 0, 0)];
        config.extend((0..k).map(|d| (padding[d].0, padding[d].1, ld[d] - 1)));
        config.push((0, 0, 0));
        let zero = Tensor::from(Array::new(vec![], crate::array::Data::F32(vec![0.0])).astype(dtype));
        bind1(ctx, Primitive::Pad { config }, &[x, zero]).await?
    } else {
        x
    };
    let padded = x.aval().shape[1..=k].to_vec();
    if (0..k).any(|d| padded[d] < extent[d]) {
        let show = |v: &[usize]| v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x");
        return Err(bad(format!(
            "a {} kernel (dilated) does not fit the padded {} input",
            show(&extent),
            show(&padded)
        )));
    }
    let outs: Vec<usize> = (0..k).map(|d| (padded[d] - extent[d]) / strides[d] + 1).collect();
    let positions: usize = outs.iter().product();
    let strided = strides.iter().any(|&s| s != 1);
    // Each group: its input channels' slice against its output features' weights.
    let (gc, go) = (c / groups, o / groups);
    let mut outputs = Vec::with_capacity(groups);
    for g in 0..groups {
        let mut acc: Option<Tensor> = None;
        // Every tap, the last spatial dimension fastest.
        let mut tap = vec![0; k];
        for _ in 0..taps.iter().product::<usize>() {
            let offset: Vec<usize> = (0..k).map(|d| tap[d] * rd[d]).collect();
            let mut start = vec![0];
            start.extend(&offset);
            start.push(g * gc);
            let mut limit = vec![n];
            limit.extend((0..k).map(|d| offset[d] + (outs[d] - 1) * strides[d] + 1));
            limit.push((g + 1) * gc);
            let window = Primitive::Slice {
                start_indices: start,
                limit_indices: limit,
                strides: strided.then(|| [&[1][..], strides, &[1][..]].concat()),
            };
            let patch = bind1(ctx, window, std::slice::from_ref(&x)).await?;
            let patch = reshape(ctx, &patch, &[(n * positions) as i64, gc as i64]).await?;
            let weights = Primitive::Slice {
                start_indices: [&tap[..], &[0, g * go][..]].concat(),
                limit_indices: [&tap.iter().map(|t| t + 1).collect::<Vec<_>>()[..], &[gc, (g + 1) * go][..]].concat(),
                strides: None,
            };
            let weights = bind1(ctx, weights, std::slice::from_ref(&w)).await?;
            let weights = reshape(ctx, &weights, &[gc as i64, go as i64]).await?;
            let dims =
                DotDims { lhs_contracting: vec![1], rhs_contracting: vec![0], lhs_batch: vec![], rhs_batch: vec![] };
            let prim = Primitive::DotGeneral { dims, precision, preferred_element_type: Some(dtype) };
            let term = bind1(ctx, prim, &[patch, weights]).await?; // (N·outputs, O / groups)
            acc = Some(match acc {
                None => term,
                Some(a) => binary(ctx, BinaryOp::Add, &a, &term).await?,
            });
            for d in (0..k).rev() {
                tap[d] += 1;
                if tap[d] < taps[d] {
                    break;
                }
                tap[d] = 0;
            }
        }
        outputs.push(acc.ok_or_else(|| bad("the kernel has no taps".into()))?);
    }
    let acc = if groups == 1 {
        outputs.remove(0)
    } else {
        bind1(ctx, Primitive::Concatenate { dimension: 1 }, &outputs).await?
    };
    let mut shape = vec![n as i64];
    shape.extend(outs.iter().map(|&d| d as i64));
    shape.push(o as i64);
    let channels_last = reshape(ctx, &acc, &shape).await?;
    // Output axis out_axes[j] holds the channels-last axis j's counterpart: N, spatial…, C.
    let mut from = vec![0; rank];
    let last_order: Vec<usize> = [&out_axes[..1], &out_axes[2..], &out_axes[1..2]].concat();
    for (channels_last_axis, &spec_axis) in last_order.iter().enumerate() {
        from[spec_axis] = channels_last_axis;
    }
    if from.iter().enumerate().all(|(i, &f)| i == f) {
        Ok(channels_last)
    } else {
        transpose(ctx, &channels_last, Some(&from)).await
    }
}
