//! Host callbacks: `jax.pure_callback`, `jax.experimental.io_callback` and
//! `jax.debug.callback` (jaxlite's `callback.rs` has the equation and its rules).
//!
//! Staging one records a callback equation whose operands are the leaves of the arguments; the
//! script's function and the structure to rebuild its arguments with travel in the equation,
//! opaque to jaxlite. A program with callbacks runs with this interpreter as its host
//! (`execute_with_callbacks`): the runner cuts the program at each callback, and the host calls
//! the function with the values computed so far, as JAX's runtime calls back into Python
//! mid-program. While it does, the device's executor is set aside: what a callback computes
//! with `jax.numpy` runs on the host's CPU (the reference evaluator), as JAX places a
//! callback's arrays on a CPU device.

use super::exceptions::{err, RtError, R};
use super::jax::Tree;
use super::objects::Builtin;
use super::value::{repr, Dict, Native, Value};
use super::Interp;
use jaxlite::callback::{CallbackKind, Host, HostCallback, VmapMethod};
use jaxlite::eval::ReferenceExecutor;
use jaxlite::{Array, Aval, JaxError, Jaxpr, LocalFuture, Primitive, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// The script's side of a staged callback.
struct ScriptCallback {
    action: Action,
    /// The arguments as one tree: (positional arguments, {keyword: argument}), as JAX's.
    arguments: Tree,
    /// The leaves of the arguments that are not arrays, by place (a debug callback's).
    statics: Vec<(usize, Value)>,
    /// The structure of the declared results; `None` where there are none (a debug callback,
    /// an `io_callback` declaring `None`).
    results: Option<Rc<Tree>>,
}

/// What the host does with the arguments.
enum Action {
    /// Calls the script's function.
    Call(Value),
    /// `jax.debug.print`: formats them with this format (Python's `str.format`) and prints.
    Print(String),
}

/// The interpreter as the host of a running program.
struct ScriptHost<'i, 'c, 'p> {
    interp: &'i mut Interp<'c, 'p>,
    /// What a callback raised: the run stops, and this is the script's error.
    raised: Option<RtError>,
}

impl Host for ScriptHost<'_, '_, '_> {
    fn call<'a>(
        &'a mut self,
        callback: &'a HostCallback,
        args: Vec<Array>,
    ) -> LocalFuture<'a, Result<Vec<Array>, JaxError>> {
        Box::pin(async move {
            self.interp.call_back(callback, args).await.map_err(|e| {
                let message = e.display();
                self.raised = Some(e);
                JaxError(message)
            })
        })
    }
}

/// `jax.pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
/// **kwargs)`, `io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False,
/// **kwargs)`, `jax.debug.callback(callback, *args, ordered=False, partitioned=False,
/// **kwargs)` and `jax.debug.print(fmt, *args, ordered=False, partitioned=False, **kwargs)`: the
/// keyword arguments the function itself takes, and the rest of them.
struct Staging {
    kind: CallbackKind,
    action: Action,
    results: Option<Value>,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
}

const MASKED: &str = "0xXXXXXXXXXXXX";

/// `text` with its addresses (`0x7f…`) masked, as JAX prints them in a jaxpr.
fn masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("0x") {
        out.push_str(&rest[..at]);
        let digits = rest[at + 2..].chars().take_while(char::is_ascii_hexdigit).count();
        out.push_str(if digits > 0 { MASKED } else { "0x" });
        rest = &rest[at + 2 + digits..];
    }
    out.push_str(rest);
    out
}

