//! The skeleton function through the compiler: its assembly (golden) and its values on the CPU
//! backend against the reference evaluator, at every precision.

mod common;

use common::values;
use compiler::{compile, CompileOptions};
use emu::CpuBackend;
use expect_test::expect;
use jaxlite::eval::{eval_jaxpr_with, Arithmetic, ReferenceExecutor};
use jaxlite::numpy as jnp;
use jaxlite::{Array, Aval, BinaryOp, ClosedJaxpr, Context, DType, Precision, UnaryOp};

/// Traces `tanh(x @ w) * 2.0 + 1.0` for x: f32[m,k], w: f32[k,n].
fn trace_skeleton(m: usize, k: usize, n: usize) -> ClosedJaxpr {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    pollster::block_on(async {
        let args = ctx.begin_trace(&[Aval::new(vec![m, k], DType::F32), Aval::new(vec![k, n], DType::F32)]);
        let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
        let y = jnp::unary(&mut ctx, UnaryOp::Tanh, &y).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Mul, &y, &Array::weak_scalar_f32(2.0).into()).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Add, &y, &Array::weak_scalar_f32(1.0).into()).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    })
}

fn opts(precision: Precision) -> CompileOptions {
    CompileOptions { mxu_rows: 128, mxu_cols: 128, mxus: 4, vmem_words: 32 << 20, default_precision: precision }
}

