//! `jax.random`'s functions written in primitives, as JAX writes them, for keys that are
//! traced (arguments of `jit`, mapped by `vmap`, ...): the draw becomes equations of the
//! program, and the TPU runs Threefry itself. (Concrete keys draw on the host with
//! [`crate::random`], which these match to the bit.)
//!
//! A key is a raw key, `uint32[..., 2]` (`jax.random.PRNGKey`), or a typed one, `key<fry>[...]`
//! (`jax.random.key`); new keys come back in the kind given, as in JAX.

use crate::array::{Array, Data};
use crate::dtype::DType;
use crate::numpy as jnp;
use crate::prim::{BinaryOp, CompareOp, Primitive, UnaryOp};
use crate::trace::{Context, JaxError, Tensor};

type Result<T> = std::result::Result<T, JaxError>;

async fn bind1(ctx: &mut Context, prim: Primitive, inputs: &[Tensor]) -> Result<Tensor> {
    Ok(ctx.bind(prim, inputs).await?.remove(0))
}

fn u32_scalar(x: u32) -> Tensor {
    Tensor::from(Array::new(vec![], Data::U32(vec![x])))
}

fn f32_scalar(x: f32) -> Tensor {
    Tensor::from(Array::from_f32(vec![], vec![x]))
}

/// Whether `key` is a key JAX accepts: typed, or uint32 words whose last axis is 2.
pub fn is_key(key: &Tensor) -> bool {
    let aval = key.aval();
    aval.dtype == DType::Key || (aval.dtype == DType::U32 && aval.shape.last() == Some(&2))
}

/// The typed key of `key` (a raw key is wrapped), and whether it was raw.
async fn typed(ctx: &mut Context, what: &str, key: &Tensor) -> Result<(Tensor, bool)> {
    let aval = key.aval();
    if !is_key(key) {
        return Err(JaxError(format!(
            "{what} expects a key (from jax.random.PRNGKey or jax.random.key), got {}",
            aval.short()
        )));
    }
    let single = if aval.dtype == DType::Key { aval.rank() == 0 } else { aval.rank() == 1 };
    if !single {
        return Err(JaxError(format!(
            "{what} expects a single key, got an array of keys of shape {}; index it or use jax.vmap",
            jnp::shape_str(&aval.shape)
        )));
    }
    if aval.dtype == DType::Key {
        return Ok((key.clone(), false));
    }
    Ok((bind1(ctx, Primitive::RandomWrap, std::slice::from_ref(key)).await?, true))
}

/// New typed keys as the kind the caller gave.
async fn as_given(ctx: &mut Context, keys: Tensor, raw: bool) -> Result<Tensor> {
    if raw {
        bind1(ctx, Primitive::RandomUnwrap, &[keys]).await
    } else {
        Ok(keys)
    }
}

/// `jax.random.key(seed)` (`typed`) or `jax.random.PRNGKey(seed)` of an int32 seed array.
pub async fn seed(ctx: &mut Context, seed: &Tensor, typed: bool) -> Result<Tensor> {
    let key = bind1(ctx, Primitive::RandomSeed, std::slice::from_ref(seed)).await?;
    as_given(ctx, key, !typed).await
}

/// `jax.random.split(key, num)`.
pub async fn split(ctx: &mut Context, key: &Tensor, num: usize) -> Result<Tensor> {
    let (key, raw) = typed(ctx, "jax.random.split", key).await?;
    let keys = bind1(ctx, Primitive::RandomSplit { shape: vec![num] }, &[key]).await?;
    as_given(ctx, keys, raw).await
}

/// `jax.random.fold_in(key, data)`: `data` an integer scalar, taken as uint32.
pub async fn fold_in(ctx: &mut Context, key: &Tensor, data: &Tensor) -> Result<Tensor> {
    let (key, raw) = typed(ctx, "jax.random.fold_in", key).await?;
    let aval = data.aval();
    if aval.rank() != 0 || aval.dtype.is_float() || aval.dtype == DType::Key {
        return Err(JaxError(format!("jax.random.fold_in: data must be an integer scalar, got {}", aval.short())));
    }
    let data = match data {
        Tensor::Concrete(a) => Tensor::from(a.astype(DType::U32)),
        traced => jnp::astype(ctx, traced, DType::U32).await?,
    };
    let folded = bind1(ctx, Primitive::RandomFoldIn, &[key, data]).await?;
    as_given(ctx, folded, raw).await
}

