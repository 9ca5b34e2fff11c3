//! `jax.custom_jvp` and `jax.custom_vjp`: a function with derivative rules of its own.
//!
//! Called inside a trace, the call is staged as one `custom_jvp_call` or `custom_vjp_call`
//! equation, and what runs is what JAX runs (`Interp::differentiations_at_call` decides):
//! - Where the call is differentiated (under `grad`, `jvp`, `vjp`, ... and not inside a
//!   `jit` or loop body within them), the rule alone: a JVP rule, or a VJP's `fwd`, its
//!   primal outputs standing for the function's. A VJP's `bwd` is traced only when reverse
//!   mode transposes (`Interp::transpose_linear`), so `jvp` of one raises after `fwd` ran, and
//!   the function `jax.vjp` returns runs `bwd` at each call.
//! - Anywhere else (under `jit` or `vmap`, in a loop body, in a rule's own call of its
//!   function), the function, with its rules pending (`jaxlite::prim::Pending`):
//!   `Interp::trace_pending_rules` traces them just before a transformation differentiates the
//!   Jaxpr that holds them, in loop, branch and `jit` bodies too.
//!
//! So prints inside rules show when each runs as JAX's do, and a rule that calls its function
//! (`return f(x), ...`, a Bessel function's rule calling it at the neighbouring orders, a fixed
//! point whose `bwd` solves another fixed point) uses its rules at every order of derivative.

use super::jax::Tree;
use super::tracer_errors::TracedFor;
use super::transforms::{resolve_keywords, Arg, TraceOf, Traced};
use super::value::{aval_text, Native, Value};
use super::{err, type_err, value_err, Interp, R};
use jaxlite::numpy as jnp;
use jaxlite::prim::{JvpRule, Pending, VjpPasses};
use jaxlite::{Jaxpr, LocalFuture, Tensor};
use std::rc::Rc;

/// `jax.custom_jvp(f)`: the function and, once `f.defjvp(rule)` ran, its JVP rule.
pub struct CustomJvpFn {
    pub func: Value,
    pub rule: std::cell::RefCell<Option<Value>>,
    /// `nondiff_argnums`: arguments passed to the rule first, as they are, not differentiated.
    pub nondiff: Vec<usize>,
}

/// `jax.custom_vjp(f)`: the function and, once `f.defvjp(fwd, bwd)` ran, its two passes.
pub struct CustomVjpFn {
    pub func: Value,
    pub passes: std::cell::RefCell<Option<(Value, Value)>>,
    /// `nondiff_argnums`: arguments passed to `bwd` first and given no cotangent.
    pub nondiff: Vec<usize>,
}

/// A custom derivative's arguments split by `nondiff_argnums`: those differentiated (their
/// leaves and structures) and the others, in `nondiff_argnums` order.
#[derive(Clone)]
struct SplitArgs {
    leaves: Vec<Tensor>,
    trees: Vec<Tree>,
    fixed: Vec<Value>,
}

impl SplitArgs {
    /// The arguments of the function itself: every one at its position.
    fn in_place(&self, nondiff: &[usize]) -> Vec<Arg<'_>> {
        let mut trees = self.trees.iter();
        let mut fixed = nondiff.iter().zip(&self.fixed).collect::<Vec<_>>();
        fixed.sort_by_key(|(i, _)| **i);
        let mut fixed = fixed.into_iter().peekable();
        let mut out = Vec::new();
        while out.len() < self.trees.len() + self.fixed.len() {
            match fixed.peek() {
                Some((&i, v)) if i == out.len() => {
                    out.push(Arg::Fixed((*v).clone()));
                    fixed.next();
                }
                _ => out.push(trees.next().map_or(Arg::Fixed(Value::None), Arg::Traced)),
            }
        }
        out
    }
}

/// What tracing a pending rule needs (`jaxlite::prim::Pending::Source`): the custom function
/// (a `Native::CustomJvp` or `CustomVjp`), its call's arguments as split then (their tracers
/// long gone, but their types and structure are what a rule is traced for), and the structure
/// of its result.
struct PendingSource {
    function: Rc<Native>,
    split: SplitArgs,
    out_tree: Tree,
}

/// What a custom VJP's `bwd` is traced for: the structures and types of the residuals and
/// of the outputs (whose cotangents it takes), as `fwd` gave them.
#[derive(Clone)]
struct BwdSignature {
    residual_tree: Tree,
    residual_avals: Vec<jaxlite::Aval>,
    out_tree: Tree,
    out_avals: Vec<jaxlite::Aval>,
}

/// What tracing a custom VJP's `bwd` left for the transposition needs
/// (`jaxlite::prim::VjpPasses::ForwardTraced`): the function, its call's arguments as split
/// then, and what `fwd` gave.
struct PendingBwd {
    function: Rc<Native>,
    split: SplitArgs,
    signature: BwdSignature,
}

/// A traced JVP rule with the values it closes over, and the structure and number of its
/// primal outputs.
struct TracedRule {
    jaxpr: Jaxpr,
    closed: Vec<Tensor>,
    out_tree: Tree,
    primal_outputs: usize,
}

/// A custom VJP's traced passes with the values they close over, fwd's first.
struct TracedPasses {
    fwd: Jaxpr,
    fwd_consts: usize,
    bwd: Jaxpr,
    bwd_consts: usize,
    closed: Vec<Tensor>,
}

impl Interp<'_, '_> {
    /// How many differentiations a custom function called with `leaves` sits in, as JAX
    /// counts JVP traces: the differentiating traces since the innermost `jit` or loop body,
    /// less one for each custom rule being traced within them (a rule runs one level out from
    /// the differentiation it serves). `vmap` hands a custom function on to the trace around
    /// it, as JAX's batching of one does. None where no argument is a value of the innermost
    /// trace (a constant, or a value closed over from outside): nothing differentiates those.
    fn differentiations_at_call(&self, leaves: &[Tensor]) -> usize {
        let current = self.ctx.current_trace_id();
        let of_innermost = |t: &Tensor| matches!(t, Tensor::Traced(tr) if Some(tr.trace_id) == current);
        if !leaves.iter().any(of_innermost) {
            return 0;
        }
        let (mut count, mut used_up) = (0, 0);
        for site in self.tracing.iter().rev() {
            match site.purpose {
                TracedFor::CustomFunction | TracedFor::Vmap => {}
                TracedFor::CustomRule => used_up += 1,
                TracedFor::Differentiation if used_up > 0 => used_up -= 1,
                TracedFor::Differentiation => count += 1,
                TracedFor::Named(_) => break,
            }
        }
        count
    }

