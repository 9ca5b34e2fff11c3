//! What a Jaxpr becomes once nothing differentiates or batches it any more, written in
//! primitives the compiler has: custom-derivative calls inlined (JAX lowers them the same way),
//! and `dynamic_slice`/`dynamic_update_slice` at indices computed at run time either kept, for
//! the compiler's linker to move by DMAs at addresses the scalar unit computes
//! ([`lower_keeping_windows`]), or expanded into selections ([`lower`], for a program the
//! linker cannot take): a window whose position is data picked out by comparing positions
//! with the start, as XLA's one-hot gathers are, which reads the whole operand; the counters
//! show that cost (docs/compiler.md).

use super::Builder;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Jaxpr, Var};
use crate::prim::{BinaryOp, Branches, CompareOp, Primitive, ScanLoop, UnaryOp, WhileLoop};
use crate::trace::JaxError;
use std::collections::HashMap;
use std::rc::Rc;

type Result<T> = std::result::Result<T, JaxError>;

/// Whether [`lower`] would change `jaxpr`.
pub fn needs_lowering(jaxpr: &Jaxpr) -> bool {
    jaxpr.eqns.iter().any(|e| match e.prim {
        Primitive::CustomJvpCall { .. }
        | Primitive::CustomVjpCall { .. }
        | Primitive::CustomVjpTangent { .. }
        | Primitive::AddAny
        | Primitive::While { .. }
        | Primitive::Scan { .. }
        | Primitive::Cond { .. }
        | Primitive::Jit { .. }
        | Primitive::Remat { .. }
        | Primitive::Name { .. }
        | Primitive::ReducePrecision { .. }
        | Primitive::Scatter { .. }
        | Primitive::Gather
        | Primitive::Clamp => true,
        Primitive::SelectN => int_selector(jaxpr, e),
        ref prim => window_starts(prim).is_some_and(|first| computed(&e.inputs[first..])),
    })
}

/// `jaxpr` with every custom-derivative call replaced by the equations of the function it
/// calls, and every dynamic slice or update at a computed index replaced by selections (see
/// the module's comment; [`lower_keeping_windows`] keeps them). A `custom_jvp` function with several outputs is an equation per
/// output, so its body is copied once per output. A `while` keeps its place, its two Jaxprs
/// lowered and its predicate made one boolean (see [`scalar_loop`]); a `scan` and a `cond`
/// keep their places, their Jaxprs lowered; a nested `jit` is replaced by its body's
/// equations. `clamp` becomes `max` then `min`, and a
/// `select_n` picking by an int32 index a chain of boolean selects (the machine's select
/// takes a predicate and two cases).
pub fn lower(jaxpr: &Jaxpr) -> Result<Jaxpr> {
    lower_with(jaxpr, Windows::Selected)
}

/// [`lower`], but a dynamic slice or update at a computed int32 index stays one equation: for
/// a machine whose scalar unit computes the window's address (`compiler::link` moves just the
/// window). Other index types are still selections.
pub fn lower_keeping_windows(jaxpr: &Jaxpr) -> Result<Jaxpr> {
    lower_with(jaxpr, Windows::Addressed)
}

/// What lowering makes of a window (a dynamic slice or update) at computed indices.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Windows {
    /// Picked out by comparing positions with the start.
    Selected,
    /// Kept, where its indices are int32, for the scalar unit to address.
    Addressed,
}

/// `jaxpr` built again equation by equation: `rewrite` gets each equation and its operands in
/// the new Jaxpr and binds what replaces it, returning its outputs.
fn rebuild(
    jaxpr: &Jaxpr,
    mut rewrite: impl FnMut(&mut Builder, &crate::jaxpr::Eqn, Vec<Atom>) -> Result<Vec<Atom>>,
) -> Result<Jaxpr> {
    let mut b = Builder::new();
    let mut env: HashMap<Var, Atom> = HashMap::new();
    for v in jaxpr.all_inputs() {
        env.insert(v, b.input(jaxpr.aval(v).clone()));
    }
    let read = |env: &HashMap<Var, Atom>, a: &Atom| match a {
        Atom::Var(v) => env[v].clone(),
        lit => lit.clone(),
    };
    for eqn in &jaxpr.eqns {
        b.source = eqn.source.clone();
        let ins: Vec<Atom> = eqn.inputs.iter().map(|a| read(&env, a)).collect();
        let outs = rewrite(&mut b, eqn, ins)?;
        env.extend(eqn.outputs.iter().copied().zip(outs));
    }
    let outs = jaxpr.outvars.iter().map(|a| read(&env, a)).collect();
    Ok(b.finish(outs))
}