/// `k1, k2 = jax.random.split(key)`, as typed keys (JAX's `_split` inside its own functions).
pub async fn split_in_two(ctx: &mut Context, what: &str, key: &Tensor) -> Result<[Tensor; 2]> {
    let (key, _) = typed(ctx, what, key).await?;
    let halves = bind1(ctx, Primitive::RandomSplit { shape: vec![2] }, &[key]).await?;
    // Keys are opaque to slicing: each half is taken through its words, as JAX indexes keys.
    let words = bind1(ctx, Primitive::RandomUnwrap, &[halves]).await?;
    let mut out = Vec::new();
    for i in 0..2 {
        let slice = Primitive::Slice { start_indices: vec![i, 0], limit_indices: vec![i + 1, 2], strides: None };
        let half = bind1(ctx, slice, std::slice::from_ref(&words)).await?;
        let half = bind1(ctx, Primitive::Squeeze { dimensions: vec![0] }, &[half]).await?;
        out.push(bind1(ctx, Primitive::RandomWrap, &[half]).await?);
    }
    let [k1, k2] = <[Tensor; 2]>::try_from(out).expect("two halves");
    Ok([k1, k2])
}

/// `jax.random.bits(key, shape)`: uint32 words of random bits.
pub async fn bits(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let (key, _) = typed(ctx, "jax.random.bits", key).await?;
    bind1(ctx, Primitive::RandomBits { shape: shape.to_vec() }, &[key]).await
}

/// `jax.random.uniform(key, shape, float32, minval, maxval)`: 23 random bits under the
/// exponent of 1.0 make a float in [1, 2); minus 1, scaled and shifted, at least `minval`.
/// The bounds are float32 scalars.
pub async fn uniform(
    ctx: &mut Context,
    key: &Tensor,
    shape: &[usize],
    minval: &Tensor,
    maxval: &Tensor,
) -> Result<Tensor> {
    let (key, _) = typed(ctx, "jax.random.uniform", key).await?;
    let mut bounds = Vec::new();
    for b in [minval, maxval] {
        if b.aval().rank() != 0 {
            return Err(JaxError(format!(
                "jax.random.uniform with a traced key takes scalar minval and maxval in the playground, got {}",
                b.aval().short()
            )));
        }
        bounds.push(jnp::astype(ctx, b, DType::F32).await?);
    }
    let bits = bind1(ctx, Primitive::RandomBits { shape: shape.to_vec() }, &[key]).await?;
    let mantissa = bind1(ctx, Primitive::Binary(BinaryOp::ShiftRightLogical), &[bits, u32_scalar(32 - 23)]).await?;
    let one_to_two = bind1(ctx, Primitive::Binary(BinaryOp::Or), &[mantissa, u32_scalar(1f32.to_bits())]).await?;
    let floats = bind1(ctx, Primitive::BitcastConvertType { new_dtype: DType::F32 }, &[one_to_two]).await?;
    let unit = bind1(ctx, Primitive::Binary(BinaryOp::Sub), &[floats, f32_scalar(1.0)]).await?;
    let span = jnp::binary(ctx, BinaryOp::Sub, &bounds[1], &bounds[0]).await?;
    let scaled = jnp::binary(ctx, BinaryOp::Mul, &unit, &span).await?;
    let shifted = jnp::binary(ctx, BinaryOp::Add, &scaled, &bounds[0]).await?;
    jnp::binary(ctx, BinaryOp::Max, &bounds[0], &shifted).await
}

/// `jax.random.normal(key, shape)`: √2 · erf⁻¹(u) for u uniform in (−1, 1).
pub async fn normal(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let below_one = f32::from_bits((-1.0f32).to_bits() - 1); // nextafter(-1, 0)
    let u = uniform(ctx, key, shape, &f32_scalar(below_one), &f32_scalar(1.0)).await?;
    let e = bind1(ctx, Primitive::Unary(UnaryOp::ErfInv), &[u]).await?;
    jnp::binary(ctx, BinaryOp::Mul, &f32_scalar(std::f32::consts::SQRT_2), &e).await
}

