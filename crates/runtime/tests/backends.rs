//! The GPU backend against the CPU backend on every example and every JAX fixture script:
//! the same printed output, the same values to the bit, the same counters. Issue 6's "every
//! example and test program runs on both backends with identical output", on whatever adapter
//! the machine has (lavapipe in CI; `cargo xtask`-built binaries carried to real GPUs too).

#[path = "../../../tests/jax/compare.rs"]
#[allow(dead_code)]
mod compare;

use jaxlite::Precision;
use runtime::{BackendChoice, Engine, RunOptions};
use std::path::Path;

/// Runs `script` on both backends of one engine (so the GPU's pipelines are built once) and
/// returns a description of the first difference, if any.
fn difference(engine: &mut Engine, script: &str, precision: Precision) -> Option<String> {
    let run = |engine: &mut Engine, backend| {
        let opts = RunOptions { backend, precision, ..RunOptions::default() };
        pollster::block_on(engine.run_script(script, &opts))
    };
    let cpu = run(engine, BackendChoice::Cpu);
    let gpu = run(engine, BackendChoice::Gpu);
    match (cpu, gpu) {
        (Ok(cpu), Ok(gpu)) => {
            if gpu.backend != "gpu" {
                return Some(format!("ran on {} instead of the GPU", gpu.backend));
            }
            if gpu.stdout != cpu.stdout {
                return Some(format!("printed\n{}\non the GPU but\n{}\non the CPU", gpu.stdout, cpu.stdout));
            }
            if format!("{:?}", gpu.prints) != format!("{:?}", cpu.prints) {
                return Some("printed values differ in some bit".into());
            }
            for (g, c) in gpu.programs.iter().zip(&cpu.programs) {
                if g.counters != c.counters {
                    return Some(format!("counters of {} differ: {:?} vs {:?}", g.name, g.counters, c.counters));
                }
            }
            None
        }
        // Scripts that JAX rejects fail the same way on both.
        (Err(cpu), Err(gpu)) => {
            let text = |f: &runtime::RunFailure| f.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n");
            (text(&cpu) != text(&gpu)).then(|| format!("errors differ: {} vs {}", text(&gpu), text(&cpu)))
        }
        (Ok(_), Err(gpu)) => Some(format!("failed on the GPU only: {:?}", gpu.errors)),
        (Err(cpu), Ok(_)) => Some(format!("failed on the CPU only: {:?}", cpu.errors)),
    }
}

#[test]
fn every_example_and_fixture_is_identical_on_gpu_and_cpu() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut scripts: Vec<(String, String, Precision)> = Vec::new();
    let mut examples: Vec<_> = std::fs::read_dir(root.join("examples")).expect("examples/").flatten().collect();
    examples.sort_by_key(|e| e.file_name());
    for e in examples {
        let source = std::fs::read_to_string(e.path()).expect("readable example");
        let name = e.file_name().to_string_lossy().into_owned();
        scripts.push((name.clone(), source.clone(), Precision::Default));
        scripts.push((name, source, Precision::Highest));
    }
    for f in compare::load() {
        scripts.push((f.name.clone(), f.script.clone(), Precision::Default));
    }
    assert!(scripts.len() > 100, "examples and fixtures are missing");
    let mut engine = Engine::new();
    let differences: Vec<String> = scripts
        .iter()
        .filter_map(|(name, script, precision)| {
            difference(&mut engine, script, *precision).map(|d| format!("{name} at {precision:?}: {d}"))
        })
        .collect();
    assert!(
        differences.is_empty(),
        "{} of {} runs differ:\n{}",
        differences.len(),
        scripts.len(),
        differences.join("\n\n")
    );
}
