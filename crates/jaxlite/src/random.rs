//! `jax.random`'s generator on the host: Threefry-2x32 (20 rounds) in the layout JAX uses by
//! default (`jax_threefry_partitionable`): element i of a draw is `threefry(key, (0, i))`, a
//! split's i-th key too, and 32 random bits are the two output words XORed. Keys are
//! `[u32; 2]`. Keys, bits, uniforms and normals match real JAX to the bit: normals go through
//! XLA's float32 `erf_inv` polynomial with XLA's fused multiply-adds and XLA's own `log1p`
//! (`crate::xla_cpu`).

use crate::eval::unary_f32;
use crate::prim::UnaryOp;

/// The Threefry-2x32 block cipher: `count` encrypted under `key`.
pub fn threefry2x32(key: [u32; 2], count: [u32; 2]) -> [u32; 2] {
    const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let ks = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD1_1BDA];
    let mut x = [count[0].wrapping_add(ks[0]), count[1].wrapping_add(ks[1])];
    for i in 0..5 {
        for &r in &ROTATIONS[i % 2] {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(r) ^ x[0];
        }
        x[0] = x[0].wrapping_add(ks[(i + 1) % 3]);
        x[1] = x[1].wrapping_add(ks[(i + 2) % 3]).wrapping_add(i as u32 + 1);
    }
    x
}

/// `jax.random.PRNGKey(seed)`: the high 32 bits of the seed (0 for an int32) and the low 32.
pub fn seed(seed: i32) -> [u32; 2] {
    [0, seed as u32]
}

/// `jax.random.split(key, n)`.
pub fn split(key: [u32; 2], n: usize) -> Vec<[u32; 2]> {
    (0..n).map(|i| threefry2x32(key, [0, i as u32])).collect()
}

/// `jax.random.fold_in(key, data)`: the key encrypting the seed of `data`.
pub fn fold_in(key: [u32; 2], data: u32) -> [u32; 2] {
    threefry2x32(key, [0, data])
}

/// `n` words of 32 random bits.
pub fn bits(key: [u32; 2], n: usize) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let [a, b] = threefry2x32(key, [0, i as u32]);
            a ^ b
        })
        .collect()
}

/// `jax.random.uniform(key, (n,), minval, maxval)` in float32: 23 random mantissa bits make a
/// float in [1, 2), minus 1, scaled and shifted, and at least `minval` (as JAX).
pub fn uniform(key: [u32; 2], n: usize, minval: f32, maxval: f32) -> Vec<f32> {
    bits(key, n)
        .into_iter()
        .map(|b| {
            let unit = f32::from_bits((b >> 9) | 0x3F80_0000) - 1.0;
            // XLA fuses the scale and shift into one fused multiply-add.
            unit.mul_add(maxval - minval, minval).max(minval)
        })
        .collect()
}

/// `jax.random.normal(key, (n,))`: `sqrt(2) · erf_inv(u)` for `u` uniform in (-1, 1).
pub fn normal(key: [u32; 2], n: usize) -> Vec<f32> {
    let lo = f32::from_bits((-1.0f32).to_bits() - 1); // nextafter(-1, 0)
    uniform(key, n, lo, 1.0).into_iter().map(|u| std::f32::consts::SQRT_2 * erf_inv(u)).collect()
}

/// `jax.random.truncated_normal(key, lower, upper, (n,))`: the normal inverse CDF of a
/// uniform between the bounds' CDFs, kept strictly inside the bounds, as JAX.
pub fn truncated_normal(key: [u32; 2], n: usize, lower: f32, upper: f32) -> Vec<f32> {
    let sqrt2 = std::f32::consts::SQRT_2;
    // JAX's erf of a 0-d argument (XLA's scalar kernel).
    let cdf = |x: f32| crate::xla_cpu::erf_of_one(x / sqrt2);
    let (lo, hi) = inside(lower, upper);
    uniform(key, n, cdf(lower), cdf(upper)).into_iter().map(|u| (sqrt2 * erf_inv(u)).max(lo).min(hi)).collect()
}

/// The nearest floats strictly inside `(lower, upper)`, where a truncated normal is clipped.
pub fn inside(lower: f32, upper: f32) -> (f32, f32) {
    (next_toward(lower, f32::INFINITY), next_toward(upper, f32::NEG_INFINITY))
}

