//! The vector unit's arithmetic, defined once, bit for bit.
//!
//! Platform `exp`/`tanh`/division differ in their last bits between CPUs, GPUs and browsers, so
//! the emulator does not use them. Every function here uses only operations that IEEE 754
//! defines exactly — add, sub, mul, fused multiply-add, comparisons, bit manipulation — in a
//! fixed order. `shaders/vpu_math.wgsl` is a line-by-line port; the two must stay in step
//! (the GPU backend's tests compare them bit for bit).
//!
//! Accuracy: exp, log and tanh are within a few ulp of the correctly rounded result over the
//! whole f32 range (see the tests); division is correctly rounded for normal results.

/// Splits a finite, non-zero `x` into a mantissa in [1, 2) and an exponent: `x = m * 2^e`
/// (sign dropped). Subnormals are scaled up first, exactly.
pub fn split_exp(x: f32) -> (f32, i32) {
    let mut bits = x.abs().to_bits();
    let mut bias = 127;
    if bits < 0x0080_0000 {
        // Subnormal: multiply by 2^23 (exact) so the exponent field is meaningful.
        bits = (f32::from_bits(bits) * 8_388_608.0).to_bits();
        bias += 23;
    }
    let e = (bits >> 23) as i32 - bias;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    (m, e)
}

/// `2^e` for e in [-126, 127], built from bits (exact).
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// `x * 2^e` for any e, in two exact-or-correctly-rounded multiplications.
pub fn scale(x: f32, e: i32) -> f32 {
    let e1 = e.clamp(-126, 127);
    let e2 = (e - e1).clamp(-126, 127);
    x * pow2(e1) * pow2(e2)
}

/// The reciprocal of a mantissa in [1, 2), to within an ulp. On d = m/2 in [0.5, 1): the
/// classic linear first guess 48/17 - 32/17·d, then three Newton steps (error 1/17, 2^-8,
/// 2^-16, below 2^-24); halving is exact.
fn recip_mantissa(m: f32) -> f32 {
    let d = 0.5 * m;
    let mut r = (-32.0f32 / 17.0).mul_add(d, 48.0 / 17.0);
    for _ in 0..3 {
        let e = (-d).mul_add(r, 1.0);
        r = r.mul_add(e, r);
    }
    0.5 * r
}

/// Division as the vector unit computes it: on mantissas, a Newton reciprocal and one
/// Markstein correction step (which rounds the quotient correctly), then the exponents.
pub fn div(a: f32, b: f32) -> f32 {
    if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        // Special operands have exact IEEE results (inf, nan, ±0) on every platform.
        return a / b;
    }
    let (ma, ea) = split_exp(a);
    let (mb, eb) = split_exp(b);
    let r = recip_mantissa(mb);
    let q = ma * r;
    let residual = (-q).mul_add(mb, ma);
    let q = residual.mul_add(r, q);
    let sign = if (a < 0.0) != (b < 0.0) { -1.0 } else { 1.0 };
    scale(sign * q, ea - eb)
}

const LOG2E: f32 = std::f32::consts::LOG2_E;
/// ln 2 split so that `n * LN2_HI` is exact for |n| < 2^11.
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;

/// `exp(r) - 1` for |r| <= ln2/2, as a Taylor polynomial of degree 8 (truncation error below
/// 2^-30 relative), evaluated by Horner's rule with fused multiply-adds.
fn expm1_reduced(r: f32) -> f32 {
    const C: [f32; 7] = [1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5];
    let mut p = C[0];
    for &c in &C[1..] {
        p = p.mul_add(r, c);
    }
    (r * r).mul_add(p, r)
}

/// Range reduction for exp: x = n·ln2 + r with |r| <= ln2/2.
fn reduce_exp(x: f32) -> (f32, i32) {
    let n = x.mul_add(LOG2E, 0.5).floor();
    let r = (-n).mul_add(LN2_HI, x);
    let r = (-n).mul_add(LN2_LO, r);
    (r, n as i32)
}

pub fn exp(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 88.722_84 {
        return f32::INFINITY;
    }
    if x < -103.972_08 {
        return 0.0;
    }
    let (r, n) = reduce_exp(x);
    scale(1.0 + expm1_reduced(r), n)
}

