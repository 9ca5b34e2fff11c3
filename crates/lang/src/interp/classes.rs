//! What classes do: `class` statements, making instances, attribute lookup (with
//! `property`, `staticmethod`, `classmethod` and `__getattr__`), `super()`, and the special
//! methods (`__add__`, `__eq__`, `__len__`, `__getitem__`, `__call__`, `__repr__`, ...) that
//! make operators and built-ins apply to a script's own objects.
//!
//! The rules are CPython's: special methods are looked up on the type, never on the instance;
//! a binary operator tries the left operand's method, then the right one's reflected method
//! (the right one first when its class is a subclass of the left one's); `==` falls back to
//! identity; a class without `__repr__` prints as `<__main__.C object at 0x…>`.

use super::exceptions::{attr_err, type_err, RtError};
use super::objects::{Attrs, Builtin, Class, Instance};
use super::value::{Dict, Native, Value};
use super::{Env, Flow, Interp, R};
use crate::ast::{Arg, BinOp, ClassDef, CmpOp, UnaryOp};
use jaxlite::LocalFuture;
use std::cell::RefCell;
use std::rc::Rc;

/// The special methods of a binary operator: its own and the reflected one.
pub fn binary_dunders(op: BinOp) -> (&'static str, &'static str) {
    match op {
        BinOp::Add => ("__add__", "__radd__"),
        BinOp::Sub => ("__sub__", "__rsub__"),
        BinOp::Mul => ("__mul__", "__rmul__"),
        BinOp::Div => ("__truediv__", "__rtruediv__"),
        BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__"),
        BinOp::Mod => ("__mod__", "__rmod__"),
        BinOp::Pow => ("__pow__", "__rpow__"),
        BinOp::MatMul => ("__matmul__", "__rmatmul__"),
        BinOp::BitAnd => ("__and__", "__rand__"),
        BinOp::BitOr => ("__or__", "__ror__"),
        BinOp::BitXor => ("__xor__", "__rxor__"),
        BinOp::LShift => ("__lshift__", "__rlshift__"),
        BinOp::RShift => ("__rshift__", "__rrshift__"),
    }
}

/// The in-place method of an augmented assignment (`+=` → `__iadd__`).
pub fn inplace_dunder(op: BinOp) -> String {
    let (own, _) = binary_dunders(op);
    format!("__i{}", &own[2..])
}

/// A comparison's special method and the one that answers it from the right.
fn compare_dunders(op: CmpOp) -> Option<(&'static str, &'static str)> {
    Some(match op {
        CmpOp::Eq => ("__eq__", "__eq__"),
        CmpOp::Ne => ("__ne__", "__ne__"),
        CmpOp::Lt => ("__lt__", "__gt__"),
        CmpOp::Le => ("__le__", "__ge__"),
        CmpOp::Gt => ("__gt__", "__lt__"),
        CmpOp::Ge => ("__ge__", "__le__"),
        _ => return None,
    })
}

/// The methods of built-in types a script can reach through the type (`dict.get`,
/// `object.__init__`, `super().__init__(...)` in a subclass of `list`).
fn type_method(b: Builtin, name: &str) -> Option<&'static str> {
    const OBJECT: &[&str] = &[
        "__init__",
        "__new__",
        "__setattr__",
        "__getattribute__",
        "__delattr__",
        "__repr__",
        "__str__",
        "__eq__",
        "__ne__",
        "__hash__",
        "__init_subclass__",
        "__format__",
        "__reduce__",
    ];
    const LIST: &[&str] = &[
        "append",
        "extend",
        "insert",
        "pop",
        "index",
        "count",
        "reverse",
        "clear",
        "copy",
        "sort",
        "remove",
        "__getitem__",
        "__setitem__",
        "__len__",
        "__contains__",
        "__iter__",
        "__delitem__",
    ];
    const DICT: &[&str] = &[
        "items",
        "keys",
        "values",
        "get",
        "pop",
        "update",
        "copy",
        "setdefault",
        "popitem",
        "clear",
        "fromkeys",
        "__getitem__",
        "__setitem__",
        "__len__",
        "__contains__",
        "__iter__",
        "__delitem__",
    ];
    const STR: &[&str] = super::builtins::STR_METHODS;
    const TUPLE: &[&str] = &["index", "count", "__getitem__", "__len__", "__contains__", "__iter__"];
    const EXCEPTION: &[&str] = &["with_traceback", "add_note"];
    const SET: &[&str] = super::builtins::SET_METHODS;
    let found = |names: &[&'static str]| names.iter().find(|&&n| n == name).copied();
    let own = match b {
        Builtin::List => found(LIST),
        Builtin::Dict => found(DICT),
        Builtin::Str => found(STR),
        Builtin::Tuple => found(TUPLE),
        Builtin::Set | Builtin::FrozenSet => found(SET),
        Builtin::Int if name == "bit_length" => Some("bit_length"),
        Builtin::Float if name == "is_integer" => Some("is_integer"),
        Builtin::Complex if name == "conjugate" => Some("conjugate"),
        Builtin::Type if name == "__new__" || name == "__call__" || name == "__init__" => {
            found(&["__new__", "__call__", "__init__"])
        }
        b if b.is_exception() => found(EXCEPTION),
        _ => None,
    };
    own.or_else(|| found(OBJECT))
}

impl Interp<'_, '_> {
    /// The class of any value: its own for an instance, else the built-in type's.
    pub(super) fn class_of(&self, v: &Value) -> Rc<Class> {
        let b = match v {
            Value::Instance(i) => return i.class.clone(),
            Value::Class(c) => return c.metaclass().unwrap_or_else(|| self.types.get(Builtin::Type)),
            Value::None => return self.types.other("NoneType", "builtins"),
            Value::Bool(_) => Builtin::Bool,
            Value::Int(_) => Builtin::Int,
            Value::Float(_) => Builtin::Float,
            Value::Complex(..) => Builtin::Complex,
            Value::Str(_) => Builtin::Str,
            Value::List(_) => Builtin::List,
            Value::Tuple(_) => Builtin::Tuple,
            Value::Dict(_) => Builtin::Dict,
            Value::Set(s) if s.frozen => Builtin::FrozenSet,
            Value::Set(_) => Builtin::Set,
            Value::Range { .. } => Builtin::Range,
            Value::Slice(..) => Builtin::Slice,
            Value::Native(n) if matches!(**n, Native::ObjectSlice(_)) => Builtin::Slice,
            Value::Array(_) | Value::Key(_) => return self.types.other("ArrayImpl", "jaxlib._jax"),
            Value::Host(_) => return self.types.other(&v.type_name(), "numpy"),
            Value::Native(n) => match &**n {
                Native::Property { .. } => Builtin::Property,
                Native::StaticMethod(_) => Builtin::StaticMethod,
                Native::ClassMethod(_) => Builtin::ClassMethod,
                Native::Super { .. } => Builtin::Super,
                Native::Ref(_) => return self.types.other("Ref", "jax._src.core"),
                _ => return self.types.other(&v.type_name(), "builtins"),
            },
            other => return self.types.other(&other.type_name(), "builtins"),
        };
        self.types.get(b)
    }