fn lower_with(jaxpr: &Jaxpr, windows: Windows) -> Result<Jaxpr> {
    rebuild(jaxpr, |b, eqn, ins| {
        Ok(match (&eqn.prim, eqn.prim.custom_body(&ins)) {
            (_, Some((call, call_ins))) => {
                let body = lower_with(call, windows)?;
                b.inline(&body, &call_ins)?
            }
            (Primitive::CustomVjpTangent { .. }, _) => return Err(JaxError(crate::eval::CUSTOM_VJP_FORWARD.into())),
            (Primitive::AddAny, _) => vec![b.add(&ins[0], &ins[1])?],
            (Primitive::While { function }, _) => {
                let (function, operands) = scalar_loop_with(function, &ins, windows)?;
                b.bind(Primitive::While { function: Rc::new(function) }, &operands)?
            }
            (Primitive::Scan { function }, _) => {
                let function = ScanLoop { body: lower_with(&function.body, windows)?, ..function.as_ref().clone() };
                b.bind(Primitive::Scan { function: Rc::new(function) }, &ins)?
            }
            (Primitive::Cond { function }, _) => {
                let branches = function.branches.iter().map(|j| lower_with(j, windows)).collect::<Result<_>>()?;
                b.bind(Primitive::Cond { function: Rc::new(Branches { branches }) }, &ins)?
            }
            // A nested `jit` is a unit to the transformations only: the compiler sees its
            // equations in place, as XLA inlines a call.
            // So is a checkpoint: its recomputation is already written out in the backward
            // pass's equations.
            (prim @ (Primitive::Jit { .. } | Primitive::Remat { .. }), _) => {
                b.inline(&lower_with(prim.call_body().expect("a call"), windows)?, &ins)?
            }
            // A name is the value itself.
            (Primitive::Name { .. }, _) => vec![ins[0].clone()],
            (Primitive::ReducePrecision { exponent_bits, mantissa_bits }, _) => {
                vec![reduce_precision(b, &ins[0], *exponent_bits, *mantissa_bits)?]
            }
            (Primitive::Scatter { combine, axes }, _) => {
                let expanded = scatter_jaxpr(*combine, axes, &ins.iter().map(|a| b.aval(a)).collect::<Vec<_>>())?;
                b.inline(&lower_with(&expanded, windows)?, &ins)?
            }
            (Primitive::Gather, _) => {
                let (x, indices) = (b.aval(&ins[0]), b.aval(&ins[1]));
                let expanded = if windows == Windows::Addressed && x.size() >= GATHER_BY_ROWS_WORDS {
                    gather_rows_jaxpr(&x, &indices)?
                } else {
                    gather_selection_jaxpr(&x, &indices)?
                };
                b.inline(&lower_with(&expanded, windows)?, &ins)?
            }
            (Primitive::Clamp, _) => {
                let raised = b.binary(BinaryOp::Max, &ins[1], &ins[0])?;
                vec![b.binary(BinaryOp::Min, &raised, &ins[2])?]
            }
            (Primitive::SelectN, _) if int_selector(jaxpr, eqn) => {
                // cases[k] where the index is k, the last case elsewhere.
                let (which, cases) = ins.split_first().expect("select_n has a selector");
                let mut picked = cases[cases.len() - 1].clone();
                for (k, case) in cases.iter().enumerate().rev().skip(1) {
                    let k = b.lit(k as f64, DType::I32);
                    let here = b.compare(CompareOp::Eq, which, &k)?;
                    picked = b.select(&here, &picked, case)?;
                }
                vec![picked]
            }
            (prim, _)
                if windows == Windows::Addressed
                    && window_starts(prim).is_some_and(|first| int32_indices(b, &ins[first..])) =>
            {
                b.bind(prim.clone(), &ins)?
            }
            (Primitive::DynamicSlice { slice_sizes }, _) if computed(&ins[1..]) => {
                vec![as_int_if_bool(b, &[&ins[0]], |b, x| dynamic_slice(b, &x[0], &ins[1..], slice_sizes, false))?]
            }
            (Primitive::DynamicUpdateSlice, _) if computed(&ins[2..]) => {
                vec![as_int_if_bool(b, &[&ins[0], &ins[1]], |b, x| {
                    dynamic_update_slice(b, &x[0], &x[1], &ins[2..], false)
                })?]
            }
            (prim, None) => b.bind(prim.clone(), &ins)?,
        })
    })
}

