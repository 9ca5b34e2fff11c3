//! Batching: the vmap rule of every primitive. A batched value carries the batch axis first;
//! a rule sees which operands are batched and returns outputs batched along axis 0.

use super::{Builder, Result};
use crate::array::Aval;
use crate::callback::{self, CallbackKind, HostCallback, VmapMethod};
use crate::collective::CollectiveOp;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{
    Branches, CompareOp, CustomJvp, CustomVjp, DotDims, JitFunction, JvpRule, Pending, Primitive, ScanLoop, VjpPasses,
    WhileLoop,
};
use crate::trace::JaxError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

thread_local! {
    /// The axis names of the named vmaps being applied (`jax.vmap(f, axis_name=...)`),
    /// innermost last. A collective over the innermost one is computed across the batch; the
    /// name is kept here rather than threaded through every rule, as the loop and branch rules
    /// batch their bodies over the same axis.
    static NAMED_AXES: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// `vmap_outputs` of a vmap whose axis is named `name` (`jax.vmap(f, axis_name=name)`): a
/// collective over `name` in `jaxpr` is computed across the batch (a `psum` is a sum over the
/// batch axis), as JAX's batching rules for the collectives do.
pub fn vmap_outputs_named(
    jaxpr: &Jaxpr,
    batched: &[bool],
    size: usize,
    may_stay_unbatched: &[bool],
    name: &str,
) -> Result<(Jaxpr, Vec<bool>)> {
    NAMED_AXES.with(|n| n.borrow_mut().push(name.to_string()));
    let out = vmap_outputs(jaxpr, batched, size, may_stay_unbatched);
    NAMED_AXES.with(|n| n.borrow_mut().pop());
    out
}

fn is_batch_axis(name: &str) -> bool {
    NAMED_AXES.with(|n| n.borrow().last().is_some_and(|last| last == name))
}

/// A collective over the batch axis itself: across the examples, every example getting the
/// result (batched, so it combines with the rest).
fn across_batch(b: &mut Builder, op: &CollectiveOp, ins: &[(Atom, bool)], size: usize) -> Result<Atom> {
    if let CollectiveOp::AxisIndex = op {
        return b.bind1(Primitive::Iota { dtype: DType::I32, shape: vec![size], dimension: 0 }, &[]);
    }
    let x = to_batched(b, &ins[0], size)?;
    let shape = b.shape(&x);
    let rank = shape.len() - 1;
    let everywhere = |b: &mut Builder, r: Atom| -> Result<Atom> {
        let mut out_shape = vec![size];
        out_shape.extend(b.shape(&r));
        let dims = (1..out_shape.len()).collect();
        b.broadcast_in_dim(&r, &out_shape, dims)
    };
    let result = match op {
        CollectiveOp::Psum => b.reduce_sum(&x, vec![0])?,
        CollectiveOp::Pmax => b.bind1(Primitive::ReduceMax { axes: vec![0] }, &[x])?,
        CollectiveOp::Pmin => b.bind1(Primitive::ReduceMin { axes: vec![0] }, &[x])?,
        CollectiveOp::AllGather { dimension, tiled } => {
            // Every example's value stacked at `dimension` (merged into it when tiled).
            let mut perm: Vec<usize> = (1..=rank).collect();
            perm.insert(*dimension, 0);
            let stacked = b.transpose(&x, perm)?;
            if *tiled {
                let mut merged = shape[1..].to_vec();
                merged[*dimension] *= size;
                b.reshape(&stacked, &merged)?
            } else {
                stacked
            }
        }
        other => {
            return Err(JaxError(format!(
                "vmap of {} over the vmapped axis itself is not supported by the playground yet",
                other.name()
            )))
        }
    };
    everywhere(b, result)
}

/// Batches `jaxpr` over a new leading axis of length `size` on the inputs marked in
/// `batched`. Every output has the batch axis first.
pub fn vmap(jaxpr: &Jaxpr, batched: &[bool], size: usize) -> Result<Jaxpr> {
    Ok(vmap_outputs(jaxpr, batched, size, &[])?.0)
}

/// As `vmap`, but the outputs marked in `may_stay_unbatched` that do not depend on a batched
/// input are left without the batch axis (`vmap(..., out_axes=None)`); the flags say which
/// outputs have it.
pub fn vmap_outputs(
    jaxpr: &Jaxpr,
    batched: &[bool],
    size: usize,
    may_stay_unbatched: &[bool],
) -> Result<(Jaxpr, Vec<bool>)> {
    // A gather or scatter batches as the selections or windows it is.
    let jaxpr = &*super::lower::without_gathers_and_scatters(jaxpr)?;
    let mut b = Builder::new();
    let mut env: HashMap<Var, (Atom, bool)> = HashMap::new();
    for (v, &bt) in jaxpr.all_inputs().zip(batched) {
        let mut aval = jaxpr.aval(v).clone();
        if bt {
            aval.shape.insert(0, size);
        }
        env.insert(v, (b.input(aval), bt));
    }
    let read = |env: &HashMap<Var, (Atom, bool)>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        lit => (lit.clone(), false),
    };
    for eqn in &jaxpr.eqns {
        b.source = eqn.source.clone();
        let ins: Vec<(Atom, bool)> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let any_batched = ins.iter().any(|(_, bt)| *bt);
        let outs: Vec<(Atom, bool)> = match &eqn.prim {
            Primitive::Collective { op, axis_name, .. } if is_batch_axis(axis_name) => {
                vec![(across_batch(&mut b, op, &ins, size)?, true)]
            }
            Primitive::While { function } if any_batched => while_batched(&mut b, function, &ins, size)?,
            Primitive::Scan { function } if any_batched => scan_batched(&mut b, function, &ins, size)?,
            Primitive::Cond { function } if any_batched => cond_batched(&mut b, function, &ins, size)?,
            Primitive::Callback { function } if any_batched => callback_batched(&mut b, function, &ins, size)?,
            Primitive::Jit { function } if any_batched => jit_batched(&mut b, function, &ins, size)?,
            Primitive::Remat { function: r } if any_batched => batched_call(&mut b, &r.body, &ins, size, |body| {
                Primitive::Remat { function: Rc::new(r.with_body(body, r.differentiated)) }
            })?,
            _ if any_batched => batch_rule(&mut b, &eqn.prim, &ins, size)?.into_iter().map(|a| (a, true)).collect(),
            _ => {
                let atoms: Vec<Atom> = ins.into_iter().map(|(a, _)| a).collect();
                b.bind(eqn.prim.clone(), &atoms)?.into_iter().map(|a| (a, false)).collect()
            }
        };
        env.extend(eqn.outputs.iter().copied().zip(outs));
    }
    let mut outs = Vec::new();
    let mut out_batched = Vec::new();
    for (i, a) in jaxpr.outvars.iter().enumerate() {
        let x = read(&env, a);
        if !x.1 && may_stay_unbatched.get(i) == Some(&true) {
            outs.push(x.0);
            out_batched.push(false);
        } else {
            outs.push(to_batched(&mut b, &x, size)?);
            out_batched.push(true);
        }
    }
    Ok((b.finish(outs), out_batched))
}