/// `jax.random.exponential(key, (n,))`: −log1p(−u).
pub fn exponential(key: [u32; 2], n: usize) -> Vec<f32> {
    uniform(key, n, 0.0, 1.0).into_iter().map(|u| -unary_f32(UnaryOp::Log1p, -u)).collect()
}

/// `jax.random.laplace(key, (n,))`: sign(u)·log1p(−|u|) for u uniform in (−1, 1).
pub fn laplace(key: [u32; 2], n: usize) -> Vec<f32> {
    let epsneg = f32::EPSILON / 2.0;
    uniform(key, n, -1.0 + epsneg, 1.0)
        .into_iter()
        .map(|u| unary_f32(UnaryOp::Sign, u) * unary_f32(UnaryOp::Log1p, -u.abs()))
        .collect()
}

/// `jax.random.logistic(key, (n,))`: log(u / (1 − u)) for u uniform in (0, 1).
pub fn logistic(key: [u32; 2], n: usize) -> Vec<f32> {
    uniform(key, n, f32::MIN_POSITIVE, 1.0).into_iter().map(|u| unary_f32(UnaryOp::Log, u / (1.0 - u))).collect()
}

/// `jax.random.cauchy(key, (n,))`: tan(π·(u − ½)) for u uniform in [ε, 1).
pub fn cauchy(key: [u32; 2], n: usize) -> Vec<f32> {
    let pi = std::f32::consts::PI;
    uniform(key, n, f32::EPSILON, 1.0).into_iter().map(|u| (pi * (u - 0.5)).tan()).collect()
}

/// `jax.random.rademacher(key, (n,))`: ±1, each with probability ½ (2·bernoulli(½) − 1).
pub fn rademacher(key: [u32; 2], n: usize) -> Vec<f32> {
    bernoulli(key, 0.5, n).into_iter().map(|b| if b { 1.0 } else { -1.0 }).collect()
}

/// The next float after `x` toward `to` (`lax.nextafter`).
fn next_toward(x: f32, to: f32) -> f32 {
    if x.is_nan() || x == to {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(to);
    }
    let bits = x.to_bits();
    f32::from_bits(if (to > x) == (x > 0.0) { bits + 1 } else { bits - 1 })
}

/// `jax.random.bernoulli(key, p, (n,))`: uniform below `p`.
pub fn bernoulli(key: [u32; 2], p: f32, n: usize) -> Vec<bool> {
    uniform(key, n, 0.0, 1.0).into_iter().map(|u| u < p).collect()
}

/// `jax.random.randint(key, (n,), minval, maxval)` in int32, as JAX computes it: two words of
/// random bits per value (from the two halves of a split) reduced modulo the span
/// (`maxval - minval`, or 1 when that is empty), the high word weighted by 2^32 mod span.
pub fn randint(key: [u32; 2], n: usize, minval: i32, maxval: i32) -> Vec<i32> {
    let [k1, k2] = [split(key, 2)[0], split(key, 2)[1]];
    let span = if maxval <= minval { 1 } else { maxval.wrapping_sub(minval) as u32 };
    let multiplier = (1u32 << 16) % span;
    let multiplier = multiplier.wrapping_mul(multiplier) % span;
    bits(k1, n)
        .into_iter()
        .zip(bits(k2, n))
        .map(|(high, low)| {
            let offset = (high % span).wrapping_mul(multiplier).wrapping_add(low % span) % span;
            minval.wrapping_add(offset as i32)
        })
        .collect()
}

/// How many rounds of sorting on fresh 32-bit random keys JAX's `_shuffle` makes for `n`
/// elements: as many as make a collision in every round unlikely (⌈3 ln n / ln(2^32 − 1)⌉:
/// one up to n = 1625, none for one element).
pub fn shuffle_rounds(n: usize) -> usize {
    (3.0 * (n.max(1) as f64).ln() / (u32::MAX as f64).ln()).ceil() as usize
}

/// `jax.random.permutation(key, n)`: 0..n shuffled as JAX's `_shuffle` does it, by
/// [`shuffle_rounds`] stable sorts on fresh 32-bit random keys.
pub fn permutation(key: [u32; 2], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut key = key;
    for _ in 0..shuffle_rounds(n) {
        let keys = split(key, 2);
        key = keys[0];
        let sort_keys = bits(keys[1], n);
        let mut by: Vec<usize> = (0..n).collect();
        by.sort_by_key(|&i| sort_keys[i]);
        order = by.into_iter().map(|i| order[i]).collect();
    }
    order
}