    /// Calls a `jax.custom_jvp` function, as JAX does. Outside any trace it is just the
    /// function. Where the call is differentiated (`differentiations_at_call`), only the
    /// rule runs, its primal outputs standing for the function's. Anywhere else (under `jit` or
    /// `vmap`, in a loop body, or in a rule's own call of its function) the function is traced
    /// and its rule left pending, traced when something differentiates it (see the module's
    /// comment). Either way the call is one `custom_jvp_call` equation.
    pub(super) fn call_custom_jvp<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Native::CustomJvp(c) = &**native else { return err("internal error: not a custom_jvp function") };
            let name = super::jax::function_name(&c.func);
            let Some(rule) = c.rule.borrow().clone() else {
                return err(format!("No JVP defined for custom_jvp function {name} using defjvp."));
            };
            if !self.ctx.is_tracing() {
                return self.call(c.func.clone(), args, kwargs).await;
            }
            let args = resolve_keywords(&c.func, args, kwargs)?;
            let rule_name = super::jax::function_name(&rule);
            let split = self.split_args(args, &c.nondiff).await?;
            let (call, call_closed, out_tree, rule, rule_closed) = if self.differentiations_at_call(&split.leaves) > 0 {
                let traced = self.trace_jvp_rule(native, &split, None, true).await?;
                let consts = traced.closed.len();
                let call = rule_primals(&traced.jaxpr, consts + split.leaves.len(), traced.primal_outputs)?;
                let rule = JvpRule::Traced { jaxpr: traced.jaxpr, consts };
                (call, traced.closed.clone(), traced.out_tree, rule, traced.closed)
            } else {
                let call = self.trace_custom_function(&c.func, TracedFor::CustomFunction, &split, &c.nondiff).await?;
                let source =
                    PendingSource { function: native.clone(), split: split.clone(), out_tree: call.out_tree.clone() };
                (call.jaxpr, call.closed, call.out_tree, JvpRule::Pending(Pending::Source(Rc::new(source))), vec![])
            };
            let function =
                Rc::new(jaxlite::prim::CustomJvp { name, rule_name, call_consts: call_closed.len(), call, rule });
            let mut operands = call_closed;
            operands.extend(rule_closed);
            operands.extend(split.leaves);
            let outs = self.bind_equation(jaxlite::Primitive::CustomJvpCall { function }, &operands).await?;
            self.unflatten_tensors(&out_tree, outs).await
        })
    }

    /// Traces a custom derivative's function (or its `fwd` pass) on `split`, with the
    /// arguments' values where they have them (under `grad` outside `jit`), so Python control
    /// flow on them works, as JAX runs the function on its JVP tracers.
    fn trace_custom_function<'a>(
        &'a mut self,
        func: &'a Value,
        purpose: TracedFor,
        split: &'a SplitArgs,
        nondiff: &'a [usize],
    ) -> LocalFuture<'a, R<Traced>> {
        self.trace_call_with(func, purpose, TraceOf::Values(&split.leaves), split.in_place(nondiff), &[])
    }

    /// Traces a custom JVP function's rule on `split`'s arguments, with JAX's checks of what it
    /// returns: against the function's traced result (`function`: its Jaxpr and structure)
    /// where the function was traced. The primals have their values where `with_values` says
    /// they are live (a pending rule's arguments are gone: it is traced on their types).
    fn trace_jvp_rule<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        split: &'a SplitArgs,
        function: Option<(&'a Jaxpr, &'a Tree)>,
        with_values: bool,
    ) -> LocalFuture<'a, R<TracedRule>> {
        Box::pin(async move {
            let Native::CustomJvp(c) = &**native else { return err("internal error: not a custom_jvp function") };
            let Some(rule) = c.rule.borrow().clone() else {
                return err("internal error: a custom_jvp function without its rule");
            };
            let (name, rule_name) = (super::jax::function_name(&c.func), super::jax::function_name(&rule));
            let avals: Vec<jaxlite::Aval> = split.leaves.iter().map(|t| t.aval().clone()).collect();
            // The rule takes (nondiff arguments..., primals, tangents): two tuples shaped like
            // the differentiated arguments. (Built from their structure alone: where the rule
            // was pending, the arguments' tracers are gone by now.)
            let rule_trees = [Tree::Tuple(split.trees.clone()), Tree::Tuple(split.trees.clone())];
            let mut rule_args: Vec<Arg> = split.fixed.iter().cloned().map(Arg::Fixed).collect();
            rule_args.extend(rule_trees.iter().map(Arg::Traced));
            // The primals with their values where they have them, the tangents by type.
            let primal = |t: &Tensor| (with_values || matches!(t, Tensor::Concrete(_))).then(|| t.clone());
            let values: Vec<Option<Tensor>> =
                split.leaves.iter().map(primal).chain(split.leaves.iter().map(|_| None)).collect();
            let of = TraceOf::Partly([avals.clone(), avals].concat(), values);
            let jvp = self.trace_call_with(&rule, TracedFor::CustomRule, of, rule_args, &[]).await?;
            let out_tree = check_rule_outputs(&name, &rule_name, function, &jvp)?;
            let primal_outputs = out_tree.num_leaves();
            Ok(TracedRule { jaxpr: jvp.jaxpr, closed: jvp.closed, out_tree, primal_outputs })
        })
    }

    /// Calls a `jax.custom_vjp` function, as JAX does: outside any trace the function itself;
    /// where the call is differentiated, `fwd` (its primal outputs standing for the function's)
    /// and `bwd`; anywhere else the function, with its passes left pending. Either way the call
    /// is one `custom_vjp_call` equation, which reverse mode differentiates with `bwd`.
    pub(super) fn call_custom_vjp<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Native::CustomVjp(c) = &**native else { return err("internal error: not a custom_vjp function") };
            let name = super::jax::function_name(&c.func);
            let Some((fwd, bwd)) = c.passes.borrow().clone() else {
                return err(format!("No VJP defined for custom_vjp function {name} using defvjp."));
            };
            if !self.ctx.is_tracing() {
                return self.call(c.func.clone(), args, kwargs).await;
            }
            let args = resolve_keywords(&c.func, args, kwargs)?;
            let (fwd_name, bwd_name) = (super::jax::function_name(&fwd), super::jax::function_name(&bwd));
            let split = self.split_args(args, &c.nondiff).await?;
            let (call, call_closed, out_tree, passes, passes_closed) = if self.differentiations_at_call(&split.leaves)
                > 0
            {
                // fwd now, bwd when reverse mode transposes (`trace_pending_bwds`).
                let (fwd, signature) = self.trace_fwd([&c.func, &fwd], &split, &c.nondiff, None).await?;
                // The function's result as fwd gives it: fwd's first outputs.
                let outputs = signature.out_avals.len();
                let call = jaxlite::transform::dce(&Jaxpr {
                    outvars: fwd.jaxpr.outvars[..outputs].to_vec(),
                    ..fwd.jaxpr.clone()
                });
                let out_tree = signature.out_tree.clone();
                let source = PendingBwd { function: native.clone(), split: split.clone(), signature };
                let passes = VjpPasses::ForwardTraced {
                    fwd: fwd.jaxpr,
                    fwd_consts: fwd.closed.len(),
                    bwd: Pending::Source(Rc::new(source)),
                };
                (call, fwd.closed.clone(), out_tree, passes, fwd.closed)
            } else {
                let call = self.trace_custom_function(&c.func, TracedFor::CustomFunction, &split, &c.nondiff).await?;
                let source =
                    PendingSource { function: native.clone(), split: split.clone(), out_tree: call.out_tree.clone() };
                let passes = VjpPasses::Pending(Pending::Source(Rc::new(source)));
                (call.jaxpr, call.closed, call.out_tree, passes, vec![])
            };
            let function = Rc::new(jaxlite::prim::CustomVjp {
                name,
                fwd_name,
                bwd_name,
                call_consts: call_closed.len(),
                call,
                passes,
            });
            let mut operands = call_closed;
            operands.extend(passes_closed);
            operands.extend(split.leaves);
            let outs = self.bind_equation(jaxlite::Primitive::CustomVjpCall { function }, &operands).await?;
            self.unflatten_tensors(&out_tree, outs).await
        })
    }

    /// Traces a custom VJP function's two passes (see `trace_fwd` and `trace_bwd`).
    fn trace_vjp_passes<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        split: &'a SplitArgs,
        function: Option<(&'a Jaxpr, &'a Tree)>,
    ) -> LocalFuture<'a, R<TracedPasses>> {
        Box::pin(async move {
            let Native::CustomVjp(c) = &**native else { return err("internal error: not a custom_vjp function") };
            let Some((fwd, bwd)) = c.passes.borrow().clone() else {
                return err("internal error: a custom_vjp function without its passes");
            };
            let (fwd, signature) = self.trace_fwd([&c.func, &fwd], split, &c.nondiff, function).await?;
            let bwd = self.trace_bwd(&bwd, split, &signature).await?;
            let (fwd_consts, bwd_consts) = (fwd.closed.len(), bwd.closed.len());
            let mut closed = fwd.closed;
            closed.extend(bwd.closed);
            Ok(TracedPasses { fwd: fwd.jaxpr, fwd_consts, bwd: bwd.jaxpr, bwd_consts, closed })
        })
    }

    /// Traces a custom VJP's `fwd` (arguments to the outputs and the residuals), with JAX's
    /// checks of what it returns: against the function's traced result (`function`: its Jaxpr
    /// and structure) where the function was traced. Returns it with what `bwd` is traced for.
    fn trace_fwd<'a>(
        &'a mut self,
        [name, fwd]: [&'a Value; 2],
        split: &'a SplitArgs,
        nondiff: &'a [usize],
        function: Option<(&'a Jaxpr, &'a Tree)>,
    ) -> LocalFuture<'a, R<(Traced, BwdSignature)>> {
        Box::pin(async move {
            let (name, fwd_name) = (super::jax::function_name(name), super::jax::function_name(fwd));
            let traced = self.trace_custom_function(fwd, TracedFor::CustomRule, split, nondiff).await?;
            let fwd_avals: Vec<jaxlite::Aval> =
                traced.jaxpr.outvars.iter().map(|a| traced.jaxpr.atom_aval(a).clone()).collect();
            let must = format!(
                "Custom VJP fwd rule {fwd_name} for function {name} must produce a pair (list or tuple of length two) \
                 where the first element represents the primal output (equal to the output of the custom_vjp-decorated \
                 function {name}) and the second element represents residuals (i.e. values stored from the forward pass \
                 for use on the backward pass), but"
            );
            let (primal_tree, residual_tree) = match &traced.out_tree {
                Tree::Tuple(items) | Tree::List(items) if items.len() == 2 => (items[0].clone(), items[1].clone()),
                other => {
                    let produced = self.typed_tree(other, &fwd_avals).await?;
                    return type_err(format!("{must} instead of a pair the fwd rule {fwd_name} produced {produced}."));
                }
            };
            let (primal_avals, residual_avals) = fwd_avals.split_at(primal_tree.num_leaves());
            if let Some((call, out_tree)) = function {
                let call_avals: Vec<jaxlite::Aval> = call.outvars.iter().map(|a| call.atom_aval(a).clone()).collect();
                // What differs, and how JAX's message ends (with a full stop for one, not the other).
                let mismatch = if !primal_tree.same_structure(out_tree) {
                    Some(("container/pytree structure", "."))
                } else if primal_avals.iter().zip(&call_avals).any(|(p, c)| !p.same_type(c)) {
                    Some(("shapes/dtypes of", ""))
                } else {
                    None
                };
                if let Some((what, end)) = mismatch {
                    let got = self.typed_tree(&primal_tree, primal_avals).await?;
                    let want = self.typed_tree(out_tree, &call_avals).await?;
                    return type_err(format!(
                        "{must} instead the fwd rule output's first element had {what}:\n    {got}\nwhile the \
                         custom_vjp-decorated function {name} had output {what}:\n    {want}{end}"
                    ));
                }
            }
            let signature = BwdSignature {
                residual_avals: residual_avals.to_vec(),
                out_avals: primal_avals.to_vec(),
                residual_tree,
                out_tree: primal_tree,
            };
            Ok((Traced { out_tree: Tree::Leaf, python_numbers: vec![], ..traced }, signature))
        })
    }

    /// Traces a custom VJP's `bwd`: the residuals and the outputs' cotangents to one cotangent
    /// per argument (`None` for zeros), with JAX's checks of what it returns.
    fn trace_bwd<'a>(
        &'a mut self,
        bwd: &'a Value,
        split: &'a SplitArgs,
        signature: &'a BwdSignature,
    ) -> LocalFuture<'a, R<Traced>> {
        Box::pin(async move {
            let BwdSignature { residual_tree, residual_avals, out_tree, out_avals } = signature;
            let mut avals = residual_avals.clone();
            avals.extend(out_avals.iter().cloned());
            let mut tracers = self.ctx.begin_trace(&avals);
            let cotangents = tracers.split_off(residual_avals.len());
            let residuals = self.unflatten_tensors(residual_tree, tracers).await?;
            let cotangents = self.unflatten_tensors(out_tree, cotangents).await?;
            let mut bwd_args = split.fixed.clone();
            bwd_args.extend([residuals, cotangents]);
            let mut trees: Vec<Option<Tree>> = split.fixed.iter().map(|_| None).collect();
            trees.extend([Some(residual_tree.clone()), Some(out_tree.clone())]);
            let site = self.trace_site(bwd, TracedFor::CustomRule, trees, &[]);
            let result = self.call_in_trace(site, bwd_args, vec![]).await;
            let cts = match result {
                Ok(v) => self.argument_cotangents(&v, &split.leaves, &split.trees).await,
                Err(e) => Err(e),
            };
            let cts = match cts {
                Ok(cts) => cts,
                Err(e) => {
                    self.ctx.abort_trace();
                    return Err(e);
                }
            };
            match self.ctx.end_trace_open(&cts) {
                Ok((jaxpr, closed)) => {
                    Ok(Traced { jaxpr, closed, out_tree: Tree::Leaf, python_numbers: vec![], refs: Default::default() })
                }
                Err(e) => {
                    self.ctx.abort_trace();
                    Err(e.into())
                }
            }
        })
    }

    /// A pytree of types as JAX writes one in a message: `(float32[], {a: float32[3]})`, the tree's
    /// structure with each leaf's type.
    async fn typed_tree(&mut self, tree: &Tree, avals: &[jaxlite::Aval]) -> R<String> {
        let mut leaves = avals.iter().map(|a| Value::str(&aval_text(a)));
        let v = self.unflatten_tree(tree, &mut leaves).await?;
        Ok(super::value::repr(&v).replace('\'', ""))
    }

    /// Splits a custom derivative's arguments by `nondiff_argnums`.
    async fn split_args(&mut self, args: Vec<Value>, nondiff: &[usize]) -> R<SplitArgs> {
        if let Some(i) = nondiff.iter().find(|&&i| i >= args.len()) {
            return super::index_err(format!(
                "nondiff_argnums {i} is out of range for a call with {} arguments",
                args.len()
            ));
        }
        let fixed = nondiff.iter().map(|&i| args[i].clone()).collect();
        let diff: Vec<Value> =
            args.into_iter().enumerate().filter(|(i, _)| !nondiff.contains(i)).map(|(_, v)| v).collect();
        let (leaves, trees, _) = self.flatten_args(&diff).await?;
        Ok(SplitArgs { leaves, trees, fixed })
    }

    /// The leaves of what a custom VJP's `bwd` returned, with JAX's checks: a tuple (or a
    /// list) with an entry per argument shaped like it, of its leaves' shapes and dtypes.
    async fn argument_cotangents(&mut self, v: &Value, leaves: &[Tensor], trees: &[Tree]) -> R<Vec<Tensor>> {
        // A list of the right length counts as the tuple, as in JAX.
        let v = match v {
            Value::List(items) if items.borrow().len() == trees.len() => Value::tuple(items.borrow().clone()),
            other => other.clone(),
        };
        let mut values = Vec::new();
        let got = self.tree_of(&v, None, &mut values).await?;
        let args = Tree::Tuple(trees.to_vec());
        let mut paired = Vec::with_capacity(leaves.len());
        if !matches!(got, Tree::Tuple(_)) || !pair_cotangents(&got, &args, &mut values.into_iter(), &mut paired) {
            return type_err(format!(
                "Custom VJP bwd rule must produce an output with the same container (pytree) structure as the args \
                 tuple of the primal function, and in particular must produce a tuple of length equal to the number \
                 of arguments to the primal function, but got bwd output structure PyTreeDef({}) for primal input \
                 structure PyTreeDef({}).",
                got.describe(),
                args.describe()
            ));
        }
        let mut paths = Vec::with_capacity(leaves.len());
        super::tracer_errors::leaf_paths(&args, &mut "output".to_string(), &mut paths);
        let mut cts = Vec::with_capacity(leaves.len());
        for ((leaf, ct), path) in leaves.iter().zip(paired).zip(paths) {
            let want = leaf.aval();
            let Some(ct) = ct else {
                cts.push(Tensor::from(jnp::full(&want.shape, 0.0, want.dtype)));
                continue;
            };
            let ct = self.to_tensor(&ct)?;
            let got = ct.aval();
            if !got.same_type(want) {
                // JAX lets a cotangent of another dtype through; here it is an error, as
                // adding it to the others would be.
                let mut mismatches = Vec::new();
                if got.dtype != want.dtype {
                    mismatches.push("the dtypes do not match");
                }
                if got.shape != want.shape {
                    mismatches.push("the shapes do not match");
                }
                return value_err(format!(
                    "Custom VJP bwd rule must produce an output with the same type as the args tuple of the primal \
                     function, but at {path} the bwd rule produced an output of type {} corresponding to an input \
                     of type {}, so {}",
                    aval_text(got),
                    aval_text(want),
                    mismatches.join(", and ")
                ));
            }
            cts.push(ct);
        }
        Ok(cts)
    }
}

