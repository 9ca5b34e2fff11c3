//! Forward mode: the JVP rule of every primitive.
//!
//! A rule sees the primal inputs, their tangents (`None` is a symbolic zero, so integer
//! inputs and constants cost nothing) and the primal outputs, and emits the output tangents.
//! Every rule is linear in the tangents and uses only the primitives `transpose.rs` can
//! transpose on them, so reverse mode is this rule followed by transposition.

use super::{Builder, Result};
use crate::callback::{self, CallbackKind, HostCallback};
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{
    BinaryOp, Branches, CompareOp, CustomJvp, CustomVjp, JitFunction, Primitive, Remat, ScanLoop, UnaryOp, WhileLoop,
};
use crate::trace::JaxError;
use std::collections::HashMap;
use std::rc::Rc;

/// The JVP of `jaxpr` with respect to the inputs marked in `diff`: a Jaxpr taking every
/// primal input, then one tangent per marked input, and returning the primal outputs followed
/// by one tangent per output (zeros where an output does not depend on the marked inputs).
pub fn jvp(jaxpr: &Jaxpr, diff: &[bool]) -> Result<Jaxpr> {
    Ok(jvp_nonzero(jaxpr, diff)?.0)
}

/// `jvp`, and which outputs' tangents are not zero by construction (the others are zeros
/// written out).
fn jvp_nonzero(jaxpr: &Jaxpr, diff: &[bool]) -> Result<(Jaxpr, Vec<bool>)> {
    // A gather or scatter differentiates as the selections or windows it is.
    let jaxpr = &*super::lower::without_gathers_and_scatters(jaxpr)?;
    let mut b = Builder::new();
    let inputs: Vec<Var> = jaxpr.all_inputs().collect();
    let mut primal: HashMap<Var, Atom> = HashMap::new();
    let mut tangent: HashMap<Var, Atom> = HashMap::new();
    for &v in &inputs {
        primal.insert(v, b.input(jaxpr.aval(v).clone()));
    }
    for (&v, _) in inputs.iter().zip(diff).filter(|(_, &d)| d) {
        let t = b.input(jaxpr.aval(v).clone());
        if jaxpr.aval(v).dtype.is_float() {
            tangent.insert(v, t);
        }
    }
    let read = |env: &HashMap<Var, Atom>, a: &Atom| match a {
        Atom::Var(v) => env.get(v).cloned(),
        Atom::Literal(_) => None,
    };
    for eqn in &jaxpr.eqns {
        b.source = eqn.source.clone();
        let xs: Vec<Atom> = eqn.inputs.iter().map(|a| read(&primal, a).unwrap_or_else(|| a.clone())).collect();
        let ts: Vec<Option<Atom>> = eqn.inputs.iter().map(|a| read(&tangent, a)).collect();
        let differentiated = ts.iter().any(Option::is_some);
        if differentiated {
            let control = match &eqn.prim {
                Primitive::CustomJvpCall { function } => Some(custom_jvp(&mut b, function, &xs, &ts)?),
                Primitive::CustomVjpCall { function } => Some(custom_vjp(&mut b, function, &xs, &ts)?),
                Primitive::While { function } => Some(while_jvp(&mut b, function, &xs, &ts)?),
                Primitive::Scan { function } => Some(scan_jvp(&mut b, function, &xs, &ts)?),
                Primitive::Cond { function } => Some(cond_jvp(&mut b, function, &xs, &ts)?),
                Primitive::Jit { function } => Some(jit_jvp(&mut b, function, &xs, &ts)?),
                Primitive::Remat { function } => Some(remat_jvp(&mut b, function, &xs, &ts)?),
                Primitive::Callback { function } => Some(callback_jvp(&mut b, function, &xs)?),
                _ => None,
            };
            if let Some((ps, touts)) = control {
                for (&v, t) in eqn.outputs.iter().zip(touts) {
                    if let Some(t) = t {
                        tangent.insert(v, t);
                    }
                }
                primal.extend(eqn.outputs.iter().copied().zip(ps));
                continue;
            }
        }
        let outs = b.bind(eqn.prim.clone(), &xs)?;
        if differentiated {
            let touts = jvp_rule(&mut b, &eqn.prim, &xs, &ts, &outs)?;
            for (&v, t) in eqn.outputs.iter().zip(touts) {
                if let Some(t) = t {
                    tangent.insert(v, t);
                }
            }
        }
        primal.extend(eqn.outputs.iter().copied().zip(outs));
    }
    let mut outs: Vec<Atom> = jaxpr.outvars.iter().map(|a| read(&primal, a).unwrap_or_else(|| a.clone())).collect();
    let mut nonzero = Vec::with_capacity(jaxpr.outvars.len());
    for a in &jaxpr.outvars {
        let t = read(&tangent, a);
        nonzero.push(t.is_some());
        let t = match t {
            Some(t) => t,
            None => b.zeros(jaxpr.atom_aval(a))?,
        };
        outs.push(t);
    }
    Ok((b.finish(outs), nonzero))
}

