//! JAX's ahead-of-time API: `jax.jit(f).lower(*args)` traces `f` for its arguments' types
//! (arrays, numbers or `ShapeDtypeStruct`s, so a model's full-size parameters need no values),
//! `.compile()` compiles the program and times it without running it, and the compiled object
//! runs it on arrays of those types. `cost_analysis()` is XLA's counts (`jaxlite::cost`);
//! `memory_analysis()` the sizes of the arguments, results and the rest of what the program
//! keeps in HBM.

use super::exceptions::{attr_err, err, type_err, R};
use super::jax::{CallArgs, Compiled};
use super::value::{Dict, Jitted, Native, Value};
use super::Interp;
use jaxlite::cost::CostAnalysis;
use jaxlite::{AheadOfTime, Aval};
use std::cell::RefCell;
use std::rc::Rc;

/// `jax.jit(f).lower(*args)`: `f` traced for these argument types.
pub struct Lowered {
    /// The `jit` function (a `Native::Jitted`), which runs the program when it is called.
    pub jitted: Value,
    /// Its cache key for these argument types, weak types made strong: a call must have the
    /// same (JAX accepts a Python float where a float32 was compiled for).
    key: String,
    /// Each argument leaf's name (its parameter's) and type, for JAX's mismatch message.
    arguments: Vec<(String, Aval)>,
    traced: Rc<Compiled>,
}

/// `Lowered.compile()`: the program as the machine runs it.
pub struct AotCompiled {
    pub lowered: Rc<Lowered>,
    ahead: AheadOfTime,
}

