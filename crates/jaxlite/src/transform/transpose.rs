//! Reverse mode: linearize (JVP, then split the known primal computation from the linear
//! tangent computation) and transpose the linear part, as JAX does. The transpose rules are
//! needed only for the primitives JVP rules apply to tangents.

use super::{jvp, Builder, Result};
use crate::array::Aval;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Var};
use crate::prim::{BinaryOp, DotDims, Primitive, UnaryOp, WhileLoop};
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
    let (split, _) = partial_eval(jaxpr, diff_in)?;
    Ok(split)
}

/// `linearize`, and the pieces `vjp` transposes: the linear equations and the tangent inputs'
/// and outputs' atoms.
fn partial_eval(jaxpr: &Jaxpr, diff_in: &[bool]) -> Result<(Linearized, LinearPart)> {
    let n_in = jaxpr.all_inputs().count();
    let n_out = jaxpr.outvars.len();
    let lin = jvp(jaxpr, diff_in)?;
    let (primal_in, tangent_in) = lin.invars.split_at(n_in);
    let mut unknown: HashSet<Var> = tangent_in.iter().copied().collect();
    let (mut known_eqns, mut linear_eqns): (Vec<Eqn>, Vec<Eqn>) = (vec![], vec![]);
    let mut types = lin.types.clone();
    for eqn in &lin.eqns {
        let unknown_in: Vec<bool> =
            eqn.inputs.iter().map(|a| matches!(a, Atom::Var(v) if unknown.contains(v))).collect();
        if !unknown_in.contains(&true) {
            known_eqns.push(eqn.clone());
            continue;
        }
        if let Primitive::While { function } = &eqn.prim {
            if let Some((known, linear)) = split_while(function, eqn, &unknown_in, &mut types) {
                let known_outs: HashSet<Var> = known.outputs.iter().copied().collect();
                unknown.extend(eqn.outputs.iter().filter(|v| !known_outs.contains(v)));
                known_eqns.push(known);
                linear_eqns.push(linear);
                continue;
            }
        }
        unknown.extend(eqn.outputs.iter().copied());
        linear_eqns.push(eqn.clone());
    }
    let tangent_out = lin.outvars[n_out..].to_vec();
    let mut residuals: Vec<Var> = Vec::new();
    let note = |a: &Atom, residuals: &mut Vec<Var>| {
        if let Atom::Var(v) = a {
            if !unknown.contains(v) && !residuals.contains(v) {
                residuals.push(*v);
            }
        }
    };
    for eqn in &linear_eqns {
        for a in &eqn.inputs {
            note(a, &mut residuals);
        }
    }
    for a in &tangent_out {
        note(a, &mut residuals);
    }
    let mut forward_outs: Vec<Atom> = lin.outvars[..n_out].to_vec();
    forward_outs.extend(residuals.iter().map(|&v| Atom::Var(v)));
    let forward = Jaxpr {
        constvars: vec![],
        invars: primal_in.to_vec(),
        eqns: known_eqns,
        outvars: forward_outs,
        types: types.clone(),
    };
    let mut linear_in = residuals.clone();
    linear_in.extend(tangent_in);
    let linear = Jaxpr {
        constvars: vec![],
        invars: linear_in,
        eqns: linear_eqns.clone(),
        outvars: tangent_out.clone(),
        types: types.clone(),
    };
    let part = LinearPart { types, residuals, tangent_in: tangent_in.to_vec(), eqns: linear_eqns, tangent_out };
    Ok((Linearized { forward, num_residuals: part.residuals.len(), linear }, part))
}

/// Partial evaluation of a `while` with some operands unknown (tangents), as JAX's rule does
/// it: the carries that stay known (their initial values are, and the body computes them from
/// known values only: a fixed point) come from a loop of their own, run in the forward pass;
/// the unknown ones from the whole loop, recomputing the known part, in the linear part (whose
/// transpose then fails: reverse mode cannot run a loop backwards). `None` when the condition
/// reads an unknown value, so the loop as a whole is unknown.
fn split_while(w: &WhileLoop, eqn: &Eqn, unknown_in: &[bool], types: &mut HashMap<Var, Aval>) -> Option<(Eqn, Eqn)> {
    let [cond_unknown, body_unknown, carry_unknown] = w.split(unknown_in);
    let mut carries = carry_unknown.to_vec();
    loop {
        let outs = depends(&w.body, &[body_unknown, &carries].concat());
        let widened: Vec<bool> = carries.iter().zip(&outs).map(|(&c, &o)| c || o).collect();
        if widened == carries {
            break;
        }
        carries = widened;
    }
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
        prim: Primitive::While { function: std::rc::Rc::new(known_loop) },
        inputs: eqn.inputs.iter().zip(unknown_in).filter(|(_, &u)| !u).map(|(a, _)| a.clone()).collect(),
        outputs: eqn.outputs.iter().zip(&carries).filter(|(_, &u)| !u).map(|(&v, _)| v).collect(),
    };
    // The whole loop gives the unknown carries; its known outputs are new, unread variables.
    let mut next = types.keys().map(|v| v.0 + 1).max().unwrap_or(0);
    let outputs = eqn
        .outputs
        .iter()
        .zip(&carries)
        .map(|(&v, &unknown)| {
            if unknown {
                return v;
            }
            let fresh = Var(next);
            next += 1;
            types.insert(fresh, types[&v].clone());
            fresh
        })
        .collect();
    Some((known, Eqn { outputs, ..eqn.clone() }))
}

