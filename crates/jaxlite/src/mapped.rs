//! Running a mapped function (`jax.pmap`) on a slice's chips.
//!
//! Every chip runs the same per-chip Jaxpr on its own operands. Its equations up to a
//! collective are one program, compiled once and run on each chip; at a collective every
//! chip's operand is at hand, so the collective is performed on the host (`CollectiveOp::
//! perform`) and each chip goes on with its own result. The executor is told of each step
//! (`Executor::mapped`) so it can time the call as the slice would run it: the chips' programs
//! side by side, each collective over the links between them.

use crate::array::Array;
use crate::collective::CollectiveOp;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Var};
use crate::prim::{Precision, Primitive};
use crate::trace::Context;
use crate::JaxError;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// One step of a mapped call. `waits_for` lists the earlier steps (collectives) whose results
/// it reads: a step may start before an earlier collective ends unless it waits for it, which
/// is how a collective overlaps the computation after it (XLA's asynchronous start/done).
#[derive(Clone, Debug)]
pub enum MappedStep {
    /// A program every chip ran, named and shaped as `Executor::execute` received it.
    Program { name: String, jaxpr: Rc<Jaxpr>, waits_for: Vec<usize> },
    /// A collective among each group of chips (chip numbers; the groups meet at once): each
    /// chip's operand is `bytes_per_chip`.
    Collective {
        op: CollectiveOp,
        axis_name: String,
        groups: Vec<Vec<u32>>,
        bytes_per_chip: u64,
        waits_for: Vec<usize>,
    },
}

/// The devices a mapped call runs on, as a mesh: named axes of sizes, and the device (chip)
/// at each position, row-major (the last axis fastest), as `jax.sharding.Mesh` lays them out.
/// `jax.pmap` is a one-axis mesh of the first devices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mesh {
    pub names: Vec<String>,
    pub sizes: Vec<usize>,
    pub devices: Vec<u32>,
}

impl Mesh {
    /// The mesh coordinates of position `device`.
    pub fn coords(&self, device: usize) -> Vec<usize> {
        let mut rest = device;
        let mut out = vec![0; self.sizes.len()];
        for (a, &n) in self.sizes.iter().enumerate().rev() {
            out[a] = rest % n;
            rest /= n;
        }
        out
    }

    /// The positions that differ only along `axis`, each group in that axis's order: who meets
    /// in a collective over it.
    pub fn groups(&self, axis: usize) -> Vec<Vec<usize>> {
        let stride: usize = self.sizes[axis + 1..].iter().product();
        (0..self.devices.len())
            .filter(|&d| self.coords(d)[axis] == 0)
            .map(|d| (0..self.sizes[axis]).map(|k| d + k * stride).collect())
            .collect()
    }
}

/// A mapped call as the executor is told of it, once its chips have run it.
#[derive(Clone, Debug)]
pub struct MappedCall {
    pub name: String,
    /// The chips that ran it, by mesh position.
    pub devices: Vec<u32>,
    pub steps: Vec<MappedStep>,
    pub default_precision: Precision,
}

