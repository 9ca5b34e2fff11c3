//! The native benchmarks, printed as a table (`--json` for one JSON object): what
//! docs/benchmarks.md records. Numbers for speed live here, never in tests.
//!
//! - Matmul throughput: an n×n×n jitted matmul at DEFAULT precision (one bf16 MXU pass, f32
//!   accumulation, bit-exact with the reference), compiled once, then run on each backend with
//!   its inputs uploaded and its result read back; median of several runs after a warm-up;
//!   GFLOP/s of useful work (2n³ / s), beside the CPU's peak.
//! - Emulation speed and time to result: each example script (examples/*.py) end to end on each
//!   backend (parse, trace, compile, run, print); emulated TPU cycles per wall-clock second.
//! - Loops: a jitted scan of 100 and of 100,000 steps, each program's compile time and size
//!   (the same for both: the body is compiled once) beside the time to result.
//! - Fidelity: the emulated v5e's time for matmuls whose time on a real v5e is published,
//!   timed without values, beside the published time.
//! - The wasm module's size, raw and gzipped, when web/pkg holds a build.

use emu::{Backend, CpuBackend};
use runtime::{BackendChoice, Engine, RunOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs `f` `runs` times after one warm-up; the median wall time in seconds.
fn median_seconds(runs: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// The host CPU's peak float32 rate: cores × SIMD lanes × 2 (a fused multiply-add) × FMA units
/// × clock, assuming two FMA units per core (every x86 core since Haswell and Zen 2).
fn cpu_peak() -> (String, f64) {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines().find(|l| l.starts_with(name)).and_then(|l| l.split(':').nth(1)).map(|v| v.trim().to_string())
    };
    let model = field("model name").unwrap_or_else(|| "unknown CPU".into());
    let mhz: f64 = field("cpu MHz").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let flags = field("flags").unwrap_or_default();
    let lanes = if flags.contains("avx512f") {
        16.0
    } else if flags.contains("avx2") {
        8.0
    } else {
        4.0
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    (model, cores * lanes * 2.0 * 2.0 * mhz * 1e6)
}

/// XLA's `jnp.matmul` of two bf16 n×n squares on a v5e, as the JAX documentation's Pallas TPU
/// matmul guide times it (`timeit` of the jitted call, so Python's dispatch is in it):
/// docs/pallas/tpu/matmul.ipynb in jax-ml/jax, cell "XLA matmul". (n, milliseconds).
const PUBLISHED_MATMULS: &[(usize, f64)] = &[(1024, 0.11943), (4096, 0.82729), (8192, 6.04715)];
const PUBLISHED_SOURCE: &str = "JAX Pallas TPU matmul guide, XLA matmul";

struct Row {
    what: String,
    backend: String,
    value: f64,
    unit: &'static str,
    note: String,
}

fn main() {
    // `--json`; `--browser FILE`: the browser half's result to merge (see `cargo xtask bench`).
    let json = std::env::args().any(|a| a == "--json");
    // The workspace this binary was built in, or the current directory when the binary was
    // carried elsewhere (a machine with another GPU).
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = if built_in.join("examples").is_dir() { built_in } else { PathBuf::from(".") };
    let mut rows: Vec<Row> = Vec::new();
    let (cpu_model, peak) = cpu_peak();
    let mut gpu = pollster::block_on(gpu::GpuBackend::new()).ok();
    let adapter = gpu.as_ref().and_then(|g| g.adapter()).unwrap_or_else(|| "none".into());
    eprintln!("cpu: {cpu_model}; gpu adapter: {adapter}");

    let mut matmuls: Vec<serde_json::Value> = Vec::new();
    // A hardware GPU also gets the sizes the CPU backend would take seconds over.
    let sizes: &[usize] = match &gpu {
        Some(g) if !g.is_software() => &[128, 256, 512, 1024, 2048, 4096],
        _ => &[128, 256, 512, 1024],
    };
    for &n in sizes {
        let program = runtime::benchmark::matmul_program(n).expect("a square matmul compiles");
        let inputs = runtime::benchmark::matmul_inputs(n);
        let flops = 2.0 * (n as f64).powi(3);
        let runs = if n >= 1024 { 3 } else { 5 };
        let mut want = None;
        if n <= 1024 {
            want = Some(CpuBackend.run_sync(&program, &inputs).expect("the CPU backend runs it"));
            let t = median_seconds(runs, || {
                CpuBackend.run_sync(&program, &inputs).expect("the CPU backend runs it");
            });
            let gflops = flops / t / 1e9;
            matmuls.push(serde_json::json!({"where": "native-cpu", "impl": "tpu-playground", "n": n,
                "gflops": gflops, "adapter": cpu_model}));
            rows.push(Row {
                what: format!("matmul {n}³ (DEFAULT)"),
                backend: "cpu".into(),
                value: gflops,
                unit: "GFLOP/s",
                note: format!("{:.1} % of the CPU's peak", 100.0 * flops / t / peak),
            });
        }
        if let Some(g) = gpu.as_mut() {
            let got = pollster::block_on(g.run_program(&program, &inputs)).expect("the GPU backend runs it").outputs;
            // A fast wrong answer is no result: the GPU must give the CPU's bits, and a row
            // says loudly when it does not.
            let exact = want.as_ref().map(|w| *w == got);
            let wrong = if exact == Some(false) { "; WRONG: differs from the CPU backend" } else { "" };
            // Software adapters are slow: the largest sizes once is enough there.
            let runs = if g.is_software() && n >= 512 { 1 } else { runs };
            let t = median_seconds(runs, || {
                pollster::block_on(g.run_program(&program, &inputs)).expect("the GPU backend runs it");
            });
            let gflops = flops / t / 1e9;
            matmuls.push(serde_json::json!({"where": "native-gpu", "impl": "tpu-playground", "n": n,
                "gflops": gflops, "adapter": adapter, "same_bits_as_cpu": exact}));
            rows.push(Row {
                what: format!("matmul {n}³ (DEFAULT)"),
                backend: "gpu".into(),
                value: gflops,
                unit: "GFLOP/s",
                note: format!("{adapter}{wrong}"),
            });
        }
    }
    rows.push(Row {
        what: "CPU peak (f32, 2 FMA units per core)".into(),
        backend: "host".into(),
        value: peak / 1e9,
        unit: "GFLOP/s",
        note: cpu_model.clone(),
    });

    // The browser half, when `cargo xtask bench` ran it (web/bench/run.mjs): its rows as they
    // are, and the page's time to first result.
    let mut first_result_ms = serde_json::Value::Null;
    if let Some(path) = std::env::args().skip_while(|a| a != "--browser").nth(1) {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        let browser: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not the browser benchmark's JSON: {e}"));
        for m in browser["matmul"].as_array().into_iter().flatten() {
            let (place, implementation) = (m["where"].as_str().unwrap_or("?"), m["impl"].as_str().unwrap_or("?"));
            let precision = if implementation == "tpu-playground" { "DEFAULT" } else { "f32" };
            let note = match m["error"].as_str() {
                Some(e) => format!("{implementation}: {e}"),
                None => format!("{implementation}; {}", m["adapter"].as_str().unwrap_or("")),
            };
            rows.push(Row {
                what: format!("matmul {}³ ({precision})", m["n"]),
                backend: place.into(),
                value: m["gflops"].as_f64().unwrap_or(f64::NAN),
                unit: "GFLOP/s",
                note,
            });
            matmuls.push(m.clone());
        }
        first_result_ms = browser["first_result_ms"].clone();
        if let Some(ms) = first_result_ms.as_f64() {
            rows.push(Row {
                what: "first result after page load".into(),
                backend: "chromium-wasm".into(),
                value: ms,
                unit: "ms",
                note: "navigation start to the first 128³ matmul's result (bench.html)".into(),
            });
        }
    }

    // Examples end to end: time to result and emulated cycles per second.
    let mut names: Vec<String> = std::fs::read_dir(root.join("examples"))
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".py").map(String::from)).collect())
        .unwrap_or_default();
    names.sort();
    let mut sim_cycles = serde_json::json!({});
    for name in &names {
        sim_cycles[name.as_str()] = serde_json::json!({});
    }
    let backends: &[(BackendChoice, &str)] = if gpu.is_some() {
        &[(BackendChoice::Cpu, "cpu"), (BackendChoice::Gpu, "gpu")]
    } else {
        &[(BackendChoice::Cpu, "cpu")]
    };
    drop(gpu);
    for name in &names {
        let source = std::fs::read_to_string(root.join("examples").join(format!("{name}.py"))).unwrap_or_default();
        for &(choice, label) in backends {
            let mut engine = Engine::new();
            let opts = RunOptions { backend: choice, ..RunOptions::default() };
            let t = Instant::now();
            let report = match pollster::block_on(engine.run_script(&source, &opts)) {
                Ok(r) => r,
                Err(f) => {
                    eprintln!("{name} on {label}: {:?}", f.errors);
                    continue;
                }
            };
            let seconds = t.elapsed().as_secs_f64();
            let cycles: u64 = report.programs.iter().map(|p| p.counters.cycles * p.calls).sum();
            sim_cycles[name.as_str()][label] = serde_json::json!(cycles as f64 / seconds);
            rows.push(Row {
                what: format!("example {name}"),
                backend: label.into(),
                value: seconds * 1e3,
                unit: "ms to result",
                note: format!("{:.3e} emulated cycles/s", cycles as f64 / seconds),
            });
        }
    }

    // Fidelity: the emulated v5e's time for programs whose time on a real v5e is published,
    // timed without values (docs/timing.md explains each gap).
    let mut fidelity: Vec<serde_json::Value> = Vec::new();
    for &(n, published_ms) in PUBLISHED_MATMULS {
        // Compiling times the program on the default machine, a v5e, without values.
        let script = format!(
            "import jax\nimport jax.numpy as jnp\nbf = jax.ShapeDtypeStruct(({n}, {n}), jnp.bfloat16)\n\
             jax.jit(jnp.matmul).lower(bf, bf).compile()\n"
        );
        let what = format!("jnp.matmul bf16 {n}³");
        let report = pollster::block_on(Engine::new().run_script(&script, &RunOptions::default()))
            .unwrap_or_else(|f| panic!("{what}: {:?}", f.errors));
        let emulated_ms: f64 = report.programs.iter().map(|p| p.counters.seconds).sum::<f64>() * 1e3;
        fidelity.push(serde_json::json!({"what": what, "emulated_ms": emulated_ms,
            "published_ms": published_ms, "source": PUBLISHED_SOURCE}));
        rows.push(Row {
            what: format!("v5e {what}"),
            backend: "emulated".into(),
            value: emulated_ms,
            unit: "ms",
            note: format!(
                "published {published_ms:.4} ms ({PUBLISHED_SOURCE}): emulated / published = {:.2}",
                emulated_ms / published_ms
            ),
        });
    }

    // Loops: a jitted scan of 100 and of 100,000 steps compiles to the same programs in about
    // the same time; only the body's calls grow (issue 28).
    let mut scans: Vec<serde_json::Value> = Vec::new();
    for steps in [100usize, 100_000] {
        let source = format!(
            "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n@jax.jit\ndef running(xs):\n    \
             return lax.scan(lambda c, x: (c * 0.5 + jnp.sin(x), c), 0.0, xs)\n\n\
             total, ys = running(jnp.arange({steps}, dtype=jnp.float32) / {steps})\nprint(total)\n"
        );
        let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
        let t = Instant::now();
        let report = match pollster::block_on(Engine::new().run_script(&source, &opts)) {
            Ok(r) => r,
            Err(f) => {
                eprintln!("scan of {steps} steps: {:?}", f.errors);
                continue;
            }
        };
        let result_ms = t.elapsed().as_secs_f64() * 1e3;
        let looped: Vec<_> = report.programs.iter().filter(|p| p.name.starts_with("running")).collect();
        let compile_ms: f64 = looped.iter().map(|p| p.compile_ms).sum();
        let instructions: usize = looped.iter().map(|p| p.program.instrs.len()).sum();
        let body_calls = looped.iter().find(|p| p.name.ends_with("/body")).map_or(0, |p| p.calls);
        scans.push(serde_json::json!({"steps": steps, "compile_ms": compile_ms, "instructions": instructions,
            "programs": looped.len(), "body_calls": body_calls, "result_ms": result_ms}));
        rows.push(Row {
            what: format!("jit scan of {steps} steps"),
            backend: "cpu".into(),
            value: compile_ms,
            unit: "ms to compile",
            note: format!(
                "{instructions} instructions in {} programs; body called {body_calls} times; {result_ms:.0} ms to result",
                looped.len()
            ),
        });
    }

    // Many chips: the data-parallel example on one v5e chip and on a v5e-8, the cost of
    // emulating eight chips against one (issue 29 asks for at most 10×; each chip's programs
    // run one after another on this machine).
    let mut slices = serde_json::json!({});
    let data_parallel = std::fs::read_to_string(root.join("examples/data_parallel.py")).unwrap_or_default();
    let mut emulated = Vec::new();
    for machine in ["v5e", "v5e-8"] {
        let opts = RunOptions {
            backend: BackendChoice::Cpu,
            machine: emu::TpuConfig::from_name(machine).expect("a preset"),
            ..RunOptions::default()
        };
        let mut failed = false;
        let seconds = median_seconds(3, || {
            failed |= pollster::block_on(Engine::new().run_script(&data_parallel, &opts)).is_err();
        });
        if failed {
            eprintln!("data_parallel on {machine} failed");
            continue;
        }
        slices[machine] = serde_json::json!(seconds * 1e3);
        emulated.push(seconds);
        rows.push(Row {
            what: format!("example data_parallel on {machine}"),
            backend: "cpu".into(),
            value: seconds * 1e3,
            unit: "ms to result",
            note: String::new(),
        });
    }
    if let [one, eight] = emulated[..] {
        slices["eight_over_one"] = serde_json::json!(eight / one);
        rows.push(Row {
            what: "emulating 8 chips / 1 chip (data_parallel)".into(),
            backend: "cpu".into(),
            value: eight / one,
            unit: "×",
            note: "the goal is at most 10×".into(),
        });
    }

    // The wasm module, when built.
    let mut wasm_bytes = (serde_json::Value::Null, serde_json::Value::Null);
    if let Some(wasm) = std::fs::read_dir(root.join("web/pkg"))
        .ok()
        .and_then(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "wasm")))
    {
        let raw = std::fs::metadata(&wasm).map_or(0, |m| m.len());
        let gzipped = std::process::Command::new("gzip")
            .args(["-9", "-c"])
            .arg(&wasm)
            .output()
            .map_or(0, |o| o.stdout.len() as u64);
        wasm_bytes = (raw.into(), gzipped.into());
        rows.push(Row {
            what: "wasm module".into(),
            backend: "web".into(),
            value: raw as f64 / 1024.0,
            unit: "KiB",
            note: format!("{:.0} KiB gzipped (gzip -9)", gzipped as f64 / 1024.0),
        });
    }

    if json {
        let items: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                serde_json::json!({"what": r.what, "backend": r.backend, "value": r.value, "unit": r.unit, "note": r.note})
            })
            .collect();
        // The shape issue 10 names; `first_result_ms` is measured in the browser, not here.
        println!(
            "{}",
            serde_json::json!({"matmul": matmuls, "wasm_bytes": wasm_bytes.0, "wasm_gzip_bytes": wasm_bytes.1,
                "first_result_ms": first_result_ms, "sim_cycles_per_second": sim_cycles, "scan": scans,
                "fidelity": fidelity, "slices_ms": slices,
                "cpu": cpu_model, "adapter": adapter, "rows": items})
        );
    } else {
        println!("| benchmark | backend | value | unit | note |");
        println!("| --- | --- | ---: | --- | --- |");
        for r in &rows {
            println!("| {} | {} | {:.2} | {} | {} |", r.what, r.backend, r.value, r.unit, r.note);
        }
    }
}