/// The JVP of a callback reading a tangent, as JAX's rules: a debug callback or print is
/// called with the primal values and has no outputs to differentiate; a pure or an IO callback has no
/// derivative (a `custom_jvp` around it gives one).
fn callback_jvp(b: &mut Builder, c: &Rc<HostCallback>, xs: &[Atom]) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    match c.kind {
        CallbackKind::Pure { .. } => Err(JaxError(callback::PURE_JVP.into())),
        CallbackKind::Io { .. } => Err(JaxError(callback::IO_JVP.into())),
        CallbackKind::Debug { .. } | CallbackKind::Print { .. } => {
            let outs = b.bind(Primitive::Callback { function: c.clone() }, xs)?;
            let tangents = vec![None; outs.len()];
            Ok((outs, tangents))
        }
    }
}

/// The JVP of a `while` equation, as JAX's rule builds it: one loop carrying the primal
/// values and the tangents of the carries that have any (those whose initial tangent is
/// nonzero, or that the body makes depend on one: a fixed point), the body its own JVP, the
/// condition ignoring the tangents. The predicate has no derivative, so `cond`'s closed-over
/// values' tangents are dropped.
fn while_jvp(
    b: &mut Builder,
    w: &WhileLoop,
    xs: &[Atom],
    ts: &[Option<Atom>],
) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let [cond_xs, body_xs, carry_xs] = w.split(xs);
    let [_, body_ts, carry_ts] = w.split(ts);
    let float = |a: &Atom| b.aval(a).dtype.is_float();
    let const_diff: Vec<bool> = body_xs.iter().zip(body_ts).map(|(x, t)| t.is_some() && float(x)).collect();
    let mut carry_diff: Vec<bool> = carry_xs.iter().zip(carry_ts).map(|(x, t)| t.is_some() && float(x)).collect();
    let body = loop {
        let (body, nonzero) = jvp_nonzero(&w.body, &[&const_diff[..], &carry_diff].concat())?;
        let widened: Vec<bool> = carry_diff.iter().zip(&nonzero).map(|(&d, &n)| d || n).collect();
        if widened == carry_diff {
            break body;
        }
        carry_diff = widened;
    };
    // The JVP takes (consts, carries, const tangents, carry tangents) and gives (carries, every
    // carry's tangent); the loop's body takes (consts, const tangents, carries, carry tangents)
    // and gives the carries and the tangents it carries.
    let (n_consts, n_carries) = (w.body_consts, w.carries());
    let n_const_tangents = const_diff.iter().filter(|&&d| d).count();
    let mut body = body;
    let ins = std::mem::take(&mut body.invars);
    let (primals, tangents) = ins.split_at(n_consts + n_carries);
    let (const_tangents, carry_tangents) = tangents.split_at(n_const_tangents);
    body.invars = [&primals[..n_consts], const_tangents, &primals[n_consts..], carry_tangents].concat();
    let mut outs = body.outvars[..n_carries].to_vec();
    outs.extend(body.outvars[n_carries..].iter().zip(&carry_diff).filter(|(_, &d)| d).map(|(a, _)| a.clone()));
    body.outvars = outs;
    let body = super::dce(&body);
    // The condition takes the tangents too, and reads none.
    let mut cond = w.cond.clone();
    for (x, _) in carry_xs.iter().zip(&carry_diff).filter(|(_, &d)| d) {
        let v = super::fresh_var(&mut cond.types, b.aval(x));
        cond.invars.push(v);
    }
    let mut operands: Vec<Atom> = cond_xs.iter().chain(body_xs).cloned().collect();
    for ((t, x), _) in body_ts.iter().zip(body_xs).zip(&const_diff).filter(|(_, &d)| d) {
        operands.push(instantiate(b, t, x)?);
    }
    operands.extend(carry_xs.iter().cloned());
    for ((t, x), _) in carry_ts.iter().zip(carry_xs).zip(&carry_diff).filter(|(_, &d)| d) {
        operands.push(instantiate(b, t, x)?);
    }
    let function = WhileLoop { cond, cond_consts: w.cond_consts, body, body_consts: n_consts + n_const_tangents };
    let outs = b.bind(Primitive::While { function: Rc::new(function) }, &operands)?;
    let (primal_outs, mut tangent_outs) = (outs[..n_carries].to_vec(), outs[n_carries..].iter().cloned());
    let tangents = carry_diff.iter().map(|&d| if d { tangent_outs.next() } else { None }).collect();
    Ok((primal_outs, tangents))
}