/// Which of `jaxpr`'s outputs depend on the inputs marked `from`.
fn depends(jaxpr: &Jaxpr, from: &[bool]) -> Vec<bool> {
    let mut marked: HashSet<Var> = jaxpr.invars.iter().zip(from).filter(|(_, &m)| m).map(|(&v, _)| v).collect();
    for eqn in &jaxpr.eqns {
        if eqn.inputs.iter().any(|a| matches!(a, Atom::Var(v) if marked.contains(v))) {
            marked.extend(eqn.outputs.iter().copied());
        }
    }
    jaxpr.outvars.iter().map(|a| matches!(a, Atom::Var(v) if marked.contains(v))).collect()
}

/// JAX's error for reverse mode through a `while`.
pub const WHILE_REVERSE: &str = "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop \
     with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.";

/// The linear half of a linearized function, as its transposition reads it.
struct LinearPart {
    types: HashMap<Var, Aval>,
    residuals: Vec<Var>,
    tangent_in: Vec<Var>,
    eqns: Vec<Eqn>,
    tangent_out: Vec<Atom>,
}

/// Splits `jaxpr` (without constvars) into a forward pass and a backward pass: linearized,
/// then the linear part transposed.
pub fn vjp(jaxpr: &Jaxpr, diff_in: &[bool], diff_out: &[bool]) -> Result<Vjp> {
    let (split, part) = partial_eval(jaxpr, diff_in)?;
    let backward =
        transpose_linear(&part.types, &part.residuals, &part.tangent_in, &part.eqns, &part.tangent_out, diff_out)?;
    Ok(Vjp { forward: split.forward, num_residuals: split.num_residuals, backward })
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
    let known: HashMap<Var, Atom> = residuals.iter().map(|&r| (r, b.input(types[&r].clone()))).collect();
    let mut linear: HashSet<Var> = linear_in.iter().copied().collect();
    for eqn in eqns {
        linear.extend(eqn.outputs.iter().copied());
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
    for eqn in eqns.iter().rev() {
        if let Primitive::While { .. } = eqn.prim {
            if eqn.outputs.iter().any(|v| ct.contains_key(v)) {
                return Err(JaxError(WHILE_REVERSE.into()));
            }
            continue;
        }
        let Some(ct_out) = ct.remove(&eqn.outputs[0]) else {
            continue;
        };
        let ins: Vec<LinIn> = eqn
            .inputs
            .iter()
            .map(|a| match a {
                Atom::Var(v) if linear.contains(v) => LinIn::Linear(types[v].clone()),
                Atom::Var(v) => LinIn::Known(known[v].clone()),
                lit => LinIn::Known(lit.clone()),
            })
            .collect();
        let cts = transpose_rule(&mut b, &eqn.prim, &ins, &ct_out)?;
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
        // The user's backward pass: residuals and the output's cotangent to the arguments'.
        Primitive::CustomVjpTangent { function } => {
            let mut bwd_ins = Vec::new();
            for i in 0..function.bwd_consts + function.residuals() {
                bwd_ins.push(known(i).ok_or_else(not_linear)?);
            }
            bwd_ins.push(ct.clone());
            let cts = b.inline(&function.bwd, &bwd_ins)?;
            for (slot, c) in out[bwd_ins.len() - 1..].iter_mut().zip(cts) {
                *slot = Some(c);
            }
        }
        Primitive::Unary(UnaryOp::Neg) => out[0] = Some(b.neg(ct)?),
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
        Primitive::Reshape { .. } | Primitive::Squeeze { .. } => {
            let aval = linear(0).ok_or_else(not_linear)?;
            out[0] = Some(b.reshape(ct, &aval.shape)?);
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
    let r = b.convert(&r, x_aval.dtype)?;
    b.transpose(&r, out_axes)
}