/// The batching rule of `while`, as JAX's: a carry is batched when its initial value is or
/// the body makes it depend on a batched value (a fixed point). When the predicate is batched
/// (it depends on a batched value, or is already one per example and a carry is batched
/// here), every carry is, and the loop runs until each example's condition fails (see
/// `WhileLoop`).
fn while_batched(b: &mut Builder, w: &WhileLoop, ins: &[(Atom, bool)], size: usize) -> Result<Vec<(Atom, bool)>> {
    let flags: Vec<bool> = ins.iter().map(|(_, bt)| *bt).collect();
    let [cond_flags, body_flags, carry_flags] = w.split(&flags);
    let n = w.carries();
    let mut carries = carry_flags.to_vec();
    loop {
        let (_, out) = vmap_outputs(&w.body, &[body_flags, &carries].concat(), size, &vec![true; n])?;
        let widened: Vec<bool> = carries.iter().zip(&out).map(|(&c, &o)| c || o).collect();
        if widened == carries {
            break;
        }
        carries = widened;
    }
    let (_, predicate) = vmap_outputs(&w.cond, &[cond_flags, &carries].concat(), size, &[true])?;
    let batched_predicate = predicate[0] || (!w.predicate_shape().is_empty() && carries.contains(&true));
    if batched_predicate {
        carries = vec![true; n];
    }
    let unbatched: Vec<bool> = carries.iter().map(|&c| !c).collect();
    let (body, _) = vmap_outputs(&w.body, &[body_flags, &carries].concat(), size, &unbatched)?;
    let (cond, _) = vmap_outputs(&w.cond, &[cond_flags, &carries].concat(), size, &[!batched_predicate])?;
    let [cond_ins, body_ins, carry_ins] = w.split(ins);
    let mut operands: Vec<Atom> = cond_ins.iter().chain(body_ins).map(|(a, _)| a.clone()).collect();
    for (x, &batched) in carry_ins.iter().zip(&carries) {
        operands.push(if batched { to_batched(b, x, size)? } else { x.0.clone() });
    }
    let function = WhileLoop { cond, cond_consts: w.cond_consts, body, body_consts: w.body_consts };
    let outs = b.bind(Primitive::While { function: Rc::new(function) }, &operands)?;
    Ok(outs.into_iter().zip(carries).collect())
}