/// What a jaxpr shows of a callback's function, as JAX 0.10 shows it (every address masked).
fn shown(
    kind: &CallbackKind,
    action: &Action,
    arguments: &Tree,
    statics: &[(usize, Value)],
) -> Vec<(&'static str, String)> {
    match (kind, action) {
        (_, Action::Print(format)) => {
            let statics: Vec<String> = statics.iter().map(|(i, v)| format!("({i}, {})", repr(v))).collect();
            let statics = match statics.len() {
                1 => format!("({},)", statics[0]),
                _ => format!("({})", statics.join(", ")),
            };
            vec![
                ("fmt", format.clone()),
                ("has_placeholders", if has_placeholders(format) { "True" } else { "False" }.into()),
                ("in_tree", format!("PyTreeDef({})", arguments.describe())),
                ("logging_record", "None".into()),
                ("np_printoptions", NP_PRINTOPTIONS.into()),
                ("static_args", statics),
            ]
        }
        (CallbackKind::Debug { .. }, _) => vec![(
            "callback",
            format!("<function debug_callback.<locals>._debug_callback.<locals>._flat_callback at {MASKED}>"),
        )],
        (_, Action::Call(function)) => vec![(
            "callback",
            format!(
                "_FlatCallback(callback_func={}, in_tree=PyTreeDef({}))",
                masked(&repr(function)),
                arguments.describe()
            ),
        )],
    }
}

/// NumPy's print options as JAX records them with a print (the defaults).
const NP_PRINTOPTIONS: &str = "(('edgeitems', 3), ('threshold', 1000), ('floatmode', 'maxprec'), ('precision', 8), ('suppress', False), ('linewidth', 75), ('nanstr', 'nan'), ('infstr', 'inf'), ('sign', '-'), ('formatter', None), ('legacy', False), ('override_repr', None))";

/// Whether a format string has a replacement field (`{}`), not only escaped braces.
fn has_placeholders(format: &str) -> bool {
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
            }
            ('{', _) => return true,
            _ => {}
        }
    }
    false
}

