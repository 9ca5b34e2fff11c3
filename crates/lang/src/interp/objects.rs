//! Classes and their instances: the built-in types (`int`, `list`, `ValueError`, ...) and the
//! classes a script defines, as one kind of value.
//!
//! A class holds its attributes in definition order and its method resolution order (C3, as
//! CPython computes it). A built-in type is a class too, with `builtin` saying which one, so
//! `isinstance(x, int)`, `type(x) is list`, `class Config(dict)` and `except ValueError` all
//! go through the same subclass test. Built-in types are made once per run (`Types`), so
//! nothing a script does to them outlives it.
//!
//! An instance of a class that extends a built-in type keeps that type's value beside its
//! `__dict__` (`base`): the list of a `list` subclass, the arguments of an exception. Where a
//! class defines no method of its own for an operation, the operation applies to that value.

use super::value::Value;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// The built-in types and exceptions a script can name, subclass or catch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Object,
    Type,
    Int,
    Float,
    Complex,
    Bool,
    Str,
    List,
    Tuple,
    Dict,
    Set,
    FrozenSet,
    Range,
    Slice,
    Property,
    StaticMethod,
    ClassMethod,
    Super,
    BaseException,
    SystemExit,
    KeyboardInterrupt,
    GeneratorExit,
    Exception,
    StopIteration,
    ArithmeticError,
    ZeroDivisionError,
    OverflowError,
    FloatingPointError,
    AssertionError,
    AttributeError,
    LookupError,
    IndexError,
    KeyError,
    NameError,
    UnboundLocalError,
    OSError,
    FileNotFoundError,
    RuntimeError,
    NotImplementedError,
    RecursionError,
    TypeError,
    ValueError,
    ImportError,
    ModuleNotFoundError,
    MemoryError,
    EOFError,
    Warning,
    UserWarning,
    DeprecationWarning,
    RuntimeWarning,
    FutureWarning,
    // jax.errors
    JaxTypeError,
    JaxIndexError,
    ConcretizationTypeError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    TracerArrayConversionError,
    UnexpectedTracerError,
    NonConcreteBooleanIndexError,
    JaxRuntimeError,
    // numpy.linalg
    LinAlgError,
}