/// Pairs each leaf of the arguments (`args`) with its cotangent from what a custom VJP's `bwd`
/// returned (`got`, its leaves `values`), as JAX reads it: `None` anywhere stands for zeros
/// for every leaf below it, and an array where an argument has a subtree is the cotangent of
/// each of its leaves. False where the structures differ otherwise.
fn pair_cotangents(
    got: &Tree,
    args: &Tree,
    values: &mut impl Iterator<Item = Value>,
    out: &mut Vec<Option<Value>>,
) -> bool {
    match got {
        Tree::None => out.extend(std::iter::repeat_n(None, args.num_leaves())),
        Tree::Leaf => {
            let Some(v) = values.next() else { return false };
            out.extend(std::iter::repeat_n(Some(v), args.num_leaves()));
        }
        _ => match got.paired_children(args) {
            Some(children) => return children.into_iter().all(|(g, a)| pair_cotangents(g, a, values, out)),
            None => return false,
        },
    }
    true
}

/// The checks JAX makes of a custom JVP rule's result (`_flatten_jvp`): a (primal, tangent)
/// pair of one structure, with tangents of the primals' types, and, where the function itself
/// was traced (`function`: its Jaxpr and result's structure), primals shaped as its result.
/// Returns the primals' structure.
fn check_rule_outputs(name: &str, rule_name: &str, function: Option<(&Jaxpr, &Tree)>, jvp: &Traced) -> R<Tree> {
    let (primal_tree, tangent_tree) = match &jvp.out_tree {
        Tree::Tuple(items) | Tree::List(items) if items.len() == 2 => (&items[0], &items[1]),
        other => {
            return type_err(format!(
                "Custom JVP rule {rule_name} for function {name} must produce a pair (list or tuple of length two) \
                 representing primal and tangent outputs, but got {}",
                other.describe()
            ))
        }
    };
    if let Some((call, out_tree)) = function {
        let want = out_tree.describe();
        if primal_tree.describe() != want || tangent_tree.describe() != want {
            return err(format!(
                "Custom JVP rule {rule_name} for function {name} must produce a pair (list or tuple of length two) \
                 of primal and tangent outputs shaped like the function's output {want}, but got {}",
                jvp.out_tree.describe()
            ));
        }
        let outs = call.outvars.iter().map(|a| call.atom_aval(a));
        for (out, primal) in outs.zip(&jvp.jaxpr.outvars) {
            let primal = jvp.jaxpr.atom_aval(primal);
            if !out.same_type(primal) {
                return err(format!(
                    "Custom JVP rule {rule_name} for function {name} must produce primal outputs with the same \
                     shapes and dtypes as the function: expected {} but got {}",
                    aval_text(out),
                    aval_text(primal)
                ));
            }
        }
    } else if primal_tree.describe() != tangent_tree.describe() {
        return type_err(format!(
            "Custom JVP rule {rule_name} for function {name} must produce primal and tangent outputs with equal \
             container (pytree) structures, but got PyTreeDef({}) and PyTreeDef({}) respectively.",
            primal_tree.describe(),
            tangent_tree.describe()
        ));
    }
    let rule_outs: Vec<&jaxlite::Aval> = jvp.jaxpr.outvars.iter().map(|a| jvp.jaxpr.atom_aval(a)).collect();
    let (primals, tangents) = rule_outs.split_at(primal_tree.num_leaves());
    for (primal, tangent) in primals.iter().zip(tangents) {
        if !primal.same_type(tangent) {
            return type_err(format!(
                "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. \
                 Expected {} (tangent type of {}) but got {}.",
                aval_text(primal),
                aval_text(primal),
                aval_text(tangent)
            ));
        }
    }
    Ok(primal_tree.clone())
}