/// The JVP of a `scan` equation, as JAX's rule builds it: one scan carrying the primal
/// values and the tangents of the carries that have any (a fixed point, as for `while`), its
/// `xs` the primal rows and the nonzero tangents' rows, its `ys` the primal rows and the rows
/// of the tangents that are not zero by construction.
fn scan_jvp(b: &mut Builder, s: &ScanLoop, xs: &[Atom], ts: &[Option<Atom>]) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let [const_xs, carry_xs, row_xs] = s.split(xs);
    let [const_ts, carry_ts, row_ts] = s.split(ts);
    let float = |a: &Atom| b.aval(a).dtype.is_float();
    let diff = |xs: &[Atom], ts: &[Option<Atom>]| -> Vec<bool> {
        xs.iter().zip(ts).map(|(x, t)| t.is_some() && float(x)).collect()
    };
    let (const_diff, row_diff) = (diff(const_xs, const_ts), diff(row_xs, row_ts));
    let mut carry_diff = diff(carry_xs, carry_ts);
    let (n_consts, n_carries, n_xs, n_ys) = (s.consts, s.carries, s.xs(), s.ys());
    let (body, nonzero) = loop {
        let (body, nonzero) = jvp_nonzero(&s.body, &[&const_diff[..], &carry_diff, &row_diff].concat())?;
        let carry_out = &nonzero[..n_carries];
        let widened: Vec<bool> = carry_diff.iter().zip(carry_out).map(|(&d, &n)| d || n).collect();
        if widened == carry_diff {
            break (body, nonzero);
        }
        carry_diff = widened;
    };
    let y_diff = nonzero[n_carries..].to_vec();
    // The JVP takes (consts, carries, xs, then the marked ones' tangents in that order) and
    // gives (carries, ys, then every output's tangent); the scan's body takes each group
    // followed by its tangents, and gives the carries, their tangents, the ys, theirs.
    let mut body = body;
    let ins = std::mem::take(&mut body.invars);
    let (primals, tangents) = ins.split_at(n_consts + n_carries + n_xs);
    let count = |flags: &[bool]| flags.iter().filter(|&&d| d).count();
    let (const_tangents, rest) = tangents.split_at(count(&const_diff));
    let (carry_tangents, row_tangents) = rest.split_at(count(&carry_diff));
    body.invars = [
        &primals[..n_consts],
        const_tangents,
        &primals[n_consts..n_consts + n_carries],
        carry_tangents,
        &primals[n_consts + n_carries..],
        row_tangents,
    ]
    .concat();
    let outs = std::mem::take(&mut body.outvars);
    let (primal_outs, tangent_outs) = outs.split_at(n_carries + n_ys);
    let keep = |atoms: &[Atom], flags: &[bool]| -> Vec<Atom> {
        atoms.iter().zip(flags).filter(|(_, &d)| d).map(|(a, _)| a.clone()).collect()
    };
    body.outvars = [
        &primal_outs[..n_carries],
        &keep(&tangent_outs[..n_carries], &carry_diff)[..],
        &primal_outs[n_carries..],
        &keep(&tangent_outs[n_carries..], &y_diff)[..],
    ]
    .concat();
    let body = super::dce(&body);
    let mut operands: Vec<Atom> = const_xs.to_vec();
    let tangents_of = |b: &mut Builder, xs: &[Atom], ts: &[Option<Atom>], flags: &[bool]| -> Result<Vec<Atom>> {
        let marked = xs.iter().zip(ts).zip(flags).filter(|(_, &d)| d);
        marked.map(|((x, t), _)| instantiate(b, t, x)).collect()
    };
    operands.extend(tangents_of(b, const_xs, const_ts, &const_diff)?);
    operands.extend(carry_xs.iter().cloned());
    operands.extend(tangents_of(b, carry_xs, carry_ts, &carry_diff)?);
    operands.extend(row_xs.iter().cloned());
    operands.extend(tangents_of(b, row_xs, row_ts, &row_diff)?);
    let function =
        ScanLoop { body, consts: n_consts + count(&const_diff), carries: n_carries + count(&carry_diff), ..s.clone() };
    let outs = b.bind(Primitive::Scan { function: Rc::new(function) }, &operands)?;
    let mut outs = outs.into_iter();
    let carries: Vec<Atom> = outs.by_ref().take(n_carries).collect();
    let carry_tangents: Vec<Option<Atom>> = carry_diff.iter().map(|&d| if d { outs.next() } else { None }).collect();
    let ys: Vec<Atom> = outs.by_ref().take(n_ys).collect();
    let y_tangents: Vec<Option<Atom>> = y_diff.iter().map(|&d| if d { outs.next() } else { None }).collect();
    Ok(([carries, ys].concat(), [carry_tangents, y_tangents].concat()))
}

/// The JVP of a `cond` equation, as JAX's rule builds it: one `cond` whose branches are the
/// branches' JVPs, taking the operands and the tangents of those that have any, and giving
/// the outputs and the tangents of those any branch makes nonzero (a branch that makes one
/// zero writes its zeros out).
fn cond_jvp(b: &mut Builder, c: &Branches, xs: &[Atom], ts: &[Option<Atom>]) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let (index, operands) = xs.split_first().ok_or_else(|| JaxError("internal error: cond without index".into()))?;
    let tangents = &ts[1..];
    let diff: Vec<bool> =
        operands.iter().zip(tangents).map(|(x, t)| t.is_some() && b.aval(x).dtype.is_float()).collect();
    let jvps = c.branches.iter().map(|branch| jvp_nonzero(branch, &diff)).collect::<Result<Vec<_>>>()?;
    let n_outs = c.branches.first().map_or(0, |branch| branch.outvars.len());
    let nonzero: Vec<bool> = (0..n_outs).map(|i| jvps.iter().any(|(_, nz)| nz[i])).collect();
    let branches = jvps.into_iter().map(|(branch, _)| keep_nonzero_tangents(branch, n_outs, &nonzero)).collect();
    let mut operands_and_tangents = vec![index.clone()];
    operands_and_tangents.extend(operands.iter().cloned());
    for ((x, t), _) in operands.iter().zip(tangents).zip(&diff).filter(|(_, &d)| d) {
        operands_and_tangents.push(instantiate(b, t, x)?);
    }
    let outs = b.bind(Primitive::Cond { function: Rc::new(Branches { branches }) }, &operands_and_tangents)?;
    Ok(primals_and_tangents(outs, n_outs, &nonzero))
}

