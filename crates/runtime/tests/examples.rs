//! The page's examples gallery (`examples/*.py`): every script opens with the header the page
//! shows (a title, then a paragraph saying what to look at), runs on the CPU backend and prints
//! something. And each explanation holds: the counters it points at relate as it says. Expected
//! values are derived by hand from the scripts' shapes (a 128×128 MXU, f32 = 4 bytes, one bf16
//! pass at DEFAULT precision), never copied from a run.

use emu::TpuConfig;
use runtime::{BackendChoice, Engine, ProgramReport, RunOptions, RunReport};
use std::path::PathBuf;

/// The examples with a test of their own below; any other file in examples/ gets the generic
/// checks only (`every_other_example_runs`).
const TESTED: &[&str] = &[
    "batch_size",
    "data_parallel",
    "bf16_vs_f32",
    "full_size_cost",
    "host_and_device",
    "jit_vs_eager",
    "memory_vs_compute",
    "mlp_forward",
    "mlp_training",
    "padding_128",
    "precision_modes",
    "random_numbers",
    "self_attention",
    "transformer_block",
];

const MXU: u64 = 128 * 128;
const F32: u64 = 4;

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Every example's name (its file name without `.py`), sorted.
fn example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("examples/ exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|file| file.strip_suffix(".py").map(str::to_owned))
        .collect();
    names.sort();
    names
}

fn source(name: &str) -> String {
    std::fs::read_to_string(examples_dir().join(format!("{name}.py"))).unwrap_or_else(|e| panic!("{name}.py: {e}"))
}

/// The header the page shows: `# Title`, then `#`, then the explanation's lines, each starting
/// a comment, up to the first line that is not. (web/src/examples.ts reads it the same
/// way.)
fn header(source: &str) -> Option<(String, String)> {
    let mut lines = source.lines();
    let title = lines.next()?.strip_prefix("# ")?.trim().to_owned();
    if lines.next()?.trim_end() != "#" {
        return None;
    }
    let explanation: Vec<&str> =
        lines.map_while(|l| l.strip_prefix('#')).map(str::trim).filter(|l| !l.is_empty()).collect();
    (!title.is_empty() && !explanation.is_empty()).then(|| (title, explanation.join(" ")))
}

fn run_on(name: &str, machine: TpuConfig) -> RunReport {
    let source = source(name);
    let (title, explanation) = header(&source).unwrap_or_else(|| panic!("{name}.py has no title and explanation"));
    assert!(explanation.len() > 100, "{name}: the explanation of {title:?} is a paragraph: {explanation:?}");
    let opts = RunOptions { backend: BackendChoice::Cpu, machine, ..RunOptions::default() };
    let report = match pollster::block_on(Engine::new().run_script(&source, &opts)) {
        Ok(report) => report,
        Err(failure) => panic!("{name}.py failed: {:?}\nprinted:\n{}", failure.errors, failure.stdout),
    };
    assert!(!report.stdout.trim().is_empty(), "{name}.py prints something");
    assert!(report.programs.iter().any(|p| !p.eager), "{name}.py runs a jitted program");
    report
}

fn run(name: &str) -> RunReport {
    run_on(name, TpuConfig::v5e())
}

/// The programs called `name`, in the order they were compiled.
fn programs<'a>(report: &'a RunReport, name: &str) -> Vec<&'a ProgramReport> {
    let found: Vec<&ProgramReport> = report.programs.iter().filter(|p| p.name == name && !p.eager).collect();
    assert!(
        !found.is_empty(),
        "no program {name}; there are {:?}",
        report.programs.iter().map(|p| &p.name).collect::<Vec<_>>()
    );
    found
}

fn program<'a>(report: &'a RunReport, name: &str) -> &'a ProgramReport {
    let found = programs(report, name);
    assert_eq!(found.len(), 1, "one program {name}");
    found[0]
}

/// The numbers on the printed line that starts with `prefix`.
fn printed_numbers(stdout: &str, prefix: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in\n{stdout}"));
    line[line.find(prefix).unwrap() + prefix.len()..]
        .split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | ',' | ':'))
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// The roofline's two bounds for one call, in cycles: (compute, memory).
fn bounds(p: &ProgramReport, machine: &TpuConfig) -> (f64, f64) {
    let m = machine.summary();
    let peak_flops_per_cycle = 2.0 * (m.mxus_per_core * m.mxu_rows * m.mxu_cols) as f64;
    let c = &p.counters;
    (c.flops as f64 / peak_flops_per_cycle, (c.hbm_bytes_read + c.hbm_bytes_written) as f64 / m.hbm_bytes_per_cycle)
}

