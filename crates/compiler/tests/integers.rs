//! int32 in the compiler: integers live in the machine's words as their exact float32, so
//! iota, comparisons, select, argmax/argmin and sums of counts compile to the same vector and
//! cross-lane instructions as floats, bit for bit with the reference evaluator.

mod common;

use common::{check, check_with, opts, trace, trace_avals};
use compiler::compile;
use jaxlite::numpy::{self as jnp};
use jaxlite::{Array, Aval, CompareOp, Context, DType, Precision, Primitive, Tensor};

fn bind(prim: Primitive) -> impl AsyncFnOnce(&mut Context, Vec<Tensor>) -> Tensor {
    async move |ctx: &mut Context, a: Vec<Tensor>| ctx.bind(prim, &a).await.unwrap().remove(0)
}

/// argmax and argmin along the last axis, a leading axis and all of a flattened array, on
/// values with ties (the first index wins) and NaNs (the first NaN wins, as in JAX).
#[test]
fn argmax_and_argmin() {
    let mut x: Vec<f32> = common::values(6 * 130, 9).iter().map(|v| (v * 2.0).round()).collect();
    x[7] = f32::NAN;
    x[300] = f32::NAN;
    x[301] = f32::NAN;
    let input = [Array::from_f32(vec![6, 130], x)];
    for is_max in [true, false] {
        for axis in [0, 1] {
            let prim = Primitive::ArgReduce { axis, is_max, index_dtype: DType::I32 };
            check_with(&trace(&[&[6, 130]], bind(prim)), Precision::Default, &input);
        }
        let flat = trace(&[&[6, 130]], async move |ctx, a| jnp::arg_reduce(ctx, &a[0], None, is_max).await.unwrap());
        check_with(&flat, Precision::Default, &input);
        // Any axis of a 3-D array (the first alone was refused: the reductions took only the
        // last axis or all the leading ones, until they went through the general reduction).
        let cube = [Array::from_f32(vec![3, 10, 26], input[0].to_f32_vec())];
        for axis in 0..3 {
            let prim = Primitive::ArgReduce { axis, is_max, index_dtype: DType::I32 };
            check_with(&trace(&[&[3, 10, 26]], bind(prim)), Precision::Default, &cube);
        }
    }
}

/// Iotas along every axis of a 3-D shape, written out (a generated row, or a generated column
/// whose rows repeat the middle axis's index).
#[test]
fn iotas_along_every_axis() {
    for dimension in 0..3 {
        let prim = Primitive::Iota { dtype: DType::I32, shape: vec![3, 4, 130], dimension };
        let asm = check(&trace(&[], bind(prim)), Precision::Default);
        assert!(!asm.contains("dma.load"), "an iota is generated, not loaded:\n{asm}");
    }
}

/// `jax.nn.one_hot(labels, n)`: labels compared with an iota, as float32.
#[test]
fn one_hot() {
    let closed = trace_avals(&[Aval::new(vec![5], DType::I32)], async |ctx, a| {
        let labels = jnp::reshape(ctx, &a[0], &[5, 1]).await.unwrap();
        let iota = Primitive::Iota { dtype: DType::I32, shape: vec![1, 130], dimension: 1 };
        let classes = ctx.bind(iota, &[]).await.unwrap().remove(0);
        let hit = jnp::compare(ctx, CompareOp::Eq, &labels, &classes).await.unwrap();
        jnp::astype(ctx, &hit, DType::F32).await.unwrap()
    });
    check_with(
        &closed,
        Precision::Default,
        &[Array::from_f32(vec![5], vec![0.0, 129.0, 3.0, 3.0, 77.0]).astype(DType::I32)],
    );
}

/// float32 to int32 rounds toward zero; int32 back to float32 is the same words.
#[test]
fn conversions() {
    let closed = trace(&[&[4, 33]], async |ctx, a| {
        let scaled =
            jnp::binary(ctx, jaxlite::BinaryOp::Mul, &a[0], &Array::weak_scalar_f32(7.5).into()).await.unwrap();
        let ints = jnp::astype(ctx, &scaled, DType::I32).await.unwrap();
        let sum = jnp::binary(ctx, jaxlite::BinaryOp::Add, &ints, &ints).await.unwrap();
        jnp::astype(ctx, &sum, DType::F32).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// int32 division truncates toward zero and gives -1 for a zero divisor; the remainder has the
/// dividend's sign and is the dividend for a zero divisor (XLA's definitions, the reference
/// evaluator's): both compiled, checked bit for bit, the extremes of ±2^24 included.
#[test]
fn integer_division_and_remainder() {
    let a = [7, -7, 0, 16_777_215, -16_777_216, 5, -5, 13, -13, 1];
    let b = [2, 2, 3, 7, 3, 0, 0, -4, -4, 16_777_215];
    let ints = |v: &[i32]| Array::new(vec![v.len()], jaxlite::Data::I32(v.to_vec()));
    for op in [jaxlite::BinaryOp::Div, jaxlite::BinaryOp::Rem] {
        let closed = trace_avals(
            &[Aval::new(vec![a.len()], DType::I32), Aval::new(vec![b.len()], DType::I32)],
            bind(Primitive::Binary(op)),
        );
        check_with(&closed, Precision::Default, &[ints(&a), ints(&b)]);
    }
}

/// int32 `x ** y` by squaring, bit for bit with the reference evaluator wherever the power is
/// within ±2^24: every base from −5 to 5 and some larger ones, exponents from −3 to 70 (the
/// bases 0 and ±1 beyond the five bits the loop takes, negative powers). A power beyond int32
/// is +∞, which the runtime refuses, never a wrapped value.
#[test]
fn integer_power() {
    let (mut xs, mut ys) = (vec![], vec![]);
    for x in (-5..=5).chain([7, -12, 4096]) {
        for y in -3..=70 {
            let p = (x as f64).powi(y);
            if y < 0 || p.abs() <= 16_777_216.0 {
                xs.push(x);
                ys.push(y);
            }
        }
    }
    let ints = |v: &[i32]| Array::new(vec![v.len()], jaxlite::Data::I32(v.to_vec()));
    let n = xs.len();
    let closed = trace_avals(
        &[Aval::new(vec![n], DType::I32), Aval::new(vec![n], DType::I32)],
        bind(Primitive::Binary(jaxlite::BinaryOp::Pow)),
    );
    check_with(&closed, Precision::Default, &[ints(&xs), ints(&ys)]);
    let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    let word = |i: i32| (i as f32).to_bits();
    let out = emu::CpuBackend.run_sync(&program, &[vec![word(2); n], vec![word(40); n]]).unwrap();
    assert_eq!(f32::from_bits(out[0][0]), f32::INFINITY);
}
