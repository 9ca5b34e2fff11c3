//! Runtime values and how Python shows them (`str`, `repr`), compares them and tests them
//! for truth.

use super::format::float_repr;
use super::objects::{BoundMethod, Class, Instance, PySet};
use super::{type_err, Env, R};
use crate::ast::FuncDef;
use jaxlite::{Aval, ClosedJaxpr, DType, Tensor};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

#[derive(Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A Python `complex`: (real, imaginary).
    Complex(f64, f64),
    Str(Rc<str>),
    List(Rc<RefCell<Vec<Value>>>),
    Tuple(Rc<Vec<Value>>),
    Dict(Rc<RefCell<Dict>>),
    Range {
        start: i64,
        stop: i64,
        step: i64,
    },
    Function(Rc<Function>),
    Native(Rc<Native>),
    Module(ModuleId),
    /// A JAX array, concrete or traced.
    Array(Tensor),
    /// `x.dtype`
    DType(DType),
    /// The result of `jax.make_jaxpr(f)(...)`.
    Jaxpr(Rc<ClosedJaxpr>),
    /// `jax.random` keys (uint32 pairs), which live on the host.
    Key(Rc<super::random::Keys>),
    /// `a:b:c` in a subscript; bounds are ints or None.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Ellipsis,
    NotImplemented,
    /// A class: a built-in type (`int`, `ValueError`) or one a script defined.
    Class(Rc<Class>),
    Instance(Rc<Instance>),
    BoundMethod(Rc<BoundMethod>),
    Set(Rc<PySet>),
    /// An iterator: a generator, or what `iter`, `zip`, `map`, ... return.
    Iterator(Rc<RefCell<super::iterators::Iter>>),
    /// A module of the standard library (written in Python).
    PyModule(Rc<super::modules::PyModule>),
    /// A NumPy array or scalar, on the host (see `host.rs`).
    Host(Rc<super::host::HostArray>),
}

/// A `dict`: insertion-ordered, looked up by Python equality (dicts in scripts are small).
#[derive(Default)]
pub struct Dict {
    pub entries: Vec<(Value, Value)>,
}

impl Dict {
    /// The value at a string key (an object's attribute in its `__dict__`).
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| matches!(k, Value::Str(s) if &**s == key)).map(|(_, v)| v)
    }

    pub fn set_str(&mut self, key: &str, value: Value) {
        match self.entries.iter_mut().find(|(k, _)| matches!(k, Value::Str(s) if &**s == key)) {
            Some(entry) => super::dismantle([std::mem::replace(&mut entry.1, value)]),
            None => self.entries.push((Value::str(key), value)),
        }
    }

    pub fn remove_str(&mut self, key: &str) -> Option<Value> {
        let i = self.entries.iter().position(|(k, _)| matches!(k, Value::Str(s) if &**s == key))?;
        Some(self.entries.remove(i).1)
    }

    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| py_eq(k, key)).map(|(_, v)| v)
    }

    pub fn insert(&mut self, key: Value, value: Value) -> R<()> {
        check_hashable(&key)?;
        match self.entries.iter_mut().find(|(k, _)| py_eq(k, &key)) {
            // The replaced value may be nested deep: taken apart without recursion.
            Some(entry) => super::dismantle([std::mem::replace(&mut entry.1, value)]),
            None => self.entries.push((key, value)),
        }
        Ok(())
    }
}

/// A user-defined function (a `def` or `lambda`) closed over its defining scope.
pub struct Function {
    pub def: Rc<FuncDef>,
    pub defaults: Vec<Value>,
    pub env: Env,
    /// The names the body binds: Python decides at compile time that these are locals.
    pub locals: Rc<Vec<String>>,
    /// The class whose body defined this function, for `super()` (CPython's `__class__`
    /// cell); set once the class exists.
    pub class: RefCell<Weak<Class>>,
    /// `__name__`, which decorators such as `functools.wraps` may change.
    pub name: RefCell<Rc<str>>,
    /// Attributes a script set on the function (`f.calls = 0`, `__wrapped__`).
    pub attrs: RefCell<super::objects::Attrs>,
}

