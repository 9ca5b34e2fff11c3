//! Reverse mode: linearize (JVP, then split the known primal computation from the linear
//! tangent computation) and transpose the linear part, as JAX does. The transpose rules are
//! needed only for the primitives JVP rules apply to tangents.

use super::{jvp, Builder, Result};
use crate::array::Aval;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Var};
use crate::prim::{
    BinaryOp, Branches, CustomVjp, DotDims, JitFunction, Primitive, Remat, ScanLoop, UnaryOp, WhileLoop,
};
use crate::trace::JaxError;
use std::collections::{HashMap, HashSet};

/// A function split for reverse mode.
#[derive(Clone, Debug)]
pub struct Vjp {
    /// The inputs to the outputs followed by `num_residuals` residuals.
    pub forward: Jaxpr,
    pub num_residuals: usize,
    /// The residuals and one cotangent per output marked in `diff_out` to one cotangent per
    /// input marked in `diff_in`.
    pub backward: Jaxpr,
}

/// A function split for forward mode with its primal part run once (`jax.linearize`).
#[derive(Clone, Debug)]
pub struct Linearized {
    /// The inputs to the outputs followed by `num_residuals` residuals.
    pub forward: Jaxpr,
    pub num_residuals: usize,
    /// The residuals and one tangent per input marked in `diff_in` to one tangent per output:
    /// only the equations that read a tangent.
    pub linear: Jaxpr,
}

/// Splits `jaxpr` (without constvars) into its primal computation and the linear map of
/// tangents it implies, as JAX's linearize does: JVP, then partial evaluation (an equation is
/// linear, left for later, when it reads a tangent; everything else is known and runs now).
pub fn linearize(jaxpr: &Jaxpr, diff_in: &[bool]) -> Result<Linearized> {
    let split = partial_eval(jaxpr, diff_in)?;
    Ok(Linearized { forward: split.known, num_residuals: split.residuals, linear: split.unknown })
}

/// The JVP of `jaxpr` split by partial evaluation, the tangents unknown: the known part takes
/// the primal inputs and gives the primal outputs, then the residuals; the unknown part takes
/// the residuals and the tangents and gives the output tangents.
fn partial_eval(jaxpr: &Jaxpr, diff_in: &[bool]) -> Result<Split> {
    let n_in = jaxpr.all_inputs().count();
    let n_out = jaxpr.outvars.len();
    let lin = jvp(jaxpr, diff_in)?;
    let unknown_in: Vec<bool> = (0..lin.invars.len()).map(|i| i >= n_in).collect();
    let tangents_out: Vec<bool> = (0..lin.outvars.len()).map(|i| i >= n_out).collect();
    let split = split_jaxpr(&lin, &unknown_in, &tangents_out);
    if split.out_unknown != tangents_out {
        return Err(JaxError("internal error: a primal output depends on a tangent".into()));
    }
    Ok(split)
}

/// A Jaxpr split by partial evaluation.
struct Split {
    /// The known inputs to the known outputs, then the residuals.
    known: Jaxpr,
    /// The residuals, then the unknown inputs, to the unknown outputs.
    unknown: Jaxpr,
    residuals: usize,
    /// Which outputs the unknown part gives.
    out_unknown: Vec<bool>,
}

/// Partial evaluation of `jaxpr` (without constvars) with the inputs marked in `unknown_in`
/// unknown: an equation is unknown when it reads an unknown value (a `while`, `scan` or `cond`
/// is split in two, see `split_while`, `split_scan` and `split_cond`), known otherwise. The outputs marked in
/// `force_unknown` are given by the unknown part even where they are known (as residuals).
fn split_jaxpr(jaxpr: &Jaxpr, unknown_in: &[bool], force_unknown: &[bool]) -> Split {
    let inputs: Vec<Var> = jaxpr.all_inputs().collect();
    let mut unknown: HashSet<Var> = inputs.iter().zip(unknown_in).filter(|(_, &u)| u).map(|(&v, _)| v).collect();
    let (mut known_eqns, mut unknown_eqns): (Vec<Eqn>, Vec<Eqn>) = (vec![], vec![]);
    let mut types = jaxpr.types.clone();
    for eqn in &jaxpr.eqns {
        let eqn_unknown: Vec<bool> =
            eqn.inputs.iter().map(|a| matches!(a, Atom::Var(v) if unknown.contains(v))).collect();
        if !eqn_unknown.contains(&true) {
            known_eqns.push(eqn.clone());
            continue;
        }
        match split_eqn(eqn, &eqn_unknown, &mut types) {
            Some((known, rest)) => {
                let known_outs: HashSet<Var> = known.iter().flat_map(|e| e.outputs.iter().copied()).collect();
                unknown.extend(eqn.outputs.iter().filter(|v| !known_outs.contains(v)));
                known_eqns.extend(known);
                unknown_eqns.extend(rest);
            }
            None => {
                unknown.extend(eqn.outputs.iter().copied());
                unknown_eqns.push(eqn.clone());
            }
        }
    }
    let is_unknown = |a: &Atom| matches!(a, Atom::Var(v) if unknown.contains(v));
    let out_unknown: Vec<bool> =
        jaxpr.outvars.iter().zip(force_unknown).map(|(a, &force)| force || is_unknown(a)).collect();
    // The residuals: known values the unknown part reads, in order of first reading.
    let mut residuals: Vec<Var> = Vec::new();
    let reads = unknown_eqns.iter().flat_map(|e| e.inputs.iter());
    let unknown_outs = jaxpr.outvars.iter().zip(&out_unknown).filter(|(_, &u)| u).map(|(a, _)| a);
    for a in reads.chain(unknown_outs) {
        if let Atom::Var(v) = a {
            if !unknown.contains(v) && !residuals.contains(v) {
                residuals.push(*v);
            }
        }
    }
    let pick = |flags: &[bool], want: bool| -> Vec<Atom> {
        jaxpr.outvars.iter().zip(flags).filter(|(_, &u)| u == want).map(|(a, _)| a.clone()).collect()
    };
    let mut known_outs = pick(&out_unknown, false);
    known_outs.extend(residuals.iter().map(|&v| Atom::Var(v)));
    let known = Jaxpr {
        constvars: vec![],
        invars: inputs.iter().zip(unknown_in).filter(|(_, &u)| !u).map(|(&v, _)| v).collect(),
        eqns: known_eqns,
        outvars: known_outs,
        types: types.clone(),
    };
    let mut unknown_invars = residuals.clone();
    unknown_invars.extend(inputs.iter().zip(unknown_in).filter(|(_, &u)| u).map(|(&v, _)| v));
    let unknown = Jaxpr {
        constvars: vec![],
        invars: unknown_invars,
        eqns: unknown_eqns,
        outvars: pick(&out_unknown, true),
        types,
    };
    Split { known, unknown, residuals: residuals.len(), out_unknown }
}

/// An equation holding a function, with some operands unknown, split by its own rule into
/// equations to run now and equations to stage; `None` where it is unknown as a whole.
fn split_eqn(eqn: &Eqn, unknown_in: &[bool], types: &mut HashMap<Var, Aval>) -> Option<(Vec<Eqn>, Vec<Eqn>)> {
    match &eqn.prim {
        Primitive::While { function } => split_while(function, eqn, unknown_in, types),
        Primitive::Scan { function } => split_scan(function, eqn, unknown_in, types),
        Primitive::Cond { function } => split_cond(function, eqn, unknown_in, types),
        Primitive::Jit { function } => Some(split_jit(function, eqn, unknown_in, types)),
        Primitive::Remat { function } => Some(split_remat(function, eqn, unknown_in, types)),
        _ => None,
    }
}

