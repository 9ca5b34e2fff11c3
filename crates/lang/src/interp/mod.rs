//! The tree-walking interpreter. Evaluation is async because array operations may run programs
//! on the executor (GPU readback is async); recursion goes through boxed futures.
//!
//! Submodules: `exec` (statements and calls), `eval` (expressions), `value` (runtime values,
//! `str`/`repr`), `ops` (operators on Python values), `objects` (classes, instances and the
//! built-in types), `classes` (class statements, attributes, special methods), `exceptions`
//! (errors, `try`, `raise`), `iterators` (the iteration protocol and generators),
//! `builtins` (builtin functions and methods of lists, dicts and strings), `jax` (the `jax`,
//! `jax.numpy` and `math` modules, array methods and `jax.jit`), `format` (number formatting).

mod ahead;
mod api;
mod arrange;
mod builtins;
mod cache_misses;
mod callbacks;
mod classes;
mod complex;
mod composed;
mod control;
mod custom_derivatives;
mod dtype_info;
mod eval;
mod exceptions;
mod exec;
mod format;
mod host;
mod iterators;
mod jax;
mod linalg;
mod matching;
mod math;
mod mersenne;
mod modules;
mod np_generator;
mod np_random;
mod numeric;
mod objects;
mod ops;
mod pcg64;
mod pmap;
mod pytrees;
mod random;
mod refs;
mod regex;
mod remat;
mod sets;
mod shard_map;
mod sharded;
mod shorthands;
mod tracer_errors;
mod transforms;
mod value;

use crate::ast::{self, Span};
use crate::{Limits, RunOutput, ScriptError, ScriptFailure};
pub use exceptions::{attr_err, err, index_err, type_err, unsupported, value_err, zero_div, RtError, R};
use jaxlite::{Context, DType, LocalFuture, Tensor};
use objects::Builtin;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use value::{as_int, to_str, Function, ModuleId, Native, Value};

/// Evaluation steps a script may take before it is stopped as a runaway loop.
pub const DEFAULT_STEP_BUDGET: u64 = 10_000_000;
/// Python frames a script may nest. Modest, because wasm stacks are small.
pub const DEFAULT_RECURSION_LIMIT: usize = 200;

/// Bytes a script may print: a page shows far less, and a runaway print loop must end.
pub const DEFAULT_OUTPUT_LIMIT: usize = 4 << 20;

/// A scope: a function call's locals, a comprehension's variables, a class body's names, or
/// the module globals.
pub struct Scope {
    vars: RefCell<HashMap<String, Value>>,
    parent: Option<Env>,
    /// For a function scope, the names its body binds (reading one before it is assigned is
    /// an error, not a read of the enclosing scope), parameters first.
    locals: Rc<Vec<String>>,
    /// For a function scope, the function: its `global` and `nonlocal` names are bound
    /// where they are declared.
    def: Option<Rc<ast::FuncDef>>,
    /// A class body's scope, which functions defined in it do not see (Python's rule), and
    /// the order its names were bound in (the class's attributes keep it).
    class_body: bool,
    order: RefCell<Vec<String>>,
}

pub type Env = Rc<Scope>;

fn new_scope(parent: Option<Env>, locals: Rc<Vec<String>>) -> Env {
    Rc::new(Scope {
        vars: RefCell::new(HashMap::new()),
        parent,
        locals,
        def: None,
        class_body: false,
        order: RefCell::new(Vec::new()),
    })
}

impl Scope {
    fn class_body(parent: Env) -> Scope {
        Scope {
            vars: RefCell::new(HashMap::new()),
            parent: Some(parent),
            locals: Rc::new(Vec::new()),
            def: None,
            class_body: true,
            order: RefCell::new(Vec::new()),
        }
    }

    /// The module's scope, at the root of every chain.
    fn root(self: &Rc<Scope>) -> Rc<Scope> {
        let mut s = self.clone();
        while let Some(p) = s.parent.clone() {
            s = p;
        }
        s
    }
}

/// How a statement finished.
pub(crate) enum Flow {
    Normal,
    Return(Value),
    Break,
    Continue,
}

pub struct Interp<'c, 'p> {
    ctx: &'c mut Context,
    limits: Limits,
    steps: u64,
    depth: usize,
    out: RunOutput,
    /// The traces in progress, innermost last, as errors about their tracers describe them.
    tracing: Vec<tracer_errors::TraceSite>,
    /// `exec::stack_position()` when the script started.
    stack_base: usize,
    /// Every scope a function closed over. A function stored in the scope it closes over (any
    /// `def` at the top level) is a reference cycle, so these are emptied when the run ends:
    /// otherwise every run would leak its functions and all they hold (a worker runs many).
    closure_scopes: Vec<std::rc::Weak<Scope>>,
    /// Told where the outermost loop is (see `Progress`), when the caller asked.
    progress: Option<&'p mut dyn FnMut(crate::Progress)>,
    /// Whether a loop is running: only the outermost reports progress.
    in_loop: bool,
    /// `jax_default_matmul_precision` as the run began (the CLI's `--precision`, the page's
    /// setting): what `jax.config.update('jax_default_matmul_precision', None)` goes back to.
    initial_precision: jaxlite::Precision,
    /// The built-in types, made for this run.
    types: objects::Types,
    /// Instances and classes made, emptied when the run ends (see `objects::Made`).
    made: objects::Made,
    /// The exceptions being handled by `except` blocks, innermost last (for a bare `raise`).
    handling: Vec<RtError>,
    /// The modules imported so far, by name.
    modules: HashMap<String, Value>,
    /// When the run started: `time.perf_counter()`'s zero.
    started: web_time::Instant,
    /// `numpy.random`'s global `RandomState`, made on first use.
    np_random: Option<Value>,
    /// The script's classes registered as pytree nodes.
    pytree_nodes: pytrees::Registry,
    /// The library function JAX jits whose body is being traced (see `LIBRARY_JITS` in
    /// `jax.rs`): its next call runs the function itself, once.
    library_jit_body: Option<&'static str>,
    /// The axes of the `jax.pmap` calls being traced, innermost last: each name and its size
    /// (what a collective over it reads).
    axis_env: Vec<(String, usize)>,
    /// The arrays placed on a mesh, and the meshes (see `sharded.rs`).
    placements: sharded::Placements,
    /// The traces of each jitted function, by the function (held weakly) and the `jit`
    /// options: JAX caches traces per function, so `jax.jit(f)(x)` twice traces `f` once.
    jit_caches: HashMap<(usize, String), (value::FnRef, value::JitCache)>,
    /// The qualified name of the script's innermost function being run (`<module>` at the
    /// top level): the function a staged equation's source names (see `mark_source`).
    frame: Rc<str>,
    /// The `re` module's compiled patterns (see `regex.rs`).
    regexes: regex::Cache,
    /// `jax_explain_cache_misses`: whether a jitted function traced again says why (see
    /// `cache_misses.rs`), and the call sites such a function was first seen at.
    explain_cache_misses: bool,
    cache_miss_sites: std::collections::HashSet<String>,
    /// Where the script's innermost call being made is (its callee's start): the call site
    /// JAX's messages name.
    call_site: Option<ast::Span>,
    /// What each trace in progress did to refs, innermost last, and the log of the jit trace
    /// whose function just returned, for its end to discharge (see `refs.rs`).
    ref_logs: Vec<refs::RefLog>,
    finished_ref_log: Option<refs::RefLog>,
}

