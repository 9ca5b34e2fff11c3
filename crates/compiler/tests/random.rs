//! `jax.random` on the emulated TPU: keys and random bits are uint32 words, and Threefry-2x32
//! runs on the vector unit's uint32 operations. Every draw matches the reference evaluator
//! (whose generator, `jaxlite::random`, matches JAX's to the bit) bit for bit.

mod common;

use common::{check_with, opts, trace_avals};
use compiler::compile;
use jaxlite::random;
use jaxlite::{Array, Aval, BinaryOp, Context, DType, Data, Precision, Primitive, Tensor, UnaryOp};

fn raw_keys(keys: &[[u32; 2]], shape: &[usize]) -> Array {
    let mut full = shape.to_vec();
    full.push(2);
    Array::new(full, Data::U32(keys.iter().flatten().copied().collect()))
}

fn key_aval(shape: &[usize]) -> Aval {
    let mut full = shape.to_vec();
    full.push(2);
    Aval::new(full, DType::U32)
}

async fn bind(ctx: &mut Context, prim: Primitive, args: &[Tensor]) -> Tensor {
    ctx.bind(prim, args).await.unwrap().remove(0)
}

fn u32_scalar(x: u32) -> Tensor {
    Tensor::from(Array::new(vec![], Data::U32(vec![x])))
}

/// Keys whose words are NaN and subnormal patterns as floats, which only bit-exact moves keep.
const ODD_KEYS: [[u32; 2]; 4] = [[0, 0], [0x7fc0_1234, 0x0000_0001], [0xffff_ffff, 0x8000_0000], [42, 7]];

/// `random_bits` for one key and for a batch of keys, over a draw wider than a vector row.
#[test]
fn random_bits_match_the_generator() {
    for (keys, key_shape) in [(&ODD_KEYS[1..2], vec![]), (&ODD_KEYS[..], vec![4])] {
        let closed = trace_avals(&[key_aval(&key_shape)], async |ctx, a| {
            let k = bind(ctx, Primitive::RandomWrap, &a).await;
            bind(ctx, Primitive::RandomBits { shape: vec![3, 130] }, &[k]).await
        });
        let input = raw_keys(keys, &key_shape);
        check_with(&closed, Precision::Default, std::slice::from_ref(&input));
        let program = compile("bits", &closed.jaxpr, &opts(Precision::Default)).unwrap();
        let words =
            emu::CpuBackend.run_sync(&program, &[input.to_f32_vec().iter().map(|w| w.to_bits()).collect()]).unwrap();
        let want: Vec<u32> = keys.iter().flat_map(|&k| random::bits(k, 390)).collect();
        assert_eq!(words[0], want);
        assert!(program.to_string().contains("xor_u32"), "Threefry runs on the vector unit:\n{program}");
    }
}

/// `random_split` and `random_fold_in` (a traced int32 made uint32, and a literal), unwrapped
/// to raw keys.
#[test]
fn split_and_fold_in_match_the_generator() {
    let closed = trace_avals(&[key_aval(&[4])], async |ctx, a| {
        let k = bind(ctx, Primitive::RandomWrap, &a).await;
        let split = bind(ctx, Primitive::RandomSplit { shape: vec![3] }, &[k]).await;
        bind(ctx, Primitive::RandomUnwrap, &[split]).await
    });
    let input = raw_keys(&ODD_KEYS, &[4]);
    check_with(&closed, Precision::Default, std::slice::from_ref(&input));
    let want: Vec<u32> = ODD_KEYS.iter().flat_map(|&k| random::split(k, 3)).flatten().collect();
    let out = jaxlite::eval::eval_jaxpr(&closed.jaxpr, &[input], Precision::Default).unwrap();
    assert_eq!(out[0].data, Data::U32(want));

    let closed = trace_avals(&[key_aval(&[]), Aval::new(vec![], DType::I32)], async |ctx, a| {
        let k = bind(ctx, Primitive::RandomWrap, &a[..1]).await;
        let data = bind(ctx, Primitive::ConvertElementType { new_dtype: DType::U32, weak_type: false }, &a[1..]).await;
        let k = bind(ctx, Primitive::RandomFoldIn, &[k, data]).await;
        let k = bind(ctx, Primitive::RandomFoldIn, &[k, u32_scalar(7)]).await;
        bind(ctx, Primitive::RandomUnwrap, &[k]).await
    });
    let input = [raw_keys(&ODD_KEYS[2..3], &[]), Array::new(vec![], Data::I32(vec![-3]))];
    check_with(&closed, Precision::Default, &input);
    let want = random::fold_in(random::fold_in(ODD_KEYS[2], -3i32 as u32), 7);
    let out = jaxlite::eval::eval_jaxpr(&closed.jaxpr, &input, Precision::Default).unwrap();
    assert_eq!(out[0].data, Data::U32(want.to_vec()));
}

