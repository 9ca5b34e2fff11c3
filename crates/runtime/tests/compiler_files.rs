//! File tests in Cranelift's style: each `tests/compiler/NAME.py` runs on the CPU backend and
//! every jitted program it compiles is printed at the fused-graph and assembly stages; the text
//! must equal `tests/compiler/NAME.expected`. After an intended change, re-bless with
//! `UPDATE_EXPECT=1 cargo test -p runtime --test compiler_files` and review the diff.

use runtime::{BackendChoice, Engine, RunOptions};
use std::path::Path;

fn stages(source: &str) -> String {
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let report = pollster::block_on(Engine::new().run_script(source, &opts))
        .unwrap_or_else(|f| panic!("the script fails: {:?}", f.errors));
    let mut out = format!("; stdout\n{}", report.stdout);
    for p in report.programs.iter().filter(|p| !p.eager) {
        out.push_str(&format!("\n; {} (called {} time(s))\n{}\n{}", p.name, p.calls, p.fused.trim_end(), p.asm));
    }
    out
}

#[test]
fn compiler_file_tests() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/compiler");
    let bless = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 3, "the file tests are missing from {}", dir.display());
    let mut failures = Vec::new();
    for script in scripts {
        let got = stages(&std::fs::read_to_string(&script).unwrap());
        let expected = script.with_extension("expected");
        if bless {
            std::fs::write(&expected, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected) {
            Ok(want) if want == got => {}
            Ok(want) => {
                let first = want.lines().zip(got.lines()).position(|(a, b)| a != b).unwrap_or(want.lines().count());
                failures.push(format!(
                    "{}: differs from line {}:\n  expected: {}\n  got:      {}",
                    expected.display(),
                    first + 1,
                    want.lines().nth(first).unwrap_or("<end>"),
                    got.lines().nth(first).unwrap_or("<end>")
                ));
            }
            Err(_) => failures.push(format!("{} is missing (run with UPDATE_EXPECT=1)", expected.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