/// Runs `jaxpr` (every input an invar: constants first) on the devices of `mesh`, position `i`
/// on `inputs[i]`; each position's outputs.
pub async fn run(
    ctx: &mut Context,
    name: &str,
    jaxpr: &Jaxpr,
    inputs: Vec<Vec<Array>>,
    mesh: &Mesh,
) -> Result<Vec<Vec<Array>>, JaxError> {
    let mut jaxpr = inline_collective_calls(jaxpr)?;
    let (eqns, groups) = schedule(&jaxpr);
    jaxpr.eqns = eqns;
    // Which step defines each variable that a collective defines (steps wait on those).
    let mut defined_by_collective: HashMap<Var, usize> = HashMap::new();
    let waits = |eqns: &[Eqn], by: &HashMap<Var, usize>| -> Vec<usize> {
        let mut w: Vec<usize> = eqns
            .iter()
            .flat_map(|e| e.inputs.iter())
            .filter_map(|a| match a {
                Atom::Var(v) => by.get(v).copied(),
                Atom::Literal(_) => None,
            })
            .collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let mut values: Vec<HashMap<Var, Array>> =
        inputs.into_iter().map(|ins| jaxpr.all_inputs().zip(ins).collect()).collect();
    let mut steps = Vec::new();
    let eqns = &jaxpr.eqns;
    let mut start = 0;
    let mut segment = 0;
    while start < eqns.len() {
        // A program runs up to the next collective, or up to the first equation that needs a
        // collective's result the program's earlier equations do not: the work before it can
        // run while that collective is on the links.
        let mut end = start;
        let mut waited: Vec<usize> = Vec::new();
        while end < eqns.len() && !is_collective(&eqns[end]) {
            let needs = waits(std::slice::from_ref(&eqns[end]), &defined_by_collective);
            if end > start && needs.iter().any(|w| !waited.contains(w)) {
                break;
            }
            waited.extend(needs);
            end += 1;
        }
        if end > start {
            // The equations before the next collective: one program on every chip.
            let later: HashSet<Var> = eqns[end..]
                .iter()
                .flat_map(|e| e.inputs.iter())
                .chain(&jaxpr.outvars)
                .filter_map(|a| match a {
                    Atom::Var(v) => Some(*v),
                    Atom::Literal(_) => None,
                })
                .collect();
            let program = Rc::new(part(&jaxpr, &eqns[start..end], &later));
            let program_name =
                if segment == 0 && end == eqns.len() { name.to_string() } else { format!("{name}.{segment}") };
            for chip in values.iter_mut() {
                let args = program.invars.iter().map(|v| chip[v].clone()).collect();
                let outs = ctx.execute_shared(program_name.clone(), program.clone(), args).await?;
                for (atom, out) in program.outvars.iter().zip(outs) {
                    if let Atom::Var(v) = atom {
                        chip.insert(*v, out);
                    }
                }
            }
            waited.sort_unstable();
            waited.dedup();
            steps.push(MappedStep::Program { name: program_name, jaxpr: program, waits_for: waited });
            segment += 1;
        }
        // The collective here and those combined with it (XLA's combiners), performed on the
        // host from every chip's operands, one step for the links.
        let mut last = end;
        if let Some(eqn) = eqns.get(end).filter(|e| is_collective(e)) {
            while last + 1 < eqns.len() && groups[last + 1].is_some() && groups[last + 1] == groups[end] {
                last += 1;
            }
            let Primitive::Collective { op, axis_name, .. } = &eqn.prim else { unreachable!("found above") };
            let axis = mesh.names.iter().position(|n| n == axis_name).ok_or_else(|| {
                JaxError(format!("{} over axis '{axis_name}', which the mapped call does not have", op.name()))
            })?;
            let groups = mesh.groups(axis);
            let mut bytes_per_chip = 0;
            for e in &eqns[end..=last] {
                let Primitive::Collective { op, axis_name, axis_size } = &e.prim else { unreachable!("grouped") };
                if *axis_size != mesh.sizes[axis] {
                    return Err(JaxError(format!(
                        "{} over axis '{axis_name}' of {axis_size} chips inside a call mapped over {}",
                        op.name(),
                        mesh.sizes[axis]
                    )));
                }
                for group in &groups {
                    let operands: Vec<Array> =
                        group.iter().filter_map(|&d| e.inputs.first().map(|a| read(&values[d], a))).collect();
                    if group[0] == 0 {
                        bytes_per_chip +=
                            operands.first().map_or(0, |x| x.size() as u64 * x.dtype().size_bytes() as u64);
                    }
                    let results = op.perform(&operands, group.len())?;
                    for (&d, result) in group.iter().zip(results) {
                        values[d].insert(e.outputs[0], result);
                    }
                }
            }
            if !matches!(op, CollectiveOp::AxisIndex) {
                let waits_for = waits(&eqns[end..=last], &defined_by_collective);
                for e in &eqns[end..=last] {
                    defined_by_collective.insert(e.outputs[0], steps.len());
                }
                let groups = groups.iter().map(|g| g.iter().map(|&d| mesh.devices[d]).collect()).collect();
                steps.push(MappedStep::Collective {
                    op: op.clone(),
                    axis_name: axis_name.clone(),
                    groups,
                    bytes_per_chip,
                    waits_for,
                });
            }
        }
        start = if eqns.get(end).is_some_and(is_collective) { last + 1 } else { end };
    }
    ctx.report_mapped(MappedCall {
        name: name.to_string(),
        devices: mesh.devices.clone(),
        steps,
        default_precision: ctx.default_precision,
    })?;
    Ok(values.iter().map(|chip| jaxpr.outvars.iter().map(|a| read(chip, a)).collect()).collect())
}

/// Independent collectives of one kind issued together are combined into one, up to this many
/// bytes per chip: XLA's all-reduce, all-gather and reduce-scatter combiners (30 MiB is
/// XLA's GPU default, `xla_gpu_all_reduce_combine_threshold_bytes`; the TPU's is not published).
/// A gradient pytree's `pmean` is one all-reduce, as on a TPU, paying the hops' latency once.
pub const COMBINE_BYTES: u64 = 30 << 20;

/// The equations in the order the chips run them, and each one's combined collective (the
/// same number for collectives run as one step, `None` for the rest).
///
/// Collectives adjacent in the function's order, of the same kind over the same axis, none
/// reading another's result, are combined (up to [`COMBINE_BYTES`]). Each combined collective
/// comes as soon as its operands are computed, and the work that does not need its result
/// before the work that does (XLA's latency-hiding scheduler does the same), so it overlaps
/// that work. Otherwise equations keep their order; those with an effect (callbacks that
/// print) keep theirs among themselves.
fn schedule(jaxpr: &Jaxpr) -> (Vec<Eqn>, Vec<Option<usize>>) {
    let eqns = &jaxpr.eqns;
    let mut producer: HashMap<Var, usize> = HashMap::new();
    for (i, e) in eqns.iter().enumerate() {
        for v in &e.outputs {
            producer.insert(*v, i);
        }
    }
    let mut deps: Vec<Vec<usize>> = eqns
        .iter()
        .map(|e| {
            e.inputs
                .iter()
                .filter_map(|a| match a {
                    Atom::Var(v) => producer.get(v).copied(),
                    Atom::Literal(_) => None,
                })
                .collect()
        })
        .collect();
    let mut last_effect = None;
    for (i, e) in eqns.iter().enumerate() {
        if e.prim.has_effect() {
            deps[i].extend(last_effect);
            last_effect = Some(i);
        }
    }
    // Combine runs of like collectives.
    let bytes = |e: &Eqn| -> u64 {
        e.inputs.first().map_or(0, |a| {
            let aval = jaxpr.atom_aval(a);
            aval.size() as u64 * aval.dtype.size_bytes() as u64
        })
    };
    let mut group: Vec<Option<usize>> = vec![None; eqns.len()];
    let mut i = 0;
    while i < eqns.len() {
        if !is_collective(&eqns[i])
            || matches!(&eqns[i].prim, Primitive::Collective { op: CollectiveOp::AxisIndex, .. })
        {
            i += 1;
            continue;
        }
        group[i] = Some(i);
        let mut total = bytes(&eqns[i]);
        let mut j = i + 1;
        while j < eqns.len()
            && eqns[j].prim == eqns[i].prim
            && !deps[j].iter().any(|d| (i..j).contains(d))
            && total + bytes(&eqns[j]) <= COMBINE_BYTES
        {
            total += bytes(&eqns[j]);
            group[j] = Some(i);
            j += 1;
        }
        i = j;
    }
    let members = |g: usize| (g..eqns.len()).take_while(|&k| group[k] == Some(g)).collect::<Vec<_>>();
    // Whether an equation needs some collective's result: such work goes after the work that
    // does not, which is what a collective can overlap.
    let mut after_collective = vec![false; eqns.len()];
    for i in 0..eqns.len() {
        after_collective[i] = is_collective(&eqns[i]) || deps[i].iter().any(|&d| after_collective[d]);
    }
    let mut done = vec![false; eqns.len()];
    let mut order = Vec::with_capacity(eqns.len());
    while order.len() < eqns.len() {
        let ready = |i: usize| !done[i] && deps[i].iter().all(|&d| done[d]);
        let collective = (0..eqns.len()).find(|&i| match group[i] {
            Some(g) => g == i && members(g).into_iter().all(ready),
            None => ready(i) && is_collective(&eqns[i]),
        });
        let next = match collective {
            Some(g) if group[g].is_some() => members(g),
            Some(i) => vec![i],
            None => vec![(0..eqns.len())
                .find(|&i| ready(i) && !after_collective[i])
                .or_else(|| (0..eqns.len()).find(|&i| ready(i) && group[i].is_none()))
                .expect("a Jaxpr's equations depend only on earlier ones")],
        };
        for i in next {
            done[i] = true;
            order.push(i);
        }
    }
    (order.iter().map(|&i| eqns[i].clone()).collect(), order.iter().map(|&i| group[i]).collect())
}

fn is_collective(e: &Eqn) -> bool {
    matches!(e.prim, Primitive::Collective { .. })
}

fn read(chip: &HashMap<Var, Array>, atom: &Atom) -> Array {
    match atom {
        Atom::Var(v) => chip[v].clone(),
        Atom::Literal(l) => crate::eval::literal_array(l.value, &l.aval),
    }
}

/// `eqns` as a Jaxpr of their own: its inputs what they read from before them, its outputs
/// what they define that `later` reads.
fn part(jaxpr: &Jaxpr, eqns: &[Eqn], later: &HashSet<Var>) -> Jaxpr {
    let defined: HashSet<Var> = eqns.iter().flat_map(|e| e.outputs.iter().copied()).collect();
    let mut invars = Vec::new();
    let mut seen = HashSet::new();
    for e in eqns {
        for a in &e.inputs {
            if let Atom::Var(v) = a {
                if !defined.contains(v) && seen.insert(*v) {
                    invars.push(*v);
                }
            }
        }
    }
    let mut outvars: Vec<Atom> =
        eqns.iter().flat_map(|e| e.outputs.iter()).filter(|v| later.contains(v)).map(|v| Atom::Var(*v)).collect();
    outvars.dedup();
    let used: HashSet<Var> = invars.iter().copied().chain(defined).collect();
    Jaxpr {
        constvars: vec![],
        invars,
        eqns: eqns.to_vec(),
        outvars,
        types: jaxpr.types.iter().filter(|(v, _)| used.contains(v)).map(|(v, a)| (*v, a.clone())).collect(),
    }
}

/// Whether `jaxpr` holds a collective anywhere (in nested calls and loops too).
fn has_collective(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| is_collective(e) || e.prim.sub_jaxprs().into_iter().any(has_collective))
}

