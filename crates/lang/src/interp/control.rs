//! `lax.while_loop`, `lax.scan`, `lax.cond` and `lax.switch` staged as JAX stages them: the
//! condition and the body traced once each, on the carry's types (and a scan's rows of `xs`),
//! into one `while` equation (`jaxlite::prim::WhileLoop`) or one `scan` equation
//! (`jaxlite::prim::ScanLoop`), and every branch traced once on the operands' types into one
//! `cond` equation (`jaxlite::prim::Branches`). They run wherever a Jaxpr runs: op by op
//! outside `jit`, inside a program under it, transformed by `grad` (a `while` in forward mode
//! only, as in JAX), `vmap` and `jvp`.

use super::jax::Tree;
use super::tracer_errors::TracedFor;
use super::transforms::{Arg, TraceOf, Traced};
use super::value::Value;
use super::{err, type_err, value_err, Interp, R};
use jaxlite::numpy as jnp;
use jaxlite::prim::{Branches, ScanLoop, WhileLoop};
use jaxlite::transform::Builder;
use jaxlite::{Aval, DType, Primitive, Tensor};
use std::rc::Rc;

/// `ShapedArray(float32[], weak_type=True)`, as JAX's messages name a type.
fn shaped_array(aval: &Aval) -> String {
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    let weak = if aval.weak_type { ", weak_type=True" } else { "" };
    format!("ShapedArray({}[{}]{weak})", aval.dtype.name(), dims.join(","))
}

/// `float32[2]`, as JAX's carry messages write a type.
fn carry_type(aval: &Aval) -> String {
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", aval.dtype.name(), dims.join(","))
}

impl Interp<'_, '_> {
    /// `lax.while_loop(cond_fun, body_fun, init_val)`.
    pub(super) async fn while_loop(&mut self, cond_fun: Value, body_fun: Value, init: Value) -> R<Value> {
        // As JAX, the carry's numbers become arrays (weakly typed) before anything is traced.
        let init = self.carry_arrays(&init).await?;
        let mut leaves = Vec::new();
        let tree = self.flatten(&init, &mut leaves).await?;
        let body = self.trace_loop_body("while_loop", &body_fun, &init, &mut leaves, &tree, None).await?;
        let avals: Vec<Aval> = leaves.iter().map(|t| t.aval().clone()).collect();
        let cond = self
            .trace_call_with(
                &cond_fun,
                TracedFor::Named("while_cond"),
                TraceOf::Types(avals),
                vec![Arg::Traced(&tree)],
                &[],
            )
            .await?;
        let predicate: Vec<Aval> = cond.jaxpr.outvars.iter().map(|a| cond.jaxpr.atom_aval(a).clone()).collect();
        if !matches!(&predicate[..], [p] if p.dtype == jaxlite::DType::Bool && p.shape.is_empty()) {
            let types: Vec<String> = predicate.iter().map(shaped_array).collect();
            return type_err(format!(
                "cond_fun must return a boolean scalar, but got output type(s) [{}].",
                types.join(", ")
            ));
        }
        let function = WhileLoop {
            cond_consts: cond.closed.len(),
            cond: cond.jaxpr,
            body_consts: body.closed.len(),
            body: body.jaxpr,
        };
        let mut operands = cond.closed;
        operands.extend(body.closed);
        operands.extend(leaves);
        let outs = self.bind_equation(Primitive::While { function: Rc::new(function) }, &operands).await?;
        self.unflatten_tensors(&tree, outs).await
    }