/// XLA's coefficients of `ErfInv32` (xla/client/lib/math.cc), verbatim: the polynomial in
/// `w - 2.5` where `w = -log1p(-x²)` is below 5, highest power first.
#[allow(clippy::excessive_precision)]
pub const ERF_INV_BELOW_5: [f32; 9] = [
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
];

/// The polynomial in `√w - 3` where `w` is 5 or more.
#[allow(clippy::excessive_precision)]
pub const ERF_INV_ABOVE_5: [f32; 9] = [
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
];

/// XLA's float32 `ErfInv` (Giles' approximation), operation for operation (its Horner steps
/// are fused multiply-adds on XLA's CPU backend, as here).
pub fn erf_inv(x: f32) -> f32 {
    let w = -crate::xla_cpu::log1p(-x * x);
    let (c, w) = if w < 5.0 { (&ERF_INV_BELOW_5, w - 2.5) } else { (&ERF_INV_ABOVE_5, w.sqrt() - 3.0) };
    let mut p = c[0];
    for &k in &c[1..] {
        p = p.mul_add(w, k);
    }
    if x.abs() == 1.0 {
        x * f32::MAX
    } else {
        p * x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Printed by JAX 0.10.2: `jax.random.split(jax.random.PRNGKey(0), 3)`,
    /// `jax.random.fold_in(jax.random.PRNGKey(3), 7)`, `jax.random.uniform(PRNGKey(1), (5,))`.
    #[test]
    fn matches_jax() {
        assert_eq!(split(seed(0), 3), [[1797259609, 2579123966], [928981903, 3453687069], [4146024105, 2718843009]]);
        assert_eq!(fold_in(seed(3), 7), [2647473427, 4234374204]);
        let u = uniform(seed(1), 5, 0.0, 1.0);
        assert_eq!(u, [0.4386325, 0.5337529, 0.44591832, 0.43839633, 0.8973628]);
        let u = uniform(seed(0), 6, -1.0, 2.0);
        assert_eq!(u, [1.843001, 1.9357396, -0.0031255484, 0.40600538, 0.70966613, -0.5034909]);
        // jax.random.normal(PRNGKey(0), (6,)) and the bits of jax.random.normal(PRNGKey(1), (3, 2)).
        assert_eq!(normal(seed(0), 6), [1.6226422, 2.0252647, -0.43359444, -0.07861735, 0.1760909, -0.97208923]);
        let bits: Vec<u32> = normal(seed(1), 6).iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, [3189646536, 1034779394, 3188407928, 3189686739, 1067590184, 1041750866]);
        // Three of the first 3000 normals of PRNGKey(0) where libm's log1p would give another
        // last bit.
        let normals = normal(seed(0), 3000);
        let bits: Vec<u32> = [288, 466, 885].iter().map(|&i| normals[i].to_bits()).collect();
        assert_eq!(bits, [0xc04cb916, 0xbf6acfed, 0x3f80cf7d]);
    }

    /// Known values of the Threefry-2x32 (20 rounds) test vectors of Random123.
    #[test]
    fn randint_and_permutation_match_jax() {
        // jax.random.randint(jax.random.PRNGKey(0), (6,), 0, 10) and (3,), 5, 5; JAX 0.10.
        assert_eq!(randint(seed(0), 6, 0, 10), [9, 0, 2, 3, 1, 7]);
        assert_eq!(randint(seed(0), 3, 5, 5), [5, 5, 5]);
        // jax.random.permutation(jax.random.PRNGKey(1), 8)
        assert_eq!(permutation(seed(1), 8), [7, 6, 3, 2, 0, 1, 5, 4]);
    }

    #[test]
    fn threefry_known_answers() {
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b200159, 0x99ba4efe]);
        assert_eq!(threefry2x32([0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff]), [0x1cb996fc, 0xbb002be7]);
        assert_eq!(threefry2x32([0x13198a2e, 0x03707344], [0x243f6a88, 0x85a308d3]), [0xc4923a9c, 0x483df7a0]);
    }
}