/// Partial evaluation of a `scan` with some operands unknown, as JAX's rule does it: a carry
/// is unknown when its initial value is or the body makes it depend on an unknown value (a
/// fixed point), and the body is split in two. The known scan runs the known part of every
/// step and stacks, as extra `ys`, the values the unknown part reads from it (the residuals);
/// the unknown scan takes those rows as extra `xs`. A residual that is one of the body's
/// closed-over values or rows of an `xs` is read from that operand instead of being stacked.
/// Transposing the unknown scan then gives reverse mode through a scan: a scan run backwards.
fn split_scan(
    s: &ScanLoop,
    eqn: &Eqn,
    unknown_in: &[bool],
    types: &mut HashMap<Var, Aval>,
) -> Option<(Vec<Eqn>, Vec<Eqn>)> {
    let [const_unknown, carry_unknown, row_unknown] = s.split(unknown_in);
    let carries = carried(&s.body, const_unknown, carry_unknown, row_unknown);
    let body_unknown = [const_unknown, &carries, row_unknown].concat();
    let mut force = carries.clone();
    force.extend(vec![false; s.ys()]);
    let split = split_jaxpr(&s.body, &body_unknown, &force);
    if split.out_unknown[..s.carries] != carries[..] {
        return None;
    }
    // Where each residual comes from: a closed-over value or an `xs` (its operand), or the
    // known scan's stacked output.
    let position: HashMap<Var, usize> = s.body.invars.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let xs_start = s.consts + s.carries;
    let residuals = &split.unknown.invars[..split.residuals];
    let (mut const_res, mut row_res, mut stacked_res) = (vec![], vec![], vec![]);
    for &r in residuals {
        match position.get(&r) {
            Some(&i) if i < s.consts => const_res.push((r, i)),
            Some(&i) if i >= xs_start => row_res.push((r, i)),
            _ => stacked_res.push(r),
        }
    }
    // The known scan: the known operands to the known carries and ys, then the stacked residuals.
    let mut known_body = split.known;
    let n_known_outs = known_body.outvars.len() - split.residuals;
    known_body.outvars.truncate(n_known_outs);
    known_body.outvars.extend(stacked_res.iter().map(|&v| Atom::Var(v)));
    let known_body = super::dce(&known_body);
    let known_outs = eqn.outputs.iter().zip(&split.out_unknown).filter(|(_, &u)| !u).map(|(&v, _)| v);
    let stacked_vars: Vec<Var> = stacked_res
        .iter()
        .map(|&r| super::fresh_var(types, crate::control::stacked(split.unknown.aval(r), s.length)))
        .collect();
    let known_carries = carries.iter().filter(|&&u| !u).count();
    let known_scan = ScanLoop {
        body: known_body,
        consts: const_unknown.iter().filter(|&&u| !u).count(),
        carries: known_carries,
        ..s.clone()
    };
    let known_eqn = Eqn {
        source: eqn.source.clone(),
        prim: Primitive::Scan { function: std::rc::Rc::new(known_scan) },
        inputs: eqn.inputs.iter().zip(&body_unknown).filter(|(_, &u)| !u).map(|(a, _)| a.clone()).collect(),
        outputs: known_outs.chain(stacked_vars.iter().copied()).collect(),
    };
    // The unknown scan: (residual consts, unknown consts; unknown carries; unknown xs,
    // residual rows, stacked residuals' rows).
    let mut unknown_body = split.unknown;
    let unknown_in: Vec<Var> = unknown_body.invars[split.residuals..].to_vec();
    let n_unknown_consts = const_unknown.iter().filter(|&&u| u).count();
    let n_unknown_carries = carries.iter().filter(|&&u| u).count();
    let (unknown_consts, rest) = unknown_in.split_at(n_unknown_consts);
    let (unknown_carries, unknown_rows) = rest.split_at(n_unknown_carries);
    let firsts = |pairs: &[(Var, usize)]| pairs.iter().map(|&(v, _)| v).collect::<Vec<_>>();
    unknown_body.invars = [
        &firsts(&const_res)[..],
        unknown_consts,
        unknown_carries,
        unknown_rows,
        &firsts(&row_res)[..],
        &stacked_res[..],
    ]
    .concat();
    let operand = |&(_, i): &(Var, usize)| eqn.inputs[i].clone();
    let unknown_operands = |range: std::ops::Range<usize>| -> Vec<Atom> {
        range.filter(|&i| body_unknown[i]).map(|i| eqn.inputs[i].clone()).collect()
    };
    let mut inputs: Vec<Atom> = const_res.iter().map(operand).collect();
    inputs.extend(unknown_operands(0..s.consts));
    inputs.extend(unknown_operands(s.consts..xs_start));
    inputs.extend(unknown_operands(xs_start..s.body.invars.len()));
    inputs.extend(row_res.iter().map(operand));
    inputs.extend(stacked_vars.iter().map(|&v| Atom::Var(v)));
    let unknown_scan = ScanLoop {
        body: unknown_body,
        consts: const_res.len() + n_unknown_consts,
        carries: n_unknown_carries,
        ..s.clone()
    };
    let unknown_eqn = Eqn {
        source: eqn.source.clone(),
        prim: Primitive::Scan { function: std::rc::Rc::new(unknown_scan) },
        inputs,
        outputs: eqn.outputs.iter().zip(&split.out_unknown).filter(|(_, &u)| u).map(|(&v, _)| v).collect(),
    };
    let known = if known_eqn.outputs.is_empty() { vec![] } else { vec![known_eqn] };
    Some((known, vec![unknown_eqn]))
}

/// Partial evaluation of a `cond` with some operands unknown and its index known, as JAX's
/// rule does it: an output is unknown when any branch makes it so, and every branch is split
/// in two. The known `cond` runs the known part of the branch the index picks and gives its
/// residuals; the unknown `cond` (the same index) takes them. The branches' residuals share
/// outputs by type (JAX's merge), a branch giving zeros for the slots it does not use. `None`
/// when the index is unknown: the whole `cond` is.
fn split_cond(
    c: &Branches,
    eqn: &Eqn,
    unknown_in: &[bool],
    types: &mut HashMap<Var, Aval>,
) -> Option<(Vec<Eqn>, Vec<Eqn>)> {
    let (&index_unknown, operands_unknown) = unknown_in.split_first()?;
    if index_unknown {
        return None;
    }
    let n_outs = eqn.outputs.len();
    let mut out_unknown = vec![false; n_outs];
    for branch in &c.branches {
        let split = split_jaxpr(branch, operands_unknown, &vec![false; n_outs]);
        out_unknown.iter_mut().zip(&split.out_unknown).for_each(|(u, &b)| *u |= b);
    }
    let splits: Vec<Split> = c.branches.iter().map(|b| split_jaxpr(b, operands_unknown, &out_unknown)).collect();
    // Residual slots, by type: each branch's residuals take the first free slots of their type.
    let mut slots: Vec<Aval> = Vec::new();
    let mut assigned: Vec<Vec<usize>> = Vec::with_capacity(splits.len());
    for split in &splits {
        let mut taken = vec![false; slots.len()];
        let mut mine = Vec::with_capacity(split.residuals);
        for &r in &split.unknown.invars[..split.residuals] {
            let aval = split.unknown.aval(r);
            let slot = match (0..slots.len()).find(|&j| !taken[j] && slots[j] == *aval) {
                Some(j) => j,
                None => {
                    slots.push(aval.clone());
                    taken.push(false);
                    slots.len() - 1
                }
            };
            taken[slot] = true;
            mine.push(slot);
        }
        assigned.push(mine);
    }
    let build = |known_side: bool| -> Option<Vec<Jaxpr>> {
        splits
            .iter()
            .zip(&assigned)
            .map(|(split, mine)| {
                let mut b = Builder::new();
                if known_side {
                    let ins: Vec<Atom> =
                        split.known.invars.iter().map(|&v| b.input(split.known.aval(v).clone())).collect();
                    let mut outs = b.inline(&split.known, &ins).ok()?;
                    let residuals = outs.split_off(outs.len() - split.residuals);
                    for (j, slot) in slots.iter().enumerate() {
                        outs.push(match mine.iter().position(|&m| m == j) {
                            Some(k) => residuals[k].clone(),
                            None => b.zeros(slot).ok()?,
                        });
                    }
                    Some(b.finish(outs))
                } else {
                    let slot_ins: Vec<Atom> = slots.iter().map(|a| b.input(a.clone())).collect();
                    let mut ins: Vec<Atom> = mine.iter().map(|&j| slot_ins[j].clone()).collect();
                    for &v in &split.unknown.invars[split.residuals..] {
                        ins.push(b.input(split.unknown.aval(v).clone()));
                    }
                    let outs = b.inline(&split.unknown, &ins).ok()?;
                    Some(b.finish(outs))
                }
            })
            .collect()
    };
    let (known_branches, unknown_branches) = (build(true)?, build(false)?);
    let residual_vars: Vec<Var> = slots.iter().map(|aval| super::fresh_var(types, aval.clone())).collect();
    let (index, operands) = eqn.inputs.split_first()?;
    let pick = |want: bool| -> Vec<Atom> {
        operands.iter().zip(operands_unknown).filter(|(_, &u)| u == want).map(|(a, _)| a.clone()).collect()
    };
    let outputs = |want: bool| eqn.outputs.iter().zip(&out_unknown).filter(move |(_, &u)| u == want).map(|(&v, _)| v);
    let mut known = Vec::new();
    let known_outputs: Vec<Var> = outputs(false).chain(residual_vars.iter().copied()).collect();
    if !known_outputs.is_empty() {
        known.push(Eqn {
            source: eqn.source.clone(),
            prim: Primitive::Cond { function: std::rc::Rc::new(Branches { branches: known_branches }) },
            inputs: [vec![index.clone()], pick(false)].concat(),
            outputs: known_outputs,
        });
    }
    let mut unknown = Vec::new();
    if out_unknown.contains(&true) {
        let residuals = residual_vars.iter().map(|&v| Atom::Var(v));
        unknown.push(Eqn {
            source: eqn.source.clone(),
            prim: Primitive::Cond { function: std::rc::Rc::new(Branches { branches: unknown_branches }) },
            inputs: std::iter::once(index.clone()).chain(residuals).chain(pick(true)).collect(),
            outputs: outputs(true).collect(),
        });
    }
    Some((known, unknown))
}

