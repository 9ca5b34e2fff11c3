//! `import`: the `jax` modules (`jax.rs`), `math`, and the standard library's modules, which
//! are written in Python (`crates/pylib/python/*.py`, CPython's behaviour in our own code) and run the
//! first time a run imports them, over a few functions written in Rust (`_playground`: the
//! host's clock, the Mersenne Twister, standard error).
//!
//! A library module's code runs like a script's, with one difference: its places are never
//! reported (see `ast::Span::file`), so an error inside it points at the script's call.

use super::exceptions::{attr_err, type_err, value_err, RtError};
use super::mersenne::Mt19937;
use super::objects::Builtin;
use super::value::{as_f64, as_int, Native, Value};
use super::{jax, new_scope, Env, Interp, R};
use jaxlite::LocalFuture;
use std::rc::Rc;

/// A module a script imported: its globals.
pub struct PyModule {
    pub name: String,
    pub scope: Env,
}

/// The functions of `_playground`, the module the standard library's sources build on.
const NATIVES: &[&str] = &[
    "clock",
    "perf_counter",
    "monotonic",
    "write_stderr",
    "write_stdout",
    "recursion_limit",
    "device_kind",
    "device_coords",
    "shard_map_run",
    "place",
    "placement",
    "constrain",
    "mt_new",
    "mt_seed",
    "mt_random",
    "mt_bits",
    "tree_paths",
    "saved_residuals",
    "checkpoint_name",
    "re_compile",
    "re_search",
];

/// The version of JAX whose behaviour the playground follows (its fixtures come from it).
pub const JAX_VERSION: &str = "0.10.2";