    /// `lax.scan(f, init, xs, length, reverse, unroll)` (and `lax.map`, a body of `x` alone):
    /// the body traced once, on the carry's types and one row of each leaf of `xs`; returns
    /// `(carry, ys)`.
    pub(super) async fn scan(
        &mut self,
        body: ScanBody,
        init: Value,
        xs: Option<Value>,
        options: ScanOptions,
    ) -> R<Value> {
        let mut x_leaves = Vec::new();
        let x_tree = match &xs {
            None | Some(Value::None) => None,
            Some(v) => Some(self.flatten(v, &mut x_leaves).await?),
        };
        if let Some(x) = x_leaves.iter().find(|x| x.aval().rank() == 0) {
            return value_err(format!(
                "scan got a value with no leading axis to scan over: {}",
                super::value::aval_text(x.aval())
            ));
        }
        let leading: Vec<usize> = x_leaves.iter().map(|x| x.aval().shape[0]).collect();
        if leading.iter().any(|&n| n != leading[0]) {
            let sizes: Vec<String> = leading.iter().map(|n| n.to_string()).collect();
            return value_err(format!("scan got values with different leading axis sizes: {}.", sizes.join(", ")));
        }
        let length = match (options.length, leading.first()) {
            (Some(Value::Int(n)), first) if n >= 0 => {
                if first.is_some_and(|&m| m as i64 != n) {
                    return value_err(format!(
                        "scan got `length` argument of {n} which disagrees with leading axis sizes {leading:?}."
                    ));
                }
                n as usize
            }
            (Some(Value::None) | None, Some(&n)) => n,
            (Some(Value::None) | None, None) => {
                return value_err("scan got no values to scan over and `length` not provided.")
            }
            (Some(other), _) => {
                return type_err(format!("scan: length must be a non-negative int, got {}", super::value::repr(&other)))
            }
        };
        let unroll = match options.unroll {
            None | Some(Value::None) | Some(Value::Bool(false)) => 1,
            Some(Value::Bool(true)) => length.max(1),
            Some(Value::Int(k)) if k >= 1 => k as usize,
            Some(_) => return value_err("`unroll` must be a `bool` or a positive `int`."),
        };
        let rows: Vec<Aval> = x_leaves
            .iter()
            .map(|x| {
                let mut row = x.aval().clone();
                row.shape.remove(0);
                row
            })
            .collect();
        let (jaxpr, closed, carry_leaves, carry_tree, y_tree) = match body {
            ScanBody::Map(f) => {
                let x_arg = match &x_tree {
                    Some(t) => Arg::Traced(t),
                    None => Arg::Fixed(Value::None),
                };
                let traced =
                    self.trace_call_with(&f, TracedFor::Named("scan"), TraceOf::Types(rows), vec![x_arg], &[]).await?;
                (traced.jaxpr, traced.closed, Vec::new(), Tree::None, traced.out_tree)
            }
            ScanBody::Scan(f) => {
                // As JAX, the carry's numbers become arrays (weakly typed) before anything is traced.
                let init = self.carry_arrays(&init).await?;
                let mut leaves = Vec::new();
                let tree = self.flatten(&init, &mut leaves).await?;
                let traced =
                    self.trace_loop_body("scan", &f, &init, &mut leaves, &tree, Some((x_tree.as_ref(), rows))).await?;
                let Tree::Tuple(mut pair) = traced.out_tree else {
                    return err("internal error: a scan body's output is not a pair");
                };
                let y_tree = pair.pop().unwrap_or(Tree::None);
                (traced.jaxpr, traced.closed, leaves, tree, y_tree)
            }
        };
        let function = ScanLoop {
            consts: closed.len(),
            carries: carry_leaves.len(),
            body: jaxpr,
            length,
            reverse: options.reverse,
            unroll,
        };
        let n_carries = function.carries;
        let mut operands = closed;
        operands.extend(carry_leaves);
        operands.extend(x_leaves);
        let mut outs = self.bind_equation(Primitive::Scan { function: Rc::new(function) }, &operands).await?;
        let ys = outs.split_off(n_carries);
        let carry = self.unflatten_tensors(&carry_tree, outs).await?;
        let ys = self.unflatten_tensors(&y_tree, ys).await?;
        Ok(Value::tuple(vec![carry, ys]))
    }

