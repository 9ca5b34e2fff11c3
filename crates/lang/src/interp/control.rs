//! `lax.while_loop` staged as JAX stages it: the condition and the body traced once each, on
//! the carry's types, into one `while` equation (`jaxlite::prim::WhileLoop`), which runs
//! wherever a Jaxpr runs: op by op outside `jit`, inside a program under it, transformed by
//! `grad` (forward mode only, as in JAX), `vmap` (a predicate per example) and `jvp`.

use super::jax::Tree;
use super::transforms::Arg;
use super::value::Value;
use super::{err, type_err, Interp, R};
use jaxlite::prim::WhileLoop;
use jaxlite::{Aval, Primitive};
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
        let mut body = None;
        // A weakly typed carry that the body gives back as another dtype (an int counter that
        // becomes a float) is converted and the body traced again, as JAX promotes it.
        for _ in 0..2 {
            let avals: Vec<Aval> = leaves.iter().map(|t| t.aval().clone()).collect();
            let traced = self.trace_call(&body_fun, avals.clone(), vec![Arg::Traced(&tree)], &[]).await?;
            if traced.out_tree.describe() != tree.describe() {
                return carry_structure_error(&body_fun, &tree, &traced.out_tree);
            }
            let outs: Vec<Aval> = traced.jaxpr.outvars.iter().map(|a| traced.jaxpr.atom_aval(a).clone()).collect();
            let widens = |a: &Aval, o: &Aval| {
                a.weak_type
                    && a.shape == o.shape
                    && a.dtype != o.dtype
                    && jaxlite::dtype::promote(a.dtype, true, o.dtype, o.weak_type).0 == o.dtype
            };
            let promote: Vec<usize> = (0..outs.len()).filter(|&i| widens(&avals[i], &outs[i])).collect();
            if promote.is_empty() || body.is_some() {
                body = Some((traced, avals, outs));
                break;
            }
            for i in promote {
                leaves[i] = jaxlite::numpy::astype(self.ctx, &leaves[i], outs[i].dtype).await?;
            }
            body = Some((traced, avals, outs));
        }
        let Some((body, avals, outs)) = body else {
            return err("internal error: while_loop traced no body");
        };
        if let Some(i) = (0..outs.len()).find(|&i| avals[i].shape != outs[i].shape || avals[i].dtype != outs[i].dtype) {
            let paths = self.leaf_paths(&init).await?;
            let param = first_parameter(&body_fun);
            let what = if paths[i].is_empty() {
                format!("carry {param}")
            } else {
                format!("carry component {param}{}", paths[i])
            };
            let differ = if avals[i].shape != outs[i].shape { "shapes" } else { "dtypes" };
            return type_err(format!(
                "while_loop body function carry input and carry output must have equal types, but they differ:\n\n\
                 The input {what} has type {} but the corresponding output carry component has type {}, so the {differ} \
                 do not match.\n\nRevise the function so that all output types match the corresponding input types.",
                carry_type(&avals[i]),
                carry_type(&outs[i])
            ));
        }
        let cond = self.trace_call(&cond_fun, avals, vec![Arg::Traced(&tree)], &[]).await?;
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
        let outs = self.ctx.bind(Primitive::While { function: Rc::new(function) }, &operands).await?;
        self.unflatten_tensors(&tree, outs).await
    }
}

/// JAX's error for a body that gives back a carry of another structure: where the two first
/// differ, and how.
fn carry_structure_error(body_fun: &Value, ours: &Tree, theirs: &Tree) -> R<Value> {
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
            format!("The input {what} {difference}.")
        },
    );
    type_err(format!(
        "while_loop body function carry input and carry output must have the same pytree structure, but they differ:\n\n\
         {why}\n\nRevise the function so that the carry output has the same pytree structure as the carry input."
    ))
}

/// The Python type of a pytree node, as JAX's messages write it.
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

/// Where `ours` and `theirs` first differ (a key path) and how, in JAX's words.
fn first_difference<'t>(ours: &'t Tree, theirs: &'t Tree, path: String) -> Option<(String, String)> {
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
        let difference = format!(
            "is a {} but the corresponding component of the carry output is a {}, so their Python types differ",
            node_type(ours),
            node_type(theirs)
        );
        return Some((path, difference));
    }
    let (Some(a), Some(b)) = (children(ours), children(theirs)) else { return None };
    if let (Tree::Dict(x), Tree::Dict(y)) = (ours, theirs) {
        let keys = |items: &[(Value, Tree)]| {
            let keys: Vec<String> = items.iter().map(|(k, _)| super::value::repr(k)).collect();
            format!("({})", keys.join(", "))
        };
        if keys(x) != keys(y) {
            let difference = format!(
                "is a <class 'dict'> with pytree metadata {} but the corresponding component of the carry output is a \
                 <class 'dict'> with pytree metadata {}, so the pytree node metadata does not match",
                keys(x),
                keys(y)
            );
            return Some((path, difference));
        }
    }
    if a.len() != b.len() {
        let kind = match ours {
            Tree::List(_) => "list",
            Tree::Tuple(_) => "tuple",
            _ => "node",
        };
        let difference = format!(
            "is a {kind} of length {} but the corresponding component of the carry output is a {kind} of length {}, so the \
             lengths do not match",
            a.len(),
            b.len()
        );
        return Some((path, difference));
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