impl Interp<'_, '_> {
    /// `import name`: the module, run the first time this run imports it.
    pub(super) fn import<'a>(&'a mut self, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Some(m) = self.modules.get(name) {
                return Ok(m.clone());
            }
            let module = if let Some((file, module)) = pylib::module(name) {
                self.run_library_module(name, module.source, file).await?
            } else if name == "_playground" {
                let scope = new_scope(None, Rc::new(Vec::new()));
                for &f in NATIVES {
                    scope.vars.borrow_mut().insert(f.to_string(), Value::native(Native::Library("_playground", f)));
                }
                // `functools.partial` is the interpreter's own, which `jax.jit` understands.
                scope.vars.borrow_mut().insert("partial".into(), Value::native(Native::Jax("partial")));
                Value::PyModule(Rc::new(PyModule { name: name.to_string(), scope }))
            } else if name.starts_with("scipy.") {
                return super::unsupported(format!("{name} is not supported by the playground yet"));
            } else {
                match jax::import_module(name) {
                    Ok(id) => Value::Module(id),
                    Err(e) if e.kind == Builtin::NotImplementedError => return Err(e),
                    Err(_) => {
                        return Err(RtError::of(Builtin::ModuleNotFoundError, format!("No module named '{name}'")))
                    }
                }
            };
            self.modules.insert(name.to_string(), module.clone());
            Ok(module)
        })
    }

    /// Runs a library module's source in a fresh global scope.
    fn run_library_module<'a>(
        &'a mut self,
        name: &'a str,
        source: &'static str,
        file: u16,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (module, errors) = crate::parser::parse(source, file);
            if let Some(e) = errors.first() {
                return Err(RtError::of(
                    Builtin::ImportError,
                    format!("the playground's module {name} does not parse ({}:{}: {})", e.line, e.col, e.message),
                ));
            }
            let scope = new_scope(None, Rc::new(Vec::new()));
            scope.vars.borrow_mut().insert("__name__".into(), Value::str(name));
            let value = Value::PyModule(Rc::new(PyModule { name: name.to_string(), scope: scope.clone() }));
            // Cached before it runs, so modules importing each other find it.
            self.modules.insert(name.to_string(), value.clone());
            let result = self.exec_block(&module.body, &scope).await;
            if let Err(e) = result {
                self.modules.remove(name);
                return Err(e);
            }
            Ok(value)
        })
    }

    /// `module.name` for a module of the standard library (or a submodule of any module).
    pub(super) fn py_module_attr<'a>(&'a mut self, m: &'a Rc<PyModule>, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Some(v) = m.scope.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            match name {
                "__name__" => return Ok(Value::str(&m.name)),
                "__dict__" => {
                    let mut d = super::value::Dict::default();
                    let mut names: Vec<(String, Value)> =
                        m.scope.vars.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    names.sort_by(|a, b| a.0.cmp(&b.0));
                    for (k, v) in names {
                        d.set_str(&k, v);
                    }
                    return Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))));
                }
                _ => {}
            }
            let sub = format!("{}.{name}", m.name);
            if pylib::module(&sub).is_some() {
                return self.import(&sub).await;
            }
            // SciPy is here only in part: a name it has that is not here says so.
            if m.name == "scipy" || m.name.starts_with("scipy.") {
                return super::unsupported(format!("{}.{name} is not supported by the playground yet", m.name));
            }
            attr_err(format!("module '{}' has no attribute '{name}'", m.name))
        })
    }

    /// `from module import *`: the module's public names (its `__all__` where it has one).
    pub(super) fn public_names<'a>(&'a mut self, module: &'a Value) -> LocalFuture<'a, R<Vec<(String, Value)>>> {
        Box::pin(async move {
            let Value::PyModule(m) = module else {
                return super::unsupported(format!(
                    "'from {} import *' is not supported by the playground; import the names you use",
                    match module {
                        Value::Module(id) => id.name().to_string(),
                        other => other.type_name().into_owned(),
                    }
                ));
            };
            let all = m.scope.vars.borrow().get("__all__").cloned();
            let names: Vec<String> = match all {
                Some(all) => self
                    .collect(&all)
                    .await?
                    .into_iter()
                    .map(|v| match v {
                        Value::Str(s) => Ok(s.to_string()),
                        other => type_err(format!("__all__ must hold strings, not {}", other.type_name())),
                    })
                    .collect::<R<_>>()?,
                None => {
                    let mut names: Vec<String> =
                        m.scope.vars.borrow().keys().filter(|k| !k.starts_with('_')).cloned().collect();
                    names.sort();
                    names
                }
            };
            let mut out = Vec::with_capacity(names.len());
            for n in names {
                let v = self.py_module_attr(m, &n).await?;
                out.push((n, v));
            }
            Ok(out)
        })
    }

    /// Calls a function of `_playground`.
    pub(super) fn call_library<'a>(
        &'a mut self,
        module: &'a str,
        name: &'a str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            super::builtins::no_more_kwargs(name, &kwargs)?;
            let seconds = |d: std::time::Duration| Value::Float(d.as_secs_f64());
            let state = |v: &Value| -> R<Rc<Native>> {
                match v {
                    Value::Native(n) if matches!(&**n, Native::Mersenne(_)) => Ok(n.clone()),
                    other => type_err(format!("{module}.{name} expects a generator state, got {}", other.type_name())),
                }
            };
            fn mt(n: &Rc<Native>) -> std::cell::RefMut<'_, Mt19937> {
                match &**n {
                    Native::Mersenne(m) => m.borrow_mut(),
                    _ => unreachable!("checked by `state`"),
                }
            }
            match name {
                "tree_paths" => return self.tree_paths(args).await,
                "saved_residuals" => return self.saved_residuals(args).await,
                "checkpoint_name" => return self.checkpoint_name(args).await,
                "re_compile" => return self.re_compile(&args),
                "re_search" => return self.re_search(&args),
                "shard_map_run" => return self.shard_map_run(args).await,
                "place" => return self.place(args),
                "placement" => return Ok(self.placement(&args)),
                "constrain" => return self.constrain(args).await,
                _ => {}
            }
            Ok(match name {
                // The host's clocks, as `time` reads them (the emulator's own time is in its
                // counters, never here).
                "clock" => {
                    let now = web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).unwrap_or_default();
                    seconds(now)
                }
                "perf_counter" | "monotonic" => seconds(self.started.elapsed()),
                "write_stderr" | "write_stdout" => {
                    let [Value::Str(text)] = &args[..] else { return type_err(format!("{name}() takes a string")) };
                    if name == "write_stderr" {
                        self.write_stderr(text)?;
                    } else {
                        self.write_stdout(text)?;
                    }
                    Value::Int(text.chars().count() as i64)
                }
                "recursion_limit" => Value::Int(self.limits.recursion as i64),
                "device_kind" => Value::str(&self.ctx.device_kind()),
                // Each device's (x, y, z) in the emulated slice, device i at index i.
                "device_coords" => Value::list(
                    self.ctx
                        .device_coords()
                        .iter()
                        .map(|c| Value::tuple(c.iter().map(|&x| Value::Int(x as i64)).collect()))
                        .collect(),
                ),
                "mt_new" => {
                    Value::native(Native::Mersenne(Box::new(std::cell::RefCell::new(self.mt_from_seed(args.first())?))))
                }
                "mt_seed" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let seeded = self.mt_from_seed(args.get(1))?;
                    *mt(&s) = seeded;
                    Value::None
                }
                "mt_random" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let x = mt(&s).next_f64();
                    Value::Float(x)
                }
                "mt_bits" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let k = args.get(1).and_then(as_int).unwrap_or(0);
                    if !(0..=63).contains(&k) {
                        return value_err(format!(
                            "getrandbits({k}): the playground's ints are 64-bit, so at most 63 bits can be drawn at once"
                        ));
                    }
                    let bits = mt(&s).bits(k as u32);
                    Value::Int(bits as i64)
                }
                _ => return attr_err(format!("module '{module}' has no attribute '{name}'")),
            })
        })
    }

    /// A generator seeded as CPython's `random.seed(a)` seeds one: from an int's magnitude,
    /// a float's hash, or (for `None`) the clock.
    fn mt_from_seed(&self, seed: Option<&Value>) -> R<Mt19937> {
        match seed {
            None | Some(Value::None) => {
                let now = web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).unwrap_or_default();
                Ok(Mt19937::from_int(now.as_nanos() as i64))
            }
            Some(v @ (Value::Int(_) | Value::Bool(_))) => Ok(Mt19937::from_int(as_int(v).unwrap_or(0))),
            Some(Value::Float(x)) => Ok(Mt19937::from_int(super::builtins::py_hash(&Value::Float(*x)))),
            Some(v) if as_f64(v).is_some() => Ok(Mt19937::from_int(as_f64(v).unwrap_or(0.0) as i64)),
            Some(other) => super::unsupported(format!(
                "seeding from a {} is not supported by the playground (seed with an int)",
                other.type_name()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_library_module_parses() {
        for module in pylib::modules() {
            let (_, errors) = crate::parser::parse(module.source, 1);
            assert!(errors.is_empty(), "{}: {errors:?}", module.name);
        }
    }
}
