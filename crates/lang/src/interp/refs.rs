//! JAX's mutable array references (`jax.new_ref`, JAX's `Ref`): a box holding an array, which
//! `r[idx]` reads and `r[idx] = v` writes (`.at[idx].set(v)`, the box then holding the result).
//!
//! Inside a trace the box may hold a traced value. A jitted function that reads or writes refs
//! it did not create is *discharged*, as JAX discharges state effects before it compiles: a
//! ref it reads is an input of its Jaxpr (what the ref holds at each call, not what it held
//! when traced), and a ref it writes is an extra output, stored into the ref after each call.
//! So one trace serves every call, and the refs a function closes over or is passed change as
//! in JAX. The Jaxpr `make_jaxpr` prints is the discharged one (JAX prints `Ref{...}` inputs
//! and `<-` effects). Only `jit` discharges: writing, from inside `grad`, `vmap` or another
//! transformation, a ref made outside it is refused.

use super::exceptions::{attr_err, type_err, RtError};
use super::objects::Builtin;
use super::tracer_errors::TracedFor;
use super::value::{Native, Value};
use super::{unsupported, Interp, R};
use jaxlite::Tensor;
use std::cell::RefCell;
use std::rc::Rc;

/// What a traced function did to refs, while it ran.
pub struct RefLog {
    /// What the trace is for, whether it discharges effects (`jit` does), and its depth.
    purpose: TracedFor,
    discharges: bool,
    level: usize,
    /// Refs made inside the trace (their effects stay inside it).
    created: Vec<*const Native>,
    /// Refs made outside that it read while they held an array: each ref and the index of the
    /// trace's constant that stands for what it holds.
    reads: Vec<(Rc<Native>, usize)>,
    /// Refs made outside that it wrote, each with what it held before.
    writes: Vec<(Rc<Native>, Tensor)>,
}

/// A ref a jitted function reads or writes, as each call finds it: one it closed over, or the
/// one passed as its argument `i`.
#[derive(Clone)]
pub enum RefSource {
    Closed(Rc<Native>),
    Argument(usize),
}

/// A jitted function's effects on refs, for each call to apply.
#[derive(Clone, Default)]
pub struct RefEffects {
    /// Constants of the Jaxpr that are what a ref holds: their index and the ref.
    pub reads: Vec<(usize, RefSource)>,
    /// The refs it writes, in order: the Jaxpr's outputs after the function's result.
    pub writes: Vec<RefSource>,
}

impl RefEffects {
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty()
    }
}

/// The box of a ref value.
pub(super) fn ref_cell(v: &Value) -> Option<(&Rc<Native>, &RefCell<Tensor>)> {
    match v {
        Value::Native(n) => match &**n {
            Native::Ref(cell) => Some((n, cell)),
            _ => None,
        },
        _ => None,
    }
}

impl Interp<'_, '_> {
    /// `jax.new_ref(init_val)`: a ref holding `init_val` as an array.
    pub(super) fn new_ref(&mut self, init: &Value) -> R<Value> {
        let value = self.to_tensor(init)?;
        let native = Rc::new(Native::Ref(RefCell::new(value)));
        if let Some(log) = self.ref_logs.last_mut() {
            log.created.push(Rc::as_ptr(&native));
        }
        Ok(Value::Native(native))
    }

    /// What the ref holds, as the innermost trace sees it: inside a discharging trace, a ref
    /// made outside it that holds an array is read through one of the trace's constants.
    fn ref_value(&mut self, native: &Rc<Native>, cell: &RefCell<Tensor>) -> R<Tensor> {
        let held = cell.borrow().clone();
        let Tensor::Concrete(array) = &held else { return Ok(held) };
        let Some(at) = self.ref_logs.iter().rposition(|l| l.discharges) else { return Ok(held) };
        // Made inside that trace, or inside one it encloses: the trace's own.
        let own = self.ref_logs[at..].iter().any(|l| l.created.contains(&Rc::as_ptr(native)));
        if own || !self.ctx.is_tracing() {
            return Ok(held);
        }
        let (tracer, index) = self.ctx.const_at(self.ref_logs[at].level, array)?;
        let log = &mut self.ref_logs[at];
        if !log.reads.iter().any(|(r, _)| Rc::ptr_eq(r, native)) {
            log.reads.push((native.clone(), index));
        }
        Ok(tracer)
    }