    /// `lax.cond` or `lax.switch` with its index an int32 scalar (clamped into range already
    /// for `switch`): each branch traced once, on the operands' types, into one `cond`
    /// equation whose index picks the branch that runs, as JAX stages it. The values the
    /// branches close over become operands every branch takes.
    pub(super) async fn branch_on(
        &mut self,
        kind: Conditional,
        index: Tensor,
        branches: &[Value],
        operands: &[Value],
    ) -> R<Value> {
        let mut leaves = Vec::new();
        let mut trees = Vec::with_capacity(operands.len());
        for operand in operands {
            trees.push(self.flatten(operand, &mut leaves).await?);
        }
        let avals: Vec<Aval> = leaves.iter().map(|t| t.aval().clone()).collect();
        let mut traced = Vec::with_capacity(branches.len());
        for f in branches {
            let args = trees.iter().map(Arg::Traced).collect();
            traced.push(
                self.trace_call_with(f, TracedFor::Named(kind.name()), TraceOf::Types(avals.clone()), args, &[])
                    .await?,
            );
        }
        self.check_branch_outputs(kind, branches, &traced).await?;
        // The closed-over values of all branches, each once, and where each branch's are.
        let mut consts: Vec<(Tensor, Aval)> = Vec::new();
        let mut positions: Vec<Vec<usize>> = Vec::with_capacity(traced.len());
        for t in &traced {
            let mut mine = Vec::with_capacity(t.closed.len());
            for (c, &v) in t.closed.iter().zip(&t.jaxpr.invars) {
                let j = consts.iter().position(|(k, _)| k.same(c)).unwrap_or_else(|| {
                    consts.push((c.clone(), t.jaxpr.aval(v).clone()));
                    consts.len() - 1
                });
                mine.push(j);
            }
            positions.push(mine);
        }
        let mut jaxprs = Vec::with_capacity(traced.len());
        for (i, t) in traced.iter().enumerate() {
            let mut b = Builder::new();
            let const_ins: Vec<_> = consts.iter().map(|(_, aval)| b.input(aval.clone())).collect();
            let mut ins: Vec<_> = positions[i].iter().map(|&j| const_ins[j].clone()).collect();
            ins.extend(t.jaxpr.invars[t.closed.len()..].iter().map(|&v| b.input(t.jaxpr.aval(v).clone())));
            let outs = b.inline(&t.jaxpr, &ins)?;
            jaxprs.push(b.finish(outs));
        }
        let mut all = vec![index];
        all.extend(consts.into_iter().map(|(c, _)| c));
        all.extend(leaves);
        let function = Branches { branches: jaxprs };
        let outs = self.bind_equation(Primitive::Cond { function: Rc::new(function) }, &all).await?;
        self.unflatten_tensors(&traced[0].out_tree, outs).await
    }

