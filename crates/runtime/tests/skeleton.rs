//! The walking skeleton's script end to end, on the CPU backend and on the GPU backend
//! (lavapipe here). Values must match real JAX's, and be bit-identical across backends;
//! counters come from the timing model and must be identical too.

use jaxlite::Precision;
use runtime::{BackendChoice, Engine, RunOptions, RunReport};

const SCRIPT: &str = include_str!("../../../tests/scripts/skeleton.py");
const EXPECTED: &str = include_str!("../../../tests/scripts/skeleton.expected");
const EXPECTED_HIGHEST: &str = include_str!("../../../tests/scripts/skeleton.highest.expected");

fn run(backend: BackendChoice, precision: Precision) -> RunReport {
    let opts = RunOptions { backend, precision, ..RunOptions::default() };
    match pollster::block_on(Engine::new().run_script(SCRIPT, &opts)) {
        Ok(report) => report,
        Err(failure) => panic!("run failed: {:?}", failure.errors),
    }
}

#[test]
fn cpu_backend_prints_what_jax_prints() {
    let report = run(BackendChoice::Cpu, Precision::Default);
    assert_eq!(report.stdout, EXPECTED);
    assert_eq!(report.backend, "cpu");
    let names: Vec<&str> = report.programs.iter().map(|p| p.name.as_str()).collect();
    // Eager ops run one program each, as JAX dispatches them; f is one jitted program.
    assert_eq!(names, ["reshape", "div", "mul", "f"]);
    let f = &report.programs[3];
    assert_eq!(f.calls, 1);
    let c = &f.counters;
    assert_eq!(c.flops, 2 * 3 * 4 * 5 + 3 * 15, "matmul plus three elementwise ops");
    assert_eq!(c.hbm_bytes_read, (12 + 20) * 4);
    assert_eq!(c.hbm_bytes_written, 15 * 4);
    // One fold on a 128×128 array: 3 rows stream through (3 busy cycles, 3·4·5 MACs), after
    // 128 cycles of weight shifting and before 128 + 128 - 2 of drain: SCALE-Sim's fold.
    assert_eq!(c.mxu_busy_cycles, 3);
    assert_eq!(c.mxu_macs, 3 * 4 * 5);
    assert!(c.cycles >= 2 * 128 + 128 + 3 - 2 && c.cycles < 10_000, "cycles {}", c.cycles);
    let b = &c.breakdown;
    let total: f64 = b.parts().iter().map(|p| p.1).sum();
    assert!((total - 1.0).abs() < 1e-9, "the breakdown covers every cycle: {b:?}");
    // One MXU of v5e's four works: the others have no matrix work all along.
    assert_eq!(c.mxus_used, 1);
    assert!(b.non_matrix > 0.75, "{b:?}");
    assert!(b.weight_stall > 0.0, "the array waits for its only weights: {b:?}");
}

/// The numbers in NumPy's printout of an array.
fn numbers(text: &str) -> Vec<f32> {
    text.split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// At HIGHEST the six bf16 passes reproduce the float32 matmul to within an ulp or two, and
/// our tanh (a fixed polynomial, the same on every backend) is within 3 ulp of libm's, so the
/// printed digits may differ from JAX's in the last place: compare the numbers.
#[test]
fn highest_precision_matches_float32_jax() {
    let report = run(BackendChoice::Cpu, Precision::Highest);
    let (got, want) = (numbers(&report.stdout), numbers(EXPECTED_HIGHEST));
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 4.0 * f32::EPSILON * w.abs(), "{g} vs JAX's {w}");
    }
    // DEFAULT's single bf16 pass is visibly less accurate than that.
    let default = numbers(&run(BackendChoice::Cpu, Precision::Default).stdout);
    assert!((default[0] - want[0]).abs() > 1e-4);
}

#[test]
fn gpu_backend_is_bit_identical_with_identical_counters() {
    let cpu = run(BackendChoice::Cpu, Precision::Default);
    let gpu = run(BackendChoice::Gpu, Precision::Default);
    assert_eq!(gpu.backend, "gpu");
    assert!(gpu.adapter.is_some(), "a GPU run names its adapter");
    assert_eq!(gpu.stdout, cpu.stdout);
    assert_eq!(format!("{:?}", gpu.prints), format!("{:?}", cpu.prints), "values differ in some bit");
    for (g, c) in gpu.programs.iter().zip(&cpu.programs) {
        assert_eq!(g.counters, c.counters, "counters of {}", g.name);
    }
}

#[test]
fn json_report_has_the_documented_fields() {
    let report = run(BackendChoice::Cpu, Precision::Default);
    let json: serde_json::Value = serde_json::from_str(&report.to_json(false)).unwrap();
    assert_eq!(json["machine"], "v5e");
    assert_eq!(json["backend"], "cpu");
    assert!(json["adapter"].is_null());
    let item = &json["prints"][0][0];
    assert_eq!(item["shape"], serde_json::json!([3, 5]));
    assert_eq!(item["dtype"], "float32");
    assert_eq!(item["data"][0].as_f64().unwrap() as f32, 1.583_608_2);
    let f = &json["programs"][3];
    assert_eq!(f["name"], "f");
    for key in ["cycles", "flops", "hbm_bytes_read", "hbm_bytes_written", "mxu_busy_cycles"] {
        assert!(f["counters"][key].as_u64().unwrap() > 0, "{key}");
    }
    assert!(json.get("stdout").is_none(), "stdout is only in the detailed form");
}