pub fn log(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return x;
    }
    let (mut m, mut e) = split_exp(x);
    // Centre the mantissa on 1 so that f = m - 1 is small: m in [sqrt(1/2), sqrt(2)).
    if m > std::f32::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let f = m - 1.0;
    // log(1+f) = 2 atanh(s) with s = f / (2 + f): 2s + 2s^3/3 + 2s^5/5 + ...
    let s = div(f, 2.0 + f);
    let z = s * s;
    const C: [f32; 5] = [2.0 / 11.0, 2.0 / 9.0, 2.0 / 7.0, 2.0 / 5.0, 2.0 / 3.0];
    let mut p = C[0];
    for &c in &C[1..] {
        p = p.mul_add(z, c);
    }
    let log1p_f = (s * z).mul_add(p, 2.0 * s);
    let ef = e as f32;
    ef.mul_add(LN2_HI, ef.mul_add(LN2_LO, log1p_f))
}

/// tanh through expm1: tanh(a) = expm1(2a) / (expm1(2a) + 2) for a >= 0, odd symmetry for
/// a < 0. Above 9.1 the result rounds to 1 in f32.
pub fn tanh(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let t = if a > 9.1 {
        1.0
    } else {
        let (r, n) = reduce_exp(2.0 * a);
        let q = expm1_reduced(r);
        // expm1(2a) = 2^n (1 + q) - 1 = 2^n q + (2^n - 1); both terms exact, one rounding.
        let em1 = scale(q, n) + (scale(1.0, n) - 1.0);
        div(em1, em1 + 2.0)
    };
    if x.is_sign_negative() {
        -t
    } else {
        t
    }
}

/// NaN-propagating max; +0 is greater than -0.
pub fn max(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a > b || (a == b && b.is_sign_negative()) {
        a
    } else {
        b
    }
}

/// NaN-propagating min; -0 is less than +0.
pub fn min(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if a < b || (a == b && b.is_sign_positive()) {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Distance in units in the last place between two f32s of the same sign.
    fn ulps(a: f32, b: f32) -> u32 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        let key = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 {
                i32::MIN - i
            } else {
                i
            }
        };
        key(a).abs_diff(key(b))
    }

    /// Deterministic sample of f32 values across the range (every 4099th bit pattern).
    fn samples(lo: f32, hi: f32) -> impl Iterator<Item = f32> {
        (0..u32::MAX / 4099)
            .map(|i| f32::from_bits(i * 4099))
            .flat_map(|x| [x, -x])
            .filter(move |x| x.is_finite() && *x >= lo && *x <= hi)
    }

    fn max_ulps(f: fn(f32) -> f32, reference: fn(f64) -> f64, lo: f32, hi: f32) -> u32 {
        samples(lo, hi).map(|x| ulps(f(x), reference(x as f64) as f32)).max().unwrap()
    }

    #[test]
    fn division_is_correctly_rounded() {
        for a in samples(-1e30, 1e30).step_by(97) {
            for b in [3.0f32, -7.0, 10.0, 0.1, 1.0e-20, 6.0e25, 1.17e-38] {
                let want = a / b;
                if want.is_normal() || want == 0.0 {
                    assert_eq!(div(a, b).to_bits(), want.to_bits(), "{a} / {b}");
                }
            }
        }
    }

    #[test]
    fn division_special_values() {
        assert!(div(f32::NAN, 1.0).is_nan());
        assert_eq!(div(1.0, 0.0), f32::INFINITY);
        assert_eq!(div(-1.0, 0.0), f32::NEG_INFINITY);
        assert_eq!(div(1.0, f32::INFINITY), 0.0);
        assert_eq!(div(-0.0, 2.0).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn exp_log_tanh_are_within_a_few_ulps() {
        assert!(max_ulps(exp, f64::exp, -87.0, 88.0) <= 2);
        assert!(max_ulps(log, f64::ln, 1e-37, 3e38) <= 2);
        assert!(max_ulps(tanh, f64::tanh, -10.0, 10.0) <= 3);
    }

    #[test]
    fn special_values() {
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(0.0), 1.0);
        assert!(log(-1.0).is_nan());
        assert_eq!(log(0.0), f32::NEG_INFINITY);
        assert_eq!(log(1.0), 0.0);
        assert_eq!(tanh(f32::INFINITY), 1.0);
        assert_eq!(tanh(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(max(-0.0, 0.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(min(0.0, -0.0).to_bits(), (-0.0f32).to_bits());
        assert!(max(f32::NAN, 1.0).is_nan());
    }

    #[test]
    fn subnormals_split_exactly() {
        let x = f32::from_bits(5);
        let (m, e) = split_exp(x);
        assert_eq!(scale(m, e), x);
    }
}
