// The vector unit's arithmetic: a line-by-line port of crates/emu/src/vpu_math.rs, which
// is the definition (read its comments for the maths). The two must stay in step; the GPU
// backend's tests compare them bit for bit.
//
// Where the port departs from the letter of the Rust, it is to keep its bits:
// - every `mul_add` is `fma_exact` (exact_fma.wgsl), because WGSL's `fma()` may be unfused
//   (it is on lavapipe, where a third of exp's results differ with it);
// - constants are written as their f32 bits, because WGSL evaluates `-32.0 / 17.0` in
//   higher precision and rounds once more, where Rust divides in f32;
// - NaN, sign, zero and subnormal tests look at the bits, so that no fast-math assumption
//   or subnormal flushing in a comparison can change a branch;
// - the subnormal rescaling in `split_exp` is done on the bits (it is exact either way);
// - add, subtract and multiply are `add_f`, `sub_f` and `mul_f` (exact_arith.wgsl), which keep
//   subnormals on devices that flush them.

const F32_NAN: u32 = 0x7fc00000u;

const RECIP_SLOPE: u32 = 0xbff0f0f1u; // -32.0f32 / 17.0
const RECIP_OFFSET: u32 = 0x4034b4b5u; // 48.0f32 / 17.0
const LOG2E: u32 = 0x3fb8aa3bu; // std::f32::consts::LOG2_E
const LN2_HI: u32 = 0x3f318000u; // 0.693_359_4
const LN2_LO: u32 = 0xb95e8083u; // -2.121_944_4e-4
const EXPM1_C0: u32 = 0x37d00d01u; // 1.0f32 / 40320.0
const EXPM1_C1: u32 = 0x39500d01u; // 1.0f32 / 5040.0
const EXPM1_C2: u32 = 0x3ab60b61u; // 1.0f32 / 720.0
const EXPM1_C3: u32 = 0x3c088889u; // 1.0f32 / 120.0
const EXPM1_C4: u32 = 0x3d2aaaabu; // 1.0f32 / 24.0
const EXPM1_C5: u32 = 0x3e2aaaabu; // 1.0f32 / 6.0
const EXP_OVERFLOW: u32 = 0x42b17218u; // 88.722_84
const EXP_UNDERFLOW: u32 = 0xc2cff1b4u; // -103.972_08
const SQRT_2: u32 = 0x3fb504f3u; // std::f32::consts::SQRT_2
const LOG_C0: u32 = 0x3e3a2e8cu; // 2.0f32 / 11.0
const LOG_C1: u32 = 0x3e638e39u; // 2.0f32 / 9.0
const LOG_C2: u32 = 0x3e924925u; // 2.0f32 / 7.0
const LOG_C3: u32 = 0x3ecccccdu; // 2.0f32 / 5.0
const LOG_C4: u32 = 0x3f2aaaabu; // 2.0f32 / 3.0
const TANH_SATURATE: u32 = 0x4111999au; // 9.1

struct SplitExp {
    m: f32,
    e: i32,
}

fn split_exp(x: f32) -> SplitExp {
    var bits = bitcast<u32>(x) & 0x7fffffffu;
    var bias = 127;
    if bits < 0x00800000u {
        // Subnormal: the bits of x * 2^23 (exact): the leading one at bit p becomes the
        // implicit bit, with exponent field p + 1.
        let p = 31u - countLeadingZeros(bits);
        bits = ((p + 1u) << 23u) | ((bits << (23u - p)) & 0x007fffffu);
        bias = bias + 23;
    }
    let e = i32(bits >> 23u) - bias;
    let m = bitcast<f32>((bits & 0x007fffffu) | 0x3f800000u);
    return SplitExp(m, e);
}

fn pow2(e: i32) -> f32 {
    return bitcast<f32>(u32(e + 127) << 23u);
}

fn scale(x: f32, e: i32) -> f32 {
    let e1 = clamp(e, -126, 127);
    let e2 = clamp(e - e1, -126, 127);
    if FLUSHES {
        return mul_pow2(mul_pow2(x, e1), e2);
    }
    return x * pow2(e1) * pow2(e2);
}