impl Builtin {
    pub const ALL: &'static [Builtin] = &[
        Builtin::Object,
        Builtin::Type,
        Builtin::Int,
        Builtin::Float,
        Builtin::Complex,
        Builtin::Bool,
        Builtin::Str,
        Builtin::List,
        Builtin::Tuple,
        Builtin::Dict,
        Builtin::Set,
        Builtin::FrozenSet,
        Builtin::Range,
        Builtin::Slice,
        Builtin::Property,
        Builtin::StaticMethod,
        Builtin::ClassMethod,
        Builtin::Super,
        Builtin::BaseException,
        Builtin::SystemExit,
        Builtin::KeyboardInterrupt,
        Builtin::GeneratorExit,
        Builtin::Exception,
        Builtin::StopIteration,
        Builtin::ArithmeticError,
        Builtin::ZeroDivisionError,
        Builtin::OverflowError,
        Builtin::FloatingPointError,
        Builtin::AssertionError,
        Builtin::AttributeError,
        Builtin::LookupError,
        Builtin::IndexError,
        Builtin::KeyError,
        Builtin::NameError,
        Builtin::UnboundLocalError,
        Builtin::OSError,
        Builtin::FileNotFoundError,
        Builtin::RuntimeError,
        Builtin::NotImplementedError,
        Builtin::RecursionError,
        Builtin::TypeError,
        Builtin::ValueError,
        Builtin::ImportError,
        Builtin::ModuleNotFoundError,
        Builtin::MemoryError,
        Builtin::EOFError,
        Builtin::Warning,
        Builtin::UserWarning,
        Builtin::DeprecationWarning,
        Builtin::RuntimeWarning,
        Builtin::FutureWarning,
        Builtin::JaxTypeError,
        Builtin::JaxIndexError,
        Builtin::ConcretizationTypeError,
        Builtin::TracerBoolConversionError,
        Builtin::TracerIntegerConversionError,
        Builtin::TracerArrayConversionError,
        Builtin::UnexpectedTracerError,
        Builtin::NonConcreteBooleanIndexError,
        Builtin::JaxRuntimeError,
        Builtin::LinAlgError,
    ];

    /// The type's name, its module, and its base (`None` for `object`).
    pub fn info(self) -> (&'static str, &'static str, Option<Builtin>) {
        use Builtin::*;
        let b = "builtins";
        let jax = "jax.errors";
        match self {
            Object => ("object", b, None),
            Type => ("type", b, Some(Object)),
            Int => ("int", b, Some(Object)),
            Float => ("float", b, Some(Object)),
            Complex => ("complex", b, Some(Object)),
            Bool => ("bool", b, Some(Int)),
            Str => ("str", b, Some(Object)),
            List => ("list", b, Some(Object)),
            Tuple => ("tuple", b, Some(Object)),
            Dict => ("dict", b, Some(Object)),
            Set => ("set", b, Some(Object)),
            FrozenSet => ("frozenset", b, Some(Object)),
            Range => ("range", b, Some(Object)),
            Slice => ("slice", b, Some(Object)),
            Property => ("property", b, Some(Object)),
            StaticMethod => ("staticmethod", b, Some(Object)),
            ClassMethod => ("classmethod", b, Some(Object)),
            Super => ("super", b, Some(Object)),
            BaseException => ("BaseException", b, Some(Object)),
            SystemExit => ("SystemExit", b, Some(BaseException)),
            KeyboardInterrupt => ("KeyboardInterrupt", b, Some(BaseException)),
            GeneratorExit => ("GeneratorExit", b, Some(BaseException)),
            Exception => ("Exception", b, Some(BaseException)),
            StopIteration => ("StopIteration", b, Some(Exception)),
            ArithmeticError => ("ArithmeticError", b, Some(Exception)),
            ZeroDivisionError => ("ZeroDivisionError", b, Some(ArithmeticError)),
            OverflowError => ("OverflowError", b, Some(ArithmeticError)),
            FloatingPointError => ("FloatingPointError", b, Some(ArithmeticError)),
            AssertionError => ("AssertionError", b, Some(Exception)),
            AttributeError => ("AttributeError", b, Some(Exception)),
            LookupError => ("LookupError", b, Some(Exception)),
            IndexError => ("IndexError", b, Some(LookupError)),
            KeyError => ("KeyError", b, Some(LookupError)),
            NameError => ("NameError", b, Some(Exception)),
            UnboundLocalError => ("UnboundLocalError", b, Some(NameError)),
            OSError => ("OSError", b, Some(Exception)),
            FileNotFoundError => ("FileNotFoundError", b, Some(OSError)),
            RuntimeError => ("RuntimeError", b, Some(Exception)),
            NotImplementedError => ("NotImplementedError", b, Some(RuntimeError)),
            RecursionError => ("RecursionError", b, Some(RuntimeError)),
            TypeError => ("TypeError", b, Some(Exception)),
            ValueError => ("ValueError", b, Some(Exception)),
            ImportError => ("ImportError", b, Some(Exception)),
            ModuleNotFoundError => ("ModuleNotFoundError", b, Some(ImportError)),
            MemoryError => ("MemoryError", b, Some(Exception)),
            EOFError => ("EOFError", b, Some(Exception)),
            Warning => ("Warning", b, Some(Exception)),
            UserWarning => ("UserWarning", b, Some(Warning)),
            DeprecationWarning => ("DeprecationWarning", b, Some(Warning)),
            RuntimeWarning => ("RuntimeWarning", b, Some(Warning)),
            FutureWarning => ("FutureWarning", b, Some(Warning)),
            JaxTypeError => ("JAXTypeError", jax, Some(TypeError)),
            JaxIndexError => ("JAXIndexError", jax, Some(IndexError)),
            ConcretizationTypeError => ("ConcretizationTypeError", jax, Some(JaxTypeError)),
            TracerBoolConversionError => ("TracerBoolConversionError", jax, Some(ConcretizationTypeError)),
            TracerIntegerConversionError => ("TracerIntegerConversionError", jax, Some(JaxTypeError)),
            TracerArrayConversionError => ("TracerArrayConversionError", jax, Some(JaxTypeError)),
            UnexpectedTracerError => ("UnexpectedTracerError", jax, Some(JaxTypeError)),
            NonConcreteBooleanIndexError => ("NonConcreteBooleanIndexError", jax, Some(JaxIndexError)),
            JaxRuntimeError => ("JaxRuntimeError", jax, Some(RuntimeError)),
            LinAlgError => ("LinAlgError", "numpy.linalg", Some(ValueError)),
        }
    }

    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// The built-in a script names with `name`, among the `builtins` module's.
    pub fn named(name: &str) -> Option<Builtin> {
        Builtin::in_module("builtins", name)
    }

    /// The class `module.name` (`jax.errors.ConcretizationTypeError`).
    pub fn in_module(module: &str, name: &str) -> Option<Builtin> {
        Builtin::ALL.iter().copied().find(|b| b.info().1 == module && b.name() == name)
    }

    /// Whether this is `BaseException` or derives from it.
    pub fn is_exception(self) -> bool {
        let mut b = Some(self);
        while let Some(t) = b {
            if t == Builtin::BaseException {
                return true;
            }
            b = t.info().2;
        }
        false
    }
}