/// Partial evaluation of a nested `jit` with some operands unknown, as JAX's rule does it: the
/// body split in two, each part a `jit` of the same name. The known one gives the known
/// outputs and the residuals; the unknown one takes the residuals, then the unknown operands.
/// A residual that is one of the known operands is passed on as it is rather than returned by
/// the known part (JAX's forwarding).
fn split_jit(j: &JitFunction, eqn: &Eqn, unknown_in: &[bool], types: &mut HashMap<Var, Aval>) -> (Vec<Eqn>, Vec<Eqn>) {
    let n_outs = j.body.outvars.len();
    let split = split_jaxpr(&j.body, unknown_in, &vec![false; n_outs]);
    let position: HashMap<Var, usize> = j.body.invars.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let residuals = &split.unknown.invars[..split.residuals];
    let mut known_body = split.known;
    known_body.outvars.truncate(known_body.outvars.len() - split.residuals);
    let mut residual_atoms = Vec::with_capacity(residuals.len());
    let mut returned = Vec::new();
    for &r in residuals {
        match position.get(&r) {
            Some(&i) => residual_atoms.push(eqn.inputs[i].clone()),
            None => {
                known_body.outvars.push(Atom::Var(r));
                let v = super::fresh_var(types, split.unknown.aval(r).clone());
                returned.push(v);
                residual_atoms.push(Atom::Var(v));
            }
        }
    }
    let outputs =
        |want: bool| eqn.outputs.iter().zip(&split.out_unknown).filter(move |(_, &u)| u == want).map(|(&v, _)| v);
    let mut known = Vec::new();
    let known_outputs: Vec<Var> = outputs(false).chain(returned).collect();
    if !known_outputs.is_empty() {
        known.push(Eqn {
            source: eqn.source.clone(),
            prim: Primitive::Jit {
                function: std::rc::Rc::new(JitFunction {
                    name: j.name.clone(),
                    body: super::dce(&known_body),
                    consts: j.consts,
                }),
            },
            inputs: eqn.inputs.iter().zip(unknown_in).filter(|(_, &u)| !u).map(|(a, _)| a.clone()).collect(),
            outputs: known_outputs,
        });
    }
    let mut unknown = Vec::new();
    if split.out_unknown.contains(&true) {
        let unknown_operands = eqn.inputs.iter().zip(unknown_in).filter(|(_, &u)| u).map(|(a, _)| a.clone());
        unknown.push(Eqn {
            source: eqn.source.clone(),
            prim: Primitive::Jit {
                function: std::rc::Rc::new(JitFunction { name: j.name.clone(), body: split.unknown, consts: 0 }),
            },
            inputs: residual_atoms.into_iter().chain(unknown_operands).collect(),
            outputs: outputs(true).collect(),
        });
    }
    (known, unknown)
}

/// Partial evaluation of a `jax.checkpoint` with some operands unknown, as JAX's rule
/// (`remat_partial_eval`) does it. In the body, an equation reading an unknown value is
/// staged for later; one reading known values only runs now, in place (the known part is not
/// a checkpoint any more), and is staged again, to be recomputed, unless the policy saves
/// its outputs. The staged equations become one checkpoint marked `differentiated`, taking
/// the saved values, then the body's inputs it reads: those and the known inputs are all
/// that the forward pass keeps for it. Loops, branches and calls inside are split by their
/// own rules, their known parts recomputed as any other equation.
fn split_remat(r: &Remat, eqn: &Eqn, unknown_in: &[bool], types: &mut HashMap<Var, Aval>) -> (Vec<Eqn>, Vec<Eqn>) {
    let body = &r.body;
    let mut body_types = body.types.clone();
    let mut unknown: HashSet<Var> = body.invars.iter().zip(unknown_in).filter(|(_, &u)| u).map(|(&v, _)| v).collect();
    let (mut known_eqns, mut staged): (Vec<Eqn>, Vec<Eqn>) = (vec![], vec![]);
    let mut run_now = |e: Eqn, staged: &mut Vec<Eqn>| {
        if !r.policy.saveable(&e.prim) {
            staged.push(e.clone());
        }
        known_eqns.push(e);
    };
    for e in &body.eqns {
        let e_unknown: Vec<bool> = e.inputs.iter().map(|a| matches!(a, Atom::Var(v) if unknown.contains(v))).collect();
        if !e_unknown.contains(&true) {
            run_now(e.clone(), &mut staged);
            continue;
        }
        let (known_part, rest) = split_eqn(e, &e_unknown, &mut body_types).unwrap_or_else(|| (vec![], vec![e.clone()]));
        let known_outs: HashSet<Var> = known_part.iter().flat_map(|k| k.outputs.iter().copied()).collect();
        unknown.extend(e.outputs.iter().filter(|v| !known_outs.contains(v)));
        for k in known_part {
            run_now(k, &mut staged);
        }
        staged.extend(rest);
    }
    let out_unknown: Vec<bool> =
        body.outvars.iter().map(|a| matches!(a, Atom::Var(v) if unknown.contains(v))).collect();

    // The staged part: what the unknown outputs need. Its inputs are the saved values (in
    // order of first reading), then the body's inputs it reads (in their order).
    let staged = super::dce(&Jaxpr {
        constvars: vec![],
        invars: vec![],
        eqns: staged,
        outvars: body.outvars.iter().zip(&out_unknown).filter(|(_, &u)| u).map(|(a, _)| a.clone()).collect(),
        types: body_types.clone(),
    });
    // Bound: defined by a staged equation, or already seen read.
    let mut seen: HashSet<Var> = HashSet::new();
    let mut free: Vec<Var> = Vec::new();
    let reads = staged.eqns.iter().flat_map(|e| e.inputs.iter().map(move |a| (a, Some(e))));
    for (a, e) in reads.chain(staged.outvars.iter().map(|a| (a, None))) {
        if let Atom::Var(v) = a {
            if seen.insert(*v) {
                free.push(*v);
            }
        }
        if let Some(e) = e {
            seen.extend(e.outputs.iter().copied());
        }
    }
    let inputs: HashSet<Var> = body.invars.iter().copied().collect();
    let free_set: HashSet<Var> = free.iter().copied().collect();
    let mut staged_in: Vec<Var> = free.iter().copied().filter(|v| !inputs.contains(v)).collect();
    staged_in.extend(body.invars.iter().copied().filter(|v| free_set.contains(v)));

    // The known part, in place: what gives the known outputs and the saved values, the body's
    // variables renamed into the enclosing Jaxpr's (a known output takes the equation's own
    // output variable where it can).
    let known_outs = body.outvars.iter().zip(&out_unknown).filter(|(_, &u)| !u).map(|(a, _)| a.clone());
    let needed = Jaxpr {
        constvars: vec![],
        invars: vec![],
        eqns: known_eqns,
        outvars: known_outs.chain(staged_in.iter().map(|&v| Atom::Var(v))).collect(),
        types: HashMap::new(),
    };
    let known_eqns = with_rounded_residuals(super::dce(&needed).eqns, &staged_in, &body.invars, &mut body_types);
    let mut renamed: HashMap<Var, Atom> = body.invars.iter().copied().zip(eqn.inputs.iter().cloned()).collect();
    let defined: HashSet<Var> = known_eqns.iter().flat_map(|k| k.outputs.iter().copied()).collect();
    let mut copies = Vec::new();
    for ((out, &v), _) in body.outvars.iter().zip(&eqn.outputs).zip(&out_unknown).filter(|(_, &u)| !u) {
        match out {
            Atom::Var(b) if defined.contains(b) && !renamed.contains_key(b) => {
                renamed.insert(*b, Atom::Var(v));
            }
            // An input or a literal returned as it is, or one value returned twice: a copy.
            _ => copies.push((out.clone(), v)),
        }
    }
    let read = |renamed: &HashMap<Var, Atom>, a: &Atom| match a {
        Atom::Var(v) => renamed[v].clone(),
        lit => lit.clone(),
    };
    let mut known = Vec::with_capacity(known_eqns.len() + copies.len());
    for k in &known_eqns {
        let inputs = k.inputs.iter().map(|a| read(&renamed, a)).collect();
        let outputs = k
            .outputs
            .iter()
            .map(|&v| match renamed.get(&v) {
                Some(Atom::Var(outer)) => *outer,
                _ => {
                    let outer = super::fresh_var(types, body_types[&v].clone());
                    renamed.insert(v, Atom::Var(outer));
                    outer
                }
            })
            .collect();
        known.push(Eqn { prim: k.prim.clone(), inputs, outputs, source: k.source.clone() });
    }
    for (out, v) in copies {
        let aval = types[&v].clone();
        let prim = Primitive::ConvertElementType { new_dtype: aval.dtype, weak_type: aval.weak_type };
        known.push(Eqn { prim, inputs: vec![read(&renamed, &out)], outputs: vec![v], source: eqn.source.clone() });
    }
    if !out_unknown.contains(&true) {
        return (known, vec![]);
    }
    let inputs = staged_in.iter().map(|v| read(&renamed, &Atom::Var(*v))).collect();
    let function = std::rc::Rc::new(r.with_body(Jaxpr { invars: staged_in, ..staged }, true));
    let outputs = eqn.outputs.iter().zip(&out_unknown).filter(|(_, &u)| u).map(|(&v, _)| v).collect();
    (known, vec![Eqn { prim: Primitive::Remat { function }, inputs, outputs, source: eqn.source.clone() }])
}