pub async fn run(
    module: &ast::Module,
    ctx: &mut Context,
    limits: Limits,
    progress: Option<&mut dyn FnMut(crate::Progress)>,
) -> Result<RunOutput, ScriptFailure> {
    let globals = new_scope(None, Rc::new(Vec::new()));
    globals.vars.borrow_mut().insert("__name__".into(), Value::str("__main__"));
    let initial_precision = ctx.default_precision;
    // A loop on the machine gets the script's step budget too (each program's loops in all).
    ctx.loop_limit = limits.steps;
    let mut interp = Interp {
        types: objects::Types::new(),
        made: objects::Made::default(),
        handling: Vec::new(),
        modules: HashMap::new(),
        started: web_time::Instant::now(),
        np_random: None,
        pytree_nodes: pytrees::Registry::default(),
        library_jit_body: None,
        axis_env: Vec::new(),
        placements: sharded::Placements::default(),
        jit_caches: HashMap::new(),
        ctx,
        initial_precision,
        limits,
        steps: 0,
        depth: 0,
        out: RunOutput::default(),
        tracing: Vec::new(),
        stack_base: exec::stack_position(),
        closure_scopes: Vec::new(),
        progress,
        in_loop: false,
        frame: Rc::from("<module>"),
        regexes: regex::Cache::default(),
        explain_cache_misses: false,
        cache_miss_sites: Default::default(),
        call_site: None,
        ref_logs: Vec::new(),
        finished_ref_log: None,
    };
    let result = interp.exec_block(&module.body, &globals).await;
    // `sys.exit()` ends the script cleanly; `sys.exit("message")` or a nonzero code ends it
    // with that as its error.
    let result = match result {
        Err(e) if !e.fatal && interp.is_system_exit(&e) => match interp.exit_code(&e) {
            None => Ok(Flow::Normal),
            Some(message) => Err(RtError::fatal(message)),
        },
        other => other,
    };
    interp.handling.clear();
    interp.made.clear();
    interp.jit_caches.clear();
    // Modules' globals hold their functions, which hold the globals.
    for (_, m) in interp.modules.drain() {
        if let Value::PyModule(m) = m {
            let vars = std::mem::take(&mut *m.scope.vars.borrow_mut());
            dismantle_all(vars.into_values());
        }
    }
    let output = std::mem::take(&mut interp.out);
    let globals_vars = std::mem::take(&mut *globals.vars.borrow_mut());
    dismantle_all(globals_vars.into_values());
    for scope in interp.closure_scopes.drain(..).filter_map(|s| s.upgrade()) {
        // Taken out first: dropping the values may drop other scopes.
        let vars = std::mem::take(&mut *scope.vars.borrow_mut());
        dismantle_all(vars.into_values());
    }
    match result {
        Ok(_) => Ok(output),
        Err(e) => {
            let span = e.span.unwrap_or(Span { line: 1, col: 1, file: 0 });
            let error = ScriptError { message: e.display(), line: span.line, col: span.col };
            Err(ScriptFailure { errors: vec![error], output })
        }
    }
}

/// Drops `values` without recursion: a list nested a hundred thousand deep (`x = [x]` in a
/// loop) would otherwise overflow the native stack when dropped, one drop frame per level.
/// Containers held nowhere else are emptied onto a work list first.
pub(super) fn dismantle(values: impl IntoIterator<Item = Value>) {
    take_apart(values, false);
}

/// `dismantle` at the end of a run, when no value will be used again: shared lists and dicts
/// are emptied too, which also breaks the cycles of a list that contains itself.
fn dismantle_all(values: impl IntoIterator<Item = Value>) {
    take_apart(values, true);
}

fn take_apart(values: impl IntoIterator<Item = Value>, shared_too: bool) {
    // Only containers go on the work list (which allocates only then): this runs at every
    // assignment and every return.
    let mut stack: Vec<Value> = Vec::new();
    let is_container = |v: &Value| matches!(v, Value::List(_) | Value::Tuple(_) | Value::Dict(_));
    stack.extend(values.into_iter().filter(is_container));
    while let Some(v) = stack.pop() {
        match v {
            Value::List(items) => match Rc::try_unwrap(items) {
                Ok(items) => stack.extend(items.into_inner()),
                Err(items) if shared_too => {
                    // Taken first, so no borrow is held while its items drop.
                    let taken = std::mem::take(&mut *items.borrow_mut());
                    stack.extend(taken);
                }
                Err(_) => {}
            },
            Value::Tuple(items) => {
                if let Ok(items) = Rc::try_unwrap(items) {
                    stack.extend(items);
                }
            }
            Value::Dict(dict) => {
                let entries = match Rc::try_unwrap(dict) {
                    Ok(dict) => dict.into_inner().entries,
                    Err(dict) if shared_too => std::mem::take(&mut dict.borrow_mut().entries),
                    Err(_) => Vec::new(),
                };
                for (k, v) in entries {
                    stack.push(k);
                    stack.push(v);
                }
            }
            // Anything else holds no deep nesting of values; it drops here.
            _ => {}
        }
    }
}

impl Interp<'_, '_> {
    /// Starts reporting a loop's iterations if it is the outermost loop and someone listens;
    /// returns whether it did (the caller ends it with `end_loop`).
    fn begin_loop(&mut self) -> bool {
        let outer = self.progress.is_some() && !self.in_loop;
        self.in_loop |= outer;
        outer
    }

    fn end_loop(&mut self, outer: bool) {
        if outer {
            self.in_loop = false;
        }
    }

    fn report(&mut self, line: u32, iteration: u64, total: Option<u64>) {
        let steps = self.steps;
        if let Some(progress) = self.progress.as_mut() {
            progress(crate::Progress { line, iteration, total, steps });
        }
    }

    fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return Err(RtError::fatal(format!(
                "the script was stopped after {} evaluation steps; is there an infinite loop?",
                self.limits.steps
            )));
        }
        Ok(())
    }

    fn lookup(&self, name: &str, env: &Env) -> R<Value> {
        let mut scope = Some(env);
        if env.def.as_ref().is_some_and(|d| d.globals.iter().any(|g| g == name)) {
            let root = env.root();
            if let Some(v) = root.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            scope = None;
        }
        while let Some(s) = scope {
            if let Some(v) = s.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            if s.locals.iter().any(|l| l == name) {
                return Err(RtError::of(
                    Builtin::UnboundLocalError,
                    format!("cannot access local variable '{name}' where it is not associated with a value"),
                ));
            }
            scope = s.parent.as_ref();
        }
        self.builtin_name(name).ok_or_else(|| RtError::of(Builtin::NameError, format!("name '{name}' is not defined")))
    }

    /// A name of the `builtins` module: a function, a type, an exception, a constant.
    fn builtin_name(&self, name: &str) -> Option<Value> {
        if let Some(b) = Builtin::named(name) {
            return Some(Value::Class(self.types.get(b)));
        }
        match name {
            "NotImplemented" => Some(Value::NotImplemented),
            "Ellipsis" => Some(Value::Ellipsis),
            // Aliases CPython keeps for `OSError`.
            "IOError" | "EnvironmentError" => Some(Value::Class(self.types.get(Builtin::OSError))),
            _ => builtins::lookup(name),
        }
    }

    /// Binds `name` in `env`, or where the function declared it `global` or `nonlocal`.
    fn bind(&self, env: &Env, name: &str, value: Value) {
        let mut target = env.clone();
        if let Some(def) = &env.def {
            if def.globals.iter().any(|g| g == name) {
                target = env.root();
            } else if def.nonlocals.iter().any(|g| g == name) {
                let mut s = env.parent.clone();
                while let Some(scope) = s {
                    if !scope.class_body && scope.parent.is_some() && scope.vars.borrow().contains_key(name) {
                        target = scope;
                        break;
                    }
                    s = scope.parent.clone();
                }
            }
        }
        if target.class_body && !target.vars.borrow().contains_key(name) {
            target.order.borrow_mut().push(name.to_string());
        }
        let old = target.vars.borrow_mut().insert(name.to_string(), value);
        // (A deeply nested old value is taken apart without recursion.)
        dismantle(old);
    }

    /// `del name`.
    fn unbind(&self, env: &Env, name: &str) -> R<()> {
        let mut target = env.clone();
        if env.def.as_ref().is_some_and(|d| d.globals.iter().any(|g| g == name)) {
            target = env.root();
        }
        let old = target.vars.borrow_mut().remove(name);
        match old {
            Some(v) => {
                dismantle([v]);
                Ok(())
            }
            None => Err(RtError::of(Builtin::NameError, format!("name '{name}' is not defined"))),
        }
    }

    /// Enters a Python call: one frame deeper, within the recursion limit.
    fn enter_call(&mut self) -> R<()> {
        // Both limits give one message, so what a script sees does not depend on which
        // fires first (in an unoptimised build, the stack does).
        if self.depth >= self.limits.recursion
            || self.stack_base.saturating_sub(exec::stack_position()) > exec::STACK_BUDGET
        {
            return Err(RtError::of(
                Builtin::RecursionError,
                format!(
                    "maximum recursion depth exceeded (the playground allows {} nested calls, fewer when \
                     the interpreter's stack runs out first)",
                    self.limits.recursion
                ),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// Whether `e` is `SystemExit` (`sys.exit()`).
    fn is_system_exit(&self, e: &RtError) -> bool {
        match &e.exception {
            Some(Value::Instance(i)) => i.class.derives(Builtin::SystemExit),
            _ => e.kind == Builtin::SystemExit,
        }
    }

    /// What ending a script with `e`, a `SystemExit`, says: nothing for `sys.exit()` or
    /// `sys.exit(0)`, else the message or code.
    fn exit_code(&self, e: &RtError) -> Option<String> {
        let code = match &e.exception {
            Some(Value::Instance(i)) => match &*i.base.borrow() {
                Value::Tuple(t) if t.len() == 1 => t[0].clone(),
                Value::Tuple(t) if t.is_empty() => Value::None,
                other => other.clone(),
            },
            _ => Value::None,
        };
        match code {
            Value::None | Value::Int(0) => None,
            Value::Int(n) => Some(format!("the script exited with status {n} (sys.exit)")),
            other => Some(value::to_str(&other)),
        }
    }

    /// `v`, or the value it stands for where it is a tracer that has one (a value being
    /// differentiated outside `jit`): what Python's `if`, `while`, `bool`, `int` and indexing
    /// read, as JAX's JVP tracers hand them their primals. Other tracers come back as they are,
    /// for the caller's error.
    pub(super) async fn concrete(&mut self, v: Value) -> R<Value> {
        let Value::Array(Tensor::Traced(t)) = &v else {
            return Ok(v);
        };
        Ok(match self.ctx.concrete_value(t).await? {
            Some(a) => Value::Array(Tensor::Concrete(a)),
            None => v,
        })
    }

    /// `bool(v)`, reading a tracer's value where it has one (`concrete`), and calling a
    /// class's `__bool__` (or `__len__`).
    pub(super) fn truth<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<bool>> {
        Box::pin(async move {
            if matches!(v, Value::Instance(_) | Value::Class(_)) {
                if let Some(b) = self.call_special(v, "__bool__", vec![]).await? {
                    return match b {
                        Value::Bool(b) => Ok(b),
                        other => type_err(format!("__bool__ should return bool, returned {}", other.type_name())),
                    };
                }
                if let Some(n) = self.call_special(v, "__len__", vec![]).await? {
                    return Ok(value::as_int(&n).unwrap_or(0) != 0);
                }
                let base = classes::unwrap_base(v);
                if !matches!(base, Value::Instance(_)) && !matches!(v, Value::Class(_)) {
                    return self.truthy(&base);
                }
                return Ok(true);
            }
            let v = self.concrete(v.clone()).await?;
            self.truthy(&v)
        })
    }

    /// `bool(v)`, with JAX's errors for arrays.
    fn truthy(&self, v: &Value) -> R<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(x) => *x != 0.0,
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.borrow().is_empty(),
            Value::Tuple(t) => !t.is_empty(),
            Value::Dict(d) => !d.borrow().entries.is_empty(),
            Value::Set(s) => !s.items.borrow().is_empty(),
            Value::Range { start, stop, step } => range_iter(*start, *stop, *step).next().is_some(),
            Value::Array(Tensor::Concrete(a)) => {
                match a.scalar_f64() {
                    Some(x) => x != 0.0,
                    None if a.size() == 0 => false,
                    None => return value_err(
                        "The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()",
                    ),
                }
            }
            Value::Array(Tensor::Traced(t)) => return Err(tracer_errors::bool_conversion(t)),
            Value::Host(h) => return self.truthy(&Value::Array(Tensor::Concrete(h.get()))),
            _ => true,
        })
    }

    /// The elements of an iterable, in order.
    fn iterate(&self, v: &Value) -> R<Vec<Value>> {
        Ok(match v {
            Value::List(l) => l.borrow().clone(),
            Value::Tuple(t) => t.to_vec(),
            Value::Str(s) => s.chars().map(|c| Value::str(&c.to_string())).collect(),
            Value::Dict(d) => d.borrow().entries.iter().map(|(k, _)| k.clone()).collect(),
            Value::Range { start, stop, step } => {
                if range_len(*start, *stop, *step) > self.limits.steps as i128 {
                    return exceptions::raise(objects::Builtin::OverflowError, "range too large to materialise; iterate over it with a for loop");
                }
                range_iter(*start, *stop, *step).map(Value::Int).collect()
            }
            Value::Array(Tensor::Concrete(a)) => {
                crate::jnp_extra::rows(a).map_err(RtError::from)?.into_iter().map(Value::array).collect()
            }
            Value::Key(k) => k.rows()?,
            Value::Host(h) => {
                let rows = crate::jnp_extra::rows(&h.get()).map_err(RtError::from)?;
                rows.into_iter().map(|a| Value::host(a, true)).collect()
            }
            Value::Set(s) => s.iteration_order(),
            Value::Instance(_) | Value::Iterator(_) => {
                return type_err(format!(
                    "a '{}' cannot be read here: the playground reads only lists, tuples, dicts, sets, strings, ranges and arrays here",
                    v.type_name()
                ))
            }
            // `iterate_values` indexes a traced array's rows (which adds equations).
            Value::Array(Tensor::Traced(t)) => {
                return err(format!(
                    "iterating over a traced array ({}) is not supported here yet",
                    value::aval_text(&t.aval)
                ))
            }
            other => return err(format!("'{}' object is not iterable", other.type_name())),
        })
    }

    /// The elements of an iterable, where a traced array's are its rows along the first axis,
    /// each an index equation (`a, b = jax.random.split(key)` inside `jit`), as JAX unstacks it.
    fn iterate_values<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<Vec<Value>>> {
        Box::pin(async move {
            if matches!(v, Value::Instance(_) | Value::Iterator(_) | Value::Class(_)) {
                return self.collect(v).await;
            }
            let Value::Array(t @ Tensor::Traced(tracer)) = v else {
                return self.iterate(v);
            };
            let Some(&n) = tracer.aval.shape.first() else {
                return err("iteration over a 0-d array");
            };
            let mut rows = Vec::with_capacity(n);
            for i in 0..n {
                rows.push(self.index_array(t, &Value::Int(i as i64)).await?);
            }
            Ok(rows)
        })
    }

    fn slice_bound(&self, v: &Value) -> R<Option<i64>> {
        match v {
            Value::None => Ok(None),
            Value::Int(i) => Ok(Some(*i)),
            Value::Bool(b) => Ok(Some(*b as i64)),
            // JAX's IndexError for a traced bound: a slice's length must be known when tracing.
            Value::Array(Tensor::Traced(t)) => index_err(format!(
                "Array slice indices must have static start/stop/step to be used with NumPy indexing syntax; this one is a traced {}. To index a statically sized array at a dynamic position, try lax.dynamic_slice or lax.dynamic_index_in_dim",
                value::aval_text(&t.aval)
            )),
            Value::Array(_) | Value::Host(_) => Ok(Some(self.to_index(v)?)),
            other => err(format!("slice indices must be integers or None, not {}", other.type_name())),
        }
    }

    /// An index into a list, tuple, string or range, with CPython's message for a wrong type.
    fn seq_position(&self, v: &Value, kind: &str) -> R<i64> {
        match v {
            Value::Int(_) | Value::Bool(_) | Value::Array(_) | Value::Host(_) => self.to_index(v),
            other if kind == "string" => {
                type_err(format!("string indices must be integers, not '{}'", other.type_name()))
            }
            Value::Native(n) if matches!(**n, Native::ObjectSlice(_)) => {
                type_err("slice indices must be integers or None or have an __index__ method")
            }
            other => type_err(format!("{kind} indices must be integers or slices, not {}", other.type_name())),
        }
    }

    /// An integer index: a Python int, or a concrete integer scalar array.
    fn to_index(&self, v: &Value) -> R<i64> {
        match v {
            Value::Int(_) | Value::Bool(_) => Ok(as_int(v).unwrap_or(0)),
            Value::Array(Tensor::Concrete(a)) if !a.dtype().is_float() && a.size() == 1 => {
                Ok(a.scalar_f64().unwrap_or(0.0) as i64)
            }
            // A list index, a range bound, a count: all need the value while tracing, which a
            // tracer does not have (JAX's TracerIntegerConversionError).
            Value::Array(Tensor::Traced(t)) => Err(tracer_errors::concretization(t, "index")),
            Value::Host(h) => self.to_index(&Value::Array(Tensor::Concrete(h.get()))),
            other => err(format!("indices must be integers, not {}", other.type_name())),
        }
    }

    fn get_item<'a>(&'a mut self, obj: &'a Value, index: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Value::Instance(inst) = obj {
                if let Some(v) = self.call_special(obj, "__getitem__", vec![index.clone()]).await? {
                    return Ok(v);
                }
                let base = inst.base.borrow().clone();
                if let Value::Dict(d) = &base {
                    // A dict subclass's `__missing__` (`defaultdict`) answers for absent keys.
                    value::check_hashable(index)?;
                    let found = d.borrow().get(index).cloned();
                    return match found {
                        Some(v) => Ok(v),
                        None => match self.call_special(obj, "__missing__", vec![index.clone()]).await? {
                            Some(v) => Ok(v),
                            None => Err(RtError::key(index)),
                        },
                    };
                }
                if !matches!(base, Value::None) && inst.class.layout() != Some(Builtin::BaseException) {
                    return self.get_item(&base, index).await;
                }
                return type_err(format!("'{}' object is not subscriptable", obj.type_name()));
            }
            if let Value::Class(c) = obj {
                if let Some(v) = self.call_special(obj, "__getitem__", vec![index.clone()]).await? {
                    return Ok(v);
                }
                if let Some(f) = c.lookup("__class_getitem__") {
                    let f = classes::unwrap_method(f);
                    return self.call(f, vec![obj.clone(), index.clone()], vec![]).await;
                }
                // `list[int]`, `dict[str, float]` in annotations: the type itself stands for
                // the generic alias.
                if c.builtin.is_some() {
                    return Ok(obj.clone());
                }
                return type_err(format!("type '{}' is not subscriptable", c.name));
            }
            let seq_index = |len: usize, i: i64, what: &str| -> R<usize> {
                let n = len as i64;
                let j = if i < 0 { i + n } else { i };
                if (0..n).contains(&j) {
                    Ok(j as usize)
                } else {
                    index_err(format!("{what} index out of range"))
                }
            };
            // A differentiated value indexes a sequence by its value, as in JAX (`__index__`).
            let index = &match obj {
                Value::List(_) | Value::Tuple(_) | Value::Str(_) | Value::Range { .. } => {
                    self.concrete(index.clone()).await?
                }
                _ => index.clone(),
            };
            match (obj, index) {
                (Value::List(l), Value::Slice(a, b, c)) => Ok(Value::list(slice_items(&l.borrow(), *a, *b, *c)?)),
                (Value::Tuple(t), Value::Slice(a, b, c)) => Ok(Value::tuple(slice_items(t, *a, *b, *c)?)),
                (Value::Str(s), Value::Slice(a, b, c)) => {
                    let chars: Vec<Value> = s.chars().map(|c| Value::str(&c.to_string())).collect();
                    Ok(Value::str(&slice_items(&chars, *a, *b, *c)?.iter().map(to_str).collect::<String>()))
                }
                (Value::List(l), i) => {
                    let l = l.borrow();
                    Ok(l[seq_index(l.len(), self.seq_position(i, "list")?, "list")?].clone())
                }
                (Value::Tuple(t), i) => Ok(t[seq_index(t.len(), self.seq_position(i, "tuple")?, "tuple")?].clone()),
                (Value::Str(s), i) => {
                    let chars: Vec<char> = s.chars().collect();
                    Ok(Value::str(
                        &chars[seq_index(chars.len(), self.seq_position(i, "string")?, "string")?].to_string(),
                    ))
                }
                (Value::Range { start, stop, step }, Value::Slice(a, b, c)) => {
                    // A range's slice is a range (`range(10)[2:5]` is `range(2, 5)`), by the
                    // bounds CPython's slice.indices() gives, without listing the elements.
                    let n = range_len(*start, *stop, *step);
                    let k = c.unwrap_or(1) as i128;
                    if k == 0 {
                        return value_err("slice step cannot be zero");
                    }
                    let (lower, upper) = if k > 0 { (0, n) } else { (-1, n - 1) };
                    let bound = |v: Option<i64>, default: i128| match v {
                        None => default,
                        Some(v) => {
                            let v = v as i128;
                            (if v < 0 { v + n } else { v }).clamp(lower, upper)
                        }
                    };
                    let (i, j) =
                        (bound(*a, if k > 0 { lower } else { upper }), bound(*b, if k > 0 { upper } else { lower }));
                    let at = |i: i128| {
                        i64::try_from(*start as i128 + i * *step as i128).map_err(|_| exceptions::int_overflow())
                    };
                    let new_step = i64::try_from(*step as i128 * k).map_err(|_| exceptions::int_overflow())?;
                    Ok(Value::Range { start: at(i)?, stop: at(j)?, step: new_step })
                }
                (Value::Range { start, stop, step }, i) => {
                    let n = range_len(*start, *stop, *step).min(usize::MAX as i128) as usize;
                    let k = seq_index(n, self.seq_position(i, "range")?, "range")?;
                    Ok(Value::Int(start.wrapping_add(step.wrapping_mul(k as i64))))
                }
                (Value::Dict(d), key) => {
                    value::check_hashable(key)?;
                    let key = self.existing_key(obj, key).await?;
                    let found = d.borrow().get(&key).cloned();
                    match found {
                        Some(v) => Ok(v),
                        None => Err(RtError::key_text(&self.py_repr(&key).await?, key.clone())),
                    }
                }
                (Value::Array(t), index) => self.index_array(t, index).await,
                (Value::Host(h), index) => self.host_get_item(h, index).await,
                (r, index) if refs::ref_cell(r).is_some() => self.ref_get(r, index).await,
                (Value::Native(n), index) if matches!(&**n, Native::Method(Value::Array(_), "at")) => {
                    let Native::Method(x, _) = &**n else { unreachable!("matched above") };
                    Ok(Value::native(Native::Method(Value::tuple(vec![x.clone(), index.clone()]), "at[]")))
                }
                (Value::Key(k), Value::Slice(a, b, c)) => {
                    // `keys[1:]`: the rows picked, stacked again.
                    let rows = slice_items(&k.rows()?, *a, *b, *c)?;
                    let mut shape = k.shape.clone();
                    shape[0] = rows.len();
                    let words = rows
                        .iter()
                        .flat_map(|r| match r {
                            Value::Key(row) => row.words.clone(),
                            _ => Vec::new(),
                        })
                        .collect();
                    Ok(Value::Key(Rc::new(random::Keys { shape, words, typed: k.typed })))
                }
                (Value::Key(k), i) => k.index(self.to_index(i)?),
                (other, _) => err(format!("'{}' object is not subscriptable", other.type_name())),
            }
        })
    }

    // ---- calls ----

    fn call<'a>(&'a mut self, f: Value, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match f {
                Value::Function(func) => self.call_function(&func, args, kwargs).await,
                Value::Native(native) => self.call_native(&native, args, kwargs).await,
                Value::Class(class) => self.call_class(&class, args, kwargs).await,
                Value::BoundMethod(m) => {
                    let mut all = Vec::with_capacity(args.len() + 1);
                    all.push(m.receiver.clone());
                    all.extend(args);
                    self.call(m.func.clone(), all, kwargs).await
                }
                Value::Instance(_) => match self.special(&f, "__call__") {
                    Some(call) => self.call(call, args, kwargs).await,
                    None => type_err(format!("'{}' object is not callable", f.type_name())),
                },
                other => type_err(format!("'{}' object is not callable", other.type_name())),
            }
        })
    }

    fn call_native<'a>(
        &'a mut self,
        native: &'a Rc<Native>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match &**native {
                Native::Builtin(name) => self.call_builtin(name, args, kwargs).await,
                Native::Method(recv, name) => self.call_method(recv, name, args, kwargs).await,
                Native::Math(name) => {
                    // The functions that take an iterable get it read into a list first.
                    let mut args = args;
                    if matches!(*name, "prod" | "fsum" | "dist" | "sumprod") {
                        for a in args.iter_mut() {
                            if matches!(a, Value::Iterator(_) | Value::Instance(_) | Value::Dict(_) | Value::Str(_)) {
                                *a = Value::list(self.collect(a).await?);
                            }
                        }
                    }
                    math::call(name, &args, &kwargs)
                }
                Native::Jnp(name) => {
                    let result = self.call_jnp(name, args, kwargs).await;
                    // A scalar type (`jnp.float64(x)`) converts with `asarray`.
                    let site = if DType::from_name(name).is_some() { "asarray" } else { name };
                    self.warn_truncation(Some(site)).await?;
                    result
                }
                Native::Np(name) => self.call_np(name, args, kwargs).await,
                Native::NpRandom(name) => self.call_np_random(name, args, kwargs).await,
                Native::Nn(name) => self.call_nn(name, args, kwargs).await,
                Native::Lax(name) => self.call_lax(name, args, kwargs).await,
                Native::Jax(name) => self.call_jax(name, args, kwargs).await,
                Native::Random(name) => {
                    let result = self.call_random(name, args, kwargs).await;
                    self.warn_truncation(None).await?;
                    result
                }
                Native::Partial { func, args: bound, kwargs: bound_kw } => {
                    let mut all = bound.clone();
                    all.extend(args);
                    let mut kw = bound_kw.clone();
                    kw.extend(kwargs);
                    self.call(func.clone(), all, kw).await
                }
                Native::Jitted(j) => self.call_jitted(j, args, kwargs).await,
                Native::Checkpointed(c) => self.call_checkpointed(c, args, kwargs).await,
                Native::AotCompiled(c) => self.call_compiled(c, args, kwargs).await,
                Native::MakeJaxpr { func, static_argnums } => {
                    self.make_jaxpr(func.clone(), static_argnums, args, kwargs).await
                }
                Native::Transformed(t) => self.call_transformed(t, args, kwargs).await,
                Native::Vmapped(v) => self.call_vmapped(v, args, kwargs).await,
                Native::Pmapped(p) => self.call_pmapped(p, args, kwargs).await,
                Native::VjpFn(f) => {
                    builtins::no_more_kwargs("vjp_fun", &kwargs)?;
                    self.call_vjp_fn(f, args).await
                }
                Native::LinearizedFn(f) => {
                    builtins::no_more_kwargs("linearized_jvp", &kwargs)?;
                    self.call_linearized(f, args).await
                }
                Native::PrecisionScope(_) => err("'_GeneratorContextManager' object is not callable"),
                Native::CustomJvp(_) => self.call_custom_jvp(native, args, kwargs).await,
                Native::CustomVjp(_) => self.call_custom_vjp(native, args, kwargs).await,
                Native::TreeDef(_) => err("'jaxlib._jax.pytree.PyTreeDef' object is not callable"),
                Native::StaticMethod(f) | Native::ClassMethod(f) => self.call(f.clone(), args, kwargs).await,
                Native::TypeMethod(b, name) => self.call_type_method(*b, name, args, kwargs).await,
                Native::Library(module, name) => self.call_library(module, name, args, kwargs).await,
                Native::Property { .. }
                | Native::Super { .. }
                | Native::Mersenne(_)
                | Native::Ref(_)
                | Native::NpRandomState(_)
                | Native::NpGenerator(_) => {
                    type_err(format!("'{}' object is not callable", Value::Native(native.clone()).type_name()))
                }
                Native::ShapeDtypeStruct(_) => err("'ShapeDtypeStruct' object is not callable"),
                // JAX calls a policy with its primitives, which are not Python objects here.
                Native::RematPolicy(p) => unsupported(format!(
                    "calling the checkpoint policy {} (pass it to jax.checkpoint as policy=)",
                    p.param()
                )),
                Native::Lowered(_) => type_err("'Lowered' object is not callable"),
                Native::MemoryStats(_) => type_err("'CompiledMemoryStats' object is not callable"),
                Native::ObjectSlice(_) => err("'slice' object is not callable"),
                Native::DTypeInfo(_) => {
                    err(format!("'{}' object is not callable", Value::Native(native.clone()).type_name()))
                }
            }
        })
    }

    /// Attribute access: module members, array properties and bound methods.
    fn get_attr<'a>(&'a mut self, obj: &'a Value, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match obj {
                Value::Instance(_) => self.instance_attr(obj, name).await,
                Value::Class(c) => self.class_attr(c, name).await,
                // Every object has its type (`(1).__class__ is int`).
                _ if name == "__class__" => Ok(Value::Class(self.class_of(obj))),
                Value::BoundMethod(m) => match name {
                    "__self__" => Ok(m.receiver.clone()),
                    "__func__" => Ok(m.func.clone()),
                    _ => self.get_attr(&m.func, name).await,
                },
                Value::Function(f) => match name {
                    "__name__" => Ok(Value::Str(f.name.borrow().clone())),
                    "__qualname__" => {
                        Ok(f.attrs.borrow().get("__qualname__").cloned().unwrap_or_else(|| Value::str(&f.def.qualname)))
                    }
                    "__module__" => Ok(Value::str("__main__")),
                    "__doc__" => Ok(f.attrs.borrow().get("__doc__").cloned().unwrap_or_else(|| docstring(&f.def.body))),
                    "__defaults__" if f.defaults.is_empty() => Ok(Value::None),
                    "__defaults__" => Ok(Value::tuple(f.defaults.clone())),
                    "__dict__" => {
                        let entries =
                            f.attrs.borrow().0.iter().map(|(k, v)| (Value::Str(k.clone()), v.clone())).collect();
                        Ok(Value::Dict(Rc::new(RefCell::new(value::Dict { entries }))))
                    }
                    _ => f
                        .attrs
                        .borrow()
                        .get(name)
                        .cloned()
                        .map_or_else(|| attr_err(format!("'function' object has no attribute '{name}'")), Ok),
                },
                Value::Native(n) if matches!(&**n, Native::Super { .. }) => {
                    let Native::Super { class, obj } = &**n else { unreachable!("matched above") };
                    self.super_attr(class, obj, name).await
                }
                Value::Native(n) if matches!(&**n, Native::Property { .. }) => {
                    let Native::Property { fget, fset, fdel, doc } = &**n else { unreachable!("matched above") };
                    match name {
                        "fget" => Ok(fget.clone()),
                        "fset" => Ok(fset.clone()),
                        "fdel" => Ok(fdel.clone()),
                        "__doc__" => Ok(doc.clone()),
                        "setter" | "getter" | "deleter" => Ok(Value::native(Native::Method(
                            obj.clone(),
                            match name {
                                "setter" => "property.setter",
                                "getter" => "property.getter",
                                _ => "property.deleter",
                            },
                        ))),
                        _ => attr_err(format!("'property' object has no attribute '{name}'")),
                    }
                }
                Value::Native(n) if matches!(&**n, Native::Partial { .. }) => {
                    let Native::Partial { func, args, kwargs } = &**n else { unreachable!("matched above") };
                    match name {
                        "func" => Ok(func.clone()),
                        "args" => Ok(Value::tuple(args.clone())),
                        "keywords" => {
                            let entries = kwargs.iter().map(|(k, v)| (Value::str(k), v.clone())).collect();
                            Ok(Value::Dict(Rc::new(RefCell::new(value::Dict { entries }))))
                        }
                        _ => attr_err(format!("'functools.partial' object has no attribute '{name}'")),
                    }
                }
                Value::Native(n) if matches!(&**n, Native::StaticMethod(_) | Native::ClassMethod(_)) => {
                    match (&**n, name) {
                        (Native::StaticMethod(f) | Native::ClassMethod(f), "__func__") => Ok(f.clone()),
                        (Native::StaticMethod(f) | Native::ClassMethod(f), _) => self.get_attr(f, name).await,
                        _ => unreachable!("matched above"),
                    }
                }
                Value::Iterator(_) => match name {
                    "__next__" | "send" | "close" | "throw" | "__iter__" => Ok(Value::native(Native::Method(
                        obj.clone(),
                        match name {
                            "__next__" => "__next__",
                            "send" => "send",
                            "close" => "close",
                            "throw" => "throw",
                            _ => "__iter__",
                        },
                    ))),
                    _ => attr_err(format!("'{}' object has no attribute '{name}'", obj.type_name())),
                },
                Value::PyModule(m) => self.py_module_attr(m, name).await,
                Value::Native(n) if matches!(&**n, Native::ObjectSlice(_)) => {
                    let Native::ObjectSlice(bounds) = &**n else { return err("expected a slice") };
                    match name {
                        "start" => Ok(bounds[0].clone()),
                        "stop" => Ok(bounds[1].clone()),
                        "step" => Ok(bounds[2].clone()),
                        _ => attr_err(format!("'slice' object has no attribute '{name}'")),
                    }
                }
                Value::Slice(start, stop, step) => {
                    let bound = |b: &Option<i64>| b.map_or(Value::None, Value::Int);
                    match name {
                        "start" => Ok(bound(start)),
                        "stop" => Ok(bound(stop)),
                        "step" => Ok(bound(step)),
                        _ => attr_err(format!("'slice' object has no attribute '{name}'")),
                    }
                }
                Value::Module(m) => {
                    // A package's submodule written in Python (`jax.example_libraries`).
                    let sub = format!("{}.{name}", m.name());
                    if pylib::module(&sub).is_some() {
                        return self.import(&sub).await;
                    }
                    if let Some(source) = pylib::defining_module(m.name(), name) {
                        let module = self.import(source).await?;
                        return self.get_attr(&module, name).await;
                    }
                    if *m == ModuleId::Jax && name == "__version__" {
                        return Ok(Value::str(modules::JAX_VERSION));
                    }
                    match m {
                        ModuleId::NpLinalg if name == "LinAlgError" => {
                            Ok(Value::Class(self.types.get(Builtin::LinAlgError)))
                        }
                        ModuleId::Errors => match Builtin::in_module("jax.errors", name) {
                            Some(b) => Ok(Value::Class(self.types.get(b))),
                            None => exceptions::raise(
                                Builtin::AttributeError,
                                format!("module 'jax.errors' has no attribute '{name}'"),
                            ),
                        },
                        ModuleId::HostNumpy | ModuleId::NpRandom | ModuleId::NpLinalg | ModuleId::NpTesting => {
                            host::module_attr(*m, name)
                        }
                        _ => jax::module_attr(*m, name),
                    }
                }
                Value::Native(n) if matches!(&**n, Native::NpGenerator(_)) => {
                    match np_generator::METHODS.iter().find(|&&f| f == name) {
                        Some(f) => Ok(Value::native(Native::Method(obj.clone(), f))),
                        None => {
                            attr_err(format!("'numpy.random._generator.Generator' object has no attribute '{name}'"))
                        }
                    }
                }
                Value::Native(n) if matches!(&**n, Native::Ref(_)) => self.ref_attr(obj, name),
                Value::Native(n) if matches!(&**n, Native::NpRandomState(_)) => {
                    match np_random::FUNCTIONS.iter().find(|&&f| f == name && f != "RandomState") {
                        Some(f) => Ok(Value::native(Native::Method(obj.clone(), f))),
                        None => attr_err(format!("'numpy.random.mtrand.RandomState' object has no attribute '{name}'")),
                    }
                }
                Value::Array(_) => self.array_attr(obj, name).await,
                // A key's type as an array's: `key<fry>[...]` typed, `uint32[..., 2]` raw.
                Value::Key(k) if matches!(name, "shape" | "ndim" | "size" | "dtype") => {
                    let array = Value::Array(Tensor::from(k.to_array()));
                    self.array_attr(&array, name).await
                }
                Value::Host(h) => self.host_attr(h, name).await,
                Value::Native(n) if matches!(&**n, Native::Jax("ShapeDtypeStruct")) && name == "like" => {
                    Ok(Value::native(Native::Jax("ShapeDtypeStruct.like")))
                }
                Value::Native(n) if matches!(&**n, Native::ShapeDtypeStruct(_)) => {
                    let Native::ShapeDtypeStruct(aval) = &**n else { return err("expected a ShapeDtypeStruct") };
                    match name {
                        "shape" => Ok(Value::tuple(aval.shape.iter().map(|&d| Value::Int(d as i64)).collect())),
                        "dtype" => Ok(Value::DType(aval.dtype)),
                        "ndim" => Ok(Value::Int(aval.rank() as i64)),
                        "size" => Ok(Value::Int(aval.size() as i64)),
                        "weak_type" => Ok(Value::Bool(aval.weak_type)),
                        _ => attr_err(format!("'ShapeDtypeStruct' object has no attribute '{name}'")),
                    }
                }
                // NumPy's scalar classes, concrete (`np.float32.__name__`) or abstract.
                Value::Native(n)
                    if matches!(name, "__name__" | "__qualname__")
                        && matches!(&**n, Native::Np(c) | Native::Jnp(c)
                            if DType::from_name(c).is_some() || dtype_info::JNP_ABSTRACT_DTYPES.contains(c)) =>
                {
                    let (Native::Np(c) | Native::Jnp(c)) = &**n else { unreachable!("matched above") };
                    Ok(Value::str(c))
                }
                Value::Native(n) if matches!(&**n, Native::DTypeInfo(_)) => match &**n {
                    Native::DTypeInfo(DType::I32) => dtype_info::iinfo_attr(name),
                    Native::DTypeInfo(dtype) => dtype_info::finfo_attr(*dtype, name),
                    _ => unreachable!("matched above"),
                },
                Value::DType(d) => match name {
                    "name" => Ok(Value::str(d.name())),
                    "itemsize" => Ok(Value::Int(d.size_bytes() as i64)),
                    _ => attr_err(format!("'numpy.dtype' object has no attribute '{name}'")),
                },
                Value::Native(n) if matches!(&**n, Native::Method(_, "at[]")) => {
                    let Native::Method(target, _) = &**n else { unreachable!("matched above") };
                    match name {
                        "set" => Ok(Value::native(Native::Method(target.clone(), "at.set"))),
                        "add" => Ok(Value::native(Native::Method(target.clone(), "at.add"))),
                        "multiply" => Ok(Value::native(Native::Method(target.clone(), "at.multiply"))),
                        "max" => Ok(Value::native(Native::Method(target.clone(), "at.max"))),
                        "min" => Ok(Value::native(Native::Method(target.clone(), "at.min"))),
                        "get" => Ok(Value::native(Native::Method(target.clone(), "at.get"))),
                        _ => unsupported(format!(
                            "x.at[...].{name} is not supported by the playground yet (set, add, multiply, min, max and get are)"
                        )),
                    }
                }
                Value::Native(n) if matches!(&**n, Native::CustomJvp(_)) => match name {
                    "defjvp" => Ok(Value::native(Native::Method(obj.clone(), "defjvp"))),
                    "defjvps" => Ok(Value::native(Native::Method(obj.clone(), "defjvps"))),
                    _ => attr_err(format!("'custom_jvp' object has no attribute '{name}'")),
                },
                // `jax.jit(f).trace(*args)`: the traced function, whose `.jaxpr` prints.
                Value::Native(n) if matches!(&**n, Native::Jitted(_)) && name == "trace" => {
                    Ok(Value::native(Native::Method(obj.clone(), "trace")))
                }
                Value::Native(n) if matches!(&**n, Native::Jitted(_)) && name == "lower" => {
                    Ok(Value::native(Native::Method(obj.clone(), "lower")))
                }
                Value::Native(n)
                    if matches!(&**n, Native::Lowered(_) | Native::AotCompiled(_) | Native::MemoryStats(_)) =>
                {
                    self.aot_attr(obj, n, name).await
                }
                Value::Jaxpr(_) if name == "jaxpr" => Ok(obj.clone()),
                Value::Native(n) if matches!(&**n, Native::TreeDef(_)) => match (&**n, name) {
                    (Native::TreeDef(t), "num_leaves") => Ok(Value::Int(t.num_leaves() as i64)),
                    _ => attr_err(format!("'jaxlib._jax.pytree.PyTreeDef' object has no attribute '{name}'")),
                },
                Value::Native(n) if matches!(&**n, Native::CustomVjp(_)) => match name {
                    "defvjp" => Ok(Value::native(Native::Method(obj.clone(), "defvjp"))),
                    _ => attr_err(format!("'custom_vjp' object has no attribute '{name}'")),
                },
                _ => builtins::method(obj, name),
            }
        })
    }
}