    /// JAX's errors for branches whose outputs differ in structure or in type.
    async fn check_branch_outputs(&mut self, kind: Conditional, branches: &[Value], traced: &[Traced]) -> R<()> {
        // JAX compares the first branch it is given (a cond's true_fun) with each other one.
        let first = match kind {
            Conditional::Cond => 1,
            Conditional::Switch => 0,
        };
        let name = |i: usize| match kind {
            Conditional::Cond if i == 1 => "true_fun".to_string(),
            Conditional::Cond => "false_fun".to_string(),
            // Sic: JAX writes "branch 0" for the first and "branch1" for the others.
            Conditional::Switch if i == 0 => "branch 0".to_string(),
            Conditional::Switch => format!("branch{i}"),
        };
        let what = kind.name();
        let introduce = |i: usize, j: usize| {
            let at = |k: usize| {
                let line = match &branches[k] {
                    Value::Function(f) => format!(" at line {}", f.def.span.line),
                    _ => String::new(),
                };
                format!("{} is {}{line}", name(k), super::jax::function_name(&branches[k]))
            };
            format!("{}\n{}", at(i), at(j))
        };
        for other in (0..traced.len()).filter(|&k| k != first) {
            let (a, b) = (&traced[first], &traced[other]);
            let (ours, theirs) = (name(first), name(other));
            if a.out_tree.describe() != b.out_tree.describe() {
                let why = first_difference(&a.out_tree, &b.out_tree, String::new()).map_or_else(
                    || format!("{ours} output is {} but {theirs} output is {}.", a.out_tree.describe(), b.out_tree.describe()),
                    |(path, difference)| {
                        let at = if path.is_empty() { String::new() } else { format!(" at path {path}") };
                        match difference {
                            Difference::Types(x, y) => format!(
                                "{ours} output{at} is {} but {theirs} output{at} is {}, so their Python types differ.",
                                python_kind(x),
                                python_kind(y)
                            ),
                            Difference::Lengths(kind, x, y) => format!(
                                "{ours} output{at} is a {kind} of length {x} but {theirs} output{at} is a {kind} of length \
                                 {y}, so the lengths do not match."
                            ),
                            Difference::Metadata(x, y) => format!(
                                "{ours} output{at} is a <class 'dict'> with pytree metadata {x} but {theirs} output{at} is \
                                 a <class 'dict'> with pytree metadata {y}, so the pytree node metadata does not match."
                            ),
                        }
                    },
                );
                return type_err(format!(
                    "{what} branch outputs must have the same pytree structure, but they differ:\n\n{}\n\n{why}\n\n\
                     Revise {ours} and/or {theirs} so that they have the same pytree structure.",
                    introduce(first, other)
                ));
            }
            let outs = |t: &Traced| -> Vec<Aval> {
                let n = t.out_tree.num_leaves();
                t.jaxpr.outvars[..n].iter().map(|v| t.jaxpr.atom_aval(v).clone()).collect()
            };
            let (x, y) = (outs(a), outs(b));
            let differing: Vec<usize> = (0..x.len()).filter(|&k| !x[k].same_type(&y[k])).collect();
            if differing.is_empty() {
                continue;
            }
            let placeholder = Tensor::from(jnp::full(&[], 0.0, DType::F32));
            let probe = self.unflatten_tensors(&a.out_tree, std::iter::repeat(placeholder)).await?;
            let paths = self.leaf_paths(&probe).await?;
            let lines: Vec<String> = differing
                .iter()
                .map(|&k| {
                    let at = if paths[k].is_empty() { String::new() } else { format!(" at path {}", paths[k]) };
                    let mut reasons = Vec::new();
                    if x[k].dtype != y[k].dtype {
                        reasons.push("the dtypes do not match");
                    }
                    if x[k].shape != y[k].shape {
                        reasons.push("the shapes do not match");
                    }
                    format!(
                        "output of {ours}{at} has type {} but the corresponding output of {theirs} has type {}, so {}",
                        carry_type(&x[k]),
                        carry_type(&y[k]),
                        reasons.join(", and ")
                    )
                })
                .collect();
            let listed = if let [one] = &lines[..] {
                format!("The {one}.")
            } else {
                let items: Vec<String> = lines.iter().map(|l| format!("  * the {l}")).collect();
                format!("{}.", items.join(";\n"))
            };
            return type_err(format!(
                "{what} branches must have equal output types but they differ.\n\n{}\n\n{listed}\n\n\
                 Revise {ours} and/or {theirs} so that all output types match.",
                introduce(first, other)
            ));
        }
        Ok(())
    }

