//! `jax.custom_jvp` and `jax.custom_vjp`: a function with derivative rules of its own.
//!
//! Called inside a trace, the function is traced and staged as one `custom_jvp_call` or
//! `custom_vjp_call` equation, with its rule (or its `fwd` and `bwd` passes) traced beside it,
//! which differentiation uses instead of the function. JAX traces rules only when something
//! differentiates; here they are traced at the call, except where that would recurse: inside a
//! function's own rule its calls are staged with the rule pending (`jaxlite::prim::Pending`),
//! and `Interp::trace_pending_rules` traces those just before a transformation differentiates
//! the Jaxpr that holds them. So a rule that calls its function (`return f(x), ...`, a Bessel
//! function's rule calling it at the neighbouring orders, a fixed point whose `bwd` solves
//! another fixed point) uses its rules at every order of derivative, as in JAX.

use super::jax::Tree;
use super::tracer_errors::TracedFor;
use super::transforms::{resolve_keywords, Arg, TraceOf, Traced};
use super::value::{aval_text, Native, Value};
use super::{err, type_err, unsupported, value_err, Interp, R};
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

/// A traced JVP rule with the values it closes over.
struct TracedRule {
    jaxpr: Jaxpr,
    closed: Vec<Tensor>,
}

/// A custom VJP's traced passes with the values they close over, fwd's first.
struct TracedPasses {
    fwd: Jaxpr,
    fwd_consts: usize,
    bwd: Jaxpr,
    bwd_consts: usize,
    closed: Vec<Tensor>,
}

/// What tells one custom function from another while its rules are traced.
fn rule_address(native: &Rc<Native>) -> usize {
    Rc::as_ptr(native) as usize
}