#[test]
fn skeleton_jaxpr_and_assembly() {
    let closed = trace_skeleton(3, 4, 5);
    expect![[r#"
        { lambda ; a:f32[3,4] b:f32[4,5]. let
            c:f32[3,5] = dot_general[
              dimension_numbers=(([1], [0]), ([], []))
              preferred_element_type=float32
            ] a b
            d:f32[3,5] = tanh c
            e:f32[3,5] = mul d 2.0:f32[]
            f:f32[3,5] = add e 1.0:f32[]
          in (f,) }"#]]
    .assert_eq(&closed.jaxpr.to_string());
    let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    expect![[r#"
        program f hbm=47 vmem=43008 flops=165
        input in0 f32[3,4] hbm[0]
        input in1 f32[4,5] hbm[12]
        output out0 f32[3,5] hbm[32]
           0: dma.load    hbm[0] 3x4/4 -> vmem[0] 3x4/128 sem=2
           1: dma.load    hbm[12] 4x5/5 -> vmem[2048] 4x5/128 sem=0
           2: wait        sem=2 count=1
           3: wait        sem=0 count=1
           4: mxu.weights vmem[2048] 4x5/128 part=hi mxu=0
           5: mxu.matmul  vmem[0] 3x4/128 -> vmem[34816] 3x5/128 part=hi set mxu=0
           6: v.tanh      vmem[34816] -> vmem[36864] 3x5/128
           7: v.mul       vmem[36864], 2.0 -> vmem[38912] 3x5/128
           8: v.add       vmem[38912], 1.0 -> vmem[40960] 3x5/128
           9: dma.store   vmem[40960] 3x5/128 -> hbm[32] 3x5/5 sem=1
          10: wait        sem=1 count=1
    "#]]
    .assert_eq(&program.to_string());
}

/// Compiled on the CPU backend, the matmul is bit-identical to the reference evaluator
/// (K fits one MXU tile, so both sum in the same order); tanh differs from the host's libm by
/// at most a few ulp.
#[test]
fn compiled_values_match_the_reference() {
    for precision in [Precision::Default, Precision::High, Precision::Highest] {
        for (m, k, n) in [(3, 4, 5), (1, 1, 1), (7, 128, 129), (130, 3, 2)] {
            let closed = trace_skeleton(m, k, n);
            let program = compile("f", &closed.jaxpr, &opts(precision)).unwrap();
            let (x, w) = (values(m * k, 1), values(k * n, 2));
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
            let out = CpuBackend.run_sync(&program, &[bits(&x), bits(&w)]).unwrap();
            let args = [Array::from_f32(vec![m, k], x), Array::from_f32(vec![k, n], w)];
            let want = eval_jaxpr_with(&closed.jaxpr, &args, precision, Arithmetic::Tpu).unwrap()[0].to_f32_vec();
            for (i, (&got, want)) in out[0].iter().zip(want).enumerate() {
                let got = f32::from_bits(got);
                assert!(
                    (got - want).abs() <= 8.0 * f32::EPSILON * (want.abs() + 2.0),
                    "{precision:?} {m}x{k}x{n} [{i}]: {got} vs {want}"
                );
            }
        }
    }
}

/// The matmul alone is bit-exact against the reference at every precision when K fits a tile.
#[test]
fn matmul_is_bit_exact() {
    for precision in [Precision::Default, Precision::High, Precision::Highest] {
        let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
        let closed = pollster::block_on(async {
            let args = ctx.begin_trace(&[Aval::new(vec![9, 100], DType::F32), Aval::new(vec![100, 130], DType::F32)]);
            let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
            ctx.end_trace(&[y]).unwrap()
        });
        let program = compile("mm", &closed.jaxpr, &opts(precision)).unwrap();
        let (x, w) = (values(900, 3), values(13000, 4));
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        let out = CpuBackend.run_sync(&program, &[bits(&x), bits(&w)]).unwrap();
        let args = [Array::from_f32(vec![9, 100], x), Array::from_f32(vec![100, 130], w)];
        let want = eval_jaxpr_with(&closed.jaxpr, &args, precision, Arithmetic::Tpu).unwrap()[0].to_f32_vec();
        assert_eq!(out[0], bits(&want), "{precision:?}");
    }
}

/// Traces `relu(x @ w + b)` with `b` broadcast along the rows, as `jax.nn.relu(x @ w + b)`.
fn trace_dense(m: usize, k: usize, n: usize) -> ClosedJaxpr {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    pollster::block_on(async {
        let args = ctx.begin_trace(&[
            Aval::new(vec![m, k], DType::F32),
            Aval::new(vec![k, n], DType::F32),
            Aval::new(vec![n], DType::F32),
        ]);
        let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Add, &y, &args[2]).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Max, &y, &Array::weak_scalar_f32(0.0).into()).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    })
}

#[test]
fn bias_and_activation_fuse_into_the_matmul() {
    let closed = trace_dense(200, 300, 260);
    let stages = compiler::compile_stages("dense", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    expect![[r#"
        FusedModule dense
          ROOT %fusion.0 = f32[200,260] fusion(%p0, %p1, %broadcast.4), kind=kOutput, calls={%dot.3, %add.5, %maximum.7}
    "#]]
    .assert_eq(&stages.fused.to_string());
    let (x, w, b) = (values(200 * 300, 5), values(300 * 260, 6), values(260, 7));
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let out = CpuBackend.run_sync(&stages.program, &[bits(&x), bits(&w), bits(&b)]).unwrap();
    let args = [Array::from_f32(vec![200, 300], x), Array::from_f32(vec![300, 260], w), Array::from_f32(vec![260], b)];
    let want = eval_jaxpr_with(&closed.jaxpr, &args, Precision::Default, Arithmetic::Tpu).unwrap()[0].to_f32_vec();
    // K = 300 spans three MXU tiles, summed tile by tile, where the reference sums in one run:
    // equal up to f32 rounding of the partial sums.
    for (i, (&got, want)) in out[0].iter().zip(want).enumerate() {
        let got = f32::from_bits(got);
        assert!((got - want).abs() <= 1e-5 * (want.abs() + 1.0), "[{i}]: {got} vs {want}");
    }
}

/// Loops with affine addresses keep programs small: a 4096³ matmul (whose operands do not fit
/// VMEM together, so they stream through it tile by tile) is a few hundred instructions (about
/// a thousand at HIGHEST's six passes), while it executes millions of operations.
#[test]
fn a_4096_cubed_matmul_is_a_short_program() {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let closed = pollster::block_on(async {
        let args = ctx.begin_trace(&[Aval::new(vec![4096, 4096], DType::F32), Aval::new(vec![4096, 4096], DType::F32)]);
        let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    });
    for precision in [Precision::Default, Precision::Highest] {
        let program = compile("big", &closed.jaxpr, &opts(precision)).unwrap();
        // Software pipelining emits a tile loop's body four times here (the pair loop's two,
        // the tail's two), and the matmul nests two such loops; HIGHEST repeats the MXU code
        // for each of its six passes.
        let limit = if precision == Precision::Default { 400 } else { 1200 };
        assert!(program.instrs.len() < limit, "{precision:?}: {} instructions", program.instrs.len());
        assert!(program.vmem_words <= 32 << 20);
        let matmuls: Vec<u32> = program
            .ops()
            .map(|op| op.expect("a compiled program runs"))
            .filter_map(|(_, op)| match op {
                isa::Instr::MxuMatmul { src, .. } => Some(src.rows),
                _ => None,
            })
            .collect();
        // Each pass loads each of B's 32×32 weight tiles once per block of rows of A, and
        // streams the whole block (M is not cut to the array's size: weights stay, rows flow).
        let passes = if precision == Precision::Default { 1 } else { 6 };
        let row_blocks = 4096 / matmuls[0] as usize;
        assert_eq!(matmuls.len(), passes * 32 * 32 * row_blocks);
    }
}

/// `a = exp(x); b = a * 2` returning both: one loop fusion writes two outputs.
#[test]
fn values_used_outside_a_fusion_become_extra_outputs() {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let closed = pollster::block_on(async {
        let args = ctx.begin_trace(&[Aval::new(vec![20, 30], DType::F32)]);
        let a = jnp::unary(&mut ctx, UnaryOp::Exp, &args[0]).await.unwrap();
        let b = jnp::binary(&mut ctx, BinaryOp::Mul, &a, &Array::weak_scalar_f32(2.0).into()).await.unwrap();
        ctx.end_trace(&[a, b]).unwrap()
    });
    let stages = compiler::compile_stages("two", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    expect![[r#"
        FusedModule two
          ROOT %fusion.0 = f32[20,30] fusion(%p0), kind=kLoop, calls={%exponential.1, %multiply.3}, outputs={%exponential.1, %multiply.3}
    "#]]
    .assert_eq(&stages.fused.to_string());
    let x = values(600, 9);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let out = CpuBackend.run_sync(&stages.program, &[bits(&x)]).unwrap();
    let exp: Vec<u32> = x.iter().map(|&v| emu::vpu_math::exp(v).to_bits()).collect();
    let twice: Vec<u32> = x.iter().map(|&v| (emu::vpu_math::exp(v) * 2.0).to_bits()).collect();
    assert_eq!(out, vec![exp, twice]);
}

/// A 1-D run of a million elements (no multiple of 128 divides it) with three whole inputs:
/// it is walked as 1000 rows of 1000, so a tile of rows fits VMEM, where one row of a million
/// did not.
#[test]
fn a_long_run_of_elements_is_cut_into_rows_that_fit() {
    let closed = common::trace(&[&[1_000_000], &[1_000_000], &[1_000_000]], async |ctx, a| {
        let above = jnp::compare(ctx, jaxlite::CompareOp::Gt, &a[0], &a[1]).await.unwrap();
        jnp::where_(ctx, &above, &a[1], &a[2]).await.unwrap()
    });
    let text = common::check(&closed, Precision::Default);
    assert!(text.contains("dma.load    hbm[0] 512x1000/1000"), "{text}");
}
