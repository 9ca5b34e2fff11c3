//! XLA's CPU backend's float32 math functions, bit for bit (jaxlib 0.10.2 on x86-64 with AVX2
//! and FMA): `exp`, `exp2`, `log`, `log1p`, `expm1`, `tanh`, `erf` and `logistic`. XLA
//! compiles its own polynomials for these rather than calling libm, and they differ from
//! libm's in the last bit for 5 % (exp, log) to 60 % (tanh) of inputs; a chain of such bits
//! is what made a finite difference or a 50-step integration print other digits than JAX.
//! sin, cos, pow, atan2 and sqrt are libm's there too. Each function here was checked equal
//! to JAX on a million inputs (uniform, normal, tiny and random bit patterns); the committed
//! cases are in `tests/jax/xla_cpu_math.json`.
//!
//! Read from the kernels XLA compiles (`XLA_FLAGS=--xla_dump_to=...`: the optimized LLVM IR and
//! the object file, since LLVM fuses multiply-adds only when it emits machine code):
//! - `log-plus-one` is the intrinsic `xla.log1p` (xla/codegen/intrinsic/log1p.cc): for
//!   |x| < √2 − 1, Cephes' rational form `x + (-x²/2 + x·x²·P(x)/Q(x))`, each Horner chain
//!   started from `0·x + c0`; otherwise `log(x + 1)`.
//! - That `log` is XLA CPU's own vectorized float32 log (Cephes' `logf`, as Eigen's `plog`):
//!   the mantissa in [½, 1) and exponent e, a degree-9 polynomial in three Horner chains, and
//!   e·ln 2 added in two parts (0.693359375 and -2.12194440e-4).
//! - `exp` is Cephes' `expf` (Eigen's `pexp`); `exp2(x)` is `exp(x · ln 2)`; `logistic` is
//!   `1 / (1 + exp(−x))`; `tanh` and `erf` are rational approximations; `expm1` picks between
//!   `exp(x) − 1` and `tanh(x/2)·(exp(x) + 1)`.
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
pub fn log(u: f32) -> f32 {
    let u = flush_subnormal(u);
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
    let (a, b, cc) = (horner(t, &p[0..3]), horner(t, &p[3..6]), horner(t, &p[6..9]));
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
    let x = flush_subnormal(x);
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

/// The polynomial with `coefficients` (highest power first, as bits) at `x`, by Horner's rule
/// with a fused multiply-add per step, as XLA's kernels compute it.
fn horner(x: f32, coefficients: &[u32]) -> f32 {
    coefficients[1..].iter().fold(c(coefficients[0]), |p, &k| x.mul_add(p, c(k)))
}

/// XLA's CPU runtime runs with denormals-are-zero and flush-to-zero (MXCSR DAZ|FTZ): a
/// subnormal input reads as, and a subnormal result is written as, a zero of its sign.
fn flush_subnormal(x: f32) -> f32 {
    if x != 0.0 && x.abs() < f32::MIN_POSITIVE {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Cephes' `expf` constants as Eigen's `pexp` and XLA's "exp_f32" use them: log2(e), ln 2 in
/// two parts, and the degree-5 polynomial for e^r − 1 − r on r in [−ln2/2, ln2/2].
const LOG2E: u32 = 0x3FB8AA3B;
const LN2_HI: u32 = 0x3F318000; // 0.693359375
const LN2_LO: u32 = 0xB95E8083; // -2.12194440e-4
const EXP_P: [u32; 6] = [0x39506967, 0x3AB743CE, 0x3C088908, 0x3D2AA9C1, 0x3E2AAAAA, 0x3F000000];

/// `exp` up to its last multiply: e^x = `mantissa · scale`, where `scale` = 2^n. XLA's
/// fusions may fold that multiply into a following add (see `logistic`).
fn exp_parts(x: f32) -> (f32, f32) {
    let x = flush_subnormal(x);
    // Clamped (a NaN stays NaN, as through XLA's selects).
    let x = x.clamp(-87.8, 88.8);
    let n = x.mul_add(c(LOG2E), 0.5).floor().clamp(-127.0, 127.0);
    let r = (-n).mul_add(c(LN2_HI), x);
    let r = (-n).mul_add(c(LN2_LO), r);
    let mantissa = horner(r, &EXP_P).mul_add(r * r, r) + 1.0;
    // 2^n from the exponent bits; n = -127 gives +0 (the `as` of a NaN gives 0: NaN · 1).
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    (mantissa, scale)
}

/// XLA CPU's float32 `exp` (the "exp_f32" routine: Cephes' `expf`), bit for bit.
pub fn exp(x: f32) -> f32 {
    let (mantissa, scale) = exp_parts(x);
    flush_subnormal(mantissa * scale)
}

/// `exp2(x)`, which JAX's lowering writes as `exp(x · ln 2)`.
pub fn exp2(x: f32) -> f32 {
    exp(x * std::f32::consts::LN_2)
}

/// `logistic(x)`, which XLA expands to 1 / (1 + e^(−x)); in that fusion LLVM folds exp's
/// last multiply into the add.
pub fn logistic(x: f32) -> f32 {
    let (mantissa, scale) = exp_parts(-x);
    flush_subnormal(1.0 / mantissa.mul_add(scale, 1.0))
}

/// XLA's float32 `tanh` (xla/codegen/intrinsic: Eigen's rational approximation, clamped to
/// ±7.90531110763549805, with x itself below 4e-4 and ±1 from 20).
pub fn tanh(x: f32) -> f32 {
    // Small inputs, subnormals among them, come back as they are: a select moves bits only.
    if x.abs() < 4e-4 {
        return x;
    }
    if x.abs() >= 20.0 {
        return 1f32.copysign(x);
    }
    let limit = c(0x40FFF644);
    let v = x.clamp(-limit, limit);
    let z = v * v;
    (v * horner(z, &TANH_P)) / horner(z, &TANH_Q)
}

const TANH_P: [u32; 7] = [0xA59F25C0, 0x2A61337E, 0xAEBD37FF, 0x335C0041, 0x3779434A, 0x3A270DED, 0x3BA059DC];
const TANH_Q: [u32; 4] = [0x35A0D3D8, 0x38F895D6, 0x3B14AA05, 0x3BA059DD];

/// XLA's float32 `expm1`: e^x − 1 where |x| > ½, else tanh(x/2) · (e^x + 1), which keeps the
/// digits that the subtraction would cancel; x itself where x/2 is zero.
pub fn expm1(x: f32) -> f32 {
    let e = exp(x);
    let half = flush_subnormal(x * 0.5);
    if half == 0.0 {
        x
    } else if x.abs() > 0.5 {
        e - 1.0
    } else {
        tanh(half) * (e + 1.0)
    }
}

/// XLA's float32 `erf` of an array: ±1 from |x| ≥ 3.8325, else x·P(x²)/Q(x²) with fused
/// Horner chains.
pub fn erf(x: f32) -> f32 {
    erf_from(x, c(0x407547CB))
}

/// `erf` of a one-element array, which XLA compiles as scalar code with another cutoff:
/// ±1 from |x| ≥ 3.7439 (there the vector kernel still gives 0.99999994 at times).
pub fn erf_of_one(x: f32) -> f32 {
    erf_from(x, c(0x406F9C68))
}

fn erf_from(x: f32, saturates_at: f32) -> f32 {
    let x = flush_subnormal(x);
    if x.abs() >= saturates_at {
        return 1f32.copysign(x);
    }
    let z = x * x;
    (x * horner(z, &ERF_P)) / horner(z, &ERF_Q)
}

const ERF_P: [u32; 5] = [0x39702D51, 0x3B5F5DA2, 0x3D50B6EB, 0x3E3DA740, 0x3F906EBA];
const ERF_Q: [u32; 7] = [0xB3FD3906, 0x37C588DF, 0x3A856D28, 0x3C6687D4, 0x3DE34C21, 0x3EFEB44A, 0x3F800000];

/// A float32 cumulative sum (`reverse`: of the suffixes) as JAX computes it on a CPU: JAX
/// lowers it to a reduce-window whose window covers the whole prefix, and XLA's
/// `ReduceWindowRewriter` splits a line longer than 16 into rows of 16 (zeros padding the
/// last): each row's own running sums, each summed in index order from zero, plus the sums
/// of the rows before it (after it, reversed), found the same way.
pub fn cumsum(x: &[f32], reverse: bool) -> Vec<f32> {
    const BASE: usize = 16;
    let in_row = |row: &[f32]| -> Vec<f32> {
        if reverse {
            (0..row.len()).map(|k| row[k..].iter().fold(0.0f32, |acc, &v| acc + v)).collect()
        } else {
            let mut acc = 0.0f32;
            row.iter()
                .map(|&v| {
                    acc += v;
                    acc
                })
                .collect()
        }
    };
    let n = x.len();
    if n <= BASE {
        return in_row(x);
    }
    let mut padded = x.to_vec();
    padded.resize(n.div_ceil(BASE) * BASE, 0.0);
    let rows: Vec<Vec<f32>> = padded.chunks(BASE).map(in_row).collect();
    let totals: Vec<f32> = rows.iter().map(|r| if reverse { r[0] } else { r[BASE - 1] }).collect();
    let before = cumsum(&totals, reverse);
    let mut out = Vec::with_capacity(padded.len());
    for (i, row) in rows.iter().enumerate() {
        let carried = if reverse { before.get(i + 1).copied() } else { i.checked_sub(1).map(|p| before[p]) };
        out.extend(row.iter().map(|&v| carried.map_or(v, |c| v + c)));
    }
    out.truncate(n);
    out
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