/// The batching rule of `scan`, as JAX's: a carry is batched when its initial value is or
/// the body makes it depend on a batched value (a fixed point, as for `while`). A batched
/// `xs` has its batch axis moved behind the scanned one, so each row is batched along axis 0,
/// and a batched `ys` has it moved back to the front.
fn scan_batched(b: &mut Builder, s: &ScanLoop, ins: &[(Atom, bool)], size: usize) -> Result<Vec<(Atom, bool)>> {
    let flags: Vec<bool> = ins.iter().map(|(_, bt)| *bt).collect();
    let [const_flags, carry_flags, row_flags] = s.split(&flags);
    let mut carries = carry_flags.to_vec();
    let stays = vec![true; s.carries + s.ys()];
    let (body, out) = loop {
        let (body, out) = vmap_outputs(&s.body, &[const_flags, &carries, row_flags].concat(), size, &stays)?;
        let widened: Vec<bool> = carries.iter().zip(&out).map(|(&c, &o)| c || o).collect();
        if widened == carries {
            break (body, out);
        }
        carries = widened;
    };
    // The carries leave the body batched exactly where they enter it.
    let mut may_stay: Vec<bool> = carries.iter().map(|&c| !c).collect();
    may_stay.extend(vec![true; s.ys()]);
    let (body, out) = if out[..s.carries] == carries[..] {
        (body, out)
    } else {
        vmap_outputs(&s.body, &[const_flags, &carries, row_flags].concat(), size, &may_stay)?
    };
    let [const_ins, carry_ins, row_ins] = s.split(ins);
    let mut operands: Vec<Atom> = const_ins.iter().map(|(a, _)| a.clone()).collect();
    for (x, &batched) in carry_ins.iter().zip(&carries) {
        operands.push(if batched { to_batched(b, x, size)? } else { x.0.clone() });
    }
    for (x, batched) in row_ins {
        operands.push(if *batched { b.move_axis(x, 0, 1)? } else { x.clone() });
    }
    let function = ScanLoop { body, ..s.clone() };
    let outs = b.bind(Primitive::Scan { function: Rc::new(function) }, &operands)?;
    let mut result: Vec<(Atom, bool)> = outs[..s.carries].iter().cloned().zip(carries).collect();
    for (y, &batched) in outs[s.carries..].iter().zip(&out[s.carries..]) {
        result.push(if batched { (b.move_axis(y, 1, 0)?, true) } else { (y.clone(), false) });
    }
    Ok(result)
}

/// The batching rule of `cond`, as JAX's. A batched index (one per example) makes it a
/// select: every branch runs on every example, each on its operands `stop_gradient`ed where
/// it is not the branch taken (so no gradient flows back through a branch an example did not
/// take: JAX's guard against NaNs from the other side), and `select_n` picks each example's
/// outputs. An index that is not batched keeps one `cond`, its branches batched alike, each
/// output batched where any branch makes it so.
fn cond_batched(b: &mut Builder, c: &Branches, ins: &[(Atom, bool)], size: usize) -> Result<Vec<(Atom, bool)>> {
    let Some(((index, index_batched), operands)) = ins.split_first() else {
        return Err(JaxError("internal error: cond without index".into()));
    };
    let n_outs = c.branches.first().map_or(0, |branch| branch.outvars.len());
    if *index_batched {
        let operands = operands.iter().map(|x| to_batched(b, x, size)).collect::<Result<Vec<Atom>>>()?;
        let every = vec![true; operands.len()];
        let mut outs: Vec<Vec<Atom>> = Vec::with_capacity(c.branches.len());
        for (i, branch) in c.branches.iter().enumerate() {
            let batched = vmap(branch, &every, size)?;
            let i = b.lit(i as f64, DType::I32);
            let taken = b.compare(CompareOp::Eq, index, &i)?;
            let mut guarded = Vec::with_capacity(operands.len());
            for x in &operands {
                let stopped = b.bind1(Primitive::StopGradient, std::slice::from_ref(x))?;
                let shape = b.shape(x);
                let which = b.broadcast_in_dim(&taken, &shape, vec![0])?;
                guarded.push(b.select(&which, &stopped, x)?);
            }
            outs.push(b.inline(&batched, &guarded)?);
        }
        return (0..n_outs)
            .map(|k| {
                let shape = b.shape(&outs[0][k]);
                let mut args = vec![b.broadcast_in_dim(index, &shape, vec![0])?];
                args.extend(outs.iter().map(|branch_outs| branch_outs[k].clone()));
                Ok((b.bind1(Primitive::SelectN, &args)?, true))
            })
            .collect();
    }
    let flags: Vec<bool> = operands.iter().map(|(_, bt)| *bt).collect();
    let mut out_batched = vec![false; n_outs];
    for branch in &c.branches {
        let (_, batched) = vmap_outputs(branch, &flags, size, &vec![true; n_outs])?;
        out_batched.iter_mut().zip(batched).for_each(|(o, bt)| *o |= bt);
    }
    let may_stay: Vec<bool> = out_batched.iter().map(|&bt| !bt).collect();
    let branches = c
        .branches
        .iter()
        .map(|branch| Ok(vmap_outputs(branch, &flags, size, &may_stay)?.0))
        .collect::<Result<Vec<Jaxpr>>>()?;
    let atoms: Vec<Atom> = ins.iter().map(|(a, _)| a.clone()).collect();
    let outs = b.bind(Primitive::Cond { function: Rc::new(Branches { branches }) }, &atoms)?;
    Ok(outs.into_iter().zip(out_batched).collect())
}