/// A call's JVP Jaxpr (the outputs, then a tangent per output) keeping only the tangents marked
/// `nonzero` as outputs, without what computed the others (written-out zeros).
fn keep_nonzero_tangents(mut jvp: Jaxpr, n_outs: usize, nonzero: &[bool]) -> Jaxpr {
    let tangent_outs = jvp.outvars.split_off(n_outs);
    jvp.outvars.extend(tangent_outs.into_iter().zip(nonzero).filter(|(_, &n)| n).map(|(t, _)| t));
    super::dce(&jvp)
}

/// The outputs of a call of such a Jaxpr split into the primal outputs and a tangent per
/// output (`None` where it is zero).
fn primals_and_tangents(mut outs: Vec<Atom>, n_outs: usize, nonzero: &[bool]) -> (Vec<Atom>, Vec<Option<Atom>>) {
    let mut rest = outs.split_off(n_outs).into_iter();
    let tangents = nonzero.iter().map(|&n| if n { rest.next() } else { None }).collect();
    (outs, tangents)
}

/// The JVP of a nested `jit`, as JAX's rule: one `jit` of the body's JVP (the same name).
fn jit_jvp(
    b: &mut Builder,
    j: &JitFunction,
    xs: &[Atom],
    ts: &[Option<Atom>],
) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    call_jvp(b, &j.body, xs, ts, |body| Primitive::Jit {
        function: Rc::new(JitFunction { name: j.name.clone(), body, consts: j.consts }),
    })
}

/// The JVP of a `jax.checkpoint`, as JAX's rule: one checkpoint of the body's JVP (the same
/// policy).
fn remat_jvp(b: &mut Builder, r: &Remat, xs: &[Atom], ts: &[Option<Atom>]) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    call_jvp(b, &r.body, xs, ts, |body| Primitive::Remat { function: Rc::new(r.with_body(body, r.differentiated)) })
}

/// The JVP of a call of `body` as one equation of the body's JVP (`call` makes its primitive),
/// taking the operands and the tangents that are not zero, giving the outputs and the tangents
/// that are not zero by construction.
fn call_jvp(
    b: &mut Builder,
    body: &Jaxpr,
    xs: &[Atom],
    ts: &[Option<Atom>],
    call: impl FnOnce(Jaxpr) -> Primitive,
) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let diff: Vec<bool> = xs.iter().zip(ts).map(|(x, t)| t.is_some() && b.aval(x).dtype.is_float()).collect();
    let (jvp_body, nonzero) = jvp_nonzero(body, &diff)?;
    let n_outs = body.outvars.len();
    let jvp_body = keep_nonzero_tangents(jvp_body, n_outs, &nonzero);
    let mut operands = xs.to_vec();
    for (t, _) in ts.iter().zip(&diff).filter(|(_, &d)| d) {
        operands.extend(t.clone());
    }
    let outs = b.bind(call(jvp_body), &operands)?;
    Ok(primals_and_tangents(outs, n_outs, &nonzero))
}

/// The JVP of a `custom_jvp` function: its rule applied to the arguments and their tangents
/// (zeros where symbolic); returns the outputs and their tangents.
fn custom_jvp(
    b: &mut Builder,
    function: &CustomJvp,
    xs: &[Atom],
    ts: &[Option<Atom>],
) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let (_, rule_consts, args) = function.split(xs);
    let (call_closed, rule_closed, arg_tangents) = function.split(ts);
    if call_closed.iter().chain(rule_closed).any(Option::is_some) {
        return Err(closed_over("JVP", &function.name));
    }
    let mut inputs: Vec<Atom> = rule_consts.iter().chain(args).cloned().collect();
    for (t, x) in arg_tangents.iter().zip(args) {
        inputs.push(instantiate(b, t, x)?);
    }
    let mut outs = b.inline(function.traced_rule()?, &inputs)?;
    let tangents = outs.split_off(function.call.outvars.len());
    Ok((outs, tangents.into_iter().map(Some).collect()))
}