/// A `while` whose condition is one boolean, with its Jaxprs lowered, and the operands it
/// takes in place of `operands`. A predicate per example (from `vmap`) becomes what JAX's
/// lowering makes of it: the loop runs while any example's condition holds, and the body
/// computes every example's condition again and keeps the old carries where it is false.
pub fn scalar_loop<T: Clone>(w: &WhileLoop, operands: &[T]) -> Result<(WhileLoop, Vec<T>)> {
    scalar_loop_with(w, operands, Windows::Selected)
}

fn scalar_loop_with<T: Clone>(w: &WhileLoop, operands: &[T], windows: Windows) -> Result<(WhileLoop, Vec<T>)> {
    let (cond, body) = (lower_with(&w.cond, windows)?, lower_with(&w.body, windows)?);
    let batch = w.predicate_shape().to_vec();
    if batch.is_empty() {
        let function = WhileLoop { cond, cond_consts: w.cond_consts, body, body_consts: w.body_consts };
        return Ok((function, operands.to_vec()));
    }
    let carry_avals = w.carry_avals();
    // cond: any of the predicates.
    let mut c = Builder::new();
    let ins: Vec<Atom> = cond.invars.iter().map(|&v| c.input(cond.aval(v).clone())).collect();
    let predicate = c.inline(&cond, &ins)?.remove(0);
    let as_number = c.convert(&predicate, DType::F32)?;
    let most = c.bind1(Primitive::ReduceMax { axes: (0..batch.len()).collect() }, &[as_number])?;
    let zero = c.lit(0.0, DType::F32);
    let any = c.compare(CompareOp::Gt, &most, &zero)?;
    let any_cond = c.finish(vec![any]);
    // body: (cond's closed-over values, body's, carries) -> each carry, new where its
    // example's condition holds.
    let mut k = Builder::new();
    let cond_consts: Vec<Atom> = cond.invars[..w.cond_consts].iter().map(|&v| k.input(cond.aval(v).clone())).collect();
    let body_consts: Vec<Atom> = body.invars[..w.body_consts].iter().map(|&v| k.input(body.aval(v).clone())).collect();
    let carries: Vec<Atom> = carry_avals.iter().map(|a| k.input(a.clone())).collect();
    let predicate = k.inline(&cond, &[cond_consts, carries.clone()].concat())?.remove(0);
    let next = k.inline(&body, &[body_consts, carries.clone()].concat())?;
    let mut outs = Vec::with_capacity(next.len());
    for ((old, new), aval) in carries.iter().zip(&next).zip(&carry_avals) {
        let which = k.broadcast_in_dim(&predicate, &aval.shape, (0..batch.len()).collect())?;
        outs.push(k.select(&which, old, new)?);
    }
    let masked_body = k.finish(outs);
    let [cond_ops, body_ops, carry_ops] = w.split(operands);
    let operands = [cond_ops, cond_ops, body_ops, carry_ops].concat();
    let function = WhileLoop {
        cond: any_cond,
        cond_consts: w.cond_consts,
        body: masked_body,
        body_consts: w.cond_consts + w.body_consts,
    };
    Ok((function, operands))
}

