//! `jax.debug.print`: outside a trace it prints at once; under `jit` it prints when the program
//! runs, every time it runs, with the values it computed, as JAX's does.
//!
//! A print met while tracing a jitted function is collected in the scope of that trace. When
//! the trace ends, the values the print names become extra outputs of the program, after the
//! function's own, and the print keeps only its format and the shape of its arguments (a
//! `PrintSlot`). Running the program then hands those outputs back to the slots, which format
//! and print them. A jitted function called inside another trace is traced the same way and its
//! prints are emitted again, with the enclosing trace's values, into the enclosing scope.
//!
//! `grad` and `jvp` print the forward pass's values, `vmap` prints once per example (as JAX
//! does); inside the other transformations (`jacfwd`, `jacrev`, `vjp`, the custom derivatives)
//! a print is refused with a message saying so. A print in a branch of a staged `lax.cond` or
//! `switch` is an extra output of the `cond` (zeros from the other branches) and carries the
//! condition under which its branch is the one taken (`when`), and prints only then.

use super::jax::Tree;
use super::value::Value;
use super::{err, Interp, R};
use jaxlite::numpy as jnp;
use jaxlite::{BinaryOp, Tensor};

/// A `jax.debug.print` met while tracing: its format and the arguments it will print.
pub(super) struct DebugPrint {
    format: String,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    /// A boolean scalar: print only where it is true (a branch of a traced `cond`).
    when: Option<Tensor>,
}

/// What a trace does with the `jax.debug.print`s met in it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Prints {
    /// A transformation with no place for them: an error.
    Refused,
    /// Outputs of the trace, each printed where the branches around it are taken.
    Run,
    /// Outputs, printed whichever branch is taken: under `vmap` a `cond` on a mapped value
    /// becomes a select, and JAX runs both branches' prints.
    RunEveryBranch,
}

/// The prints of one trace in progress.
pub(super) struct PrintScope {
    depth: usize,
    prints: Vec<DebugPrint>,
    /// Whether a print here carries the conditions of the branches around it.
    guarded: bool,
}

/// A print as a compiled program keeps it: the format, and the structure of its arguments,
/// whose leaves are outputs of the program.
pub(super) struct PrintSlot {
    format: String,
    keywords: Vec<String>,
    /// Whether the first leaf is the print's `when`.
    guarded: bool,
    /// A tuple of the positional arguments then the keyword arguments' values.
    tree: Tree,
}

impl PrintSlot {
    /// How many of the program's outputs this print takes.
    pub(super) fn num_leaves(&self) -> usize {
        usize::from(self.guarded) + self.tree.num_leaves()
    }
}

