//! The corpus of real public JAX programs in tests/wild (see its README): each runs through
//! the interpreter and the reference evaluator, at `highest` and at DEFAULT matmul precision,
//! and is compared with what JAX 0.10.2 printed (tolerance: see tests/jax/compare.rs). Lines a
//! program's header says depend on the run (times, addresses) are dropped from both outputs.

// Only the comparison is used here, not the fixture file it can load.
#[allow(dead_code)]
#[path = "../../../tests/jax/compare.rs"]
mod compare;

use jaxlite::eval::ReferenceExecutor;
use jaxlite::{Context, Precision};
use regex::Regex;
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Program {
    name: String,
    source_file: String,
    highest: String,
    default: String,
    error: Option<String>,
    default_error: Option<String>,
}

#[derive(Deserialize)]
struct Corpus {
    programs: Vec<Program>,
}

/// Programs that do not run or do not match yet, each with why. The test fails when one of
/// them starts passing, so this list only shrinks; docs/language.md gives the count.
const KNOWN_FAILURES: &[(&str, &str)] = &[
    (
        "jax_docs_new_101_transformations",
        "prints a vmap tracer's `.val` (JAX internals, as the page says); at DEFAULT a bf16 gradient of a dot \
         differs in its last bits first",
    ),
    (
        "jax_docs_new_201_debugging",
        "traceback.format_exc of a JAX error (CPython's traceback text through JAX's frames); before it, JAX \
         reorders the unordered debug prints inside lax.map, the playground keeps program order",
    ),
    (
        "course_jax_workshop_differentiability",
        "print(vjp_fun): JAX's repr of its internal pullback object, which shows the linearized jaxpr",
    ),
    ("course_jax_workshop_if_else", "help(): it prints JAX's docstring of lax.switch"),
    (
        "course_jax_workshop_mala",
        "DEFAULT: Metropolis accept/reject turns bf16 last-bit differences into different samples",
    ),
    ("course_jax_workshop_prngkey_vs_global_seed", "jax.random.key(0, impl='rbg'): RBG keys"),
    (
        "course_recode_hamiltonian_systems",
        "a chaotic three-body orbit integrated for 2,000 steps turns a last-bit difference at the first step into \
         another trajectory (the oscillator's odeint solution matches)",
    ),
    ("course_sysid_lyon_jax_intro", "float32 finite differences (eps = 1e-5) of a mean amplify its last-bit rounding"),
    ("jax_docs_complex_differentiation", "complex numbers"),
    (
        "jax_docs_neural_network_and_data_loading",
        "DEFAULT: a bf16 last-bit difference flips one example's argmax (training accuracy 0.1133 where JAX has 0.1094)",
    ),
    (
        "jax_example_advi",
        "float32 drift over 30 Monte Carlo optimizer steps: 2e-4 relative at the end, over the 1e-4 tolerance",
    ),
    (
        "jax_example_kernel_lsq",
        "float32 drift: the MSE differs by 5e-6 relative after the optimisation, over the tolerance",
    ),
    ("mini_hmc_jax", "float32 drift through HMC: 3e-5 absolute on a value near zero, over the 1e-5 tolerance"),
    ("montecarlo_demo_hmc_class", "DEFAULT: bf16 rounding differences compound through 50 leapfrog steps per sample"),
    ("tutorial_neoneuron_jax_basics", "an array's .device, then jax_enable_x64 (float64 on the device)"),
    ("jax_docs_autodiff_cookbook", "a float32 finite difference (eps = 1e-4) magnifies a last-bit difference of the loss; further on, complex numbers"),
    (
        "course_quantecon_newtons_method",
        "jnp.linalg.solve of a 500×500 system: the playground's linear algebra unrolls at most 64×64",
    ),
    ("tutorial_bonney_matrix_jit", "scipy.linalg (generalised eigenvalues) and complex eigenvalues"),
    (
        "course_quantecon_wealth_dynamics",
        "jnp.sort of 10,000 values: the playground sorts by counting (n² comparisons, at most 16,777,216), with no \
         sort primitive yet",
    ),
    (
        "tutorial_pensoneault_hmc_bpinn",
        "DEFAULT: bf16 rounding turns HMC accept/reject decisions (the highest run matches)",
    ),
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/wild")
}