/// Binds call arguments to parameters with Python's rules and messages.
fn bind_arguments(f: &Function, args: Vec<Value>, kwargs: Vec<(String, Value)>, scope: &Env) -> R<()> {
    let def = &f.def;
    let n = def.params.len();
    let required = def.params.iter().filter(|p| p.default.is_none()).count();
    // Named as CPython 3.11 names the code: by where it is defined (`Point.__init__()`,
    // `outer.<locals>.inner()`), whatever `__name__` a decorator gave it since.
    let name = &def.qualname;
    if args.len() > n && def.vararg.is_none() {
        let takes = if required == n { format!("{n}") } else { format!("from {required} to {n}") };
        let plural = if n == 1 && required == n { "argument" } else { "arguments" };
        let given = args.len();
        let keyword_only = kwargs.iter().filter(|(k, _)| def.keyword_only.iter().any(|p| &p.name == k)).count();
        let given = match keyword_only {
            0 if given == 1 => "1 was".to_string(),
            0 => format!("{given} were"),
            k => format!(
                "{given} positional argument{} (and {k} keyword-only argument{}) were",
                if given == 1 { "" } else { "s" },
                if k == 1 { "" } else { "s" }
            ),
        };
        return err(format!("{name}() takes {takes} positional {plural} but {given} given"));
    }
    // One slot per parameter: the positional ones, then the keyword-only ones.
    let params: Vec<&ast::Param> = def.params.iter().chain(&def.keyword_only).collect();
    let mut slots: Vec<Option<Value>> = vec![None; params.len()];
    let mut args = args.into_iter();
    for slot in slots.iter_mut().take(n) {
        match args.next() {
            Some(v) => *slot = Some(v),
            None => break,
        }
    }
    let rest: Vec<Value> = args.collect();
    let mut extra = value::Dict::default();
    let mut posonly_by_keyword = Vec::new();
    for (k, v) in kwargs {
        // Positional-only parameters are not named by keywords (those go to **kwargs).
        match params.iter().position(|p| p.name == k).filter(|&i| i >= def.posonly) {
            None if def.kwarg.is_none() && params[..def.posonly].iter().any(|p| p.name == k) => {
                posonly_by_keyword.push(format!("'{k}'"));
            }
            Some(i) if slots[i].is_some() => return err(format!("{name}() got multiple values for argument '{k}'")),
            Some(i) => slots[i] = Some(v),
            None if def.kwarg.is_some() => extra.insert(Value::str(&k), v)?,
            None => return err(format!("{name}() got an unexpected keyword argument '{k}'")),
        }
    }
    if !posonly_by_keyword.is_empty() {
        return err(format!(
            "{name}() got some positional-only arguments passed as keyword arguments: {}",
            posonly_by_keyword.join(", ")
        ));
    }
    let mut defaults = f.defaults.iter();
    let mut missing = Vec::new();
    let mut missing_keyword = Vec::new();
    let mut vars = scope.vars.borrow_mut();
    for (i, (p, slot)) in params.iter().zip(slots).enumerate() {
        let default = if p.default.is_some() { defaults.next() } else { None };
        match slot.or_else(|| default.cloned()) {
            Some(v) => {
                vars.insert(p.name.clone(), v);
            }
            None if i < n => missing.push(format!("'{}'", p.name)),
            None => missing_keyword.push(format!("'{}'", p.name)),
        }
    }
    if let Some(v) = &def.vararg {
        vars.insert(v.clone(), Value::tuple(rest));
    }
    if let Some(k) = &def.kwarg {
        vars.insert(k.clone(), Value::Dict(Rc::new(RefCell::new(extra))));
    }
    for (missing, kind) in [(missing, "positional"), (missing_keyword, "keyword-only")] {
        match missing.len() {
            0 => {}
            1 => return err(format!("{name}() missing 1 required {kind} argument: {}", missing[0])),
            k => {
                // Python's list: 'a' and 'b', or 'a', 'b', and 'c'.
                let (last, init) = missing.split_last().map(|(l, i)| (l.clone(), i.join(", "))).unwrap_or_default();
                let and = if k == 2 { " and" } else { ", and" };
                return err(format!("{name}() missing {k} required {kind} arguments: {init}{and} {last}"));
            }
        }
    }
    Ok(())
}

