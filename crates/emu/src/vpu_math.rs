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

use isa::VectorOp;

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

/// Slope and offset of the first guess of 1/sqrt(m) on [1, 4).
pub const SQRT_LINE: [f32; 2] = [-0.146_446_6, 1.146_446_6];

/// Square root: a Newton reciprocal square root of the mantissa, then one correction step
/// from the exact residual `m - s*s` (a fused multiply-add), which rounds correctly in all
/// but rare cases.
pub fn sqrt(x: f32) -> f32 {
    if x.is_nan() || (x < 0.0) {
        return f32::NAN;
    }
    if x == 0.0 || x == f32::INFINITY {
        return x;
    }
    let (mut m, mut e) = split_exp(x);
    if e % 2 != 0 {
        // An even exponent halves exactly; the mantissa moves to [2, 4).
        m *= 2.0;
        e -= 1;
    }
    // 1/sqrt(m) on [1, 4): a straight line through the ends (within 12 %), then Newton:
    // r += r (1/2 - m/2 r^2), which squares the error each step (1e-2, 1e-4, 1e-8, 1e-16).
    let half = 0.5 * m;
    let mut r = SQRT_LINE[0].mul_add(m, SQRT_LINE[1]);
    for _ in 0..4 {
        let t = (-(half * r)).mul_add(r, 0.5);
        r = r.mul_add(t, r);
    }
    let s = m * r;
    let residual = (-s).mul_add(s, m);
    scale(residual.mul_add(0.5 * r, s), e / 2)
}

/// Floor, ceiling, rounding (half away from zero, or half to even) and sign are exact.
pub fn floor(x: f32) -> f32 {
    x.floor()
}

pub fn ceil(x: f32) -> f32 {
    x.ceil()
}

pub fn round_away(x: f32) -> f32 {
    x.round()
}

pub fn round_even(x: f32) -> f32 {
    x.round_ties_even()
}