fn staging(name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Staging> {
    let options = |key: &str, kwargs: &mut Vec<(String, Value)>| -> Option<Value> {
        let at = kwargs.iter().position(|(k, _)| k == key)?;
        Some(kwargs.remove(at).1)
    };
    let flag = |v: Option<Value>| matches!(v, Some(Value::Bool(true)));
    let mut kwargs = kwargs;
    let mut args = args.into_iter();
    let first = if name == "debug.print" { "fmt" } else { "callback" };
    let action = match (args.next(), name) {
        (Some(Value::Str(format)), "debug.print") => Action::Print(format.to_string()),
        (Some(other), "debug.print") => {
            return err(format!("jax.debug.print expects a format string first, got {}", other.type_name()))
        }
        (Some(f), _) => Action::Call(f),
        (None, _) => return err(format!("{name}() missing 1 required positional argument: '{first}'")),
    };
    let (kind, results) = match name {
        "debug.callback" | "debug.print" => {
            let ordered = flag(options("ordered", &mut kwargs));
            let partitioned = flag(options("partitioned", &mut kwargs));
            let kind = if name == "debug.print" {
                CallbackKind::Print { ordered, partitioned }
            } else {
                CallbackKind::Debug { ordered, partitioned }
            };
            (kind, None)
        }
        _ => {
            let Some(results) = args.next() else {
                return err(format!("{name}() missing 1 required positional argument: 'result_shape_dtypes'"));
            };
            options("sharding", &mut kwargs);
            let kind = if name == "io_callback" {
                CallbackKind::Io { ordered: flag(options("ordered", &mut kwargs)) }
            } else {
                let vmap_method = match options("vmap_method", &mut kwargs) {
                    None | Some(Value::None) => None,
                    Some(Value::Str(s)) => match VmapMethod::parse(&s) {
                        Some(m) => Some(m),
                        None if &*s == "legacy_vectorized" => {
                            return super::unsupported("pure_callback's vmap_method='legacy_vectorized' is not supported by the playground yet (it is deprecated in JAX)")
                        }
                        None => {
                            return super::exceptions::value_err(format!(
                                "vmap_method must be on of the allowed methods {{'broadcast_all', 'expand_dims', 'legacy_vectorized', 'sequential', 'sequential_unrolled'}}, but got: {s}"
                            ))
                        }
                    },
                    Some(other) => return err(format!("vmap_method must be a string, got {}", repr(&other))),
                };
                CallbackKind::Pure { vmap_method }
            };
            (kind, Some(results))
        }
    };
    Ok(Staging { kind, action, results, args: args.collect(), kwargs })
}

impl Interp<'_, '_> {
    /// Stages a callback (see `Staging`): recorded where a trace is in progress, else run at
    /// once as a program of its own, as JAX dispatches the primitive.
    pub(super) fn host_callback<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Staging { kind, action, results, args, kwargs } = staging(name, args, kwargs)?;
            if let Action::Call(function) = &action {
                if !self.is_callable(function) {
                    return err(format!("{name}: the callback {} is not callable", repr(function)));
                }
            }
            let mut keywords = Dict::default();
            for (k, v) in kwargs {
                keywords.set_str(&k, v);
            }
            let both = Value::tuple(vec![Value::tuple(args), Value::Dict(Rc::new(RefCell::new(keywords)))]);
            let (arguments, leaves, statics) = if let CallbackKind::Debug { .. } | CallbackKind::Print { .. } = kind {
                // JAX passes a debug callback's leaves that are not arrays as they are.
                let mut values = Vec::new();
                let tree = self.tree_of(&both, None, &mut values).await?;
                let (mut leaves, mut statics) = (Vec::new(), Vec::new());
                for (i, v) in values.into_iter().enumerate() {
                    match v {
                        Value::Array(_)
                        | Value::Int(_)
                        | Value::Float(_)
                        | Value::Bool(_)
                        | Value::Key(_)
                        | Value::Host(_) => leaves.push(self.to_tensor(&v)?),
                        other => statics.push((i, other)),
                    }
                }
                (tree, leaves, statics)
            } else {
                let mut leaves = Vec::new();
                (self.flatten(&both, &mut leaves).await?, leaves, vec![])
            };
            let (result_tree, result_avals) = match results {
                None | Some(Value::None) => (None, vec![]),
                Some(declared) => {
                    let mut values = Vec::new();
                    let tree = self.tree_of(&declared, None, &mut values).await?;
                    let avals = values.iter().map(|v| self.declared_result(name, v)).collect::<R<Vec<_>>>()?;
                    (Some(Rc::new(tree)), avals)
                }
            };
            let shown = shown(&kind, &action, &arguments, &statics);
            let script = ScriptCallback { action, arguments, statics, results: result_tree.clone() };
            let callback = HostCallback { kind, function: Rc::new(script), shown, results: result_avals };
            let prim = Primitive::Callback { function: Rc::new(callback) };
            let outs = self.bind_equation(prim, &leaves).await?;
            match result_tree {
                None => Ok(Value::None),
                Some(tree) => self.unflatten_tensors(&tree, outs).await,
            }
        })
    }

    /// One declared result's type: a `ShapeDtypeStruct`, or anything with a shape and a dtype
    /// (an array: JAX reads `.shape` and `.dtype`), never weakly typed.
    fn declared_result(&mut self, name: &str, v: &Value) -> R<Aval> {
        let aval = match v {
            Value::Native(n) => match &**n {
                Native::ShapeDtypeStruct(aval) => aval.clone(),
                _ => {
                    return err(format!(
                        "{name}: result_shape_dtypes must be arrays or ShapeDtypeStructs, got {}",
                        repr(v)
                    ))
                }
            },
            Value::Array(_) | Value::Host(_) => self.to_tensor(v)?.aval().clone(),
            _ => return super::exceptions::attr_err(format!("'{}' object has no attribute 'shape'", v.type_name())),
        };
        if aval.dtype.is_host_only() {
            return super::exceptions::value_err(
                "result_shape_dtypes cannot specify 64-bit types when `jax_enable_x64` is disabled",
            );
        }
        Ok(Aval { weak_type: false, ..aval })
    }

    /// `Context::bind`, except that outside a trace an equation that calls back (a callback, or
    /// a loop, branch or custom derivative holding one) runs as a program with this
    /// interpreter as its host.
    pub(super) async fn bind_equation(&mut self, prim: Primitive, operands: &[Tensor]) -> R<Vec<Tensor>> {
        if self.ctx.is_tracing() || !jaxlite::loops::calls_back(&prim) {
            return Ok(self.ctx.bind(prim, operands).await?);
        }
        let name = prim.name().to_string();
        self.run_alone(&name, prim, operands.to_vec()).await
    }

    /// One equation outside any trace, as a program of its own run with this interpreter as
    /// its host.
    async fn run_alone(&mut self, name: &str, prim: Primitive, leaves: Vec<Tensor>) -> R<Vec<Tensor>> {
        let avals: Vec<Aval> = leaves.iter().map(|t| t.aval().clone()).collect();
        let tracers = self.ctx.begin_trace(&avals);
        let outs = match self.ctx.bind(prim, &tracers).await {
            Ok(outs) => outs,
            Err(e) => {
                self.ctx.abort_trace();
                return Err(e.into());
            }
        };
        let closed = self.ctx.end_trace(&outs)?;
        let mut inputs: Vec<Array> = closed.consts.clone();
        for t in &leaves {
            inputs.push(self.concrete_array(t)?);
        }
        let results = self.execute_with_callbacks(name.to_string(), closed.jaxpr, inputs).await?;
        Ok(results.into_iter().map(Tensor::from).collect())
    }

    fn concrete_array(&self, t: &Tensor) -> R<Array> {
        match t.concrete() {
            Some(a) => Ok(a.clone()),
            None => err("internal error: a callback's operand outside a trace is not concrete"),
        }
    }

    /// Runs a traced program (constants first, then arguments) on the device; one with host
    /// callbacks with this interpreter calling them.
    pub(super) async fn execute(&mut self, name: String, jaxpr: Jaxpr, args: Vec<Array>) -> R<Vec<Array>> {
        if jaxlite::loops::has_callbacks(&jaxpr) {
            return self.execute_with_callbacks(name, jaxpr, args).await;
        }
        Ok(self.ctx.execute(name, jaxpr, args).await?)
    }

    /// `Context::apply_jaxpr`, except that outside a trace a Jaxpr with host callbacks runs as
    /// one program with this interpreter as its host (an operation at a time, nothing could
    /// call them).
    pub(super) async fn apply_jaxpr(&mut self, jaxpr: &Jaxpr, args: &[Tensor]) -> R<Vec<Tensor>> {
        if self.ctx.is_tracing() || !jaxlite::loops::has_callbacks(jaxpr) {
            return Ok(self.ctx.apply_jaxpr(jaxpr, args).await?);
        }
        let inputs = args.iter().map(|t| self.concrete_array(t)).collect::<R<Vec<_>>>()?;
        let results = self.execute_with_callbacks("callbacks".into(), jaxpr.clone(), inputs).await?;
        Ok(results
            .into_iter()
            .zip(&jaxpr.outvars)
            .map(|(mut a, atom)| {
                a.aval.weak_type = jaxpr.atom_aval(atom).weak_type;
                Tensor::from(a)
            })
            .collect())
    }

    /// Runs a traced program that has host callbacks, this interpreter calling them (see the
    /// module's comment).
    pub(super) async fn execute_with_callbacks(
        &mut self,
        name: String,
        jaxpr: Jaxpr,
        args: Vec<Array>,
    ) -> R<Vec<Array>> {
        let call = self.ctx.program_call(name, Rc::new(jaxpr), args);
        let limit = self.ctx.loop_limit;
        let mut device = self.ctx.swap_executor(Box::new(ReferenceExecutor::default()));
        let mut host = ScriptHost { interp: self, raised: None };
        let result = jaxlite::loops::run(&mut *device, &mut host, limit, call).await;
        let raised = host.raised.take();
        self.ctx.swap_executor(device);
        match (result, raised) {
            (Ok(results), _) => Ok(results),
            (Err(_), Some(raised)) => Err(raised),
            (Err(e), None) => Err(e.into()),
        }
    }

    /// The host's call of `callback`: the script's function on its arguments rebuilt from
    /// `args`, its results checked against the declared types as JAX's runtime checks them.
    /// What goes wrong is JAX's `JaxRuntimeError`, naming what the function raised.
    async fn call_back(&mut self, callback: &HostCallback, args: Vec<Array>) -> R<Vec<Array>> {
        let Some(script) = callback.function.downcast_ref::<ScriptCallback>() else {
            return err("internal error: a callback staged elsewhere");
        };
        let failed = |e: RtError| {
            if e.fatal {
                return e;
            }
            // JAX's message carries the callback's traceback; this names the line that raised.
            let place = match e.span {
                Some(span) if span.file == 0 => format!(" (raised at {}:{})", span.line, span.col),
                _ => String::new(),
            };
            RtError::of(
                Builtin::JaxRuntimeError,
                format!("INTERNAL: CpuCallback error calling callback: {}{place}", e.display()),
            )
        };
        let mut arrays = args.into_iter().map(|a| Value::of_tensor(Tensor::from(a)));
        let mut statics = script.statics.iter().peekable();
        let mut leaves = Vec::new();
        while let Some(leaf) = match statics.next_if(|(at, _)| *at == leaves.len()) {
            Some((_, v)) => Some(v.clone()),
            None => arrays.next(),
        } {
            leaves.push(leaf);
        }
        let both = self.unflatten_tree(&script.arguments, &mut leaves.into_iter()).await?;
        let (positional, keywords) = match both {
            Value::Tuple(parts) if parts.len() == 2 => (parts[0].clone(), parts[1].clone()),
            _ => return err("internal error: a callback's arguments lost their structure"),
        };
        let (Value::Tuple(positional), Value::Dict(keywords)) = (positional, keywords) else {
            return err("internal error: a callback's arguments lost their structure");
        };
        let mut kwargs = Vec::new();
        for (k, v) in keywords.borrow().entries.iter() {
            let Value::Str(k) = k else { return err("internal error: a keyword that is not a string") };
            kwargs.push((k.to_string(), v.clone()));
        }
        let function = match &script.action {
            Action::Call(function) => function.clone(),
            Action::Print(format) => {
                // Printed at once, as JAX's print does: not a failure of the runtime.
                let text = self.call_method(&Value::str(format), "format", positional.to_vec(), kwargs).await?;
                self.call_builtin("print", vec![text], vec![]).await?;
                return Ok(vec![]);
            }
        };
        let result = self.call(function, positional.to_vec(), kwargs).await.map_err(failed)?;
        if script.results.is_none() {
            return Ok(vec![]);
        }
        let mut values = Vec::new();
        self.tree_of(&result, None, &mut values).await.map_err(failed)?;
        let mismatch = |message: String| failed(RtError::of(Builtin::RuntimeError, message));
        if values.len() != callback.results.len() {
            return Err(mismatch(format!(
                "Mismatched number of outputs from callback. Expected: {}, Actual: {}",
                callback.results.len(),
                values.len()
            )));
        }
        let mut arrays = Vec::with_capacity(values.len());
        for (i, (v, want)) in values.iter().zip(&callback.results).enumerate() {
            // As `np.asarray`, then the device's types (float64 arrives as float32).
            let got = self.to_tensor(v).map_err(failed)?;
            let got = self.concrete_array(&got)?;
            if got.aval.shape != want.shape {
                return Err(mismatch(format!(
                    "Incorrect output shape for return value #{i}: Expected: {}, Actual: {}",
                    jaxlite::numpy::shape_str(&want.shape),
                    jaxlite::numpy::shape_str(&got.aval.shape)
                )));
            }
            if got.aval.dtype != want.dtype {
                return Err(mismatch(format!(
                    "Incorrect output dtype for return value #{i}: Expected: {}, Actual: {}",
                    want.dtype.name(),
                    got.aval.dtype.name()
                )));
            }
            arrays.push(Array { aval: Aval { weak_type: false, ..got.aval.clone() }, ..got });
        }
        Ok(arrays)
    }

    /// `jax.ShapeDtypeStruct.like(x)`: x's shape and dtype.
    pub(super) fn shape_dtype_like(&mut self, args: &[Value]) -> R<Value> {
        let [x] = args else {
            return err(format!("like() takes 1 positional argument but {} were given", args.len()));
        };
        let aval = match x {
            Value::Native(n) => match &**n {
                Native::ShapeDtypeStruct(aval) => aval.clone(),
                _ => {
                    return super::exceptions::attr_err(format!("'{}' object has no attribute 'shape'", x.type_name()))
                }
            },
            Value::Array(_) | Value::Host(_) => self.to_tensor(x)?.aval().clone(),
            _ => return super::exceptions::attr_err(format!("'{}' object has no attribute 'shape'", x.type_name())),
        };
        Ok(Value::native(Native::ShapeDtypeStruct(Aval { weak_type: false, ..aval })))
    }
}