    /// `class name(bases): body`: the body runs in a namespace of its own, whose names become
    /// the class's attributes in the order they were bound.
    pub(super) fn exec_class<'a>(&'a mut self, def: &'a Rc<ClassDef>, env: &'a Env) -> LocalFuture<'a, R<Flow>> {
        Box::pin(async move {
            let mut bases = Vec::new();
            let mut keywords = Vec::new();
            for arg in &def.bases {
                match arg {
                    Arg::Positional(e) => bases.push((self.eval(e, env).await?, e.span)),
                    Arg::Star(e) => {
                        let v = self.eval(e, env).await?;
                        for b in self.collect(&v).await.map_err(|err| err.at(e.span))? {
                            bases.push((b, e.span));
                        }
                    }
                    Arg::Keyword(k, e) => keywords.push((k.clone(), self.eval(e, env).await?)),
                    Arg::DoubleStar(e) => {
                        let v = self.eval(e, env).await?;
                        keywords.extend(super::eval::unpack_keywords(&v).map_err(|err| err.at(e.span))?);
                    }
                }
            }
            let mut base_classes = Vec::new();
            for (b, span) in bases {
                match b {
                    Value::Class(c) => base_classes.push(c),
                    other => {
                        return Err(RtError::new(format!(
                            "class bases must be classes, not '{}' (the playground has no metaclass `__mro_entries__`)",
                            other.type_name()
                        ))
                        .at(span))
                    }
                }
            }
            let metaclass = match super::builtins::take_kwarg(&mut keywords, "metaclass") {
                Some(Value::Class(m)) => Some(m),
                Some(other) => return type_err(format!("metaclass must be a class, not '{}'", other.type_name())),
                None => None,
            };
            // A class belongs to the module whose code defines it (`collections.OrderedDict`).
            let module = match self.lookup("__name__", env) {
                Ok(Value::Str(name)) => Value::Str(name),
                _ => Value::str("__main__"),
            };
            let scope = Rc::new(super::Scope::class_body(env.clone()));
            scope.vars.borrow_mut().insert("__module__".into(), module);
            scope.vars.borrow_mut().insert("__qualname__".into(), Value::str(&def.name));
            scope.order.borrow_mut().extend(["__module__".to_string(), "__qualname__".to_string()]);
            let doc = super::docstring(&def.body);
            if !matches!(doc, Value::None) {
                scope.vars.borrow_mut().insert("__doc__".into(), doc);
                scope.order.borrow_mut().push("__doc__".to_string());
            }
            let flow = self.exec_block(&def.body, &scope).await?;
            if !matches!(flow, Flow::Normal) {
                return type_err("'return', 'break' or 'continue' in a class body");
            }
            let mut attrs = Attrs::default();
            {
                let vars = scope.vars.borrow();
                for name in scope.order.borrow().iter() {
                    if let Some(v) = vars.get(name) {
                        attrs.set(name, v.clone());
                    }
                }
            }
            let mut class = self.make_class(&def.name, base_classes, attrs, metaclass, keywords).await?;
            for d in def.decorators.iter().rev() {
                let decorator = self.eval(d, env).await?;
                class = self.call(decorator, vec![class], vec![]).await.map_err(|e| e.at(d.span))?;
            }
            self.bind(env, &def.name, class);
            Ok(Flow::Normal)
        })
    }

    /// `type(name, bases, namespace)`: a class with these attributes, made as its metaclass
    /// says (a metaclass with `__new__` makes it itself), then `__init_subclass__` of its
    /// parent called.
    pub(super) fn make_class<'a>(
        &'a mut self,
        name: &'a str,
        bases: Vec<Rc<Class>>,
        attrs: Attrs,
        metaclass: Option<Rc<Class>>,
        keywords: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // The most derived metaclass among the one given and the bases' own.
            let mut meta = metaclass;
            for b in &bases {
                if let Some(m) = b.metaclass() {
                    meta = match meta {
                        Some(current) if current.is_subclass(&m) => Some(current),
                        _ => Some(m),
                    };
                }
            }
            if let Some(m) = meta.clone() {
                if self.class_has(&m, "__new__") || self.class_has(&m, "__init__") {
                    let namespace = Dict { entries: attrs.0.into_iter().map(|(k, v)| (Value::Str(k), v)).collect() };
                    let args = vec![
                        Value::str(name),
                        Value::tuple(bases.into_iter().map(Value::Class).collect()),
                        Value::Dict(Rc::new(RefCell::new(namespace))),
                    ];
                    return self.call_class(&m, args, keywords).await;
                }
            }
            let class = self.new_class(name, bases, attrs, meta)?;
            self.init_subclass(&class, keywords).await?;
            Ok(Value::Class(class))
        })
    }

    /// A class object, as `type.__new__` makes it (no `__init_subclass__` yet).
    pub(super) fn new_class(
        &mut self,
        name: &str,
        bases: Vec<Rc<Class>>,
        attrs: Attrs,
        metaclass: Option<Rc<Class>>,
    ) -> R<Rc<Class>> {
        let bases = if bases.is_empty() { vec![self.types.get(Builtin::Object)] } else { bases };
        for b in &bases {
            if matches!(b.builtin, Some(Builtin::Bool | Builtin::Range | Builtin::Slice | Builtin::Super)) {
                return type_err(format!("type '{}' is not an acceptable base type", b.name));
            }
        }
        let layouts: Vec<Builtin> = bases.iter().filter_map(|b| b.layout()).collect();
        if layouts.windows(2).any(|w| w[0] != w[1]) {
            return type_err("multiple bases have instance lay-out conflict");
        }
        let mro = Class::linearise(&bases).map_err(RtError::new)?;
        // A class that defines `__eq__` but not `__hash__` is unhashable, as in CPython.
        let mut attrs = attrs;
        if attrs.get("__eq__").is_some() && attrs.get("__hash__").is_none() {
            attrs.0.push((Rc::from("__hash__"), Value::None));
        }
        let module = match attrs.get("__module__") {
            Some(Value::Str(m)) => m.clone(),
            _ => Rc::from("__main__"),
        };
        let class = Rc::new(Class {
            name: name.to_string(),
            module,
            bases,
            mro,
            attrs: RefCell::new(attrs),
            builtin: None,
            metaclass: RefCell::new(metaclass),
        });
        // Functions defined in the body find their class for `super()`.
        for (_, v) in class.attrs.borrow().0.iter() {
            let f = match v {
                Value::Function(f) => Some(f.clone()),
                Value::Native(n) => match &**n {
                    Native::StaticMethod(Value::Function(f)) | Native::ClassMethod(Value::Function(f)) => {
                        Some(f.clone())
                    }
                    Native::Property { fget: Value::Function(f), .. } => Some(f.clone()),
                    _ => None,
                },
                _ => None,
            };
            if let Some(f) = f {
                *f.class.borrow_mut() = Rc::downgrade(&class);
            }
            if let Value::Native(n) = v {
                if let Native::Property { fset: Value::Function(f), .. } = &**n {
                    *f.class.borrow_mut() = Rc::downgrade(&class);
                }
            }
        }
        self.made.classes.push(Rc::downgrade(&class));
        Ok(class)
    }

    /// Calls the parent's `__init_subclass__` (a class method) with the class statement's
    /// keywords, as `type.__new__` does.
    fn init_subclass<'a>(&'a mut self, class: &'a Rc<Class>, keywords: Vec<(String, Value)>) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let hook = class.mro.iter().find_map(|c| c.attrs.borrow().get("__init_subclass__").cloned());
            match hook {
                Some(hook) => {
                    let f = unwrap_method(hook);
                    self.call(f, vec![Value::Class(class.clone())], keywords).await?;
                }
                None if !keywords.is_empty() => {
                    return type_err(format!("{}.__init_subclass__() takes no keyword arguments", class.name))
                }
                None => {}
            }
            Ok(())
        })
    }

    /// Whether a class a script wrote (not a built-in type) defines `name` for `class`.
    pub(super) fn class_has(&self, class: &Rc<Class>, name: &str) -> bool {
        class.lineage().any(|c| c.builtin.is_none() && c.attrs.borrow().get(name).is_some())
    }

    /// The special method `name` of `v`'s class, if a script's class defines it (looked up
    /// on the type, as CPython does), bound to `v`.
    pub(super) fn special(&self, v: &Value, name: &str) -> Option<Value> {
        let class = match v {
            Value::Instance(i) => i.class.clone(),
            Value::Class(c) => c.metaclass()?,
            _ => return None,
        };
        let f = class.lineage().find_map(|c| match c.builtin {
            None => c.attrs.borrow().get(name).cloned(),
            Some(_) => None,
        })?;
        Some(bind_to(f, v.clone(), &class))
    }

    /// Calls `v.name(*args)` where `v`'s class defines it; `None` where it does not.
    pub(super) fn call_special<'a>(
        &'a mut self,
        v: &'a Value,
        name: &'a str,
        args: Vec<Value>,
    ) -> LocalFuture<'a, R<Option<Value>>> {
        Box::pin(async move {
            match self.special(v, name) {
                Some(m) => Ok(Some(self.call(m, args, vec![]).await?)),
                None => Ok(None),
            }
        })
    }

    /// `obj.name(*args)`: the attribute looked up as Python looks it up, then called.
    pub(super) fn call_method_of<'a>(
        &'a mut self,
        obj: &'a Value,
        name: &'a str,
        args: Vec<Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let m = self.get_attr(obj, name).await?;
            self.call(m, args, vec![]).await
        })
    }

    /// Calls a class: makes an instance (or, for a built-in type, converts or builds a value).
    pub(super) fn call_class<'a>(
        &'a mut self,
        class: &'a Rc<Class>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // A metaclass's `__call__` (Enum's `Color(1)`) decides what calling the class does.
            if let Some(call) = self.special(&Value::Class(class.clone()), "__call__") {
                return self.call(call, args, kwargs).await;
            }
            self.construct(class, args, kwargs).await
        })
    }

    /// `type.__call__`: `__new__` then, for an instance of the class, `__init__`.
    pub(super) fn construct<'a>(
        &'a mut self,
        class: &'a Rc<Class>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Some(b) = class.builtin {
                return self.construct_builtin(b, class, args, kwargs).await;
            }
            let cls = Value::Class(class.clone());
            let user_new = class.lineage().find_map(|c| match c.builtin {
                None => c.attrs.borrow().get("__new__").cloned(),
                Some(_) => None,
            });
            let obj = match user_new {
                Some(new) => {
                    let new = unwrap_method(new);
                    let mut new_args = vec![cls.clone()];
                    new_args.extend(args.iter().cloned());
                    self.call(new, new_args, kwargs.clone()).await?
                }
                None => self.object_new(class, &args, &kwargs).await?,
            };
            let is_ours = matches!(&obj, Value::Instance(i) if i.class.is_subclass(class));
            if !is_ours {
                return Ok(obj);
            }
            match self.special(&obj, "__init__") {
                Some(init) => {
                    let r = self.call(init, args, kwargs).await?;
                    if !matches!(r, Value::None) {
                        return type_err(format!("__init__() should return None, not '{}'", r.type_name()));
                    }
                }
                None => self.builtin_init(&obj, class, args, kwargs).await?,
            }
            Ok(obj)
        })
    }

    /// `object.__new__(class)` for a script's class: an instance carrying what its built-in
    /// base needs (a tuple subclass's items, an exception's arguments).
    pub(super) fn object_new<'a>(
        &'a mut self,
        class: &'a Rc<Class>,
        args: &'a [Value],
        kwargs: &'a [(String, Value)],
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let base = match class.layout() {
                None => Value::None,
                Some(Builtin::BaseException) => Value::tuple(args.to_vec()),
                Some(Builtin::List) => Value::list(vec![]),
                Some(Builtin::Dict) => Value::Dict(Default::default()),
                Some(Builtin::Set) => {
                    Value::Set(Rc::new(super::objects::PySet { items: RefCell::new(vec![]), frozen: false }))
                }
                Some(b) => {
                    // Immutable values (tuple, int, str, float, frozenset) are made in `__new__`.
                    let class = self.types.get(b);
                    self.construct_builtin(b, &class, args.to_vec(), kwargs.to_vec()).await?
                }
            };
            let instance = Rc::new(Instance::new(class.clone(), base));
            self.made.instance(&instance);
            Ok(Value::Instance(instance))
        })
    }

    /// The `__init__` of a class that defines none: the built-in base's (a list subclass
    /// filled from its argument), or `object.__init__`, which takes no arguments unless the
    /// class has its own `__new__`.
    fn builtin_init<'a>(
        &'a mut self,
        obj: &'a Value,
        class: &'a Rc<Class>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let Value::Instance(inst) = obj else { return Ok(()) };
            match class.layout() {
                Some(b @ (Builtin::List | Builtin::Dict | Builtin::Set)) => {
                    let built = self.construct_builtin(b, &self.types.get(b), args, kwargs).await?;
                    *inst.base.borrow_mut() = built;
                }
                Some(_) => {}
                None => {
                    let own_new = self.class_has(class, "__new__");
                    if (!args.is_empty() || !kwargs.is_empty()) && !own_new {
                        return type_err(format!("{}() takes no arguments", class.name));
                    }
                }
            }
            Ok(())
        })
    }

    /// Calls a built-in type: `int(x)`, `list(it)`, `ValueError("message")`, `object()`,
    /// `type(x)`, `property(f)`, ...
    fn construct_builtin<'a>(
        &'a mut self,
        b: Builtin,
        class: &'a Rc<Class>,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            use super::builtins::{arity, no_more_kwargs, take_kwarg};
            match b {
                _ if b.is_exception() => {
                    no_more_kwargs(b.name(), &kwargs)?;
                    let instance = Rc::new(Instance::new(class.clone(), Value::tuple(args)));
                    self.made.instance(&instance);
                    Ok(Value::Instance(instance))
                }
                Builtin::Object => {
                    if !args.is_empty() || !kwargs.is_empty() {
                        return type_err("object() takes no arguments");
                    }
                    let instance = Rc::new(Instance::new(class.clone(), Value::None));
                    self.made.instance(&instance);
                    Ok(Value::Instance(instance))
                }
                Builtin::Type => match args.len() {
                    1 => Ok(Value::Class(self.class_of(&args[0]))),
                    3 => {
                        let Value::Str(name) = &args[0] else {
                            return type_err("type.__new__() argument 1 must be str");
                        };
                        let bases = self.collect(&args[1]).await?;
                        let bases = bases
                            .into_iter()
                            .map(|b| match b {
                                Value::Class(c) => Ok(c),
                                other => type_err(format!(
                                    "type.__new__() bases must be classes, not '{}'",
                                    other.type_name()
                                )),
                            })
                            .collect::<R<Vec<_>>>()?;
                        let Value::Dict(ns) = &args[2] else {
                            return type_err("type.__new__() argument 3 must be dict");
                        };
                        let attrs = dict_attrs(&ns.borrow())?;
                        let meta = (!Rc::ptr_eq(class, &self.types.get(Builtin::Type))).then(|| class.clone());
                        let new = self.new_class(name, bases, attrs, meta)?;
                        self.init_subclass(&new, kwargs).await?;
                        Ok(Value::Class(new))
                    }
                    _ => type_err("type() takes 1 or 3 arguments"),
                },
                Builtin::Property => {
                    let mut slots = [Value::None, Value::None, Value::None, Value::None];
                    for (slot, name) in slots.iter_mut().zip(["fget", "fset", "fdel", "doc"]) {
                        if let Some(v) = take_kwarg(&mut kwargs, name) {
                            *slot = v;
                        }
                    }
                    no_more_kwargs("property", &kwargs)?;
                    arity("property", &args, 0, 4)?;
                    for (slot, a) in slots.iter_mut().zip(args) {
                        *slot = a;
                    }
                    let [fget, fset, fdel, doc] = slots;
                    Ok(Value::native(Native::Property { fget, fset, fdel, doc }))
                }
                Builtin::StaticMethod | Builtin::ClassMethod => {
                    no_more_kwargs(b.name(), &kwargs)?;
                    arity(b.name(), &args, 1, 1)?;
                    let f = args.into_iter().next().unwrap_or(Value::None);
                    Ok(Value::native(if b == Builtin::StaticMethod {
                        Native::StaticMethod(f)
                    } else {
                        Native::ClassMethod(f)
                    }))
                }
                Builtin::Super => {
                    arity("super", &args, 2, 2)?;
                    let Value::Class(c) = &args[0] else { return type_err("super() argument 1 must be a type") };
                    Ok(Value::native(Native::Super { class: c.clone(), obj: args[1].clone() }))
                }
                Builtin::Set | Builtin::FrozenSet => {
                    no_more_kwargs(b.name(), &kwargs)?;
                    arity(b.name(), &args, 0, 1)?;
                    let items = match args.first() {
                        Some(v) => self.collect(v).await?,
                        None => vec![],
                    };
                    super::builtins::make_set(items, b == Builtin::FrozenSet)
                }
                _ => self.call_builtin(b.name(), args, kwargs).await,
            }
        })
    }

    /// `obj.name` for an instance of a script's class.
    pub(super) fn instance_attr<'a>(&'a mut self, obj: &'a Value, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Value::Instance(inst) = obj else { unreachable!("called for instances") };
            match name {
                "__class__" => return Ok(Value::Class(inst.class.clone())),
                "__dict__" => return Ok(Value::Dict(inst.dict.clone())),
                _ => {}
            }
            let found = inst.class.lookup(name);
            // A data descriptor (a property) on the class comes before the instance's own.
            if let Some(Value::Native(n)) = &found {
                if let Native::Property { fget, .. } = &**n {
                    if matches!(fget, Value::None) {
                        return attr_err(format!("property '{name}' of '{}' object has no getter", inst.class.name));
                    }
                    return self.call(fget.clone(), vec![obj.clone()], vec![]).await;
                }
            }
            if let Some(v) = inst.get(name) {
                return Ok(v);
            }
            if let Some(v) = found {
                return self.bind_found(v, obj, &inst.class).await;
            }
            if let Some(v) = self.builtin_attr(obj, &inst.class, name)? {
                return Ok(v);
            }
            if let Some(getattr) = self.special(obj, "__getattr__") {
                return self.call(getattr, vec![Value::str(name)], vec![]).await;
            }
            attr_err(format!("'{}' object has no attribute '{name}'", inst.class.name))
        })
    }

    /// A class attribute as seen through an instance (or class) `obj`: functions become bound
    /// methods, static methods their function, class methods bound to the class, and
    /// objects with `__get__` what that gives.
    fn bind_found<'a>(&'a mut self, v: Value, obj: &'a Value, class: &'a Rc<Class>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Value::Instance(d) = &v {
                if self.class_has(&d.class, "__get__") {
                    let get = self.special(&v, "__get__").expect("checked above");
                    return self.call(get, vec![obj.clone(), Value::Class(class.clone())], vec![]).await;
                }
            }
            Ok(bind_to(v, obj.clone(), class))
        })
    }

    /// What an instance has from its built-in base: an exception's `args`, a list subclass's
    /// `append`, `object`'s special methods.
    fn builtin_attr(&mut self, obj: &Value, class: &Rc<Class>, name: &str) -> R<Option<Value>> {
        let Value::Instance(inst) = obj else { return Ok(None) };
        let layout = class.layout();
        if layout == Some(Builtin::BaseException) {
            let args = inst.base.borrow().clone();
            match name {
                "args" => return Ok(Some(args)),
                "__cause__" | "__context__" | "__traceback__" => return Ok(Some(Value::None)),
                "__notes__" => {}
                "value" if class.derives(Builtin::StopIteration) => {
                    let Value::Tuple(t) = &args else { return Ok(Some(Value::None)) };
                    return Ok(Some(t.first().cloned().unwrap_or(Value::None)));
                }
                "code" if class.derives(Builtin::SystemExit) => {
                    let Value::Tuple(t) = &args else { return Ok(Some(Value::None)) };
                    return Ok(Some(match &t[..] {
                        [] => Value::None,
                        [one] => one.clone(),
                        _ => args.clone(),
                    }));
                }
                _ => {}
            }
        }
        let b = class.lineage().find_map(|c| c.builtin).unwrap_or(Builtin::Object);
        if let Some(m) = type_method(b, name) {
            return Ok(Some(Value::BoundMethod(Rc::new(super::objects::BoundMethod {
                receiver: obj.clone(),
                func: Value::native(Native::TypeMethod(b, m)),
            }))));
        }
        let base = inst.base.borrow().clone();
        if !matches!(base, Value::None) && layout != Some(Builtin::BaseException) {
            if let Ok(m) = super::builtins::method(&base, name) {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// `Class.name`: the class's attribute (functions as they are, class methods bound to
    /// the class), its metaclass's, or what every class has (`__name__`, `__mro__`, ...).
    pub(super) fn class_attr<'a>(&'a mut self, class: &'a Rc<Class>, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let value = Value::Class(class.clone());
            match name {
                "__name__" | "__qualname__" => return Ok(Value::str(&class.name)),
                "__module__" => return Ok(Value::Str(class.module.clone())),
                "__mro__" => return Ok(Value::tuple(class.lineage().map(|c| Value::Class(c.clone())).collect())),
                "__bases__" => return Ok(Value::tuple(class.bases.iter().map(|c| Value::Class(c.clone())).collect())),
                "__base__" => return Ok(class.bases.first().map_or(Value::None, |c| Value::Class(c.clone()))),
                "__class__" => return Ok(Value::Class(self.class_of(&value))),
                "__dict__" => {
                    let entries =
                        class.attrs.borrow().0.iter().map(|(k, v)| (Value::Str(k.clone()), v.clone())).collect();
                    return Ok(Value::Dict(Rc::new(RefCell::new(Dict { entries }))));
                }
                "__doc__" => return Ok(class.lookup("__doc__").unwrap_or(Value::None)),
                _ => {}
            }
            if let Some(v) = class.lookup(name) {
                return match v {
                    Value::Native(n) => match &*n {
                        Native::StaticMethod(f) => Ok(f.clone()),
                        Native::ClassMethod(f) => Ok(Value::BoundMethod(Rc::new(super::objects::BoundMethod {
                            receiver: value,
                            func: f.clone(),
                        }))),
                        _ => Ok(Value::Native(n.clone())),
                    },
                    Value::Instance(d) if self.class_has(&d.class, "__get__") => {
                        let get = self.special(&Value::Instance(d.clone()), "__get__").expect("checked above");
                        self.call(get, vec![Value::None, value], vec![]).await
                    }
                    v => Ok(v),
                };
            }
            if let Some(b) = class.lineage().find_map(|c| c.builtin) {
                if let Some(m) = type_method(b, name) {
                    if m == "fromkeys" {
                        return Ok(Value::BoundMethod(Rc::new(super::objects::BoundMethod {
                            receiver: value,
                            func: Value::native(Native::TypeMethod(b, m)),
                        })));
                    }
                    return Ok(Value::native(Native::TypeMethod(b, m)));
                }
            }
            // The metaclass's methods, bound to the class.
            if let Some(meta) = class.metaclass() {
                if let Some(v) = meta.lookup(name) {
                    if let Value::Native(n) = &v {
                        if let Native::Property { fget, .. } = &**n {
                            return self.call(fget.clone(), vec![value], vec![]).await;
                        }
                    }
                    return Ok(bind_to(v, value, &meta));
                }
                // A metaclass's `__getattr__` answers for what the class lacks.
                if let Some(getattr) = meta.lookup("__getattr__").filter(|f| matches!(f, Value::Function(_))) {
                    return self.call(getattr, vec![value, Value::str(name)], vec![]).await;
                }
            }
            attr_err(format!("type object '{}' has no attribute '{name}'", class.name))
        })
    }

    /// What `super()` finds: `name` on the classes after `class` in `obj`'s MRO.
    pub(super) fn super_attr<'a>(
        &'a mut self,
        class: &'a Rc<Class>,
        obj: &'a Value,
        name: &'a str,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // `super()` in a class method searches the class's own MRO; in a method of a
            // metaclass (whose `obj` is a class too), the MRO of the class's type.
            let obj_class = match obj {
                Value::Class(c) if c.is_subclass(class) => c.clone(),
                other => self.class_of(other),
            };
            if let Some(v) = obj_class.lookup_after(class, name) {
                if let Value::Native(n) = &v {
                    if let Native::Property { fget, .. } = &**n {
                        return self.call(fget.clone(), vec![obj.clone()], vec![]).await;
                    }
                }
                return match obj {
                    // `super().method` in a class method: bound to the class.
                    Value::Class(_) => match v {
                        Value::Function(_) => Ok(v),
                        other => Ok(bind_to(other, obj.clone(), &obj_class)),
                    },
                    _ => self.bind_found(v, obj, &obj_class).await,
                };
            }
            // A built-in base's method (`super().__init__(message)` in an exception class).
            let mut after = obj_class.lineage().skip_while(|c| !Rc::ptr_eq(c, class));
            after.next();
            let b = after.find_map(|c| c.builtin).unwrap_or(Builtin::Object);
            if let Some(m) = type_method(b, name) {
                return Ok(Value::BoundMethod(Rc::new(super::objects::BoundMethod {
                    receiver: obj.clone(),
                    func: Value::native(Native::TypeMethod(b, m)),
                })));
            }
            attr_err(format!("'super' object has no attribute '{name}'"))
        })
    }

    /// `super()` with no arguments, inside a method: the class the method was defined in, and
    /// the method's first argument.
    pub(super) fn zero_arg_super(&self, env: &Env) -> R<Value> {
        let mut scope = Some(env);
        while let Some(s) = scope {
            if let Some(Value::Class(class)) = s.vars.borrow().get("__class__") {
                let first = s.locals.first().and_then(|n| s.vars.borrow().get(n).cloned());
                let Some(obj) = first else {
                    return Err(RtError::of(Builtin::RuntimeError, "super(): no arguments"));
                };
                return Ok(Value::native(Native::Super { class: class.clone(), obj }));
            }
            scope = s.parent.as_ref();
        }
        Err(RtError::of(Builtin::RuntimeError, "super(): __class__ cell not found"))
    }

    /// `obj.name = value`.
    pub(super) fn set_attr<'a>(&'a mut self, obj: &'a Value, name: &'a str, value: Value) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            match obj {
                Value::Instance(inst) => {
                    if let Some(setattr) = self.special(obj, "__setattr__") {
                        self.call(setattr, vec![Value::str(name), value], vec![]).await?;
                        return Ok(());
                    }
                    self.object_setattr(inst, name, value).await
                }
                Value::Class(c) => {
                    if c.builtin.is_some() {
                        return type_err(format!("cannot set '{name}' attribute of immutable type '{}'", c.name));
                    }
                    c.attrs.borrow_mut().set(name, value);
                    Ok(())
                }
                Value::PyModule(m) => {
                    self.bind(&m.scope, name, value);
                    Ok(())
                }
                Value::Function(f) => {
                    match name {
                        "__name__" | "__qualname__" => {
                            let Value::Str(s) = &value else {
                                return type_err(format!("{name} must be set to a string object"));
                            };
                            if name == "__name__" {
                                *f.name.borrow_mut() = s.clone();
                            } else {
                                f.attrs.borrow_mut().set(name, value.clone());
                            }
                        }
                        _ => f.attrs.borrow_mut().set(name, value),
                    }
                    Ok(())
                }
                other => attr_err(format!("'{}' object has no attribute '{name}'", other.type_name())),
            }
        })
    }

    /// `object.__setattr__(obj, name, value)`: a property's setter, else the instance's dict.
    pub(super) fn object_setattr<'a>(
        &'a mut self,
        inst: &'a Rc<Instance>,
        name: &'a str,
        value: Value,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            if let Some(Value::Native(n)) = inst.class.lookup(name) {
                if let Native::Property { fset, .. } = &*n {
                    if matches!(fset, Value::None) {
                        return attr_err(format!("property '{name}' of '{}' object has no setter", inst.class.name));
                    }
                    self.call(fset.clone(), vec![Value::Instance(inst.clone()), value], vec![]).await?;
                    return Ok(());
                }
            }
            if let Some(d @ Value::Instance(_)) = inst.class.lookup(name) {
                if let Some(set) = self.special(&d, "__set__") {
                    self.call(set, vec![Value::Instance(inst.clone()), value], vec![]).await?;
                    return Ok(());
                }
            }
            inst.set(name, value);
            Ok(())
        })
    }

    /// `del obj.name`.
    pub(super) fn del_attr<'a>(&'a mut self, obj: &'a Value, name: &'a str) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            match obj {
                Value::Instance(inst) => {
                    if let Some(delattr) = self.special(obj, "__delattr__") {
                        self.call(delattr, vec![Value::str(name)], vec![]).await?;
                        return Ok(());
                    }
                    match inst.dict.borrow_mut().remove_str(name) {
                        Some(old) => {
                            super::dismantle([old]);
                            Ok(())
                        }
                        None => attr_err(format!("'{}' object has no attribute '{name}'", inst.class.name)),
                    }
                }
                Value::Class(c) if c.builtin.is_none() => match c.attrs.borrow_mut().remove(name) {
                    Some(_) => Ok(()),
                    None => attr_err(format!("type object '{}' has no attribute '{name}'", c.name)),
                },
                other => attr_err(format!("'{}' object has no attribute '{name}'", other.type_name())),
            }
        })
    }

    /// Calls a method of a built-in type reached through the type (`dict.get(d, k)`,
    /// `super().__init__(...)`): on an instance of a subclass, it applies to the value the
    /// instance carries.
    pub(super) fn call_type_method<'a>(
        &'a mut self,
        b: Builtin,
        name: &'static str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut args = args.into_iter();
            let Some(receiver) = args.next() else {
                return type_err(format!("unbound method {}.{name}() needs an argument", b.name()));
            };
            let rest: Vec<Value> = args.collect();
            let inst = match &receiver {
                Value::Instance(i) => Some(i.clone()),
                _ => None,
            };
            match name {
                "__new__" => {
                    // `object.__new__(cls)`, `tuple.__new__(cls, items)`, `type.__new__(mcs, ...)`.
                    let Value::Class(cls) = &receiver else {
                        return type_err(format!("{}.__new__(X): X is not a type object", b.name()));
                    };
                    if b == Builtin::Type {
                        return self.construct_builtin(Builtin::Type, cls, rest, kwargs).await;
                    }
                    if cls.builtin.is_some() {
                        return self.construct_builtin(cls.builtin.unwrap_or(b), cls, rest, kwargs).await;
                    }
                    let args = if b == Builtin::Object { vec![] } else { rest };
                    return self.object_new(cls, &args, &kwargs).await;
                }
                "__init__" => {
                    let Some(inst) = inst else { return Ok(Value::None) };
                    match b {
                        _ if b.is_exception() => *inst.base.borrow_mut() = Value::tuple(rest),
                        Builtin::List | Builtin::Dict | Builtin::Set => {
                            let built = self.construct_builtin(b, &self.types.get(b), rest, kwargs).await?;
                            *inst.base.borrow_mut() = built;
                        }
                        _ => {}
                    }
                    return Ok(Value::None);
                }
                "__init_subclass__" => return Ok(Value::None),
                // `type.__call__(cls, ...)`: what calling a class does, from a metaclass's own
                // `__call__` (`super().__call__(*args)`).
                "__call__" if b == Builtin::Type => {
                    let Value::Class(cls) = &receiver else { return type_err("type.__call__() needs a class") };
                    return self.construct(cls, rest, kwargs).await;
                }
                "__setattr__" => {
                    let (Some(inst), [Value::Str(attr), value]) = (inst, &rest[..]) else {
                        return type_err("object.__setattr__() takes an object, a name and a value");
                    };
                    self.object_setattr(&inst, attr, value.clone()).await?;
                    return Ok(Value::None);
                }
                "__getattribute__" => {
                    let [Value::Str(attr)] = &rest[..] else { return type_err("__getattribute__() takes a name") };
                    return match &receiver {
                        Value::Instance(i) => match i.get(attr) {
                            Some(v) => Ok(v),
                            None => self.get_attr(&receiver, attr).await,
                        },
                        _ => self.get_attr(&receiver, attr).await,
                    };
                }
                "__delattr__" => {
                    let (Some(inst), [Value::Str(attr)]) = (inst, &rest[..]) else {
                        return type_err("object.__delattr__() takes an object and a name");
                    };
                    inst.dict.borrow_mut().remove_str(attr);
                    return Ok(Value::None);
                }
                "__repr__" => {
                    let text = match &receiver {
                        Value::Instance(i) if b == Builtin::Object => {
                            format!("<{} object at {:#x}>", i.class.qualified_name(), Rc::as_ptr(i) as usize)
                        }
                        v => super::value::repr(&unwrap_base(v)),
                    };
                    return Ok(Value::str(&text));
                }
                "__str__" => {
                    let v = unwrap_base(&receiver);
                    return Ok(Value::str(&self.py_str(&v).await?));
                }
                "__eq__" => return Ok(Value::Bool(rest.first().is_some_and(|o| super::value::py_eq(&receiver, o)))),
                "__ne__" => return Ok(Value::Bool(!rest.first().is_some_and(|o| super::value::py_eq(&receiver, o)))),
                "__hash__" => return Ok(Value::Int(identity_hash(&receiver))),
                "__format__" => {
                    let spec = match rest.first() {
                        Some(Value::Str(s)) => s.to_string(),
                        _ => String::new(),
                    };
                    let text = self.py_str(&receiver).await?;
                    return Ok(Value::str(&super::format::format_value(&Value::str(&text), &spec)?));
                }
                "with_traceback" => return Ok(receiver),
                "add_note" => return Ok(Value::None),
                "fromkeys" => {
                    let keys = match rest.first() {
                        Some(k) => self.collect(k).await?,
                        None => return type_err("fromkeys expected at least 1 argument, got 0"),
                    };
                    let fill = rest.get(1).cloned().unwrap_or(Value::None);
                    let mut d = Dict::default();
                    for k in keys {
                        d.insert(k, fill.clone())?;
                    }
                    let d = Value::Dict(Rc::new(RefCell::new(d)));
                    return match &receiver {
                        Value::Class(c) if c.builtin.is_none() => {
                            let obj = self.call_class(c, vec![], vec![]).await?;
                            if let Value::Instance(i) = &obj {
                                *i.base.borrow_mut() = d;
                            }
                            Ok(obj)
                        }
                        _ => Ok(d),
                    };
                }
                _ => {}
            }
            let target = unwrap_base(&receiver);
            match name {
                "__getitem__" => {
                    let [index] = &rest[..] else { return type_err("__getitem__ takes one index") };
                    self.get_item(&target, index).await
                }
                "__setitem__" => {
                    let [index, value] = &rest[..] else { return type_err("__setitem__ takes an index and a value") };
                    self.set_item(&target, index.clone(), value.clone()).await?;
                    Ok(Value::None)
                }
                "__delitem__" => {
                    let [index] = &rest[..] else { return type_err("__delitem__ takes one index") };
                    self.del_item(&target, index).await?;
                    Ok(Value::None)
                }
                "__len__" => Ok(Value::Int(self.len(&target)? as i64)),
                "__contains__" => {
                    let [item] = &rest[..] else { return type_err("__contains__ takes one argument") };
                    let found = self.compare(CmpOp::In, item, &target).await?;
                    Ok(found)
                }
                "__iter__" => self.iter_of(&target).await,
                _ => self.call_method(&target, name, rest, kwargs).await,
            }
        })
    }

    /// The key a lookup in `container` (a dict or set) uses for `key`: an object whose class
    /// defines `__eq__` is matched, by that `__eq__`, to an equal object already there, so the
    /// lookup that follows (by identity for objects) finds it, as CPython's hash tables do. A
    /// class that set `__hash__ = None` is unhashable. Any other key is itself, at no cost.
    pub(super) fn existing_key<'a>(&'a mut self, container: &'a Value, key: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if !matches!(key, Value::Instance(_)) {
                return Ok(key.clone());
            }
            if let Some(Value::None) = self.special(key, "__hash__") {
                return type_err(format!("unhashable type: '{}'", key.type_name()));
            }
            if self.special(key, "__eq__").is_none() {
                return Ok(key.clone());
            }
            let keys: Vec<Value> = match container {
                Value::Dict(d) => d.borrow().entries.iter().map(|(k, _)| k.clone()).collect(),
                Value::Set(s) => s.items.borrow().clone(),
                _ => Vec::new(),
            };
            for k in keys.iter().filter(|k| matches!(k, Value::Instance(_))) {
                let eq = self.compare(CmpOp::Eq, key, k).await?;
                if self.truth(&eq).await? {
                    return Ok(k.clone());
                }
            }
            Ok(key.clone())
        })
    }

    /// `repr(v)`, calling the `__repr__` of a script's classes (also for instances inside
    /// lists, tuples and dicts).
    pub(super) fn py_repr<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<String>> {
        Box::pin(async move {
            let mut reprs = super::value::Reprs::new();
            self.gather_reprs(v, &mut reprs, 0).await?;
            Ok(super::value::repr_with(v, &reprs))
        })
    }

    /// `str(v)`: the class's `__str__`, else its `repr`.
    pub(super) fn py_str<'a>(&'a mut self, v: &'a Value) -> LocalFuture<'a, R<String>> {
        Box::pin(async move {
            if let Some(s) = self.call_special(v, "__str__", vec![]).await? {
                return match s {
                    Value::Str(s) => Ok(s.to_string()),
                    other => type_err(format!("__str__ returned non-string (type {})", other.type_name())),
                };
            }
            let mut reprs = super::value::Reprs::new();
            self.gather_reprs(v, &mut reprs, 0).await?;
            Ok(super::value::str_with(v, &reprs))
        })
    }

    /// The `__repr__` of every instance in `v` whose class defines one (or a `__str__` of an
    /// exception), by address.
    fn gather_reprs<'a>(
        &'a mut self,
        v: &'a Value,
        reprs: &'a mut super::value::Reprs,
        depth: usize,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            let mut visited = std::collections::HashSet::new();
            self.gather_reprs_in(v, reprs, depth, &mut visited).await
        })
    }

    /// `gather_reprs`, visiting each container once: a list shared at every level of a deep
    /// nesting (`x = [x, x]` thirty times) has 2^30 paths to its leaves but 30 lists.
    fn gather_reprs_in<'a>(
        &'a mut self,
        v: &'a Value,
        reprs: &'a mut super::value::Reprs,
        depth: usize,
        visited: &'a mut std::collections::HashSet<usize>,
    ) -> LocalFuture<'a, R<()>> {
        Box::pin(async move {
            if depth > 100 {
                return Ok(());
            }
            let container = match v {
                Value::List(l) => Some(Rc::as_ptr(l) as *const u8 as usize),
                Value::Tuple(t) => Some(Rc::as_ptr(t) as *const u8 as usize),
                Value::Dict(d) => Some(Rc::as_ptr(d) as *const u8 as usize),
                Value::Set(s) => Some(Rc::as_ptr(s) as *const u8 as usize),
                _ => None,
            };
            if container.is_some_and(|p| !visited.insert(p)) {
                return Ok(());
            }
            match v {
                // A class whose metaclass defines `__repr__` (an Enum's `<enum 'Color'>`).
                Value::Class(c) if c.metaclass().is_some() => {
                    if let std::collections::hash_map::Entry::Vacant(slot) = reprs.entry(Rc::as_ptr(c) as *const ()) {
                        if let Some(r) = self.call_special(v, "__repr__", vec![]).await? {
                            let Value::Str(s) = r else {
                                return type_err(format!("__repr__ returned non-string (type {})", r.type_name()));
                            };
                            slot.insert(s.to_string());
                        }
                    }
                }
                Value::Instance(i) => {
                    let key = Rc::as_ptr(i) as *const ();
                    if reprs.contains_key(&key) {
                        return Ok(());
                    }
                    if let Some(r) = self.call_special(v, "__repr__", vec![]).await? {
                        let Value::Str(s) = r else {
                            return type_err(format!("__repr__ returned non-string (type {})", r.type_name()));
                        };
                        reprs.insert(key, s.to_string());
                        return Ok(());
                    }
                    let base = i.base.borrow().clone();
                    self.gather_reprs_in(&base, reprs, depth + 1, visited).await?;
                }
                Value::List(l) => {
                    let items = l.borrow().clone();
                    for item in &items {
                        self.gather_reprs_in(item, reprs, depth + 1, visited).await?;
                    }
                }
                Value::Tuple(t) => {
                    for item in t.iter() {
                        self.gather_reprs_in(item, reprs, depth + 1, visited).await?;
                    }
                }
                Value::Dict(d) => {
                    let entries = d.borrow().entries.clone();
                    for (k, item) in &entries {
                        self.gather_reprs_in(k, reprs, depth + 1, visited).await?;
                        self.gather_reprs_in(item, reprs, depth + 1, visited).await?;
                    }
                }
                Value::Set(s) => {
                    let items = s.items.borrow().clone();
                    for item in &items {
                        self.gather_reprs_in(item, reprs, depth + 1, visited).await?;
                    }
                }
                _ => {}
            }
            Ok(())
        })
    }

    /// `a op b` where either is an instance of a script's class.
    pub(super) fn instance_binary<'a>(&'a mut self, op: BinOp, a: Value, b: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (own, reflected) = binary_dunders(op);
            // The right operand goes first when its class is a subclass of the left's that
            // overrides the reflected method.
            let right_first = match (&a, &b) {
                (Value::Instance(x), Value::Instance(y)) => {
                    !Rc::ptr_eq(&x.class, &y.class)
                        && y.class.is_subclass(&x.class)
                        && self.class_has(&y.class, reflected)
                }
                _ => false,
            };
            if right_first {
                if let Some(r) = self.call_special(&b, reflected, vec![a.clone()]).await? {
                    if !matches!(r, Value::NotImplemented) {
                        return Ok(r);
                    }
                }
            }
            if let Some(r) = self.call_special(&a, own, vec![b.clone()]).await? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
            if !right_first {
                if let Some(r) = self.call_special(&b, reflected, vec![a.clone()]).await? {
                    if !matches!(r, Value::NotImplemented) {
                        return Ok(r);
                    }
                }
            }
            // Instances of built-in types' subclasses compute with their values.
            let (x, y) = (unwrap_base(&a), unwrap_base(&b));
            if !matches!(x, Value::Instance(_)) && !matches!(y, Value::Instance(_)) {
                return self.binary(op, x, y).await;
            }
            type_err(format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op.symbol(),
                a.type_name(),
                b.type_name()
            ))
        })
    }

    /// `a op b` for a comparison where either is an instance of a script's class.
    pub(super) fn instance_compare<'a>(
        &'a mut self,
        op: CmpOp,
        a: &'a Value,
        b: &'a Value,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (own, reflected) = compare_dunders(op).expect("comparison operators");
            if let Some(r) = self.call_special(a, own, vec![b.clone()]).await? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
            if let Some(r) = self.call_special(b, reflected, vec![a.clone()]).await? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
            // `!=` is the negation of a class's own `__eq__`.
            if op == CmpOp::Ne {
                if let Some(r) = self.call_special(a, "__eq__", vec![b.clone()]).await? {
                    if !matches!(r, Value::NotImplemented) {
                        return Ok(Value::Bool(!self.truth(&r).await?));
                    }
                }
            }
            let (x, y) = (unwrap_base(a), unwrap_base(b));
            if !matches!(x, Value::Instance(_)) && !matches!(y, Value::Instance(_)) {
                return self.compare(op, &x, &y).await;
            }
            match op {
                CmpOp::Eq => Ok(Value::Bool(super::value::py_eq(a, b))),
                CmpOp::Ne => Ok(Value::Bool(!super::value::py_eq(a, b))),
                _ => type_err(format!(
                    "'{}' not supported between instances of '{}' and '{}'",
                    op.symbol(),
                    a.type_name(),
                    b.type_name()
                )),
            }
        })
    }

    /// `-v`, `+v`, `~v` for an instance.
    pub(super) fn instance_unary<'a>(&'a mut self, op: UnaryOp, v: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let name = match op {
                UnaryOp::Neg => "__neg__",
                UnaryOp::Pos => "__pos__",
                UnaryOp::Invert => "__invert__",
                UnaryOp::Not => unreachable!("`not` is truth"),
            };
            if let Some(r) = self.call_special(&v, name, vec![]).await? {
                return Ok(r);
            }
            let base = unwrap_base(&v);
            if !matches!(base, Value::Instance(_)) {
                return self.unary(op, base).await;
            }
            type_err(format!("bad operand type for unary {}: '{}'", op.symbol(), v.type_name()))
        })
    }

    /// `isinstance(v, cls)` for a class or a tuple of them.
    pub(super) fn is_instance(&self, v: &Value, cls: &Value) -> R<Option<bool>> {
        Ok(match cls {
            // NumPy's float64 scalar is a Python float (a subclass of it).
            Value::Class(c)
                if c.builtin == Some(Builtin::Float)
                    && matches!(v, Value::Host(h) if h.scalar && h.dtype() == jaxlite::DType::F64) =>
            {
                Some(true)
            }
            Value::Class(c) => Some(
                self.class_of(v).is_subclass(c) || (c.builtin == Some(Builtin::Int) && matches!(v, Value::Bool(_))),
            ),
            Value::Tuple(classes) => {
                for c in classes.iter() {
                    let member = match self.is_instance(v, c)? {
                        Some(b) => b,
                        None => super::builtins::isinstance(v, c)?,
                    };
                    if member {
                        return Ok(Some(true));
                    }
                }
                Some(false)
            }
            _ => None,
        })
    }
}