/// A `scatter` on operands of these types as windows, a Jaxpr of `(x, indices, updates)`:
/// each index read out of `indices`, the window of `x` there read (`dynamic_slice`), combined
/// with the updates, and written back (`dynamic_update_slice`). An index out of range would be
/// clamped by both; there the window is written back as it was read, which drops the update
/// as the scatter's FILL_OR_DROP does. So the machine moves the window alone.
pub(crate) fn scatter_jaxpr(combine: Option<BinaryOp>, axes: &[usize], avals: &[crate::array::Aval]) -> Result<Jaxpr> {
    let [x_aval, indices_aval, updates_aval] = avals else {
        return Err(JaxError(format!("internal error: a scatter takes 3 operands, got {}", avals.len())));
    };
    let mut b = Builder::new();
    let (x, indices, updates) = (b.input(x_aval.clone()), b.input(indices_aval.clone()), b.input(updates_aval.clone()));
    let shape = x_aval.shape.clone();
    let mut starts: Vec<Atom> = vec![b.lit(0.0, DType::I32); shape.len()];
    let mut window = shape.clone();
    let mut inside: Option<Atom> = None;
    for (j, &d) in axes.iter().enumerate() {
        let slice = Primitive::Slice { start_indices: vec![j], limit_indices: vec![j + 1], strides: None };
        let one = b.bind1(slice, std::slice::from_ref(&indices))?;
        let index = b.reshape(&one, &[])?;
        let low = b.compare(CompareOp::Ge, &index, &b.lit(0.0, DType::I32))?;
        let high = b.compare(CompareOp::Lt, &index, &b.lit(shape[d] as f64, DType::I32))?;
        let here = b.binary(BinaryOp::And, &low, &high)?;
        inside = Some(match inside {
            Some(before) => b.binary(BinaryOp::And, &before, &here)?,
            None => here,
        });
        starts[d] = index;
        window[d] = 1;
    }
    let Some(inside) = inside else {
        return Err(JaxError("internal error: a scatter indexes no axis".into()));
    };
    let updates = b.reshape(&updates, &window)?;
    let operands: Vec<Atom> = std::iter::once(x.clone()).chain(starts.iter().cloned()).collect();
    let old = b.bind1(Primitive::DynamicSlice { slice_sizes: window.clone() }, &operands)?;
    let new = match combine {
        Some(op) => b.binary(op, &old, &updates)?,
        None => updates,
    };
    let inside = b.broadcast_in_dim(&inside, &window, vec![])?;
    let kept = b.select(&inside, &old, &new)?;
    let operands: Vec<Atom> = [x, kept].into_iter().chain(starts).collect();
    let out = b.bind1(Primitive::DynamicUpdateSlice, &operands)?;
    Ok(b.finish(vec![out]))
}

/// The smallest operand (in words) a gather on the machine reads row by row ([`gather_rows_jaxpr`])
/// rather than by selections: a loop trip costs about 2,000 cycles (the scalar unit's test and
/// DMA latency), and selecting a row costs about a cycle per word of the operand (measured on
/// v5e: 8 rows of a 4096×512 array by rows in 14,896 cycles; 3 rows of a 100×512 one by
/// selections in 118,187, by rows in 7,166).
pub const GATHER_BY_ROWS_WORDS: usize = 4096;

/// A `gather` of the rows `indices` (`[..., 1]`) names in `x`, as selections: each index
/// (clamped) compared with every row position, the matching row kept and the others zeroed,
/// summed over the positions. Reads all of `x` per index; it differentiates and batches as
/// its parts do. A Jaxpr of `(x, indices)`.
pub(crate) fn gather_selection_jaxpr(x_aval: &crate::array::Aval, indices_aval: &crate::array::Aval) -> Result<Jaxpr> {
    let mut b = Builder::new();
    let (x, indices) = (b.input(x_aval.clone()), b.input(indices_aval.clone()));
    let n = x_aval.shape[0];
    let rest: usize = x_aval.shape[1..].iter().product();
    let batch = &indices_aval.shape[..indices_aval.rank() - 1];
    let m: usize = batch.iter().product();
    let low = b.binary(BinaryOp::Max, &indices, &b.lit(0.0, DType::I32))?;
    let clamped = b.binary(BinaryOp::Min, &low, &b.lit(n.saturating_sub(1) as f64, DType::I32))?;
    let column = b.reshape(&clamped, &[m, 1, 1])?;
    let column = b.broadcast_in_dim(&column, &[m, n, 1], vec![0, 1, 2])?;
    let positions = b.bind1(Primitive::Iota { dtype: DType::I32, shape: vec![m, n, 1], dimension: 1 }, &[])?;
    let picked = b.compare(CompareOp::Eq, &column, &positions)?;
    let picked = b.broadcast_in_dim(&picked, &[m, n, rest], vec![0, 1, 2])?;
    let rows = b.reshape(&x, &[1, n, rest])?;
    let rows = b.broadcast_in_dim(&rows, &[m, n, rest], vec![0, 1, 2])?;
    let zeros = b.full(&[m, n, rest], 0.0, x_aval.dtype)?;
    let kept = b.select(&picked, &zeros, &rows)?;
    let taken = b.reduce_sum(&kept, vec![1])?;
    let shape: Vec<usize> = batch.iter().chain(&x_aval.shape[1..]).copied().collect();
    let out = b.reshape(&taken, &shape)?;
    Ok(b.finish(vec![out]))
}