/// A custom JVP rule's Jaxpr (closed-over values, primals, tangents -> primal outputs, tangent
/// outputs) cut to what computes its first `outputs` (the primal outputs) from its first
/// `inputs` (the values and primals), the tangents zero: the function's result as the rule
/// gives it, which evaluating the call without differentiating it runs.
fn rule_primals(rule: &Jaxpr, inputs: usize, outputs: usize) -> R<Jaxpr> {
    let mut b = jaxlite::transform::Builder::new();
    let all: Vec<jaxlite::Var> = rule.all_inputs().collect();
    let mut args: Vec<jaxlite::Atom> = all[..inputs].iter().map(|v| b.input(rule.aval(*v).clone())).collect();
    for v in &all[inputs..] {
        args.push(b.zeros(rule.aval(*v))?);
    }
    let mut outs = b.inline(rule, &args)?;
    outs.truncate(outputs);
    Ok(jaxlite::transform::dce(&b.finish(outs)))
}

/// A custom function whose pending rule has been traced: the function with its rule, and the
/// variables standing for the values the rule closes over.
struct Resolved<F> {
    function: Rc<F>,
    consts: Vec<jaxlite::Atom>,
}

impl Interp<'_, '_> {
    /// Traces the pending rules (see the module's comment) of the custom functions in
    /// `jaxpr` that differentiating it with respect to the inputs flagged in `diff` reaches:
    /// the Jaxpr with those rules in place, taking the values they close over as new leading
    /// inputs, and those values (not differentiated); `None` where nothing was pending. Called
    /// just before a transformation differentiates a Jaxpr, which is when JAX traces rules.
    /// Pending rules inside loop and branch bodies are left so (see `jaxlite::prim::Pending`).
    pub(super) async fn trace_pending_rules(
        &mut self,
        jaxpr: &Jaxpr,
        diff: &[bool],
    ) -> R<Option<(Jaxpr, Vec<Tensor>)>> {
        use jaxlite::prim::{CustomJvp, CustomVjp};
        use jaxlite::{Atom, Primitive, Var};
        let pending = |prim: &Primitive| match prim {
            Primitive::CustomJvpCall { function } => matches!(function.rule, JvpRule::Pending(_)),
            Primitive::CustomVjpCall { function } => matches!(function.passes, VjpPasses::Pending(_)),
            _ => false,
        };
        if !holds_pending(jaxpr) {
            return Ok(None);
        }
        // Which variables a tangent reaches from the differentiated inputs.
        let mut reached: std::collections::HashSet<Var> =
            jaxpr.all_inputs().zip(diff).filter(|(_, &d)| d).map(|(v, _)| v).collect();
        let mut added = AddedInputs::new(jaxpr);
        let mut jvps: Vec<(*const CustomJvp, Resolved<CustomJvp>)> = Vec::new();
        let mut vjps: Vec<(*const CustomVjp, Resolved<CustomVjp>)> = Vec::new();
        let mut eqns = Vec::with_capacity(jaxpr.eqns.len());
        for eqn in &jaxpr.eqns {
            let differentiated = eqn.inputs.iter().any(|a| matches!(a, Atom::Var(v) if reached.contains(v)));
            if differentiated {
                reached.extend(eqn.outputs.iter().copied());
            }
            if differentiated && !pending(&eqn.prim) && eqn.prim.sub_jaxprs().iter().any(|j| holds_pending(j)) {
                let operands: Vec<bool> =
                    eqn.inputs.iter().map(|a| matches!(a, Atom::Var(v) if reached.contains(v))).collect();
                let (prim, values) = self.trace_pending_in_bodies(&eqn.prim, &operands).await?;
                // The values the bodies' rules close over become operands where `values` says.
                let mut values = values.into_iter().peekable();
                let mut inputs = Vec::with_capacity(eqn.inputs.len());
                for at in 0..=eqn.inputs.len() {
                    while let Some((_, value)) = values.next_if(|(before, _)| *before == at) {
                        inputs.push(added.value(value));
                    }
                    inputs.extend(eqn.inputs.get(at).cloned());
                }
                eqns.push(jaxlite::Eqn { prim, inputs, outputs: eqn.outputs.clone(), source: eqn.source.clone() });
                continue;
            }
            if !differentiated || !pending(&eqn.prim) {
                eqns.push(eqn.clone());
                continue;
            }
            // JAX's error, before tracing a rule that would close over the differentiated value
            // (by now the tracer of a finished trace).
            let (kind, name, call_consts) = match &eqn.prim {
                Primitive::CustomJvpCall { function } => ("JVP", &function.name, function.call_consts),
                Primitive::CustomVjpCall { function } => ("VJP", &function.name, function.call_consts),
                _ => unreachable!("only pending custom calls get here"),
            };
            if eqn.inputs[..call_consts].iter().any(|a| matches!(a, Atom::Var(v) if reached.contains(v))) {
                return Err(jaxlite::transform::closed_over(kind, name).into());
            }
            // The values the rule closes over become new inputs, shared by the equations
            // that call one function (a Jaxpr inlined twice calls it twice).
            let (prim, call_consts, consts) = match &eqn.prim {
                Primitive::CustomJvpCall { function } => {
                    let key = Rc::as_ptr(function);
                    if !jvps.iter().any(|(k, _)| *k == key) {
                        let (resolved, values) = self.trace_pending_jvp(function).await?;
                        let consts = values.into_iter().map(|v| added.value(v)).collect();
                        jvps.push((key, Resolved { function: Rc::new(resolved), consts }));
                    }
                    let r = &jvps.iter().find(|(k, _)| *k == key).expect("resolved above").1;
                    (Primitive::CustomJvpCall { function: r.function.clone() }, function.call_consts, r.consts.clone())
                }
                Primitive::CustomVjpCall { function } => {
                    let key = Rc::as_ptr(function);
                    if !vjps.iter().any(|(k, _)| *k == key) {
                        let (resolved, values) = self.trace_pending_vjp(function).await?;
                        let consts = values.into_iter().map(|v| added.value(v)).collect();
                        vjps.push((key, Resolved { function: Rc::new(resolved), consts }));
                    }
                    let r = &vjps.iter().find(|(k, _)| *k == key).expect("resolved above").1;
                    (Primitive::CustomVjpCall { function: r.function.clone() }, function.call_consts, r.consts.clone())
                }
                _ => unreachable!("only pending custom calls get here"),
            };
            // A pending rule closes over nothing, so the operands are the call's closed-over
            // values and the arguments, with the rule's values between them.
            let mut inputs = eqn.inputs[..call_consts].to_vec();
            inputs.extend(consts);
            inputs.extend_from_slice(&eqn.inputs[call_consts..]);
            eqns.push(jaxlite::Eqn { prim, inputs, outputs: eqn.outputs.clone(), source: eqn.source.clone() });
        }
        let AddedInputs { mut vars, values, types, .. } = added;
        vars.extend(jaxpr.constvars.iter().copied());
        let filled =
            Jaxpr { constvars: vars, invars: jaxpr.invars.clone(), eqns, outvars: jaxpr.outvars.clone(), types };
        Ok(Some((filled, values)))
    }

