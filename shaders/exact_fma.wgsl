// A correctly rounded fused multiply-add in integer arithmetic.
//
// WGSL's `fma()` may be evaluated unfused: Mesa's lavapipe lowers it to a multiply and an add
// (two roundings), so it cannot reproduce Rust's `f32::mul_add`. Integers are exact on every
// device and no compiler rewrites them, so `fma_exact` computes a * b + c with one rounding
// (to nearest, ties to even) from the bits, subnormals included. WGSL has no u64: 64-bit
// intermediates are (hi, lo) pairs of u32.

struct U64 {
    hi: u32,
    lo: u32,
}

fn u64_is_zero(x: U64) -> bool {
    return (x.hi | x.lo) == 0u;
}

fn u64_less(x: U64, y: U64) -> bool {
    return x.hi < y.hi || (x.hi == y.hi && x.lo < y.lo);
}

fn u64_add(x: U64, y: U64) -> U64 {
    let lo = x.lo + y.lo;
    return U64(x.hi + y.hi + select(0u, 1u, lo < x.lo), lo);
}

// x - y for x >= y.
fn u64_sub(x: U64, y: U64) -> U64 {
    return U64(x.hi - y.hi - select(0u, 1u, x.lo < y.lo), x.lo - y.lo);
}

fn u64_leading_zeros(x: U64) -> u32 {
    if x.hi != 0u {
        return countLeadingZeros(x.hi);
    }
    return 32u + countLeadingZeros(x.lo);
}

// x << s for s in 0..63. (WGSL masks shift amounts to 0..31, hence the cases.)
fn u64_shl(x: U64, s: u32) -> U64 {
    if s == 0u {
        return x;
    }
    if s >= 32u {
        return U64(x.lo << (s - 32u), 0u);
    }
    return U64((x.hi << s) | (x.lo >> (32u - s)), x.lo << s);
}

// x >> s for s in 0..63.
fn u64_shr(x: U64, s: u32) -> U64 {
    if s == 0u {
        return x;
    }
    if s >= 32u {
        return U64(0u, x.hi >> (s - 32u));
    }
    return U64(x.hi >> s, (x.lo >> s) | (x.hi << (32u - s)));
}

// Whether any of the low n bits of x is set.
fn u64_low_bits_set(x: U64, n: u32) -> bool {
    if n == 0u {
        return false;
    }
    if n >= 64u {
        return !u64_is_zero(x);
    }
    if n >= 32u {
        let high_mask = select((1u << (n - 32u)) - 1u, 0u, n == 32u);
        return x.lo != 0u || (x.hi & high_mask) != 0u;
    }
    return (x.lo & ((1u << n) - 1u)) != 0u;
}

// x >> s for any s, with every bit shifted out OR-ed into bit 0 ("sticky"), so that
// rounding later still knows the value was not exact.
fn u64_shr_sticky(x: U64, s: u32) -> U64 {
    if s >= 64u {
        return U64(0u, select(0u, 1u, !u64_is_zero(x)));
    }
    var r = u64_shr(x, s);
    if u64_low_bits_set(x, s) {
        r.lo = r.lo | 1u;
    }
    return r;
}

// The full 48-bit product of two 24-bit significands.
fn mul_24x24(a: u32, b: u32) -> U64 {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let low = a_lo * b_lo;
    let cross = a_hi * b_lo + a_lo * b_hi;
    let lo = low + (cross << 16u);
    return U64(a_hi * b_hi + (cross >> 16u) + select(0u, 1u, lo < low), lo);
}

// A finite f32 as |x| = sig * 2^exp.
struct Unpacked {
    negative: bool,
    sig: u32,
    exp: i32,
}

fn unpack(x: f32) -> Unpacked {
    let b = bitcast<u32>(x);
    let field = (b >> 23u) & 0xffu;
    let mantissa = b & 0x7fffffu;
    if field == 0u {
        return Unpacked(b >= 0x80000000u, mantissa, -149);
    }
    return Unpacked(b >= 0x80000000u, mantissa | 0x800000u, i32(field) - 150);
}