impl Interp<'_, '_> {
    /// Calls a `jax.custom_jvp` function. Outside any trace it is just the function. Inside
    /// one, the function and its rule are traced on the arguments' types and recorded as one
    /// `custom_jvp_call`, which differentiation replaces by the rule. Inside the
    /// function's own rule, the rule is left pending (see the module's comment).
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
            let call = self.trace_custom_function(&c.func, &split, &c.nondiff).await?;
            let (rule, rule_closed) = if self.tracing_rules.contains(&rule_address(native)) {
                let source =
                    PendingSource { function: native.clone(), split: split.clone(), out_tree: call.out_tree.clone() };
                (JvpRule::Pending(Pending::Source(Rc::new(source))), vec![])
            } else {
                let traced = self.trace_jvp_rule(native, &split, &call.jaxpr, &call.out_tree).await?;
                (JvpRule::Traced { jaxpr: traced.jaxpr, consts: traced.closed.len() }, traced.closed)
            };
            let function = Rc::new(jaxlite::prim::CustomJvp {
                name,
                rule_name,
                call_consts: call.closed.len(),
                call: call.jaxpr,
                rule,
            });
            let mut operands = call.closed;
            operands.extend(rule_closed);
            operands.extend(split.leaves);
            let outs = self.bind_equation(jaxlite::Primitive::CustomJvpCall { function }, &operands).await?;
            self.unflatten_tensors(&call.out_tree, outs).await
        })
    }

    /// Traces a custom derivative's function (or its `fwd` pass) on `split`, with the
    /// arguments' values where they have them (under `grad` outside `jit`), so Python control flow on them works, as JAX
    /// runs the function on its JVP tracers.
    fn trace_custom_function<'a>(
        &'a mut self,
        func: &'a Value,
        split: &'a SplitArgs,
        nondiff: &'a [usize],
    ) -> LocalFuture<'a, R<Traced>> {
        self.trace_call_with(
            func,
            TracedFor::Differentiation,
            TraceOf::Values(&split.leaves),
            split.in_place(nondiff),
            &[],
        )
    }

    /// Traces a custom JVP function's rule on the types of `split`'s arguments, with JAX's
    /// checks of what it returns. While it is traced, the function's own calls leave their
    /// rules pending.
    fn trace_jvp_rule<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        split: &'a SplitArgs,
        call: &'a Jaxpr,
        out_tree: &'a Tree,
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
            self.tracing_rules.push(rule_address(native));
            // The primals with their values where they have them, the tangents by type.
            let values: Vec<Option<Tensor>> =
                split.leaves.iter().cloned().map(Some).chain(split.leaves.iter().map(|_| None)).collect();
            let of = TraceOf::Partly([avals.clone(), avals].concat(), values);
            let jvp = self.trace_call_with(&rule, TracedFor::Differentiation, of, rule_args, &[]).await;
            self.tracing_rules.pop();
            let jvp = jvp?;
            check_rule_outputs(&name, &rule_name, call, out_tree, &jvp)?;
            Ok(TracedRule { jaxpr: jvp.jaxpr, closed: jvp.closed })
        })
    }

    /// Calls a `jax.custom_vjp` function: outside any trace the function itself; inside one,
    /// the function, `fwd` and `bwd` traced on the arguments' types and recorded as one
    /// `custom_vjp_call`, which reverse mode differentiates with `bwd`. Inside the function's
    /// own passes (`fwd` usually calls it), the passes are left pending.
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
            let call = self.trace_custom_function(&c.func, &split, &c.nondiff).await?;
            let (passes, passes_closed) = if self.tracing_rules.contains(&rule_address(native)) {
                let source =
                    PendingSource { function: native.clone(), split: split.clone(), out_tree: call.out_tree.clone() };
                (VjpPasses::Pending(Pending::Source(Rc::new(source))), vec![])
            } else {
                let t = self.trace_vjp_passes(native, &split, &call.jaxpr, &call.out_tree).await?;
                let passes =
                    VjpPasses::Traced { fwd: t.fwd, fwd_consts: t.fwd_consts, bwd: t.bwd, bwd_consts: t.bwd_consts };
                (passes, t.closed)
            };
            let function = Rc::new(jaxlite::prim::CustomVjp {
                name,
                fwd_name,
                bwd_name,
                call_consts: call.closed.len(),
                call: call.jaxpr,
                passes,
            });
            let mut operands = call.closed;
            operands.extend(passes_closed);
            operands.extend(split.leaves);
            let outs = self.bind_equation(jaxlite::Primitive::CustomVjpCall { function }, &operands).await?;
            self.unflatten_tensors(&call.out_tree, outs).await
        })
    }

    /// Traces a custom VJP function's two passes (see `trace_passes`). While they are traced,
    /// the function's own calls leave their passes pending.
    fn trace_vjp_passes<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        split: &'a SplitArgs,
        call: &'a Jaxpr,
        out_tree: &'a Tree,
    ) -> LocalFuture<'a, R<TracedPasses>> {
        Box::pin(async move {
            let Native::CustomVjp(c) = &**native else { return err("internal error: not a custom_vjp function") };
            let Some((fwd, bwd)) = c.passes.borrow().clone() else {
                return err("internal error: a custom_vjp function without its passes");
            };
            self.tracing_rules.push(rule_address(native));
            let passes = self.trace_passes([&c.func, &fwd, &bwd], split, &c.nondiff, call, out_tree).await;
            self.tracing_rules.pop();
            let (fwd, bwd) = passes?;
            let (fwd_consts, bwd_consts) = (fwd.closed.len(), bwd.closed.len());
            let mut closed = fwd.closed;
            closed.extend(bwd.closed);
            Ok(TracedPasses { fwd: fwd.jaxpr, fwd_consts, bwd: bwd.jaxpr, bwd_consts, closed })
        })
    }

    /// Traces a custom VJP's `fwd` (arguments to the outputs, shaped as the function's, and
    /// the residuals) and `bwd` (the residuals and the outputs' cotangents to one cotangent per
    /// argument, `None` for zeros), with JAX's checks of what each returns.
    fn trace_passes<'a>(
        &'a mut self,
        [name, fwd, bwd]: [&'a Value; 3],
        split: &'a SplitArgs,
        nondiff: &'a [usize],
        call: &'a Jaxpr,
        out_tree: &'a Tree,
    ) -> LocalFuture<'a, R<(Traced, Traced)>> {
        Box::pin(async move {
            let (name, fwd_name) = (super::jax::function_name(name), super::jax::function_name(fwd));
            let traced = self.trace_custom_function(fwd, split, nondiff).await?;
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
            let primals = primal_tree.num_leaves();
            let call_avals: Vec<jaxlite::Aval> = call.outvars.iter().map(|a| call.atom_aval(a).clone()).collect();
            let (primal_avals, residual_avals) = fwd_avals.split_at(primals);
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
            let mut avals = residual_avals.to_vec();
            avals.extend(call_avals);
            let fwd = Traced { out_tree: Tree::Leaf, python_numbers: vec![], ..traced };

            let mut tracers = self.ctx.begin_trace(&avals);
            let cotangents = tracers.split_off(residual_avals.len());
            let residuals = self.unflatten_tensors(&residual_tree, tracers).await?;
            let cotangents = self.unflatten_tensors(out_tree, cotangents).await?;
            let mut bwd_args = split.fixed.clone();
            bwd_args.extend([residuals, cotangents]);
            let mut trees: Vec<Option<Tree>> = split.fixed.iter().map(|_| None).collect();
            trees.extend([Some(residual_tree.clone()), Some(out_tree.clone())]);
            let site = self.trace_site(bwd, TracedFor::Differentiation, trees, &[]);
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
                Ok((jaxpr, closed)) => Ok((
                    fwd,
                    Traced { jaxpr, closed, out_tree: Tree::Leaf, python_numbers: vec![], refs: Default::default() },
                )),
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

/// The checks JAX makes of a custom JVP rule's result: a (primal, tangent) pair, both shaped
/// like the function's result, with tangents of the primals' types.
fn check_rule_outputs(name: &str, rule_name: &str, call: &Jaxpr, out_tree: &Tree, jvp: &Traced) -> R<()> {
    let want = out_tree.describe();
    let pair = match &jvp.out_tree {
        Tree::Tuple(items) | Tree::List(items) if items.len() == 2 => items.iter().all(|t| t.describe() == want),
        _ => false,
    };
    if !pair {
        return err(format!(
            "Custom JVP rule {rule_name} for function {name} must produce a pair (list or tuple of length two) \
             of primal and tangent outputs shaped like the function's output {want}, but got {}",
            jvp.out_tree.describe()
        ));
    }
    let outs: Vec<&jaxlite::Aval> = call.outvars.iter().map(|a| call.atom_aval(a)).collect();
    let rule_outs: Vec<&jaxlite::Aval> = jvp.jaxpr.outvars.iter().map(|a| jvp.jaxpr.atom_aval(a)).collect();
    let (primals, tangents) = rule_outs.split_at(outs.len());
    for ((out, primal), tangent) in outs.iter().zip(primals).zip(tangents) {
        if !out.same_type(primal) {
            return err(format!(
                "Custom JVP rule {rule_name} for function {name} must produce primal outputs with the same \
                 shapes and dtypes as the function: expected {} but got {}",
                aval_text(out),
                aval_text(primal)
            ));
        }
        if !out.same_type(tangent) {
            return err(format!(
                "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes. \
                 Expected {} (tangent type of {}) but got {}.",
                aval_text(out),
                aval_text(out),
                aval_text(tangent)
            ));
        }
    }
    Ok(())
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
        let mut next_var = jaxpr.types.keys().map(|v| v.0).max().map_or(0, |m| m + 1);
        let mut types = jaxpr.types.clone();
        let (mut new_vars, mut closed) = (Vec::new(), Vec::new());
        let mut jvps: Vec<(*const CustomJvp, Resolved<CustomJvp>)> = Vec::new();
        let mut vjps: Vec<(*const CustomVjp, Resolved<CustomVjp>)> = Vec::new();
        let mut eqns = Vec::with_capacity(jaxpr.eqns.len());
        for eqn in &jaxpr.eqns {
            let differentiated = eqn.inputs.iter().any(|a| matches!(a, Atom::Var(v) if reached.contains(v)));
            if differentiated {
                reached.extend(eqn.outputs.iter().copied());
            }
            if differentiated && !pending(&eqn.prim) && eqn.prim.sub_jaxprs().iter().any(|j| holds_pending(j)) {
                let prim = self.trace_pending_in_bodies(&eqn.prim).await?;
                eqns.push(jaxlite::Eqn {
                    prim,
                    inputs: eqn.inputs.clone(),
                    outputs: eqn.outputs.clone(),
                    source: eqn.source.clone(),
                });
                continue;
            }
            if !differentiated || !pending(&eqn.prim) {
                eqns.push(eqn.clone());
                continue;
            }
            // The values the rule closes over become new inputs, shared by the equations
            // that call one function (a Jaxpr inlined twice calls it twice).
            let mut new_consts = |values: Vec<Tensor>, types: &mut std::collections::HashMap<Var, jaxlite::Aval>| {
                let mut atoms = Vec::new();
                for t in values {
                    let v = Var(next_var);
                    next_var += 1;
                    types.insert(v, t.aval().clone());
                    new_vars.push(v);
                    closed.push(t);
                    atoms.push(Atom::Var(v));
                }
                atoms
            };
            let (prim, call_consts, consts) = match &eqn.prim {
                Primitive::CustomJvpCall { function } => {
                    let key = Rc::as_ptr(function);
                    if !jvps.iter().any(|(k, _)| *k == key) {
                        let (resolved, values) = self.trace_pending_jvp(function).await?;
                        let consts = new_consts(values, &mut types);
                        jvps.push((key, Resolved { function: Rc::new(resolved), consts }));
                    }
                    let r = &jvps.iter().find(|(k, _)| *k == key).expect("resolved above").1;
                    (Primitive::CustomJvpCall { function: r.function.clone() }, function.call_consts, r.consts.clone())
                }
                Primitive::CustomVjpCall { function } => {
                    let key = Rc::as_ptr(function);
                    if !vjps.iter().any(|(k, _)| *k == key) {
                        let (resolved, values) = self.trace_pending_vjp(function).await?;
                        let consts = new_consts(values, &mut types);
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
        new_vars.extend(jaxpr.constvars.iter().copied());
        let filled =
            Jaxpr { constvars: new_vars, invars: jaxpr.invars.clone(), eqns, outvars: jaxpr.outvars.clone(), types };
        Ok(Some((filled, closed)))
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

    /// A loop or branch with the pending rules in its bodies traced (all of them: which ones a
    /// derivative reaches is the transformation's business there). A body takes its operands
    /// from the equation, so a rule traced there may close over nothing but constants written
    /// into it; one that closes over arrays is "not supported yet".
    fn trace_pending_in_bodies<'a>(
        &'a mut self,
        prim: &'a jaxlite::Primitive,
    ) -> LocalFuture<'a, R<jaxlite::Primitive>> {
        use jaxlite::prim::{Branches, ScanLoop, WhileLoop};
        use jaxlite::Primitive;
        Box::pin(async move {
            Ok(match prim {
                Primitive::While { function: w } => Primitive::While {
                    function: Rc::new(WhileLoop {
                        cond: self.trace_pending_in_body(&w.cond).await?,
                        cond_consts: w.cond_consts,
                        body: self.trace_pending_in_body(&w.body).await?,
                        body_consts: w.body_consts,
                    }),
                },
                Primitive::Scan { function: s } => Primitive::Scan {
                    function: Rc::new(ScanLoop { body: self.trace_pending_in_body(&s.body).await?, ..(**s).clone() }),
                },
                Primitive::Cond { function: c } => {
                    let mut branches = Vec::with_capacity(c.branches.len());
                    for b in &c.branches {
                        branches.push(self.trace_pending_in_body(b).await?);
                    }
                    Primitive::Cond { function: Rc::new(Branches { branches }) }
                }
                Primitive::Jit { function: j } => Primitive::Jit {
                    function: Rc::new(jaxlite::prim::JitFunction {
                        name: j.name.clone(),
                        body: self.trace_pending_in_body(&j.body).await?,
                        consts: j.consts,
                    }),
                },
                other => other.clone(),
            })
        })
    }

    /// `trace_pending_rules` inside a loop or branch body (see `trace_pending_in_bodies`).
    fn trace_pending_in_body<'a>(&'a mut self, body: &'a Jaxpr) -> LocalFuture<'a, R<Jaxpr>> {
        Box::pin(async move {
            let everything = vec![true; body.all_inputs().count()];
            match self.trace_pending_rules(body, &everything).await? {
                None => Ok(body.clone()),
                Some((filled, closed)) if closed.is_empty() => Ok(filled),
                Some(_) => unsupported(
                    "differentiating a custom_jvp or custom_vjp function inside a loop or branch body, where its rule \
                     calls the function itself and closes over arrays, is not supported by the playground yet",
                ),
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
                    let traced =
                        self.trace_jvp_rule(&source.function, &source.split, &f.call, &source.out_tree).await?;
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
                    let t = self.trace_vjp_passes(&source.function, &source.split, &f.call, &source.out_tree).await?;
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
                VjpPasses::Traced { .. } => err("internal error: tracing passes traced already"),
            }
        })
    }
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