#[test]
fn every_example_has_a_header() {
    let names = example_names();
    assert!(names.len() >= TESTED.len(), "examples/: {names:?}");
    for name in &names {
        assert!(header(&source(name)).is_some(), "{name}.py opens with `# Title`, `#`, then the explanation");
    }
    for name in TESTED {
        assert!(names.iter().any(|n| n == name), "examples/{name}.py is missing");
    }
}

#[test]
fn every_other_example_runs() {
    for name in example_names().iter().filter(|n| !TESTED.contains(&n.as_str())) {
        run(name);
    }
}

#[test]
fn mlp_forward_fuses_each_layer_and_pads_the_narrow_one() {
    let report = run("mlp_forward");
    let c = &program(&report, "mlp").counters;
    let (batch, inputs, hidden, outputs) = (128, 256, 512, 10);
    assert_eq!(c.mxu_macs, batch * inputs * hidden + batch * hidden * outputs);
    // Only the hidden layer goes through HBM between the two kernels: written once, read once.
    let params = inputs * hidden + hidden + hidden * outputs + outputs;
    assert_eq!(c.hbm_bytes_read, F32 * (batch * inputs + params + batch * hidden));
    assert_eq!(c.hbm_bytes_written, F32 * (batch * hidden + batch * outputs));
    // Layer 1: 2 × 4 full weight tiles, each streaming 128 rows; layer 2: 4 tiles 10 columns wide.
    let (busy1, busy2) = (batch * (inputs / 128) * (hidden / 128), batch * (hidden / 128));
    assert_eq!(c.mxu_busy_cycles, busy1 + busy2);
    assert_eq!(busy2 * 2, busy1, "the second layer streams half as long");
    assert_eq!(c.mxu_unused_macs, batch * hidden * (128 - outputs), "all of the padding is layer 2's");
}

#[test]
fn mlp_training_is_one_program_called_five_times_and_learns() {
    let report = run("mlp_training");
    let step = program(&report, "train_step");
    assert_eq!(step.calls, 5);
    let losses: Vec<f64> = (0..5).map(|i| printed_numbers(&report.stdout, &format!("step {i}: loss"))[0]).collect();
    assert!(losses[4] < losses[0] / 10.0, "the loss goes down: {losses:?}");
    // Forward: x·w1 (256×64×128) and h·w2 (256×128×1). Backward: dw2 = hᵀ·g (256 deep),
    // dh = g·w2ᵀ (1 deep) and dw1 = xᵀ·dh (256 deep); none for x.
    let (n, d, h) = (256, 64, 128);
    let forward = n * d * h + n * h;
    let c = &step.counters;
    assert_eq!(c.mxu_macs, forward + n * h + n * h + n * d * h);
    assert!(
        c.mxu_macs > 2 * forward - forward / 10 && c.mxu_macs < 2 * forward + forward / 10,
        "about twice the forward pass"
    );
    assert!(c.mxu_unused_macs > c.mxu_macs, "the 1-wide layer pads: {c:?}");
    assert!(step.jaxpr.matches("dot_general").count() >= 5, "{}", step.jaxpr);
}

#[test]
fn self_attention_half_fills_the_mxu_and_round_trips_the_scores() {
    let report = run("self_attention");
    let p = program(&report, "attention");
    let (b, t, d) = (4, 128, 64);
    let c = &p.counters;
    assert_eq!(c.mxu_macs, 2 * b * t * t * d, "q·kᵀ and weights·v");
    assert_eq!(c.mxu_unused_macs, c.mxu_macs, "each is 64 deep or 64 wide on a 128×128 array");
    let (scores, output) = (F32 * b * t * t, F32 * b * t * d);
    assert!(c.hbm_bytes_written >= 4 * scores + output, "the scores go to HBM four times: {c:?}");
    assert!(c.hbm_bytes_written >= 10 * output, "{c:?}");
    for needle in ["dot_general", "reduce_max", "exp", "reduce_sum"] {
        assert!(p.jaxpr.contains(needle), "{needle} in\n{}", p.jaxpr);
    }
    assert!(p.fused.contains("kInput") && p.fused.contains("kTranspose"), "{}", p.fused);
}