/// `eqns` with each of the values `saved` (those not `inputs`) that the equations also read
/// rounded to its own precision right after it is computed, as JAX's checkpoint does
/// (`_insert_reduce_precision`: a no-op on values, which keeps XLA from computing a saved
/// value at a higher precision in one pass than in the other).
fn with_rounded_residuals(eqns: Vec<Eqn>, saved: &[Var], inputs: &[Var], types: &mut HashMap<Var, Aval>) -> Vec<Eqn> {
    let read: HashSet<Var> = eqns
        .iter()
        .flat_map(|e| e.inputs.iter().filter_map(|a| if let Atom::Var(v) = a { Some(*v) } else { None }))
        .collect();
    let mut out = Vec::with_capacity(eqns.len());
    for mut eqn in eqns {
        let mut rounded = Vec::new();
        for v in eqn.outputs.iter_mut() {
            let aval = types[v].clone();
            let Some((exponent_bits, mantissa_bits)) = aval.dtype.float_bits() else { continue };
            let rounding = Primitive::ReducePrecision { exponent_bits, mantissa_bits };
            if !saved.contains(v) || inputs.contains(v) || !read.contains(v) || eqn.prim == rounding {
                continue;
            }
            let unrounded = super::fresh_var(types, aval);
            rounded.push(Eqn {
                prim: rounding,
                inputs: vec![Atom::Var(unrounded)],
                outputs: vec![*v],
                source: eqn.source.clone(),
            });
            *v = unrounded;
        }
        out.push(eqn);
        out.extend(rounded);
    }
    out
}

/// Partial evaluation of a `while` with some operands unknown (tangents), as JAX's rule does
/// it: the carries that stay known (their initial values are, and the body computes them from
/// known values only: a fixed point) come from a loop of their own, run in the forward pass;
/// the unknown ones from the whole loop, recomputing the known part, in the linear part (whose
/// transpose then fails: reverse mode cannot run a loop backwards). `None` when the condition
/// reads an unknown value, so the loop as a whole is unknown.
fn split_while(
    w: &WhileLoop,
    eqn: &Eqn,
    unknown_in: &[bool],
    types: &mut HashMap<Var, Aval>,
) -> Option<(Vec<Eqn>, Vec<Eqn>)> {
    let [cond_unknown, body_unknown, carry_unknown] = w.split(unknown_in);
    let carries = carried(&w.body, body_unknown, carry_unknown, &[]);
    if depends(&w.cond, &[cond_unknown, &carries].concat())[0] || !carries.contains(&false) {
        return None;
    }
    // The known loop: the condition and the body without the unknown values (which, by the
    // fixed point, nothing they compute reads).
    let keep_in = |jaxpr: &Jaxpr, consts: &[bool]| -> Jaxpr {
        let unknown = [consts, &carries].concat();
        let invars = jaxpr.invars.iter().zip(&unknown).filter(|(_, &u)| !u).map(|(&v, _)| v).collect();
        Jaxpr { invars, ..jaxpr.clone() }
    };
    let mut body = w.body.clone();
    body.outvars = body.outvars.iter().zip(&carries).filter(|(_, &u)| !u).map(|(a, _)| a.clone()).collect();
    let body = keep_in(&super::dce(&body), body_unknown);
    let cond = keep_in(&w.cond, cond_unknown);
    let known_loop = WhileLoop {
        cond,
        cond_consts: cond_unknown.iter().filter(|&&u| !u).count(),
        body,
        body_consts: body_unknown.iter().filter(|&&u| !u).count(),
    };
    let known = Eqn {
        source: eqn.source.clone(),
        prim: Primitive::While { function: std::rc::Rc::new(known_loop) },
        inputs: eqn.inputs.iter().zip(unknown_in).filter(|(_, &u)| !u).map(|(a, _)| a.clone()).collect(),
        outputs: eqn.outputs.iter().zip(&carries).filter(|(_, &u)| !u).map(|(&v, _)| v).collect(),
    };
    // The whole loop gives the unknown carries; its known outputs are new, unread variables.
    let outputs = eqn
        .outputs
        .iter()
        .zip(&carries)
        .map(|(&v, &unknown)| if unknown { v } else { super::fresh_var(types, types[&v].clone()) })
        .collect();
    Some((vec![known], vec![Eqn { outputs, ..eqn.clone() }]))
}

/// Which of `jaxpr`'s outputs depend on the inputs marked `from`. A loop inside is looked
/// into: its outputs that the marked values cannot reach stay unmarked, as partial evaluation
/// keeps them known.
fn depends(jaxpr: &Jaxpr, from: &[bool]) -> Vec<bool> {
    let mut marked: HashSet<Var> = jaxpr.invars.iter().zip(from).filter(|(_, &m)| m).map(|(&v, _)| v).collect();
    for eqn in &jaxpr.eqns {
        let ins: Vec<bool> = eqn.inputs.iter().map(|a| matches!(a, Atom::Var(v) if marked.contains(v))).collect();
        if !ins.contains(&true) {
            continue;
        }
        let outs = match &eqn.prim {
            Primitive::Scan { function: s } => {
                let [consts, carries, rows] = s.split(&ins);
                let carries = carried(&s.body, consts, carries, rows);
                let outs = depends(&s.body, &[consts, &carries, rows].concat());
                [&carries[..], &outs[s.carries..]].concat()
            }
            Primitive::Cond { function: c } if !ins[0] => {
                let mut outs = vec![false; eqn.outputs.len()];
                for branch in &c.branches {
                    outs.iter_mut().zip(depends(branch, &ins[1..])).for_each(|(o, d)| *o |= d);
                }
                outs
            }
            Primitive::While { function: w } => {
                let [cond_consts, body_consts, carries] = w.split(&ins);
                let carries = carried(&w.body, body_consts, carries, &[]);
                if depends(&w.cond, &[cond_consts, &carries].concat())[0] {
                    vec![true; eqn.outputs.len()]
                } else {
                    carries
                }
            }
            prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }) => {
                depends(prim.call_body().expect("a call"), &ins)
            }
            _ => vec![true; eqn.outputs.len()],
        };
        marked.extend(eqn.outputs.iter().zip(outs).filter(|(_, m)| *m).map(|(&v, _)| v));
    }
    jaxpr.outvars.iter().map(|a| matches!(a, Atom::Var(v) if marked.contains(v))).collect()
}