// floor and ceil of a subnormal, which a flushing device would take for ±0.
fn floor_f(x: f32) -> f32 {
    if FLUSHES && is_subnormal(x) {
        return select(0.0, -1.0, is_sign_negative(x));
    }
    return floor(x);
}

fn ceil_f(x: f32) -> f32 {
    if FLUSHES && is_subnormal(x) {
        return select(1.0, f(0x80000000u), is_sign_negative(x));
    }
    return ceil(x);
}

fn recip_mantissa(m: f32) -> f32 {
    let d = 0.5 * m;
    var r = fma_exact(f(RECIP_SLOPE), d, f(RECIP_OFFSET));
    for (var i = 0; i < 3; i = i + 1) {
        let e = fma_exact(neg(d), r, 1.0);
        r = fma_exact(r, e, r);
    }
    return 0.5 * r;
}

fn vpu_div(a: f32, b: f32) -> f32 {
    if !is_finite_bits(a) || !is_finite_bits(b) || is_zero(a) || is_zero(b) {
        // Special operands have exact IEEE results; built from the bits where a compiler
        // might otherwise fold them (0 / x is not 0 for every x it could assume).
        let sign = (bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u;
        let a_inf = (bitcast<u32>(a) & 0x7fffffffu) == F32_INF;
        let b_inf = (bitcast<u32>(b) & 0x7fffffffu) == F32_INF;
        if is_nan(a) || is_nan(b) || (a_inf && b_inf) || (is_zero(a) && is_zero(b)) {
            return nan_first(a, b, a / b); // a NaN
        }
        if a_inf || is_zero(b) {
            return bitcast<f32>(sign | F32_INF);
        }
        return bitcast<f32>(sign); // b infinite or a zero
    }
    let sa = split_exp(a);
    let sb = split_exp(b);
    let r = recip_mantissa(sb.m);
    let q0 = sa.m * r;
    let residual = fma_exact(neg(q0), sb.m, sa.m);
    let q = fma_exact(residual, r, q0);
    let sign = select(1.0, -1.0, is_sign_negative(a) != is_sign_negative(b));
    return scale(sign * q, sa.e - sb.e);
}

fn expm1_reduced(r: f32) -> f32 {
    var p = f(EXPM1_C0);
    p = fma_exact(p, r, f(EXPM1_C1));
    p = fma_exact(p, r, f(EXPM1_C2));
    p = fma_exact(p, r, f(EXPM1_C3));
    p = fma_exact(p, r, f(EXPM1_C4));
    p = fma_exact(p, r, f(EXPM1_C5));
    p = fma_exact(p, r, 0.5);
    return fma_exact(r * r, p, r);
}

struct Reduced {
    r: f32,
    n: i32,
}

fn reduce_exp(x: f32) -> Reduced {
    let n = floor(fma_exact(x, f(LOG2E), 0.5));
    var r = fma_exact(neg(n), f(LN2_HI), x);
    r = fma_exact(neg(n), f(LN2_LO), r);
    return Reduced(r, i32(n));
}

fn vpu_exp(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    if x > f(EXP_OVERFLOW) {
        return f(F32_INF);
    }
    if x < f(EXP_UNDERFLOW) {
        return 0.0;
    }
    let red = reduce_exp(x);
    return scale(1.0 + expm1_reduced(red.r), red.n);
}

fn vpu_log(x: f32) -> f32 {
    if is_nan(x) || (is_sign_negative(x) && !is_zero(x)) {
        return f(F32_NAN);
    }
    if is_zero(x) {
        return f(F32_INF | 0x80000000u);
    }
    if bitcast<u32>(x) == F32_INF {
        return x;
    }
    let s_e = split_exp(x);
    var m = s_e.m;
    var e = s_e.e;
    if m > f(SQRT_2) {
        m = m * 0.5;
        e = e + 1;
    }
    // `m * 0.5 - 1.0` is exact, so it is the same fused or not.
    let fr = m - 1.0;
    let s = vpu_div(fr, 2.0 + fr);
    let z = s * s;
    var p = f(LOG_C0);
    p = fma_exact(p, z, f(LOG_C1));
    p = fma_exact(p, z, f(LOG_C2));
    p = fma_exact(p, z, f(LOG_C3));
    p = fma_exact(p, z, f(LOG_C4));
    let log1p_f = fma_exact(s * z, p, 2.0 * s);
    let ef = f32(e);
    return fma_exact(ef, f(LN2_HI), fma_exact(ef, f(LN2_LO), log1p_f));
}

fn vpu_tanh(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    // A subnormal x: the steps below give x itself (expm1(2x) = 2x, then 2x / 2), which a
    // flushing device would turn into 0.
    if FLUSHES && is_subnormal(x) {
        return x;
    }
    let a = abs_bits(x);
    var t: f32;
    if a > f(TANH_SATURATE) {
        t = 1.0;
    } else {
        let red = reduce_exp(2.0 * a);
        let q = expm1_reduced(red.r);
        // Both terms are exact (n >= 0, so the scaling cannot underflow), so a fused
        // multiply-add here would round the same; `opaque` makes that moot anyway.
        let em1 = opaque(scale(q, red.n)) + (opaque(scale(1.0, red.n)) - 1.0);
        t = vpu_div(em1, em1 + 2.0);
    }
    if is_sign_negative(x) {
        return neg(t);
    }
    return t;
}

// Comparisons for max/min on the bits: a total order on non-NaN floats in which +0 == -0,
// exactly IEEE's, and immune to subnormal flushing in the comparison unit.
fn order_key(x: f32) -> i32 {
    let magnitude = i32(bitcast<u32>(x) & 0x7fffffffu);
    return select(magnitude, -magnitude, is_sign_negative(x));
}

fn vpu_max(a: f32, b: f32) -> f32 {
    if is_nan(a) || is_nan(b) {
        return f(F32_NAN);
    }
    let ka = order_key(a);
    let kb = order_key(b);
    if ka > kb || (ka == kb && is_sign_negative(b)) {
        return a;
    }
    return b;
}

fn vpu_min(a: f32, b: f32) -> f32 {
    if is_nan(a) || is_nan(b) {
        return f(F32_NAN);
    }
    let ka = order_key(a);
    let kb = order_key(b);
    if ka < kb || (ka == kb && !is_sign_negative(b)) {
        return a;
    }
    return b;
}

// ---- Functions whose constants are generated from emu::vpu_math (see gpu::constants). ----

fn vpu_sqrt(x: f32) -> f32 {
    if is_nan(x) || (is_sign_negative(x) && !is_zero(x)) {
        return f(F32_NAN);
    }
    if is_zero(x) || bitcast<u32>(x) == F32_INF {
        return x;
    }
    let se = split_exp(x);
    var m = se.m;
    var e = se.e;
    if (e % 2) != 0 {
        m = m * 2.0;
        e = e - 1;
    }
    let half = 0.5 * m;
    var r = fma_exact(f(SQRT_LINE[0]), m, f(SQRT_LINE[1]));
    for (var i = 0; i < 4; i = i + 1) {
        let t = fma_exact(neg(half * r), r, 0.5);
        r = fma_exact(r, t, r);
    }
    let s = m * r;
    let residual = fma_exact(neg(s), s, m);
    return scale(fma_exact(residual, 0.5 * r, s), e / 2);
}

// x = n·π/2 + r; `n` here is the quadrant n mod 4.
fn reduce_pio2(x: f32) -> Reduced {
    let n = floor(fma_exact(x, f(TWO_OVER_PI), 0.5));
    var r = fma_exact(neg(n), f(PIO2[0]), x);
    r = fma_exact(neg(n), f(PIO2[1]), r);
    r = fma_exact(neg(n), f(PIO2[2]), r);
    let q = n - 4.0 * floor(n * 0.25);
    return Reduced(r, i32(q));
}

fn sin_poly(r: f32) -> f32 {
    let z = r * r;
    var p = f(SIN_C[0]);
    p = fma_exact(p, z, f(SIN_C[1]));
    p = fma_exact(p, z, f(SIN_C[2]));
    p = fma_exact(p, z, f(SIN_C[3]));
    return fma_exact(r * z, p, r);
}

fn cos_poly(r: f32) -> f32 {
    let z = r * r;
    var p = f(COS_C[0]);
    p = fma_exact(p, z, f(COS_C[1]));
    p = fma_exact(p, z, f(COS_C[2]));
    p = fma_exact(p, z, f(COS_C[3]));
    p = fma_exact(p, z, f(COS_C[4]));
    return fma_exact(z, p, 1.0);
}

fn vpu_sin(x: f32) -> f32 {
    if !is_finite_bits(x) {
        return f(F32_NAN);
    }
    if is_zero(x) {
        return x;
    }
    let red = reduce_pio2(x);
    switch red.n {
        case 0: {
            return sin_poly(red.r);
        }
        case 1: {
            return cos_poly(red.r);
        }
        case 2: {
            return neg(sin_poly(red.r));
        }
        default: {
            return neg(cos_poly(red.r));
        }
    }
}

fn vpu_cos(x: f32) -> f32 {
    if !is_finite_bits(x) {
        return f(F32_NAN);
    }
    let red = reduce_pio2(x);
    switch red.n {
        case 0: {
            return cos_poly(red.r);
        }
        case 1: {
            return neg(sin_poly(red.r));
        }
        case 2: {
            return neg(cos_poly(red.r));
        }
        default: {
            return sin_poly(red.r);
        }
    }
}

fn vpu_expm1(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    if x > f(EXP_OVERFLOW) {
        return f(F32_INF);
    }
    if x < -17.5 {
        return -1.0;
    }
    if is_zero(x) {
        return x;
    }
    // A subnormal x: the steps below give x itself (r = x, q = x, 2^0 q + 0), which a
    // flushing device would turn into 0.
    if FLUSHES && is_subnormal(x) {
        return x;
    }
    let red = reduce_exp(x);
    let q = expm1_reduced(red.r);
    return opaque(scale(q, red.n)) + (opaque(scale(1.0, red.n)) - 1.0);
}

fn vpu_log1p(x: f32) -> f32 {
    if is_nan(x) || x < -1.0 {
        return f(F32_NAN);
    }
    if bitcast<u32>(x) == F32_INF {
        return x;
    }
    // `opaque`: Mesa would fold (1 + x) - 1 into x, losing the rounding this corrects for.
    let u = opaque(1.0 + x);
    if u == 1.0 {
        return x;
    }
    if is_zero(u) {
        return f(F32_INF | 0x80000000u);
    }
    return vpu_log(u) * vpu_div(x, u - 1.0);
}

fn vpu_erf(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let a = abs_bits(x);
    var y: f32;
    if a < 1.0 {
        let z = a * a;
        var p = f(ERF_SERIES[0]);
        for (var i = 1; i < 13; i = i + 1) {
            p = fma_exact(p, z, f(ERF_SERIES[i]));
        }
        // `opaque`: Mesa would reassociate (a * p) * c into a * (p * c).
        y = opaque(a * p) * f(FRAC_2_SQRT_PI);
        if FLUSHES && is_subnormal(a) {
            // z = 0 leaves p = 1: the product a * 2/√π, rounded once, on the bits.
            y = fma_exact(a, f(FRAC_2_SQRT_PI), f(0x80000000u));
        }
    } else if a < 4.0 {
        let t = vpu_div(1.0, fma_exact(f(ERF_P), a, 1.0));
        var p = f(ERF_AS[0]);
        for (var i = 1; i < 5; i = i + 1) {
            p = fma_exact(p, t, f(ERF_AS[i]));
        }
        y = fma_exact(neg(p * t), vpu_exp(neg(a * a)), 1.0);
    } else {
        y = 1.0;
    }
    if is_sign_negative(x) {
        return neg(y);
    }
    return y;
}

fn vpu_sign(x: f32) -> f32 {
    if is_nan(x) || is_zero(x) {
        return x;
    }
    return select(1.0, -1.0, is_sign_negative(x));
}

// Half away from zero, exactly: x - trunc(x) is exact.
fn vpu_round_away(x: f32) -> f32 {
    let t = trunc(x);
    if abs_bits(x - t) >= 0.5 {
        return t + select(1.0, -1.0, is_sign_negative(x));
    }
    return t;
}

struct Significand {
    bits: u32,
    exponent: i32,
}

// `emu::vpu_math::significand`: the significand with its implicit bit, a subnormal shifted up.
fn significand(bits: u32, exponent: i32) -> Significand {
    if exponent != 0 {
        return Significand((bits & 0x007fffffu) | 0x00800000u, exponent);
    }
    var e = 0;
    var i = bits << 9u;
    while (i >> 31u) == 0u {
        e = e - 1;
        i = i << 1u;
    }
    return Significand(bits << u32(-e + 1), e);
}

// `a` modulo `b` with the sign of `a` (fmod, `lax.rem`): `emu::vpu_math::rem` line by line,
// long division of the significands on the bits, so the exact result needs no float rounding.
fn vpu_rem(a: f32, b: f32) -> f32 {
    var ux = bitcast<u32>(a);
    var uy = bitcast<u32>(b);
    var ex = i32((ux >> 23u) & 0xffu);
    var ey = i32((uy >> 23u) & 0xffu);
    let sign = ux & 0x80000000u;
    if (uy << 1u) == 0u || (uy & 0x7fffffffu) > 0x7f800000u || ex == 0xff {
        return f(F32_NAN);
    }
    if (ux << 1u) <= (uy << 1u) {
        if (ux << 1u) == (uy << 1u) {
            return f(sign);
        }
        return a;
    }
    let sx = significand(ux, ex);
    ux = sx.bits;
    ex = sx.exponent;
    let sy = significand(uy, ey);
    uy = sy.bits;
    ey = sy.exponent;
    while ex > ey {
        let i = ux - uy;
        if (i >> 31u) == 0u {
            if i == 0u {
                return f(sign);
            }
            ux = i;
        }
        ux = ux << 1u;
        ex = ex - 1;
    }
    let i = ux - uy;
    if (i >> 31u) == 0u {
        if i == 0u {
            return f(sign);
        }
        ux = i;
    }
    while (ux >> 23u) == 0u {
        ux = ux << 1u;
        ex = ex - 1;
    }
    if ex > 0 {
        ux = ux - (1u << 23u);
        ux = ux | (u32(ex) << 23u);
    } else {
        ux = ux >> u32(-ex + 1);
    }
    return f(ux | sign);
}

// The vector unit's integer operations (`emu::vpu_math::integer_op`): words hold the float32
// of an int32. WGSL leaves NaN and out-of-range float-to-int conversions, and the rounding of
// int-to-float ones, to the platform, so each is spelled out as Rust's `as` does it.

// Toward zero, saturating, NaN as 0.
fn word_to_int(x: f32) -> i32 {
    if is_nan(x) {
        return 0i;
    }
    if x >= 2147483648.0 {
        return 2147483647i;
    }
    if x <= -2147483648.0 {
        return -2147483647i - 1i;
    }
    return i32(x);
}

// The nearest float32, ties to even, as its bits: exact up to 2^24, above that the integer's
// top 24 bits rounded on the bits dropped.
fn int_to_word(i: i32) -> u32 {
    let negative = i < 0i;
    // |i|, as u32 (the magnitude of -2^31 fits).
    var u = bitcast<u32>(i);
    if negative {
        u = 0u - u;
    }
    let drop = max(8i - i32(countLeadingZeros(u)), 0i);
    if drop == 0i {
        return bitcast<u32>(select(f32(u), -f32(u), negative));
    }
    let d = u32(drop);
    var kept = u >> d;
    let rest = u & ((1u << d) - 1u);
    let half = 1u << (d - 1u);
    if rest > half || (rest == half && (kept & 1u) == 1u) {
        kept = kept + 1u;
    }
    // kept ≤ 2^24 and the scale a power of two: both exact.
    let magnitude = f32(kept) * bitcast<f32>((127u + d) << 23u);
    return bitcast<u32>(select(magnitude, -magnitude, negative));
}

fn shift_left(x: i32, s: i32) -> i32 {
    if s < 0i || s >= 32i {
        return 0i;
    }
    return x << u32(s);
}

fn shift_right(x: i32, s: i32) -> i32 {
    if s < 0i || s >= 32i {
        return select(0i, -1i, x < 0i);
    }
    return x >> u32(s);
}