fn is_finite_bits(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) < 0x7f800000u;
}

// a * b + c, rounded once. The vector unit only ever passes finite operands; non-finite
// ones fall back to the unfused expression, which gives the same inf/NaN class.
fn fma_exact(a: f32, b: f32, c: f32) -> f32 {
    if !(is_finite_bits(a) && is_finite_bits(b) && is_finite_bits(c)) {
        return a * b + c;
    }
    let ua = unpack(a);
    let ub = unpack(b);
    let uc = unpack(c);
    let product_negative = ua.negative != ub.negative;
    var p = mul_24x24(ua.sig, ub.sig);
    var p_exp = ua.exp + ub.exp;
    if u64_is_zero(p) {
        if uc.sig != 0u {
            return c;
        }
        // A sum of zeros is -0 only when both are -0 (round to nearest).
        return bitcast<f32>(select(0u, 0x80000000u, product_negative && uc.negative));
    }
    // Normalise the product (and c) so their leading bit is bit 61: two bits of headroom
    // for the carry of the addition, and at least 37 guard bits below the 24 that survive.
    let p_shift = u64_leading_zeros(p) - 2u;
    p = u64_shl(p, p_shift);
    p_exp = p_exp - i32(p_shift);

    var x = p;
    var x_exp = p_exp;
    var x_negative = product_negative;
    var y = U64(0u, 0u);
    var y_exp = p_exp;
    var y_negative = uc.negative;
    if uc.sig != 0u {
        let c_shift = u64_leading_zeros(U64(0u, uc.sig)) - 2u;
        let q = u64_shl(U64(0u, uc.sig), c_shift);
        let q_exp = uc.exp - i32(c_shift);
        // x is the operand of larger magnitude.
        if q_exp > p_exp || (q_exp == p_exp && u64_less(p, q)) {
            x = q;
            x_exp = q_exp;
            x_negative = uc.negative;
            y = p;
            y_exp = p_exp;
            y_negative = product_negative;
        } else {
            y = q;
            y_exp = q_exp;
        }
    }
    y = u64_shr_sticky(y, u32(x_exp - y_exp));
    var r: U64;
    if x_negative == y_negative {
        r = u64_add(x, y);
    } else {
        r = u64_sub(x, y);
    }
    if u64_is_zero(r) {
        return 0.0; // exact cancellation gives +0 when rounding to nearest
    }
    let sign = select(0u, 0x80000000u, x_negative);
    // |result| = r * 2^x_exp. Keep 24 bits below the leading one, or fewer where the result
    // is subnormal (whose quantum is 2^-149).
    let top = 63 - i32(u64_leading_zeros(r));
    let shift = max(top - 23, -149 - x_exp);
    var sig: u32;
    if shift <= 0 {
        sig = r.lo << u32(-shift); // r < 2^24 here: exact
    } else if shift >= 64 {
        return bitcast<f32>(sign); // below half the smallest subnormal
    } else {
        sig = u64_shr(r, u32(shift)).lo;
        let round_bit = (u64_shr(r, u32(shift - 1)).lo & 1u) != 0u;
        let sticky = u64_low_bits_set(r, u32(shift - 1));
        if round_bit && (sticky || (sig & 1u) != 0u) {
            sig = sig + 1u;
        }
    }
    // sig is in [2^23, 2^24] for a normal result (2^24 when rounding carried: the exponent
    // field then absorbs the carry), below 2^23 for a subnormal one.
    let field = x_exp + shift + 150;
    if field - 1 >= 255 {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    let bits = (u32(field - 1) << 23u) + sig;
    if bits >= 0x7f800000u {
        return bitcast<f32>(sign | 0x7f800000u);
    }
    return bitcast<f32>(sign | bits);
}