/// Which carries of a loop body (inputs `before`, the carries, `after`; the carries first
/// among its outputs) depend on the marked inputs: those marked at the start, and those the
/// body makes depend on a marked value, until nothing changes (a fixed point).
fn carried(body: &Jaxpr, before: &[bool], carries: &[bool], after: &[bool]) -> Vec<bool> {
    let mut carries = carries.to_vec();
    loop {
        let outs = depends(body, &[before, &carries, after].concat());
        let widened: Vec<bool> = carries.iter().zip(&outs).map(|(&c, &o)| c || o).collect();
        if widened == carries {
            return carries;
        }
        carries = widened;
    }
}

/// JAX's error for reverse mode through a `while`.
pub const WHILE_REVERSE: &str = "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop \
     with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.";

/// The transpose of a linear map ([`Linearized::linear`], its first `num_residuals` inputs
/// the residuals): the residuals and a cotangent per output flagged in `diff_out` to a
/// cotangent per tangent input.
pub fn transpose(linear: &Jaxpr, num_residuals: usize, diff_out: &[bool]) -> Result<Jaxpr> {
    let inputs: Vec<Var> = linear.all_inputs().collect();
    let (residuals, tangents_in) = inputs.split_at(num_residuals);
    transpose_linear(&linear.types, residuals, tangents_in, &linear.eqns, &linear.outvars, diff_out)
}

/// How an operand of a linear equation appears to its transpose rule.
enum LinIn {
    /// A value known in the forward pass (a residual or a literal).
    Known(Atom),
    /// A linear value, whose cotangent the rule computes.
    Linear(Aval),
}

fn transpose_linear(
    types: &HashMap<Var, Aval>,
    residuals: &[Var],
    linear_in: &[Var],
    eqns: &[Eqn],
    outs: &[Atom],
    diff_out: &[bool],
) -> Result<Jaxpr> {
    let mut b = Builder::new();
    let mut known: HashMap<Var, Atom> = residuals.iter().map(|&r| (r, b.input(types[&r].clone()))).collect();
    let mut linear: HashSet<Var> = linear_in.iter().copied().collect();
    // An equation reading no linear value (what a checkpoint recomputes) runs first, forward,
    // as in JAX's backward pass; the rest are transposed in reverse order.
    let mut linear_eqns: Vec<&Eqn> = Vec::with_capacity(eqns.len());
    for eqn in eqns {
        if eqn.inputs.iter().any(|a| matches!(a, Atom::Var(v) if linear.contains(v))) {
            linear.extend(eqn.outputs.iter().copied());
            linear_eqns.push(eqn);
        } else {
            b.source = eqn.source.clone();
            let ins: Vec<Atom> = eqn
                .inputs
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => known[v].clone(),
                    lit => lit.clone(),
                })
                .collect();
            let outs = b.bind(eqn.prim.clone(), &ins)?;
            known.extend(eqn.outputs.iter().copied().zip(outs));
        }
    }
    let mut ct: HashMap<Var, Atom> = HashMap::new();
    let accumulate = |b: &mut Builder, ct: &mut HashMap<Var, Atom>, v: Var, c: Atom| -> Result<()> {
        let total = match ct.remove(&v) {
            Some(prev) => b.add_any(&prev, &c)?,
            None => c,
        };
        ct.insert(v, total);
        Ok(())
    };
    for (out, _) in outs.iter().zip(diff_out).filter(|(_, &d)| d) {
        let aval = match out {
            Atom::Var(v) => types[v].clone(),
            Atom::Literal(l) => l.aval.clone(),
        };
        let c = b.input(aval);
        if let Atom::Var(v) = out {
            if linear.contains(v) {
                accumulate(&mut b, &mut ct, *v, c)?;
            }
        }
    }
    for eqn in linear_eqns.into_iter().rev() {
        b.source = eqn.source.clone();
        let classify = || -> Vec<LinIn> {
            eqn.inputs
                .iter()
                .map(|a| match a {
                    Atom::Var(v) if linear.contains(v) => LinIn::Linear(types[v].clone()),
                    Atom::Var(v) => LinIn::Known(known[v].clone()),
                    lit => LinIn::Known(lit.clone()),
                })
                .collect()
        };
        let cts = match &eqn.prim {
            Primitive::While { .. } => {
                if eqn.outputs.iter().any(|v| ct.contains_key(v)) {
                    return Err(JaxError(WHILE_REVERSE.into()));
                }
                continue;
            }
            Primitive::Scan { function } => {
                let Some(ct_outs) = take_cotangents(&mut ct, &eqn.outputs) else { continue };
                scan_transpose(&mut b, function, &classify(), ct_outs)?
            }
            Primitive::Cond { function } => {
                let Some(ct_outs) = take_cotangents(&mut ct, &eqn.outputs) else { continue };
                cond_transpose(&mut b, function, &classify(), ct_outs)?
            }
            Primitive::Jit { function } => {
                let Some(ct_outs) = take_cotangents(&mut ct, &eqn.outputs) else { continue };
                jit_transpose(&mut b, function, &classify(), ct_outs)?
            }
            Primitive::Remat { function } => {
                let Some(ct_outs) = take_cotangents(&mut ct, &eqn.outputs) else { continue };
                remat_transpose(&mut b, function, &classify(), ct_outs)?
            }
            Primitive::CustomVjpTangent { function } => {
                let Some(ct_outs) = take_cotangents(&mut ct, &eqn.outputs) else { continue };
                custom_vjp_transpose(&mut b, function, &classify(), ct_outs)?
            }
            // JVP calls a callback on primal values only, so none reads a tangent.
            Primitive::Callback { .. } => {
                return Err(JaxError(format!("internal error: {} in a linear function", eqn.prim.name())))
            }
            prim => {
                let Some(ct_out) = ct.remove(&eqn.outputs[0]) else {
                    continue;
                };
                transpose_rule(&mut b, prim, &classify(), &ct_out)?
            }
        };
        for (a, c) in eqn.inputs.iter().zip(cts) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if linear.contains(v) {
                    accumulate(&mut b, &mut ct, *v, c)?;
                }
            }
        }
    }
    let mut results = Vec::new();
    for v in linear_in {
        results.push(match ct.remove(v) {
            Some(c) => c,
            None => b.zeros(&types[v])?,
        });
    }
    Ok(b.finish(results))
}

/// The cotangents of an equation's outputs, taken from `ct`; `None` when none has one (the
/// equation then contributes nothing).
fn take_cotangents(ct: &mut HashMap<Var, Atom>, outputs: &[Var]) -> Option<Vec<Option<Atom>>> {
    let cts: Vec<Option<Atom>> = outputs.iter().map(|v| ct.remove(v)).collect();
    cts.iter().any(Option::is_some).then_some(cts)
}