    /// Traces a loop's body on the carries `leaves` (and, for a scan, one row of each `xs`),
    /// checking that it gives back carries of the same structure and types. A weakly typed
    /// carry that the body gives back as another dtype (an int counter that becomes a float)
    /// is converted in `leaves` and the body traced again, as JAX promotes it. For a scan the
    /// body returns a pair `(carry, y)`.
    async fn trace_loop_body(
        &mut self,
        what: &str,
        body_fun: &Value,
        init: &Value,
        leaves: &mut [Tensor],
        tree: &Tree,
        scan_rows: Option<(Option<&Tree>, Vec<Aval>)>,
    ) -> R<Traced> {
        let mut retraced = false;
        loop {
            let avals: Vec<Aval> = leaves.iter().map(|t| t.aval().clone()).collect();
            let mut args = vec![Arg::Traced(tree)];
            let mut all_avals = avals.clone();
            if let Some((rows_tree, rows)) = &scan_rows {
                args.push(match rows_tree {
                    Some(t) => Arg::Traced(t),
                    None => Arg::Fixed(Value::None),
                });
                all_avals.extend(rows.iter().cloned());
            }
            let purpose = TracedFor::Named(if scan_rows.is_some() { "scan" } else { "while_body" });
            let traced = self.trace_call_with(body_fun, purpose, TraceOf::Types(all_avals), args, &[]).await?;
            let carry_out = match (&traced.out_tree, scan_rows.is_some()) {
                (Tree::Tuple(pair), true) if pair.len() == 2 => &pair[0],
                (other, true) => {
                    let got = match other {
                        Tree::Leaf => carry_type(traced.jaxpr.atom_aval(&traced.jaxpr.outvars[0])),
                        other => other.describe(),
                    };
                    return type_err(format!("scan body output must be a pair, got {got}."));
                }
                (whole, false) => whole,
            };
            if carry_out.describe() != tree.describe() {
                return carry_structure_error(what, body_fun, tree, carry_out);
            }
            let outs: Vec<Aval> =
                traced.jaxpr.outvars[..leaves.len()].iter().map(|a| traced.jaxpr.atom_aval(a).clone()).collect();
            let widens = |a: &Aval, o: &Aval| {
                a.weak_type
                    && a.shape == o.shape
                    && a.dtype != o.dtype
                    && jaxlite::dtype::promote(a.dtype, true, o.dtype, o.weak_type).0 == o.dtype
            };
            let promote: Vec<usize> = (0..outs.len()).filter(|&i| widens(&avals[i], &outs[i])).collect();
            if promote.is_empty() || retraced {
                self.check_carry_types(what, body_fun, init, &avals, &outs).await?;
                return Ok(traced);
            }
            for i in promote {
                leaves[i] = jaxlite::numpy::astype(self.ctx, &leaves[i], outs[i].dtype).await?;
            }
            retraced = true;
        }
    }

    /// JAX's error for a body whose carry output differs in shape or dtype from its input.
    async fn check_carry_types(
        &mut self,
        what: &str,
        body_fun: &Value,
        init: &Value,
        avals: &[Aval],
        outs: &[Aval],
    ) -> R<()> {
        let Some(i) = (0..outs.len()).find(|&i| avals[i].shape != outs[i].shape || avals[i].dtype != outs[i].dtype)
        else {
            return Ok(());
        };
        let paths = self.leaf_paths(init).await?;
        let param = first_parameter(body_fun);
        let which =
            if paths[i].is_empty() { format!("carry {param}") } else { format!("carry component {param}{}", paths[i]) };
        let differ = if avals[i].shape != outs[i].shape { "shapes" } else { "dtypes" };
        type_err(format!(
            "{what} body function carry input and carry output must have equal types, but they differ:\n\n\
             The input {which} has type {} but the corresponding output carry component has type {}, so the {differ} \
             do not match.\n\nRevise the function so that all output types match the corresponding input types.",
            carry_type(&avals[i]),
            carry_type(&outs[i])
        ))
    }
}

/// What `scan` calls at each step: a scan body `f(carry, x) -> (carry, y)`, or a map body
/// `f(x) -> y` (`lax.map`).
pub(super) enum ScanBody {
    Scan(Value),
    Map(Value),
}

/// `lax.scan`'s arguments beside the body and its operands.
#[derive(Default)]
pub(super) struct ScanOptions {
    pub length: Option<Value>,
    pub reverse: bool,
    pub unroll: Option<Value>,
}

/// JAX's error for a body that gives back a carry of another structure: where the two first
/// differ, and how.
fn carry_structure_error<T>(what: &str, body_fun: &Value, ours: &Tree, theirs: &Tree) -> R<T> {
    let param = first_parameter(body_fun);
    let why = first_difference(ours, theirs, String::new()).map_or_else(
        || {
            format!(
                "The input carry {param} has the structure {} but the carry output has {}.",
                ours.describe(),
                theirs.describe()
            )
        },
        |(path, difference)| {
            let what =
                if path.is_empty() { format!("carry {param}") } else { format!("carry component {param}{path}") };
            let output = "the corresponding component of the carry output";
            let difference = match difference {
                Difference::Types(x, y) => {
                    format!("is a {} but {output} is a {}, so their Python types differ", node_type(x), node_type(y))
                }
                Difference::Lengths(kind, x, y) => format!(
                    "is a {kind} of length {x} but {output} is a {kind} of length {y}, so the lengths do not match"
                ),
                Difference::Metadata(x, y) => format!(
                    "is a <class 'dict'> with pytree metadata {x} but {output} is a <class 'dict'> with pytree metadata \
                     {y}, so the pytree node metadata does not match"
                ),
            };
            format!("The input {what} {difference}.")
        },
    );
    type_err(format!(
        "{what} body function carry input and carry output must have the same pytree structure, but they differ:\n\n\
         {why}\n\nRevise the function so that the carry output has the same pytree structure as the carry input."
    ))
}