/// A `gather` as the machine runs it on a large operand: a `scan` over the indices, each
/// trip a `dynamic_slice` of the row an index names (clamped, as the gather clamps), so the
/// DMAs move just those rows. A Jaxpr of `(x, indices)`.
pub(crate) fn gather_rows_jaxpr(x_aval: &crate::array::Aval, indices_aval: &crate::array::Aval) -> Result<Jaxpr> {
    let row_shape = &x_aval.shape[1..];
    let mut body = Builder::new();
    let (x, index) = (body.input(x_aval.clone()), body.input(crate::array::Aval::new(vec![], DType::I32)));
    let mut operands = vec![x, index];
    operands.extend(std::iter::repeat_n(body.lit(0.0, DType::I32), row_shape.len()));
    let sizes: Vec<usize> = std::iter::once(1).chain(row_shape.iter().copied()).collect();
    // The window itself is the scan's row (a reshape would be a copy of it on the machine).
    let row = body.bind1(Primitive::DynamicSlice { slice_sizes: sizes }, &operands)?;
    let body = body.finish(vec![row]);
    let batch = &indices_aval.shape[..indices_aval.rank() - 1];
    let m: usize = batch.iter().product();
    let mut b = Builder::new();
    let (x, indices) = (b.input(x_aval.clone()), b.input(indices_aval.clone()));
    let flat = b.reshape(&indices, &[m])?;
    let scan = ScanLoop { body, consts: 1, carries: 0, length: m, reverse: false, unroll: 1 };
    let rows = b.bind1(Primitive::Scan { function: Rc::new(scan) }, &[x, flat])?;
    let shape: Vec<usize> = batch.iter().chain(&x_aval.shape[1..]).copied().collect();
    let out = b.reshape(&rows, &shape)?;
    Ok(b.finish(vec![out]))
}

/// `jaxpr` with each `gather` replaced by its selections ([`gather_selection_jaxpr`]) and each
/// `scatter` by its windows ([`scatter_jaxpr`]), for the transformations, whose rules are
/// those parts' (sub-Jaxprs are expanded when they are transformed in turn).
pub(crate) fn without_gathers_and_scatters(jaxpr: &Jaxpr) -> Result<std::borrow::Cow<'_, Jaxpr>> {
    if !jaxpr.eqns.iter().any(|e| matches!(e.prim, Primitive::Scatter { .. } | Primitive::Gather)) {
        return Ok(std::borrow::Cow::Borrowed(jaxpr));
    }
    let expanded = rebuild(jaxpr, |b, eqn, ins| {
        let avals: Vec<crate::array::Aval> = ins.iter().map(|a| b.aval(a)).collect();
        match &eqn.prim {
            Primitive::Scatter { combine, axes } => b.inline(&scatter_jaxpr(*combine, axes, &avals)?, &ins),
            Primitive::Gather => b.inline(&gather_selection_jaxpr(&avals[0], &avals[1])?, &ins),
            prim => b.bind(prim.clone(), &ins),
        }
    })?;
    Ok(std::borrow::Cow::Owned(expanded))
}