/// `jax.random.uniform`'s Jaxpr: 23 random bits under the exponent of 1.0, bitcast to float32,
/// minus 1.
#[test]
fn uniform_floats_from_bits() {
    let closed = trace_avals(&[key_aval(&[])], async |ctx, a| {
        let k = bind(ctx, Primitive::RandomWrap, &a).await;
        let bits = bind(ctx, Primitive::RandomBits { shape: vec![1000] }, &[k]).await;
        let shifted = bind(ctx, Primitive::Binary(BinaryOp::ShiftRightLogical), &[bits, u32_scalar(9)]).await;
        let one_to_two = bind(ctx, Primitive::Binary(BinaryOp::Or), &[shifted, u32_scalar(0x3f80_0000)]).await;
        let floats = bind(ctx, Primitive::BitcastConvertType { new_dtype: DType::F32 }, &[one_to_two]).await;
        let one = Tensor::from(Array::from_f32(vec![], vec![1.0]));
        bind(ctx, Primitive::Binary(BinaryOp::Sub), &[floats, one]).await
    });
    let input = raw_keys(&[[0, 1]], &[]);
    let out = check_with(&closed, Precision::Default, std::slice::from_ref(&input));
    assert!(out.contains("shr_u32"), "{out}");
    let want = random::uniform([0, 1], 1000, 0.0, 1.0);
    let got = jaxlite::eval::eval_jaxpr(&closed.jaxpr, &[input], Precision::Default).unwrap();
    assert_eq!(got[0].data, Data::F32(want));
}

/// `erf_inv` expanded as XLA's polynomial: within 2 ulp of the generator's (which fuses the
/// Horner steps, as XLA's CPU backend does), and ±f32::MAX at ±1.
#[test]
fn erf_inv_is_xlas_polynomial() {
    let n = 4001;
    let mut x: Vec<f32> = (0..n).map(|i| -1.0 + 2.0 * i as f32 / (n - 1) as f32).collect();
    x.extend([0.999_999_9, -0.999_999_9, 0.0, -0.0]);
    let closed = trace_avals(&[Aval::new(vec![x.len()], DType::F32)], async |ctx, a| {
        bind(ctx, Primitive::Unary(UnaryOp::ErfInv), &a).await
    });
    let program = compile("erf_inv", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    let out = emu::CpuBackend.run_sync(&program, &[x.iter().map(|v| v.to_bits()).collect()]).unwrap();
    for (i, (&got, &v)) in out[0].iter().zip(&x).enumerate() {
        let want = random::erf_inv(v);
        let ulps =
            (f32::from_bits(got) as f64 - want as f64).abs() / (want.abs() as f64 * f32::EPSILON as f64).max(1e-45);
        assert!(ulps <= 2.0, "erf_inv({v}) [{i}] = {} on the TPU, {want} on the host", f32::from_bits(got));
    }
    assert_eq!(f32::from_bits(out[0][0]), -f32::MAX);
    assert_eq!(f32::from_bits(out[0][n - 1]), f32::MAX);
}

/// `randint`'s arithmetic: wrapping products, remainders (by zero: the dividend), and the
/// offsets turned into int32 values, on words with NaN and subnormal bit patterns.
#[test]
fn uint32_products_remainders_and_int32_conversion() {
    let x: Vec<u32> = vec![0, 1, 0x7fc0_1234, 0x0000_0001, 0xffff_ffff, 0x8000_0000, 1_000_003, 0x0080_0000];
    let y: Vec<u32> = vec![10, 0, 7, 0xffff_ffff, 65_536, 3, 0, 1 << 24];
    let n = x.len();
    let avals = [Aval::new(vec![n], DType::U32), Aval::new(vec![n], DType::U32)];
    let inputs = [Array::new(vec![n], Data::U32(x.clone())), Array::new(vec![n], Data::U32(y.clone()))];
    let words = |closed: &jaxlite::ClosedJaxpr| {
        let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
        let bits: Vec<Vec<u32>> = vec![x.clone(), y.clone()];
        emu::CpuBackend.run_sync(&program, &bits).unwrap().remove(0)
    };

    let rem = trace_avals(&avals, async |ctx, a| bind(ctx, Primitive::Binary(BinaryOp::Rem), &a).await);
    check_with(&rem, Precision::Default, &inputs);
    let want: Vec<u32> = x.iter().zip(&y).map(|(&a, &b)| a.checked_rem(b).unwrap_or(a)).collect();
    assert_eq!(words(&rem), want);

    // (x·y mod 2^24) as int32, minus 3: within ±2^24, so exact in the int32 words.
    let offsets = trace_avals(&avals, async |ctx, a| {
        let product = bind(ctx, Primitive::Binary(BinaryOp::Mul), &a).await;
        let small = bind(ctx, Primitive::Binary(BinaryOp::Rem), &[product, u32_scalar(1 << 24)]).await;
        let to_int = Primitive::ConvertElementType { new_dtype: DType::I32, weak_type: false };
        let ints = bind(ctx, to_int, &[small]).await;
        let three = Tensor::from(Array::new(vec![], Data::I32(vec![3])));
        bind(ctx, Primitive::Binary(BinaryOp::Sub), &[ints, three]).await
    });
    check_with(&offsets, Precision::Default, &inputs);
    let want: Vec<f32> = x.iter().zip(&y).map(|(&a, &b)| (a.wrapping_mul(b) % (1 << 24)) as f32 - 3.0).collect();
    assert_eq!(words(&offsets), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
}

/// Arithmetic that would read uint32 bits as float32 values is refused, naming the equation.
#[test]
fn float_arithmetic_on_bits_is_refused() {
    let closed = trace_avals(&[key_aval(&[])], async |ctx, a| {
        bind(ctx, Primitive::Binary(BinaryOp::Sub), &[a[0].clone(), a[0].clone()]).await
    });
    let e = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap_err();
    assert_eq!(e.message, "equation 0 (sub): sub of uint32 values is not supported by the compiler yet");
}
