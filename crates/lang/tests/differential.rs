//! Differential tests against the real thing: each script in tests/python runs here and under
//! CPython 3.11, each in tests/numpy here and under CPython with NumPy 2 and JAX (both recorded
//! by the folder's generate.py); both must print the same standard output and standard error,
//! character for character, and end with the same exception type and message.

use jaxlite::eval::ReferenceExecutor;
use jaxlite::Context;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Expected {
    stdout: String,
    stderr: String,
    /// The traceback's last line, "Kind: message".
    error: Option<String>,
}

#[test]
fn python_scripts_behave_as_under_cpython() {
    compare_with_recorded("python", 6, "CPython");
}

#[test]
fn numpy_scripts_behave_as_under_numpy() {
    compare_with_recorded("numpy", 7, "NumPy");
}

/// Runs every script of tests/`folder` and compares it with what `reference` printed.
fn compare_with_recorded(folder: &str, at_least: usize, reference: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests").join(folder);
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("the folder's expected.json");
    let expected: BTreeMap<String, Expected> = serde_json::from_str(&text).expect("expected.json parses");
    let scripts: Vec<String> = std::fs::read_dir(&dir)
        .expect("the scripts' folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".py").map(str::to_string))
        .filter(|name| name != "generate")
        .collect();
    assert!(scripts.len() >= at_least, "the scripts are missing: {scripts:?}");
    let mut failures = Vec::new();
    for name in scripts {
        let Some(want) = expected.get(&name) else {
            failures.push(format!("{name}: not recorded; run tests/{folder}/generate.py"));
            continue;
        };
        let source = std::fs::read_to_string(dir.join(format!("{name}.py"))).expect("script");
        let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
        let (output, error) = match pollster::block_on(lang::run_script(&source, &mut ctx)) {
            Ok(out) => (out, None),
            Err(f) => {
                let messages: Vec<String> = f.errors.iter().map(|e| e.message.clone()).collect();
                (f.output, Some(messages.join("\n")))
            }
        };
        if output.stdout != want.stdout {
            failures
                .push(format!("{name}: stdout differs\n{}", first_difference(reference, &want.stdout, &output.stdout)));
        }
        if output.stderr != want.stderr {
            failures
                .push(format!("{name}: stderr differs\n{}", first_difference(reference, &want.stderr, &output.stderr)));
        }
        if error != want.error {
            failures.push(format!("{name}: {reference} ends with {:?}, the playground with {error:?}", want.error));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The first line where two outputs part, with its number.
fn first_difference(reference: &str, theirs: &str, ours: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (theirs.lines().collect(), ours.lines().collect());
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)).unwrap_or(0);
    format!("line {}:\n  {reference}: {:?}\n  playground: {:?}", i + 1, a.get(i), b.get(i))
}