#[test]
fn transformer_block_is_memory_bound_and_only_attention_pads() {
    let machine = TpuConfig::v5e();
    let report = run_on("transformer_block", machine.clone());
    let p = program(&report, "block");
    let (tokens, d, heads, t) = (2 * 128, 128, 2, 128);
    let attention = 2 * (2 * heads) * t * t * (d / heads);
    let c = &p.counters;
    assert_eq!(c.mxu_macs, 4 * tokens * d * d + 2 * tokens * d * 4 * d + attention);
    assert_eq!(c.mxu_unused_macs, attention, "the 64-deep and 64-wide head matmuls half-fill the array");
    assert!(c.flops > 2 * c.mxu_macs, "the vector unit's share");
    let (compute, memory) = bounds(p, &machine);
    assert!(memory > compute, "memory-bound: {c:?}");
    let b = &c.breakdown;
    let largest = b.parts().iter().cloned().fold(("", 0.0), |a, x| if x.1 > a.1 { x } else { a });
    assert_eq!(largest.0, "weight_stall", "{b:?}");
}

#[test]
fn jit_fuses_what_eager_dispatches_op_by_op() {
    let report = run("jit_vs_eager");
    let jitted = &program(&report, "layer").counters;
    // Everything op-by-op in this script is the eager call of `layer` (init is jitted).
    let eager: Vec<&ProgramReport> = report.programs.iter().filter(|p| p.eager).collect();
    let total = |f: fn(&ProgramReport) -> u64| -> u64 { eager.iter().map(|p| p.calls * f(p)).sum() };
    let (n, k, m) = (256, 256, 512);
    // Jitted: x, w and b in, the result out; nothing else touches HBM.
    assert_eq!(jitted.hbm_bytes_read, F32 * (n * k + k * m + m));
    assert_eq!(jitted.hbm_bytes_written, F32 * n * m);
    assert!(eager.iter().map(|p| p.calls).sum::<u64>() >= 10, "one program per operation");
    assert_eq!(total(|p| p.counters.mxu_macs), jitted.mxu_macs, "the same matmul either way");
    fn bytes(c: &emu::Counters) -> u64 {
        c.hbm_bytes_read + c.hbm_bytes_written
    }
    assert!(total(|p| bytes(&p.counters)) > 10 * bytes(jitted), "more than ten times the HBM traffic");
    assert!(total(|p| p.counters.cycles) > 3 * jitted.cycles, "several times the time");
    let (by_op, by_jit) = (printed_numbers(&report.stdout, "op by op:"), printed_numbers(&report.stdout, "jitted:"));
    assert_eq!(by_op.len(), 4);
    assert_eq!(by_op, by_jit);
}

#[test]
fn padding_129_takes_four_weight_tiles() {
    let report = run("padding_128");
    let runs = programs(&report, "matmul");
    assert_eq!(runs.len(), 3);
    for (p, n) in runs.iter().zip([127u64, 128, 129]) {
        let c = &p.counters;
        let tiles = n.div_ceil(128).pow(2);
        assert_eq!(c.mxu_macs, n * n * n, "n = {n}");
        assert_eq!(c.mxu_busy_cycles, n * tiles, "n = {n}: every row streams through each weight tile");
        assert_eq!(c.mxu_unused_macs, c.mxu_busy_cycles * MXU - n * n * n, "n = {n}");
    }
    assert_eq!(runs[1].counters.mxu_unused_macs, 0);
    let c129 = &runs[2].counters;
    let ratio = c129.mxu_unused_macs as f64 / c129.mxu_macs as f64;
    assert!((2.5..3.5).contains(&ratio), "about three times: {ratio}");
}

