//! Counters of compiled programs against formulas derived by hand from the machine's
//! parameters (v5e: 128×128 MXU arrays, 4 per core, 546 HBM bytes per cycle). Timing needs no
//! execution, so these programs are large.

use compiler::{compile, CompileOptions};
use emu::{simulate, Counters, TpuConfig};
use jaxlite::eval::ReferenceExecutor;
use jaxlite::numpy as jnp;
use jaxlite::{Array, Aval, BinaryOp, Context, DType, Precision};

fn matmul_counters(m: usize, k: usize, n: usize) -> Counters {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let closed = pollster::block_on(async {
        let args = ctx.begin_trace(&[Aval::new(vec![m, k], DType::F32), Aval::new(vec![k, n], DType::F32)]);
        let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    });
    let cfg = TpuConfig::v5e();
    let opts = CompileOptions {
        mxu_rows: 128,
        mxu_cols: 128,
        vmem_words: (cfg.vmem_bytes / 4) as u32,
        default_precision: Precision::Default,
    };
    simulate(&compile("mm", &closed.jaxpr, &opts).unwrap(), &cfg).counters
}

fn check_invariants(c: &Counters) {
    for busy in [c.mxu_busy_cycles, c.vector_busy_cycles, c.xlu_busy_cycles] {
        assert!(busy <= c.cycles, "{c:?}");
    }
    let b = &c.breakdown;
    let total = b.matmul + b.weight_stall + b.data_stall + b.issue_stall + b.no_matrix_work;
    assert!((total - 1.0).abs() < 1e-9, "breakdown sums to {total}: {b:?}");
    assert!(c.mxu_utilization <= 1.0 && c.roofline_fraction <= 1.0 + 1e-9, "{c:?}");
}

/// A large matmul keeps the array streaming: M·K·N / (128·128) row-cycles, and the whole
/// program within a few percent of that (weights shift in behind the stream, B's DMA overlaps).
/// The compiler drives one of the core's four MXUs so far, hence utilization near 1/4.
#[test]
fn a_large_matmul_is_compute_bound() {
    let c = matmul_counters(2048, 2048, 2048);
    check_invariants(&c);
    let stream = 2048u64 * 2048 * 2048 / (128 * 128);
    assert_eq!(c.mxu_busy_cycles, stream);
    assert!((c.cycles as f64) < 1.05 * stream as f64, "{} cycles for {stream} of streaming", c.cycles);
    assert!(c.mxu_utilization > 0.95 / 4.0 && c.mxu_utilization <= 0.25, "{}", c.mxu_utilization);
    assert!(c.breakdown.matmul > 0.95, "{:?}", c.breakdown);
}

/// A matrix-vector product is bound by HBM: reading the 4096×4096 matrix takes
/// 64 MiB / 546 bytes per cycle, and the program is within 25 % of that.
#[test]
fn a_matrix_vector_product_is_memory_bound() {
    let c = matmul_counters(8, 4096, 4096);
    check_invariants(&c);
    let bytes = (c.hbm_bytes_read + c.hbm_bytes_written) as f64;
    let memory_bound = bytes / TpuConfig::v5e().hbm_bytes_per_cycle();
    assert!(c.hbm_bytes_read >= 4096 * 4096 * 4);
    assert!(
        (c.cycles as f64) >= memory_bound && (c.cycles as f64) < 1.25 * memory_bound,
        "{} vs {memory_bound}",
        c.cycles
    );
    assert!(c.arithmetic_intensity < 5.0, "{}", c.arithmetic_intensity);
    assert_eq!(c.roofline_cycles, memory_bound.ceil() as u64);
}

/// One more row, column and depth than the array holds doubles the pieces of every dimension:
/// 129³ does (129/128)³ ≈ 1.02 times the useful work of 128³ in far more array time.
#[test]
fn dimensions_just_over_128_waste_the_array() {
    let (fit, over) = (matmul_counters(128, 128, 128), matmul_counters(129, 129, 129));
    check_invariants(&fit);
    check_invariants(&over);
    assert_eq!(over.mxu_macs, 129 * 129 * 129);
    assert_eq!(fit.mxu_macs, 128 * 128 * 128);
    // Four weight tiles instead of one: the array streams the rows four times.
    assert_eq!(over.mxu_busy_cycles, 4 * 129);
    assert_eq!(fit.mxu_busy_cycles, 128);
    assert!(over.mxu_utilization < fit.mxu_utilization, "{} vs {}", over.mxu_utilization, fit.mxu_utilization);
}

/// `relu(x @ w + b)` as one jitted program moves its result through HBM once; the same three
/// steps as separate programs (JAX's op-by-op mode) write and re-read every intermediate.
#[test]
fn fusion_lowers_hbm_traffic() {
    let cfg = TpuConfig::v5e();
    let opts = CompileOptions {
        mxu_rows: 128,
        mxu_cols: 128,
        vmem_words: (cfg.vmem_bytes / 4) as u32,
        default_precision: Precision::Default,
    };
    let (m, k, n) = (256, 512, 384);
    let bytes = |c: &Counters| c.hbm_bytes_read + c.hbm_bytes_written;
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let avals = [Aval::new(vec![m, k], DType::F32), Aval::new(vec![k, n], DType::F32), Aval::new(vec![n], DType::F32)];
    let fused = pollster::block_on(async {
        let a = ctx.begin_trace(&avals);
        let y = jnp::matmul(&mut ctx, &a[0], &a[1], None).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Add, &y, &a[2]).await.unwrap();
        let y = jnp::binary(&mut ctx, BinaryOp::Max, &y, &Array::weak_scalar_f32(0.0).into()).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    });
    let fused = simulate(&compile("fused", &fused.jaxpr, &opts).unwrap(), &cfg).counters;
    check_invariants(&fused);
    // The unfused steps, each its own program.
    let step = |ctx: &mut Context, avals: &[Aval], which: usize| {
        pollster::block_on(async {
            let a = ctx.begin_trace(avals);
            let y = match which {
                0 => jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap(),
                1 => jnp::binary(ctx, BinaryOp::Add, &a[0], &a[1]).await.unwrap(),
                _ => jnp::binary(ctx, BinaryOp::Max, &a[0], &Array::weak_scalar_f32(0.0).into()).await.unwrap(),
            };
            ctx.end_trace(&[y]).unwrap()
        })
    };
    let mn = Aval::new(vec![m, n], DType::F32);
    let separate: u64 =
        [step(&mut ctx, &avals[..2], 0), step(&mut ctx, &[mn.clone(), avals[2].clone()], 1), step(&mut ctx, &[mn], 2)]
            .iter()
            .map(|closed| bytes(&simulate(&compile("step", &closed.jaxpr, &opts).unwrap(), &cfg).counters))
            .sum();
    // Two intermediates of M×N floats written and read once each are saved.
    assert_eq!(separate - bytes(&fused), 2 * 2 * (m * n * 4) as u64, "{separate} vs {}", bytes(&fused));
}

/// Invariants over a spread of shapes, elementwise and matmul: busy never exceeds total, the
/// breakdown covers every cycle.
#[test]
fn counters_are_consistent_over_many_shapes() {
    for (m, k, n) in [(1, 1, 1), (7, 3, 300), (129, 257, 1), (64, 1000, 64), (513, 128, 129), (3, 4096, 7)] {
        check_invariants(&matmul_counters(m, k, n));
    }
}