/// -1, +1, or the zero or NaN itself.
pub fn sign(x: f32) -> f32 {
    if x.is_nan() || x == 0.0 {
        x
    } else if x > 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// π/2 in three parts for Cody–Waite reduction: `n * PIO2_1` is exact for |n| < 2^16, so the
/// reduction is accurate for |x| below about 1e5 (beyond, the result is deterministic but
/// loses accuracy).
pub const PIO2: [f32; 3] = [1.570_312_5, 4.837_513e-4, 7.549_79e-8];
pub const TWO_OVER_PI: f32 = std::f32::consts::FRAC_2_PI;

/// x = n·π/2 + r with |r| <= π/4, and the quadrant n mod 4.
fn reduce_pio2(x: f32) -> (f32, u32) {
    let n = x.mul_add(TWO_OVER_PI, 0.5).floor();
    let r = (-n).mul_add(PIO2[0], x);
    let r = (-n).mul_add(PIO2[1], r);
    let r = (-n).mul_add(PIO2[2], r);
    // n mod 4, exact for |n| < 2^24.
    let q = n - 4.0 * (n * 0.25).floor();
    (r, q as u32)
}

/// Taylor coefficients of sin (r^9 … r^3) and cos (r^10 … r^2), highest first.
pub const SIN_C: [f32; 4] = [1.0 / 362_880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0];
pub const COS_C: [f32; 5] = [-1.0 / 3_628_800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0, -0.5];

/// sin and cos on [-π/4, π/4] by their Taylor series to r^9 and r^10 (truncation below 2^-32).
fn sin_poly(r: f32) -> f32 {
    let z = r * r;
    let mut p = SIN_C[0];
    for &c in &SIN_C[1..] {
        p = p.mul_add(z, c);
    }
    (r * z).mul_add(p, r)
}

fn cos_poly(r: f32) -> f32 {
    let z = r * r;
    let mut p = COS_C[0];
    for &c in &COS_C[1..] {
        p = p.mul_add(z, c);
    }
    z.mul_add(p, 1.0)
}

pub fn sin(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    if x == 0.0 {
        return x; // keeps the sign of zero
    }
    let (r, q) = reduce_pio2(x);
    match q {
        0 => sin_poly(r),
        1 => cos_poly(r),
        2 => -sin_poly(r),
        _ => -cos_poly(r),
    }
}

pub fn cos(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (r, q) = reduce_pio2(x);
    match q {
        0 => cos_poly(r),
        1 => -sin_poly(r),
        2 => -cos_poly(r),
        _ => sin_poly(r),
    }
}

/// exp(x) - 1 without the cancellation near 0: 2^n (1 + q) - 1 = 2^n q + (2^n - 1).
pub fn expm1(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x > 88.722_84 {
        return f32::INFINITY;
    }
    if x < -17.5 {
        // exp(x) < 2^-25: -1 + exp(x) rounds to -1.
        return -1.0;
    }
    if x == 0.0 {
        return x; // keeps the sign of zero
    }
    let (r, n) = reduce_exp(x);
    let q = expm1_reduced(r);
    scale(q, n) + (scale(1.0, n) - 1.0)
}

/// log(1 + x) without the cancellation near 0: with u = 1 + x rounded, log(u) · x / (u - 1)
/// corrects for the rounding of u (u - 1 is exact).
pub fn log1p(x: f32) -> f32 {
    if x.is_nan() || x < -1.0 {
        return f32::NAN;
    }
    if x == f32::INFINITY {
        return x;
    }
    let u = 1.0 + x;
    if u == 1.0 {
        return x;
    }
    if u == 0.0 {
        return f32::NEG_INFINITY;
    }
    log(u) * div(x, u - 1.0)
}

/// (-1)^n / (n! (2n+1)) for n = 12 … 0: erf's Maclaurin series in x², highest first.
pub const ERF_SERIES: [f32; 13] = [
    1.0 / (479001600.0 * 25.0),
    -1.0 / (39916800.0 * 23.0),
    1.0 / (3628800.0 * 21.0),
    -1.0 / (362880.0 * 19.0),
    1.0 / (40320.0 * 17.0),
    -1.0 / (5040.0 * 15.0),
    1.0 / (720.0 * 13.0),
    -1.0 / (120.0 * 11.0),
    1.0 / (24.0 * 9.0),
    -1.0 / (6.0 * 7.0),
    1.0 / (2.0 * 5.0),
    -1.0 / (1.0 * 3.0),
    1.0,
];
/// Abramowitz & Stegun 7.1.26: a5 … a1 and p.
pub const ERF_AS: [f32; 5] = [1.061_405_4, -1.453_152_1, 1.421_413_8, -0.284_496_74, 0.254_829_6];
pub const ERF_P: f32 = 0.327_591_1;

/// The error function: its Maclaurin series below 1 (13 terms, truncation below 1e-10), then
/// Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, a few ulp), ±1 from 4 on.
pub fn erf(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let y = if a < 1.0 {
        // 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1)), by Horner's rule in x².
        let z = a * a;
        let mut p = ERF_SERIES[0];
        for &c in &ERF_SERIES[1..] {
            p = p.mul_add(z, c);
        }
        (a * p) * std::f32::consts::FRAC_2_SQRT_PI
    } else if a < 4.0 {
        let t = div(1.0, ERF_P.mul_add(a, 1.0));
        let mut p = ERF_AS[0];
        for &c in &ERF_AS[1..] {
            p = p.mul_add(t, c);
        }
        (-(p * t)).mul_add(exp(-(a * a)), 1.0)
    } else {
        1.0
    };
    if x.is_sign_negative() {
        -y
    } else {
        y
    }
}

/// A finite float's significand as an integer with the implicit bit set, and its exponent
/// field; a subnormal is shifted up to the implicit bit, its exponent going below 1 to match.
fn significand(bits: u32, exponent: i32) -> (u32, i32) {
    if exponent != 0 {
        return ((bits & 0x007f_ffff) | 0x0080_0000, exponent);
    }
    let mut e = 0;
    let mut i = bits << 9;
    while i >> 31 == 0 {
        e -= 1;
        i <<= 1;
    }
    (bits << (-e + 1), e)
}

/// An integer operation of the vector unit (`VectorOp::BitAnd` and the rest) on two words that
/// hold int32 values as float32: read as int32 toward zero, saturating, NaN as 0 (what `as`
/// does), computed in two's complement, written as the nearest float32 (what `as` does too).
/// `shaders/vpu_math.wgsl` spells each step out, since WGSL leaves NaN and out-of-range
/// conversions to the platform.
pub fn integer_op(op: VectorOp, a: f32, b: f32) -> f32 {
    let (x, y) = (int_of_word(a), int_of_word(b));
    let r = match op {
        VectorOp::BitAnd => x & y,
        VectorOp::BitOr => x | y,
        VectorOp::BitXor => x ^ y,
        VectorOp::ShiftLeft => u32::try_from(y).ok().and_then(|s| x.checked_shl(s)).unwrap_or(0),
        VectorOp::ShiftRight => match u32::try_from(y).ok().and_then(|s| x.checked_shr(s)) {
            Some(r) => r,
            None => x >> 31,
        },
        _ => unreachable!("{} is not an integer operation", op.name()),
    };
    r as f32
}

/// The int32 a word holding its float32 stands for: toward zero, saturating, NaN as 0.
pub fn int_of_word(a: f32) -> i32 {
    a as i32
}

/// A uint32 operation of the vector unit (`VectorOp::AddU32` and the rest) on two words'
/// bits: wrapping addition and multiplication, bitwise or and exclusive or, shifts with zeros
/// shifted in (a shift by 32 or more gives 0), the remainder (`x` itself for a divisor of 0).
pub fn u32_op(op: VectorOp, x: u32, y: u32) -> u32 {
    match op {
        VectorOp::AddU32 => x.wrapping_add(y),
        VectorOp::OrU32 => x | y,
        VectorOp::XorU32 => x ^ y,
        VectorOp::ShlU32 => x.checked_shl(y).unwrap_or(0),
        VectorOp::ShrU32 => x.checked_shr(y).unwrap_or(0),
        VectorOp::MulU32 => x.wrapping_mul(y),
        VectorOp::RemU32 => x.checked_rem(y).unwrap_or(x),
        _ => unreachable!("{} is not a uint32 operation", op.name()),
    }
}

/// `a` modulo `b` with the sign of `a`: C's `fmodf`, `lax.rem`. The result is always exact, so
/// it is computed on the bits by long division of the significands (musl's fmodf), which the
/// shader ports line by line; no float operation whose rounding a GPU could change is used.
/// NaN when `a` is infinite or `b` is zero (or either is NaN); `a` itself when `|a| < |b|`.
pub fn rem(a: f32, b: f32) -> f32 {
    let (mut ux, mut uy) = (a.to_bits(), b.to_bits());
    let mut ex = (ux >> 23 & 0xff) as i32;
    let mut ey = (uy >> 23 & 0xff) as i32;
    let sign = ux & 0x8000_0000;
    if uy << 1 == 0 || (uy & 0x7fff_ffff) > 0x7f80_0000 || ex == 0xff {
        return f32::NAN;
    }
    if ux << 1 <= uy << 1 {
        return if ux << 1 == uy << 1 { f32::from_bits(sign) } else { a };
    }
    (ux, ex) = significand(ux, ex);
    (uy, ey) = significand(uy, ey);
    // Long division, one bit of the quotient per exponent step; only the remainder is kept.
    while ex > ey {
        let i = ux.wrapping_sub(uy);
        if i >> 31 == 0 {
            if i == 0 {
                return f32::from_bits(sign);
            }
            ux = i;
        }
        ux <<= 1;
        ex -= 1;
    }
    let i = ux.wrapping_sub(uy);
    if i >> 31 == 0 {
        if i == 0 {
            return f32::from_bits(sign);
        }
        ux = i;
    }
    while ux >> 23 == 0 {
        ux <<= 1;
        ex -= 1;
    }
    // Back to a float: normal, or shifted down into a subnormal (exactly: the low bits are 0).
    if ex > 0 {
        ux -= 1 << 23;
        ux |= (ex as u32) << 23;
    } else {
        ux >>= -ex + 1;
    }
    f32::from_bits(ux | sign)
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
    fn the_other_functions_are_accurate() {
        assert_eq!(max_ulps(sqrt, f64::sqrt, 1e-38, 3e38), 0, "sqrt rounds correctly on the sample");
        assert!(max_ulps(sin, f64::sin, -100.0, 100.0) <= 2);
        assert!(max_ulps(cos, f64::cos, -100.0, 100.0) <= 2);
        assert!(max_ulps(expm1, f64::exp_m1, -17.0, 88.0) <= 2);
        assert!(max_ulps(log1p, f64::ln_1p, -0.99, 3e38) <= 3);
        // erf: absolute error (A&S 7.1.26 is an absolute bound).
        for x in samples(-6.0, 6.0) {
            let want = libm_erf(x as f64);
            let tolerance = if x.abs() < 1.0 { 2.0 * f32::EPSILON as f64 * want.abs() + 1e-44 } else { 3e-7 };
            assert!((erf(x) as f64 - want).abs() <= tolerance, "erf({x}) = {} vs {want}", erf(x));
        }
        assert_eq!(sqrt(-0.0).to_bits(), (-0.0f32).to_bits());
        assert!(sqrt(-1.0).is_nan());
        assert_eq!(sign(-3.0), -1.0);
        assert_eq!(round_even(2.5), 2.0);
        assert_eq!(round_away(2.5), 3.0);
        assert!(sin(f32::INFINITY).is_nan());
        assert_eq!(expm1(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(log1p(-1.0), f32::NEG_INFINITY);
        assert_eq!(sin(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(log1p(-0.0).to_bits(), (-0.0f32).to_bits());
    }

    /// erf in f64 from its continued-fraction-free series and asymptotic complement, good to
    /// 1e-12 — enough to check an f32 approximation.
    fn libm_erf(x: f64) -> f64 {
        let a = x.abs();
        let y = if a < 3.0 {
            // Maclaurin series, converges quickly below 3.
            let (mut term, mut sum, mut n) = (a, a, 0.0);
            while term.abs() > 1e-17 * sum.abs() {
                n += 1.0;
                term *= -a * a / n;
                sum += term / (2.0 * n + 1.0);
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            // erfc asymptotic expansion, accurate for a >= 3.
            let (mut term, mut sum) = (1.0, 1.0);
            for n in 1..8 {
                term *= -((2 * n - 1) as f64) / (2.0 * a * a);
                sum += term;
            }
            1.0 - (-a * a).exp() / (a * std::f64::consts::PI.sqrt()) * sum
        };
        y.copysign(x)
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

    /// `rem` is C's fmodf to the bit (Rust's `%` on f32 calls it), on a sweep of the range,
    /// random pairs of every magnitude, and the edge values.
    #[test]
    fn rem_is_fmod_exactly() {
        let check = |a: f32, b: f32| {
            let (got, want) = (rem(a, b), a % b);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "rem({a:e}, {b:e}) = {got:e}, fmodf gives {want:e}"
            );
        };
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-45,
            -1e-45,
            1.1754942e-38,
            f32::MIN_POSITIVE,
            3.0,
            0.1,
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            16777216.0,
            7.5,
            -2.25,
        ];
        for &a in &edges {
            for &b in &edges {
                check(a, b);
            }
        }
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u32
        };
        for _ in 0..200_000 {
            check(f32::from_bits(next()), f32::from_bits(next()));
            // Close exponents too, where the quotient is small.
            let a = f32::from_bits(next());
            check(a, f32::from_bits((a.to_bits() & 0xff80_0000) ^ (next() & 0x00ff_ffff)));
        }
        for a in samples(-1e6, 1e6).step_by(7) {
            check(a, 0.7);
            check(a, -3.0);
        }
    }
}