#[test]
fn precision_modes_make_one_three_and_six_passes() {
    let report = run("precision_modes");
    let runs = programs(&report, "matmul");
    assert_eq!(runs.len(), 3, "default, high, highest");
    let macs = 128 * 256 * 256;
    for (p, passes) in runs.iter().zip([1, 3, 6]) {
        assert_eq!(p.counters.mxu_macs, passes * macs);
        assert_eq!(p.counters.mxu_busy_cycles, passes * runs[0].counters.mxu_busy_cycles);
        assert_eq!(p.counters.flops, runs[0].counters.flops, "flops count useful work");
    }
    assert!(runs[2].counters.cycles < 6 * runs[0].counters.cycles);
    let default = printed_numbers(&report.stdout, "default:")[0];
    let high = printed_numbers(&report.stdout, "high:")[0];
    assert!(high > 0.0 && default > 100.0 * high, "default {default}, high {high}");
}

#[test]
fn default_precision_is_a_matmul_of_bf16_rounded_operands() {
    let report = run("bf16_vs_f32");
    let exact_of_rounded = printed_numbers(&report.stdout, "DEFAULT vs exact matmul of bf16-rounded operands");
    assert_eq!(exact_of_rounded, [0.0], "bit for bit");
    assert!(printed_numbers(&report.stdout, "DEFAULT vs exact float32 matmul")[0] > 1e-4);
    let runs = programs(&report, "matmul");
    assert_eq!(runs.len(), 3, "HIGHEST, then DEFAULT, then bfloat16 arrays at HIGHEST");
    assert_eq!(runs[0].calls, 2);
    assert_eq!(runs[1].counters.mxu_macs, 128 * 256 * 128);
    assert_eq!(runs[0].counters.mxu_macs, 6 * runs[1].counters.mxu_macs);
    // bfloat16 operands: one pass at HIGHEST, and DEFAULT's sums rounded to bf16.
    assert_eq!(runs[2].counters.mxu_macs, runs[1].counters.mxu_macs);
    assert_eq!(printed_numbers(&report.stdout, "bf16 matmul vs DEFAULT rounded to bf16"), [0.0]);
    // Rounded to 8 significant bits: each printed bf16 value is within 2⁻⁸ of its float32.
    let (f32s, bf16s) = (printed_numbers(&report.stdout, "float32:"), printed_numbers(&report.stdout, "bfloat16:"));
    assert_eq!(f32s.len(), bf16s.len());
    for (a, b) in f32s.iter().zip(&bf16s) {
        assert!((a - b).abs() <= a.abs() / 256.0 && a != b, "{a} vs {b}");
    }
}

#[test]
fn bigger_batches_use_the_mxu_better() {
    let report = run("batch_size");
    let runs = programs(&report, "layer");
    let batches = [8u64, 32, 128, 512];
    assert_eq!(runs.len(), batches.len());
    for (p, b) in runs.iter().zip(batches) {
        assert_eq!(p.counters.mxu_macs, b * 256 * 256);
    }
    for pair in runs.windows(2) {
        assert!(pair[1].counters.mxu_utilization > pair[0].counters.mxu_utilization);
    }
    let (first, last) = (&runs[0].counters, &runs[3].counters);
    assert!(last.cycles < 16 * first.cycles, "64× the work in far less than 64× the time");
    // Small batches: 2·b·K·N FLOPs over 4·K·N bytes of weights, about b/2 FLOP per byte.
    assert!((0.75 * 4.0..1.25 * 4.0).contains(&first.arithmetic_intensity), "{first:?}");
    let b = &first.breakdown;
    assert!(b.weight_stall + b.non_matrix > 0.9, "{b:?}");
}

