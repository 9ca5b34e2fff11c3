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
            groups: vec![(0..8).collect()],
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
fn a_collective_overlaps_the_work_that_does_not_need_its_result() {
    // The all-reduce of `a` is issued first; the matmul does not need it, so it runs on the
    // chips while the all-reduce is on the links, and only the last multiply waits.
    let script = "
import jax, jax.numpy as jnp
from jax import lax
def f(a, b):
    s = lax.psum(a, 'i')
    t = jnp.tanh(b @ b)
    return s * 2.0, t
s, t = jax.pmap(f, axis_name='i')(jnp.ones((8, 256, 256)), jnp.ones((8, 128, 128)) / 128.0)
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
    assert_eq!(kinds, ["collective", "program", "program"], "{:?}", m.steps);
    let (
        MappedStep::Collective { start, end, .. },
        MappedStep::Program { start: p_start, end: p_end, .. },
        MappedStep::Program { start: last, .. },
    ) = (&m.steps[0], &m.steps[1], &m.steps[2])
    else {
        unreachable!()
    };
    assert_eq!((*start, *p_start), (0, 0), "the matmul runs while the all-reduce is on the links");
    assert!(*p_end < *end && *last == *end, "{:?}", m.steps);
    assert_eq!(m.exposed_collective_cycles, m.collective_cycles - (p_end - p_start));
    assert_eq!(m.cycles, m.compute_cycles + m.exposed_collective_cycles);
}

#[test]
fn a_gradient_pytrees_pmean_is_one_combined_all_reduce() {
    // Four leaves, one all-reduce of their bytes together (XLA's all-reduce combiner), which
    // pays the hops once.
    let script = "
import jax, jax.numpy as jnp
from jax import lax
def step(p, x):
    g = jax.grad(lambda p: jnp.mean((jnp.tanh(x @ p['w1'] + p['b1']) @ p['w2'] + p['b2']) ** 2))(p)
    return lax.pmean(g, 'batch')
p = {'w1': jnp.ones((8, 64, 128)), 'b1': jnp.zeros((8, 128)), 'w2': jnp.ones((8, 128, 1)), 'b2': jnp.zeros((8, 1))}
g = jax.pmap(step, axis_name='batch')(p, jnp.ones((8, 16, 64)))
";
    let report = run(script, "v5e-8");
    let collectives: Vec<u64> = report.mapped[0]
        .steps
        .iter()
        .filter_map(|s| match s {
            MappedStep::Collective { bytes_per_chip, .. } => Some(*bytes_per_chip),
            _ => None,
        })
        .collect();
    assert_eq!(collectives, [(64 * 128 + 128 + 128 + 1) * 4], "{:?}", report.mapped[0].steps);
}

#[test]
fn a_shard_map_all_reduce_over_one_mesh_axis_meets_in_groups_of_that_axis() {
    // Megatron-style: the contracting axis over 'y' (2 devices), partial products summed over
    // 'y' only: four groups of two neighbours, each pair one link apart.
    let script = "
import jax, jax.numpy as jnp, numpy as np
from functools import partial
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))
def matmul(a, b):
    return lax.psum(a @ b, 'y')
out = matmul(jnp.ones((512, 256)), jnp.ones((256, 128)))
";
    let report = run(script, "v5e-8");
    let m = &report.mapped[0];
    assert_eq!((m.name.as_str(), m.chips), ("shard_map_matmul", 8));
    let [_, MappedStep::Collective { group_size, bytes_per_chip, hops, .. }] = m.steps.as_slice() else {
        panic!("a program, then the all-reduce: {:?}", m.steps)
    };
    // Each device's partial product is its 128 rows × 128 columns.
    assert_eq!((*group_size, *bytes_per_chip, *hops), (2, 128 * 128 * 4, 2));
    // Devices (2i, 2i+1) share a row of the 2x4 slice: every link the all-reduce uses joins such
    // a pair.
    assert!(m.links.iter().all(|l| l.from / 2 == l.to / 2), "{:?}", m.links);
}

/// The collectives a mapped call ran, as (primitive, bytes per chip).
fn collectives(report: &RunReport, name: &str) -> Vec<(&'static str, u64)> {
    let m = report.mapped.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("{name}: {:?}", report.mapped));
    m.steps
        .iter()
        .filter_map(|s| match s {
            MappedStep::Collective { primitive, bytes_per_chip, .. } => Some((*primitive, *bytes_per_chip)),
            MappedStep::Program { .. } => None,
        })
        .collect()
}

#[test]
fn a_jit_of_sharded_arrays_runs_on_every_chip_with_the_collectives_its_layouts_need() {
    let script = "
import jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(jax.devices(), ('x',))
rows = NamedSharding(mesh, P('x', None))
a = jax.device_put(jnp.ones((1024, 256)), rows)
b = jax.device_put(jnp.ones((256, 512)) / 256.0, NamedSharding(mesh, P('x', None)))
def elementwise(a):
    return jnp.sin(a) * 2.0
def contract(a):
    return a.sum(axis=0)
def matmul(a, b):
    return jnp.tanh(a @ b)
e = jax.jit(elementwise)(a)
c = jax.jit(contract)(a)
m = jax.jit(matmul)(a, b)
print(e.sharding.spec, c.sharding.spec, m.sharding.spec, c[:3], m[0, :2])
";
    let report = run(script, "v5e-8");
    assert_eq!(report.stdout, "P('x',) P() P('x',) [1024. 1024. 1024.] [0.7615942 0.7615942]\n");
    // Computation follows data: each chip computes its 128 rows, nothing moves.
    assert_eq!(collectives(&report, "elementwise"), []);
    // Each chip sums its rows; the partial sums meet in one all-reduce of the result (1 KiB).
    assert_eq!(collectives(&report, "contract"), [("psum", 256 * 4)]);
    // `b` is split along its rows (the contraction) but `a`'s rows are its free axis: `b` is
    // gathered whole on every chip (each sends its 32x512 block), and the matmul needs no sum.
    assert_eq!(collectives(&report, "matmul"), [("all_gather", 32 * 512 * 4)]);
    let m = report.mapped.iter().find(|m| m.name == "matmul").unwrap();
    assert_eq!(m.chips, 8);
    // Every chip's program works on its block: an eighth of the rows of `a`.
    let MappedStep::Program { program, .. } =
        m.steps.iter().rev().find(|s| matches!(s, MappedStep::Program { .. })).unwrap()
    else {
        unreachable!()
    };
    let jaxpr = &report.programs[*program].jaxpr;
    assert!(jaxpr.contains("f32[128,256]"), "{jaxpr}");
}
