// Bit-level helpers and the arithmetic that gives the reference's bits on devices that flush
// subnormals to zero (`FLUSHES`, written before the module by crates/gpu from the probe): the
// vector unit's add, subtract and multiply, and the MXU's exact path (`shaders/mxu.wgsl`).
// Needs `exact_fma.wgsl` (`fma_exact`, `is_finite_bits`) and the prelude (`opaque`, `is_nan`).

const F32_INF: u32 = 0x7f800000u;

fn f(bits: u32) -> f32 {
    return bitcast<f32>(bits);
}

fn is_sign_negative(x: f32) -> bool {
    return bitcast<u32>(x) >= 0x80000000u;
}

fn is_zero(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0u;
}

fn neg(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) ^ 0x80000000u);
}

fn abs_bits(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu);
}

// x * 2^e for e in [-126, 127], rounded to nearest even, on the bits: what the multiply
// gives on a device that keeps subnormals, operand and result.
fn mul_pow2(x: f32, e: i32) -> f32 {
    let b = bitcast<u32>(x);
    let sign = b & 0x80000000u;
    let field = (b >> 23u) & 0xffu;
    var sig = b & 0x007fffffu;
    if field == 0xffu || (field == 0u && sig == 0u) {
        return x; // infinities, NaNs and zeros stay as they are
    }
    // |x| = sig * 2^exp with the leading one of sig at bit p.
    var exp = -149;
    if field != 0u {
        sig = sig | 0x00800000u;
        exp = i32(field) - 150;
    }
    let p = 31 - i32(countLeadingZeros(sig));
    let top = exp + e + p; // the result's exponent
    if top >= -126 {
        if top > 127 {
            return bitcast<f32>(sign | F32_INF);
        }
        return bitcast<f32>(sign | (u32(top + 127) << 23u) | ((sig << u32(23 - p)) & 0x007fffffu));
    }
    // Subnormal: a whole number of 2^-149, rounded.
    let drop = -149 - (exp + e);
    if drop <= 0 {
        return bitcast<f32>(sign | (sig << u32(-drop)));
    }
    if drop > 25 {
        return bitcast<f32>(sign); // below a quarter of the smallest subnormal
    }
    let d = u32(drop);
    var kept = sig >> d;
    let rest = sig & ((1u << d) - 1u);
    let half = 1u << (d - 1u);
    if rest > half || (rest == half && (kept & 1u) == 1u) {
        kept = kept + 1u; // 2^23 here is the smallest normal, bits and all
    }
    return bitcast<f32>(sign | kept);
}

// Subnormals on devices that flush them. FLUSHES (written before the module by crates/gpu,
// from the probe) says whether the device treats subnormal operands and results as zero.
// There, an add, subtract or multiply that meets a subnormal operand, or whose result falls
// below 2^-126, is redone in integer arithmetic (`fma_exact`, which builds subnormal bits);
// elsewhere the constant removes the check.

fn is_subnormal(x: f32) -> bool {
    let b = bitcast<u32>(x);
    return (b & 0x7f800000u) == 0u && (b & 0x007fffffu) != 0u;
}

// Zero or subnormal: what a flushing device gives for a result below 2^-126.
fn is_tiny(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7f800000u) == 0u;
}

// a + b where a subnormal is met: an operand of 1 or more leaves a subnormal one below half
// its last place, so the device's sum (the subnormal read as 0) is right; otherwise both
// scaled by 2^64 on the bits are normal, and so is their sum, rounded as the unscaled sum
// would be; and a sum below 2^-126 is exact (a multiple of 2^-149 that small has at most 23
// bits), so scaling it back on the bits loses nothing. No `fma_exact`: cheap to compile.
fn add_f(a: f32, b: f32) -> f32 {
    let r = a + b;
    if FLUSHES && is_finite_bits(a) && is_finite_bits(b)
        && (is_subnormal(a) || is_subnormal(b) || (is_tiny(r) && !(is_zero(a) && is_zero(b))))
        && max(bitcast<u32>(a) & 0x7fffffffu, bitcast<u32>(b) & 0x7fffffffu) < 0x3f800000u {
        return mul_pow2(opaque(mul_pow2(a, 64)) + opaque(mul_pow2(b, 64)), -64);
    }
    return r;
}

fn sub_f(a: f32, b: f32) -> f32 {
    return add_f(a, neg(b));
}

fn mul_f(a: f32, b: f32) -> f32 {
    let r = a * b;
    if FLUSHES && (is_subnormal(a) || is_subnormal(b) || (is_tiny(r) && !is_zero(a) && !is_zero(b))) {
        if is_nan(a) || is_nan(b) {
            return r;
        }
        if !is_finite_bits(a) || !is_finite_bits(b) {
            // A subnormal times an infinity is an infinity, not 0 * inf.
            return bitcast<f32>(((bitcast<u32>(a) ^ bitcast<u32>(b)) & 0x80000000u) | F32_INF);
        }
        // a * b + -0 is a * b, its sign of zero included.
        return fma_exact(a, b, f(0x80000000u));
    }
    return r;
}