impl Interp<'_, '_> {
    /// `jax.debug.print(fmt, *args, **kwargs)`.
    pub(super) async fn debug_print(&mut self, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> R<Value> {
        // JAX's own options, which change nothing here (one device; prints run in order).
        for option in ["ordered", "partitioned"] {
            super::builtins::take_kwarg(&mut kwargs, option);
        }
        let mut args = args.into_iter();
        let format = match args.next() {
            Some(Value::Str(s)) => s.to_string(),
            Some(other) => {
                return err(format!("jax.debug.print expects a format string first, got {}", other.type_name()))
            }
            None => return err("jax.debug.print() missing 1 required positional argument: 'fmt'"),
        };
        self.emit(DebugPrint { format, args: args.collect(), kwargs, when: None }).await
    }

    /// Prints now if every value is known, else keeps the print for the trace in progress.
    async fn emit(&mut self, print: DebugPrint) -> R<Value> {
        if !self.ctx.is_tracing() {
            return self.run_print(print).await;
        }
        let depth = self.ctx.trace_depth();
        if self.print_scopes.last().is_none_or(|scope| scope.depth != depth) {
            return super::unsupported(
                "jax.debug.print inside jacfwd, jacrev, vjp, a custom derivative or a lax.while_loop is not \
                 supported by the playground yet (it prints outside any transformation and under jit, grad, jvp \
                 and vmap)",
            );
        }
        if let Some(scope) = self.print_scopes.last_mut() {
            scope.prints.push(print);
        }
        Ok(Value::None)
    }

    /// Whether a print met now carries the condition of the branch it is in (false under
    /// `vmap`, where JAX turns a `cond` into a select that runs every branch's prints).
    pub(super) fn prints_follow_branches(&self) -> bool {
        let depth = self.ctx.trace_depth();
        self.print_scopes.last().is_some_and(|scope| scope.depth == depth && scope.guarded)
    }

    /// Opens the scope collecting the prints of the trace just begun.
    pub(super) fn begin_print_scope(&mut self, prints: Prints) {
        let scope = PrintScope { depth: self.ctx.trace_depth(), prints: Vec::new(), guarded: prints == Prints::Run };
        self.print_scopes.push(scope);
    }

    /// Closes the innermost print scope: its prints become `outs` (appended) and slots.
    pub(super) async fn end_print_scope(&mut self, outs: &mut Vec<Tensor>) -> R<Vec<PrintSlot>> {
        let prints = self.print_scopes.pop().map(|scope| scope.prints).unwrap_or_default();
        let mut slots = Vec::with_capacity(prints.len());
        for p in prints {
            let (keywords, values): (Vec<String>, Vec<Value>) = p.kwargs.into_iter().unzip();
            let guarded = p.when.is_some();
            outs.extend(p.when);
            let mut all = p.args;
            all.extend(values);
            let tree = self.flatten(&Value::tuple(all), outs).await?;
            slots.push(PrintSlot { format: p.format, keywords, guarded, tree });
        }
        Ok(slots)
    }

    /// Drops the innermost print scope (a trace that failed, or one that only shows a Jaxpr).
    pub(super) fn drop_print_scope(&mut self) {
        self.print_scopes.pop();
    }

    /// The prints of `slots` with their arguments rebuilt from `leaves` (the program's extra
    /// outputs): printed now when the values are concrete, else emitted into the enclosing
    /// trace's scope.
    pub(super) async fn replay_prints(&mut self, slots: &[PrintSlot], leaves: Vec<Tensor>) -> R<()> {
        self.replay_prints_when(slots, leaves, None).await
    }

    /// `replay_prints`, each print made only where `taken` (a boolean scalar: the branch of a
    /// `cond` the prints were in is the one taken) also holds.
    pub(super) async fn replay_prints_when(
        &mut self,
        slots: &[PrintSlot],
        leaves: Vec<Tensor>,
        taken: Option<Tensor>,
    ) -> R<()> {
        let mut leaves = leaves.into_iter();
        for slot in slots {
            let own = if slot.guarded { leaves.next() } else { None };
            let when = match (own, &taken) {
                (Some(own), Some(taken)) => Some(jnp::binary(self.ctx, BinaryOp::And, &own, taken).await?),
                (own, taken) => own.or_else(|| taken.clone()),
            };
            let Value::Tuple(all) = self.unflatten_tree(&slot.tree, &mut (&mut leaves).map(Value::of_tensor)).await?
            else {
                return err("jax.debug.print: its arguments lost their structure");
            };
            let mut args = all.to_vec();
            let values = args.split_off(args.len() - slot.keywords.len());
            let kwargs = slot.keywords.iter().cloned().zip(values).collect();
            self.emit(DebugPrint { format: slot.format.clone(), args, kwargs, when }).await?;
        }
        Ok(())
    }

    /// Formats with Python's `str.format` and prints, every leaf an array (a Python number
    /// too), as JAX passes them.
    async fn run_print(&mut self, p: DebugPrint) -> R<Value> {
        if let Some(when) = &p.when {
            if !self.truthy(&Value::Array(when.clone()))? {
                return Ok(Value::None);
            }
        }
        let mut args = Vec::with_capacity(p.args.len());
        for v in &p.args {
            args.push(self.as_arrays(v).await?);
        }
        let mut kwargs = Vec::with_capacity(p.kwargs.len());
        for (k, v) in &p.kwargs {
            kwargs.push((k.clone(), self.as_arrays(v).await?));
        }
        let format = Value::str(&p.format);
        let text = self.call_method(&format, "format", args, kwargs).await?;
        self.call_builtin("print", vec![text], vec![]).await
    }

    /// A tree with its Python numbers as arrays, as `jax.debug.print` passes its arguments.
    async fn as_arrays(&mut self, v: &Value) -> R<Value> {
        let mut leaves = Vec::new();
        let tree = self.flatten(v, &mut leaves).await?;
        self.unflatten_tensors(&tree, leaves).await
    }
}