/// Which of JAX's two spellings of a branch a `cond` equation came from, for its messages.
#[derive(Clone, Copy)]
pub(super) enum Conditional {
    Cond,
    Switch,
}

impl Conditional {
    /// `cond` or `switch`, as JAX's messages name them.
    fn name(self) -> &'static str {
        match self {
            Conditional::Cond => "cond",
            Conditional::Switch => "switch",
        }
    }
}

/// The Python type of a pytree node, as JAX's carry messages write it.
fn node_type(t: &Tree) -> String {
    match t {
        Tree::Leaf => "<class 'jax._src.core.ShapedArray'>".into(),
        Tree::None => "<class 'NoneType'>".into(),
        Tree::List(_) => "<class 'list'>".into(),
        Tree::Tuple(_) => "<class 'tuple'>".into(),
        Tree::Dict(_) => "<class 'dict'>".into(),
        Tree::Named(class, _) | Tree::Custom(class, ..) => format!("<class '__main__.{}'>", class.name),
    }
}

/// A pytree node as JAX's branch messages name it: "a pytree leaf", "a <class 'tuple'>".
fn python_kind(t: &Tree) -> String {
    match t {
        Tree::Leaf => "a pytree leaf".into(),
        other => format!("a {}", node_type(other)),
    }
}

/// How two pytrees differ where they first do.
enum Difference<'t> {
    /// Nodes of different Python types.
    Types(&'t Tree, &'t Tree),
    /// Sequences of one kind and different lengths.
    Lengths(&'static str, usize, usize),
    /// Dicts with different keys (written as tuples).
    Metadata(String, String),
}

/// Where `ours` and `theirs` first differ (a key path) and how.
fn first_difference<'t>(ours: &'t Tree, theirs: &'t Tree, path: String) -> Option<(String, Difference<'t>)> {
    let children = |t: &'t Tree| -> Option<Vec<(String, &'t Tree)>> {
        Some(match t {
            Tree::List(items) | Tree::Tuple(items) | Tree::Named(_, items) | Tree::Custom(_, _, _, items) => {
                items.iter().enumerate().map(|(i, c)| (format!("[{i}]"), c)).collect()
            }
            Tree::Dict(items) => items.iter().map(|(k, c)| (format!("[{}]", super::value::repr(k)), c)).collect(),
            Tree::Leaf | Tree::None => return None,
        })
    };
    if node_type(ours) != node_type(theirs) {
        return Some((path, Difference::Types(ours, theirs)));
    }
    let (Some(a), Some(b)) = (children(ours), children(theirs)) else { return None };
    if let (Tree::Dict(x), Tree::Dict(y)) = (ours, theirs) {
        let keys = |items: &[(Value, Tree)]| {
            let keys: Vec<String> = items.iter().map(|(k, _)| super::value::repr(k)).collect();
            if keys.len() == 1 {
                format!("({},)", keys[0])
            } else {
                format!("({})", keys.join(", "))
            }
        };
        if keys(x) != keys(y) {
            return Some((path, Difference::Metadata(keys(x), keys(y))));
        }
    }
    if a.len() != b.len() {
        let kind = match ours {
            Tree::List(_) => "list",
            Tree::Tuple(_) => "tuple",
            _ => "node",
        };
        return Some((path, Difference::Lengths(kind, a.len(), b.len())));
    }
    a.iter().zip(&b).find_map(|((step, x), (_, y))| first_difference(x, y, format!("{path}{step}")))
}

/// The name of a script function's first parameter (what JAX calls the carry in its messages).
fn first_parameter(f: &Value) -> String {
    match f {
        Value::Function(func) => func.def.params.first().map_or("init_val".into(), |p| p.name.clone()),
        _ => "init_val".into(),
    }
}