/// The transpose of a linear `scan` (one from `split_scan`: its known operands are closed-over
/// values and rows of `xs`, every carry is linear): a scan running the other way, whose body
/// is the body transposed. It carries the carries' cotangents and the sums of the linear
/// closed-over values' cotangents, and reads the outputs' cotangent rows beside the known
/// rows; its `ys` are the linear `xs`' cotangent rows. Returns a cotangent per operand.
fn scan_transpose(
    b: &mut Builder,
    s: &ScanLoop,
    ins: &[LinIn],
    ct_outs: Vec<Option<Atom>>,
) -> Result<Vec<Option<Atom>>> {
    let [const_ins, _, row_ins] = s.split(ins);
    let is_linear = |i: &LinIn| matches!(i, LinIn::Linear(_));
    let const_linear: Vec<bool> = const_ins.iter().map(is_linear).collect();
    let row_linear: Vec<bool> = row_ins.iter().map(is_linear).collect();
    let xs_start = s.consts + s.carries;
    let linear_at = |i: usize| {
        if i < s.consts {
            const_linear[i]
        } else if i < xs_start {
            true
        } else {
            row_linear[i - xs_start]
        }
    };
    let body = &s.body;
    let (mut known_vars, mut linear_vars) = (vec![], vec![]);
    for (i, &v) in body.invars.iter().enumerate() {
        if linear_at(i) { &mut linear_vars } else { &mut known_vars }.push(v);
    }
    // (known closed-over values, known rows, a cotangent per output) -> a cotangent per linear
    // input: the linear closed-over values, the carries, the linear rows.
    let everything = vec![true; body.outvars.len()];
    let transposed = transpose_linear(&body.types, &known_vars, &linear_vars, &body.eqns, &body.outvars, &everything)?;
    let aval = |i: usize| body.aval(body.invars[i]).clone();
    let out_aval = |i: usize| body.atom_aval(&body.outvars[i]).clone();
    let n_linear_consts = const_linear.iter().filter(|&&l| l).count();
    let mut k = Builder::new();
    let known_consts: Vec<Atom> = (0..s.consts).filter(|&i| !const_linear[i]).map(|i| k.input(aval(i))).collect();
    let sums: Vec<Atom> = (0..s.consts).filter(|&i| const_linear[i]).map(|i| k.input(aval(i))).collect();
    let carry_cts: Vec<Atom> = (0..s.carries).map(|i| k.input(out_aval(i))).collect();
    let y_cts: Vec<Atom> = (s.carries..body.outvars.len()).map(|i| k.input(out_aval(i))).collect();
    let known_rows: Vec<Atom> =
        (xs_start..body.invars.len()).filter(|&i| !linear_at(i)).map(|i| k.input(aval(i))).collect();
    let step = k.inline(&transposed, &[&known_consts[..], &known_rows, &carry_cts, &y_cts].concat())?;
    let (const_cts, rest) = step.split_at(n_linear_consts);
    let (carry_cts_in, row_cts) = rest.split_at(s.carries);
    let mut outs = Vec::with_capacity(step.len());
    for (sum, c) in sums.iter().zip(const_cts) {
        outs.push(k.add_any(sum, c)?);
    }
    outs.extend(carry_cts_in.iter().cloned());
    outs.extend(row_cts.iter().cloned());
    let reversed = ScanLoop {
        body: k.finish(outs),
        consts: known_consts.len(),
        carries: n_linear_consts + s.carries,
        reverse: !s.reverse,
        ..s.clone()
    };
    // Operands: the known closed-over values, zero sums, the carries' cotangents, the ys'
    // cotangents, the known rows.
    let known_atom = |i: &LinIn| match i {
        LinIn::Known(a) => Some(a.clone()),
        LinIn::Linear(_) => None,
    };
    let mut operands: Vec<Atom> = const_ins.iter().filter_map(known_atom).collect();
    for i in (0..s.consts).filter(|&i| const_linear[i]) {
        operands.push(b.zeros(&aval(i))?);
    }
    for (i, ct) in ct_outs.iter().enumerate() {
        let aval = if i < s.carries { out_aval(i) } else { crate::control::stacked(&out_aval(i), s.length) };
        operands.push(match ct {
            Some(c) => c.clone(),
            None => b.zeros(&aval)?,
        });
    }
    operands.extend(row_ins.iter().filter_map(known_atom));
    let results = b.bind(Primitive::Scan { function: std::rc::Rc::new(reversed) }, &operands)?;
    let (sums, rest) = results.split_at(n_linear_consts);
    let (carry_cts, row_cts) = rest.split_at(s.carries);
    let mut sums = sums.iter().cloned();
    let mut row_cts = row_cts.iter().cloned();
    let mut cts: Vec<Option<Atom>> = const_linear.iter().map(|&l| if l { sums.next() } else { None }).collect();
    cts.extend(carry_cts.iter().cloned().map(Some));
    cts.extend(row_linear.iter().map(|&l| if l { row_cts.next() } else { None }));
    Ok(cts)
}

/// The transpose of a linear `cond` (one from `split_cond`: its known operands are the index
/// and residuals): a `cond` on the same index whose branches are the branches transposed,
/// taking the known operands and the outputs' cotangents and giving the linear operands'
/// cotangents (zeros from a branch that does not read one). Returns a cotangent per operand.
fn cond_transpose(
    b: &mut Builder,
    c: &Branches,
    ins: &[LinIn],
    ct_outs: Vec<Option<Atom>>,
) -> Result<Vec<Option<Atom>>> {
    let Some((LinIn::Known(index), operands)) = ins.split_first() else {
        return Err(JaxError("internal error: a cond's index is linear".into()));
    };
    let linear: Vec<bool> = operands.iter().map(|i| matches!(i, LinIn::Linear(_))).collect();
    let every = vec![true; ct_outs.len()];
    let mut branches = Vec::with_capacity(c.branches.len());
    for branch in &c.branches {
        let (mut known_vars, mut linear_vars) = (vec![], vec![]);
        for (&v, &l) in branch.invars.iter().zip(&linear) {
            if l { &mut linear_vars } else { &mut known_vars }.push(v);
        }
        branches.push(transpose_linear(
            &branch.types,
            &known_vars,
            &linear_vars,
            &branch.eqns,
            &branch.outvars,
            &every,
        )?);
    }
    let mut args = vec![index.clone()];
    args.extend(operands.iter().filter_map(|i| match i {
        LinIn::Known(a) => Some(a.clone()),
        LinIn::Linear(_) => None,
    }));
    let out_avals: Vec<Aval> = c.branches[0].outvars.iter().map(|a| c.branches[0].atom_aval(a).clone()).collect();
    for (ct, aval) in ct_outs.into_iter().zip(&out_avals) {
        args.push(match ct {
            Some(ct) => ct,
            None => b.zeros(aval)?,
        });
    }
    let cts = b.bind(Primitive::Cond { function: std::rc::Rc::new(Branches { branches }) }, &args)?;
    let mut cts = cts.into_iter();
    let mut out = vec![None];
    out.extend(linear.iter().map(|&l| if l { cts.next() } else { None }));
    Ok(out)
}

/// The cotangents of `jaxpr`'s outputs, zeros where none reached one.
fn with_zeros(b: &mut Builder, cts: Vec<Option<Atom>>, jaxpr: &Jaxpr) -> Result<Vec<Atom>> {
    cts.into_iter()
        .zip(&jaxpr.outvars)
        .map(|(ct, out)| match ct {
            Some(ct) => Ok(ct),
            None => b.zeros(jaxpr.atom_aval(out)),
        })
        .collect()
}

/// The transpose of a `custom_vjp` function's tangents: the user's backward pass, from the
/// residuals and the outputs' cotangents (zeros where none reached an output, as JAX passes
/// them) to the arguments' cotangents. Returns a cotangent per operand.
fn custom_vjp_transpose(
    b: &mut Builder,
    function: &CustomVjp,
    ins: &[LinIn],
    ct_outs: Vec<Option<Atom>>,
) -> Result<Vec<Option<Atom>>> {
    let [bwd_consts, residuals, tangents] = function.split_tangent(ins);
    let mut bwd_ins = Vec::new();
    for i in bwd_consts.iter().chain(residuals) {
        match i {
            LinIn::Known(a) => bwd_ins.push(a.clone()),
            LinIn::Linear(_) => {
                return Err(JaxError(format!(
                    "internal error: a residual of custom_vjp function {} is linear",
                    function.name
                )))
            }
        }
    }
    bwd_ins.extend(with_zeros(b, ct_outs, &function.call)?);
    let cts = b.inline(function.traced_passes()?.1, &bwd_ins)?;
    let mut out = vec![None; ins.len() - tangents.len()];
    out.extend(cts.into_iter().map(Some));
    Ok(out)
}

