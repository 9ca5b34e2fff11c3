//! Every program in `tests/jax/fixtures.json` through the real pipeline (`Engine`, compiler,
//! emulator, CPU backend) at DEFAULT and at `highest`, compared with what real JAX printed
//! (tolerance: see `tests/jax/compare.rs`).
//!
//! The compiler does not lower every primitive yet. The fixtures that fail for that reason are
//! listed in `NOT_LOWERED`; each must still fail with the compiler's "... supported by the
//! compiler yet" error, and
//! the test fails when one starts passing, so the list only shrinks. It is never a silent skip.

#[path = "../../../tests/jax/compare.rs"]
mod compare;

use jaxlite::Precision;
use runtime::{BackendChoice, Engine, RunOptions};

/// Fixtures that need a primitive the compiler cannot lower yet.
const NOT_LOWERED: &[&str] = &[];

/// Fixtures that fail on the reference evaluator too (see `crates/lang/tests/fixtures.rs`).
const KNOWN_FAILURES: &[&str] = &[];

enum Outcome {
    Pass,
    NotLowered,
    Differs(String),
}

fn run(f: &compare::Fixture, precision: Precision, expected: &str) -> Outcome {
    let opts = RunOptions { backend: BackendChoice::Cpu, precision, ..RunOptions::default() };
    let default = precision == Precision::Default;
    match (pollster::block_on(Engine::new().run_script(&f.script, &opts)), &f.error) {
        (Ok(report), None) => match compare::compare(f, &report.stdout, expected, default) {
            None => Outcome::Pass,
            Some(d) => Outcome::Differs(d),
        },
        (Ok(report), Some(e)) => Outcome::Differs(format!("JAX raised {e}, we printed {}", report.stdout)),
        (Err(failure), error) => {
            let msg: Vec<String> = failure.errors.iter().map(|e| e.to_string()).collect();
            let msg = msg.join("\n");
            if msg.contains("supported by the compiler yet") {
                Outcome::NotLowered
            } else if error.is_some() {
                match compare::compare(f, &failure.stdout, expected, default) {
                    None => Outcome::Pass,
                    Some(d) => Outcome::Differs(d),
                }
            } else {
                Outcome::Differs(msg)
            }
        }
    }
}

#[test]
fn fixtures_match_jax_through_the_compiler_and_emulator() {
    let fixtures = compare::load();
    let mut not_lowered = Vec::new();
    let mut differs = Vec::new();
    for f in &fixtures {
        for (precision, expected) in [(Precision::Highest, &f.highest), (Precision::Default, &f.default)] {
            match run(f, precision, expected) {
                Outcome::Pass => {}
                Outcome::NotLowered => {
                    if !not_lowered.contains(&f.name) {
                        not_lowered.push(f.name.clone());
                    }
                }
                Outcome::Differs(d) => {
                    if !KNOWN_FAILURES.contains(&f.name.as_str()) {
                        differs.push(format!("{} ({}): {d}", f.name, precision.name()));
                    }
                }
            }
        }
    }
    let newly_lowered: Vec<&&str> = NOT_LOWERED.iter().filter(|n| !not_lowered.iter().any(|m| m == *n)).collect();
    let unlisted: Vec<&String> = not_lowered.iter().filter(|n| !NOT_LOWERED.contains(&n.as_str())).collect();
    assert!(
        newly_lowered.is_empty(),
        "these fixtures are lowered now; remove them from NOT_LOWERED: {newly_lowered:?}"
    );
    assert!(
        unlisted.is_empty(),
        "these fixtures need primitives the compiler cannot lower; list them in NOT_LOWERED: {unlisted:?}"
    );
    assert!(differs.is_empty(), "{} runs differ from JAX:\n\n{}", differs.len(), differs.join("\n\n"));
}