/// The batching rule of a nested `jit`, as JAX's: one `jit` of the batched body.
fn jit_batched(b: &mut Builder, j: &JitFunction, ins: &[(Atom, bool)], size: usize) -> Result<Vec<(Atom, bool)>> {
    batched_call(b, &j.body, ins, size, |body| Primitive::Jit {
        function: Rc::new(JitFunction { name: j.name.clone(), body, consts: j.consts }),
    })
}

/// A call of `body` batched as one equation of the batched body (`call` makes its primitive;
/// a nested `jit`'s rule and a checkpoint's), its outputs batched where they depend on a
/// batched operand.
fn batched_call(
    b: &mut Builder,
    body: &Jaxpr,
    ins: &[(Atom, bool)],
    size: usize,
    call: impl FnOnce(Jaxpr) -> Primitive,
) -> Result<Vec<(Atom, bool)>> {
    let flags: Vec<bool> = ins.iter().map(|(_, bt)| *bt).collect();
    let (batched, out_batched) = vmap_outputs(body, &flags, size, &vec![true; body.outvars.len()])?;
    let atoms: Vec<Atom> = ins.iter().map(|(a, _)| a.clone()).collect();
    let outs = b.bind(call(batched), &atoms)?;
    Ok(outs.into_iter().zip(out_batched).collect())
}

/// The value with a batch axis, broadcasting an unbatched one along it.
/// The batching rules of the callbacks, as JAX's. A pure callback does what its `vmap_method`
/// says: call the function once per example in a loop (`sequential`: JAX's `lax.map`, a
/// `scan` over the batched operands with the others closed over), or once on the whole batch,
/// the unbatched operands given a leading axis of size 1 (`expand_dims`) or broadcast to the
/// batch (`broadcast_all`). An unordered IO callback runs in the loop too; an ordered one
/// refuses. A debug callback or print is called once per example, each on its slice, unrolled.
fn callback_batched(
    b: &mut Builder,
    c: &Rc<HostCallback>,
    ins: &[(Atom, bool)],
    size: usize,
) -> Result<Vec<(Atom, bool)>> {
    let batched_results =
        || c.results.iter().map(|r| Aval { shape: [&[size], &r.shape[..]].concat(), ..r.clone() }).collect::<Vec<_>>();
    let whole_batch = |b: &mut Builder, operands: Vec<Atom>| -> Result<Vec<(Atom, bool)>> {
        let function = Rc::new(c.with_results(batched_results()));
        Ok(b.bind(Primitive::Callback { function }, &operands)?.into_iter().map(|a| (a, true)).collect())
    };
    let sequential = match c.kind {
        CallbackKind::Pure { vmap_method: None } => return Err(JaxError(callback::PURE_VMAP_NONE.into())),
        CallbackKind::Io { ordered: true } => return Err(JaxError(callback::IO_ORDERED_VMAP.into())),
        CallbackKind::Pure { vmap_method: Some(VmapMethod::ExpandDims) } => {
            let mut operands = Vec::with_capacity(ins.len());
            for (x, bt) in ins {
                operands.push(if *bt { x.clone() } else { b.reshape(x, &[&[1], &b.shape(x)[..]].concat())? });
            }
            return whole_batch(b, operands);
        }
        CallbackKind::Pure { vmap_method: Some(VmapMethod::BroadcastAll) } => {
            let operands = ins.iter().map(|x| to_batched(b, x, size)).collect::<Result<Vec<_>>>()?;
            return whole_batch(b, operands);
        }
        CallbackKind::Pure { vmap_method: Some(VmapMethod::SequentialUnrolled) } => Some(size),
        CallbackKind::Pure { .. } | CallbackKind::Io { .. } => Some(1),
        CallbackKind::Debug { .. } | CallbackKind::Print { .. } => None,
    };
    let Some(unroll) = sequential else {
        for i in 0..size {
            let mut operands = Vec::with_capacity(ins.len());
            for (x, bt) in ins {
                if !*bt {
                    operands.push(x.clone());
                    continue;
                }
                let shape = b.shape(x);
                let (mut start, mut limit) = (vec![0; shape.len()], shape.clone());
                (start[0], limit[0]) = (i, i + 1);
                let strides = Some(vec![1; shape.len()]);
                let row = b.bind1(
                    Primitive::Slice { start_indices: start, limit_indices: limit, strides },
                    std::slice::from_ref(x),
                )?;
                operands.push(b.bind1(Primitive::Squeeze { dimensions: vec![0] }, &[row])?);
            }
            b.bind(Primitive::Callback { function: c.clone() }, &operands)?;
        }
        return Ok(vec![]);
    };
    // The loop's body: the unbatched operands closed over, one row of each batched one.
    let mut body = Builder::new();
    let closed: Vec<Atom> = ins.iter().filter(|(_, bt)| !bt).map(|(x, _)| body.input(b.aval(x))).collect();
    let rows: Vec<Atom> = ins
        .iter()
        .filter(|(_, bt)| *bt)
        .map(|(x, _)| {
            let aval = b.aval(x);
            body.input(Aval { shape: aval.shape[1..].to_vec(), ..aval })
        })
        .collect();
    let (mut closed_it, mut rows_it) = (closed.iter(), rows.iter());
    let operands: Vec<Atom> = ins
        .iter()
        .map(|(_, bt)| if *bt { rows_it.next() } else { closed_it.next() }.expect("one input per operand").clone())
        .collect();
    let results = body.bind(Primitive::Callback { function: c.clone() }, &operands)?;
    let scan =
        ScanLoop { body: body.finish(results), consts: closed.len(), carries: 0, length: size, reverse: false, unroll };
    let mut scan_operands: Vec<Atom> = ins.iter().filter(|(_, bt)| !bt).map(|(x, _)| x.clone()).collect();
    scan_operands.extend(ins.iter().filter(|(_, bt)| *bt).map(|(x, _)| x.clone()));
    Ok(b.bind(Primitive::Scan { function: Rc::new(scan) }, &scan_operands)?.into_iter().map(|a| (a, true)).collect())
}