/// Attributes in the order they were set (a class body's order is what `dataclass` and `Enum`
/// read; scripts print `vars(obj)`), looked up by name. Classes and objects have few, so a list
/// is quick.
#[derive(Default, Clone)]
pub struct Attrs(pub Vec<(Rc<str>, Value)>);

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| &**k == name).map(|(_, v)| v)
    }

    pub fn set(&mut self, name: &str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| &**k == name) {
            Some(slot) => {
                let old = std::mem::replace(&mut slot.1, value);
                super::dismantle([old]);
            }
            None => self.0.push((Rc::from(name), value)),
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().position(|(k, _)| &**k == name)?;
        Some(self.0.remove(i).1)
    }
}

/// A class: a built-in type or one a script defined.
pub struct Class {
    pub name: String,
    pub module: Rc<str>,
    pub bases: Vec<Rc<Class>>,
    /// The method resolution order after the class itself.
    pub mro: Vec<Rc<Class>>,
    pub attrs: RefCell<Attrs>,
    /// Which built-in type this class is, for built-in types.
    pub builtin: Option<Builtin>,
    /// The class's metaclass where it is not `type` (as given, or a base's).
    pub metaclass: RefCell<Option<Rc<Class>>>,
}

impl Class {
    /// The class and its method resolution order.
    pub fn lineage(self: &Rc<Class>) -> impl Iterator<Item = &Rc<Class>> {
        std::iter::once(self).chain(self.mro.iter())
    }

    /// An attribute of the class or of the first class in its MRO that has it.
    pub fn lookup(self: &Rc<Class>, name: &str) -> Option<Value> {
        self.lineage().find_map(|c| c.attrs.borrow().get(name).cloned())
    }

    /// Where in the lineage `name` is found, with the value: what `super()` skips past.
    pub fn lookup_after(self: &Rc<Class>, after: &Rc<Class>, name: &str) -> Option<Value> {
        let mut lineage = self.lineage().skip_while(|c| !Rc::ptr_eq(c, after));
        lineage.next()?;
        lineage.find_map(|c| c.attrs.borrow().get(name).cloned())
    }

    pub fn is_subclass(self: &Rc<Class>, other: &Rc<Class>) -> bool {
        self.lineage().any(|c| Rc::ptr_eq(c, other))
    }

    /// Whether `builtin` is this class or one of its bases.
    pub fn derives(self: &Rc<Class>, builtin: Builtin) -> bool {
        self.lineage().any(|c| c.builtin == Some(builtin))
    }

    /// The built-in type whose values this class's instances carry (`list` for a subclass of
    /// it, `BaseException` for every exception), if any.
    pub fn layout(self: &Rc<Class>) -> Option<Builtin> {
        self.lineage().find_map(|c| match c.builtin {
            Some(b) if b.is_exception() => Some(Builtin::BaseException),
            Some(Builtin::Object) | None => None,
            Some(b) => Some(b),
        })
    }

    /// The metaclass: the class's own, else the first of its bases' (`None` for `type`).
    pub fn metaclass(&self) -> Option<Rc<Class>> {
        if let Some(m) = self.metaclass.borrow().as_ref() {
            return Some(m.clone());
        }
        self.mro.iter().find_map(|c| c.metaclass.borrow().clone())
    }

    /// A script's class, its name qualified by module (`__main__.Point`) as `repr` shows it.
    pub fn qualified_name(&self) -> String {
        if &*self.module == "builtins" {
            self.name.clone()
        } else {
            format!("{}.{}", self.module, self.name)
        }
    }