/// The JVP of a `custom_vjp` function: its forward pass gives the outputs and the residuals;
/// the tangents are one `custom_lin` equation, which reverse mode transposes by running `bwd`.
fn custom_vjp(
    b: &mut Builder,
    function: &Rc<CustomVjp>,
    xs: &[Atom],
    ts: &[Option<Atom>],
) -> Result<(Vec<Atom>, Vec<Option<Atom>>)> {
    let [_, fwd_consts, bwd_consts, args] = function.split(xs);
    let [call_t, fwd_t, bwd_t, arg_tangents] = function.split(ts);
    if call_t.iter().chain(fwd_t).chain(bwd_t).any(Option::is_some) {
        return Err(closed_over("VJP", &function.name));
    }
    let fwd_ins: Vec<Atom> = fwd_consts.iter().chain(args).cloned().collect();
    let mut outs = b.inline(function.traced_fwd()?, &fwd_ins)?;
    let residuals = outs.split_off(function.outputs());
    let mut operands: Vec<Atom> = bwd_consts.to_vec();
    operands.extend(residuals);
    for (t, x) in arg_tangents.iter().zip(args) {
        operands.push(instantiate(b, t, x)?);
    }
    let tangents = b.bind(Primitive::CustomVjpTangent { function: function.clone() }, &operands)?;
    Ok((outs, tangents.into_iter().map(Some).collect()))
}

/// JAX's error for a custom derivative differentiated with respect to a value it closes over.
pub fn closed_over(kind: &str, name: &str) -> JaxError {
    let lower = kind.to_lowercase();
    JaxError(format!(
        "Detected differentiation of a custom_{lower} function ({name}) with respect to a closed-over \
         value. That isn't supported because the custom {kind} rule only specifies how to \
         differentiate the custom_{lower} function with respect to explicit input parameters; \
         pass the value as an argument instead"
    ))
}

/// A tangent, materialised as zeros when symbolic.
fn instantiate(b: &mut Builder, t: &Option<Atom>, like: &Atom) -> Result<Atom> {
    match t {
        Some(t) => Ok(t.clone()),
        None => {
            let aval = b.aval(like);
            b.zeros(&aval)
        }
    }
}

/// `t * coefficient`, with a rank-0 tangent broadcast to the coefficient's shape.
fn scaled(b: &mut Builder, t: &Atom, coefficient: &Atom) -> Result<Atom> {
    let shape = b.shape(coefficient);
    let t = b.expand_scalar(t, &shape)?;
    b.mul(&t, coefficient)
}

/// Sums optional terms of the output's shape; `None` when all are zero.
fn sum_terms(b: &mut Builder, terms: Vec<Option<Atom>>, out: &Atom) -> Result<Option<Atom>> {
    let shape = b.shape(out);
    let mut acc: Option<Atom> = None;
    for t in terms.into_iter().flatten() {
        let t = b.expand_scalar(&t, &shape)?;
        acc = Some(match acc {
            None => t,
            Some(a) => b.add_any(&a, &t)?,
        });
    }
    Ok(acc)
}