impl Interp<'_, '_> {
    /// `obj[index] = value`, through a class's `__setitem__` for instances.
    fn set_item<'a>(&'a mut self, obj: &'a Value, index: Value, value: Value) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let index = match obj {
                Value::Dict(_) => self.existing_key(obj, &index).await?,
                _ => index,
            };
            if let Value::Instance(inst) = obj {
                if self.call_special(obj, "__setitem__", vec![index.clone(), value.clone()]).await?.is_some() {
                    return Ok(());
                }
                let base = inst.base.borrow().clone();
                if matches!(base, Value::List(_) | Value::Dict(_)) {
                    return set_builtin_item(&base, index, value);
                }
            }
            if let Value::Host(h) = obj {
                return self.host_set_item(h, index, value).await;
            }
            if refs::ref_cell(obj).is_some() {
                return self.ref_set(obj, &index, value).await;
            }
            set_builtin_item(obj, index, value)
        })
    }

    /// `del obj[index]`.
    fn del_item<'a>(&'a mut self, obj: &'a Value, index: &'a Value) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let canonical;
            let index = match obj {
                Value::Dict(_) => {
                    canonical = self.existing_key(obj, index).await?;
                    &canonical
                }
                _ => index,
            };
            if let Value::Instance(inst) = obj {
                if self.call_special(obj, "__delitem__", vec![index.clone()]).await?.is_some() {
                    return Ok(());
                }
                let base = inst.base.borrow().clone();
                if matches!(base, Value::List(_) | Value::Dict(_)) {
                    return self.del_item(&base, index).await;
                }
            }
            match (obj, index) {
                (Value::List(l), Value::Slice(a, b, c)) => {
                    let n = l.borrow().len();
                    let doomed = crate::jnp_extra::slice_indices(n, *a, *b, *c).map_err(RtError::from)?;
                    let mut i = 0;
                    let removed: Vec<Value> = {
                        let mut items = l.borrow_mut();
                        let mut removed = Vec::new();
                        items.retain(|v| {
                            let keep = !doomed.contains(&i);
                            if !keep {
                                removed.push(v.clone());
                            }
                            i += 1;
                            keep
                        });
                        removed
                    };
                    dismantle(removed);
                    Ok(())
                }
                (Value::List(l), i) => {
                    let n = l.borrow().len() as i64;
                    let i = self.to_index(i)?;
                    let j = if i < 0 { i + n } else { i };
                    if !(0..n).contains(&j) {
                        return index_err("list assignment index out of range");
                    }
                    let old = l.borrow_mut().remove(j as usize);
                    dismantle([old]);
                    Ok(())
                }
                (Value::Dict(d), key) => {
                    value::check_hashable(key)?;
                    let mut d = d.borrow_mut();
                    match d.entries.iter().position(|(k, _)| value::py_eq(k, key)) {
                        Some(i) => {
                            let (_, old) = d.entries.remove(i);
                            drop(d);
                            dismantle([old]);
                            Ok(())
                        }
                        None => Err(RtError::key(key)),
                    }
                }
                // JAX arrays have no `__delitem__`.
                (Value::Array(_), _) => Err(RtError::of(Builtin::AttributeError, "__delitem__")),
                (other, _) => type_err(format!("'{}' object doesn't support item deletion", other.type_name())),
            }
        })
    }
}