    /// Puts `value` in the ref, noting the write for the innermost trace.
    pub(super) fn ref_store(&mut self, native: &Rc<Native>, cell: &RefCell<Tensor>, value: Tensor) -> R<()> {
        if let Some(log) = self.ref_logs.last_mut() {
            if !log.created.contains(&Rc::as_ptr(native)) {
                if !log.discharges {
                    let ty = ref_type(cell);
                    // JAX's errors where the value written is batched or differentiated (the
                    // playground refuses any such write: each is a value of the trace).
                    return match log.purpose {
                        TracedFor::Vmap => Err(RtError::of(
                            Builtin::Exception,
                            format!(
                                "performing a set/swap operation with vmapped value on an unbatched array reference of \
                                 type {ty}. Move the array reference to be an argument to the vmapped function?"
                            ),
                        )),
                        p if p.differentiates() => Err(RtError::of(
                            Builtin::Exception,
                            format!(
                                "performing a set/swap operation with a differentiated value on a non-differentiated \
                                 array reference of type {ty}. Move the array reference to be an argument of the \
                                 differentiated function?"
                            ),
                        )),
                        _ => unsupported(
                            "writing a jax.new_ref made outside a traced function (make_jaxpr, scan, ...) from inside \
                             it is not supported by the playground yet; inside jax.jit and vmap (passed as an argument) \
                             it is",
                        ),
                    };
                }
                if !log.writes.iter().any(|(r, _)| Rc::ptr_eq(r, native)) {
                    log.writes.push((native.clone(), cell.borrow().clone()));
                }
            }
        }
        *cell.borrow_mut() = value;
        Ok(())
    }

    /// `r[index]`.
    pub(super) async fn ref_get(&mut self, r: &Value, index: &Value) -> R<Value> {
        let (native, cell) = ref_cell(r).expect("a ref");
        let value = Value::Array(self.ref_value(native, cell)?);
        self.get_item(&value, index).await
    }

    /// `r[index] = value`.
    pub(super) async fn ref_set(&mut self, r: &Value, index: &Value, value: Value) -> R<()> {
        let (native, cell) = ref_cell(r).expect("a ref");
        let held = self.ref_value(native, cell)?;
        let dtype = held.aval().dtype;
        let updated = self.at_update(&held, index, "set", vec![value]).await?;
        let updated = self.to_tensor(&updated)?;
        if updated.aval().dtype != dtype {
            return type_err(format!(
                "Invalid dtype for `swap`. Ref dtype: {}. Value dtype: {}.",
                dtype.name(),
                updated.aval().dtype.name()
            ));
        }
        self.ref_store(native, cell, updated)
    }

    /// An attribute of a ref: its type's, and its buffer's address.
    pub(super) fn ref_attr(&mut self, r: &Value, name: &str) -> R<Value> {
        let (_, cell) = ref_cell(r).expect("a ref");
        let aval = cell.borrow().aval().clone();
        Ok(match name {
            "shape" => Value::tuple(aval.shape.iter().map(|&d| Value::Int(d as i64)).collect()),
            "ndim" => Value::Int(aval.shape.len() as i64),
            "size" => Value::Int(aval.shape.iter().product::<usize>() as i64),
            "dtype" => Value::DType(aval.dtype),
            "unsafe_buffer_pointer" => Value::native(Native::Method(r.clone(), "unsafe_buffer_pointer")),
            _ => return attr_err(format!("'Ref' object has no attribute '{name}'")),
        })
    }

    /// A method of a ref, called.
    pub(super) fn call_ref_method(&mut self, r: &Value, name: &str, args: &[Value]) -> R<Value> {
        if !args.is_empty() {
            return type_err(format!("{name}() takes no arguments ({} given)", args.len()));
        }
        // `unsafe_buffer_pointer`, the one method: an address identifying the buffer (the same
        // for the ref's whole life, where JAX's changes only when the buffer is replaced).
        debug_assert_eq!(name, "unsafe_buffer_pointer");
        Ok(Value::Int(super::classes::identity_hash(r) << 4))
    }

    /// `jax.freeze(r)`: the array the ref holds.
    pub(super) fn freeze(&mut self, r: &Value) -> R<Value> {
        let Some((native, cell)) = ref_cell(r) else {
            return type_err(format!("freeze expects a Ref, got {}", r.type_name()));
        };
        Ok(Value::Array(self.ref_value(native, cell)?))
    }

    /// Begins noting what a traced function called with `args` does to refs
    /// (`call_in_trace`). A ref argument holding one of this trace's tracers was made for it
    /// (`transforms::Arg::Ref`), so it is the trace's own.
    pub(super) fn begin_ref_log(&mut self, purpose: &TracedFor, args: &[Value]) {
        let discharges = matches!(purpose, TracedFor::Named("jit"));
        let level = self.ctx.trace_depth().saturating_sub(1);
        let created = args
            .iter()
            .filter_map(ref_cell)
            .filter(|(_, cell)| matches!(&*cell.borrow(), Tensor::Traced(t) if t.level == level))
            .map(|(n, _)| Rc::as_ptr(n))
            .collect();
        self.ref_logs.push(RefLog { purpose: *purpose, discharges, level, created, reads: vec![], writes: vec![] });
    }