/// The detailed form (the page's) adds each instruction's cycles, the timeline and the machine.
#[test]
fn detailed_json_has_the_listing_the_timeline_and_the_machine() {
    let report = run(BackendChoice::Cpu, Precision::Default);
    let json: serde_json::Value = serde_json::from_str(&report.to_json(true)).unwrap();
    assert_eq!(json["machine_info"]["mxus_per_core"], 4);
    assert_eq!(json["machine_info"]["peak_bf16_flops_per_core"].as_f64(), Some(196_608e9));
    let f = &json["programs"][3];
    let listing = f["listing"].as_array().unwrap();
    assert_eq!(listing.len(), report.programs[3].program.instrs.len());
    let matmul = listing.iter().find(|l| l["text"].as_str().unwrap().starts_with("mxu.matmul")).unwrap();
    assert_eq!(matmul["unit"], "mxu");
    assert_eq!((matmul["executions"].as_u64(), matmul["busy_cycles"].as_u64()), (Some(1), Some(3)));
    // Issued the cycle after its weights began shifting in, it waited for the other 127 rows.
    assert_eq!(matmul["wait_cycles"], 127, "{matmul}");
    let busy: u64 = listing.iter().filter(|l| l["unit"] == "mxu").map(|l| l["busy_cycles"].as_u64().unwrap()).sum();
    assert_eq!(busy, 128 + 3, "weights shifting and rows streaming");
    let timeline = &f["timeline"];
    let tracks: Vec<&str> = timeline["tracks"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    assert_eq!(tracks.len(), 3 + 4 + 2);
    let spans = timeline["spans"].as_array().unwrap();
    assert_eq!(timeline["truncated"], false);
    let cycles = f["counters"]["cycles"].as_u64().unwrap();
    for span in spans {
        let [instr, track, start, end] = [0, 1, 2, 3].map(|i| span[i].as_u64().unwrap());
        assert!((instr as usize) < listing.len() && (track as usize) < tracks.len(), "{span}");
        assert!(start < end && end <= cycles, "{span}");
    }
    let on = |name: &str| spans.iter().filter(|s| tracks[s[1].as_u64().unwrap() as usize] == name).count();
    assert_eq!((on("mxu0"), on("mxu1"), on("dma load"), on("dma store")), (2, 0, 2, 1));
}

#[test]
fn script_errors_carry_their_place() {
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let failure = pollster::block_on(Engine::new().run_script("x = 1\ny = x @ undefined_name\n", &opts)).unwrap_err();
    assert_eq!(failure.errors.len(), 1);
    let e = &failure.errors[0];
    assert_eq!((e.line, e.col), (2, 9), "{}", e.message);
    assert!(e.message.contains("undefined_name"), "{}", e.message);
}

/// A program larger than the machine's HBM is refused before it runs, with both sizes.
#[test]
fn programs_larger_than_hbm_are_refused_with_both_sizes() {
    let mut machine = emu::TpuConfig::v5e();
    machine.hbm_bytes = 1 << 20;
    let opts = RunOptions { backend: BackendChoice::Cpu, machine, ..RunOptions::default() };
    let script =
        "import jax\nimport jax.numpy as jnp\nf = jax.jit(lambda a: a * 2.0)\nprint(f(jnp.ones((512, 512))).sum())\n";
    let failure = pollster::block_on(Engine::new().run_script(script, &opts)).unwrap_err();
    let message = &failure.errors[0].message;
    assert!(message.contains("needs 2.0 MiB of HBM; v5e has 1.0 MiB per chip"), "{message}");
    assert_eq!((failure.errors[0].line, failure.errors[0].col), (4, 7));
}

/// int32 values travel as the exact float32 of the integer: within ±2^24 they are exact, and
/// beyond it the run stops with the reason, at the argument or at the result, rather than
/// printing a rounded integer.
#[test]
fn int32_beyond_two_to_the_24_is_refused_not_rounded() {
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let run = |script: &str| pollster::block_on(Engine::new().run_script(script, &opts));
    let header = "import jax\nimport jax.numpy as jnp\nf = jax.jit(lambda a: a * 2 - 1)\n";
    let ok = run(&format!("{header}print(f(jnp.array([8000000, -3])))\n")).unwrap();
    assert_eq!(ok.stdout, "[15999999       -7]\n");
    let failure = run(&format!("{header}print(f(jnp.array([20000000])))\n")).unwrap_err();
    assert!(failure.errors[0].message.contains("int32 argument holds 20000000, beyond ±2^24"), "{:?}", failure.errors);
    let failure = run(&format!("{header}print(f(jnp.array([9000000])))\n")).unwrap_err();
    assert!(
        failure.errors[0].message.contains("an int32 result is 18000000, outside the integers within ±2^24"),
        "{:?}",
        failure.errors
    );
}

/// A GPU device lost in the middle of a session (a driver reset; here `Device::destroy`): the
/// run that meets it fails with the reason, without a panic, and the next run uses the CPU and
/// says why. Needs a GPU adapter (lavapipe here), like the other GPU tests.
#[test]
fn a_lost_gpu_device_falls_back_to_the_cpu() {
    let opts = RunOptions { backend: BackendChoice::Gpu, ..RunOptions::default() };
    let mut engine = Engine::new();
    let first = pollster::block_on(engine.run_script(SCRIPT, &opts)).expect("a GPU adapter (lavapipe) runs the script");
    assert_eq!(first.backend, "gpu");
    engine.lose_gpu_device();
    let failure = pollster::block_on(engine.run_script(SCRIPT, &opts)).unwrap_err();
    let message = &failure.errors[0].message;
    assert!(message.contains("failed on the GPU: the GPU device was lost"), "{message}");
    assert!(message.contains("the next run will use the CPU backend"), "{message}");
    let next = pollster::block_on(engine.run_script(SCRIPT, &opts)).expect("the CPU takes over");
    assert_eq!(next.backend, "cpu");
    assert!(next.backend_reason.contains("the GPU failed in an earlier run"), "{}", next.backend_reason);
    assert_eq!(next.stdout, EXPECTED);
}