/// A function's docstring: the string its body starts with, else `None`.
pub(super) fn docstring(body: &[ast::Stmt]) -> Value {
    match body.first().map(|s| &s.kind) {
        Some(ast::StmtKind::Expr(ast::Expr { kind: ast::ExprKind::Str(s), .. })) => Value::str(s),
        _ => Value::None,
    }
}

fn set_builtin_item(obj: &Value, index: Value, value: Value) -> R<()> {
    match obj {
        Value::List(l) if matches!(index, Value::Slice(..)) => {
            // `xs[a:b] = items` splices; an extended slice (`xs[::2] = ...`) replaces as many
            // items as it selects.
            let Value::Slice(start, stop, step) = index else { unreachable!("matched a slice") };
            let items = match &value {
                Value::List(v) => v.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                Value::Str(s) => s.chars().map(|c| Value::str(&c.to_string())).collect(),
                other => return err(format!("must assign iterable to extended slice, not {}", other.type_name())),
            };
            let mut list = l.borrow_mut();
            let n = list.len();
            match step {
                None | Some(1) => {
                    let picked = crate::jnp_extra::slice_indices(n, start, stop, Some(1)).map_err(RtError::from)?;
                    let lo = match (picked.first(), start) {
                        (Some(&first), _) => first,
                        (None, Some(s)) if s < 0 => (s + n as i64).max(0) as usize,
                        (None, Some(s)) => (s as usize).min(n),
                        (None, None) => 0,
                    };
                    let hi = picked.last().map_or(lo, |&last| last + 1);
                    ops::check_len(n - (hi - lo) + items.len())?;
                    let removed: Vec<Value> = list.splice(lo..hi, items).collect();
                    drop(list);
                    dismantle(removed);
                }
                _ => {
                    let picked = crate::jnp_extra::slice_indices(n, start, stop, step).map_err(RtError::from)?;
                    if picked.len() != items.len() {
                        return value_err(format!(
                            "attempt to assign sequence of size {} to extended slice of size {}",
                            items.len(),
                            picked.len()
                        ));
                    }
                    for (i, v) in picked.into_iter().zip(items) {
                        list[i] = v;
                    }
                }
            }
            Ok(())
        }
        Value::List(l) => {
            let old = {
                let mut l = l.borrow_mut();
                let n = l.len() as i64;
                let i = as_int(&index)
                    .ok_or_else(|| RtError::new(format!("list indices must be integers, not {}", index.type_name())))?;
                let j = if i < 0 { i + n } else { i };
                match l.get_mut(usize::try_from(j).unwrap_or(usize::MAX)) {
                    Some(slot) => std::mem::replace(slot, value),
                    None => return index_err("list assignment index out of range"),
                }
            };
            // The replaced item may be nested deep: taken apart without recursion.
            dismantle([old]);
            Ok(())
        }
        Value::Dict(d) => d.borrow_mut().insert(index, value),
        // JAX 0.10's message (`_unimplemented_setitem`).
        Value::Array(_) => type_err(
            "JAX arrays are immutable and do not support in-place item assignment. Instead of x[idx] = y, use \
             x = x.at[idx].set(y) or another .at[] method: https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html",
        ),
        other => err(format!("'{}' object does not support item assignment", other.type_name())),
    }
}