/// A class attribute bound to what it was looked up on.
/// The function a `staticmethod` or `classmethod` wraps (the implicit ones, `__new__`,
/// `__init_subclass__` and `__class_getitem__`, are called with their class as an ordinary
/// argument).
pub(super) fn unwrap_method(v: Value) -> Value {
    match v {
        Value::Native(n) => match &*n {
            Native::StaticMethod(f) | Native::ClassMethod(f) => f.clone(),
            _ => Value::Native(n.clone()),
        },
        f => f,
    }
}

fn bind_to(v: Value, obj: Value, class: &Rc<Class>) -> Value {
    let method =
        |func: Value, receiver: Value| Value::BoundMethod(Rc::new(super::objects::BoundMethod { receiver, func }));
    match v {
        Value::Function(_) => method(v, obj),
        Value::Native(n) => match &*n {
            Native::StaticMethod(f) => f.clone(),
            Native::ClassMethod(f) => {
                let receiver = match &obj {
                    Value::Class(c) => Value::Class(c.clone()),
                    _ => Value::Class(class.clone()),
                };
                method(f.clone(), receiver)
            }
            // JAX's wrapped functions are descriptors, as Python functions are: `@jax.jit` on
            // a method makes `self` its first argument.
            Native::Jitted(_)
            | Native::Transformed(_)
            | Native::Vmapped(_)
            | Native::Pmapped(_)
            | Native::CustomJvp(_)
            | Native::CustomVjp(_)
                if !matches!(obj, Value::Class(_)) =>
            {
                method(Value::Native(n.clone()), obj)
            }
            // Built-in functions and partials stored on a class do not bind, as in CPython.
            _ => Value::Native(n.clone()),
        },
        v => v,
    }
}