/// A function implemented by the interpreter.
pub enum Native {
    Builtin(&'static str),
    /// A slice whose bounds are not all integers (`0:1:0.1`, `0:1:30j`): what `np.mgrid` and
    /// a class's `__getitem__` may read; as an index it is CPython's `TypeError`.
    ObjectSlice([Value; 3]),
    Jnp(&'static str),
    /// A function of the `numpy` module, run on the host (see `host.rs`).
    Np(&'static str),
    /// A function of `numpy.random` (the legacy API, on its global state).
    NpRandom(&'static str),
    /// A `numpy.random.RandomState`. Boxed as `Mersenne` is.
    NpRandomState(Box<RefCell<super::np_random::LegacyState>>),
    /// `jax.new_ref(x)`: a mutable box holding an array (see `refs.rs`).
    Ref(RefCell<Tensor>),
    /// A `numpy.random.Generator` (`np.random.default_rng(seed)`).
    NpGenerator(Box<RefCell<super::pcg64::Generator>>),
    Jax(&'static str),
    Math(&'static str),
    Nn(&'static str),
    Lax(&'static str),
    Random(&'static str),
    /// A method bound to its receiver (`xs.append`, `x.reshape`).
    Method(Value, &'static str),
    Partial {
        func: Value,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    },
    Jitted(Jitted),
    /// `jax.checkpoint(f)`.
    Checkpointed(super::remat::Checkpointed),
    /// One of `jax.checkpoint_policies`.
    RematPolicy(jaxlite::RematPolicy),
    /// `jax.make_jaxpr(f)`, waiting for example arguments.
    MakeJaxpr {
        func: Value,
        /// Positions of arguments passed to the function as they are, not traced.
        static_argnums: Vec<usize>,
    },
    /// `jax.grad(f)`, `jax.jacfwd(f)`, ...
    Transformed(super::transforms::Transformed),
    Vmapped(super::transforms::Vmapped),
    /// `jax.pmap(f)`.
    Pmapped(super::pmap::Pmapped),
    /// The backward function `jax.vjp` returns.
    VjpFn(super::transforms::VjpFn),
    /// What `jax.linearize` returns: the JVP as a function of the tangents.
    LinearizedFn(super::transforms::LinearizedFn),
    /// `jax.default_matmul_precision(name)`: a context manager for `with`.
    PrecisionScope(jaxlite::Precision),
    /// `jax.custom_jvp(f)`, with the rule `f.defjvp` gave it.
    CustomJvp(super::custom_derivatives::CustomJvpFn),
    /// `jax.custom_vjp(f)`, with the passes `f.defvjp` gave it.
    CustomVjp(super::custom_derivatives::CustomVjpFn),
    /// The structure of a pytree (`jax.tree_util.tree_structure`), printed as `PyTreeDef(...)`.
    TreeDef(super::jax::Tree),
    /// `jax.ShapeDtypeStruct`: an array's type without its values (what `jax.eval_shape`
    /// returns, and takes in place of an array).
    ShapeDtypeStruct(Aval),
    /// `jax.jit(f).lower(*args)`, its `.compile()`, and that's `.memory_analysis()`.
    Lowered(Rc<super::ahead::Lowered>),
    AotCompiled(Rc<super::ahead::AotCompiled>),
    MemoryStats(super::ahead::MemoryStats),
    /// `jnp.finfo(dtype)` (float32, bfloat16) or `jnp.iinfo(int32)`: the dtype's limits.
    DTypeInfo(DType),
    /// `property(fget, fset, fdel, doc)`.
    Property {
        fget: Value,
        fset: Value,
        fdel: Value,
        doc: Value,
    },
    StaticMethod(Value),
    ClassMethod(Value),
    /// What `super()` returns: attributes of `obj`'s class found after `class` in its MRO.
    Super {
        class: Rc<Class>,
        obj: Value,
    },
    /// A method of a built-in type looked up on the type (`dict.get`, `object.__init__`,
    /// `str.join`): called with the receiver first.
    TypeMethod(super::objects::Builtin, &'static str),
    /// A module's function written in Rust (`time.perf_counter`), by its module and name.
    Library(&'static str, &'static str),
    /// A Mersenne Twister's state (`random.Random`'s, NumPy's `RandomState`'s).
    /// Boxed: its 624 words would make every `Native` 2.5 KB.
    Mersenne(Box<RefCell<super::mersenne::Mt19937>>),
}

/// `jax.jit(f)`: the function and its compiled programs, keyed by argument types.
pub struct Jitted {
    pub func: Value,
    /// The name its `jit` equation and its program carry: the function's, or the one JAX
    /// gives a library function it jits (`_where` for `jnp.where`).
    pub name: String,
    /// Static positional arguments, and static keyword arguments by name: each list includes
    /// the other's parameters where the function's signature names them, as in JAX.
    pub static_argnums: Vec<usize>,
    pub static_argnames: Vec<String>,
    /// Shared by every `jax.jit` of the same function with the same options (see
    /// `Interp::jit_cache`): JAX caches a function's traces by the function, not the wrapper.
    pub cache: JitCache,
}

/// A jitted function's traces, by `jit_key`, and the keys it was traced for, in order (what
/// `jax_explain_cache_misses` compares a new one with).
pub type JitCache = Rc<RefCell<JitTraces>>;

#[derive(Default)]
pub struct JitTraces {
    pub traces: HashMap<String, Rc<super::jax::Compiled>>,
    pub seen: Vec<super::cache_misses::SeenKey>,
}

/// A function held weakly, by identity: the key of `Interp::jit_caches` (dead once its
/// strong count is zero, when its address may be reused).
pub type FnRef = Weak<dyn std::any::Any>;

/// The function's address and a weak reference to it, for the kinds of function whose identity
/// lasts (not bound methods, made afresh on each attribute read).
pub fn fn_ref(f: &Value) -> Option<(usize, FnRef)> {
    let held: Rc<dyn std::any::Any> = match f {
        Value::Function(r) => r.clone(),
        Value::Native(r) => r.clone(),
        Value::Instance(r) => r.clone(),
        Value::Class(r) => r.clone(),
        _ => return None,
    };
    Some((Rc::as_ptr(&held) as *const u8 as usize, Rc::downgrade(&held)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleId {
    Jax,
    Numpy,
    Nn,
    Random,
    Lax,
    Math,
    Functools,
    /// `jax.config`
    Config,
    /// `jax.lax.Precision`, the enum of matmul precisions (its members are their names).
    Precision,
    /// `jax.tree_util`
    TreeUtil,
    /// `jax.tree`, the newer names for the same functions
    Tree,
    /// `jax.numpy.linalg`
    Linalg,
    /// `jax.scipy` and `jax.scipy.special`
    Scipy,
    ScipySpecial,
    /// `jax.nn.initializers`
    Initializers,
    /// `jax.debug`
    Debug,
    /// `jax.experimental` (its `io_callback`)
    Experimental,
    /// `jax.checkpoint_policies`
    CheckpointPolicies,
    /// NumPy on the host: `numpy` and its `random`, `linalg` and `testing` modules.
    HostNumpy,
    NpRandom,
    NpLinalg,
    NpTesting,
    /// `jax.errors`: JAX's exception classes.
    Errors,
}

impl ModuleId {
    pub fn name(self) -> &'static str {
        match self {
            ModuleId::Jax => "jax",
            ModuleId::Numpy => "jax.numpy",
            ModuleId::HostNumpy => "numpy",
            ModuleId::NpRandom => "numpy.random",
            ModuleId::NpLinalg => "numpy.linalg",
            ModuleId::NpTesting => "numpy.testing",
            ModuleId::Errors => "jax.errors",
            ModuleId::Nn => "jax.nn",
            ModuleId::Random => "jax.random",
            ModuleId::Lax => "jax.lax",
            ModuleId::Math => "math",
            ModuleId::Functools => "functools",
            ModuleId::Config => "jax.config",
            ModuleId::Precision => "jax.lax.Precision",
            ModuleId::TreeUtil => "jax.tree_util",
            ModuleId::Tree => "jax.tree",
            ModuleId::Linalg => "jax.numpy.linalg",
            ModuleId::Scipy => "jax.scipy",
            ModuleId::ScipySpecial => "jax.scipy.special",
            ModuleId::Initializers => "jax.nn.initializers",
            ModuleId::Debug => "jax.debug",
            ModuleId::Experimental => "jax.experimental",
            ModuleId::CheckpointPolicies => "jax.checkpoint_policies",
        }
    }
}

impl Value {
    /// A tensor as a script's value: concrete typed keys are keys (they print, index and
    /// split as keys); everything else, raw keys' uint32 words included, is an array.
    pub fn of_tensor(t: Tensor) -> Value {
        match &t {
            Tensor::Concrete(a) if a.dtype() == jaxlite::DType::Key => match super::random::Keys::of_array(a) {
                Some(k) => Value::Key(Rc::new(k)),
                None => Value::Array(t),
            },
            _ => Value::Array(t),
        }
    }
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    pub fn native(n: Native) -> Value {
        Value::Native(Rc::new(n))
    }

    pub fn array(a: jaxlite::Array) -> Value {
        Value::Array(Tensor::from(a))
    }

    pub fn type_name(&self) -> Cow<'static, str> {
        Cow::Borrowed(match self {
            Value::Instance(i) => return Cow::Owned(i.class.name.clone()),
            Value::Class(_) => "type",
            Value::NotImplemented => "NotImplementedType",
            Value::BoundMethod(_) => "method",
            Value::Set(s) if s.frozen => "frozenset",
            Value::Set(_) => "set",
            Value::Iterator(it) => it.borrow().type_name(),
            Value::PyModule(_) => "module",
            Value::None => "NoneType",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Complex(..) => "complex",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Range { .. } => "range",
            Value::Slice(..) => "slice",
            Value::Ellipsis => "ellipsis",
            Value::Function(_) => "function",
            Value::Native(n) => match **n {
                Native::Method(..) => "method",
                Native::Partial { .. } => "functools.partial",
                Native::Jitted(_) => "PjitFunction",
                Native::ShapeDtypeStruct(_) => "ShapeDtypeStruct",
                Native::Lowered(_) => "Lowered",
                Native::AotCompiled(_) => "Compiled",
                Native::MemoryStats(_) => "CompiledMemoryStats",
                Native::ObjectSlice(_) => "slice",
                Native::DTypeInfo(DType::I32) => "iinfo",
                Native::DTypeInfo(_) => "finfo",
                Native::Property { .. } => "property",
                Native::StaticMethod(_) => "staticmethod",
                Native::ClassMethod(_) => "classmethod",
                Native::Super { .. } => "super",
                Native::TypeMethod(..) => "method_descriptor",
                Native::NpRandomState(_) => "RandomState",
                Native::NpGenerator(_) => "Generator",
                Native::Ref(_) => "Ref",
                _ => "builtin_function_or_method",
            },
            Value::Module(_) => "module",
            Value::Array(_) => "Array",
            Value::DType(_) => "dtype",
            Value::Jaxpr(_) => "ClosedJaxpr",
            Value::Key(_) => "Array",
            Value::Host(h) if h.scalar => super::host::scalar_type_name(h.dtype()),
            Value::Host(_) => "ndarray",
        })
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Bool(_) | Value::Int(_) | Value::Float(_))
    }
}

/// `str(v)`, for values whose class defines no `__str__` or `__repr__` of its own (see
/// `Interp::py_str` for those).
pub fn to_str(v: &Value) -> String {
    str_with(v, &Reprs::new())
}

/// `str(v)`, where `reprs` holds what scripts' `__repr__` methods gave for the instances in
/// `v` (and `__str__`, for `v` itself).
pub fn str_with(v: &Value, reprs: &Reprs) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        Value::Array(Tensor::Concrete(a)) => jaxlite::format::format_array(a),
        Value::Host(h) => super::host::str(h),
        Value::Key(k) => k.to_str(),
        Value::DType(d) => d.name().to_string(),
        Value::Instance(i) if i.class.layout() == Some(super::objects::Builtin::BaseException) => {
            if let Some(s) = reprs.get(&(Rc::as_ptr(i) as *const ())) {
                return s.clone();
            }
            exception_str(i, reprs)
        }
        _ => repr_with(v, reprs),
    }
}

/// `str(exception)` as `BaseException.__str__` gives it: empty, the one argument's `str`,
/// or the arguments' tuple (`KeyError` shows its one argument's `repr`).
pub fn exception_str(i: &Instance, reprs: &Reprs) -> String {
    let args = match &*i.base.borrow() {
        Value::Tuple(t) => t.to_vec(),
        _ => Vec::new(),
    };
    match &args[..] {
        [] => String::new(),
        [one] if i.class.derives(super::objects::Builtin::KeyError) => repr_with(one, reprs),
        [one] => str_with(one, reprs),
        _ => repr_with(&Value::tuple(args), reprs),
    }
}

/// What scripts' `__repr__` (or `__str__`) methods gave, by the address of the instance.
pub type Reprs = HashMap<*const (), String>;

/// `repr(v)`.
/// How deeply nested containers `repr` prints (Python's default recursion limit).
const MAX_REPR_DEPTH: usize = 1000;

pub fn repr(v: &Value) -> String {
    repr_with(v, &Reprs::new())
}

/// `repr(v)`, with what scripts' `__repr__` methods gave for the instances in it.
pub fn repr_with(v: &Value, reprs: &Reprs) -> String {
    let mut out = String::new();
    write_repr(v, &mut out, &mut Vec::new(), reprs);
    out
}

/// Beyond this many bytes `repr` stops descending (more than the default output limit).
const MAX_REPR: usize = 8 << 20;

/// Writes `repr(v)`; `open` holds the containers being printed, so a list that contains
/// itself prints as `[[...]]` instead of recursing forever.
fn write_repr(v: &Value, out: &mut String, open: &mut Vec<*const ()>, reprs: &Reprs) {
    // A text far beyond what any print may show (the output limit) is not built: a list that
    // shares one nested list many times (`x = [x, x]` repeated) would be gigabytes.
    if out.len() > MAX_REPR {
        return;
    }
    let seq = |items: &[Value], (l, r): (&str, &str), out: &mut String, open: &mut Vec<*const ()>| {
        out.push_str(l);
        for (i, item) in items.iter().enumerate() {
            if out.len() > MAX_REPR {
                out.push_str(", ...");
                break;
            }
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(item, out, open, reprs);
        }
        out.push_str(r);
    };
    let ptr = match v {
        Value::List(l) => Some(Rc::as_ptr(l) as *const ()),
        Value::Dict(d) => Some(Rc::as_ptr(d) as *const ()),
        // Tuples cannot contain themselves, but count towards the depth below.
        Value::Tuple(t) => Some(Rc::as_ptr(t) as *const ()),
        Value::Set(s) => Some(Rc::as_ptr(s) as *const ()),
        Value::Instance(i) => {
            if let Some(text) = reprs.get(&(Rc::as_ptr(i) as *const ())) {
                out.push_str(text);
                return;
            }
            Some(Rc::as_ptr(i) as *const ())
        }
        _ => None,
    };
    if let Some(p) = ptr {
        // A list nested thousands deep (`x = [x]` in a loop) would overflow the native stack
        // here; Python stops at its recursion limit too. Elide what is deeper than that.
        if open.contains(&p) || open.len() >= MAX_REPR_DEPTH {
            out.push_str(match v {
                Value::List(_) => "[...]",
                Value::Dict(_) | Value::Set(_) => "{...}",
                Value::Instance(_) => "...",
                _ => "(...)",
            });
            return;
        }
        open.push(p);
    }
    match v {
        Value::None => out.push_str("None"),
        Value::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Value::Int(i) => out.push_str(&i.to_string()),
        Value::Float(x) => out.push_str(&float_repr(*x)),
        Value::Complex(re, im) => out.push_str(&super::complex::repr(*re, *im)),
        Value::Str(s) => out.push_str(&str_repr(s)),
        Value::List(items) => seq(&items.borrow(), ("[", "]"), out, open),
        Value::Tuple(items) if items.len() == 1 => seq(items, ("(", ",)"), out, open),
        Value::Tuple(items) => seq(items, ("(", ")"), out, open),
        Value::Dict(d) => {
            out.push('{');
            for (i, (k, val)) in d.borrow().entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(k, out, open, reprs);
                out.push_str(": ");
                write_repr(val, out, open, reprs);
            }
            out.push('}');
        }
        Value::Range { start, stop, step } if *step == 1 => out.push_str(&format!("range({start}, {stop})")),
        Value::Range { start, stop, step } => out.push_str(&format!("range({start}, {stop}, {step})")),
        Value::Slice(a, b, c) => {
            let bound = |x: &Option<i64>| x.map_or("None".to_string(), |x| x.to_string());
            out.push_str(&format!("slice({}, {}, {})", bound(a), bound(b), bound(c)))
        }
        Value::Ellipsis => out.push_str("Ellipsis"),
        Value::NotImplemented => out.push_str("NotImplemented"),
        Value::Set(set) => {
            let items = set.iteration_order();
            match (set.frozen, items.is_empty()) {
                (false, true) => out.push_str("set()"),
                (true, true) => out.push_str("frozenset()"),
                (false, false) => seq(&items, ("{", "}"), out, open),
                (true, false) => {
                    out.push_str("frozenset(");
                    seq(&items, ("{", "}"), out, open);
                    out.push(')');
                }
            }
        }
        Value::Class(c) => match reprs.get(&(Rc::as_ptr(c) as *const ())) {
            Some(text) => out.push_str(text),
            None => out.push_str(&format!("<class '{}'>", c.qualified_name())),
        },
        Value::Instance(i) => write_instance(i, out, open, reprs),
        Value::BoundMethod(m) => {
            let name = match &m.func {
                Value::Function(f) => f.name.borrow().to_string(),
                other => repr(other),
            };
            let owner = match &m.receiver {
                Value::Class(c) => c.name.clone(),
                other => other.type_name().into_owned(),
            };
            let mut receiver = String::new();
            write_repr(&m.receiver, &mut receiver, open, reprs);
            out.push_str(&format!("<bound method {owner}.{name} of {receiver}>"))
        }
        Value::Iterator(it) => out.push_str(&it.borrow().repr()),
        Value::PyModule(m) => out.push_str(&format!("<module '{}'>", m.name)),
        Value::Function(f) => {
            // By its `__qualname__`, and where the function lives.
            let name = match f.attrs.borrow().get("__qualname__") {
                Some(Value::Str(q)) => q.to_string(),
                _ => f.def.qualname.clone(),
            };
            out.push_str(&format!("<function {name} at {}>", address(v)))
        }
        Value::Native(n) => out.push_str(&native_repr(n)),
        Value::Module(m) => out.push_str(&format!("<module '{}'>", m.name())),
        Value::Array(Tensor::Concrete(a)) => out.push_str(&crate::jnp_extra::array_repr(a)),
        Value::Host(h) => out.push_str(&super::host::repr(h)),
        // JAX marks a weakly typed tracer's type with `~` (`JitTracer(~float32[])`).
        Value::Array(Tensor::Traced(t)) => {
            let weak = if t.aval.weak_type { "~" } else { "" };
            out.push_str(&format!("JitTracer({weak}{})", aval_text(&t.aval)))
        }
        Value::DType(d) => out.push_str(&format!("dtype('{}')", d.name())),
        Value::Jaxpr(j) => out.push_str(&j.jaxpr.to_string()),
        Value::Key(k) => out.push_str(&k.repr()),
    }
    if ptr.is_some() {
        open.pop();
    }
}

/// An instance whose class has no `__repr__` of its own: an exception as
/// `ValueError('message')`, an instance of a built-in type's subclass as that type's value,
/// anything else as `<__main__.Point object at 0x…>`.
fn write_instance(i: &Rc<Instance>, out: &mut String, open: &mut Vec<*const ()>, reprs: &Reprs) {
    let base = i.base.borrow().clone();
    match i.class.layout() {
        Some(super::objects::Builtin::BaseException) => {
            let args = match &base {
                Value::Tuple(t) => t.to_vec(),
                _ => Vec::new(),
            };
            out.push_str(&i.class.name);
            out.push('(');
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_repr(a, out, open, reprs);
            }
            out.push(')');
        }
        Some(_) if !matches!(base, Value::None) => write_repr(&base, out, open, reprs),
        _ => out.push_str(&format!("<{} object at {:#x}>", i.class.qualified_name(), Rc::as_ptr(i) as usize)),
    }
}

fn native_repr(n: &Native) -> String {
    match n {
        Native::Builtin(name) => format!("<built-in function {name}>"),
        // The scalar types, which are classes in JAX.
        Native::Jnp(name) if DType::from_name(name).is_some() => {
            format!("<class 'jax.numpy.{}'>", name.trim_end_matches('_'))
        }
        Native::Jnp(name) | Native::Np(name) if super::dtype_info::JNP_ABSTRACT_DTYPES.contains(name) => {
            format!("<class 'numpy.{name}'>")
        }
        Native::Jnp(name) => format!("<function jax.numpy.{name}>"),
        Native::Np(name) if DType::from_name(name).is_some() || *name == "bool" || *name == "ndarray" => {
            format!("<class 'numpy.{name}'>")
        }
        Native::Np(name) => format!("<function numpy.{name}>"),
        Native::NpRandom(name) => format!("<built-in method {name} of numpy.random.mtrand.RandomState object>"),
        Native::NpRandomState(_) => "RandomState(MT19937)".to_string(),
        Native::Ref(cell) => super::refs::ref_repr(cell),
        Native::NpGenerator(_) => "Generator(PCG64)".to_string(),
        Native::Jax(name) => format!("<function jax.{name}>"),
        Native::Math(name) => format!("<built-in function {name}>"),
        Native::Nn(name) => format!("<function jax.nn.{name}>"),
        Native::Lax(name) => format!("<function jax.lax.{name}>"),
        Native::Random(name) => format!("<function jax.random.{name}>"),
        Native::Method(recv, name) => format!("<bound method {}.{name}>", recv.type_name()),
        Native::Partial { func, .. } => format!("functools.partial({})", repr(func)),
        Native::Jitted(j) => format!("<PjitFunction of {}>", repr(&j.func)),
        // JAX's checkpoint wraps the function to look like it.
        Native::Checkpointed(c) => repr(&c.func),
        Native::RematPolicy(p) => p.repr(&format!("{:p}", n)),
        Native::MakeJaxpr { func, .. } => format!("<make_jaxpr of {}>", repr(func)),
        // JAX's transformations return functions wrapped to look like the one transformed.
        Native::Transformed(t) => format!("<function {} at {:p}>", super::jax::function_name(&t.func), n),
        Native::Vmapped(v) => format!("<function {} at {:p}>", super::jax::function_name(&v.func), n),
        Native::Pmapped(p) => format!("<function {} at {:p}>", super::jax::function_name(&p.func), n),
        Native::VjpFn(_) => "<function vjp_fun>".to_string(),
        Native::LinearizedFn(_) => "<function linearized_jvp>".to_string(),
        Native::PrecisionScope(_) => "<contextlib._GeneratorContextManager object>".to_string(),
        Native::CustomJvp(c) => format!("<jax._src.custom_derivatives.custom_jvp object of {}>", repr(&c.func)),
        Native::CustomVjp(c) => format!("<jax._src.custom_derivatives.custom_vjp object of {}>", repr(&c.func)),
        Native::TreeDef(t) => format!("PyTreeDef({})", t.describe()),
        Native::DTypeInfo(dtype) => super::dtype_info::info_repr(*dtype),
        Native::Property { .. } => "<property object>".to_string(),
        Native::StaticMethod(f) => format!("<staticmethod({})>", repr(f)),
        Native::ClassMethod(f) => format!("<classmethod({})>", repr(f)),
        Native::Super { class, obj } => format!("<super: <class '{}'>, <{} object>>", class.name, obj.type_name()),
        Native::TypeMethod(b, name) => format!("<method '{name}' of '{}' objects>", b.name()),
        Native::Library(module, name) => format!("<built-in function {module}.{name}>"),
        Native::Mersenne(_) => "<Mersenne Twister state>".to_string(),
        Native::ObjectSlice(bounds) => {
            format!("slice({}, {}, {})", repr(&bounds[0]), repr(&bounds[1]), repr(&bounds[2]))
        }
        Native::Lowered(_) => "<jax._src.stages.Lowered object>".to_string(),
        Native::AotCompiled(_) => "<jax._src.stages.Compiled object>".to_string(),
        Native::MemoryStats(m) => m.repr(),
        Native::ShapeDtypeStruct(a) => {
            let weak = if a.weak_type { ", weak_type=True" } else { "" };
            format!("ShapeDtypeStruct(shape={}, dtype={}{weak})", jaxlite::numpy::shape_str(&a.shape), a.dtype.name())
        }
    }
}

/// `float32[3,4]`, as JAX names an abstract array in messages.
pub fn aval_text(aval: &Aval) -> String {
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    format!("{}[{}]", aval.dtype.name(), dims.join(","))
}

/// A string literal as Python's `repr` writes it: single quotes unless the text has one.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python equality for non-array values; arrays compare by identity here (element-wise
/// comparison is an operator, see `ops`). Nested lists, tuples and dicts are compared with a
/// work list, not recursion, so any depth is fine (lists nested 100,000 deep compared equal
/// where a depth cap once made them unequal); a pair of lists or dicts met again while being
/// compared (a list that contains itself) is equal so far, as two such structures are when
/// nothing else differs (Python raises RecursionError there instead).
pub fn py_eq(a: &Value, b: &Value) -> bool {
    let container = |v: &Value| matches!(v, Value::List(_) | Value::Tuple(_) | Value::Dict(_));
    if !container(a) || !container(b) {
        return leaf_eq(a, b);
    }
    let mut pending: Vec<(Value, Value)> = Vec::new();
    let mut seen: std::collections::HashSet<(usize, usize)> = std::collections::HashSet::new();
    let mut pair = (a.clone(), b.clone());
    loop {
        let equal = match (&pair.0, &pair.1) {
            (Value::List(x), Value::List(y)) => {
                if Rc::ptr_eq(x, y) || !seen.insert((Rc::as_ptr(x) as usize, Rc::as_ptr(y) as usize)) {
                    true
                } else {
                    let (x, y) = (x.borrow(), y.borrow());
                    x.len() == y.len() && {
                        pending.extend(x.iter().cloned().zip(y.iter().cloned()));
                        true
                    }
                }
            }
            (Value::Tuple(x), Value::Tuple(y)) => {
                x.len() == y.len() && {
                    pending.extend(x.iter().cloned().zip(y.iter().cloned()));
                    true
                }
            }
            (Value::Dict(x), Value::Dict(y)) => {
                if Rc::ptr_eq(x, y) || !seen.insert((Rc::as_ptr(x) as usize, Rc::as_ptr(y) as usize)) {
                    true
                } else {
                    let (x, y) = (x.borrow(), y.borrow());
                    x.entries.len() == y.entries.len()
                        && x.entries.iter().all(|(k, v)| match y.get(k) {
                            Some(w) => {
                                pending.push((v.clone(), w.clone()));
                                true
                            }
                            None => false,
                        })
                }
            }
            (x, y) => leaf_eq(x, y),
        };
        if !equal {
            return false;
        }
        match pending.pop() {
            Some(next) => pair = next,
            None => return true,
        }
    }
}

/// Equality of values that hold no others (containers are `py_eq`'s).
fn leaf_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Complex(..), _) | (_, Value::Complex(..)) => {
            matches!((super::complex::as_complex(a), super::complex::as_complex(b)), (Some(p), Some(q)) if p == q)
        }
        (x, y) if x.is_number() && y.is_number() => match (as_int(x), as_int(y)) {
            (Some(i), Some(j)) => i == j,
            _ => as_f64(x) == as_f64(y),
        },
        (Value::Range { .. }, Value::Range { .. }) => repr(a) == repr(b),
        (Value::Function(x), Value::Function(y)) => Rc::ptr_eq(x, y),
        // `jnp.float32` is one class however often it is looked up.
        (Value::Native(x), Value::Native(y)) => match (&**x, &**y) {
            (Native::Jnp(p), Native::Jnp(q)) => p == q,
            (Native::ShapeDtypeStruct(p), Native::ShapeDtypeStruct(q)) => p == q,
            (Native::TypeMethod(b, m), Native::TypeMethod(c, n)) => b == c && m == n,
            (Native::Library(a, f), Native::Library(b, g)) => a == b && f == g,
            // Tree structures are equal when their keys are (the jit cache's key names each
            // node, its dict keys and namedtuple class).
            (Native::TreeDef(p), Native::TreeDef(q)) => p.same_structure(q),
            _ => Rc::ptr_eq(x, y),
        },
        (Value::Module(x), Value::Module(y)) => x == y,
        (Value::Class(x), Value::Class(y)) => Rc::ptr_eq(x, y),
        (Value::Instance(x), Value::Instance(y)) if Rc::ptr_eq(x, y) => true,
        // Instances of built-in types' subclasses without an `__eq__` of their own compare by
        // value (a namedtuple as a dict key).
        (Value::Instance(_), _) | (_, Value::Instance(_)) => match (value_part(a), value_part(b)) {
            (Some(x), Some(y)) => py_eq(&x, &y),
            _ => false,
        },
        (Value::Iterator(x), Value::Iterator(y)) => Rc::ptr_eq(x, y),
        (Value::PyModule(x), Value::PyModule(y)) => Rc::ptr_eq(x, y),
        (Value::NotImplemented, Value::NotImplemented) => true,
        (Value::BoundMethod(x), Value::BoundMethod(y)) => {
            leaf_eq(&x.func, &y.func) && (leaf_eq(&x.receiver, &y.receiver) || py_eq(&x.receiver, &y.receiver))
        }
        (Value::Set(x), Value::Set(y)) => {
            let (x, y) = (x.items.borrow(), y.items.borrow());
            x.len() == y.len() && x.iter().all(|a| y.iter().any(|b| py_eq(a, b)))
        }
        (Value::DType(x), Value::DType(y)) => x == y,
        // A dtype equals its scalar type and its name, as NumPy's does.
        (Value::DType(d), other) | (other, Value::DType(d)) => match other {
            Value::Str(name) => DType::from_name(name) == Some(*d),
            Value::Native(n) => {
                matches!(&**n, Native::Jnp(name) | Native::Np(name) if DType::from_name(name) == Some(*d))
            }
            _ => false,
        },
        (Value::Array(Tensor::Concrete(x)), Value::Array(Tensor::Concrete(y))) => Rc::ptr_eq(x, y),
        (Value::Array(Tensor::Traced(x)), Value::Array(Tensor::Traced(y))) => Rc::ptr_eq(x, y),
        (Value::Host(x), Value::Host(y)) => Rc::ptr_eq(x, y),
        _ => false,
    }
}

/// What a value compares as: itself, or for an instance of a built-in type's subclass whose
/// class defines no `__eq__`, the built-in value it carries (`None` for other instances).
fn value_part(v: &Value) -> Option<Value> {
    let Value::Instance(i) = v else { return Some(v.clone()) };
    let own_eq = i.class.lineage().any(|c| c.builtin.is_none() && c.attrs.borrow().get("__eq__").is_some());
    match (i.class.layout(), &*i.base.borrow()) {
        (Some(b), base) if b != super::objects::Builtin::BaseException && !own_eq && !matches!(base, Value::None) => {
            Some(base.clone())
        }
        _ => None,
    }
}

/// An exact integer view of bools and ints.
pub fn as_int(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(*b as i64),
        Value::Int(i) => Some(*i),
        _ => None,
    }
}

pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Bool(b) => Some(*b as i64 as f64),
        Value::Int(i) => Some(*i as f64),
        Value::Float(x) => Some(*x),
        _ => None,
    }
}

/// Refuses what Python cannot hash: lists, dicts, sets and arrays, also inside tuples (walked
/// with a work list: a tuple nested 100,000 deep as a dict key overflowed the stack when
/// recursed).
pub fn check_hashable(v: &Value) -> R<()> {
    let mutable_set = |v: &Value| matches!(v, Value::Set(s) if !s.frozen);
    let host_array = |v: &Value| matches!(v, Value::Host(h) if !h.scalar);
    if !matches!(v, Value::Tuple(_) | Value::List(_) | Value::Dict(_) | Value::Array(_))
        && !mutable_set(v)
        && !host_array(v)
    {
        return Ok(());
    }
    let mut pending = vec![v.clone()];
    while let Some(v) = pending.pop() {
        match &v {
            Value::List(_) | Value::Dict(_) | Value::Array(_) => {
                return type_err(format!("unhashable type: '{}'", v.type_name()))
            }
            v if mutable_set(v) => return type_err("unhashable type: 'set'"),
            v if host_array(v) => return type_err("unhashable type: 'numpy.ndarray'"),
            Value::Tuple(items) => pending.extend(items.iter().cloned()),
            _ => {}
        }
    }
    Ok(())
}

/// Where an object lives, as CPython's reprs show it (`0x7f…`): its allocation.
fn address(v: &Value) -> String {
    format!("0x{:x}", super::classes::identity_hash(v) << 4)
}