fn range_len(start: i64, stop: i64, step: i64) -> i128 {
    let (start, stop, step) = (start as i128, stop as i128, step as i128);
    if step > 0 && stop > start {
        (stop - start + step - 1) / step
    } else if step < 0 && stop < start {
        (start - stop - step - 1) / -step
    } else {
        0
    }
}

fn range_iter(start: i64, stop: i64, step: i64) -> impl Iterator<Item = i64> {
    let n = range_len(start, stop, step);
    (0..n).map(move |k| (start as i128 + k * step as i128) as i64)
}

/// `items[a:b:c]` with Python's clamping rules.
fn slice_items(items: &[Value], start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> R<Vec<Value>> {
    let indices = crate::jnp_extra::slice_indices(items.len(), start, stop, step).map_err(RtError::from)?;
    Ok(indices.into_iter().filter_map(|i| items.get(i).cloned()).collect())
}

impl Interp<'_, '_> {
    /// Notes that the script is at `span` (an operation about to run): equations staged from
    /// now on were written there, as JAX's `source_info` records the innermost frame of the
    /// user's code. Only the script's own lines count (the library's Python is JAX's internal
    /// frames), and only while tracing, when an equation is staged at all.
    pub(super) fn mark_source(&mut self, span: ast::Span) {
        if span.file != 0 || !self.ctx.is_tracing() {
            return;
        }
        let column = span.col.saturating_sub(1);
        if let Some(s) = &self.ctx.source {
            if s.line == span.line && s.column == column && Rc::ptr_eq(&s.function, &self.frame) {
                return;
            }
        }
        let function = self.frame.clone();
        self.ctx.source = Some(Rc::new(jaxlite::SourceInfo { line: span.line, column, function }));
    }
}
