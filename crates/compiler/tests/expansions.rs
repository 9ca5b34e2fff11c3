//! `pow` and `atan2`, which the machine computes from other instructions (crates/compiler/src/
//! expand.rs), against the host's float64 `powf` and `atan2` (C's semantics) over a grid of
//! ordinary and special values: ±0, ±1, ±inf, NaN, negative bases, integer and fractional
//! exponents. Special cases must match exactly (the sign of zero included); ordinary values to
//! a few float32 ulp.

mod common;

use common::{opts, trace};
use compiler::compile;
use emu::CpuBackend;
use jaxlite::{BinaryOp, Precision, Primitive};

const GRID: [f32; 16] =
    [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, 0.1, 1e10, f32::INFINITY, f32::NEG_INFINITY, f32::NAN];

/// Every pair of GRID values through `op` compiled for the machine.
fn run(op: BinaryOp) -> Vec<(f32, f32, f32)> {
    let n = GRID.len();
    let (xs, ys): (Vec<f32>, Vec<f32>) = (0..n * n).map(|i| (GRID[i / n], GRID[i % n])).unzip();
    let closed =
        trace(&[&[n * n], &[n * n]], async |ctx, a| ctx.bind(Primitive::Binary(op), &a).await.unwrap().remove(0));
    let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let out = CpuBackend.run_sync(&program, &[bits(&xs), bits(&ys)]).unwrap();
    xs.iter().zip(&ys).zip(&out[0]).map(|((&x, &y), &o)| (x, y, f32::from_bits(o))).collect()
}

/// Same value, NaN for NaN, the same sign for zeros and infinities, or within `ulps`.
fn close(got: f32, want: f32, ulps: f32) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want == 0.0 || want.is_infinite() || got == 0.0 || got.is_infinite() {
        return got == want && got.is_sign_negative() == want.is_sign_negative();
    }
    (got - want).abs() <= ulps * f32::EPSILON * want.abs()
}

#[test]
fn pow_matches_c_pow() {
    for (x, y, got) in run(BinaryOp::Pow) {
        let want = (x as f64).powf(y as f64) as f32;
        // exp(y·log|x|) loses about |y·log x| ulp: 1e10^2.5 is the worst pair here.
        let growth = (y as f64 * (x as f64).abs().ln()).abs() as f32;
        let ulps = 8.0 + if growth.is_finite() { growth } else { 0.0 };
        assert!(close(got, want, ulps), "pow({x}, {y}) = {got}, C says {want}");
        // Integer exponents below 8 are powers by squaring: exact where the power (or for a
        // negative exponent, its reciprocal of an exact power) is a float32, as C's is.
        let exact = ((x as f64).powi(y.abs() as i32) as f32) as f64 == (x as f64).powi(y.abs() as i32);
        if y.fract() == 0.0 && y.abs() < 8.0 && x.is_finite() && exact {
            assert_eq!(got.to_bits(), want.to_bits(), "pow({x}, {y}) = {got}, exactly {want}");
        }
    }
}

#[test]
fn atan2_matches_c_atan2() {
    for (y, x, got) in run(BinaryOp::Atan2) {
        let want = (y as f64).atan2(x as f64) as f32;
        assert!(close(got, want, 4.0), "atan2({y}, {x}) = {got}, C says {want}");
    }
}

/// `cumsum` by doubling, along each axis, forwards and reversed, against float64 running sums:
/// the tree order is a few ulp from the sequential one.
#[test]
fn cumsum_by_doubling() {
    let shape = [5usize, 7, 130];
    let x = common::values(shape.iter().product(), 3);
    let bits: Vec<u32> = x.iter().map(|f| f.to_bits()).collect();
    for axis in 0..3 {
        for reverse in [false, true] {
            let prim = Primitive::Cumsum { axis, reverse };
            let closed = trace(&[&shape], async |ctx, a| ctx.bind(prim, &a).await.unwrap().remove(0));
            let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
            let out = CpuBackend.run_sync(&program, std::slice::from_ref(&bits)).unwrap();
            let stride: usize = shape[axis + 1..].iter().product();
            for (i, &got) in out[0].iter().enumerate() {
                // The elements of i's line along the axis, up to i (from i, reversed).
                let at = (i / stride) % shape[axis];
                let line = |k: usize| x[i - at * stride + k * stride] as f64;
                let range: Vec<usize> = if reverse { (at..shape[axis]).collect() } else { (0..=at).collect() };
                let want: f64 = range.iter().map(|&k| line(k)).sum();
                let scale: f64 = range.iter().map(|&k| line(k).abs()).sum();
                let got = f32::from_bits(got) as f64;
                assert!(
                    (got - want).abs() <= 4.0 * f32::EPSILON as f64 * scale,
                    "axis {axis} reverse {reverse} [{i}]: {got} vs {want}"
                );
            }
        }
    }
}
