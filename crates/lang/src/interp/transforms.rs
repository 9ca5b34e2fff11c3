//! `jax.grad`, `value_and_grad`, `jvp`, `vjp`, `vmap`, `jacfwd`, `jacrev` and `hessian`.
//!
//! Each traces the Python function to a Jaxpr (its pytree arguments flattened to leaves),
//! transforms the Jaxpr with `jaxlite::transform`, and applies the result through the context:
//! staged into an enclosing trace, or op by op outside one. The differentiating ones trace
//! with the arguments' values (`TraceOf::Values`), so outside `jit` Python control flow can
//! read a value being differentiated, as on JAX's JVP tracers (`Interp::concrete`); `vmap`
//! traces abstractly.

use super::jax::Tree;
use super::tracer_errors::TracedFor;
use super::value::{aval_text, repr, Native, Value};
use super::{err, Interp, RtError, R};
use jaxlite::numpy as jnp;
use jaxlite::transform;
use jaxlite::{Array, DType, Jaxpr, LocalFuture, Tensor};
use std::rc::Rc;

/// Which transformation a `Native::Transformed` applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Grad { has_aux: bool, with_value: bool },
    Jacfwd { has_aux: bool },
    Jacrev { has_aux: bool },
}

/// `jax.grad(f, argnums=...)` and friends, waiting for arguments.
pub struct Transformed {
    pub kind: Kind,
    pub func: Value,
    /// The differentiated positional arguments; `tuple` when the user passed a tuple (the
    /// result is then a tuple too).
    pub argnums: Vec<usize>,
    pub tuple: bool,
}

/// `jax.vmap(f, in_axes, out_axes)`.
pub struct Vmapped {
    pub func: Value,
    pub in_axes: Value,
    pub out_axes: Value,
    /// `axis_name=`: collectives over it inside the function act across the batch.
    pub axis_name: Option<String>,
}

/// The function `jax.vjp` returns: the linearized map with its residuals, transposed when called.
pub struct VjpFn {
    /// The linear map of tangents that `jax.vjp` linearized (its residuals first), transposed
    /// at each call.
    pub linear: Rc<Jaxpr>,
    pub residuals: Vec<Tensor>,
    in_trees: Vec<Tree>,
    pub num_outs: usize,
}

/// The function `jax.linearize` returns: the linear map of tangents with its residuals.
pub struct LinearizedFn {
    linear: Rc<Jaxpr>,
    residuals: Vec<Tensor>,
    /// The primals' leaves (the tangents must match them) and which are differentiated.
    primals: Vec<Tensor>,
    in_key: String,
    out_tree: Tree,
}

/// An argument of a traced call: a pytree of tracers, or a value passed as it is.
pub(super) enum Arg<'a> {
    Traced(&'a Tree),
    Fixed(Value),
    /// A ref, traced as the array it holds (one leaf): the function gets a ref of its own
    /// holding the tracer, and what that holds at the end is an output after the result's
    /// leaves, one per such argument in order (before any the jit discharge adds), as `vmap`
    /// passes a ref through.
    Ref,
}

/// What a trace's arguments are: their types alone (`jit`, `vmap`, `make_jaxpr`, a custom
/// derivative's function), or values being differentiated outside `jit`, whose tracers Python
/// control flow may read (`if x < 3:` under `grad`, as JAX's JVP tracers carry their primals).
pub(super) enum TraceOf<'a> {
    Types(Vec<jaxlite::Aval>),
    Values(&'a [Tensor]),
    /// Some arguments with values, the others by type alone (a custom JVP rule's tangents).
    Partly(Vec<jaxlite::Aval>, Vec<Option<Tensor>>),
}

/// A traced function: its Jaxpr (closed-over values as leading inputs), those values, and the
/// structure of its result.
pub(super) struct Traced {
    pub jaxpr: Jaxpr,
    pub closed: Vec<Tensor>,
    pub out_tree: Tree,
    /// The result's leaves that were Python numbers (by leaf; empty where not recorded): where
    /// JAX hands an output back untouched (an unmapped `vmap` output, a `has_aux` value) it is
    /// still that number, not an array.
    pub python_numbers: Vec<Option<Value>>,
    /// A jit trace's effects on refs: the Jaxpr's outputs after the result's leaves are the
    /// refs it wrote (see `refs.rs`).
    pub refs: super::refs::RefEffects,
}

impl Traced {
    /// Output leaves as values, from `first` on: the Python numbers the function returned as
    /// they were, the others as arrays.
    fn untouched(&self, first: usize, leaves: impl IntoIterator<Item = Tensor>) -> Vec<Value> {
        leaves
            .into_iter()
            .enumerate()
            .map(|(i, t)| match self.python_numbers.get(first + i) {
                Some(Some(number)) => number.clone(),
                _ => Value::Array(t),
            })
            .collect()
    }
}

/// A function traced on its primals: their leaves and structures, the trace, which of its
/// inputs are differentiated, and those inputs in order (closed-over values first).
struct PrimalTrace {
    leaves: Vec<Tensor>,
    trees: Vec<Tree>,
    traced: Traced,
    diff: Vec<bool>,
    inputs: Vec<Tensor>,
}

/// `t`, typed weakly where `weak`: a derivative of a Python number is weak in JAX (a gradient
/// or cotangent has its input's type, a tangent its output's). Under `jit` too: the same
/// variable typed weak, so that what is computed from it promotes as in JAX.
fn weak_if(ctx: &mut jaxlite::Context, t: Tensor, weak: bool) -> Tensor {
    match &t {
        Tensor::Concrete(a) if weak && !a.aval.weak_type => {
            let mut a = (**a).clone();
            a.aval.weak_type = true;
            Tensor::from(a)
        }
        Tensor::Traced(tr) if weak && !tr.aval.weak_type => ctx.weakly_typed(tr),
        _ => t,
    }
}

/// One for scalars and the identity for vectors: `eye(n)` reshaped to `(n, *shape)`.
fn basis(shape: &[usize], dtype: DType, what: &str) -> R<Tensor> {
    let n: usize = shape.iter().product();
    // n one-hot vectors of n elements: refuse before allocating what could be gigabytes.
    if n.checked_mul(n).is_none_or(|size| size > super::jax::MAX_ELEMENTS) {
        return err(format!(
            "{what}: the Jacobian for shape {} needs {n} one-hot vectors of {n} elements, more than the \
             playground's {} elements per array",
            jnp::shape_str(shape),
            super::jax::MAX_ELEMENTS
        ));
    }
    let mut values = vec![0.0f32; n * n];
    for i in 0..n {
        values[i * n + i] = 1.0;
    }
    let mut full = vec![n];
    full.extend(shape);
    Ok(Tensor::from(Array::from_f32(full, values).astype(dtype)))
}