/// `jax.random.bernoulli(key, p, shape)`: a uniform below `p` (a scalar).
pub async fn bernoulli(ctx: &mut Context, key: &Tensor, p: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let p = jnp::astype(ctx, p, DType::F32).await?;
    let u = uniform(ctx, key, shape, &f32_scalar(0.0), &f32_scalar(1.0)).await?;
    jnp::compare(ctx, CompareOp::Lt, &u, &p).await
}

/// `jax.random.truncated_normal(key, lower, upper, shape)`: the normal inverse CDF of a
/// uniform between the bounds' CDFs (computed on the host, as JAX folds them), kept strictly
/// inside the bounds.
pub async fn truncated_normal(
    ctx: &mut Context,
    key: &Tensor,
    lower: f32,
    upper: f32,
    shape: &[usize],
) -> Result<Tensor> {
    let sqrt2 = std::f32::consts::SQRT_2;
    // JAX's erf of a 0-d argument (XLA's scalar kernel).
    let cdf = |x: f32| crate::xla_cpu::erf_of_one(x / sqrt2);
    let u = uniform(ctx, key, shape, &f32_scalar(cdf(lower)), &f32_scalar(cdf(upper))).await?;
    let e = bind1(ctx, Primitive::Unary(UnaryOp::ErfInv), &[u]).await?;
    let x = jnp::binary(ctx, BinaryOp::Mul, &f32_scalar(sqrt2), &e).await?;
    let (lo, hi) = crate::random::inside(lower, upper);
    let x = jnp::binary(ctx, BinaryOp::Max, &x, &f32_scalar(lo)).await?;
    jnp::binary(ctx, BinaryOp::Min, &x, &f32_scalar(hi)).await
}

/// `jax.random.exponential(key, shape)`: −log1p(−u).
pub async fn exponential(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let u = uniform(ctx, key, shape, &f32_scalar(0.0), &f32_scalar(1.0)).await?;
    let minus = jnp::unary(ctx, UnaryOp::Neg, &u).await?;
    let log = jnp::unary(ctx, UnaryOp::Log1p, &minus).await?;
    jnp::unary(ctx, UnaryOp::Neg, &log).await
}

/// `jax.random.gumbel(key, shape)` in JAX's default ("low") mode: −log(−log u) for u uniform
/// in [tiny, 1).
pub async fn gumbel(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let u = uniform(ctx, key, shape, &f32_scalar(f32::MIN_POSITIVE), &f32_scalar(1.0)).await?;
    gumbel_of_uniform(ctx, &u).await
}

/// −log(−log u): Gumbel noise from uniform draws `u` (made here or on the host).
pub async fn gumbel_of_uniform(ctx: &mut Context, u: &Tensor) -> Result<Tensor> {
    let log = jnp::unary(ctx, UnaryOp::Log, u).await?;
    let minus = jnp::unary(ctx, UnaryOp::Neg, &log).await?;
    let log = jnp::unary(ctx, UnaryOp::Log, &minus).await?;
    jnp::unary(ctx, UnaryOp::Neg, &log).await
}

/// `jax.random.laplace(key, shape)`: sign(u)·log1p(−|u|) for u uniform in (−1, 1).
pub async fn laplace(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let epsneg = f32::EPSILON / 2.0;
    let u = uniform(ctx, key, shape, &f32_scalar(-1.0 + epsneg), &f32_scalar(1.0)).await?;
    let sign = jnp::unary(ctx, UnaryOp::Sign, &u).await?;
    let magnitude = jnp::unary(ctx, UnaryOp::Abs, &u).await?;
    let minus = jnp::unary(ctx, UnaryOp::Neg, &magnitude).await?;
    let log = jnp::unary(ctx, UnaryOp::Log1p, &minus).await?;
    jnp::binary(ctx, BinaryOp::Mul, &sign, &log).await
}

