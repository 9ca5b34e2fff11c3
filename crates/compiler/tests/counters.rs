//! Counters of compiled programs against formulas derived by hand from the machine's
//! parameters (v5e: 128×128 MXU arrays, 4 per core, 546 HBM bytes per cycle). Timing needs no
//! execution, so these programs are large.

use compiler::{compile, CompileOptions};
use emu::{simulate, Counters, TpuConfig};
use jaxlite::eval::ReferenceExecutor;
use jaxlite::numpy as jnp;
use jaxlite::{Array, Aval, BinaryOp, Context, DType, Precision};

fn matmul_counters(m: usize, k: usize, n: usize) -> Counters {
    matmul_counters_on(m, k, n, TpuConfig::v5e())
}

fn matmul_counters_on(m: usize, k: usize, n: usize, cfg: TpuConfig) -> Counters {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let closed = pollster::block_on(async {
        let args = ctx.begin_trace(&[Aval::new(vec![m, k], DType::F32), Aval::new(vec![k, n], DType::F32)]);
        let y = jnp::matmul(&mut ctx, &args[0], &args[1], None).await.unwrap();
        ctx.end_trace(&[y]).unwrap()
    });
    let opts = CompileOptions {
        mxu_rows: cfg.mxu_rows,
        mxu_cols: cfg.mxu_cols,
        mxus: cfg.mxus_per_core,
        vmem_words: (cfg.vmem_bytes / 4) as u32,
        default_precision: Precision::Default,
    };
    simulate(&compile("mm", &closed.jaxpr, &opts).unwrap(), &[], &cfg).unwrap().counters
}

fn check_invariants(c: &Counters) {
    for busy in [c.vector_busy_cycles, c.xlu_busy_cycles] {
        assert!(busy <= c.cycles, "{c:?}");
    }
    // Each of the core's MXUs is busy at most every cycle.
    assert!(c.mxu_busy_cycles <= c.cycles * TpuConfig::v5e().mxus_per_core as u64, "{c:?}");
    let total: f64 = c.breakdown.parts().iter().map(|p| p.1).sum();
    assert!((total - 1.0).abs() < 1e-9, "breakdown sums to {total}: {:?}", c.breakdown);
    assert!(c.breakdown.parts().iter().all(|p| p.1 >= 0.0), "{:?}", c.breakdown);
    assert!(c.mxu_utilization <= 1.0 && c.roofline_fraction <= 1.0 + 1e-9, "{c:?}");
}

/// A large matmul keeps the core's four arrays streaming: M·K·N / (128·128) row-cycles in all,
/// a quarter of that each, and the whole program within a few percent of a quarter, FLOPs over
/// peak: weights shift in behind the stream and every next tile of A and B loads during this
/// one's compute. What is left (5 %) is the first tiles' load (16 MiB of A's rows and 8 MiB of
/// B's columns, 46k cycles at 546 bytes per cycle) before the arrays can start, and the last
/// results' drain and store.
#[test]
fn a_large_matmul_is_compute_bound() {
    let c = matmul_counters(4096, 4096, 4096);
    check_invariants(&c);
    let stream = 4096u64 * 4096 * 4096 / (128 * 128);
    assert_eq!(c.mxu_busy_cycles, stream);
    assert_eq!(c.mxus_used, 4);
    let per_mxu = stream / 4;
    assert!((c.cycles as f64) < 1.06 * per_mxu as f64, "{} cycles for {per_mxu} of streaming per MXU: {c:?}", c.cycles);
    assert!(c.mxu_utilization > 0.94, "{}", c.mxu_utilization);
    assert!(c.breakdown.array_active > 0.94, "{:?}", c.breakdown);
    // The arrays wait only for the first tiles' data.
    assert!(c.breakdown.weight_stall + c.breakdown.array_active > 0.99, "{:?}", c.breakdown);
    assert_eq!(c.mxu_unused_macs, 0, "every dimension is a multiple of 128");
}

/// With one MXU per core (a custom machine), the same matmul takes four times as long.
#[test]
fn one_mxu_takes_four_times_as_long() {
    let four = matmul_counters(4096, 4096, 4096);
    let one = matmul_counters_on(4096, 4096, 4096, {
        let mut cfg = TpuConfig::v5e();
        cfg.with_override("mxus=1").unwrap();
        cfg
    });
    assert_eq!(one.mxu_busy_cycles, four.mxu_busy_cycles);
    assert_eq!(one.mxus_used, 1);
    let ratio = one.cycles as f64 / four.cycles as f64;
    assert!((3.6..=4.05).contains(&ratio), "{} vs {} cycles", one.cycles, four.cycles);
}

/// A matrix-vector product is bound by HBM: reading the 4096×4096 matrix takes
/// 64 MiB / 546 bytes per cycle, and the program is within 5 % of that (each block of B's
/// columns loads while the previous one computes; the first block's compute and the last
/// store are not hidden).
#[test]
fn a_matrix_vector_product_is_memory_bound() {
    let c = matmul_counters(8, 4096, 4096);
    check_invariants(&c);
    let bytes = (c.hbm_bytes_read + c.hbm_bytes_written) as f64;
    let memory_bound = bytes / TpuConfig::v5e().hbm_bytes_per_cycle();
    assert!(c.hbm_bytes_read >= 4096 * 4096 * 4);
    assert!(
        (c.cycles as f64) >= memory_bound && (c.cycles as f64) < 1.05 * memory_bound,
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
    // The array streamed 4·129 rows through 128×128 cells, of which 129³ MACs were real.
    assert_eq!(over.mxu_unused_macs, 4 * 129 * 128 * 128 - 129 * 129 * 129);
}

/// `relu(x @ w + b)` as one jitted program moves its result through HBM once; the same three
/// steps as separate programs (JAX's op-by-op mode) write and re-read every intermediate.
#[test]
fn fusion_lowers_hbm_traffic() {
    let cfg = TpuConfig::v5e();
    let opts = CompileOptions {
        mxu_rows: 128,
        mxu_cols: 128,
        mxus: cfg.mxus_per_core,
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
    let fused = simulate(&compile("fused", &fused.jaxpr, &opts).unwrap(), &[], &cfg).unwrap().counters;
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
            .map(|closed| {
                bytes(&simulate(&compile("step", &closed.jaxpr, &opts).unwrap(), &[], &cfg).unwrap().counters)
            })
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