/// Whether `eqn` is a `select_n` whose selector is an int32 index.
fn int_selector(jaxpr: &Jaxpr, eqn: &crate::jaxpr::Eqn) -> bool {
    jaxpr.atom_aval(&eqn.inputs[0]).dtype == DType::I32
}

/// Where a window's start indices begin among its operands: after the operand of a
/// `dynamic_slice`, after the operand and the update of a `dynamic_update_slice`; `None` for
/// any other primitive.
pub fn window_starts(prim: &Primitive) -> Option<usize> {
    match prim {
        Primitive::DynamicSlice { .. } => Some(1),
        Primitive::DynamicUpdateSlice => Some(2),
        _ => None,
    }
}

/// Whether any of a dynamic slice's start indices is a value rather than a literal.
pub fn computed(indices: &[Atom]) -> bool {
    indices.iter().any(|a| matches!(a, Atom::Var(_)))
}

/// Whether every computed one of these start indices is an int32 (the scalar unit reads a
/// word as the int32 ops do).
fn int32_indices(b: &Builder, indices: &[Atom]) -> bool {
    indices.iter().all(|a| matches!(a, Atom::Literal(_)) || b.aval(a).dtype == DType::I32)
}

/// `f` applied to `operands`, booleans among them as int32 (selections reduce with `max`,
/// which booleans do not have) and the result back to bool.
pub(super) fn as_int_if_bool(
    b: &mut Builder,
    operands: &[&Atom],
    f: impl FnOnce(&mut Builder, &[Atom]) -> Result<Atom>,
) -> Result<Atom> {
    if b.aval(operands[0]).dtype != DType::Bool {
        let operands: Vec<Atom> = operands.iter().map(|&a| a.clone()).collect();
        return f(b, &operands);
    }
    let ints = operands.iter().map(|a| b.convert(a, DType::I32)).collect::<Result<Vec<_>>>()?;
    let out = f(b, &ints)?;
    b.convert(&out, DType::Bool)
}

/// The start of a window of `size` along an axis of `n`, clamped so the window fits, as XLA
/// does: a literal when the index is one, an int32 scalar otherwise.
fn clamped_start(b: &mut Builder, index: &Atom, n: usize, size: usize) -> Result<Atom> {
    let last = (n - size) as f64;
    if let Atom::Literal(l) = index {
        return Ok(b.lit(l.value.clamp(0.0, last), DType::I32));
    }
    let index = b.convert(index, DType::I32)?;
    let (zero, last) = (b.lit(0.0, DType::I32), b.lit(last, DType::I32));
    let above = b.binary(BinaryOp::Max, &index, &zero)?;
    b.binary(BinaryOp::Min, &above, &last)
}

/// A start and the positions `[0, len)` of a line beside it, both shaped `[len]` for a scalar
/// start, or `lead ++ [len]` for a start per example of the batch axis `lead` (a vector);
/// and which of the two it was.
fn line_from(b: &mut Builder, start: &Atom, lead: &[usize], len: usize) -> Result<(Atom, Atom, bool)> {
    let per_example = !b.shape(start).is_empty();
    let rows = if per_example { lead } else { &[] };
    let line = [rows, &[len]].concat();
    let start = b.broadcast_in_dim(start, &line, (0..rows.len()).collect())?;
    let positions = b.bind1(Primitive::Iota { dtype: DType::I32, shape: line, dimension: rows.len() }, &[])?;
    Ok((start, positions, per_example))
}