/// What `memory_analysis()` returns: JAX's `CompiledMemoryStats`, field by field.
pub struct MemoryStats {
    fields: Vec<(&'static str, u64)>,
}

impl MemoryStats {
    pub fn repr(&self) -> String {
        let fields: Vec<String> =
            self.fields.iter().filter(|(k, _)| *k != "peak_memory_in_bytes").map(|(k, v)| format!("{k}={v}")).collect();
        format!("CompiledMemoryStats({})", fields.join(", "))
    }
}

impl Interp<'_, '_> {
    /// `jax.jit(f).lower(*args, **kwargs)`.
    pub(super) async fn lower(&mut self, jitted: &Value, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Value> {
        let Value::Native(n) = jitted else { return err("lower() needs a jitted function") };
        let Native::Jitted(j) = &**n else { return err("lower() needs a jitted function") };
        let names = parameter_names(&j.func, args.len(), &kwargs);
        let call = self.argument_types(j, args, kwargs).await?;
        let cache_key = self.jit_key(&call);
        let cached = j.cache.borrow().traces.get(&cache_key).cloned();
        let traced = match cached {
            Some(c) => c,
            None => {
                self.note_cache_miss(j, &call)?;
                let c = Rc::new(self.trace(&j.func, &call).await?);
                j.cache.borrow_mut().traces.insert(cache_key, c.clone());
                c
            }
        };
        if !traced.refs.is_empty() {
            return super::unsupported(
                "jax.jit(f).lower of a function reading or writing refs is not supported by the playground yet",
            );
        }
        let key = self.strong_key(call.clone_shape());
        let arguments = leaf_names(&call, &names).into_iter().zip(call.types.iter().cloned()).collect();
        Ok(Value::native(Native::Lowered(Rc::new(Lowered { jitted: jitted.clone(), key, arguments, traced }))))
    }

    pub(super) async fn aot_attr(&mut self, obj: &Value, native: &Native, name: &str) -> R<Value> {
        let method = || Ok(Value::native(Native::Method(obj.clone(), ahead_method(name))));
        match (native, name) {
            (Native::Lowered(_), "as_text" | "compile" | "cost_analysis") => method(),
            (Native::AotCompiled(_), "as_text" | "cost_analysis" | "memory_analysis") => method(),
            (Native::Lowered(_) | Native::AotCompiled(_), "out_info") => {
                let l = match native {
                    Native::AotCompiled(c) => &c.lowered,
                    Native::Lowered(l) => l,
                    _ => unreachable!("matched above"),
                };
                let jaxpr = &l.traced.closed.jaxpr;
                let mut structs =
                    jaxpr.outvars.iter().map(|a| Value::native(Native::ShapeDtypeStruct(jaxpr.atom_aval(a).clone())));
                self.unflatten_tree(&l.traced.out_tree, &mut structs).await
            }
            (Native::MemoryStats(m), _) => match m.fields.iter().find(|(k, _)| *k == name) {
                Some((_, v)) => Ok(Value::Int(*v as i64)),
                None => attr_err(format!("'CompiledMemoryStats' object has no attribute '{name}'")),
            },
            (Native::Lowered(_), _) => attr_err(format!("'Lowered' object has no attribute '{name}'")),
            _ => attr_err(format!("'Compiled' object has no attribute '{name}'")),
        }
    }

    pub(super) async fn aot_method(&mut self, native: &Native, name: &str, args: Vec<Value>) -> R<Value> {
        if !args.is_empty() {
            return type_err(format!("{name}() takes no arguments ({} given)", args.len()));
        }
        match (native, name) {
            (Native::Lowered(l), "compile") => {
                let name = super::jax::function_name(&l.jitted);
                let ahead = self.ctx.compile_ahead(&name, &l.traced.closed.jaxpr)?;
                Ok(Value::native(Native::AotCompiled(Rc::new(AotCompiled { lowered: l.clone(), ahead }))))
            }
            (Native::Lowered(l), "as_text") => {
                let name = super::jax::function_name(&l.jitted);
                Ok(Value::str(&self.ctx.compile_ahead(&name, &l.traced.closed.jaxpr)?.lowered_text))
            }
            (Native::Lowered(l), "cost_analysis") => Ok(cost_dict(&jaxlite::cost::lowered(&l.traced.closed.jaxpr))),
            (Native::AotCompiled(c), "as_text") => Ok(Value::str(&c.ahead.compiled_text)),
            (Native::AotCompiled(c), "cost_analysis") => Ok(cost_dict(&c.ahead.cost)),
            (Native::AotCompiled(c), "memory_analysis") => {
                let bytes = |a: &Aval| (a.size() * a.dtype.on_device().size_bytes()) as u64;
                let arguments: u64 = c.lowered.arguments.iter().map(|(_, a)| bytes(a)).sum();
                let jaxpr = &c.lowered.traced.closed.jaxpr;
                let outputs: u64 = jaxpr.outvars.iter().map(|a| bytes(jaxpr.atom_aval(a))).sum();
                let temp = c.ahead.temp_bytes;
                let fields = vec![
                    ("generated_code_size_in_bytes", c.ahead.code_bytes),
                    ("argument_size_in_bytes", arguments),
                    ("output_size_in_bytes", outputs),
                    ("alias_size_in_bytes", 0),
                    ("temp_size_in_bytes", temp),
                    ("host_generated_code_size_in_bytes", 0),
                    ("host_argument_size_in_bytes", 0),
                    ("host_output_size_in_bytes", 0),
                    ("host_alias_size_in_bytes", 0),
                    ("host_temp_size_in_bytes", 0),
                    ("peak_memory_in_bytes", arguments + outputs + temp),
                ];
                Ok(Value::native(Native::MemoryStats(MemoryStats { fields })))
            }
            _ => err(format!("internal error: no method {name} of an ahead-of-time object")),
        }
    }

    /// Calling a compiled program: arguments of the types it was compiled for, else JAX's
    /// `TypeError` naming each argument that differs.
    pub(super) async fn call_compiled(
        &mut self,
        c: &AotCompiled,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let l = &c.lowered;
        let Value::Native(n) = &l.jitted else { return err("internal error: a compiled function lost its jit") };
        let Native::Jitted(j) = &**n else { return err("internal error: a compiled function lost its jit") };
        let call = self.argument_types(j, args.clone(), kwargs.clone()).await?;
        if self.strong_key(call.clone_shape()) != l.key {
            let called: Vec<&Aval> = call.types.iter().collect();
            let mismatches: Vec<String> = if called.len() == l.arguments.len() {
                l.arguments
                    .iter()
                    .zip(&called)
                    .filter(|((_, a), b)| a.short() != b.short())
                    .map(|((name, a), b)| {
                        format!(
                            "Argument '{name}' compiled with {} and called with {}",
                            super::value::aval_text(a),
                            super::value::aval_text(b)
                        )
                    })
                    .collect()
            } else {
                vec![format!(
                    "the function was compiled for {} array arguments and called with {}",
                    l.arguments.len(),
                    called.len()
                )]
            };
            return type_err(format!(
                "Argument types differ from the types for which this computation was compiled. Perhaps you are \
                 calling the compiled executable with a different enable_x64 mode than when it was AOT compiled? \
                 The mismatches are:\n{}",
                mismatches.join("\n")
            ));
        }
        self.call_jitted(j, args, kwargs).await
    }
}

impl Interp<'_, '_> {
    /// A call of `j` taken apart as `jit` takes it, its leaves' types alone.
    async fn argument_types(&mut self, j: &Jitted, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<CallArgs> {
        let is_static = |i: usize| j.static_argnums.contains(&i);
        let is_static_name = |k: &str| j.static_argnames.iter().any(|s| s == k);
        self.jit_arguments_of(args, kwargs, is_static, is_static_name, true).await
    }

    /// `jit_key` with every weak type made strong.
    fn strong_key(&self, mut call: CallArgs) -> String {
        for t in &mut call.types {
            t.weak_type = false;
        }
        self.jit_key(&call)
    }
}

fn ahead_method(name: &str) -> &'static str {
    match name {
        "as_text" => "as_text",
        "compile" => "compile",
        "cost_analysis" => "cost_analysis",
        _ => "memory_analysis",
    }
}

/// JAX's dict of counts (see `jaxlite::cost`).
fn cost_dict(cost: &CostAnalysis) -> Value {
    let entries = cost.entries().into_iter().map(|(k, v)| (Value::str(&k), Value::Float(v))).collect();
    Value::Dict(Rc::new(RefCell::new(Dict { entries })))
}

/// The names JAX gives a call's arguments in messages: each positional one its parameter's
/// name where the function's signature has one, each keyword one its keyword.
fn parameter_names(f: &Value, positional: usize, kwargs: &[(String, Value)]) -> Vec<String> {
    let params: Vec<String> = match f {
        Value::Function(func) => func.def.params.iter().map(|p| p.name.clone()).collect(),
        _ => vec![],
    };
    let mut names: Vec<String> =
        (0..positional).map(|i| params.get(i).cloned().unwrap_or_else(|| format!("args[{i}]"))).collect();
    let mut keywords: Vec<String> = kwargs.iter().map(|(k, _)| k.clone()).collect();
    keywords.sort();
    names.extend(keywords);
    names
}

/// Each traced leaf's name: its argument's, with the leaf's position where the argument is a
/// tree of several.
fn leaf_names(call: &CallArgs, names: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, tree) in names.iter().zip(&call.trees) {
        let Some(tree) = tree else { continue };
        match tree.num_leaves() {
            1 => out.push(name.clone()),
            n => out.extend((0..n).map(|k| format!("{name} (leaf {k})"))),
        }
    }
    out
}
