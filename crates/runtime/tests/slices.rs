//! Programs for many chips (`jax.pmap` and its collectives) on a v5e-8, against what real JAX
//! printed with 8 CPU devices (`tests/jax/slice_fixtures.json`, made by `tests/jax/slices.py`),
//! and what a mapped call reports: each chip's programs, each collective timed over the links.

#[path = "../../../tests/jax/compare.rs"]
mod compare;

use jaxlite::Precision;
use runtime::{BackendChoice, Engine, MappedStep, RunOptions, RunReport};

fn options(machine: &str, precision: Precision) -> RunOptions {
    RunOptions {
        backend: BackendChoice::Cpu,
        precision,
        machine: emu::TpuConfig::from_name(machine).unwrap(),
        ..RunOptions::default()
    }
}

fn run(script: &str, machine: &str) -> RunReport {
    match pollster::block_on(Engine::new().run_script(script, &options(machine, Precision::Highest))) {
        Ok(r) => r,
        Err(f) => panic!("{:?}\n{}", f.errors, f.stdout),
    }
}

#[test]
fn slice_fixtures_match_jax_on_a_v5e_8() {
    let mut differs = Vec::new();
    for f in compare::load_slices() {
        for (precision, expected) in [(Precision::Highest, &f.highest), (Precision::Default, &f.default)] {
            let default = precision == Precision::Default;
            let outcome = pollster::block_on(Engine::new().run_script(&f.script, &options("v5e-8", precision)));
            let problem = match (outcome, &f.error) {
                (Ok(report), None) => compare::compare(&f, &report.stdout, expected, default),
                (Ok(report), Some(e)) => Some(format!("JAX raised {e}, we printed {}", report.stdout)),
                (Err(failure), Some(e)) => {
                    let ours: Vec<String> = failure.errors.iter().map(|e| e.message.clone()).collect();
                    let kind = e.split(':').next().unwrap_or_default();
                    let same_kind = ours.iter().any(|m| m.starts_with(kind));
                    compare::compare(&f, &failure.stdout, expected, default)
                        .or_else(|| (!same_kind).then(|| format!("JAX raised {e}, we raised {ours:?}")))
                }
                (Err(failure), None) => Some(format!("{:?}", failure.errors)),
            };
            if let Some(p) = problem {
                differs.push(format!("{} ({}): {p}", f.name, precision.name()));
            }
        }
    }
    assert!(differs.is_empty(), "{} runs differ from JAX:\n\n{}", differs.len(), differs.join("\n\n"));
}

const DATA_PARALLEL: &str = "
import jax, jax.numpy as jnp
from jax import lax
def step(w, x):
    g = jax.grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
    return w - 0.1 * lax.pmean(g, 'batch')
w = jnp.ones((8, 256, 256)) / 256.0
x = jnp.ones((8, 64, 256))
for _ in range(2):
    w = jax.pmap(step, axis_name='batch')(w, x)
";