    /// The method resolution order of a class with these bases (C3 linearisation), or the
    /// error CPython gives where there is none.
    pub fn linearise(bases: &[Rc<Class>]) -> Result<Vec<Rc<Class>>, String> {
        let mut seqs: Vec<Vec<Rc<Class>>> = bases.iter().map(|b| b.lineage().cloned().collect()).collect();
        seqs.push(bases.to_vec());
        let mut out: Vec<Rc<Class>> = Vec::new();
        loop {
            seqs.retain(|s| !s.is_empty());
            if seqs.is_empty() {
                return Ok(out);
            }
            let head = seqs
                .iter()
                .map(|s| s[0].clone())
                .find(|h| !seqs.iter().any(|s| s[1..].iter().any(|c| Rc::ptr_eq(c, h))));
            let Some(head) = head else {
                let names: Vec<&str> = bases.iter().map(|b| b.name.as_str()).collect();
                return Err(format!(
                    "Cannot create a consistent method resolution order (MRO) for bases {}",
                    names.join(", ")
                ));
            };
            for s in &mut seqs {
                if Rc::ptr_eq(&s[0], &head) {
                    s.remove(0);
                }
            }
            out.push(head);
        }
    }
}

/// An instance of a class a script defined (or of an exception).
pub struct Instance {
    pub class: Rc<Class>,
    /// `__dict__`: a dict a script may hold and change (`self.__dict__.update(kwargs)`).
    pub dict: Rc<RefCell<super::value::Dict>>,
    /// The built-in value this instance extends (see `Class::layout`): the list of a `list`
    /// subclass, the `args` tuple of an exception; `None` for plain objects.
    pub base: RefCell<Value>,
}

/// A function bound to the object it was looked up on (`obj.method`), or a class method
/// bound to its class.
pub struct BoundMethod {
    pub receiver: Value,
    pub func: Value,
}

/// A `set` or `frozenset`: items in insertion order, compared by Python equality.
pub struct PySet {
    pub items: RefCell<Vec<Value>>,
    pub frozen: bool,
}

impl PySet {
    /// The items in the order CPython iterates them. For sets of integers that order is
    /// their places in CPython's hash table (`{3, 1, 2}` prints as `{1, 2, 3}`), found by
    /// inserting them as `setobject.c` does; other sets keep insertion order (CPython's order
    /// for strings changes from run to run anyway).
    pub fn iteration_order(&self) -> Vec<Value> {
        let items = self.items.borrow();
        let hashes: Option<Vec<u64>> = items
            .iter()
            .map(|v| match v {
                Value::Int(i) => Some(int_hash(*i)),
                Value::Bool(b) => Some(*b as u64),
                _ => None,
            })
            .collect();
        match hashes {
            Some(hashes) if items.len() > 1 => {
                cpython_table_order(&hashes).into_iter().map(|i| items[i].clone()).collect()
            }
            _ => items.clone(),
        }
    }
}

/// CPython's `hash()` of an int, as the unsigned word its set table uses.
fn int_hash(i: i64) -> u64 {
    const MODULUS: i128 = (1 << 61) - 1;
    let magnitude = ((i as i128).abs() % MODULUS) as i64;
    let h = if i < 0 { -magnitude } else { magnitude };
    (if h == -1 { -2 } else { h }) as u64
}

/// The order CPython's set table holds entries with these (distinct) hashes, added in turn:
/// open addressing with nine linear probes, then perturbation; the table starts at 8 slots and
/// grows to hold four times the items whenever it is three fifths full (`setobject.c`).
fn cpython_table_order(hashes: &[u64]) -> Vec<usize> {
    const LINEAR_PROBES: usize = 9;
    const PERTURB_SHIFT: u32 = 5;
    fn insert(table: &mut [Option<usize>], hashes: &[u64], item: usize) {
        let mask = table.len() - 1;
        let hash = hashes[item];
        let mut perturb = hash;
        let mut i = (hash as usize) & mask;
        loop {
            let probes = if i + LINEAR_PROBES <= mask { LINEAR_PROBES } else { 0 };
            for j in 0..=probes {
                if table[i + j].is_none() {
                    table[i + j] = Some(item);
                    return;
                }
            }
            perturb >>= PERTURB_SHIFT;
            i = (i.wrapping_mul(5).wrapping_add(1).wrapping_add(perturb as usize)) & mask;
        }
    }
    let mut table: Vec<Option<usize>> = vec![None; 8];
    let mut used = 0;
    for item in 0..hashes.len() {
        insert(&mut table, hashes, item);
        used += 1;
        let mask = table.len() - 1;
        if used * 5 >= mask * 3 {
            let min_used = if used > 50_000 { used * 2 } else { used * 4 };
            let mut size = 8;
            while size <= min_used {
                size <<= 1;
            }
            let old = std::mem::replace(&mut table, vec![None; size]);
            for entry in old.into_iter().flatten() {
                insert(&mut table, hashes, entry);
            }
        }
    }
    table.into_iter().flatten().collect()
}