/// `jaxpr` with every nested `jit` that holds a collective replaced by its body's equations (so
/// every collective is an equation of the top level). A collective inside a loop, a branch or
/// a custom derivative is refused: the chips would have to meet inside a program.
fn inline_collective_calls(jaxpr: &Jaxpr) -> Result<Jaxpr, JaxError> {
    let mut out = Jaxpr { eqns: vec![], ..jaxpr.clone() };
    let mut next = jaxpr.types.keys().map(|v| v.0 + 1).max().unwrap_or(0);
    inline_into(jaxpr, &mut out, &mut next)?;
    Ok(out)
}

fn inline_into(jaxpr: &Jaxpr, out: &mut Jaxpr, next: &mut u32) -> Result<(), JaxError> {
    for eqn in &jaxpr.eqns {
        match &eqn.prim {
            prim if prim.call_body().is_some_and(has_collective) => {
                // The body's variables renamed into `out`'s, its inputs bound to the operands.
                let body = inline_collective_calls(prim.call_body().expect("a call"))?;
                let mut rename: HashMap<Var, Atom> = body.all_inputs().zip(eqn.inputs.iter().cloned()).collect();
                for v in body.types.keys() {
                    if !rename.contains_key(v) {
                        let fresh = Var(*next);
                        *next += 1;
                        out.types.insert(fresh, body.types[v].clone());
                        rename.insert(*v, Atom::Var(fresh));
                    }
                }
                let var = |v: &Var| match &rename[v] {
                    Atom::Var(v) => *v,
                    Atom::Literal(_) => unreachable!("outputs are fresh variables"),
                };
                for e in &body.eqns {
                    out.eqns.push(Eqn {
                        source: e.source.clone(),
                        prim: e.prim.clone(),
                        inputs: e
                            .inputs
                            .iter()
                            .map(|a| match a {
                                Atom::Var(v) => rename[v].clone(),
                                literal => literal.clone(),
                            })
                            .collect(),
                        outputs: e.outputs.iter().map(var).collect(),
                    });
                }
                // The call's outputs are the body's: each bound by a copy-free alias.
                for (o, b) in eqn.outputs.iter().zip(&body.outvars) {
                    let source = match b {
                        Atom::Var(v) => rename[v].clone(),
                        literal => literal.clone(),
                    };
                    alias(out, *o, source);
                }
            }
            prim if prim.sub_jaxprs().into_iter().any(has_collective)
                || prim.custom_body(&eqn.inputs).is_some_and(|(b, ..)| has_collective(b)) =>
            {
                return Err(JaxError(format!(
                    "a collective inside {} under jax.pmap is not supported yet: the playground runs a mapped function's collectives between its programs, not inside a loop, a branch or a custom derivative",
                    prim.name()
                )));
            }
            _ => out.eqns.push(eqn.clone()),
        }
    }
    Ok(())
}

/// Makes `var` stand for `source` in every equation already in `out` or added later: the
/// simplest way is an equation that copies it, which the compiler fuses away.
fn alias(out: &mut Jaxpr, var: Var, source: Atom) {
    let aval = out.types[&var].clone();
    // `convert_element_type` to its own type is a copy JAX itself emits and XLA removes.
    out.eqns.push(Eqn {
        source: None,
        prim: Primitive::ConvertElementType { new_dtype: aval.dtype, weak_type: aval.weak_type },
        inputs: vec![source],
        outputs: vec![var],
    });
}