/// `x` at the int32 positions `idx` (all within range) along `axis`: `x`'s shape with that
/// axis as long as `idx`'s last. `idx` is rank 1, the same positions for all of `x`, or rank 2,
/// a row of positions for each example of `x`'s leading batch axis (`vmap` of a dynamic slice
/// at a batched start; `axis` is then not 0). Each position compares with every index; the one
/// match is kept by a `max` over the axis whose other terms are −∞ (a sum would turn −0 into +0).
fn take(b: &mut Builder, x: &Atom, idx: &Atom, axis: usize) -> Result<Atom> {
    let aval = b.aval(x);
    let idx_shape = b.shape(idx);
    let (lead, m) = idx_shape.split_at(idx_shape.len() - 1);
    let (lead, m, l) = (lead.to_vec(), m[0], lead.len());
    let n = aval.shape[axis];
    let mut rest: Vec<usize> = aval.shape[l..].to_vec();
    rest.remove(axis - l);
    let r = rest.iter().product();
    let with = |dims: &[usize]| [lead.as_slice(), dims].concat();
    let moved = b.move_axis(x, axis, l)?;
    let rows = b.reshape(&moved, &with(&[1, n, r]))?;
    let rows = b.broadcast_in_dim(&rows, &with(&[m, n, r]), (0..l + 3).collect())?;
    let wanted = b.broadcast_in_dim(idx, &with(&[m, n, 1]), (0..=l).collect())?;
    let here = b.bind1(Primitive::Iota { dtype: DType::I32, shape: with(&[m, n, 1]), dimension: l + 1 }, &[])?;
    let picked = b.compare(CompareOp::Eq, &wanted, &here)?;
    let picked = b.broadcast_in_dim(&picked, &with(&[m, n, r]), (0..l + 3).collect())?;
    // For int32 the least value the machine's int32 words hold exactly (every int32 is within
    // ±2^24), so that an eager `full` of it is one the runtime accepts.
    let lowest = if aval.dtype == DType::I32 { -16_777_216.0 } else { f64::NEG_INFINITY };
    let others = b.full(&with(&[m, n, r]), lowest, aval.dtype)?;
    let selected = b.select(&picked, &others, &rows)?;
    let kept = b.bind1(Primitive::ReduceMax { axes: vec![l + 1] }, &[selected])?;
    let out = b.reshape(&kept, &[with(&[m]), rest].concat())?;
    b.move_axis(&out, l, axis)
}

/// `dynamic_slice`: axis by axis, a static slice where the start is a literal, and where it is
/// computed, the window's positions `start + [0, size)` taken. With `batch`, `x`'s leading axis
/// is a `vmap` batch axis that is not sliced, `indices` name the axes after it, and each start
/// may be a vector with one start per example.
pub(super) fn dynamic_slice(b: &mut Builder, x: &Atom, indices: &[Atom], sizes: &[usize], batch: bool) -> Result<Atom> {
    let shape = b.shape(x);
    let lead = shape[..batch as usize].to_vec();
    let mut out = x.clone();
    for (k, index) in indices.iter().enumerate() {
        let axis = k + lead.len();
        let (n, size) = (shape[axis], sizes[k]);
        if size == n {
            continue;
        }
        out = match clamped_start(b, index, n, size)? {
            Atom::Literal(l) => {
                let now = b.shape(&out);
                let mut start_indices = vec![0; now.len()];
                start_indices[axis] = l.value as usize;
                let mut limit_indices = now.clone();
                limit_indices[axis] = l.value as usize + size;
                b.bind1(Primitive::Slice { start_indices, limit_indices, strides: None }, &[out])?
            }
            start => {
                // The window's positions `start + [0, size)`, for all of `x` or per example.
                let (start, offsets, _) = line_from(b, &start, &lead, size)?;
                let idx = b.add(&start, &offsets)?;
                take(b, &out, &idx, axis)?
            }
        };
    }
    Ok(out)
}