/// The built-in types of one run, made when it starts.
pub struct Types {
    classes: Vec<Rc<Class>>,
    /// Classes made for the other kinds of value (`type(jnp.ones(3))`, `type(len)`), by name.
    others: RefCell<Vec<Rc<Class>>>,
}

impl Types {
    pub fn new() -> Types {
        let mut classes: Vec<Rc<Class>> = Vec::with_capacity(Builtin::ALL.len());
        for &b in Builtin::ALL {
            let (name, module, base) = b.info();
            // Each type's base comes before it in `ALL`.
            let bases: Vec<Rc<Class>> = base
                .map(|base| classes.iter().find(|c| c.builtin == Some(base)).cloned().expect("bases come first"))
                .into_iter()
                .collect();
            let mro = bases.first().map(|b| b.lineage().cloned().collect()).unwrap_or_default();
            classes.push(Rc::new(Class {
                name: name.to_string(),
                module: Rc::from(module),
                bases,
                mro,
                attrs: RefCell::new(Attrs::default()),
                builtin: Some(b),
                metaclass: RefCell::new(None),
            }));
        }
        Types { classes, others: RefCell::new(Vec::new()) }
    }

    pub fn get(&self, b: Builtin) -> Rc<Class> {
        self.classes.iter().find(|c| c.builtin == Some(b)).cloned().expect("every builtin has a class")
    }

    /// The class standing for a kind of value that is no built-in type a script can
    /// subclass (`ArrayImpl`, `function`, `module`, ...): made once per name.
    pub fn other(&self, name: &str, module: &str) -> Rc<Class> {
        if let Some(c) = self.others.borrow().iter().find(|c| c.name == name && &*c.module == module) {
            return c.clone();
        }
        let object = self.get(Builtin::Object);
        let class = Rc::new(Class {
            name: name.to_string(),
            module: Rc::from(module),
            bases: vec![object.clone()],
            mro: vec![object],
            attrs: RefCell::new(Attrs::default()),
            builtin: None,
            metaclass: RefCell::new(None),
        });
        self.others.borrow_mut().push(class.clone());
        class
    }
}

/// What a run made that may sit in reference cycles (an instance that refers to itself, a
/// class whose methods' scopes hold it), emptied when the run ends so nothing leaks. Dead
/// entries are dropped as the lists grow.
#[derive(Default)]
pub struct Made {
    pub instances: Vec<Weak<Instance>>,
    pub classes: Vec<Weak<Class>>,
    pruned_at: usize,
}

impl Instance {
    /// A new instance of `class` with no attributes, carrying `base` (see `Class::layout`).
    pub fn new(class: Rc<Class>, base: Value) -> Instance {
        Instance { class, dict: Default::default(), base: RefCell::new(base) }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        self.dict.borrow().get_str(name).cloned()
    }

    pub fn set(&self, name: &str, value: Value) {
        self.dict.borrow_mut().set_str(name, value);
    }
}

impl Made {
    pub fn instance(&mut self, i: &Rc<Instance>) {
        self.instances.push(Rc::downgrade(i));
        if self.instances.len() >= 2 * self.pruned_at.max(1024) {
            self.instances.retain(|w| w.strong_count() > 0);
            self.pruned_at = self.instances.len();
        }
    }

    /// Empties every instance and class still alive, breaking the cycles they may be in.
    pub fn clear(&mut self) {
        let mut values = Vec::new();
        for i in self.instances.drain(..).filter_map(|w| w.upgrade()) {
            let entries = std::mem::take(&mut i.dict.borrow_mut().entries);
            values.extend(entries.into_iter().map(|(_, v)| v));
            values.push(std::mem::replace(&mut *i.base.borrow_mut(), Value::None));
        }
        for c in self.classes.drain(..).filter_map(|w| w.upgrade()) {
            values.extend(std::mem::take(&mut c.attrs.borrow_mut().0).into_iter().map(|(_, v)| v));
        }
        super::dismantle(values);
    }
}