fn jvp_rule(
    b: &mut Builder,
    prim: &Primitive,
    x: &[Atom],
    t: &[Option<Atom>],
    out: &[Atom],
) -> Result<Vec<Option<Atom>>> {
    let ans = &out[0];
    let one = |b: &Builder, like: &Atom| b.lit_like(1.0, like);
    let t0 = t[0].clone();
    let tangent = match prim {
        // Linear ones carry the tangent through the same collective; `pmax` and `pmin` have no
        // rule in JAX either; `axis_index` is an integer.
        Primitive::Collective { op, .. } => match (op.transpose(), t0) {
            (_, None) => None,
            (Some(_), Some(t0)) => Some(b.bind1(prim.clone(), &[t0])?),
            (None, Some(_)) => {
                return Err(JaxError(format!("Differentiation rule for '{}' not implemented", prim.name())))
            }
        },
        Primitive::Unary(op) => {
            let Some(t0) = t0 else { return Ok(vec![None]) };
            let x = &x[0];
            match op {
                UnaryOp::Neg => Some(b.neg(&t0)?),
                UnaryOp::Copy => Some(b.unary(UnaryOp::Copy, &t0)?),
                UnaryOp::Exp => Some(b.mul(&t0, ans)?),
                UnaryOp::Log => Some(b.div(&t0, x)?),
                // d tanh = 1 − tanh², written as JAX's rule writes it: (t + t·tanh)(1 − tanh)
                // (the same values to the last bit as JAX, and the same Jaxpr).
                UnaryOp::Tanh => {
                    let scaled = b.mul(&t0, ans)?;
                    let left = b.add(&t0, &scaled)?;
                    let c = b.sub(&one(b, ans), ans)?;
                    Some(b.mul(&left, &c)?)
                }
                // d σ = σ (1 - σ)
                UnaryOp::Logistic => {
                    let c = b.sub(&one(b, ans), ans)?;
                    let c = b.mul(ans, &c)?;
                    Some(b.mul(&t0, &c)?)
                }
                // JAX's rule, g · (0.5 / ans): its rounding, and its second derivative's.
                UnaryOp::Sqrt => {
                    let half = b.lit_like(0.5, x);
                    let c = b.div(&half, ans)?;
                    Some(b.mul(&t0, &c)?)
                }
                // d x^(-1/2) = -1/2 · rsqrt(x) / x
                UnaryOp::Rsqrt => {
                    let c = b.div(ans, x)?;
                    let c = b.scale(&c, -0.5)?;
                    Some(b.mul(&t0, &c)?)
                }
                // JAX's convention: the derivative at 0 is +1 (`select(x >= 0, t, -t)`).
                UnaryOp::Abs => {
                    let zero = b.lit(0.0, b.aval(x).dtype);
                    let nonneg = b.compare(CompareOp::Ge, x, &zero)?;
                    let minus = b.neg(&t0)?;
                    Some(b.select(&nonneg, &minus, &t0)?)
                }
                UnaryOp::Sign | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round | UnaryOp::RoundEven | UnaryOp::Not => {
                    None
                }
                UnaryOp::Sin => {
                    let c = b.unary(UnaryOp::Cos, x)?;
                    Some(b.mul(&t0, &c)?)
                }
                // −(t · sin x), in JAX's order.
                UnaryOp::Cos => {
                    let s = b.unary(UnaryOp::Sin, x)?;
                    let m = b.mul(&t0, &s)?;
                    Some(b.neg(&m)?)
                }
                UnaryOp::Log1p => {
                    let c = b.add(x, &one(b, x))?;
                    Some(b.div(&t0, &c)?)
                }
                UnaryOp::Expm1 => {
                    let c = b.add(ans, &one(b, ans))?;
                    Some(b.mul(&t0, &c)?)
                }
                UnaryOp::Exp2 => {
                    let c = b.scale(ans, std::f64::consts::LN_2)?;
                    Some(b.mul(&t0, &c)?)
                }
                // d erf = 2/√π · exp(-x²)
                UnaryOp::Erf => {
                    let sq = b.mul(x, x)?;
                    let e = b.neg(&sq)?;
                    let e = b.unary(UnaryOp::Exp, &e)?;
                    let c = b.scale(&e, std::f64::consts::FRAC_2_SQRT_PI)?;
                    Some(b.mul(&t0, &c)?)
                }
                UnaryOp::Square => {
                    let c = b.scale(x, 2.0)?;
                    Some(b.mul(&t0, &c)?)
                }
                // d erf⁻¹ = √π/2 · exp(erf⁻¹(x)²), in JAX's order.
                UnaryOp::ErfInv => {
                    let sq = b.unary(UnaryOp::Square, ans)?;
                    let e = b.unary(UnaryOp::Exp, &sq)?;
                    let g = b.mul(&t0, &e)?;
                    let c = b.lit_like(std::f64::consts::PI.sqrt() / 2.0, x);
                    Some(b.mul(&c, &g)?)
                }
            }
        }
        Primitive::Binary(op) => binary_jvp(b, *op, &x[0], &x[1], &t0, &t[1], ans)?,
        Primitive::Compare(_) | Primitive::ArgReduce { .. } | Primitive::Iota { .. } => None,
        // Integers and keys have no tangents; a bitcast's float result is bits, not a
        // function of a differentiable input.
        Primitive::StopGradient
        | Primitive::BitcastConvertType { .. }
        | Primitive::RandomWrap
        | Primitive::RandomUnwrap
        | Primitive::RandomSeed
        | Primitive::RandomBits { .. }
        | Primitive::RandomSplit { .. }
        | Primitive::RandomFoldIn => None,
        Primitive::AddAny => sum_terms(b, vec![t0, t.get(1).cloned().flatten()], ans)?,
        Primitive::ShardMap { .. } => {
            return Err(JaxError(
                "differentiating a jax.shard_map called inside jit is not supported by the playground yet".into(),
            ))
        }
        Primitive::CustomJvpCall { .. }
        | Primitive::CustomVjpCall { .. }
        | Primitive::While { .. }
        | Primitive::Scan { .. }
        | Primitive::Cond { .. }
        | Primitive::Jit { .. }
        | Primitive::Remat { .. }
        | Primitive::Scatter { .. }
        | Primitive::Gather
        | Primitive::Callback { .. } => {
            return Err(JaxError(format!("internal error: {} is differentiated by its rule", prim.name())))
        }
        // JAX's rule: the primal named, its tangent not.
        Primitive::Name { .. } => t0,
        // Linear, as JAX defines it.
        Primitive::ReducePrecision { .. } => match t0 {
            Some(t) => Some(b.bind1(prim.clone(), &[t])?),
            None => None,
        },
        // JAX's rule: each bound's tangent where it is the one that holds, the operand's where
        // neither does.
        Primitive::Clamp => {
            let (lo, operand, hi) = (&x[0], &x[1], &x[2]);
            let shape = b.shape(operand);
            let mut terms = Vec::with_capacity(3);
            for (i, tangent) in t.iter().enumerate() {
                let Some(tangent) = tangent else { continue };
                let holds = match i {
                    0 => {
                        let below = b.compare(CompareOp::Gt, lo, operand)?;
                        let ordered = b.compare(CompareOp::Lt, lo, hi)?;
                        b.binary(BinaryOp::And, &below, &ordered)?
                    }
                    1 => {
                        let above = b.compare(CompareOp::Gt, operand, lo)?;
                        let under = b.compare(CompareOp::Lt, operand, hi)?;
                        b.binary(BinaryOp::And, &above, &under)?
                    }
                    _ => b.compare(CompareOp::Lt, hi, operand)?,
                };
                let tangent = b.expand_scalar(tangent, &shape)?;
                let zeros = b.zeros(&b.aval(operand))?;
                terms.push(Some(b.select(&holds, &zeros, &tangent)?));
            }
            sum_terms(b, terms, ans)?
        }
        Primitive::CustomVjpTangent { function } => {
            return Err(JaxError(format!(
                "higher-order derivatives of a custom_vjp function ({}) are not supported by the playground yet",
                function.name
            )))
        }
        Primitive::SelectN => {
            if t[1..].iter().all(Option::is_none) {
                None
            } else {
                let mut ins = vec![x[0].clone()];
                for (case, tc) in x[1..].iter().zip(&t[1..]) {
                    ins.push(instantiate(b, tc, case)?);
                }
                Some(b.bind1(Primitive::SelectN, &ins)?)
            }
        }
        Primitive::IntegerPow { y } => {
            let Some(t0) = t0 else { return Ok(vec![None]) };
            let c = match y {
                0 => return Ok(vec![None]),
                1 => return Ok(vec![Some(t0)]),
                2 => x[0].clone(),
                _ => b.bind1(Primitive::IntegerPow { y: y - 1 }, &x[..1])?,
            };
            // y · x^(y−1), the constant first, as JAX's rule writes it.
            let k = b.lit_like(*y as f64, &x[0]);
            let c = b.mul(&k, &c)?;
            Some(b.mul(&t0, &c)?)
        }
        Primitive::DotGeneral { .. } => {
            let left = match &t0 {
                Some(tx) => Some(b.bind1(prim.clone(), &[tx.clone(), x[1].clone()])?),
                None => None,
            };
            let right = match &t[1] {
                Some(ty) => Some(b.bind1(prim.clone(), &[x[0].clone(), ty.clone()])?),
                None => None,
            };
            sum_terms(b, vec![left, right], ans)?
        }
        Primitive::ConvertElementType { new_dtype, .. } => match t0 {
            Some(t0) if new_dtype.is_float() && b.aval(&t0).dtype != *new_dtype => {
                Some(b.bind1(prim.clone(), std::slice::from_ref(&t0))?)
            }
            Some(t0) if new_dtype.is_float() => Some(t0),
            _ => None,
        },
        // Structural and linear: the tangent goes through the same primitive.
        Primitive::Reshape { .. }
        | Primitive::BroadcastInDim { .. }
        | Primitive::Transpose { .. }
        | Primitive::ReduceSum { .. }
        | Primitive::Cumsum { .. }
        | Primitive::Slice { .. }
        | Primitive::Rev { .. }
        | Primitive::ShardingConstraint { .. }
        | Primitive::Squeeze { .. } => match t0 {
            Some(t0) => Some(b.bind1(prim.clone(), &[t0])?),
            None => None,
        },
        // The tangent at the extremum, averaged over ties (as JAX's reduce_max does).
        Primitive::ReduceMax { axes } | Primitive::ReduceMin { axes } => {
            let Some(t0) = t0 else { return Ok(vec![None]) };
            let shape = b.shape(&x[0]);
            let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
            let ans_b = b.broadcast_in_dim(ans, &shape, kept)?;
            let hit = b.compare(CompareOp::Eq, &x[0], &ans_b)?;
            let mask = b.convert(&hit, b.aval(&x[0]).dtype)?;
            let picked = b.mul(&t0, &mask)?;
            let num = b.reduce_sum(&picked, axes.clone())?;
            let count = b.reduce_sum(&mask, axes.clone())?;
            Some(b.div(&num, &count)?)
        }
        Primitive::Concatenate { .. } => {
            let mut ins = Vec::new();
            for (xi, ti) in x.iter().zip(t) {
                ins.push(instantiate(b, ti, xi)?);
            }
            Some(b.bind1(prim.clone(), &ins)?)
        }
        Primitive::Pad { .. } => {
            let tx = instantiate(b, &t0, &x[0])?;
            let tv = instantiate(b, &t[1], &x[1])?;
            Some(b.bind1(prim.clone(), &[tx, tv])?)
        }
        Primitive::DynamicSlice { .. } => match t0 {
            Some(t0) => {
                let mut ins = vec![t0];
                ins.extend_from_slice(&x[1..]);
                Some(b.bind1(prim.clone(), &ins)?)
            }
            None => None,
        },
        Primitive::DynamicUpdateSlice => {
            if t0.is_none() && t[1].is_none() {
                None
            } else {
                let mut ins = vec![instantiate(b, &t0, &x[0])?, instantiate(b, &t[1], &x[1])?];
                ins.extend_from_slice(&x[2..]);
                Some(b.bind1(prim.clone(), &ins)?)
            }
        }
    };
    Ok(vec![tangent])
}