#[test]
fn a_data_parallel_step_costs_the_chips_step_plus_its_all_reduce() {
    let report = run(DATA_PARALLEL, "v5e-8");
    assert_eq!(report.mapped.len(), 1, "{:?}", report.mapped);
    let m = &report.mapped[0];
    assert_eq!((m.name.as_str(), m.calls, m.chips), ("pmap_step", 2, 8));
    // Programs before and after the gradient's all-reduce, which every chip runs.
    let programs: Vec<&MappedStep> = m.steps.iter().filter(|s| matches!(s, MappedStep::Program { .. })).collect();
    assert_eq!(programs.len(), 2, "{:?}", m.steps);
    let collectives: Vec<&MappedStep> = m.steps.iter().filter(|s| matches!(s, MappedStep::Collective { .. })).collect();
    let [MappedStep::Collective { primitive, hlo, bytes_per_chip, cycles, .. }] = collectives.as_slice() else {
        panic!("one collective: {:?}", m.steps)
    };
    assert_eq!((*primitive, *hlo), ("psum", "all-reduce"));
    assert_eq!(*bytes_per_chip, 256 * 256 * 4);
    // The all-reduce of a 256 KiB gradient over v5e-8's 2x4 mesh, as the ICI model times it.
    let machine = emu::TpuConfig::from_name("v5e-8").unwrap();
    let alone = emu::collective_time(
        &machine,
        &emu::Collective {
            kind: emu::CollectiveKind::AllReduce,
            group: (0..8).collect(),
            bytes_per_chip: 256 * 256 * 4,
            pairs: vec![],
        },
    )
    .unwrap();
    assert_eq!(*cycles, alone.cycles);
    let compute: u64 = programs
        .iter()
        .map(|s| match s {
            MappedStep::Program { program, cycles, .. } => {
                assert_eq!(report.programs[*program].counters.cycles, *cycles);
                *cycles
            }
            _ => 0,
        })
        .sum();
    assert_eq!(m.compute_cycles, compute);
    assert_eq!(m.cycles, compute + alone.cycles);
    assert_eq!(m.exposed_collective_cycles, alone.cycles);
    assert!(m.ici_bytes_sent > 0.0 && !m.links.is_empty());
    // Every chip ran each program once per call.
    for s in &programs {
        if let MappedStep::Program { program, .. } = s {
            assert_eq!(report.programs[*program].calls, 2 * 8);
        }
    }
    let json: serde_json::Value = serde_json::from_str(&report.to_json(false)).unwrap();
    assert_eq!(json["mapped"][0]["steps"][1]["kind"], "collective");
    assert_eq!(json["mapped"][0]["chips"], 8);
}

#[test]
fn pmap_wider_than_the_slice_names_the_machine_to_choose() {
    let script = "import jax, jax.numpy as jnp\njax.pmap(lambda v: v)(jnp.ones((4, 2)))\n";
    let failure =
        pollster::block_on(Engine::new().run_script(script, &options("v5e", Precision::Highest))).unwrap_err();
    let message = &failure.errors[0].message;
    assert!(message.contains("requires 4 logical devices, but only 1"), "{message}");
    assert!(message.contains("v5e-8"), "{message}");
    assert_eq!((failure.errors[0].line, failure.errors[0].col), (2, 1));
}

#[test]
fn a_gradients_all_reduce_overlaps_the_backward_pass_that_does_not_need_it() {
    // The second layer's gradient is ready first; its all-reduce runs on the links while the
    // chips compute the first layer's gradient, as XLA's scheduler overlaps them.
    let script = "
import jax, jax.numpy as jnp
from jax import lax
def loss(p, x):
    h = jnp.tanh(x @ p[0])
    return jnp.mean((h @ p[1]) ** 2)
def step(p, x):
    g = lax.pmean(jax.grad(loss)(p, x), 'batch')
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g)
p = (jnp.ones((8, 128, 128)) / 128.0, jnp.ones((8, 128, 128)) / 128.0)
x = jnp.ones((8, 32, 128))
p = jax.pmap(step, axis_name='batch')(p, x)
";
    let report = run(script, "v5e-8");
    let m = &report.mapped[0];
    let kinds: Vec<&str> = m
        .steps
        .iter()
        .map(|s| match s {
            MappedStep::Program { .. } => "program",
            MappedStep::Collective { .. } => "collective",
        })
        .collect();
    assert_eq!(kinds, ["program", "collective", "program", "collective", "program"], "{:?}", m.steps);
    let (MappedStep::Collective { start, end, .. }, MappedStep::Program { start: p_start, end: p_end, .. }) =
        (&m.steps[1], &m.steps[2])
    else {
        unreachable!()
    };
    // The first all-reduce and the program after it run at the same time.
    assert_eq!(start, p_start);
    assert!(end > p_start && start < p_end, "{:?}", m.steps);
    assert!(m.exposed_collective_cycles < m.collective_cycles, "{m:?}");
    assert_eq!(m.cycles, m.compute_cycles + m.exposed_collective_cycles);
}