/// `jax.random.logistic(key, shape)`: log(u) − log1p(−u) for u uniform in [tiny, 1).
pub async fn logistic(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let u = uniform(ctx, key, shape, &f32_scalar(f32::MIN_POSITIVE), &f32_scalar(1.0)).await?;
    let log = jnp::unary(ctx, UnaryOp::Log, &u).await?;
    let minus = jnp::unary(ctx, UnaryOp::Neg, &u).await?;
    let log_rest = jnp::unary(ctx, UnaryOp::Log1p, &minus).await?;
    jnp::binary(ctx, BinaryOp::Sub, &log, &log_rest).await
}

/// `jax.random.cauchy(key, shape)`: tan(π·(u − ½)) for u uniform in [ε, 1), the tangent as
/// sin/cos (the machine has no tan; XLA expands it likewise).
pub async fn cauchy(ctx: &mut Context, key: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let u = uniform(ctx, key, shape, &f32_scalar(f32::EPSILON), &f32_scalar(1.0)).await?;
    let centred = jnp::binary(ctx, BinaryOp::Sub, &u, &f32_scalar(0.5)).await?;
    let angle = jnp::binary(ctx, BinaryOp::Mul, &f32_scalar(std::f32::consts::PI), &centred).await?;
    let sin = jnp::unary(ctx, UnaryOp::Sin, &angle).await?;
    let cos = jnp::unary(ctx, UnaryOp::Cos, &angle).await?;
    jnp::binary(ctx, BinaryOp::Div, &sin, &cos).await
}

/// `jax.random.rademacher(key, shape, dtype)`: 2·bernoulli(½) − 1 in `dtype`.
pub async fn rademacher(ctx: &mut Context, key: &Tensor, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let b = bernoulli(ctx, key, &f32_scalar(0.5), shape).await?;
    let b = jnp::astype(ctx, &b, dtype).await?;
    let two_b = jnp::binary(ctx, BinaryOp::Mul, &Tensor::from(Array::weak_scalar_f32(2.0)), &b).await?;
    let out = jnp::binary(ctx, BinaryOp::Sub, &two_b, &Tensor::from(Array::weak_scalar_f32(1.0))).await?;
    jnp::astype(ctx, &out, dtype).await
}

/// `jax.random.randint(key, shape, minval, maxval)` in int32, for bounds the host knows, as
/// JAX computes it: the key split in two, a word of random bits from each, reduced modulo the
/// span (`maxval - minval`, or 1 when that is empty), the high word weighted by 2^32 mod span
/// (the span and that weight folded on the host, as they are constants).
pub async fn randint(ctx: &mut Context, key: &Tensor, shape: &[usize], minval: i32, maxval: i32) -> Result<Tensor> {
    let mut words = Vec::new();
    for half in split_in_two(ctx, "jax.random.randint", key).await? {
        words.push(bind1(ctx, Primitive::RandomBits { shape: shape.to_vec() }, &[half]).await?);
    }
    let span = if maxval <= minval { 1 } else { maxval.wrapping_sub(minval) as u32 };
    let multiplier = (1u32 << 16) % span;
    let multiplier = multiplier.wrapping_mul(multiplier) % span;
    let rem = |x: Tensor| [x, u32_scalar(span)];
    let high = bind1(ctx, Primitive::Binary(BinaryOp::Rem), &rem(words[0].clone())).await?;
    let high = bind1(ctx, Primitive::Binary(BinaryOp::Mul), &[high, u32_scalar(multiplier)]).await?;
    let low = bind1(ctx, Primitive::Binary(BinaryOp::Rem), &rem(words[1].clone())).await?;
    let offset = bind1(ctx, Primitive::Binary(BinaryOp::Add), &[high, low]).await?;
    let offset = bind1(ctx, Primitive::Binary(BinaryOp::Rem), &rem(offset)).await?;
    let offset = jnp::astype(ctx, &offset, DType::I32).await?;
    let minval = Tensor::from(Array::new(vec![], Data::I32(vec![minval])));
    jnp::binary(ctx, BinaryOp::Add, &minval, &offset).await
}