    /// Ends it: on success the log is kept for the trace's end (`discharge_refs`); on an error
    /// every ref written is given back what it held.
    pub(super) fn end_ref_log(&mut self, ok: bool) {
        let Some(log) = self.ref_logs.pop() else { return };
        if ok && log.discharges {
            self.finished_ref_log = Some(log);
        } else {
            restore(&log);
        }
    }

    /// At the end of a jit trace whose function returned: the refs it wrote are appended to
    /// `outs` and given back what they held; its effects, with each ref as a call finds it
    /// (`args`: the call's arguments, where a ref passed in is).
    pub(super) fn discharge_refs(&mut self, outs: &mut Vec<Tensor>, args: &[Value]) -> RefEffects {
        let Some(log) = self.finished_ref_log.take() else { return RefEffects::default() };
        let source = |r: &Rc<Native>| match args.iter().position(|a| ref_cell(a).is_some_and(|(n, _)| Rc::ptr_eq(n, r)))
        {
            Some(i) => RefSource::Argument(i),
            None => RefSource::Closed(r.clone()),
        };
        for (r, _) in &log.writes {
            let Native::Ref(cell) = &**r else { unreachable!("logged refs are refs") };
            outs.push(cell.borrow().clone());
        }
        restore(&log);
        RefEffects {
            reads: log.reads.iter().map(|(r, i)| (*i, source(r))).collect(),
            writes: log.writes.iter().map(|(r, _)| source(r)).collect(),
        }
    }

    /// The ref `source` stands for in a call with these arguments.
    fn resolve_ref(source: &RefSource, args: &[Value]) -> R<Rc<Native>> {
        match source {
            RefSource::Closed(r) => Ok(r.clone()),
            RefSource::Argument(i) => match args.get(*i).and_then(ref_cell) {
                Some((n, _)) => Ok(n.clone()),
                None => type_err("a jitted function traced with a Ref argument was called without one"),
            },
        }
    }

    /// For a call of a jitted function with these effects: each constant that stands for a
    /// ref (its index among the inputs), and what the ref holds now, to pass in its place.
    pub(super) fn ref_inputs(&mut self, effects: &RefEffects, args: &[Value]) -> R<Vec<(usize, Tensor)>> {
        let mut inputs = Vec::with_capacity(effects.reads.len());
        for (index, source) in &effects.reads {
            let r = Self::resolve_ref(source, args)?;
            let Native::Ref(cell) = &*r else { unreachable!("resolved refs are refs") };
            inputs.push((*index, self.ref_value(&r, cell)?));
        }
        Ok(inputs)
    }

    /// After a call: the outputs past the result's leaves are stored into the refs written.
    pub(super) fn store_ref_outputs(&mut self, effects: &RefEffects, args: &[Value], outs: &mut Vec<Tensor>) -> R<()> {
        let written = outs.split_off(outs.len() - effects.writes.len());
        for (source, value) in effects.writes.iter().zip(written) {
            let r = Self::resolve_ref(source, args)?;
            let Native::Ref(cell) = &*r else { unreachable!("resolved refs are refs") };
            self.ref_store(&r, cell, value)?;
        }
        Ok(())
    }
}

/// Gives each ref the log wrote what it held before.
fn restore(log: &RefLog) {
    for (r, before) in log.writes.iter().rev() {
        if let Native::Ref(cell) = &**r {
            *cell.borrow_mut() = before.clone();
        }
    }
}

/// A ref's type as JAX writes it: `Ref{float32[3]}`.
fn ref_type(cell: &RefCell<Tensor>) -> String {
    let aval = cell.borrow().aval().clone();
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    format!("Ref{{{}[{}]}}", aval.dtype.name(), dims.join(","))
}

/// `Ref(...)` as JAX prints one: the array's repr under the ref's name.
pub(super) fn ref_repr(cell: &RefCell<Tensor>) -> String {
    match &*cell.borrow() {
        Tensor::Concrete(a) => {
            let text = crate::jnp_extra::array_repr(a);
            // JAX renames the array's repr, continuation lines indented as they were.
            match text.strip_prefix("Array(") {
                Some(rest) => format!("Ref({rest}"),
                None => text,
            }
        }
        Tensor::Traced(t) => format!("Ref{{{}}}", t.aval.short()),
    }
}