fn binary_jvp(
    b: &mut Builder,
    op: BinaryOp,
    x: &Atom,
    y: &Atom,
    tx: &Option<Atom>,
    ty: &Option<Atom>,
    ans: &Atom,
) -> Result<Option<Atom>> {
    let dtype = b.aval(ans).dtype;
    if !dtype.is_float() {
        return Ok(None);
    }
    let terms = match op {
        BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical => return Ok(None),
        // `add` and `sub` of the tangents themselves, as JAX's own rules write them (the
        // other rules' terms are summed with `add_any`).
        BinaryOp::Add | BinaryOp::Sub => {
            let shape = b.shape(ans);
            return Ok(match (tx, ty) {
                (Some(tx), Some(ty)) => {
                    let (tx, ty) = (b.expand_scalar(tx, &shape)?, b.expand_scalar(ty, &shape)?);
                    Some(b.binary(op, &tx, &ty)?)
                }
                (Some(tx), None) => Some(b.expand_scalar(tx, &shape)?),
                (None, Some(ty)) => {
                    let ty = b.expand_scalar(ty, &shape)?;
                    Some(if op == BinaryOp::Sub { b.neg(&ty)? } else { ty })
                }
                (None, None) => None,
            });
        }
        BinaryOp::Mul => {
            let l = match tx {
                Some(t) => Some(b.mul(t, y)?),
                None => None,
            };
            let r = match ty {
                Some(t) => Some(b.mul(x, t)?),
                None => None,
            };
            vec![l, r]
        }
        // d(x/y) = tx / y − ty · x · y⁻², as JAX's rule writes it.
        BinaryOp::Div => {
            let l = match tx {
                Some(t) => {
                    let t = b.expand_scalar(t, &b.shape(ans))?;
                    Some(b.div(&t, y)?)
                }
                None => None,
            };
            let r = match ty {
                Some(t) => {
                    let minus = b.neg(t)?;
                    let times_x = b.mul(&minus, x)?;
                    let inverse_square = b.bind1(Primitive::IntegerPow { y: -2 }, std::slice::from_ref(y))?;
                    Some(b.mul(&times_x, &inverse_square)?)
                }
                None => None,
            };
            vec![l, r]
        }
        // JAX's balanced rule: at a tie each operand gets half the tangent.
        BinaryOp::Max | BinaryOp::Min => {
            let coefficient = |b: &mut Builder, me: &Atom, other: &Atom| -> Result<Atom> {
                let mine = b.compare(CompareOp::Eq, me, ans)?;
                let theirs = b.compare(CompareOp::Eq, other, ans)?;
                let mine = b.convert(&mine, dtype)?;
                let theirs = b.convert(&theirs, dtype)?;
                let one = b.lit(1.0, dtype);
                let denominator = b.add(&theirs, &one)?;
                b.div(&mine, &denominator)
            };
            let l = match tx {
                Some(t) => {
                    let c = coefficient(b, x, y)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            let r = match ty {
                Some(t) => {
                    let c = coefficient(b, y, x)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            vec![l, r]
        }
        // d x^y = y·x^(y-1) dx + log(x)·x^y dy, with log(0) replaced so 0^y has dy-slope 0.
        BinaryOp::Pow => {
            let l = match tx {
                Some(t) => {
                    let one = b.lit(1.0, dtype);
                    let ym1 = b.sub(y, &one)?;
                    let p = b.binary(BinaryOp::Pow, x, &ym1)?;
                    let c = b.mul(y, &p)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            let r = match ty {
                Some(t) => {
                    let zero = b.lit(0.0, dtype);
                    let is_zero = b.compare(CompareOp::Eq, x, &zero)?;
                    let ones = b.full(&b.shape(x), 1.0, dtype)?;
                    let safe = b.select(&is_zero, x, &ones)?;
                    let lg = b.unary(UnaryOp::Log, &safe)?;
                    let c = b.mul(&lg, ans)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            vec![l, r]
        }
        // d atan2(x, y) = (y dx - x dy) / (x² + y²)
        BinaryOp::Atan2 => {
            let x2 = b.mul(x, x)?;
            let y2 = b.mul(y, y)?;
            let r2 = b.add(&x2, &y2)?;
            let l = match tx {
                Some(t) => {
                    let c = b.div(y, &r2)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            let r = match ty {
                Some(t) => {
                    let c = b.div(x, &r2)?;
                    let c = b.neg(&c)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            vec![l, r]
        }
        // rem(x, y) = x - y·trunc(x/y)
        BinaryOp::Rem => {
            let r = match ty {
                Some(t) => {
                    let q = b.div(x, y)?;
                    let s = b.unary(UnaryOp::Sign, &q)?;
                    let a = b.unary(UnaryOp::Abs, &q)?;
                    let f = b.unary(UnaryOp::Floor, &a)?;
                    let tr = b.mul(&s, &f)?;
                    let c = b.neg(&tr)?;
                    Some(scaled(b, t, &c)?)
                }
                None => None,
            };
            vec![tx.clone(), r]
        }
    };
    sum_terms(b, terms, ans)
}