fn to_batched(b: &mut Builder, (x, bt): &(Atom, bool), size: usize) -> Result<Atom> {
    if *bt {
        return Ok(x.clone());
    }
    let shape = b.shape(x);
    let mut batched_shape = vec![size];
    batched_shape.extend(&shape);
    if b.aval(x).dtype == DType::Key {
        // Keys are opaque: their words are broadcast.
        let words = b.bind1(Primitive::RandomUnwrap, std::slice::from_ref(x))?;
        batched_shape.push(2);
        let words = b.broadcast_in_dim(&words, &batched_shape, (1..=shape.len() + 1).collect())?;
        return b.bind1(Primitive::RandomWrap, &[words]);
    }
    b.broadcast_in_dim(x, &batched_shape, (1..=shape.len()).collect())
}

/// Per-example shape of an operand.
fn example_shape(b: &Builder, (x, bt): &(Atom, bool)) -> Vec<usize> {
    let s = b.shape(x);
    if *bt {
        s[1..].to_vec()
    } else {
        s
    }
}

fn shift(axes: &[usize]) -> Vec<usize> {
    axes.iter().map(|a| a + 1).collect()
}

fn batch_rule(b: &mut Builder, prim: &Primitive, ins: &[(Atom, bool)], size: usize) -> Result<Vec<Atom>> {
    let x = ins[0].0.clone();
    let unsupported = |what: &str| {
        Err(JaxError(format!("vmap of {} with {what} is not supported by the playground yet", prim.name())))
    };
    let out = match prim {
        // Over a mapped axis other than the one being batched: the same collective on every
        // example, its axes one further along. (`axis_index` has no operand to batch.)
        Primitive::Collective { op, axis_name, axis_size } => {
            let batched = Primitive::Collective { op: op.batched(), axis_name: axis_name.clone(), axis_size: *axis_size };
            if ins[0].1 {
                b.bind1(batched, &[x])?
            } else {
                let example = b.bind1(prim.clone(), &[x])?;
                let shape = b.shape(&example);
                let mut out_shape = vec![size];
                out_shape.extend(&shape);
                b.broadcast_in_dim(&example, &out_shape, (1..=shape.len()).collect())?
            }
        }
        // Both the function and its rule batched alike; the tangents as their arguments.
        Primitive::CustomJvpCall { function } => {
            let flags: Vec<bool> = ins.iter().map(|(_, bt)| *bt).collect();
            let batched = Rc::new(batch_custom_jvp(function, &flags, size)?);
            let atoms: Vec<Atom> = ins.iter().map(|(a, _)| a.clone()).collect();
            return b.bind(Primitive::CustomJvpCall { function: batched }, &atoms);
        }
        Primitive::CustomVjpCall { function } => {
            let flags: Vec<bool> = ins.iter().map(|(_, bt)| *bt).collect();
            let batched = Rc::new(batch_custom_vjp(function, &flags, size)?);
            let atoms: Vec<Atom> = ins.iter().map(|(a, _)| a.clone()).collect();
            return b.bind(Primitive::CustomVjpCall { function: batched }, &atoms);
        }
        Primitive::CustomVjpTangent { .. } => return unsupported("its tangent (differentiate inside vmap instead)"),
        Primitive::While { .. }
        | Primitive::Scan { .. }
        | Primitive::Cond { .. }
        | Primitive::Jit { .. }
        | Primitive::Remat { .. }
        | Primitive::Scatter { .. }
        | Primitive::Gather
        | Primitive::Callback { .. } => {
            return Err(JaxError(format!("internal error: {} is batched by its own rule", prim.name())))
        }
        Primitive::Unary(_)
        | Primitive::IntegerPow { .. }
        | Primitive::ConvertElementType { .. }
        | Primitive::BitcastConvertType { .. }
        | Primitive::StopGradient
        | Primitive::Name { .. }
        | Primitive::ReducePrecision { .. }
        // A key array's axes lead its words' and its draws', so the batch axis stays first.
        | Primitive::RandomWrap
        | Primitive::RandomUnwrap
        | Primitive::RandomSeed
        | Primitive::RandomBits { .. }
        | Primitive::RandomSplit { .. } => {
            let x = to_batched(b, &ins[0], size)?;
            b.bind1(prim.clone(), &[x])?
        }
        Primitive::ShardMap { .. } => return unsupported("a jax.shard_map called inside jit"),
        Primitive::ShardingConstraint { constraint } => {
            let x = to_batched(b, &ins[0], size)?;
            b.bind1(Primitive::ShardingConstraint { constraint: Rc::new(constraint.batched(0)) }, &[x])?
        }
        Primitive::RandomFoldIn => {
            let keys = to_batched(b, &ins[0], size)?;
            let data = if example_shape(b, &ins[1]).is_empty() && !ins[1].1 {
                ins[1].0.clone()
            } else {
                let data = to_batched(b, &ins[1], size)?;
                let full = b.shape(&keys);
                if b.shape(&data) == full {
                    data
                } else {
                    b.broadcast_in_dim(&data, &full, vec![0])?
                }
            };
            b.bind1(prim.clone(), &[keys, data])?
        }
        Primitive::Binary(_)
        | Primitive::Compare(_)
        | Primitive::SelectN
        | Primitive::Clamp
        | Primitive::AddAny => {
            // Elementwise: bring every operand to the batched output shape, except unbatched
            // scalars, which the primitive broadcasts itself (a select's cases, add_any's
            // operands and clamp's operand must match).
            let shape = ins.iter().map(|i| example_shape(b, i)).max_by_key(|s| s.len()).unwrap_or_default();
            let mut full = vec![size];
            full.extend(&shape);
            let mut args = Vec::new();
            for (k, (a, bt)) in ins.iter().enumerate() {
                let is_case = match prim {
                    Primitive::SelectN => k > 0,
                    Primitive::Clamp => k == 1,
                    _ => matches!(prim, Primitive::AddAny),
                };
                let rank = example_shape(b, &(a.clone(), *bt)).len();
                let arg = if *bt {
                    if rank == 0 && !shape.is_empty() {
                        b.broadcast_in_dim(a, &full, vec![0])?
                    } else {
                        a.clone()
                    }
                } else if rank == 0 && !is_case {
                    a.clone()
                } else {
                    b.broadcast_in_dim(a, &full, (1..=rank).collect())?
                };
                args.push(arg);
            }
            b.bind1(prim.clone(), &args)?
        }
        Primitive::DotGeneral { dims, precision, preferred_element_type } => {
            let ((lhs, lb), (rhs, rb)) = (&ins[0], &ins[1]);
            let nb = dims.lhs_batch.len();
            let mk = |dims: DotDims| Primitive::DotGeneral {
                dims,
                precision: *precision,
                preferred_element_type: *preferred_element_type,
            };
            let lhs_rank = example_shape(b, &ins[0]).len();
            let lhs_free = lhs_rank - dims.lhs_contracting.len() - nb;
            match (lb, rb) {
                (true, true) => {
                    let mut lhs_batch = vec![0];
                    lhs_batch.extend(shift(&dims.lhs_batch));
                    let mut rhs_batch = vec![0];
                    rhs_batch.extend(shift(&dims.rhs_batch));
                    let d = DotDims {
                        lhs_contracting: shift(&dims.lhs_contracting),
                        rhs_contracting: shift(&dims.rhs_contracting),
                        lhs_batch,
                        rhs_batch,
                    };
                    b.bind1(mk(d), &[lhs.clone(), rhs.clone()])?
                }
                (true, false) => {
                    let d = DotDims {
                        lhs_contracting: shift(&dims.lhs_contracting),
                        lhs_batch: shift(&dims.lhs_batch),
                        ..dims.clone()
                    };
                    // The batch axis is the left operand's first free axis in the result.
                    let r = b.bind1(mk(d), &[lhs.clone(), rhs.clone()])?;
                    b.move_axis(&r, nb, 0)?
                }
                _ => {
                    let d = DotDims {
                        rhs_contracting: shift(&dims.rhs_contracting),
                        rhs_batch: shift(&dims.rhs_batch),
                        ..dims.clone()
                    };
                    let r = b.bind1(mk(d), &[lhs.clone(), rhs.clone()])?;
                    b.move_axis(&r, nb + lhs_free, 0)?
                }
            }
        }
        Primitive::Reshape { new_sizes } => {
            let mut s = vec![size];
            s.extend(new_sizes);
            b.reshape(&x, &s)?
        }
        Primitive::BroadcastInDim { shape, broadcast_dimensions } => {
            let mut s = vec![size];
            s.extend(shape);
            let mut dims = vec![0];
            dims.extend(shift(broadcast_dimensions));
            b.bind1(Primitive::BroadcastInDim { shape: s, broadcast_dimensions: dims }, &[x])?
        }
        Primitive::Transpose { permutation } => {
            let mut p = vec![0];
            p.extend(shift(permutation));
            b.transpose(&x, p)?
        }
        Primitive::ReduceSum { axes } => b.bind1(Primitive::ReduceSum { axes: shift(axes) }, &[x])?,
        Primitive::ReduceMax { axes } => b.bind1(Primitive::ReduceMax { axes: shift(axes) }, &[x])?,
        Primitive::ReduceMin { axes } => b.bind1(Primitive::ReduceMin { axes: shift(axes) }, &[x])?,
        Primitive::ArgReduce { axis, is_max, index_dtype } => {
            b.bind1(Primitive::ArgReduce { axis: axis + 1, is_max: *is_max, index_dtype: *index_dtype }, &[x])?
        }
        Primitive::Cumsum { axis, reverse } => {
            b.bind1(Primitive::Cumsum { axis: axis + 1, reverse: *reverse }, &[x])?
        }
        Primitive::Squeeze { dimensions } => b.bind1(Primitive::Squeeze { dimensions: shift(dimensions) }, &[x])?,
        Primitive::Rev { dimensions } => b.bind1(Primitive::Rev { dimensions: shift(dimensions) }, &[x])?,
        Primitive::Iota { .. } => unreachable!("iota has no operands to batch"),
        Primitive::Concatenate { dimension } => {
            let args = ins.iter().map(|i| to_batched(b, i, size)).collect::<Result<Vec<_>>>()?;
            b.bind1(Primitive::Concatenate { dimension: dimension + 1 }, &args)?
        }
        Primitive::Pad { config } => {
            if ins[1].1 {
                return unsupported("a batched padding value");
            }
            let mut c = vec![(0, 0, 0)];
            c.extend(config);
            b.bind1(Primitive::Pad { config: c }, &[x, ins[1].0.clone()])?
        }
        Primitive::Slice { start_indices, limit_indices, strides } => {
            let mut start = vec![0];
            start.extend(start_indices);
            let mut limit = vec![size];
            limit.extend(limit_indices);
            let strides = strides.as_ref().map(|s| {
                let mut v = vec![1];
                v.extend(s);
                v
            });
            b.bind1(Primitive::Slice { start_indices: start, limit_indices: limit, strides }, &[x])?
        }
        // A start per example (`vmap(lambda i: lax.dynamic_slice(data, (i,), (k,)))(starts)`,
        // JAX's gather): each example's window picked out by comparing positions, as the
        // lowering does for a computed start.
        Primitive::DynamicSlice { slice_sizes } if ins[1..].iter().any(|(_, bt)| *bt) => {
            let x = to_batched(b, &ins[0], size)?;
            let starts: Vec<Atom> = ins[1..].iter().map(|(a, _)| a.clone()).collect();
            super::lower::as_int_if_bool(b, &[&x], |b, x| {
                super::lower::dynamic_slice(b, &x[0], &starts, slice_sizes, true)
            })?
        }
        Primitive::DynamicUpdateSlice if ins[2..].iter().any(|(_, bt)| *bt) => {
            let x = to_batched(b, &ins[0], size)?;
            let update = to_batched(b, &ins[1], size)?;
            let starts: Vec<Atom> = ins[2..].iter().map(|(a, _)| a.clone()).collect();
            super::lower::as_int_if_bool(b, &[&x, &update], |b, xu| {
                super::lower::dynamic_update_slice(b, &xu[0], &xu[1], &starts, true)
            })?
        }
        Primitive::DynamicSlice { slice_sizes } => {
            let mut args = vec![x, b.lit(0.0, DType::I32)];
            args.extend(ins[1..].iter().map(|(a, _)| a.clone()));
            let mut sizes = vec![size];
            sizes.extend(slice_sizes);
            b.bind1(Primitive::DynamicSlice { slice_sizes: sizes }, &args)?
        }
        Primitive::DynamicUpdateSlice => {
            let mut args = vec![to_batched(b, &ins[0], size)?, to_batched(b, &ins[1], size)?];
            args.push(b.lit(0.0, DType::I32));
            args.extend(ins[2..].iter().map(|(a, _)| a.clone()));
            b.bind1(Primitive::DynamicUpdateSlice, &args)?
        }
    };
    Ok(vec![out])
}