/// The transpose of a linear nested `jit`: a `jit` of the same name whose body is the body
/// transposed. Returns a cotangent per operand.
fn jit_transpose(
    b: &mut Builder,
    j: &JitFunction,
    ins: &[LinIn],
    ct_outs: Vec<Option<Atom>>,
) -> Result<Vec<Option<Atom>>> {
    transposed_call(b, &j.body, ins, ct_outs, |body| Primitive::Jit {
        function: std::rc::Rc::new(JitFunction { name: j.name.clone(), body, consts: 0 }),
    })
}

/// The transpose of a linear `jax.checkpoint` (one from `split_remat`): a checkpoint whose
/// body recomputes what the forward pass did not keep, then runs the linear equations
/// transposed, as JAX's rule does. Returns a cotangent per operand.
fn remat_transpose(b: &mut Builder, r: &Remat, ins: &[LinIn], ct_outs: Vec<Option<Atom>>) -> Result<Vec<Option<Atom>>> {
    transposed_call(b, &r.body, ins, ct_outs, |body| Primitive::Remat {
        function: std::rc::Rc::new(r.with_body(body, true)),
    })
}

/// An equation calling `body` transposed (`call` makes its primitive from the transposed
/// body), taking the known operands and the outputs' cotangents and giving the linear
/// operands' cotangents. Returns a cotangent per operand.
fn transposed_call(
    b: &mut Builder,
    body: &Jaxpr,
    ins: &[LinIn],
    ct_outs: Vec<Option<Atom>>,
    call: impl FnOnce(Jaxpr) -> Primitive,
) -> Result<Vec<Option<Atom>>> {
    let linear: Vec<bool> = ins.iter().map(|i| matches!(i, LinIn::Linear(_))).collect();
    let (mut known_vars, mut linear_vars) = (vec![], vec![]);
    for (&v, &l) in body.invars.iter().zip(&linear) {
        if l { &mut linear_vars } else { &mut known_vars }.push(v);
    }
    let every = vec![true; ct_outs.len()];
    let transposed = transpose_linear(&body.types, &known_vars, &linear_vars, &body.eqns, &body.outvars, &every)?;
    let mut args: Vec<Atom> = ins
        .iter()
        .filter_map(|i| match i {
            LinIn::Known(a) => Some(a.clone()),
            LinIn::Linear(_) => None,
        })
        .collect();
    args.extend(with_zeros(b, ct_outs, body)?);
    let cts = b.bind(call(transposed), &args)?;
    let mut cts = cts.into_iter();
    Ok(linear.iter().map(|&l| if l { cts.next() } else { None }).collect())
}

/// Sums a cotangent down to the shape of a rank-0 operand that was broadcast.
fn unbroadcast(b: &mut Builder, ct: &Atom, aval: &Aval) -> Result<Atom> {
    let rank = b.shape(ct).len();
    if aval.rank() == 0 && rank > 0 {
        b.reduce_sum(ct, (0..rank).collect())
    } else {
        Ok(ct.clone())
    }
}

