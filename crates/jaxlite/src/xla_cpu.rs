//! XLA's CPU backend's float32 `log1p`, bit for bit (jaxlib 0.10.2 on x86-64 with AVX2 and
//! FMA; checked against `jnp.log1p` on all 2^32 float32 inputs). `jax.random.normal` goes
//! through it (`sqrt(2) · erf_inv(u)`, and `erf_inv` begins with `log1p(-u²)`); libm's
//! `ln_1p`, correctly rounded more often, gives a last-bit different normal about once in 150.
//!
//! Read from the kernel XLA compiles (`XLA_FLAGS=--xla_dump_to=...`: the optimized LLVM IR and
//! the object file, since LLVM fuses multiply-adds only when it emits machine code):
//! - `log-plus-one` is the intrinsic `xla.log1p` (xla/codegen/intrinsic/log1p.cc): for
//!   |x| < √2 − 1, Cephes' rational form `x + (-x²/2 + x·x²·P(x)/Q(x))`, each Horner chain
//!   started from `0·x + c0`; otherwise `log(x + 1)`.
//! - That `log` is XLA CPU's own vectorized float32 log (Cephes' `logf`, as Eigen's `plog`):
//!   the mantissa in [½, 1) and exponent e, a degree-9 polynomial in three Horner chains, and
//!   e·ln 2 added in two parts (0.693359375 and -2.12194440e-4).
//! - XLA's CPU threads run with denormals-are-zero: a subnormal input reads as a signed zero.

const LOG_P: [u32; 9] = [
    0x3D9021BB, // 7.0376836292e-2
    0xBDEBD1B8, // -1.1514610310e-1
    0x3DEF251A, // 1.1676998740e-1
    0xBDFE5D4F, // -1.2420140846e-1
    0x3E11E9BF, // 1.4249322787e-1
    0xBE2AAE50, // -1.6668057665e-1
    0x3E4CCEAC, // 2.0000714765e-1
    0xBE7FFFFC, // -2.4999993993e-1
    0x3EAAAAAA, // 3.3333331174e-1
];

#[inline(always)]
fn c(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// XLA CPU's float32 `log` (the "log_f32" VectorSupportLibrary routine), as compiled with FMA.
fn log(u: f32) -> f32 {
    let p = &LOG_P;
    // max(u, FLT_MIN); NaN goes to FLT_MIN too (select(u > FLT_MIN, u, FLT_MIN)).
    let v = if u > f32::MIN_POSITIVE { u } else { f32::MIN_POSITIVE };
    let bits = v.to_bits();
    let m = f32::from_bits((bits & 0x807F_FFFF) | 0x3F00_0000); // mantissa in [0.5, 1)
    let e = ((bits >> 23) as i32 - 127) as f32 + 1.0;
    let small = m < c(0x3F3504F3);
    let e = e - if small { 1.0 } else { 0.0 };
    let t = (m - 1.0) + if small { m } else { 0.0 };
    let z = t * t;
    let t3 = z * t;
    let a = c(p[0]).mul_add(t, c(p[1])).mul_add(t, c(p[2]));
    let b = c(p[3]).mul_add(t, c(p[4])).mul_add(t, c(p[5]));
    let cc = c(p[6]).mul_add(t, c(p[7])).mul_add(t, c(p[8]));
    let d = a.mul_add(t3, b);
    let f = d.mul_add(t3, cc);
    let g = f.mul_add(t3, e * c(0xB95E8083)); // -2.12194440e-4
    let h = (-0.5f32).mul_add(z, t);
    let r = e.mul_add(c(0x3F318000), h + g); // 0.693359375
                                             // Special cases, as XLA's selects: 0 -> -inf, +inf -> +inf, < 0 or NaN -> 0xFFFFFFFF.
    if u == 0.0 {
        f32::NEG_INFINITY
    } else if u == f32::INFINITY {
        f32::INFINITY
    } else if u < 0.0 || u.is_nan() {
        f32::from_bits(0xFFFF_FFFF)
    } else {
        r
    }
}

/// XLA CPU's float32 `log1p` (`jnp.log1p`), bit for bit.
pub fn log1p(x: f32) -> f32 {
    // XLA's CPU runtime runs with denormals-are-zero and flush-to-zero (MXCSR DAZ|FTZ):
    // a subnormal input reads as a zero of its sign.
    let x = if x != 0.0 && x.abs() < f32::MIN_POSITIVE { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x };
    if x.abs() < c(0x3ED413CD) {
        let x2 = x * x;
        let zero = x * 0.0;
        let mut q = zero + 1.0;
        for k in [0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982] {
            q = q.mul_add(x, c(k));
        }
        let mut p = zero + c(0x383DE04B); // 4.527e-5
        for k in [0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101] {
            p = p.mul_add(x, c(k));
        }
        let r = p / q;
        let y = (-0.5f32).mul_add(x2, (x * x2) * r);
        x + y
    } else {
        log(x + 1.0)
    }
}

#[cfg(test)]
mod tests {
    /// `jnp.log1p` of JAX 0.10.2 where libm's `log1pf` differs, as bits (input, output).
    #[test]
    fn log1p_matches_jax_where_libm_does_not() {
        let cases = [
            (0xbed8be3f_u32, 0xbf0cec32_u32),
            (0xbece64d3, 0xbf041a5f),
            (0xbf0a8dd8, 0xbf47799d),
            (0xbf242e15, 0xbf833e96),
            (0x3f00395d, 0x3ecfe595),
            (0x411dff58, 0x4018bba1),
        ];
        for (x, y) in cases {
            assert_eq!(super::log1p(f32::from_bits(x)).to_bits(), y, "log1p({})", f32::from_bits(x));
        }
        assert_eq!(super::log1p(0.0), 0.0);
        assert_eq!(super::log1p(-1.0), f32::NEG_INFINITY);
        assert!(super::log1p(-2.0).is_nan());
    }
}