/// A `custom_jvp` function batched by `flags` (one per operand of its call equation): the
/// function and its rule alike, the tangents as their arguments. A pending rule stays pending,
/// to be batched so once traced.
pub fn batch_custom_jvp(function: &Rc<CustomJvp>, flags: &[bool], size: usize) -> Result<CustomJvp> {
    let (call_closed, rule_closed, args) = function.split(flags);
    let call_flags: Vec<bool> = call_closed.iter().chain(args).copied().collect();
    let rule = match &function.rule {
        JvpRule::Traced { jaxpr, consts } => {
            let rule_flags: Vec<bool> = rule_closed.iter().chain(args).chain(args).copied().collect();
            JvpRule::Traced { jaxpr: vmap(jaxpr, &rule_flags, size)?, consts: *consts }
        }
        JvpRule::Pending(_) => JvpRule::Pending(Pending::Batched { of: function.clone(), flags: flags.to_vec(), size }),
    };
    Ok(CustomJvp {
        name: function.name.clone(),
        rule_name: function.rule_name.clone(),
        call: vmap(&function.call, &call_flags, size)?,
        call_consts: function.call_consts,
        rule,
    })
}

/// A `custom_vjp` function batched by `flags` (one per operand of its call equation). The
/// batched forward pass batches every residual; the cotangents are batched too. Pending passes
/// stay pending, to be batched so once traced.
pub fn batch_custom_vjp(function: &Rc<CustomVjp>, flags: &[bool], size: usize) -> Result<CustomVjp> {
    let [call_closed, fwd_closed, bwd_closed, args] = function.split(flags);
    let call_flags: Vec<bool> = call_closed.iter().chain(args).copied().collect();
    let passes = match &function.passes {
        VjpPasses::Traced { fwd, fwd_consts, bwd, bwd_consts } => {
            let fwd_flags: Vec<bool> = fwd_closed.iter().chain(args).copied().collect();
            let mut bwd_flags: Vec<bool> = bwd_closed.to_vec();
            bwd_flags.extend(std::iter::repeat_n(true, function.residuals() + function.outputs()));
            VjpPasses::Traced {
                fwd: vmap(fwd, &fwd_flags, size)?,
                fwd_consts: *fwd_consts,
                bwd: vmap(bwd, &bwd_flags, size)?,
                bwd_consts: *bwd_consts,
            }
        }
        VjpPasses::Pending(_) => {
            VjpPasses::Pending(Pending::Batched { of: function.clone(), flags: flags.to_vec(), size })
        }
        // bwd is batched once traced (`batch_traced_bwd`).
        VjpPasses::ForwardTraced { fwd, fwd_consts, .. } => {
            let fwd_flags: Vec<bool> = fwd_closed.iter().chain(args).copied().collect();
            VjpPasses::ForwardTraced {
                fwd: vmap(fwd, &fwd_flags, size)?,
                fwd_consts: *fwd_consts,
                bwd: Pending::Batched { of: function.clone(), flags: flags.to_vec(), size },
            }
        }
    };
    Ok(CustomVjp {
        name: function.name.clone(),
        fwd_name: function.fwd_name.clone(),
        bwd_name: function.bwd_name.clone(),
        call: vmap(&function.call, &call_flags, size)?,
        call_consts: function.call_consts,
        passes,
    })
}