fn run(script: &str, precision: Precision) -> (String, Option<String>) {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    ctx.default_precision = precision;
    match pollster::block_on(lang::run_script(script, &mut ctx)) {
        Ok(out) => (out.stdout, None),
        Err(f) => (f.output.stdout, Some(f.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))),
    }
}

/// `# Ignore lines matching: REGEX` from the program's header.
fn ignored_lines(source: &str) -> Option<Regex> {
    let pattern =
        source.lines().take_while(|l| l.starts_with('#')).find_map(|l| l.strip_prefix("# Ignore lines matching: "))?;
    Some(Regex::new(pattern).expect("the header's pattern is a valid regex"))
}

fn without(text: &str, ignore: &Option<Regex>) -> String {
    match ignore {
        Some(re) => text.lines().filter(|l| !re.is_match(l)).map(|l| format!("{l}\n")).collect(),
        None => text.to_string(),
    }
}

/// Where a run differs from JAX's, or `None`.
fn difference(program: &Program, source: &str, precision: Precision) -> Option<String> {
    let (expected, jax_error) = match precision {
        Precision::Default => (&program.default, program.default_error.as_ref().or(program.error.as_ref())),
        _ => (&program.highest, program.error.as_ref()),
    };
    let ignore = ignored_lines(source);
    let (ours, error) = run(source, precision);
    let fixture = compare::Fixture {
        name: program.name.clone(),
        script: String::new(),
        highest: String::new(),
        default: String::new(),
        error: None,
        stderr: None,
    };
    let printed = compare::compare(
        &fixture,
        &without(&ours, &ignore),
        &without(expected, &ignore),
        precision == Precision::Default,
    );
    match (error, jax_error) {
        (Some(e), None) => Some(format!("failed with {e}")),
        (None, Some(e)) => Some(format!("JAX raised {e}; the playground did not")),
        (Some(ours), Some(theirs)) if !ours.contains(theirs.split(':').next().unwrap_or_default()) => {
            Some(format!("raised {ours}; JAX raised {theirs}"))
        }
        _ => printed,
    }
}

#[test]
fn wild_programs_match_jax() {
    let text = std::fs::read_to_string(dir().join("expected.json")).expect("tests/wild/expected.json");
    let corpus: Corpus = serde_json::from_str(&text).expect("expected.json parses");
    assert!(corpus.programs.len() >= 40, "the corpus holds at least 40 programs");
    // `WILD=name,name` runs only those programs and prints how each differs (for working on one).
    let only: Option<Vec<String>> = std::env::var("WILD").ok().map(|v| v.split(',').map(str::to_string).collect());
    let chosen = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name));
    let mut failures: Vec<(String, String)> = Vec::new();
    for program in corpus.programs.iter().filter(|p| chosen(&p.name)) {
        let source = std::fs::read_to_string(dir().join(&program.source_file)).expect("program source");
        for precision in [Precision::Highest, Precision::Default] {
            if let Some(diff) = difference(program, &source, precision) {
                failures.push((program.name.clone(), format!("{} ({}): {diff}", program.name, precision.name())));
                break;
            }
        }
    }
    let failed = |name: &str| failures.iter().any(|(n, _)| n == name);
    if only.is_some() {
        for (_, f) in &failures {
            eprintln!("{f}\n");
        }
    }
    let now_passing: Vec<&str> = KNOWN_FAILURES.iter().map(|(n, _)| *n).filter(|n| chosen(n) && !failed(n)).collect();
    let unexpected: Vec<&str> =
        failures.iter().filter(|(n, _)| !KNOWN_FAILURES.iter().any(|(k, _)| k == n)).map(|(_, f)| f.as_str()).collect();
    // Both lists at once, so that one run says everything to change.
    assert!(
        now_passing.is_empty() && unexpected.is_empty(),
        "these programs pass now; remove them from KNOWN_FAILURES: {now_passing:?}\n\n{} of {} programs differ from JAX ({} known):\n\n{}",
        failures.len(),
        corpus.programs.len(),
        KNOWN_FAILURES.len(),
        unexpected.join("\n\n")
    );
}