// Rules index operands and their cotangents in parallel, by position, as the Jaxpr does.
#[allow(clippy::needless_range_loop)]
fn transpose_rule(b: &mut Builder, prim: &Primitive, ins: &[LinIn], ct: &Atom) -> Result<Vec<Option<Atom>>> {
    let linear = |i: usize| match ins.get(i) {
        Some(LinIn::Linear(aval)) => Some(aval.clone()),
        _ => None,
    };
    let known = |i: usize| match ins.get(i) {
        Some(LinIn::Known(a)) => Some(a.clone()),
        _ => None,
    };
    // Every built-in JVP rule is linear in its tangents; a custom_jvp rule may not be.
    let not_linear = || {
        JaxError(format!(
            "Transpose rule (for reverse-mode differentiation) for '{}' not implemented: the tangents \
             a custom_jvp rule returns must be linear in its input tangents",
            prim.name()
        ))
    };
    let mut out: Vec<Option<Atom>> = vec![None; ins.len()];
    match prim {
        Primitive::Unary(UnaryOp::Neg) => out[0] = Some(b.neg(ct)?),
        Primitive::Unary(UnaryOp::Copy) => out[0] = Some(b.unary(UnaryOp::Copy, ct)?),
        Primitive::ReducePrecision { .. } => out[0] = Some(b.bind1(prim.clone(), std::slice::from_ref(ct))?),
        Primitive::AddAny => {
            for (i, slot) in out.iter_mut().enumerate() {
                if linear(i).is_some() {
                    *slot = Some(ct.clone());
                }
            }
        }
        Primitive::Binary(op @ (BinaryOp::Add | BinaryOp::Sub)) => {
            for i in 0..2 {
                if let Some(aval) = linear(i) {
                    let c = unbroadcast(b, ct, &aval)?;
                    out[i] = Some(if i == 1 && *op == BinaryOp::Sub { b.neg(&c)? } else { c });
                }
            }
        }
        Primitive::Binary(BinaryOp::Mul) => {
            let (i, other) = match (linear(0), linear(1)) {
                (Some(_), None) => (0, known(1)),
                (None, Some(_)) => (1, known(0)),
                _ => return Err(not_linear()),
            };
            let other = other.ok_or_else(not_linear)?;
            let aval = linear(i).ok_or_else(not_linear)?;
            // The cotangent where the linear operand was, as JAX's rule writes it.
            let c = if i == 0 { b.mul(ct, &other)? } else { b.mul(&other, ct)? };
            out[i] = Some(unbroadcast(b, &c, &aval)?);
        }
        Primitive::Binary(BinaryOp::Div) => {
            let (Some(aval), Some(y)) = (linear(0), known(1)) else {
                return Err(not_linear());
            };
            let c = b.div(ct, &y)?;
            out[0] = Some(unbroadcast(b, &c, &aval)?);
        }
        Primitive::ConvertElementType { .. } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            out[0] = Some(b.convert(ct, aval.dtype)?);
        }
        // The cotangent is laid out as the value was, as JAX's transpose rule does.
        Primitive::ShardingConstraint { .. } => {
            linear(0).ok_or_else(not_linear)?;
            out[0] = Some(b.bind1(prim.clone(), std::slice::from_ref(ct))?);
        }
        Primitive::Reshape { .. } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            out[0] = Some(b.reshape(ct, &aval.shape)?);
        }
        // JAX's `expand_dims`: the squeezed axes broadcast back.
        Primitive::Squeeze { dimensions } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            let kept = (0..aval.rank()).filter(|d| !dimensions.contains(d)).collect();
            out[0] = Some(b.broadcast_in_dim(ct, &aval.shape, kept)?);
        }
        // Its own transpose: a permutation that undoes itself.
        Primitive::Rev { .. } => {
            linear(0).ok_or_else(not_linear)?;
            out[0] = Some(b.bind1(prim.clone(), std::slice::from_ref(ct))?);
        }
        Primitive::BroadcastInDim { shape, broadcast_dimensions } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            let mut axes: Vec<usize> = (0..shape.len()).filter(|d| !broadcast_dimensions.contains(d)).collect();
            for (k, &d) in broadcast_dimensions.iter().enumerate() {
                if aval.shape[k] == 1 && shape[d] != 1 {
                    axes.push(d);
                }
            }
            axes.sort_unstable();
            let summed = b.reduce_sum(ct, axes)?;
            out[0] = Some(b.reshape(&summed, &aval.shape)?);
        }
        Primitive::Transpose { permutation } => {
            let mut inverse = vec![0; permutation.len()];
            for (i, &p) in permutation.iter().enumerate() {
                inverse[p] = i;
            }
            out[0] = Some(b.transpose(ct, inverse)?);
        }
        Primitive::ReduceSum { axes } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            let kept: Vec<usize> = (0..aval.rank()).filter(|d| !axes.contains(d)).collect();
            out[0] = Some(b.broadcast_in_dim(ct, &aval.shape, kept)?);
        }
        Primitive::Cumsum { axis, reverse } => {
            out[0] = Some(b.bind1(Primitive::Cumsum { axis: *axis, reverse: !reverse }, std::slice::from_ref(ct))?);
        }
        Primitive::Collective { op, axis_name, axis_size } => {
            let op = op.transpose().ok_or_else(not_linear)?;
            let back = Primitive::Collective { op, axis_name: axis_name.clone(), axis_size: *axis_size };
            out[0] = Some(b.bind1(back, std::slice::from_ref(ct))?);
        }
        Primitive::Slice { start_indices, strides, .. } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            let ct_shape = b.shape(ct);
            if ct_shape.contains(&0) {
                out[0] = Some(b.zeros(&aval)?);
            } else {
                let config = (0..aval.rank())
                    .map(|d| {
                        let step = strides.as_ref().map_or(1, |s| s[d]);
                        let last = start_indices[d] + (ct_shape[d] - 1) * step;
                        (start_indices[d] as i64, aval.shape[d] as i64 - last as i64 - 1, step - 1)
                    })
                    .collect();
                let zero = b.lit(0.0, aval.dtype);
                out[0] = Some(b.bind1(Primitive::Pad { config }, &[ct.clone(), zero])?);
            }
        }
        Primitive::Pad { config } => {
            let dtype = b.aval(ct).dtype;
            let zero = b.lit(0.0, dtype);
            let unpad_config = config.iter().map(|&(lo, hi, _)| (-lo, -hi, 0)).collect();
            let unpadded = b.bind1(Primitive::Pad { config: unpad_config }, &[ct.clone(), zero])?;
            let shape = b.shape(&unpadded);
            let operand_ct = b.bind1(
                Primitive::Slice {
                    start_indices: vec![0; shape.len()],
                    limit_indices: shape,
                    strides: Some(config.iter().map(|&(_, _, i)| i + 1).collect()),
                },
                &[unpadded],
            )?;
            if linear(1).is_some() {
                let rank = b.shape(ct).len();
                let total = b.reduce_sum(ct, (0..rank).collect())?;
                let inner = b.reduce_sum(&operand_ct, (0..rank).collect())?;
                out[1] = Some(b.sub(&total, &inner)?);
            }
            if linear(0).is_some() {
                out[0] = Some(operand_ct);
            }
        }
        Primitive::Concatenate { dimension } => {
            let ct_shape = b.shape(ct);
            let mut offset = 0;
            for (i, input) in ins.iter().enumerate() {
                let size = match input {
                    LinIn::Linear(aval) => aval.shape[*dimension],
                    LinIn::Known(a) => b.shape(a)[*dimension],
                };
                if let LinIn::Linear(_) = input {
                    let mut start = vec![0; ct_shape.len()];
                    let mut limit = ct_shape.clone();
                    start[*dimension] = offset;
                    limit[*dimension] = offset + size;
                    out[i] = Some(b.bind1(
                        Primitive::Slice { start_indices: start, limit_indices: limit, strides: None },
                        std::slice::from_ref(ct),
                    )?);
                }
                offset += size;
            }
        }
        Primitive::SelectN => {
            let which = known(0).ok_or_else(not_linear)?;
            let aval = b.aval(ct);
            let zeros = b.zeros(&aval)?;
            for i in 1..ins.len() {
                if linear(i).is_some() {
                    let mut args = vec![which.clone()];
                    for j in 1..ins.len() {
                        args.push(if j == i { ct.clone() } else { zeros.clone() });
                    }
                    out[i] = Some(b.bind1(Primitive::SelectN, &args)?);
                }
            }
        }
        Primitive::DotGeneral { dims, precision, preferred_element_type } => {
            let remake = |dims: DotDims| Primitive::DotGeneral {
                dims,
                precision: *precision,
                preferred_element_type: *preferred_element_type,
            };
            match (linear(0), linear(1)) {
                (Some(x_aval), None) => {
                    let y = known(1).ok_or_else(not_linear)?;
                    let y_rank = b.shape(&y).len();
                    out[0] = Some(dot_transpose_lhs(b, ct, &y, &x_aval, y_rank, dims, false, &remake)?);
                }
                (None, Some(y_aval)) => {
                    let x = known(0).ok_or_else(not_linear)?;
                    let x_rank = b.shape(&x).len();
                    let swapped = DotDims {
                        lhs_contracting: dims.rhs_contracting.clone(),
                        rhs_contracting: dims.lhs_contracting.clone(),
                        lhs_batch: dims.rhs_batch.clone(),
                        rhs_batch: dims.lhs_batch.clone(),
                    };
                    out[1] = Some(dot_transpose_lhs(b, ct, &x, &y_aval, x_rank, &swapped, true, &remake)?);
                }
                _ => return Err(not_linear()),
            }
        }
        Primitive::DynamicSlice { .. } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            let zeros = b.zeros(&aval)?;
            let mut args = vec![zeros, ct.clone()];
            for i in 1..ins.len() {
                args.push(known(i).ok_or_else(not_linear)?);
            }
            out[0] = Some(b.bind1(Primitive::DynamicUpdateSlice, &args)?);
        }
        Primitive::DynamicUpdateSlice => {
            let indices: Vec<Atom> = (2..ins.len()).map(|i| known(i).ok_or_else(not_linear)).collect::<Result<_>>()?;
            let update_aval = match &ins[1] {
                LinIn::Linear(aval) => aval.clone(),
                LinIn::Known(a) => b.aval(a),
            };
            if linear(0).is_some() {
                let zeros = b.zeros(&update_aval)?;
                let mut args = vec![ct.clone(), zeros];
                args.extend(indices.iter().cloned());
                out[0] = Some(b.bind1(Primitive::DynamicUpdateSlice, &args)?);
            }
            if linear(1).is_some() {
                let mut args = vec![ct.clone()];
                args.extend(indices);
                out[1] = Some(b.bind1(Primitive::DynamicSlice { slice_sizes: update_aval.shape.clone() }, &args)?);
            }
        }
        _ => return Err(not_linear()),
    }
    Ok(out)
}

/// Consecutive index ranges with the lengths of `lens`: `([0, 1], [2], [3, 4])`.
fn ranges_like(lens: &[usize]) -> Vec<Vec<usize>> {
    let mut start = 0;
    lens.iter()
        .map(|&n| {
            let r = (start..start + n).collect();
            start += n;
            r
        })
        .collect()
}

fn remaining(rank: usize, a: &[usize], b: &[usize]) -> Vec<usize> {
    (0..rank).filter(|d| !a.contains(d) && !b.contains(d)).collect()
}

fn argsort(v: &[usize]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by_key(|&i| v[i]);
    idx
}

/// The cotangent of dot_general's left operand (JAX's `_dot_general_transpose_lhs`); with
/// `swap_ans` and swapped dimension numbers, of its right operand.
#[allow(clippy::too_many_arguments)]
fn dot_transpose_lhs(
    b: &mut Builder,
    g: &Atom,
    y: &Atom,
    x_aval: &Aval,
    y_rank: usize,
    dims: &DotDims,
    swap_ans: bool,
    remake: &dyn Fn(DotDims) -> Primitive,
) -> Result<Atom> {
    let (x_contract, y_contract) = (&dims.lhs_contracting, &dims.rhs_contracting);
    let (x_batch, y_batch) = (&dims.lhs_batch, &dims.rhs_batch);
    let x_kept = remaining(x_aval.rank(), x_contract, x_batch);
    let y_kept = remaining(y_rank, y_contract, y_batch);
    let (ans_batch, ans_y) = if swap_ans {
        let r = ranges_like(&[x_batch.len(), y_kept.len(), x_kept.len()]);
        (r[0].clone(), r[1].clone())
    } else {
        let r = ranges_like(&[x_batch.len(), x_kept.len(), y_kept.len()]);
        (r[0].clone(), r[2].clone())
    };
    let new_dims =
        DotDims { lhs_contracting: ans_y, rhs_contracting: y_kept, lhs_batch: ans_batch, rhs_batch: y_batch.clone() };
    let order = argsort(y_contract);
    let x_contract_sorted_by_y: Vec<usize> = order.iter().map(|&i| x_contract[i]).collect();
    let mut all: Vec<usize> = x_batch.clone();
    all.extend(&x_kept);
    all.extend(&x_contract_sorted_by_y);
    let out_axes = argsort(&all);
    let r = b.bind1(remake(new_dims), &[g.clone(), y.clone()])?;
    // Transposed, then converted to the operand's dtype (a mixed-precision dot's float32 sums
    // back to bfloat16), in JAX's order.
    let r = b.transpose(&r, out_axes)?;
    b.convert(&r, x_aval.dtype)
}