/// A custom derivative's arguments all by position, as JAX's `resolve_kwargs` binds them to
/// the function's signature: keyword arguments at their parameters' places and the defaults of
/// those not passed filled in (so the rule sees every primal).
pub(super) fn resolve_keywords(f: &Value, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Vec<Value>> {
    let unresolved = || {
        err("keyword arguments could not be resolved to positions (a custom_jvp or custom_vjp function's keyword-only parameters cannot be passed: make them positional)")
    };
    let Value::Function(func) = f else {
        return if kwargs.is_empty() { Ok(args) } else { unresolved() };
    };
    let params = &func.def.params;
    if args.len() >= params.len() && kwargs.is_empty() {
        return Ok(args);
    }
    let mut slots: Vec<Option<Value>> = vec![None; params.len().max(args.len())];
    for (slot, a) in slots.iter_mut().zip(args) {
        *slot = Some(a);
    }
    for (k, v) in kwargs {
        match params.iter().position(|p| p.name == k) {
            Some(i) if slots[i].is_some() => return err(format!("multiple values for argument '{k}'")),
            Some(i) => slots[i] = Some(v),
            None => return unresolved(),
        }
    }
    let mut defaults = func.defaults.iter();
    let mut out = Vec::new();
    for (i, slot) in slots.into_iter().enumerate() {
        let default = params.get(i).filter(|p| p.default.is_some()).and_then(|_| defaults.next());
        match slot.or_else(|| default.cloned()) {
            Some(v) => out.push(v),
            // Only parameters past the positional arguments can be missing.
            None => return err(format!("missing a required argument: '{}'", params[i].name)),
        }
    }
    Ok(out)
}

/// The part of a function's result that is differentiated: all of it, or with `has_aux` the
/// first of the pair it must return; with its number of leaves (they come first).
fn main_output(out: &Tree, has_aux: bool) -> R<(&Tree, usize)> {
    let main = match (out, has_aux) {
        (Tree::Tuple(items) | Tree::List(items), true) if items.len() == 2 => &items[0],
        (_, true) => return err("has_aux=True requires the function to return a pair (output, auxiliary data)"),
        (tree, false) => tree,
    };
    Ok((main, main.num_leaves()))
}

/// The (co)tangents that pick out leaf `j` of `avals`, one Jacobian block at a time: a basis
/// for it (mapped over), zeros for the others; with the batched flags for a function taking
/// `leading` other inputs first.
fn picking(leading: usize, avals: &[jaxlite::Aval], j: usize, what: &str) -> R<(Vec<bool>, Vec<Tensor>)> {
    let mut batched = vec![false; leading];
    batched.extend((0..avals.len()).map(|k| k == j));
    let mut values = Vec::with_capacity(avals.len());
    for (k, a) in avals.iter().enumerate() {
        values.push(if k == j {
            basis(&a.shape, a.dtype, what)?
        } else {
            Tensor::from(jnp::full(&a.shape, 0.0, a.dtype))
        });
    }
    Ok((batched, values))
}

fn argnums_arg(v: Option<Value>) -> R<(Vec<usize>, bool)> {
    let one = |v: &Value| match v {
        Value::Int(i) if *i >= 0 => Ok(*i as usize),
        other => {
            super::value_err(format!("argnums must be a non-negative int or a tuple of them, got {}", repr(other)))
        }
    };
    match v {
        None => Ok((vec![0], false)),
        Some(Value::Tuple(t)) => Ok((t.iter().map(one).collect::<R<_>>()?, true)),
        Some(v) => Ok((vec![one(&v)?], false)),
    }
}

impl Interp<'_, '_> {
    /// `jax.grad`, `value_and_grad`, `jacfwd`, `jacrev`, `hessian`, `vmap`: the wrapped function.
    pub(super) fn make_transformed(
        &mut self,
        name: &str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        use super::builtins::{arity, no_more_kwargs, take_kwarg};
        if name == "vmap" {
            let in_axes = take_kwarg(&mut kwargs, "in_axes");
            let out_axes = take_kwarg(&mut kwargs, "out_axes");
            let axis_name = match take_kwarg(&mut kwargs, "axis_name") {
                None | Some(Value::None) => None,
                Some(Value::Str(s)) => Some(s.to_string()),
                Some(other) => return err(format!("vmap axis_name must be a string, got {}", repr(&other))),
            };
            no_more_kwargs(name, &kwargs)?;
            arity(name, &args, 1, 3)?;
            return Ok(Value::native(Native::Vmapped(Vmapped {
                func: args[0].clone(),
                in_axes: in_axes.or_else(|| args.get(1).cloned()).unwrap_or(Value::Int(0)),
                out_axes: out_axes.or_else(|| args.get(2).cloned()).unwrap_or(Value::Int(0)),
                axis_name,
            })));
        }
        let (argnums, tuple) = argnums_arg(take_kwarg(&mut kwargs, "argnums").or_else(|| args.get(1).cloned()))?;
        let has_aux = match take_kwarg(&mut kwargs, "has_aux") {
            Some(v) => self.truthy(&v)?,
            None => false,
        };
        no_more_kwargs(name, &kwargs)?;
        arity(name, &args, 1, 2)?;
        let func = args[0].clone();
        if !self.is_callable(&func) {
            return err(format!("Expected a callable value, got {}", repr(&func)));
        }
        let make = |kind, func| {
            Value::native(Native::Transformed(Transformed { kind, func, argnums: argnums.clone(), tuple }))
        };
        Ok(match name {
            "grad" | "value_and_grad" => make(Kind::Grad { has_aux, with_value: name == "value_and_grad" }, func),
            "jacfwd" => make(Kind::Jacfwd { has_aux }, func),
            "jacrev" => make(Kind::Jacrev { has_aux }, func),
            // hessian = jacfwd(jacrev(f)), as in JAX (the inner one carries the aux out).
            _ => make(Kind::Jacfwd { has_aux }, make(Kind::Jacrev { has_aux }, func)),
        })
    }

    /// Traces `f` to differentiate it at `leaves`, rebuilt into arguments by `trees`.
    fn trace_open<'a>(
        &'a mut self,
        f: &'a Value,
        leaves: &'a [Tensor],
        trees: &'a [Tree],
    ) -> LocalFuture<'a, R<Traced>> {
        self.trace_call_with(
            f,
            TracedFor::Differentiation,
            TraceOf::Values(leaves),
            trees.iter().map(Arg::Traced).collect(),
            &[],
        )
    }

    /// Traces `f` (for `purpose`) called with `args`: pytrees rebuilt from tracers of the
    /// types or values `of`, in order, and fixed values; the last `keywords.len()` arguments
    /// are passed by those names.
    pub(super) fn trace_call_with<'a>(
        &'a mut self,
        f: &'a Value,
        purpose: TracedFor,
        of: TraceOf<'a>,
        args: Vec<Arg<'a>>,
        keywords: &'a [String],
    ) -> LocalFuture<'a, R<Traced>> {
        Box::pin(async move {
            let tracers = match of {
                TraceOf::Types(avals) => self.ctx.begin_trace(&avals),
                TraceOf::Values(values) => self.ctx.begin_trace_of(values),
                TraceOf::Partly(avals, values) => self.ctx.begin_trace_knowing(&avals, &values),
            };
            let mut tracers = tracers.into_iter();
            let mut outs = Vec::new();
            let mut python_numbers = Vec::new();
            let mut refs = super::refs::RefEffects::default();
            let mut ref_args = Vec::new();
            // For a jit trace, the arguments passed as they are (a ref among them is found there
            // at each call); no other trace discharges refs.
            let fixed: Vec<Value> = match purpose {
                TracedFor::Named("jit") => {
                    args.iter().map(|a| if let Arg::Fixed(v) = a { v.clone() } else { Value::None }).collect()
                }
                _ => Vec::new(),
            };
            let flattened = async {
                let mut traced_args = Vec::with_capacity(args.len());
                let mut trees = Vec::with_capacity(args.len());
                for a in args {
                    trees.push(match &a {
                        Arg::Traced(t) => Some((*t).clone()),
                        Arg::Ref => Some(Tree::Leaf),
                        Arg::Fixed(_) => None,
                    });
                    traced_args.push(match a {
                        Arg::Traced(t) => self.unflatten_tree(t, &mut (&mut tracers).map(Value::of_tensor)).await?,
                        Arg::Ref => {
                            let held = tracers.next().ok_or_else(|| RtError::new("a ref argument has no tracer"))?;
                            let r = Value::native(super::value::Native::Ref(std::cell::RefCell::new(held)));
                            ref_args.push(r.clone());
                            r
                        }
                        Arg::Fixed(v) => v,
                    });
                }
                let kwargs = super::jax::split_keywords(&mut traced_args, keywords);
                let site = self.trace_site(f, purpose, trees, keywords);
                let result = self.call_in_trace(site, traced_args, kwargs).await;
                let out = result?;
                let mut values = Vec::new();
                self.tree_of(&out, None, &mut values).await?;
                python_numbers = values
                    .into_iter()
                    .map(|v| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_)).then_some(v))
                    .collect();
                let tree = self.flatten(&out, &mut outs).await?;
                for r in &ref_args {
                    let (_, cell) = super::refs::ref_cell(r).expect("made a ref above");
                    outs.push(cell.borrow().clone());
                }
                refs = self.discharge_refs(&mut outs, &fixed);
                Ok(tree)
            }
            .await;
            let out_tree = match flattened {
                Ok(tree) => tree,
                Err(e) => {
                    self.ctx.abort_trace();
                    return Err(e);
                }
            };
            match self.ctx.end_trace_open(&outs) {
                Ok((jaxpr, closed)) => Ok(Traced { jaxpr, closed, out_tree, python_numbers, refs }),
                Err(e) => {
                    self.ctx.abort_trace();
                    Err(e.into())
                }
            }
        })
    }

    pub(super) async fn flatten_args(&mut self, args: &[Value]) -> R<(Vec<Tensor>, Vec<Tree>, Vec<usize>)> {
        let mut leaves = Vec::new();
        let mut trees = Vec::new();
        let mut counts = Vec::new();
        for a in args {
            let before = leaves.len();
            trees.push(self.flatten(a, &mut leaves).await?);
            counts.push(leaves.len() - before);
        }
        Ok((leaves, trees, counts))
    }

    pub(super) fn call_transformed<'a>(
        &'a mut self,
        t: &'a Transformed,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            for &i in &t.argnums {
                if i >= args.len() {
                    return err(format!(
                        "differentiating with respect to argnums={i} requires at least {} positional arguments to be passed by the caller, but got only {} positional arguments",
                        i + 1,
                        args.len()
                    ));
                }
            }
            // An argument not differentiated reaches the function as it is, not traced, as in
            // JAX (which closes over it): a Python int stays an int a shape may use.
            let mut leaves = Vec::new();
            let mut trees: Vec<Option<Tree>> = Vec::new();
            let mut diff_leaf = Vec::new();
            for (i, a) in args.iter().enumerate() {
                if !t.argnums.contains(&i) {
                    trees.push(None);
                    continue;
                }
                let before = leaves.len();
                trees.push(Some(self.flatten(a, &mut leaves).await?));
                diff_leaf.extend(std::iter::repeat_n(true, leaves.len() - before));
            }
            for (leaf, _) in leaves.iter().zip(&diff_leaf).filter(|(_, &d)| d) {
                let aval = leaf.aval();
                if !aval.dtype.is_float() {
                    let name = match t.kind {
                        Kind::Grad { .. } => "grad",
                        Kind::Jacfwd { .. } => "jacfwd",
                        Kind::Jacrev { .. } => "jacrev",
                    };
                    return err(format!(
                        "{name} requires real- or complex-valued inputs (input dtype that is a sub-dtype of np.inexact), but got {}. If you want to use Boolean- or integer-valued inputs, use vjp or set allow_int to True.",
                        aval.dtype.name()
                    ));
                }
            }
            // Keyword arguments reach the function as they are, not differentiated (as in JAX,
            // which closes over them).
            let (keywords, fixed): (Vec<String>, Vec<Value>) = kwargs.into_iter().unzip();
            let mut call_args: Vec<Arg> = trees
                .iter()
                .zip(&args)
                .map(|(tree, a)| match tree {
                    Some(tree) => Arg::Traced(tree),
                    None => Arg::Fixed(a.clone()),
                })
                .collect();
            call_args.extend(fixed.into_iter().map(Arg::Fixed));
            let mut traced = self
                .trace_call_with(&t.func, TracedFor::Differentiation, TraceOf::Values(&leaves), call_args, &keywords)
                .await?;
            self.trace_pending_rules_of(&mut traced, &diff_leaf).await?;
            let mut inputs = traced.closed.clone();
            inputs.extend(leaves.iter().cloned());
            let mut diff_in = vec![false; traced.closed.len()];
            diff_in.extend(&diff_leaf);
            let n_out = traced.jaxpr.outvars.len();
            let result_trees: Vec<&Tree> = t.argnums.iter().filter_map(|&i| trees[i].as_ref()).collect();
            match t.kind {
                Kind::Grad { has_aux, with_value } => {
                    let (main_tree, _) = main_output(&traced.out_tree, has_aux)?;
                    if !matches!(main_tree, Tree::Leaf) {
                        return err(
                            "Gradient only defined for scalar-output functions. The function returned a container",
                        );
                    }
                    let out_aval = traced.jaxpr.atom_aval(&traced.jaxpr.outvars[0]).clone();
                    if out_aval.rank() != 0 {
                        return err(format!(
                            "Gradient only defined for scalar-output functions. Output had shape: {}.",
                            jnp::shape_str(&out_aval.shape)
                        ));
                    }
                    if !out_aval.dtype.is_float() {
                        return err(format!(
                            "grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {}. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly.",
                            out_aval.dtype.name()
                        ));
                    }
                    let mut diff_out = vec![false; n_out];
                    diff_out[0] = true;
                    let (vjp, mut bwd_in) = self.reverse_mode(&traced.jaxpr, &diff_in, &diff_out).await?;
                    let fwd = self.apply_jaxpr(&vjp.forward, &inputs).await?;
                    let (outs, res) = fwd.split_at(n_out);
                    bwd_in.extend_from_slice(res);
                    bwd_in.push(Tensor::from(Array::from_f32(vec![], vec![1.0]).astype(out_aval.dtype)));
                    let grads = self.apply_jaxpr(&vjp.backward, &bwd_in).await?;
                    // A gradient has its input's type, weak for a Python scalar (as in JAX).
                    let diff_leaves = leaves.iter().zip(&diff_leaf).filter(|(_, &d)| d);
                    let grads: Vec<Tensor> = grads
                        .into_iter()
                        .zip(diff_leaves)
                        .map(|(g, (leaf, _))| weak_if(self.ctx, g, leaf.aval().weak_type))
                        .collect();
                    let grads = self.structure(&result_trees, grads, t.tuple).await?;
                    let (value, aux) = match &traced.out_tree {
                        Tree::Tuple(items) | Tree::List(items) if has_aux => {
                            let aux = traced.untouched(1, outs[1..].iter().cloned());
                            (
                                self.unflatten_tensors(&items[0], outs.iter().cloned()).await?,
                                Some(self.unflatten_tree(&items[1], &mut aux.into_iter()).await?),
                            )
                        }
                        tree => (self.unflatten_tensors(tree, outs.iter().cloned()).await?, None),
                    };
                    Ok(match (with_value, aux) {
                        (false, None) => grads,
                        (false, Some(aux)) => Value::tuple(vec![grads, aux]),
                        (true, None) => Value::tuple(vec![value, grads]),
                        (true, Some(aux)) => Value::tuple(vec![Value::tuple(vec![value, aux]), grads]),
                    })
                }
                Kind::Jacfwd { has_aux } | Kind::Jacrev { has_aux } => {
                    let (main_tree, n_main) = main_output(&traced.out_tree, has_aux)?;
                    let diff: Vec<&Tensor> =
                        leaves.iter().zip(&diff_leaf).filter(|(_, &d)| d).map(|(l, _)| l).collect();
                    let in_avals: Vec<jaxlite::Aval> = diff.iter().map(|l| l.aval().clone()).collect();
                    let out_avals: Vec<jaxlite::Aval> =
                        traced.jaxpr.outvars[..n_main].iter().map(|a| traced.jaxpr.atom_aval(a).clone()).collect();
                    // jac[i][j]: output leaf i by differentiated input leaf j, shaped (*out, *in).
                    let jac = if matches!(t.kind, Kind::Jacfwd { .. }) {
                        self.jacobian_forward(&traced.jaxpr, &inputs, &diff_in, &in_avals, &out_avals).await?
                    } else {
                        self.jacobian_reverse(&traced.jaxpr, &inputs, &diff_in, &in_avals, &out_avals).await?
                    };
                    let mut per_output = Vec::with_capacity(jac.len());
                    for row in jac {
                        per_output.push(self.structure(&result_trees, row, t.tuple).await?);
                    }
                    let jac = self.unflatten_tree(main_tree, &mut per_output.into_iter()).await?;
                    if !has_aux {
                        return Ok(jac);
                    }
                    // The auxiliary value as the function computes it, not differentiated.
                    let outs = self.apply_jaxpr(&traced.jaxpr, &inputs).await?;
                    let aux_tree = match &traced.out_tree {
                        Tree::Tuple(items) | Tree::List(items) => &items[1],
                        other => other,
                    };
                    let aux = traced.untouched(n_main, outs[n_main..].iter().cloned());
                    let aux = self.unflatten_tree(aux_tree, &mut aux.into_iter()).await?;
                    Ok(Value::tuple(vec![jac, aux]))
                }
            }
        })
    }

    /// Forward-mode Jacobian: for each differentiated input leaf, the linearized function
    /// mapped over a basis of that leaf's tangents (the others zero); each output's tangents
    /// `(n, *out)` become `(*out, *in)`.
    async fn jacobian_forward(
        &mut self,
        jaxpr: &Jaxpr,
        inputs: &[Tensor],
        diff_in: &[bool],
        in_avals: &[jaxlite::Aval],
        out_avals: &[jaxlite::Aval],
    ) -> R<Vec<Vec<Tensor>>> {
        let n_out = jaxpr.outvars.len();
        let lin = transform::jvp(jaxpr, diff_in)?;
        let mut jac = vec![Vec::new(); out_avals.len()];
        for (j, x) in in_avals.iter().enumerate() {
            let (batched, tangents) = picking(inputs.len(), in_avals, j, "jacfwd")?;
            let batched_lin = transform::vmap(&lin, &batched, x.size())?;
            let mut all = inputs.to_vec();
            all.extend(tangents);
            let results = self.apply_jaxpr(&batched_lin, &all).await?;
            for ((row, tangent), out) in jac.iter_mut().zip(&results[n_out..]).zip(out_avals) {
                // (n, *out) → (*out, n) → (*out, *in)
                let rank = tangent.aval().rank();
                let mut perm: Vec<usize> = (1..rank).collect();
                perm.push(0);
                let moved = jnp::transpose(self.ctx, tangent, Some(&perm)).await?;
                let mut shape: Vec<i64> = moved.aval().shape[..rank - 1].iter().map(|&d| d as i64).collect();
                shape.extend(x.shape.iter().map(|&d| d as i64));
                let entry = jnp::reshape(self.ctx, &moved, &shape).await?;
                // A tangent has its output's type: weak for an output weak in JAX.
                row.push(weak_if(self.ctx, entry, out.weak_type));
            }
        }
        Ok(jac)
    }

    /// Reverse-mode Jacobian: the backward pass mapped over a basis of each output's
    /// cotangents (the other outputs' zero); each input's cotangents `(m, *in)` become
    /// `(*out, *in)`.
    async fn jacobian_reverse(
        &mut self,
        jaxpr: &Jaxpr,
        inputs: &[Tensor],
        diff_in: &[bool],
        in_avals: &[jaxlite::Aval],
        out_avals: &[jaxlite::Aval],
    ) -> R<Vec<Vec<Tensor>>> {
        let n_out = jaxpr.outvars.len();
        for out in out_avals {
            if !out.dtype.is_float() {
                return err(format!(
                    "jacrev requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got {}. For differentiation of functions with integer outputs, use jax.vjp directly.",
                    out.dtype.name()
                ));
            }
        }
        let mut diff_out = vec![false; n_out];
        diff_out[..out_avals.len()].fill(true);
        let (vjp, mut res) = self.reverse_mode(jaxpr, diff_in, &diff_out).await?;
        let fwd = self.apply_jaxpr(&vjp.forward, inputs).await?;
        res.extend_from_slice(&fwd[n_out..]);
        let mut jac = Vec::new();
        for (i, out) in out_avals.iter().enumerate() {
            let (batched, cotangents) = picking(res.len(), out_avals, i, "jacrev")?;
            let batched_bwd = transform::vmap(&vjp.backward, &batched, out.size())?;
            let mut all = res.to_vec();
            all.extend(cotangents);
            let cts = self.apply_jaxpr(&batched_bwd, &all).await?;
            let mut row = Vec::new();
            for (ct, x) in cts.iter().zip(in_avals) {
                let mut shape: Vec<i64> = out.shape.iter().map(|&d| d as i64).collect();
                shape.extend(x.shape.iter().map(|&d| d as i64));
                let entry = jnp::reshape(self.ctx, ct, &shape).await?;
                // A cotangent has its input's type, weak for a Python number (as `grad`'s).
                row.push(weak_if(self.ctx, entry, x.weak_type));
            }
            jac.push(row);
        }
        Ok(jac)
    }

    /// Cotangents or tangents, in leaf order, rebuilt into the differentiated arguments'
    /// structures (a tuple of them when `argnums` was a tuple).
    async fn structure(&mut self, trees: &[&Tree], leaves: Vec<Tensor>, tuple: bool) -> R<Value> {
        let mut it = leaves.into_iter().map(Value::of_tensor);
        let mut values = Vec::with_capacity(trees.len());
        for t in trees {
            values.push(self.unflatten_tree(t, &mut it).await?);
        }
        Ok(if tuple { Value::tuple(values) } else { values.into_iter().next().unwrap_or(Value::None) })
    }

    /// `jax.jvp(f, primals, tangents)`.
    pub(super) fn jvp_call<'a>(&'a mut self, args: Vec<Value>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let [f, primals, tangents] = &args[..] else {
                return err("jvp() takes a function, a tuple of primals and a tuple of tangents");
            };
            let as_list = |v: &Value| -> R<Vec<Value>> {
                match v {
                    Value::Tuple(t) => Ok(t.to_vec()),
                    Value::List(l) => Ok(l.borrow().clone()),
                    other => err(format!(
                        "primal and tangent arguments to jax.jvp must be tuples or lists; found {}",
                        other.type_name()
                    )),
                }
            };
            let (primals, tangents) = (as_list(primals)?, as_list(tangents)?);
            if primals.len() != tangents.len() {
                return err(format!(
                    "jvp called with different primal and tangent structures: {} primals, {} tangents",
                    primals.len(),
                    tangents.len()
                ));
            }
            let (leaves, trees, _) = self.flatten_args(&primals).await?;
            let (tleaves, _, _) = self.flatten_args(&tangents).await?;
            if tleaves.len() != leaves.len() {
                return err("jvp called with different primal and tangent structures");
            }
            for (p, t) in leaves.iter().zip(&tleaves) {
                if p.aval().shape != t.aval().shape {
                    return err(format!(
                        "jvp called with inconsistent primal and tangent shapes: {} and {}",
                        aval_text(p.aval()),
                        aval_text(t.aval())
                    ));
                }
            }
            let mut traced = self.trace_open(f, &leaves, &trees).await?;
            let floats: Vec<bool> = leaves.iter().map(|l| l.aval().dtype.is_float()).collect();
            self.trace_pending_rules_of(&mut traced, &floats).await?;
            let mut diff = vec![false; traced.closed.len()];
            diff.extend(floats);
            let lin = transform::jvp(&traced.jaxpr, &diff)?;
            let mut inputs = traced.closed.clone();
            inputs.extend(leaves.iter().cloned());
            for (t, p) in tleaves.iter().zip(&leaves) {
                if p.aval().dtype.is_float() {
                    inputs.push(jnp::astype(self.ctx, t, p.aval().dtype).await?);
                }
            }
            let results = self.apply_jaxpr(&lin, &inputs).await?;
            let n_out = traced.jaxpr.outvars.len();
            let outs = self.unflatten_tensors(&traced.out_tree, results[..n_out].iter().cloned()).await?;
            let tangents: Vec<Tensor> = results[n_out..]
                .iter()
                .zip(&results[..n_out])
                .map(|(t, primal)| weak_if(self.ctx, t.clone(), primal.aval().weak_type))
                .collect();
            let touts = self.unflatten_tensors(&traced.out_tree, tangents).await?;
            Ok(Value::tuple(vec![outs, touts]))
        })
    }

    /// `f` traced on `primals` for `vjp` and `linearize`, every float leaf differentiated.
    fn trace_primals<'a>(&'a mut self, f: &'a Value, primals: &'a [Value]) -> LocalFuture<'a, R<PrimalTrace>> {
        Box::pin(async move {
            let (leaves, trees, _) = self.flatten_args(primals).await?;
            let mut traced = self.trace_open(f, &leaves, &trees).await?;
            let floats: Vec<bool> = leaves.iter().map(|l| l.aval().dtype.is_float()).collect();
            self.trace_pending_rules_of(&mut traced, &floats).await?;
            let mut diff = vec![false; traced.closed.len()];
            diff.extend(floats);
            let mut inputs = traced.closed.clone();
            inputs.extend(leaves.iter().cloned());
            Ok(PrimalTrace { leaves, trees, traced, diff, inputs })
        })
    }

    /// `jax.ad_checkpoint.print_saved_residuals(f, *args)`'s lines: what reverse mode keeps
    /// from the forward pass for the backward one (the residuals of `f` linearized at `args`),
    /// each its type and where it comes from, as JAX's `saved_residuals` describes them: an
    /// argument by its name, an equation's output by its primitive and the script's place.
    pub(super) fn saved_residuals<'a>(&'a mut self, args: Vec<Value>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let [f, primals] = &args[..] else {
                return err("internal error: _playground.saved_residuals takes a function and its arguments");
            };
            let primals = match primals {
                Value::Tuple(items) => items.to_vec(),
                _ => return err("internal error: _playground.saved_residuals takes the arguments as a tuple"),
            };
            let PrimalTrace { trees, traced, diff, .. } = self.trace_primals(f, &primals).await?;
            let split = transform::linearize(&traced.jaxpr, &diff)?;
            let forward = &split.forward;
            let residuals = &forward.outvars[forward.outvars.len() - split.num_residuals..];
            let site = self.trace_site(f, TracedFor::Differentiation, trees.into_iter().map(Some).collect(), &[]);
            let names = super::tracer_errors::arg_names(&site);
            let closed = traced.closed.len();
            // A value rounded to its own precision (what a checkpoint saves) is described by
            // what computed it, as JAX looks through `reduce_precision`.
            let rounded: std::collections::HashMap<jaxlite::Var, jaxlite::Var> = forward
                .eqns
                .iter()
                .filter(|e| matches!(e.prim, jaxlite::Primitive::ReducePrecision { .. }))
                .filter_map(|e| match &e.inputs[0] {
                    jaxlite::Atom::Var(v) => Some((e.outputs[0], *v)),
                    _ => None,
                })
                .collect();
            let residual_vars: std::collections::HashSet<jaxlite::Var> = residuals
                .iter()
                .filter_map(|a| match a {
                    jaxlite::Atom::Var(v) => Some(*rounded.get(v).unwrap_or(v)),
                    _ => None,
                })
                .collect();
            let is_residual = |v: &jaxlite::Var| residual_vars.contains(v);
            let line =
                |aval: &jaxlite::Aval, from: String| Value::tuple(vec![Value::str(&aval.short()), Value::str(&from)]);
            let mut lines = Vec::new();
            for r in residuals {
                if let jaxlite::Atom::Literal(l) = r {
                    lines.push(line(&l.aval, "from a literal".into()));
                }
            }
            let inputs: Vec<jaxlite::Var> = forward.all_inputs().collect();
            for &v in inputs[..closed].iter().filter(|v| is_residual(v)) {
                lines.push(line(forward.aval(v), "from a constant".into()));
            }
            for (i, &v) in inputs[closed..].iter().enumerate().filter(|(_, v)| is_residual(v)) {
                let from = match names.get(i) {
                    Some(name) => format!("from the argument {name}"),
                    None => format!("from the argument at flattened index {i}"),
                };
                lines.push(line(forward.aval(v), from));
            }
            for eqn in &forward.eqns {
                for v in eqn.outputs.iter().filter(|v| is_residual(v)) {
                    let place = eqn.source.as_ref().map_or_else(String::new, |s| s.to_string());
                    let what = match &eqn.prim {
                        jaxlite::Primitive::Jit { function } => {
                            format!("output of jitted function '{}' from {place}", function.name)
                        }
                        jaxlite::Primitive::Name { name } => format!("named '{name}' from {place}"),
                        prim => format!("output of {} from {place}", prim.name()),
                    };
                    lines.push(line(forward.aval(*v), what));
                }
            }
            Ok(Value::list(lines))
        })
    }

    /// `jax.vjp(f, *primals)`: the outputs and the backward function.
    pub(super) fn vjp_call<'a>(&'a mut self, args: Vec<Value>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Some((f, primals)) = args.split_first() else {
                return err("vjp() missing required argument 'fun'");
            };
            let PrimalTrace { leaves: _, trees, traced, diff, inputs } = self.trace_primals(f, primals).await?;
            let n_out = traced.jaxpr.outvars.len();
            // Transposed when the backward function is called, which is when JAX runs the
            // `bwd` of custom VJPs.
            let split = transform::linearize(&traced.jaxpr, &diff)?;
            let fwd = self.apply_jaxpr(&split.forward, &inputs).await?;
            let outs = self.unflatten_tensors(&traced.out_tree, fwd[..n_out].iter().cloned()).await?;
            let f = VjpFn {
                linear: Rc::new(split.linear),
                residuals: fwd[n_out..].to_vec(),
                in_trees: trees,
                num_outs: n_out,
            };
            Ok(Value::tuple(vec![outs, Value::native(Native::VjpFn(f))]))
        })
    }

    /// `jax.linearize(f, *primals)`: the outputs, and the JVP at the primals as a function of
    /// the tangents alone; the primal computation runs now, once, and the function runs only
    /// the equations that read a tangent (as JAX's partial evaluation leaves them).
    pub(super) fn linearize_call<'a>(&'a mut self, args: Vec<Value>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Some((f, primals)) = args.split_first() else {
                return err("linearize() missing required argument 'fun'");
            };
            let PrimalTrace { leaves, trees, traced, diff, inputs } = self.trace_primals(f, primals).await?;
            let split = transform::linearize(&traced.jaxpr, &diff)?;
            let fwd = self.apply_jaxpr(&split.forward, &inputs).await?;
            let n_out = traced.jaxpr.outvars.len();
            let outs = self.unflatten_tensors(&traced.out_tree, fwd[..n_out].iter().cloned()).await?;
            let mut in_key = String::new();
            Tree::Tuple(trees).key(&mut in_key);
            let f = LinearizedFn {
                linear: Rc::new(split.linear),
                residuals: fwd[n_out..].to_vec(),
                primals: leaves,
                in_key,
                out_tree: traced.out_tree,
            };
            Ok(Value::tuple(vec![outs, Value::native(Native::LinearizedFn(f))]))
        })
    }

    pub(super) fn call_linearized<'a>(
        &'a mut self,
        f: &'a LinearizedFn,
        args: Vec<Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (tangents, trees, _) = self.flatten_args(&args).await?;
            let mut key = String::new();
            Tree::Tuple(trees).key(&mut key);
            if key != f.in_key {
                return err("linearized function called on tangents whose structure differs from the primals'");
            }
            let mut inputs = f.residuals.clone();
            for (t, p) in tangents.iter().zip(&f.primals) {
                if t.aval().shape != p.aval().shape {
                    return err(format!(
                        "linearized function called on a tangent of shape {} for a primal of shape {}",
                        jnp::shape_str(&t.aval().shape),
                        jnp::shape_str(&p.aval().shape)
                    ));
                }
                // Only float primals have tangents, in their own dtype.
                if p.aval().dtype.is_float() {
                    inputs.push(jnp::astype(self.ctx, t, p.aval().dtype).await?);
                }
            }
            let outs = self.apply_jaxpr(&f.linear, &inputs).await?;
            self.unflatten_tensors(&f.out_tree, outs).await
        })
    }

    pub(super) fn call_vjp_fn<'a>(&'a mut self, f: &'a VjpFn, args: Vec<Value>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let [ct] = &args[..] else {
                return err("the function returned by jax.vjp takes one argument, the output cotangent");
            };
            let mut cts = Vec::new();
            self.flatten(ct, &mut cts).await?;
            if cts.len() != f.num_outs {
                return err(
                    "the cotangent passed to the vjp function does not match the structure of the function's output",
                );
            }
            let (backward, mut inputs) =
                self.transpose_linear(&f.linear, f.residuals.len(), &vec![true; f.num_outs]).await?;
            inputs.extend(f.residuals.iter().cloned());
            inputs.extend(cts);
            let grads = self.apply_jaxpr(&backward, &inputs).await?;
            // Non-float inputs have no cotangent row in the backward pass; JAX gives them
            // float0 zeros, the playground gives None.
            let mut it = grads.into_iter().map(Value::of_tensor);
            let mut values = Vec::with_capacity(f.in_trees.len());
            for t in &f.in_trees {
                values.push(self.unflatten_tree(t, &mut it).await?);
            }
            Ok(Value::tuple(values))
        })
    }

    /// Which axis of each leaf of `v` is mapped, following `axes` (an int or None applies to
    /// every leaf below it; a container matches the argument's structure).
    pub(super) fn leaf_axes<'a>(
        &'a mut self,
        v: &'a Value,
        axes: &'a Value,
        out: &'a mut Vec<Option<i64>>,
        depth: usize,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            if depth > 32 {
                return super::exceptions::raise(super::objects::Builtin::RecursionError, "pytree nested too deeply");
            }
            let mut count = Vec::new();
            match axes {
            Value::None => {
                self.flatten(v, &mut count).await?;
                out.extend(std::iter::repeat_n(None, count.len()));
            }
            Value::Int(i) => {
                self.flatten(v, &mut count).await?;
                out.extend(std::iter::repeat_n(Some(*i), count.len()));
            }
            Value::Tuple(_) | Value::List(_) => {
                let axes_items = match axes {
                    Value::Tuple(t) => t.to_vec(),
                    Value::List(l) => l.borrow().clone(),
                    _ => vec![],
                };
                let items = match v {
                    Value::Tuple(t) => t.to_vec(),
                    Value::List(l) => l.borrow().clone(),
                    _ => return super::value_err(format!("vmap in_axes specification {} does not match the argument's structure", repr(axes))),
                };
                if items.len() != axes_items.len() {
                    return super::value_err(format!("vmap in_axes specification {} does not match the argument's structure", repr(axes)));
                }
                for (item, a) in items.iter().zip(&axes_items) {
                    self.leaf_axes(item, a, out, depth + 1).await?;
                }
            }
            Value::Dict(d) => {
                let Value::Dict(vd) = v else {
                    return super::value_err(format!("vmap in_axes specification {} does not match the argument's structure", repr(axes)));
                };
                let entries = vd.borrow().entries.clone();
                for (k, item) in entries.iter() {
                    let a = d.borrow().get(k).cloned().ok_or_else(|| RtError::new(format!("vmap in_axes is missing the key {}", repr(k))))?;
                    self.leaf_axes(item, &a, out, depth + 1).await?;
                }
            }
            other => return err(format!("vmap in_axes must be an int, None, or a (nested) tuple of entries corresponding to the positional arguments passed to the function, but got {}", repr(other))),
        }
            Ok(())
        })
    }

    pub(super) fn call_vmapped<'a>(
        &'a mut self,
        v: &'a Vmapped,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // Each positional argument's `in_axes` entry; keyword arguments are mapped over their
            // leading axis, as in JAX (`in_axes` names positional arguments only), and sorted by
            // name they follow the positional ones.
            let specs: Vec<Value> = match &v.in_axes {
                Value::Tuple(_) | Value::List(_) => {
                    let spec = match &v.in_axes {
                        Value::Tuple(t) => t.to_vec(),
                        Value::List(l) => l.borrow().clone(),
                        _ => vec![],
                    };
                    if spec.len() != args.len() {
                        return err(format!(
                            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)={}, len(args)={}",
                            spec.len(),
                            args.len()
                        ));
                    }
                    spec
                }
                other => vec![other.clone(); args.len()],
            };
            let mut kwargs = kwargs;
            kwargs.sort_by(|a, b| a.0.cmp(&b.0));
            let (keywords, keyword_values): (Vec<String>, Vec<Value>) = kwargs.into_iter().unzip();
            let specs = specs.into_iter().chain(keyword_values.iter().map(|_| Value::Int(0)));
            // An argument that is not mapped at all reaches the function as it is (a Python
            // number stays a number), as in JAX; the others are traced leaf by leaf.
            let mut leaves = Vec::new();
            let mut axes = Vec::new();
            let mut arguments = Vec::new();
            // A mapped ref is mapped as the array it holds; each example writes its own slice.
            let mut refs = Vec::new();
            for (a, spec) in args.iter().chain(&keyword_values).zip(specs) {
                if matches!(spec, Value::None) {
                    arguments.push(None);
                    continue;
                }
                if let Some((native, cell)) = super::refs::ref_cell(a) {
                    let held = Value::Array(cell.borrow().clone());
                    arguments.push(Some(Tree::Leaf));
                    leaves.push(cell.borrow().clone());
                    let first = axes.len();
                    self.leaf_axes(&held, &spec, &mut axes, 0).await?;
                    refs.push((native.clone(), axes[first]));
                    continue;
                }
                arguments.push(Some(self.flatten(a, &mut leaves).await?));
                self.leaf_axes(a, &spec, &mut axes, 0).await?;
            }
            let mut size: Option<usize> = None;
            let mut moved = Vec::new();
            let mut batched = Vec::new();
            for (leaf, axis) in leaves.iter().zip(&axes) {
                match axis {
                    None => {
                        moved.push(leaf.clone());
                        batched.push(false);
                    }
                    Some(a) => {
                        let rank = leaf.aval().rank();
                        let axis = jnp::normalize_axes(Some(&[*a]), rank).map_err(|_| {
                            RtError::of(super::objects::Builtin::ValueError, format!(
                                "vmap was requested to map its argument along axis {a}, which implies that its rank should be at least {}, but is only {rank} (its shape is {})",
                                a + 1,
                                jnp::shape_str(&leaf.aval().shape)
                            ))
                        })?[0];
                        let n = leaf.aval().shape[axis];
                        if let Some(s) = size {
                            if s != n {
                                return super::value_err(format!(
                                    "vmap got inconsistent sizes for array axes to be mapped: {s} and {n}"
                                ));
                            }
                        }
                        size = Some(n);
                        let mut perm: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
                        perm.insert(0, axis);
                        let t =
                            if axis == 0 { leaf.clone() } else { jnp::transpose(self.ctx, leaf, Some(&perm)).await? };
                        moved.push(t);
                        batched.push(true);
                    }
                }
            }
            let Some(size) = size else {
                return super::value_err("vmap must have at least one non-None value in in_axes");
            };
            // Trace on one example: the batch axis dropped.
            let avals = moved
                .iter()
                .zip(&batched)
                .map(|(t, &b)| {
                    let mut aval = t.aval().clone();
                    if b {
                        aval.shape.remove(0);
                    }
                    aval
                })
                .collect();
            let call_args = arguments
                .iter()
                .zip(args.iter().chain(&keyword_values))
                .map(|(tree, a)| match tree {
                    Some(_) if super::refs::ref_cell(a).is_some() => Arg::Ref,
                    Some(t) => Arg::Traced(t),
                    None => Arg::Fixed(a.clone()),
                })
                .collect();
            if let Some(name) = &v.axis_name {
                self.axis_env.push((name.clone(), size));
            }
            let traced =
                self.trace_call_with(&v.func, TracedFor::Vmap, TraceOf::Types(avals), call_args, &keywords).await;
            if v.axis_name.is_some() {
                self.axis_env.pop();
            }
            let traced = traced?;
            let mut all_batched = vec![false; traced.closed.len()];
            all_batched.extend(&batched);
            // Each output leaf's axis, read from `out_axes` against the result's structure (a
            // scalar stands for each leaf: only the structure is read).
            let placeholder = Tensor::from(jnp::full(&[], 0.0, DType::F32));
            let probe = self.unflatten_tensors(&traced.out_tree, std::iter::repeat(placeholder)).await?;
            let mut out_axes = Vec::new();
            self.leaf_axes(&probe, &v.out_axes, &mut out_axes, 0).await?;
            // The refs' final values follow, each put back along the axis it was mapped on.
            let result_leaves = out_axes.len();
            out_axes.extend(refs.iter().map(|(_, axis)| *axis));
            let unmapped: Vec<bool> = out_axes.iter().map(Option::is_none).collect();
            let (batched_jaxpr, out_batched) = match &v.axis_name {
                Some(name) => transform::vmap_outputs_named(&traced.jaxpr, &all_batched, size, &unmapped, name)?,
                None => transform::vmap_outputs(&traced.jaxpr, &all_batched, size, &unmapped)?,
            };
            let mut inputs = traced.closed.clone();
            inputs.extend(moved);
            let outs = self.apply_jaxpr(&batched_jaxpr, &inputs).await?;
            let mut placed = Vec::new();
            for (i, ((t, axis), mapped)) in outs.iter().zip(&out_axes).zip(out_batched).enumerate() {
                let rank = t.aval().rank();
                let to = match axis {
                    None if mapped => {
                        return super::value_err(
                            "at vmap out_axes, got axis spec None but output was batched on axis 0",
                        )
                    }
                    None => {
                        placed.extend(traced.untouched(i, [t.clone()]));
                        continue;
                    }
                    Some(a) => jnp::normalize_axes(Some(&[*a]), rank)?[0],
                };
                let mut perm: Vec<usize> = (1..rank).collect();
                perm.insert(to, 0);
                let t = if to == 0 { t.clone() } else { jnp::transpose(self.ctx, t, Some(&perm)).await? };
                match i.checked_sub(result_leaves) {
                    None => placed.push(Value::Array(t)),
                    Some(k) => {
                        let native = &refs[k].0;
                        let Native::Ref(cell) = &**native else { unreachable!("refs hold refs") };
                        self.ref_store(native, cell, t)?;
                    }
                }
            }
            self.unflatten_tree(&traced.out_tree, &mut placed.into_iter()).await
        })
    }
}