/// `dynamic_update_slice`: the update spread over `x`'s shape, each position along an axis
/// taking the update's row `position − start` (clamped; rows outside the window are masked),
/// then selected where every axis's position is inside the window. `batch` as for
/// [`dynamic_slice`] (`x` and `update` both have the batch axis then).
pub(super) fn dynamic_update_slice(
    b: &mut Builder,
    x: &Atom,
    update: &Atom,
    indices: &[Atom],
    batch: bool,
) -> Result<Atom> {
    let (shape, sizes) = (b.shape(x), b.shape(update));
    let lead = shape[..batch as usize].to_vec();
    let mut spread = update.clone();
    let mut inside: Option<Atom> = None;
    for (k, index) in indices.iter().enumerate() {
        let axis = k + lead.len();
        let (n, size) = (shape[axis], sizes[axis]);
        if size == n {
            continue;
        }
        let start = clamped_start(b, index, n, size)?;
        let (start, here, per_example) = line_from(b, &start, &lead, n)?;
        let offset = b.sub(&here, &start)?;
        let (zero, last) = (b.lit(0.0, DType::I32), b.lit((size - 1) as f64, DType::I32));
        let offset = b.binary(BinaryOp::Max, &offset, &zero)?;
        let offset = b.binary(BinaryOp::Min, &offset, &last)?;
        spread = take(b, &spread, &offset, axis)?;
        let size = b.lit(size as f64, DType::I32);
        let end = b.add(&start, &size)?;
        let after_start = b.compare(CompareOp::Ge, &here, &start)?;
        let before_end = b.compare(CompareOp::Lt, &here, &end)?;
        let covered = b.binary(BinaryOp::And, &after_start, &before_end)?;
        let dims = if per_example { vec![0, axis] } else { vec![axis] };
        let covered = b.broadcast_in_dim(&covered, &shape, dims)?;
        inside = Some(match inside {
            None => covered,
            Some(so_far) => b.binary(BinaryOp::And, &so_far, &covered)?,
        });
    }
    match inside {
        None => Ok(spread),
        Some(inside) => b.select(&inside, x, &spread),
    }
}

/// `reduce_precision` in the machine's operations (XLA's expansion of it): the fraction
/// rounded on the value's bits as uint32 (to nearest, ties to even), then magnitudes past the
/// reduced exponent range made infinite or zero with their sign, a NaN kept. Nothing at all
/// where the type is no wider than asked.
fn reduce_precision(b: &mut Builder, x: &Atom, exponent_bits: u32, mantissa_bits: u32) -> Result<Atom> {
    let dtype = b.aval(x).dtype;
    let (exp_width, man_width) = dtype.float_bits().unwrap_or((8, 23));
    if exponent_bits >= exp_width && mantissa_bits >= man_width {
        return Ok(x.clone());
    }
    let x = if dtype == DType::F32 { x.clone() } else { b.convert(x, DType::F32)? };
    let mut y = x.clone();
    if mantissa_bits < 23 {
        let shift = 23 - mantissa_bits;
        let last = 1u32 << shift;
        // In the vector unit's uint32 operations (no `and`): the last kept bit is the
        // shifted bits' parity, and the dropped bits are cleared by shifting out and back.
        let shift_by = b.lit(f64::from(shift), DType::U32);
        let bits = b.bind1(Primitive::BitcastConvertType { new_dtype: DType::U32 }, std::slice::from_ref(&x))?;
        let kept = b.binary(BinaryOp::ShiftRightLogical, &bits, &shift_by)?;
        let odd = b.binary(BinaryOp::Rem, &kept, &b.lit(2.0, DType::U32))?;
        let bias = b.add(&odd, &b.lit(f64::from((last >> 1) - 1), DType::U32))?;
        let rounded = b.add(&bits, &bias)?;
        let rounded = b.binary(BinaryOp::ShiftRightLogical, &rounded, &shift_by)?;
        let rounded = b.binary(BinaryOp::ShiftLeft, &rounded, &shift_by)?;
        y = b.bind1(Primitive::BitcastConvertType { new_dtype: DType::F32 }, &[rounded])?;
    }
    if exponent_bits < 8 {
        let reduced_bias = (1i32 << (exponent_bits - 1)) - 1;
        let magnitude = b.unary(UnaryOp::Abs, &y)?;
        let overflows = b.compare(CompareOp::Ge, &magnitude, &b.lit(2f64.powi(reduced_bias + 1), DType::F32))?;
        let infinite = b.mul(&y, &b.lit(f64::INFINITY, DType::F32))?;
        y = b.select(&overflows, &y, &infinite)?;
        let underflows = b.compare(CompareOp::Lt, &magnitude, &b.lit(2f64.powi(1 - reduced_bias), DType::F32))?;
        let zero = b.mul(&y, &b.lit(0.0, DType::F32))?;
        y = b.select(&underflows, &y, &zero)?;
    }
    let nan = b.compare(CompareOp::Ne, &x, &x)?;
    y = b.select(&nan, &y, &x)?;
    if dtype == DType::F32 {
        Ok(y)
    } else {
        b.convert(&y, dtype)
    }
}