    /// `trace_pending_rules` for a traced function about to be differentiated with respect
    /// to the leaves flagged in `diff_leaves`: the rules' values become its first closed-over
    /// values.
    pub(super) async fn trace_pending_rules_of(&mut self, traced: &mut Traced, diff_leaves: &[bool]) -> R<()> {
        let mut diff = vec![false; traced.closed.len()];
        diff.extend(diff_leaves);
        if let Some((jaxpr, mut closed)) = self.trace_pending_rules(&traced.jaxpr, &diff).await? {
            closed.append(&mut traced.closed);
            traced.closed = closed;
            traced.jaxpr = jaxpr;
        }
        Ok(())
    }

    /// A loop, branch or `jit` call with the pending rules in its bodies traced where a
    /// derivative reaches them from the operands `reached` flags (a loop's carries taken as
    /// reached: an iteration may make them so), and the values those rules close over, each
    /// with the position among the equation's operands it goes before: they become the
    /// bodies' new leading closed-over values.
    fn trace_pending_in_bodies<'a>(
        &'a mut self,
        prim: &'a jaxlite::Primitive,
        reached: &'a [bool],
    ) -> LocalFuture<'a, R<WithBodyValues>> {
        use jaxlite::prim::{Branches, ScanLoop, WhileLoop};
        use jaxlite::Primitive;
        let at = |position: usize, values: Vec<Tensor>| values.into_iter().map(move |v| (position, v));
        Box::pin(async move {
            Ok(match prim {
                Primitive::While { function: w } => {
                    let [cond_consts, body_consts, carries] = w.split(reached);
                    let carries = vec![true; carries.len()];
                    let (cond, cond_values) =
                        self.trace_pending_in_body(&w.cond, &[cond_consts, &carries].concat()).await?;
                    let (body, body_values) =
                        self.trace_pending_in_body(&w.body, &[body_consts, &carries].concat()).await?;
                    let function = WhileLoop {
                        cond,
                        cond_consts: w.cond_consts + cond_values.len(),
                        body,
                        body_consts: w.body_consts + body_values.len(),
                    };
                    let values = at(0, cond_values).chain(at(w.cond_consts, body_values)).collect();
                    (Primitive::While { function: Rc::new(function) }, values)
                }
                Primitive::Scan { function: s } => {
                    let [consts, carries, xs] = s.split(reached);
                    let flags = [consts, &vec![true; carries.len()], xs].concat();
                    let (body, values) = self.trace_pending_in_body(&s.body, &flags).await?;
                    let function = ScanLoop { body, consts: s.consts + values.len(), ..(**s).clone() };
                    (Primitive::Scan { function: Rc::new(function) }, at(0, values).collect())
                }
                Primitive::Cond { function: c } => {
                    let mut traced = Vec::with_capacity(c.branches.len());
                    for b in &c.branches {
                        traced.push(self.trace_pending_in_body(b, &reached[1..]).await?);
                    }
                    // Every branch takes every branch's new values (after the index).
                    let avals: Vec<Vec<jaxlite::Aval>> =
                        traced.iter().map(|(_, vs)| vs.iter().map(|v| v.aval().clone()).collect()).collect();
                    let branches = traced
                        .iter()
                        .enumerate()
                        .map(|(i, (branch, _))| {
                            let before: Vec<jaxlite::Aval> = avals[..i].concat();
                            let after: Vec<jaxlite::Aval> = avals[i + 1..].concat();
                            with_unused_inputs(branch, &before, avals[i].len(), &after)
                        })
                        .collect();
                    let values = traced.into_iter().flat_map(|(_, vs)| at(1, vs)).collect();
                    (Primitive::Cond { function: Rc::new(Branches { branches }) }, values)
                }
                Primitive::Jit { function: j } => {
                    let (body, values) = self.trace_pending_in_body(&j.body, reached).await?;
                    let function =
                        jaxlite::prim::JitFunction { name: j.name.clone(), body, consts: j.consts + values.len() };
                    (Primitive::Jit { function: Rc::new(function) }, at(0, values).collect())
                }
                Primitive::Remat { function: r } => {
                    let (body, values) = self.trace_pending_in_body(&r.body, reached).await?;
                    let function = r.with_body(body, r.differentiated);
                    (Primitive::Remat { function: Rc::new(function) }, at(0, values).collect())
                }
                other => (other.clone(), vec![]),
            })
        })
    }

    /// `trace_pending_rules` inside a loop, branch or `jit` body (see
    /// `trace_pending_in_bodies`), its inputs flagged by `reached`: the body taking the values
    /// its rules close over as new leading inputs, and those values.
    fn trace_pending_in_body<'a>(
        &'a mut self,
        body: &'a Jaxpr,
        reached: &'a [bool],
    ) -> LocalFuture<'a, R<(Jaxpr, Vec<Tensor>)>> {
        Box::pin(async move {
            Ok(match self.trace_pending_rules(body, reached).await? {
                None => (body.clone(), vec![]),
                Some((filled, values)) => {
                    let invars = filled.all_inputs().collect();
                    (Jaxpr { constvars: vec![], invars, ..filled }, values)
                }
            })
        })
    }

    /// Reverse mode of `jaxpr` as JAX runs it: linearized, then transposed (`transpose_linear`).
    /// The backward pass takes the values returned first, then the residuals and cotangents.
    pub(super) async fn reverse_mode(
        &mut self,
        jaxpr: &Jaxpr,
        diff_in: &[bool],
        diff_out: &[bool],
    ) -> R<(jaxlite::transform::Vjp, Vec<Tensor>)> {
        let split = jaxlite::transform::linearize(jaxpr, diff_in)?;
        let (backward, values) = self.transpose_linear(&split.linear, split.num_residuals, diff_out).await?;
        Ok((jaxlite::transform::Vjp { forward: split.forward, num_residuals: split.num_residuals, backward }, values))
    }

    /// The transpose of a linear map (`jaxlite::transform::transpose`), with the `bwd` pass
    /// of each custom VJP whose `fwd` alone was traced (`VjpPasses::ForwardTraced`) traced
    /// first: JAX runs `bwd` only when it transposes. The transpose takes the values those
    /// `bwd`s close over (returned) first, then the residuals and the cotangents.
    pub(super) async fn transpose_linear(
        &mut self,
        linear: &Jaxpr,
        num_residuals: usize,
        diff_out: &[bool],
    ) -> R<(Jaxpr, Vec<Tensor>)> {
        use jaxlite::prim::CustomVjp;
        use jaxlite::Primitive;
        let bwd_pending = |e: &jaxlite::Eqn| {
            matches!(&e.prim, Primitive::CustomVjpTangent { function }
                if matches!(function.passes, VjpPasses::ForwardTraced { .. }))
        };
        // The common case, nothing to trace: transposed as it is, not rebuilt (grad runs this
        // at every call outside jit).
        if !linear.eqns.iter().any(bwd_pending) {
            return Ok((jaxlite::transform::transpose(linear, num_residuals, diff_out)?, vec![]));
        }
        let mut added = AddedInputs::new(linear);
        let mut traced: Vec<(*const CustomVjp, Rc<CustomVjp>, Vec<jaxlite::Atom>)> = Vec::new();
        let mut eqns = Vec::with_capacity(linear.eqns.len());
        for eqn in &linear.eqns {
            let function = match &eqn.prim {
                Primitive::CustomVjpTangent { function } => function,
                _ => {
                    eqns.push(eqn.clone());
                    continue;
                }
            };
            let VjpPasses::ForwardTraced { fwd, fwd_consts, .. } = &function.passes else {
                eqns.push(eqn.clone());
                continue;
            };
            let key = Rc::as_ptr(function);
            if !traced.iter().any(|(k, ..)| *k == key) {
                let (bwd, closed) = self.trace_pending_bwd(function).await?;
                let consts: Vec<jaxlite::Atom> = closed.into_iter().map(|v| added.value(v)).collect();
                let passes =
                    VjpPasses::Traced { fwd: fwd.clone(), fwd_consts: *fwd_consts, bwd, bwd_consts: consts.len() };
                let resolved = CustomVjp {
                    name: function.name.clone(),
                    fwd_name: function.fwd_name.clone(),
                    bwd_name: function.bwd_name.clone(),
                    call: function.call.clone(),
                    call_consts: function.call_consts,
                    passes,
                };
                traced.push((key, Rc::new(resolved), consts));
            }
            let (_, function, consts) = traced.iter().find(|(k, ..)| *k == key).expect("traced above");
            // bwd's closed-over values lead a tangent equation's operands.
            let mut inputs = consts.clone();
            inputs.extend(eqn.inputs.iter().cloned());
            let prim = Primitive::CustomVjpTangent { function: function.clone() };
            eqns.push(jaxlite::Eqn { prim, inputs, outputs: eqn.outputs.clone(), source: eqn.source.clone() });
        }
        let AddedInputs { vars, values, types, .. } = added;
        let mut invars = vars;
        invars.extend(linear.all_inputs());
        let linear = Jaxpr { constvars: vec![], invars, eqns, outvars: linear.outvars.clone(), types };
        let backward = jaxlite::transform::transpose(&linear, values.len() + num_residuals, diff_out)?;
        Ok((backward, values))
    }

    /// The `bwd` pass left for the transposition (`VjpPasses::ForwardTraced`), traced, and the
    /// values it closes over.
    fn trace_pending_bwd<'a>(
        &'a mut self,
        function: &'a jaxlite::prim::CustomVjp,
    ) -> LocalFuture<'a, R<(Jaxpr, Vec<Tensor>)>> {
        Box::pin(async move {
            match &function.passes {
                VjpPasses::ForwardTraced { bwd: Pending::Source(source), .. } => {
                    let Some(source) = source.downcast_ref::<PendingBwd>() else {
                        return err("internal error: a pending bwd pass of another interpreter");
                    };
                    let Native::CustomVjp(c) = &*source.function else {
                        return err("internal error: not a custom_vjp function");
                    };
                    let Some((_, bwd)) = c.passes.borrow().clone() else {
                        return err("internal error: a custom_vjp function without its passes");
                    };
                    let traced = self.trace_bwd(&bwd, &source.split, &source.signature).await?;
                    Ok((traced.jaxpr, traced.closed))
                }
                VjpPasses::ForwardTraced { bwd: Pending::Batched { of, size, .. }, .. } => {
                    let (bwd, closed) = self.trace_pending_bwd(of).await?;
                    Ok((jaxlite::transform::batch_traced_bwd(&bwd, closed.len(), *size)?, closed))
                }
                _ => err("internal error: no bwd pass left to trace"),
            }
        })
    }

    /// A custom JVP function with its pending rule traced, and the values that closes over.
    fn trace_pending_jvp<'a>(
        &'a mut self,
        f: &'a jaxlite::prim::CustomJvp,
    ) -> LocalFuture<'a, R<(jaxlite::prim::CustomJvp, Vec<Tensor>)>> {
        Box::pin(async move {
            let with_rule = |jaxpr, consts| jaxlite::prim::CustomJvp {
                name: f.name.clone(),
                rule_name: f.rule_name.clone(),
                call: f.call.clone(),
                call_consts: f.call_consts,
                rule: JvpRule::Traced { jaxpr, consts },
            };
            match &f.rule {
                JvpRule::Pending(Pending::Source(source)) => {
                    let Some(source) = source.downcast_ref::<PendingSource>() else {
                        return err("internal error: a pending rule of another interpreter");
                    };
                    let traced = self
                        .trace_jvp_rule(&source.function, &source.split, Some((&f.call, &source.out_tree)), false)
                        .await?;
                    let consts = traced.closed.len();
                    Ok((with_rule(traced.jaxpr, consts), traced.closed))
                }
                JvpRule::Pending(Pending::Batched { of, flags, size }) => {
                    let (of_traced, closed) = self.trace_pending_jvp(of).await?;
                    let consts = closed.len();
                    let rule =
                        jaxlite::transform::batch_traced_rule(of, of_traced.traced_rule()?, consts, flags, *size)?;
                    Ok((with_rule(rule, consts), closed))
                }
                JvpRule::Traced { .. } => err("internal error: tracing a rule traced already"),
            }
        })
    }

    /// A custom VJP function with its pending passes traced, and the values they close over.
    fn trace_pending_vjp<'a>(
        &'a mut self,
        f: &'a jaxlite::prim::CustomVjp,
    ) -> LocalFuture<'a, R<(jaxlite::prim::CustomVjp, Vec<Tensor>)>> {
        Box::pin(async move {
            let with_passes = |passes| jaxlite::prim::CustomVjp {
                name: f.name.clone(),
                fwd_name: f.fwd_name.clone(),
                bwd_name: f.bwd_name.clone(),
                call: f.call.clone(),
                call_consts: f.call_consts,
                passes,
            };
            match &f.passes {
                VjpPasses::Pending(Pending::Source(source)) => {
                    let Some(source) = source.downcast_ref::<PendingSource>() else {
                        return err("internal error: pending passes of another interpreter");
                    };
                    let t = self
                        .trace_vjp_passes(&source.function, &source.split, Some((&f.call, &source.out_tree)))
                        .await?;
                    let passes = VjpPasses::Traced {
                        fwd: t.fwd,
                        fwd_consts: t.fwd_consts,
                        bwd: t.bwd,
                        bwd_consts: t.bwd_consts,
                    };
                    Ok((with_passes(passes), t.closed))
                }
                VjpPasses::Pending(Pending::Batched { of, flags, size }) => {
                    let (of_traced, closed) = self.trace_pending_vjp(of).await?;
                    let (fwd_consts, bwd_consts) = of_traced.pass_consts();
                    let (fwd, bwd) = of_traced.traced_passes()?;
                    let (fwd, bwd) = jaxlite::transform::batch_traced_passes(
                        of,
                        (fwd, fwd_consts),
                        (bwd, bwd_consts),
                        flags,
                        *size,
                    )?;
                    Ok((with_passes(VjpPasses::Traced { fwd, fwd_consts, bwd, bwd_consts }), closed))
                }
                VjpPasses::Traced { .. } | VjpPasses::ForwardTraced { .. } => {
                    err("internal error: tracing passes traced already")
                }
            }
        })
    }
}