#[test]
fn a_full_size_layer_is_timed_without_running_it() {
    let v5e = TpuConfig::v5e();
    let report = run("full_size_cost");
    let block = program(&report, "block");
    assert_eq!(block.calls, 0, "compiled, never called");
    // q, k, v, o: 4·2·T·D²; the MLP's three matmuls: 3·2·T·D·F; scores and the weighted sum
    // of values: 2·2·H·T²·(D/H). The elementwise rest adds well under 1 %.
    let (d, h, t, f) = (4096u64, 32u64, 2048u64, 11008u64);
    let matmuls = 8 * t * d * d + 6 * t * d * f + 4 * h * t * t * (d / h);
    let c = &block.counters;
    assert!(c.flops >= matmuls && c.flops < matmuls + matmuls / 100, "{} vs {matmuls}", c.flops);
    // cost_analysis() counts the same: the matmuls and the elementwise rest.
    let printed = printed_numbers(&report.stdout, "block:")[0] * 1e12;
    assert!((printed - c.flops as f64).abs() <= 0.5e9, "{printed} vs {}", c.flops);
    // Every weight read at least once: 4·D² + 3·D·F values of two bytes (bf16 is packed).
    assert!(c.hbm_bytes_read >= (4 * d * d + 3 * d * f) * 2);
    let (compute, memory) = bounds(block, &v5e);
    assert!(c.cycles as f64 >= compute.max(memory) && c.mxu_utilization > 0.1, "{c:?}");
    // GPT-2 small's layer (d 768, 12 heads, 1024 tokens, MLP 3072) likewise, with GELU and
    // LayerNorm's elementwise work adding a few per cent.
    let gpt2 = program(&report, "gpt2_block");
    assert_eq!(gpt2.calls, 0);
    let (d, h, t, f) = (768u64, 12u64, 1024u64, 3072u64);
    let matmuls = 8 * t * d * d + 4 * t * d * f + 4 * h * t * t * (d / h);
    let g = &gpt2.counters;
    assert!(g.flops >= matmuls && g.flops < matmuls + matmuls / 20, "{} vs {matmuls}", g.flops);
    assert!((printed_numbers(&report.stdout, "gpt2_block:")[0] * 1e9 - g.flops as f64).abs() <= 0.05e9);
    assert!(g.hbm_bytes_read >= (4 * d * d + 2 * d * f) * 2 && g.cycles > 0);
    // The MLP's intensity (XLA's flops over bytes accessed) grows with the batch, and its
    // programs climb the roofline: batch 1 is HBM-bound, batch 1024 MXU-bound.
    let intensity: Vec<f64> = [1, 16, 128, 1024]
        .iter()
        .map(|b| printed_numbers(&report.stdout, &format!("ffn at batch {b:4}:"))[0])
        .collect();
    assert!(intensity.windows(2).all(|w| w[1] > w[0]), "{intensity:?}");
    // Batch 1: 2 flops per weight of 2 bytes.
    assert!((0.9..1.1).contains(&intensity[0]), "{intensity:?}");
    let ffn = programs(&report, "ffn");
    assert_eq!(ffn.len(), 4);
    let (compute, memory) = bounds(ffn[0], &v5e);
    assert!(memory > 100.0 * compute);
    let (compute, memory) = bounds(ffn[3], &v5e);
    assert!(compute > memory);
    assert!(ffn[3].counters.mxu_utilization > 100.0 * ffn[0].counters.mxu_utilization);
}

#[test]
fn matvec_is_memory_bound_and_matmul_crosses_the_ridge_on_v2() {
    let v5e = TpuConfig::v5e();
    let report = run_on("memory_vs_compute", v5e.clone());
    let (matvec, matmul) = (program(&report, "matvec"), program(&report, "matmul"));
    let (compute, memory) = bounds(matvec, &v5e);
    assert!(memory > 10.0 * compute, "matvec is memory-bound");
    assert!(matvec.counters.roofline_fraction > 0.8, "and close to its memory roof: {:?}", matvec.counters);
    assert!(matvec.counters.mxu_utilization < 0.05);
    // 2·8·2048² FLOPs over (8·2048 + 2048² + 8·2048)·4 bytes ≈ 4; 2·512³ over 3·512²·4 ≈ 85.
    assert!((3.5..4.0).contains(&matvec.counters.arithmetic_intensity));
    assert!((80.0..86.0).contains(&matmul.counters.arithmetic_intensity));
    assert!(matmul.counters.mxu_utilization > 5.0 * matvec.counters.mxu_utilization);
    let (compute, memory) = bounds(matmul, &v5e);
    assert!(memory > compute, "under v5e's ridge with float32 operands");

    let v2 = TpuConfig::v2();
    let report = run_on("memory_vs_compute", v2.clone());
    let (compute, memory) = bounds(program(&report, "matmul"), &v2);
    assert!(compute > memory, "compute-bound on v2");
    let (compute, memory) = bounds(program(&report, "matvec"), &v2);
    assert!(memory > compute, "matvec stays memory-bound");
}