/// The built-in value an instance of a built-in type's subclass carries; anything else as
/// it is.
pub(super) fn unwrap_base(v: &Value) -> Value {
    match v {
        Value::Instance(i) if i.class.layout().is_some_and(|l| l != Builtin::BaseException) => {
            let base = i.base.borrow().clone();
            if matches!(base, Value::None) {
                v.clone()
            } else {
                base
            }
        }
        _ => v.clone(),
    }
}

/// A namespace dict (`type(name, bases, ns)`, a metaclass's `__new__`) as class attributes.
fn dict_attrs(d: &Dict) -> R<Attrs> {
    let mut attrs = Attrs::default();
    for (k, v) in &d.entries {
        let Value::Str(k) = k else { return type_err("a class namespace's keys must be strings") };
        attrs.set(k, v.clone());
    }
    Ok(attrs)
}

/// `hash(v)` for objects without a `__hash__`: their identity.
pub(super) fn identity_hash(v: &Value) -> i64 {
    // Objects are their allocation; plain values (ints, None, ...) have no allocation, so equal
    // ones share an id, as CPython's cached small ints and singletons do.
    let ptr = match v {
        Value::Instance(i) => Rc::as_ptr(i) as usize,
        Value::Class(c) => Rc::as_ptr(c) as usize,
        Value::Function(f) => Rc::as_ptr(f) as usize,
        Value::List(l) => Rc::as_ptr(l) as *const u8 as usize,
        Value::Tuple(t) => Rc::as_ptr(t) as usize,
        Value::Dict(d) => Rc::as_ptr(d) as *const u8 as usize,
        Value::Str(s) => Rc::as_ptr(s) as *const u8 as usize,
        Value::Native(n) => Rc::as_ptr(n) as usize,
        Value::Jaxpr(j) => Rc::as_ptr(j) as usize,
        Value::Key(k) => Rc::as_ptr(k) as usize,
        Value::BoundMethod(m) => Rc::as_ptr(m) as usize,
        Value::Set(s) => Rc::as_ptr(s) as usize,
        Value::Iterator(i) => Rc::as_ptr(i) as *const u8 as usize,
        Value::PyModule(m) => Rc::as_ptr(m) as usize,
        Value::Array(jaxlite::Tensor::Concrete(a)) => Rc::as_ptr(a) as usize,
        Value::Array(jaxlite::Tensor::Traced(t)) => Rc::as_ptr(t) as usize,
        Value::None => 0x10,
        Value::Bool(b) => 0x20 + *b as usize * 0x10,
        Value::Ellipsis => 0x40,
        Value::NotImplemented => 0x50,
        Value::Int(i) => 0x1000 + (*i as usize).wrapping_mul(0x10),
        other => {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            other.type_name().hash(&mut h);
            super::value::repr(other).hash(&mut h);
            h.finish() as usize & !0xf
        }
    };
    (ptr >> 4) as i64
}