/// A loop, branch or `jit` equation's primitive with its bodies' pending rules traced, and the
/// values those close over, each with the operand position it goes before.
type WithBodyValues = (jaxlite::Primitive, Vec<(usize, Tensor)>);

/// The inputs `trace_pending_rules` adds to a Jaxpr for the values the rules it traces close
/// over: fresh variables, numbered past the Jaxpr's own.
struct AddedInputs {
    next_var: u32,
    types: std::collections::HashMap<jaxlite::Var, jaxlite::Aval>,
    vars: Vec<jaxlite::Var>,
    values: Vec<Tensor>,
}

impl AddedInputs {
    fn new(jaxpr: &Jaxpr) -> AddedInputs {
        let next_var = jaxpr.types.keys().map(|v| v.0 + 1).max().unwrap_or(0);
        AddedInputs { next_var, types: jaxpr.types.clone(), vars: vec![], values: vec![] }
    }

    /// A new input standing for `value`.
    fn value(&mut self, value: Tensor) -> jaxlite::Atom {
        let v = jaxlite::Var(self.next_var);
        self.next_var += 1;
        self.types.insert(v, value.aval().clone());
        self.vars.push(v);
        self.values.push(value);
        jaxlite::Atom::Var(v)
    }
}

/// A branch whose first `own` inputs are values its rules close over, given unused inputs of
/// the types `before` and `after` around those, so that every branch takes the same operands.
fn with_unused_inputs(branch: &Jaxpr, before: &[jaxlite::Aval], own: usize, after: &[jaxlite::Aval]) -> Jaxpr {
    let mut types = branch.types.clone();
    let mut next = types.keys().map(|v| v.0 + 1).max().unwrap_or(0);
    let mut fresh = |aval: &jaxlite::Aval| {
        let v = jaxlite::Var(next);
        next += 1;
        types.insert(v, aval.clone());
        v
    };
    let mut invars: Vec<jaxlite::Var> = before.iter().map(&mut fresh).collect();
    invars.extend(&branch.invars[..own]);
    invars.extend(after.iter().map(&mut fresh));
    invars.extend(&branch.invars[own..]);
    Jaxpr { invars, types, ..branch.clone() }
}

/// Whether a Jaxpr holds a pending rule, in its bodies too.
fn holds_pending(jaxpr: &Jaxpr) -> bool {
    use jaxlite::Primitive;
    jaxpr.eqns.iter().any(|e| match &e.prim {
        Primitive::CustomJvpCall { function } => matches!(function.rule, JvpRule::Pending(_)),
        Primitive::CustomVjpCall { function } => matches!(function.passes, VjpPasses::Pending(_)),
        other => other.sub_jaxprs().iter().any(|j| holds_pending(j)),
    })
}