#[test]
fn numpy_batches_are_copied_to_the_device_on_every_call() {
    let report = run("host_and_device");
    let (batch, weights, loss) = (256 * 128 * F32, 128 * 10 * F32, F32);
    let p = program(&report, "loss");
    assert_eq!(p.calls, 8);
    // Four calls with the NumPy batch, one jnp.asarray of it, and the weights before the first.
    assert_eq!(p.host_to_device_bytes, 5 * batch + weights);
    let t = report.transfers;
    assert_eq!((t.host_to_device_bytes, t.host_to_device_copies), (5 * batch + weights, 6));
    // Eight float(loss) reads.
    assert_eq!((t.device_to_host_bytes, t.device_to_host_copies), (8 * loss, 8));
    // Each way over v5e's PCIe link, 16 GB/s.
    let json: serde_json::Value = serde_json::from_str(&report.to_json(false)).unwrap();
    let seconds = json["transfers"]["host_to_device_seconds"].as_f64().unwrap();
    assert_eq!(seconds, (5 * batch + weights) as f64 / 16e9);
    // The same batch either way: the same losses.
    let numpy: Vec<f64> =
        (0..4).map(|i| printed_numbers(&report.stdout, &format!("NumPy batch, step {i}"))[0]).collect();
    let device: Vec<f64> =
        (0..4).map(|i| printed_numbers(&report.stdout, &format!("device batch, step {i}"))[0]).collect();
    assert_eq!(numpy, device);
}

#[test]
fn random_numbers_cost_the_vector_unit_not_the_mxu() {
    let report = run("random_numbers");
    let (plain, dropout) = (&program(&report, "layer").counters, &program(&report, "dropout_layer").counters);
    // The same matmul: 256³ MACs at one bf16 pass.
    assert_eq!(plain.mxu_macs, 256 * 256 * 256);
    assert_eq!(dropout.mxu_macs, plain.mxu_macs);
    // Threefry-2x32: per element 2 + 20·5 + 5·2 = 112 uint32 operations (docs/compiler.md), one
    // cycle per vector register of 8 × 128 elements; a 256×256 mask fills 64 registers.
    let registers = 256 * 256 / (8 * 128);
    let extra = dropout.vector_busy_cycles - plain.vector_busy_cycles;
    assert!(extra >= 112 * registers, "the hash's vector cycles: {extra} < {}", 112 * registers);
    assert!(dropout.cycles > 4 * plain.cycles, "drawing the mask dominates: {} vs {}", dropout.cycles, plain.cycles);
    let kept = printed_numbers(&report.stdout, "kept:")[0];
    assert!((kept - 0.9).abs() < 0.01, "about 90% kept: {kept}");
}

#[test]
fn data_parallel_training_over_a_v5e_8_pays_its_exposed_all_reduce() {
    let v5e8 = TpuConfig::from_name("v5e-8").unwrap();
    let report = run_on("data_parallel", v5e8.clone());
    let m = &report.mapped[0];
    assert_eq!((m.chips, m.calls), (8, 5));
    let collectives: Vec<(u64, u64, u64, bool)> = m
        .steps
        .iter()
        .filter_map(|s| match s {
            runtime::MappedStep::Collective { bytes_per_chip, start, end, latency_bound, .. } => {
                Some((*bytes_per_chip, *start, *end, *latency_bound))
            }
            _ => None,
        })
        .collect();
    // The loss's all-reduce (one float) and the gradients', combined: w1, b1, w2, b2.
    let gradients = (64 * 128 + 128 + 128 + 1) * F32;
    assert_eq!(collectives.iter().map(|c| c.0).collect::<Vec<_>>(), [F32, gradients]);
    // Both are latency-bound: 4 hops across the 2x4 grid, twice (reduce, then gather), 1 µs each.
    let eight_hops = (8.0 * 1e-6 * v5e8.clock_hz) as u64;
    for &(_, start, end, latency_bound) in &collectives {
        assert!(latency_bound && end - start == eight_hops, "{collectives:?}");
    }
    // The loss's overlaps the backward pass; the gradients' is exposed.
    assert!(m.exposed_collective_cycles >= eight_hops && m.exposed_collective_cycles < 2 * eight_hops, "{m:?}");
    // One chip: the same script, no collective cost, the same per-chip compute.
    let one = run("data_parallel");
    let single = &one.mapped[0];
    assert_eq!((single.chips, single.collective_cycles), (1, 0));
    assert_eq!(single.compute_cycles, m.compute_cycles);
}