/// A pending rule's `Pending::Batched` made concrete: `rule`, `of`'s rule once traced (closing
/// over `consts` values), batched by `flags` (for `of`'s operands while its rule was pending:
/// its call's closed-over values, then its arguments). The closed-over values are not batched.
pub fn batch_traced_rule(of: &CustomJvp, rule: &Jaxpr, consts: usize, flags: &[bool], size: usize) -> Result<Jaxpr> {
    let args = &flags[of.call_consts..];
    let rule_flags: Vec<bool> =
        std::iter::repeat_n(false, consts).chain(args.iter().copied()).chain(args.iter().copied()).collect();
    vmap(rule, &rule_flags, size)
}

/// `batch_traced_rule` for a custom VJP's two passes: (fwd, bwd) batched.
/// A custom VJP's `bwd` traced after its function was batched (`VjpPasses::ForwardTraced`
/// with a batched pending `bwd`): the values it closes over unbatched, every residual and
/// cotangent batched, as `batch_custom_vjp` batches a traced one.
pub fn batch_traced_bwd(bwd: &Jaxpr, bwd_consts: usize, size: usize) -> Result<Jaxpr> {
    let batched = bwd.invars.len() - bwd_consts;
    let flags: Vec<bool> = std::iter::repeat_n(false, bwd_consts).chain(std::iter::repeat_n(true, batched)).collect();
    vmap(bwd, &flags, size)
}

pub fn batch_traced_passes(
    of: &CustomVjp,
    (fwd, fwd_consts): (&Jaxpr, usize),
    (bwd, bwd_consts): (&Jaxpr, usize),
    flags: &[bool],
    size: usize,
) -> Result<(Jaxpr, Jaxpr)> {
    let args = &flags[of.call_consts..];
    let fwd_flags: Vec<bool> = std::iter::repeat_n(false, fwd_consts).chain(args.iter().copied()).collect();
    // Every residual and every output's cotangent is batched: as many as fwd's outputs.
    let bwd_flags: Vec<bool> =
        std::iter::repeat_n(false, bwd_consts).chain(std::iter::repeat_n(true, fwd.outvars.len())).collect();
    Ok((vmap(fwd, &fwd_flags, size)?, vmap(bwd, &bwd_flags, size)?))
}
