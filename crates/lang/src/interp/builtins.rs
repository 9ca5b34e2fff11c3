//! Builtin functions, the `math` module, and the methods of lists, dicts and strings.

use super::iterators::{Iter, Resumed, Sent};
use super::objects::{Builtin, PySet};
use super::value::{as_int, check_hashable, py_eq, repr, Dict, Native, Value};
use super::{attr_err, err, index_err, type_err, unsupported, value_err, Interp, RtError, R};
use crate::ast::{BinOp, CmpOp};
use crate::PrintItem;
use jaxlite::LocalFuture;
use jaxlite::{Array, Data, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

/// The functions of the `builtins` module (its types and exceptions are classes, see
/// `objects::Builtin`).
const BUILTINS: &[&str] = &[
    "print",
    "len",
    "zip",
    "enumerate",
    "min",
    "max",
    "sum",
    "abs",
    "repr",
    "ascii",
    "isinstance",
    "issubclass",
    "getattr",
    "hasattr",
    "setattr",
    "delattr",
    "round",
    "sorted",
    "reversed",
    "any",
    "all",
    "divmod",
    "map",
    "filter",
    "iter",
    "next",
    "callable",
    "hash",
    "id",
    "vars",
    "dir",
    "chr",
    "ord",
    "bin",
    "hex",
    "oct",
    "pow",
    "format",
    "open",
    "input",
    "exec",
    "eval",
    "compile",
    "__import__",
    "globals",
    "locals",
    "breakpoint",
];

pub fn lookup(name: &str) -> Option<Value> {
    BUILTINS.iter().find(|&&b| b == name).map(|b| Value::native(Native::Builtin(b)))
}

/// Removes and returns keyword argument `name`.
pub fn take_kwarg(kwargs: &mut Vec<(String, Value)>, name: &str) -> Option<Value> {
    let i = kwargs.iter().position(|(k, _)| k == name)?;
    Some(kwargs.remove(i).1)
}

/// Keyword arguments given for the parameters `params` (in order) moved after the positional
/// ones, as Python binds them: `fori_loop(lower=0, upper=n, body_fun=f, init_val=x)`.
pub fn by_position(func: &str, args: &mut Vec<Value>, kwargs: &mut Vec<(String, Value)>, params: &[&str]) -> R<()> {
    for (i, param) in params.iter().enumerate() {
        if let Some(v) = take_kwarg(kwargs, param) {
            if i < args.len() {
                return err(format!("{func}() got multiple values for argument '{param}'"));
            }
            if i > args.len() {
                return err(format!("{func}() missing required argument '{}'", params[args.len()]));
            }
            args.push(v);
        }
    }
    Ok(())
}

/// Rejects keyword arguments a function did not consume.
pub fn no_more_kwargs(func: &str, kwargs: &[(String, Value)]) -> R<()> {
    match kwargs.first() {
        Some((k, _)) => err(format!("{func}() got an unexpected keyword argument '{k}'")),
        None => Ok(()),
    }
}

/// Checks the number of positional arguments.
pub fn arity(func: &str, args: &[Value], min: usize, max: usize) -> R<()> {
    let n = args.len();
    if (min..=max).contains(&n) {
        return Ok(());
    }
    let expected = match (min, max) {
        (a, b) if a == b => format!("exactly {a} argument{}", if a == 1 { "" } else { "s" }),
        (a, usize::MAX) => format!("at least {a} argument{}", if a == 1 { "" } else { "s" }),
        (a, b) => format!("from {a} to {b} arguments"),
    };
    err(format!("{func}() takes {expected} ({n} given)"))
}

/// The items of a list, tuple or range argument (functions that take a sequence, after the
/// caller has read any other iterable into a list).
pub fn sequence_items(v: &Value) -> R<Vec<Value>> {
    match v {
        Value::List(l) => Ok(l.borrow().clone()),
        Value::Tuple(t) => Ok(t.to_vec()),
        Value::Range { start, stop, step } => Ok(super::range_iter(*start, *stop, *step).map(Value::Int).collect()),
        Value::Set(s) => Ok(s.iteration_order()),
        other => err(format!("'{}' object is not iterable", other.type_name())),
    }
}

pub fn float_to_int(x: f64) -> R<i64> {
    if x.is_nan() {
        return super::value_err("cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        return super::exceptions::raise(
            super::objects::Builtin::OverflowError,
            "cannot convert float infinity to integer",
        );
    }
    let t = x.trunc();
    if t >= -(2f64.powi(63)) && t < 2f64.powi(63) {
        Ok(t as i64)
    } else {
        Err(super::exceptions::int_overflow())
    }
}

/// How `print` hands a value to front ends: arrays and numbers as values, anything else as
/// the text `print` wrote for it (`str()`, so an object's own `__str__`/`__repr__`).
fn print_item(v: &Value, text: &str) -> PrintItem {
    let scalar = |data: Data| PrintItem::Array(Array::new(vec![], data));
    match v {
        Value::Array(Tensor::Concrete(a)) => PrintItem::Array((**a).clone()),
        Value::Host(h) => PrintItem::Text(super::host::str(h)),
        Value::Int(i) => match i32::try_from(*i) {
            Ok(i) => scalar(Data::I32(vec![i])),
            Err(_) => PrintItem::Text(i.to_string()),
        },
        Value::Float(x) => scalar(Data::F32(vec![*x as f32])),
        Value::Bool(b) => scalar(Data::Bool(vec![*b])),
        _ => PrintItem::Text(text.to_string()),
    }
}

fn optional_str(v: Option<Value>, func: &str, name: &str, default: &str) -> R<String> {
    match v {
        None | Some(Value::None) => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.to_string()),
        Some(other) => err(format!("{func}(): {name} must be None or a string, not {}", other.type_name())),
    }
}

impl Interp<'_, '_> {
    pub(super) fn call_builtin<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match name {
                "print" => {
                    let sep = optional_str(take_kwarg(&mut kwargs, "sep"), name, "sep", " ")?;
                    let end = optional_str(take_kwarg(&mut kwargs, "end"), name, "end", "\n")?;
                    let file = take_kwarg(&mut kwargs, "file").filter(|f| !matches!(f, Value::None));
                    take_kwarg(&mut kwargs, "flush");
                    no_more_kwargs(name, &kwargs)?;
                    let mut text = Vec::with_capacity(args.len());
                    for a in &args {
                        text.push(self.py_str(a).await?);
                    }
                    let line = text.join(&sep) + &end;
                    // `print(..., file=f)` writes with `f.write`, as CPython does.
                    if let Some(file) = file {
                        self.call_method_of(&file, "write", vec![Value::str(&line)]).await?;
                        return Ok(Value::None);
                    }
                    self.write_stdout(&line)?;
                    self.download(&args.iter().collect::<Vec<_>>());
                    self.out.prints.push(args.iter().zip(&text).map(|(a, t)| print_item(a, t)).collect());
                    return Ok(Value::None);
                }
                "min" | "max" => return self.min_max(name, args, kwargs).await,
                "sum" => {
                    let start = take_kwarg(&mut kwargs, "start");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 2)?;
                    let mut acc = args.get(1).cloned().or(start).unwrap_or(Value::Int(0));
                    if matches!(acc, Value::Str(_)) {
                        return err("sum() can't sum strings [use ''.join(seq) instead]");
                    }
                    let it = self.iter_of(&args[0]).await?;
                    while let Some(item) = self.next_of(&it).await? {
                        acc = self.binary(BinOp::Add, acc, item).await?;
                    }
                    return Ok(acc);
                }
                "abs" => {
                    arity(name, &args, 1, 1)?;
                    if let Some(r) = self.call_special(&args[0], "__abs__", vec![]).await? {
                        return Ok(r);
                    }
                    return match &args[0] {
                        Value::Float(x) => Ok(Value::Float(x.abs())),
                        Value::Complex(re, im) => Ok(Value::Float(re.hypot(*im))),
                        Value::Array(_) => self.call_jnp("abs", args, kwargs).await,
                        // A NumPy array or scalar: np.abs, which keeps its type (float64 stays a
                        // NumPy float64).
                        Value::Host(_) => self.call_np("abs", args, kwargs).await,
                        v => match as_int(v) {
                            Some(i) => i
                                .checked_abs()
                                .map(Value::Int)
                                .ok_or_else(|| RtError::of(Builtin::OverflowError, "integer overflow")),
                            None => err(format!("bad operand type for abs(): '{}'", v.type_name())),
                        },
                    };
                }
                "divmod" => {
                    arity(name, &args, 2, 2)?;
                    let q = self.binary(BinOp::FloorDiv, args[0].clone(), args[1].clone()).await?;
                    let r = self.binary(BinOp::Mod, args[0].clone(), args[1].clone()).await?;
                    return Ok(Value::tuple(vec![q, r]));
                }
                "pow" => {
                    let modulus = take_kwarg(&mut kwargs, "mod");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, 3)?;
                    let p = self.binary(BinOp::Pow, args[0].clone(), args[1].clone()).await?;
                    return match args.get(2).cloned().or(modulus) {
                        None | Some(Value::None) => Ok(p),
                        Some(m) => self.binary(BinOp::Mod, p, m).await,
                    };
                }
                // Python's lazy iterators.
                "map" => {
                    no_more_kwargs(name, &kwargs)?;
                    if args.len() < 2 {
                        return err("map() must have at least two arguments.");
                    }
                    let mut iters = Vec::with_capacity(args.len() - 1);
                    for a in &args[1..] {
                        iters.push(self.iter_of(a).await?);
                    }
                    return Ok(iterator(Iter::Map { func: args[0].clone(), iters }));
                }
                "filter" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, 2)?;
                    let iter = self.iter_of(&args[1]).await?;
                    return Ok(iterator(Iter::Filter { func: args[0].clone(), iter }));
                }
                "zip" => {
                    take_kwarg(&mut kwargs, "strict");
                    no_more_kwargs(name, &kwargs)?;
                    let mut iters = Vec::with_capacity(args.len());
                    for a in &args {
                        iters.push(self.iter_of(a).await?);
                    }
                    return Ok(iterator(Iter::Zip(iters)));
                }
                "enumerate" => {
                    let start = take_kwarg(&mut kwargs, "start");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 2)?;
                    let count = match args.get(1).cloned().or(start) {
                        Some(s) => self.to_index(&s)?,
                        None => 0,
                    };
                    let iter = self.iter_of(&args[0]).await?;
                    return Ok(iterator(Iter::Enumerate { iter, count }));
                }
                "any" | "all" => {
                    arity(name, &args, 1, 1)?;
                    let want = name == "any";
                    let it = self.iter_of(&args[0]).await?;
                    while let Some(item) = self.next_of(&it).await? {
                        if self.truth(&item).await? == want {
                            return Ok(Value::Bool(want));
                        }
                    }
                    return Ok(Value::Bool(!want));
                }
                "iter" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 2)?;
                    if let [func, sentinel] = &args[..] {
                        return Ok(iterator(Iter::Callable { func: func.clone(), sentinel: sentinel.clone() }));
                    }
                    return self.iter_of(&args[0]).await;
                }
                "next" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 2)?;
                    if !matches!(args[0], Value::Iterator(_) | Value::Instance(_)) {
                        return err(format!("'{}' object is not an iterator", args[0].type_name()));
                    }
                    return match args.get(1) {
                        None => self.next_or_stop(&args[0]).await,
                        Some(default) => Ok(self.next_of(&args[0]).await?.unwrap_or_else(|| default.clone())),
                    };
                }
                "sorted" => {
                    let key = take_kwarg(&mut kwargs, "key").filter(|k| !matches!(k, Value::None));
                    let reverse = take_kwarg(&mut kwargs, "reverse");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    let items = self.collect(&args[0]).await?;
                    let reverse = match reverse {
                        Some(r) => self.truth(&r).await?,
                        None => false,
                    };
                    return Ok(Value::list(self.sort_values(items, key, reverse).await?));
                }
                "reversed" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    if let Some(r) = self.call_special(&args[0], "__reversed__", vec![]).await? {
                        return Ok(r);
                    }
                    if matches!(args[0], Value::Iterator(_) | Value::Set(_) | Value::Dict(_)) {
                        return err(format!("'{}' object is not reversible", args[0].type_name()));
                    }
                    let mut items = self.collect(&args[0]).await?;
                    items.reverse();
                    return Ok(iterator(Iter::Items { items: items.into_iter(), kind: "list_reverseiterator" }));
                }
                "list" | "tuple" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 1)?;
                    let items = match args.first() {
                        Some(v) => self.collect(v).await?,
                        None => vec![],
                    };
                    return Ok(if name == "list" { Value::list(items) } else { Value::tuple(items) });
                }
                "dict" => {
                    arity(name, &args, 0, 1)?;
                    let mut d = Dict::default();
                    if let Some(v) = args.first() {
                        let v = super::classes::unwrap_base(v);
                        if let Value::Dict(other) = &v {
                            d.entries = other.borrow().entries.clone();
                        } else {
                            for (i, pair) in self.collect(&v).await?.iter().enumerate() {
                                let [k, v] = self.dict_pair(i, pair).await?;
                                d.insert(k, v)?;
                            }
                        }
                    }
                    for (k, v) in kwargs {
                        d.insert(Value::str(&k), v)?;
                    }
                    return Ok(Value::Dict(Rc::new(RefCell::new(d))));
                }
                "str" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 1)?;
                    return Ok(Value::str(&match args.first() {
                        Some(v) => self.py_str(v).await?,
                        None => String::new(),
                    }));
                }
                "repr" | "ascii" => {
                    arity(name, &args, 1, 1)?;
                    let text = self.py_repr(&args[0]).await?;
                    if name == "repr" {
                        return Ok(Value::str(&text));
                    }
                    // `ascii`: the repr with non-ASCII characters escaped.
                    let escaped: String = text
                        .chars()
                        .map(|c| match c as u32 {
                            0..=0x7f => c.to_string(),
                            n @ 0x80..=0xff => format!("\\x{n:02x}"),
                            n @ 0x100..=0xffff => format!("\\u{n:04x}"),
                            n => format!("\\U{n:08x}"),
                        })
                        .collect();
                    return Ok(Value::str(&escaped));
                }
                "format" => {
                    arity(name, &args, 1, 2)?;
                    let spec = match args.get(1) {
                        Some(Value::Str(s)) => s.to_string(),
                        Some(other) => {
                            return err(format!("format() argument 2 must be str, not {}", other.type_name()))
                        }
                        None => String::new(),
                    };
                    return Ok(Value::str(&self.format_field(args[0].clone(), &spec).await?));
                }
                "len" => {
                    arity(name, &args, 1, 1)?;
                    if let Some(n) = self.call_special(&args[0], "__len__", vec![]).await? {
                        return match as_int(&n) {
                            Some(n) if n >= 0 => Ok(Value::Int(n)),
                            Some(_) => value_err("__len__() should return >= 0"),
                            None => err(format!("'{}' object cannot be interpreted as an integer", n.type_name())),
                        };
                    }
                    return Ok(Value::Int(self.len(&super::classes::unwrap_base(&args[0]))? as i64));
                }
                "isinstance" => {
                    arity(name, &args, 2, 2)?;
                    let mut args = args;
                    args[1] = self.union_members(&args[1]).await?;
                    if let Some(b) = self.is_instance(&args[0], &args[1])? {
                        return Ok(Value::Bool(b));
                    }
                    return Ok(Value::Bool(isinstance(&args[0], &args[1])?));
                }
                "issubclass" => {
                    arity(name, &args, 2, 2)?;
                    let mut args = args;
                    args[1] = self.union_members(&args[1]).await?;
                    let Value::Class(c) = &args[0] else { return err("issubclass() arg 1 must be a class") };
                    let classes = match &args[1] {
                        Value::Tuple(t) => t.to_vec(),
                        other => vec![other.clone()],
                    };
                    for k in classes {
                        match k {
                            Value::Class(k) if c.is_subclass(&k) => return Ok(Value::Bool(true)),
                            Value::Class(_) => {}
                            _ => return err("issubclass() arg 2 must be a class, a tuple of classes, or a union"),
                        }
                    }
                    return Ok(Value::Bool(false));
                }
                "callable" => {
                    arity(name, &args, 1, 1)?;
                    return Ok(Value::Bool(self.is_callable(&args[0])));
                }
                "hash" => {
                    arity(name, &args, 1, 1)?;
                    // A class that defines `__eq__` without `__hash__` sets `__hash__ = None`.
                    if let Some(Value::None) = self.special(&args[0], "__hash__") {
                        return err(format!("unhashable type: '{}'", args[0].type_name()));
                    }
                    if let Some(h) = self.call_special(&args[0], "__hash__", vec![]).await? {
                        return Ok(h);
                    }
                    check_hashable(&args[0])?;
                    return Ok(Value::Int(py_hash(&args[0])));
                }
                "id" => {
                    arity(name, &args, 1, 1)?;
                    return Ok(Value::Int(super::classes::identity_hash(&args[0]) << 4));
                }
                // `getattr(obj, name[, default])`, `hasattr(obj, name)`: what `obj.name` gives,
                // the default (or False) where it raises AttributeError.
                "getattr" | "hasattr" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, if name == "getattr" { 3 } else { 2 })?;
                    let Value::Str(attr) = &args[1] else {
                        return err(format!("{name}(): attribute name must be string, not '{}'", args[1].type_name()));
                    };
                    // A name the playground lacks counts as missing too.
                    let missing = |e: &RtError| {
                        !e.fatal && matches!(e.kind, Builtin::AttributeError | Builtin::NotImplementedError)
                    };
                    return match (self.get_attr(&args[0], attr).await, args.get(2)) {
                        (Ok(v), _) if name == "getattr" => Ok(v),
                        (Ok(_), _) => Ok(Value::Bool(true)),
                        (Err(e), _) if name == "hasattr" && missing(&e) => Ok(Value::Bool(false)),
                        (Err(e), Some(default)) if missing(&e) => Ok(default.clone()),
                        (Err(e), _) => Err(e),
                    };
                }
                "setattr" => {
                    arity(name, &args, 3, 3)?;
                    let Value::Str(attr) = &args[1] else { return err("attribute name must be string") };
                    self.set_attr(&args[0], attr, args[2].clone()).await?;
                    return Ok(Value::None);
                }
                "delattr" => {
                    arity(name, &args, 2, 2)?;
                    let Value::Str(attr) = &args[1] else { return err("attribute name must be string") };
                    self.del_attr(&args[0], attr).await?;
                    return Ok(Value::None);
                }
                "vars" => {
                    arity(name, &args, 1, 1)?;
                    return match &args[0] {
                        Value::Instance(i) => Ok(Value::Dict(i.dict.clone())),
                        v @ (Value::Class(_) | Value::Function(_)) => self.get_attr(v, "__dict__").await,
                        other => err("vars() argument must have __dict__ attribute").map_err(|e: RtError| {
                            let mut e = e;
                            e.message = format!("{} ('{}')", e.message, other.type_name());
                            e
                        }),
                    };
                }
                "dir" => {
                    arity(name, &args, 1, 1)?;
                    let mut names: Vec<String> = Vec::new();
                    match &args[0] {
                        Value::Instance(i) => {
                            names.extend(i.dict.borrow().entries.iter().filter_map(|(k, _)| match k {
                                Value::Str(s) => Some(s.to_string()),
                                _ => None,
                            }));
                            for c in i.class.lineage() {
                                names.extend(c.attrs.borrow().0.iter().map(|(k, _)| k.to_string()));
                            }
                        }
                        Value::Class(c) => {
                            for c in c.lineage() {
                                names.extend(c.attrs.borrow().0.iter().map(|(k, _)| k.to_string()));
                            }
                        }
                        other => {
                            return unsupported(format!(
                                "dir() of a '{}' is not supported by the playground",
                                other.type_name()
                            ))
                        }
                    }
                    names.sort();
                    names.dedup();
                    return Ok(Value::list(names.iter().map(|n| Value::str(n)).collect()));
                }
                "chr" => {
                    arity(name, &args, 1, 1)?;
                    let i = self.to_index(&args[0])?;
                    let c = u32::try_from(i)
                        .ok()
                        .and_then(char::from_u32)
                        .ok_or_else(|| RtError::of(Builtin::ValueError, "chr() arg not in range(0x110000)"))?;
                    return Ok(Value::str(&c.to_string()));
                }
                "ord" => {
                    arity(name, &args, 1, 1)?;
                    let Value::Str(s) = &args[0] else {
                        return err(format!("ord() expected string of length 1, but {} found", args[0].type_name()));
                    };
                    let mut chars = s.chars();
                    return match (chars.next(), chars.next()) {
                        (Some(c), None) => Ok(Value::Int(c as i64)),
                        _ => {
                            err(format!("ord() expected a character, but string of length {} found", s.chars().count()))
                        }
                    };
                }
                "bin" | "hex" | "oct" => {
                    arity(name, &args, 1, 1)?;
                    let i = self.to_index(&args[0])?;
                    let (sign, m) = if i < 0 { ("-", i.unsigned_abs()) } else { ("", i as u64) };
                    return Ok(Value::str(&match name {
                        "bin" => format!("{sign}0b{m:b}"),
                        "hex" => format!("{sign}0x{m:x}"),
                        _ => format!("{sign}0o{m:o}"),
                    }));
                }
                "slice" => {
                    arity(name, &args, 1, 3)?;
                    let mut bounds = Vec::new();
                    for a in &args {
                        bounds.push(self.slice_bound(a)?);
                    }
                    return Ok(match bounds[..] {
                        [stop] => Value::Slice(None, stop, None),
                        [start, stop] => Value::Slice(start, stop, None),
                        [start, stop, step] => Value::Slice(start, stop, step),
                        _ => unreachable!("arity checked"),
                    });
                }
                "open" | "input" | "exec" | "eval" | "compile" | "__import__" | "globals" | "locals" | "breakpoint" => {
                    return unsupported(format!("{name}() is not available in the playground: scripts run in the page, without files, input or dynamic code"));
                }
                _ => {}
            }
            // `int(text, base=16)`.
            let mut args = args;
            if name == "int" && args.len() == 1 {
                if let Some(base) = take_kwarg(&mut kwargs, "base") {
                    args.push(base);
                }
            }
            // `complex(real=, imag=)`.
            if name == "complex" {
                for (i, key) in ["real", "imag"].into_iter().enumerate() {
                    if let Some(v) = take_kwarg(&mut kwargs, key) {
                        args.resize(args.len().max(i), Value::Int(0));
                        args.insert(i.min(args.len()), v);
                    }
                }
            }
            no_more_kwargs(name, &kwargs)?;
            Ok(match name {
                "range" => {
                    arity(name, &args, 1, 3)?;
                    let mut ints = Vec::with_capacity(args.len());
                    for a in &args {
                        let a = self.concrete(a.clone()).await?;
                        if !matches!(a, Value::Int(_) | Value::Bool(_) | Value::Array(_)) {
                            return type_err(format!("'{}' object cannot be interpreted as an integer", a.type_name()));
                        }
                        ints.push(self.to_index(&a)?);
                    }
                    let (start, stop, step) = match ints[..] {
                        [stop] => (0, stop, 1),
                        [start, stop] => (start, stop, 1),
                        [start, stop, step] => (start, stop, step),
                        _ => (0, 0, 1),
                    };
                    if step == 0 {
                        return value_err("range() arg 3 must not be zero");
                    }
                    Value::Range { start, stop, step }
                }
                "complex" => {
                    arity(name, &args, 0, 2)?;
                    let (real, imag) = (args.first().cloned(), args.get(1).cloned());
                    if matches!(real, Some(Value::Str(_))) && imag.is_some() {
                        return type_err("complex() can't take second arg if first is a string");
                    }
                    if let Some(t) = args.iter().find_map(super::tracer_errors::traced) {
                        return Err(super::tracer_errors::concretization(t, "complex"));
                    }
                    let part = |v: Option<Value>, which: &str, what: &str| match v {
                        None => Ok((0.0, 0.0)),
                        Some(v) => super::complex::as_complex(&v).ok_or_else(|| {
                            RtError::new(format!("complex() {which} argument must be {what}, not '{}'", v.type_name()))
                        }),
                    };
                    let (re, im) = (part(real, "first", "a string or a number")?, part(imag, "second", "a number")?);
                    // real + imag·1j, as CPython combines two complex arguments.
                    Value::Complex(re.0 - im.1, re.1 + im.0)
                }
                "float" => match args.first() {
                    None => Value::Float(0.0),
                    Some(v) => match self.call_special(v, "__float__", vec![]).await? {
                        Some(f) => f,
                        None => self.to_float(&super::classes::unwrap_base(v))?,
                    },
                },
                // `int` reads a differentiated value, `float` does not: JAX's JVP tracers define
                // `__int__` (and `__index__`, `__bool__`) through their primal, not `__float__`.
                "int" => match args.first() {
                    None => Value::Int(0),
                    Some(v) => {
                        if let Some(i) = self.call_special(v, "__int__", vec![]).await? {
                            return Ok(i);
                        }
                        if let Some(i) = self.call_special(v, "__index__", vec![]).await? {
                            return Ok(i);
                        }
                        let v = self.concrete(super::classes::unwrap_base(v)).await?;
                        match (&v, args.get(1)) {
                            (Value::Str(s), Some(base)) => {
                                let base = self.to_index(base)?;
                                let digits = s.trim().replace('_', "");
                                let (negative, digits) = match digits.strip_prefix('-') {
                                    Some(d) => (true, d.to_string()),
                                    None => (false, digits.trim_start_matches('+').to_string()),
                                };
                                let digits = match base {
                                    16 => digits.trim_start_matches("0x").trim_start_matches("0X").to_string(),
                                    2 => digits.trim_start_matches("0b").trim_start_matches("0B").to_string(),
                                    8 => digits.trim_start_matches("0o").trim_start_matches("0O").to_string(),
                                    _ => digits,
                                };
                                let parsed = u32::try_from(base)
                                    .ok()
                                    .filter(|b| (2..=36).contains(b))
                                    .and_then(|b| i64::from_str_radix(&digits, b).ok());
                                match parsed {
                                    Some(i) => Value::Int(if negative { -i } else { i }),
                                    None => {
                                        return value_err(format!(
                                            "invalid literal for int() with base {base}: {}",
                                            repr(&v)
                                        ))
                                    }
                                }
                            }
                            _ => self.to_int(&v)?,
                        }
                    }
                },
                "bool" => Value::Bool(match args.first() {
                    None => false,
                    Some(v) => self.truth(v).await?,
                }),
                "round" => {
                    arity(name, &args, 1, 2)?;
                    // A NumPy or JAX scalar's `__round__`: to digits, its library's `round`
                    // (the same type back); to an int, as a Python float rounds.
                    let digits = args.get(1).filter(|d| !matches!(d, Value::None)).cloned();
                    match (&args[0], digits) {
                        (Value::Host(_), Some(d)) => {
                            return self.call_np("round", vec![args[0].clone(), d], vec![]).await
                        }
                        (Value::Array(_), Some(d)) => {
                            return self.call_jnp("round", vec![args[0].clone(), d], vec![]).await
                        }
                        (Value::Host(_) | Value::Array(_), None) => round(&self.to_float(&args[0])?, None)?,
                        _ => round(&args[0], args.get(1))?,
                    }
                }
                _ => return super::unsupported(format!("builtin '{name}' is not implemented")),
            })
        })
    }

    /// Writes to the script's standard output, within the output limit.
    pub(super) fn write_stdout(&mut self, text: &str) -> R<()> {
        self.check_output(text)?;
        self.out.stdout.push_str(text);
        Ok(())
    }

    /// Writes to the script's standard error (`print(..., file=sys.stderr)`, warnings).
    pub(super) fn write_stderr(&mut self, text: &str) -> R<()> {
        self.check_output(text)?;
        self.out.stderr.push_str(text);
        Ok(())
    }

    /// Both streams together stay within the output limit.
    fn check_output(&self, text: &str) -> R<()> {
        if self.out.stdout.len() + self.out.stderr.len() + text.len() > self.limits.output_bytes {
            return Err(RtError::fatal(format!(
                "the script printed more than {} bytes, the playground's output limit",
                self.limits.output_bytes
            )));
        }
        Ok(())
    }

    /// `sorted(items, key=, reverse=)`: a stable merge sort that compares with `<`, as
    /// Python's sort does (so a class's `__lt__` orders its objects).
    pub(super) fn sort_values<'a>(
        &'a mut self,
        items: Vec<Value>,
        key: Option<Value>,
        reverse: bool,
    ) -> LocalFuture<'a, R<Vec<Value>>> {
        Box::pin(async move {
            let mut keyed = Vec::with_capacity(items.len());
            for item in items {
                let k = match &key {
                    Some(f) => self.call(f.clone(), vec![item.clone()], vec![]).await?,
                    None => item.clone(),
                };
                keyed.push((k, item));
            }
            // Python's sort with reverse=True keeps equal items in their order: it reverses,
            // sorts stably, and reverses again.
            if reverse {
                keyed.reverse();
            }
            let mut width = 1;
            while width < keyed.len() {
                let mut merged = Vec::with_capacity(keyed.len());
                let mut rest = std::mem::take(&mut keyed).into_iter().peekable();
                while rest.peek().is_some() {
                    let left: Vec<(Value, Value)> = rest.by_ref().take(width).collect();
                    let right: Vec<(Value, Value)> = rest.by_ref().take(width).collect();
                    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
                    loop {
                        let take_right = match (l.peek(), r.peek()) {
                            (Some((a, _)), Some((b, _))) => {
                                let (a, b) = (a.clone(), b.clone());
                                self.step()?;
                                let lt = self.compare(CmpOp::Lt, &b, &a).await?;
                                self.truth(&lt).await?
                            }
                            (Some(_), None) => false,
                            (None, Some(_)) => true,
                            (None, None) => break,
                        };
                        let next = if take_right { r.next() } else { l.next() };
                        merged.extend(next);
                    }
                }
                keyed = merged;
                width *= 2;
            }
            if reverse {
                keyed.reverse();
            }
            Ok(keyed.into_iter().map(|(_, v)| v).collect())
        })
    }

    fn min_max<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let key = take_kwarg(&mut kwargs, "key").filter(|k| !matches!(k, Value::None));
            let default = take_kwarg(&mut kwargs, "default");
            no_more_kwargs(name, &kwargs)?;
            arity(name, &args, 1, usize::MAX)?;
            let items = if args.len() == 1 { self.collect(&args[0]).await? } else { args };
            let op = if name == "max" { CmpOp::Gt } else { CmpOp::Lt };
            let mut best: Option<(Value, Value)> = None;
            for item in items {
                let k = match &key {
                    Some(f) => self.call(f.clone(), vec![item.clone()], vec![]).await?,
                    None => item.clone(),
                };
                let better = match &best {
                    None => true,
                    Some((_, best_key)) => {
                        let c = self.compare(op, &k, best_key).await?;
                        self.truth(&c).await?
                    }
                };
                if better {
                    best = Some((item, k));
                }
            }
            match (best, default) {
                (Some((v, _)), _) => Ok(v),
                (None, Some(d)) => Ok(d),
                (None, None) => value_err(format!("{name}() arg is an empty sequence")),
            }
        })
    }

    pub(super) fn len(&self, v: &Value) -> R<usize> {
        Ok(match v {
            Value::Str(s) => s.chars().count(),
            Value::List(l) => l.borrow().len(),
            Value::Tuple(t) => t.len(),
            Value::Dict(d) => d.borrow().entries.len(),
            Value::Set(s) => s.items.borrow().len(),
            Value::Range { start, stop, step } => super::range_len(*start, *stop, *step).min(i64::MAX as i128) as usize,
            Value::Key(k) => k.full_shape()[0],
            Value::Array(t) => match t.aval().shape.first() {
                Some(&n) => n,
                None => return err("len() of unsized object"),
            },
            Value::Host(h) => match h.get().shape().first() {
                Some(&n) => n,
                None => return err("len() of unsized object"),
            },
            other => return err(format!("object of type '{}' has no len()", other.type_name())),
        })
    }

    pub(super) fn call_method<'a>(
        &'a mut self,
        recv: &'a Value,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Value::Array(t) = recv {
                let result = self.call_array_method(t, name, args, kwargs).await;
                self.warn_truncation(Some(name)).await?;
                return result;
            }
            if let Value::Host(h) = recv {
                return self.host_method(h, name, args, kwargs).await;
            }
            if let Value::Native(n) = recv {
                if let Native::NpRandomState(_) = &**n {
                    return self.random_state_method(recv, name, args, kwargs).await;
                }
                if let Native::NpGenerator(_) = &**n {
                    return self.generator_method(recv, name, args, kwargs).await;
                }
                if let Native::Ref(_) = &**n {
                    no_more_kwargs(name, &kwargs)?;
                    return self.call_ref_method(recv, name, &args);
                }
            }
            if let Some(op) = name.strip_prefix("at.") {
                let mut kwargs = kwargs;
                let mode = take_kwarg(&mut kwargs, "mode");
                // Only `get` has a fill value (left among the keywords otherwise, refused below).
                let fill_value = if op == "get" { take_kwarg(&mut kwargs, "fill_value") } else { None };
                // Hints for XLA, which change no value.
                take_kwarg(&mut kwargs, "indices_are_sorted");
                take_kwarg(&mut kwargs, "unique_indices");
                no_more_kwargs(&format!("_IndexUpdateRef.{op}"), &kwargs)?;
                let Value::Tuple(target) = recv else { return err("x.at[...] needs an array") };
                let (Value::Array(x), index) = (&target[0], &target[1]) else { return err("x.at[...] needs an array") };
                let (mut x, mut index) = (x.clone(), index.clone());
                // JAX's GatherScatterMode: reads clamp and writes drop out-of-range indices
                // by default ('promise_in_bounds' and 'drop' do the same here); 'fill' reads
                // `fill_value` there, 'clip' clamps the indices for writes too.
                let mode = match &mode {
                    None | Some(Value::None) => None,
                    Some(Value::Str(m)) if matches!(&**m, "clip" | "fill" | "drop" | "promise_in_bounds") => {
                        Some(m.to_string())
                    }
                    Some(other) => {
                        let shown = match other {
                            Value::Str(m) => m.to_string(),
                            v => super::value::repr(v),
                        };
                        return super::value_err(format!("Unknown gather mode \"{shown}\""));
                    }
                };
                let rewrite = match mode.as_deref() {
                    Some("fill") if op == "get" => true,
                    Some("clip") => op != "get",
                    _ => false,
                };
                if rewrite {
                    let module = self.import("jax._at_modes").await?;
                    let with_mode = self.get_attr(&module, "with_mode").await?;
                    let how = Value::str(if op == "get" { "fill" } else { "clip" });
                    let fill = fill_value.unwrap_or(Value::None);
                    let pair = self.call(with_mode, vec![Value::Array(x), index, how, fill], vec![]).await?;
                    let Value::Tuple(pair) = pair else { return err("internal error: at[...] mode") };
                    let (Value::Array(moded), moded_index) = (&pair[0], &pair[1]) else {
                        return err("internal error: at[...] mode");
                    };
                    (x, index) = (moded.clone(), moded_index.clone());
                }
                return self.at_update(&x, &index, op, args).await;
            }
            if name == "defjvps" {
                if let Value::Native(n) = recv {
                    if let Native::CustomJvp(c) = &**n {
                        // One rule per argument (`lambda g, ans, x, y: ...`), summed: written
                        // in Python, as a `defjvp` rule.
                        no_more_kwargs("defjvps", &kwargs)?;
                        let module = self.import("jax._custom").await?;
                        let make = self.get_attr(&module, "jvps_rule").await?;
                        let rule = self.call(make, vec![c.func.clone(), Value::tuple(args)], vec![]).await?;
                        *c.rule.borrow_mut() = Some(rule);
                        return Ok(Value::None);
                    }
                }
            }
            if name == "trace" {
                if let Value::Native(n) = recv {
                    if let Native::Jitted(j) = &**n {
                        return self.make_jaxpr(j.func.clone(), &j.static_argnums, args, kwargs).await;
                    }
                }
            }
            if let Value::Native(n) = recv {
                match &**n {
                    Native::Jitted(_) if name == "lower" => return self.lower(recv, args, kwargs).await,
                    Native::Lowered(_) | Native::AotCompiled(_) => {
                        no_more_kwargs(name, &kwargs)?;
                        return self.aot_method(n, name, args).await;
                    }
                    _ => {}
                }
            }
            if name == "defjvp" {
                if let Value::Native(n) = recv {
                    if let Native::CustomJvp(c) = &**n {
                        no_more_kwargs("defjvp", &kwargs)?;
                        arity("defjvp", &args, 1, 1)?;
                        *c.rule.borrow_mut() = Some(args[0].clone());
                        // As in JAX, so `@f.defjvp` leaves the rule's name bound to the rule.
                        return Ok(args[0].clone());
                    }
                }
            }
            if name == "defvjp" {
                if let Value::Native(n) = recv {
                    if let Native::CustomVjp(c) = &**n {
                        no_more_kwargs("defvjp", &kwargs)?;
                        arity("defvjp", &args, 2, 2)?;
                        *c.passes.borrow_mut() = Some((args[0].clone(), args[1].clone()));
                        return Ok(Value::None);
                    }
                }
            }
            if let Some(which) = name.strip_prefix("property.") {
                // `@x.setter`: a copy of the property with that function in its place.
                arity(name, &args, 1, 1)?;
                let Value::Native(n) = recv else { return err("expected a property") };
                let Native::Property { fget, fset, fdel, doc } = &**n else { return err("expected a property") };
                let (mut fget, mut fset, mut fdel) = (fget.clone(), fset.clone(), fdel.clone());
                match which {
                    "setter" => fset = args[0].clone(),
                    "getter" => fget = args[0].clone(),
                    _ => fdel = args[0].clone(),
                }
                return Ok(Value::native(Native::Property { fget, fset, fdel, doc: doc.clone() }));
            }
            if let Value::Iterator(state) = recv {
                return match name {
                    "__iter__" => Ok(recv.clone()),
                    "__next__" => self.next_or_stop(recv).await,
                    "send" | "close" | "throw" => {
                        let generator = match &*state.borrow() {
                            Iter::Generator(g) => g.clone(),
                            _ => return attr_err(format!("'{}' object has no attribute '{name}'", recv.type_name())),
                        };
                        match name {
                            "send" => {
                                arity(name, &args, 1, 1)?;
                                match self.resume(&generator, args[0].clone()).await? {
                                    Resumed::Yielded(v) => Ok(v),
                                    Resumed::Returned(v) => {
                                        let mut e = RtError::of(Builtin::StopIteration, "");
                                        e.args = Some(vec![v]);
                                        Err(e)
                                    }
                                }
                            }
                            "close" => {
                                self.close_generator(&generator).await?;
                                Ok(Value::None)
                            }
                            _ => {
                                // Raised at the generator's `yield`, where it may catch it.
                                let exc = args.into_iter().next().unwrap_or(Value::None);
                                let instance = self.exception_from(exc).await?;
                                let error = self.raise(instance).await?;
                                match self.resume_with(&generator, Sent::Error(error)).await? {
                                    Resumed::Yielded(v) => Ok(v),
                                    Resumed::Returned(v) => {
                                        let mut e = RtError::of(Builtin::StopIteration, "");
                                        e.args = Some(vec![v]);
                                        Err(e)
                                    }
                                }
                            }
                        }
                    }
                    _ => attr_err(format!("'{}' object has no attribute '{name}'", recv.type_name())),
                };
            }
            if name == "format" {
                if let Value::Str(template) = recv {
                    return Ok(Value::str(&self.str_format(template, &args, &kwargs).await?));
                }
            }
            if let (Value::List(l), "sort") = (recv, name) {
                let key = take_kwarg(&mut kwargs, "key").filter(|k| !matches!(k, Value::None));
                let reverse = take_kwarg(&mut kwargs, "reverse");
                no_more_kwargs(name, &kwargs)?;
                arity(name, &args, 0, 0)?;
                let reverse = match reverse {
                    Some(r) => self.truth(&r).await?,
                    None => false,
                };
                let items = std::mem::take(&mut *l.borrow_mut());
                let sorted = self.sort_values(items, key, reverse).await?;
                *l.borrow_mut() = sorted;
                return Ok(Value::None);
            }
            if let (Value::List(l), "extend") = (recv, name) {
                no_more_kwargs(name, &kwargs)?;
                arity(name, &args, 1, 1)?;
                let items = self.collect(&args[0]).await?;
                // `xs.extend(xs)` doubles: bounded like `xs + xs`.
                super::ops::check_len(l.borrow().len() + items.len())?;
                l.borrow_mut().extend(items);
                return Ok(Value::None);
            }
            if let (Value::Dict(d), "update") = (recv, name) {
                arity(name, &args, 0, 1)?;
                if let Some(other) = args.first() {
                    let other = super::classes::unwrap_base(other);
                    let entries = match &other {
                        Value::Dict(o) => o.borrow().entries.clone(),
                        v => {
                            let mut entries = Vec::new();
                            for (i, pair) in self.collect(v).await?.iter().enumerate() {
                                let [k, v] = self.dict_pair(i, pair).await?;
                                entries.push((k, v));
                            }
                            entries
                        }
                    };
                    for (k, v) in entries {
                        d.borrow_mut().insert(k, v)?;
                    }
                }
                for (k, v) in kwargs {
                    d.borrow_mut().insert(Value::str(&k), v)?;
                }
                return Ok(Value::None);
            }
            if let Value::Set(set) = recv {
                no_more_kwargs(name, &kwargs)?;
                if matches!(name, "add" | "remove" | "discard") {
                    arity(name, &args, 1, 1)?;
                    let item = &args[0];
                    check_hashable(item)?;
                    let mut items = set.items.borrow_mut();
                    let at = items.iter().position(|v| py_eq(v, item));
                    match (name, at) {
                        ("add", None) => items.push(item.clone()),
                        ("add", Some(_)) => {}
                        (_, Some(i)) => {
                            items.remove(i);
                        }
                        ("remove", None) => return Err(RtError::key(item)),
                        _ => {}
                    }
                    return Ok(Value::None);
                }
                let mut others = Vec::with_capacity(args.len());
                for a in &args {
                    others.push(self.collect(a).await?);
                }
                return set_method(set, name, others);
            }
            no_more_kwargs(name, &kwargs)?;
            // `"".join(generator)`: the iterable read first.
            let mut args = args;
            if let (Value::Str(_), "join", Some(a @ (Value::Iterator(_) | Value::Instance(_)))) =
                (recv, name, args.first())
            {
                let items = self.collect(a).await?;
                args[0] = Value::list(items);
            }
            let wrong = || {
                RtError::of(Builtin::AttributeError, format!("'{}' object has no attribute '{name}'", recv.type_name()))
            };
            match recv {
                Value::List(l) => self.list_method(l, name, args),
                Value::Dict(d) => {
                    // The key an object's `__eq__` matches (see `existing_key`).
                    if matches!(name, "get" | "pop" | "setdefault") && !args.is_empty() {
                        args[0] = self.existing_key(recv, &args[0]).await?;
                    }
                    dict_method(d, name, args)
                }
                Value::Str(s) => str_method(s, name, &args),
                Value::Tuple(t) => match name {
                    "index" => {
                        arity(name, &args, 1, 1)?;
                        t.iter()
                            .position(|v| py_eq(v, &args[0]))
                            .map(|i| Value::Int(i as i64))
                            .ok_or_else(|| RtError::of(Builtin::ValueError, "tuple.index(x): x not in tuple"))
                    }
                    "count" => {
                        arity(name, &args, 1, 1)?;
                        Ok(Value::Int(t.iter().filter(|v| py_eq(v, &args[0])).count() as i64))
                    }
                    _ => Err(wrong()),
                },
                Value::Int(i) if name == "bit_length" => Ok(Value::Int(64 - i.unsigned_abs().leading_zeros() as i64)),
                Value::Float(x) if name == "is_integer" => Ok(Value::Bool(x.fract() == 0.0 && x.is_finite())),
                Value::Complex(re, im) if name == "conjugate" => Ok(Value::Complex(*re, -im)),
                _ => Err(wrong()),
            }
        })
    }

    fn list_method(&self, l: &Rc<RefCell<Vec<Value>>>, name: &str, args: Vec<Value>) -> R<Value> {
        let n = l.borrow().len();
        let position = |i: i64, clamp: bool| -> Option<usize> {
            let j = if i < 0 { i + n as i64 } else { i };
            if clamp {
                Some(j.clamp(0, n as i64) as usize)
            } else {
                (0..n as i64).contains(&j).then_some(j as usize)
            }
        };
        match name {
            "append" => {
                arity(name, &args, 1, 1)?;
                l.borrow_mut().extend(args);
            }
            "extend" => {
                arity(name, &args, 1, 1)?;
                let items = self.iterate(&args[0])?;
                // `xs.extend(xs)` doubles: bounded like `xs + xs`.
                super::ops::check_len(n + items.len())?;
                l.borrow_mut().extend(items);
            }
            "insert" => {
                arity(name, &args, 2, 2)?;
                let i = position(self.to_index(&args[0])?, true).unwrap_or(n);
                l.borrow_mut().insert(i, args[1].clone());
            }
            "pop" => {
                arity(name, &args, 0, 1)?;
                if n == 0 {
                    return super::index_err("pop from empty list");
                }
                let i = match args.first() {
                    Some(a) => position(self.to_index(a)?, false)
                        .ok_or_else(|| RtError::of(super::objects::Builtin::IndexError, "pop index out of range"))?,
                    None => n - 1,
                };
                return Ok(l.borrow_mut().remove(i));
            }
            "index" => {
                arity(name, &args, 1, 1)?;
                let found = l.borrow().iter().position(|v| py_eq(v, &args[0]));
                return found
                    .map(|i| Value::Int(i as i64))
                    .ok_or_else(|| RtError::of(Builtin::ValueError, format!("{} is not in list", repr(&args[0]))));
            }
            "count" => {
                arity(name, &args, 1, 1)?;
                return Ok(Value::Int(l.borrow().iter().filter(|v| py_eq(v, &args[0])).count() as i64));
            }
            "remove" => {
                arity(name, &args, 1, 1)?;
                let found = l.borrow().iter().position(|v| py_eq(v, &args[0]));
                match found {
                    Some(i) => {
                        let old = l.borrow_mut().remove(i);
                        super::dismantle([old]);
                    }
                    None => return value_err("list.remove(x): x not in list"),
                }
            }
            "reverse" => l.borrow_mut().reverse(),
            "clear" => {
                let items = std::mem::take(&mut *l.borrow_mut());
                super::dismantle(items);
            }
            "copy" => return Ok(Value::list(l.borrow().clone())),
            _ => return super::attr_err(format!("'list' object has no attribute '{name}'")),
        }
        Ok(Value::None)
    }
}

/// The methods of strings, as `str.upper` and `"x".upper` find them.
pub const STR_METHODS: &[&str] = &[
    "join",
    "upper",
    "lower",
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "startswith",
    "endswith",
    "format",
    "find",
    "rfind",
    "index",
    "rindex",
    "count",
    "ljust",
    "rjust",
    "center",
    "zfill",
    "title",
    "capitalize",
    "swapcase",
    "splitlines",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isnumeric",
    "isdecimal",
    "isidentifier",
    "partition",
    "rpartition",
    "casefold",
    "removeprefix",
    "removesuffix",
    "expandtabs",
    "encode",
];

/// The methods of sets and frozensets.
pub const SET_METHODS: &[&str] = &[
    "add",
    "remove",
    "discard",
    "pop",
    "clear",
    "copy",
    "update",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
    "intersection_update",
    "difference_update",
];

/// The methods of frozensets: the sets' that change nothing.
const FROZENSET_METHODS: &[&str] =
    &["copy", "union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset", "isdisjoint"];

/// The methods a value has, bound to it (`xs.append`).
pub fn method(obj: &Value, name: &str) -> R<Value> {
    const LIST: &[&str] =
        &["append", "extend", "insert", "pop", "index", "count", "reverse", "clear", "copy", "sort", "remove"];
    const DICT: &[&str] =
        &["items", "keys", "values", "get", "pop", "update", "copy", "setdefault", "popitem", "clear", "fromkeys"];
    const TUPLE: &[&str] = &["index", "count"];
    let names = match obj {
        Value::List(_) => LIST,
        Value::Dict(_) => DICT,
        Value::Str(_) => STR_METHODS,
        Value::Tuple(_) => TUPLE,
        Value::Set(s) if s.frozen => FROZENSET_METHODS,
        Value::Set(_) => SET_METHODS,
        Value::Int(_) => &["bit_length"],
        Value::Float(_) => &["is_integer"],
        Value::Complex(..) => &["conjugate"],
        _ => &[],
    };
    match names.iter().find(|&&n| n == name) {
        Some(n) => Ok(Value::native(Native::Method(obj.clone(), n))),
        None => match (obj, name) {
            (Value::Int(i), "real" | "numerator") => Ok(Value::Int(*i)),
            (Value::Int(_), "imag") => Ok(Value::Int(0)),
            (Value::Int(_), "denominator") => Ok(Value::Int(1)),
            (Value::Float(x), "real") => Ok(Value::Float(*x)),
            (Value::Float(_), "imag") => Ok(Value::Float(0.0)),
            (Value::Complex(re, _), "real") => Ok(Value::Float(*re)),
            (Value::Complex(_, im), "imag") => Ok(Value::Float(*im)),
            _ => attr_err(format!("'{}' object has no attribute '{name}'", obj.type_name())),
        },
    }
}

/// A built-in iterator as a value.
pub fn iterator(it: Iter) -> Value {
    Value::Iterator(Rc::new(RefCell::new(it)))
}

/// A set (or frozenset) of `items`, each once, in the order first seen.
pub fn make_set(items: Vec<Value>, frozen: bool) -> R<Value> {
    let mut unique: Vec<Value> = Vec::with_capacity(items.len());
    for item in items {
        check_hashable(&item)?;
        if !unique.iter().any(|u| py_eq(u, &item)) {
            unique.push(item);
        }
    }
    Ok(Value::Set(Rc::new(PySet { items: RefCell::new(unique), frozen })))
}

fn set_method(set: &Rc<PySet>, name: &str, others: Vec<Vec<Value>>) -> R<Value> {
    let items = set.items.borrow().clone();
    let contains = |xs: &[Value], v: &Value| xs.iter().any(|x| py_eq(x, v));
    let one = |others: &[Vec<Value>]| -> R<Vec<Value>> {
        match others {
            [one] => Ok(one.clone()),
            _ => err(format!("set.{name}() takes exactly one argument ({} given)", others.len())),
        }
    };
    let result = |items: Vec<Value>| make_set(items, set.frozen);
    Ok(match name {
        "union" | "update" => {
            let mut all = items;
            for o in &others {
                all.extend(o.iter().cloned());
            }
            if name == "update" {
                let Value::Set(new) = make_set(all, false)? else { unreachable!("make_set makes a set") };
                *set.items.borrow_mut() = new.items.borrow().clone();
                return Ok(Value::None);
            }
            result(all)?
        }
        "intersection" | "intersection_update" => {
            let kept: Vec<Value> = items.into_iter().filter(|v| others.iter().all(|o| contains(o, v))).collect();
            if name == "intersection_update" {
                *set.items.borrow_mut() = kept;
                return Ok(Value::None);
            }
            result(kept)?
        }
        "difference" | "difference_update" => {
            let kept: Vec<Value> = items.into_iter().filter(|v| !others.iter().any(|o| contains(o, v))).collect();
            if name == "difference_update" {
                *set.items.borrow_mut() = kept;
                return Ok(Value::None);
            }
            result(kept)?
        }
        "symmetric_difference" => {
            let other = one(&others)?;
            let mut out: Vec<Value> = items.iter().filter(|v| !contains(&other, v)).cloned().collect();
            out.extend(other.iter().filter(|v| !contains(&items, v)).cloned());
            result(out)?
        }
        "issubset" => {
            let other = one(&others)?;
            Value::Bool(items.iter().all(|v| contains(&other, v)))
        }
        "issuperset" => {
            let other = one(&others)?;
            Value::Bool(other.iter().all(|v| contains(&items, v)))
        }
        "isdisjoint" => {
            let other = one(&others)?;
            Value::Bool(!items.iter().any(|v| contains(&other, v)))
        }
        "copy" => result(items)?,
        "clear" => {
            set.items.borrow_mut().clear();
            Value::None
        }
        "pop" => {
            let Some(first) = set.iteration_order().into_iter().next() else {
                return Err(RtError::of(Builtin::KeyError, "'pop from an empty set'"));
            };
            set.items.borrow_mut().retain(|v| !py_eq(v, &first));
            first
        }
        _ => return attr_err(format!("'set' object has no attribute '{name}'")),
    })
}

/// `hash(v)` for the values that have one: CPython's for small ints and bools, others a
/// stable hash of their text (a script sees the numbers only if it prints them).
pub fn py_hash(v: &Value) -> i64 {
    match v {
        Value::Int(i) if *i != -1 => *i,
        Value::Int(_) => -2,
        Value::Bool(b) => *b as i64,
        Value::Float(x) if x.fract() == 0.0 && x.abs() < 9e15 => py_hash(&Value::Int(*x as i64)),
        // A complex equal to a real number hashes as that number.
        Value::Complex(re, im) if *im == 0.0 => py_hash(&Value::Float(*re)),
        Value::None => 0x7f3d_1a2b,
        Value::Instance(_) | Value::Class(_) | Value::Function(_) => super::classes::identity_hash(v),
        other => {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            repr(other).hash(&mut h);
            (h.finish() >> 1) as i64
        }
    }
}

fn dict_method(d: &Rc<RefCell<Dict>>, name: &str, args: Vec<Value>) -> R<Value> {
    Ok(match name {
        "items" => {
            Value::list(d.borrow().entries.iter().map(|(k, v)| Value::tuple(vec![k.clone(), v.clone()])).collect())
        }
        "keys" => Value::list(d.borrow().entries.iter().map(|(k, _)| k.clone()).collect()),
        "values" => Value::list(d.borrow().entries.iter().map(|(_, v)| v.clone()).collect()),
        "get" => {
            arity(name, &args, 1, 2)?;
            check_hashable(&args[0])?;
            d.borrow().get(&args[0]).cloned().unwrap_or_else(|| args.get(1).cloned().unwrap_or(Value::None))
        }
        "setdefault" => {
            arity(name, &args, 1, 2)?;
            check_hashable(&args[0])?;
            let found = d.borrow().get(&args[0]).cloned();
            match found {
                Some(v) => v,
                None => {
                    let v = args.get(1).cloned().unwrap_or(Value::None);
                    d.borrow_mut().insert(args[0].clone(), v.clone())?;
                    v
                }
            }
        }
        "pop" => {
            arity(name, &args, 1, 2)?;
            let mut d = d.borrow_mut();
            match d.entries.iter().position(|(k, _)| py_eq(k, &args[0])) {
                Some(i) => d.entries.remove(i).1,
                None => args.get(1).cloned().ok_or_else(|| RtError::key(&args[0]))?,
            }
        }
        "popitem" => {
            arity(name, &args, 0, 0)?;
            match d.borrow_mut().entries.pop() {
                Some((k, v)) => Value::tuple(vec![k, v]),
                None => return Err(RtError::of(Builtin::KeyError, "'popitem(): dictionary is empty'")),
            }
        }
        "clear" => {
            let entries = std::mem::take(&mut d.borrow_mut().entries);
            super::dismantle(entries.into_iter().flat_map(|(k, v)| [k, v]));
            Value::None
        }
        "copy" => Value::Dict(Rc::new(RefCell::new(Dict { entries: d.borrow().entries.clone() }))),
        _ => return attr_err(format!("'dict' object has no attribute '{name}'")),
    })
}

fn str_method(s: &str, name: &str, args: &[Value]) -> R<Value> {
    let str_arg = |i: usize| -> R<String> {
        match args.get(i) {
            Some(Value::Str(a)) => Ok(a.to_string()),
            Some(other) => err(format!("{name}() argument must be str, not {}", other.type_name())),
            None => err(format!("{name}() is missing an argument")),
        }
    };
    // Character positions, as Python counts them.
    let chars: Vec<char> = s.chars().collect();
    let int_arg = |i: usize| -> R<Option<i64>> {
        match args.get(i) {
            None | Some(Value::None) => Ok(None),
            Some(v) => as_int(v)
                .map(Some)
                .ok_or_else(|| RtError::new(format!("{name}() takes integers, not {}", v.type_name()))),
        }
    };
    let fill_arg = || -> R<char> {
        match args.get(1) {
            None => Ok(' '),
            Some(Value::Str(f)) if f.chars().count() == 1 => Ok(f.chars().next().unwrap_or(' ')),
            Some(_) => err("The fill character must be exactly one character long"),
        }
    };
    // The byte range of a [start, end) window of characters, clamped as slices clamp.
    let window = || -> R<(usize, usize)> {
        let n = chars.len() as i64;
        let clamp = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
        let start = int_arg(1)?.map_or(0, clamp);
        let end = int_arg(2)?.map_or(chars.len(), clamp);
        let byte = |c: usize| chars[..c].iter().map(|ch| ch.len_utf8()).sum::<usize>();
        Ok((byte(start), byte(end.max(start))))
    };
    let char_index = |byte: usize| s[..byte].chars().count() as i64;
    let strip_set = |i: usize| -> R<Option<Vec<char>>> {
        match args.get(i) {
            None | Some(Value::None) => Ok(None),
            Some(Value::Str(c)) => Ok(Some(c.chars().collect())),
            Some(other) => err(format!("{name} arg must be None or str, not {}", other.type_name())),
        }
    };
    let pad = |width: i64, fill: char, left: usize| -> String {
        let n = chars.len() as i64;
        if width <= n {
            return s.to_string();
        }
        let total = (width - n) as usize;
        let (l, r) = match left {
            0 => (0, total),
            1 => (total, 0),
            // center: CPython puts the odd one on the left when the width is odd.
            _ => {
                let l = total / 2 + (total & (width as usize) & 1);
                (l, total - l)
            }
        };
        format!("{}{s}{}", fill.to_string().repeat(l), fill.to_string().repeat(r))
    };
    Ok(match name {
        "upper" => Value::str(&s.to_uppercase()),
        "lower" | "casefold" => Value::str(&s.to_lowercase()),
        "swapcase" => {
            Value::str(
                &s.chars()
                    .map(|c| {
                        if c.is_uppercase() {
                            c.to_lowercase().collect::<String>()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect::<String>(),
            )
        }
        "strip" | "lstrip" | "rstrip" => {
            let set = strip_set(0)?;
            let is_stripped = |c: char| match &set {
                Some(set) => set.contains(&c),
                None => c.is_whitespace(),
            };
            Value::str(match name {
                "strip" => s.trim_matches(is_stripped),
                "lstrip" => s.trim_start_matches(is_stripped),
                _ => s.trim_end_matches(is_stripped),
            })
        }
        "split" | "rsplit" => {
            let maxsplit = int_arg(1)?.filter(|&m| m >= 0).map(|m| m as usize);
            match args.first() {
                None | Some(Value::None) => {
                    let words: Vec<&str> = s.split_whitespace().collect();
                    match maxsplit {
                        Some(m) if m < words.len() => {
                            if name == "split" {
                                let mut rest = s.trim_start();
                                let mut out = Vec::new();
                                for _ in 0..m {
                                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                                    out.push(Value::str(&rest[..end]));
                                    rest = rest[end..].trim_start();
                                }
                                out.push(Value::str(rest));
                                Value::list(out)
                            } else {
                                let mut rest = s.trim_end();
                                let mut out = Vec::new();
                                for _ in 0..m {
                                    let start = rest.rfind(char::is_whitespace).map_or(0, |i| i + 1);
                                    out.push(Value::str(&rest[start..]));
                                    rest = rest[..start].trim_end();
                                }
                                out.push(Value::str(rest));
                                out.reverse();
                                Value::list(out)
                            }
                        }
                        _ => Value::list(words.into_iter().map(Value::str).collect()),
                    }
                }
                Some(_) => {
                    let sep = str_arg(0)?;
                    if sep.is_empty() {
                        return value_err("empty separator");
                    }
                    let parts: Vec<&str> = match (name, maxsplit) {
                        ("split", Some(m)) => s.splitn(m + 1, sep.as_str()).collect(),
                        ("rsplit", Some(m)) => {
                            let mut p: Vec<&str> = s.rsplitn(m + 1, sep.as_str()).collect();
                            p.reverse();
                            p
                        }
                        _ => s.split(sep.as_str()).collect(),
                    };
                    Value::list(parts.into_iter().map(Value::str).collect())
                }
            }
        }
        "splitlines" => Value::list(s.lines().map(Value::str).collect()),
        "replace" => {
            let (from, to) = (str_arg(0)?, str_arg(1)?);
            // `s = s.replace("a", "aa")` in a loop doubles: bounded like `s + s`, by the length
            // the result would have (an empty pattern matches around every character).
            if to.len() > from.len() {
                let matches = if from.is_empty() { s.chars().count() + 1 } else { s.matches(from.as_str()).count() };
                super::ops::check_len(s.len() + matches * (to.len() - from.len()))?;
            }
            match int_arg(2)? {
                Some(n) if n >= 0 => Value::str(&s.replacen(&from, &to, n as usize)),
                _ => Value::str(&s.replace(&from, &to)),
            }
        }
        "startswith" | "endswith" => {
            let (a, b) = window()?;
            let part = &s[a..b];
            let prefixes: Vec<String> = match args.first() {
                Some(Value::Tuple(t)) => t
                    .iter()
                    .map(|v| match v {
                        Value::Str(p) => Ok(p.to_string()),
                        other => err(format!("tuple for {name} must only contain str, not {}", other.type_name())),
                    })
                    .collect::<R<_>>()?,
                _ => vec![str_arg(0)?],
            };
            Value::Bool(prefixes.iter().any(|p| {
                if name == "startswith" {
                    part.starts_with(p.as_str())
                } else {
                    part.ends_with(p.as_str())
                }
            }))
        }
        "removeprefix" => Value::str(s.strip_prefix(str_arg(0)?.as_str()).unwrap_or(s)),
        "removesuffix" => Value::str(s.strip_suffix(str_arg(0)?.as_str()).unwrap_or(s)),
        "find" | "rfind" | "index" | "rindex" => {
            let sub = str_arg(0)?;
            let (a, b) = window()?;
            let part = &s[a..b];
            let found = if name.starts_with('r') { part.rfind(sub.as_str()) } else { part.find(sub.as_str()) };
            match found {
                Some(i) => Value::Int(char_index(a + i)),
                None if name.ends_with("find") => Value::Int(-1),
                None => return value_err("substring not found"),
            }
        }
        "count" => {
            let sub = str_arg(0)?;
            let (a, b) = window()?;
            let part = &s[a..b];
            Value::Int(if sub.is_empty() {
                part.chars().count() as i64 + 1
            } else {
                part.matches(sub.as_str()).count() as i64
            })
        }
        "ljust" | "rjust" | "center" => {
            let width =
                int_arg(0)?.ok_or_else(|| RtError::new(format!("{name}() takes at least 1 argument (0 given)")))?;
            super::ops::check_len(width.max(0) as usize)?;
            Value::str(&pad(
                width,
                fill_arg()?,
                match name {
                    "ljust" => 0,
                    "rjust" => 1,
                    _ => 2,
                },
            ))
        }
        "zfill" => {
            let width = int_arg(0)?.unwrap_or(0);
            super::ops::check_len(width.max(0) as usize)?;
            let n = chars.len() as i64;
            if width <= n {
                Value::str(s)
            } else {
                let zeros = "0".repeat((width - n) as usize);
                match s.strip_prefix(['+', '-']) {
                    Some(rest) => Value::str(&format!("{}{zeros}{rest}", &s[..1])),
                    None => Value::str(&format!("{zeros}{s}")),
                }
            }
        }
        "title" | "capitalize" => {
            let mut out = String::new();
            let mut start = true;
            for (i, c) in s.chars().enumerate() {
                let upper = if name == "title" { start } else { i == 0 };
                if upper {
                    out.extend(c.to_uppercase());
                } else {
                    out.extend(c.to_lowercase());
                }
                start = !c.is_alphabetic();
            }
            Value::str(&out)
        }
        "isdigit" | "isnumeric" | "isdecimal" => Value::Bool(!s.is_empty() && s.chars().all(|c| c.is_ascii_digit())),
        "isalpha" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        "isalnum" => Value::Bool(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        "isspace" => Value::Bool(!s.is_empty() && s.chars().all(char::is_whitespace)),
        "isupper" => Value::Bool(s.chars().any(char::is_uppercase) && !s.chars().any(char::is_lowercase)),
        "islower" => Value::Bool(s.chars().any(char::is_lowercase) && !s.chars().any(char::is_uppercase)),
        "isidentifier" => Value::Bool(
            s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && s.chars().all(|c| c.is_alphanumeric() || c == '_'),
        ),
        "partition" | "rpartition" => {
            let sep = str_arg(0)?;
            if sep.is_empty() {
                return value_err("empty separator");
            }
            let found = if name == "partition" { s.find(sep.as_str()) } else { s.rfind(sep.as_str()) };
            let parts = match found {
                Some(i) => [&s[..i], sep.as_str(), &s[i + sep.len()..]],
                None if name == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Value::tuple(parts.iter().map(|p| Value::str(p)).collect())
        }
        "expandtabs" => {
            arity(name, args, 0, 1)?;
            let size = match args.first() {
                Some(v) => {
                    as_int(v).ok_or_else(|| RtError::new("expandtabs(): tabsize must be an integer"))?.max(0) as usize
                }
                None => 8,
            };
            // Each tab pads to the next multiple of `size` columns; a newline restarts columns.
            let mut out = String::new();
            let mut column = 0;
            for c in s.chars() {
                match c {
                    '\t' if size > 0 => {
                        let n = size - column % size;
                        out.extend(std::iter::repeat_n(' ', n));
                        column += n;
                    }
                    '\t' => {}
                    '\n' | '\r' => {
                        out.push(c);
                        column = 0;
                    }
                    c => {
                        out.push(c);
                        column += 1;
                    }
                }
            }
            Value::str(&out)
        }
        "encode" => return unsupported("bytes are not supported by the playground"),
        "join" => {
            arity(name, args, 1, 1)?;
            let items = match &args[0] {
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                Value::Set(set) => set.iteration_order(),
                Value::Dict(d) => d.borrow().entries.iter().map(|(k, _)| k.clone()).collect(),
                Value::Str(s) => s.chars().map(|c| Value::str(&c.to_string())).collect(),
                other => return err(format!("can only join an iterable, not {}", other.type_name())),
            };
            let mut parts = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::Str(p) => parts.push(p.to_string()),
                    other => {
                        return err(format!("sequence item {i}: expected str instance, {} found", other.type_name()))
                    }
                }
            }
            super::ops::check_len(parts.iter().map(String::len).sum::<usize>() + s.len() * parts.len())?;
            Value::str(&parts.join(s))
        }
        _ => return attr_err(format!("'str' object has no attribute '{name}'")),
    })
}

impl Interp<'_, '_> {
    /// `template.format(*args, **kwargs)` for `{}`, `{0}`, `{name}`, `{0.attr}`, `{x[key]}`
    /// fields with `!r`/`!s` conversions and format specs.
    pub(super) fn str_format<'a>(
        &'a mut self,
        template: &'a str,
        args: &'a [Value],
        kwargs: &'a [(String, Value)],
    ) -> LocalFuture<'a, R<String>> {
        Box::pin(async move {
            let mut out = String::new();
            let mut chars = template.chars().peekable();
            let mut next_auto = 0;
            while let Some(c) = chars.next() {
                match c {
                    '{' if chars.peek() == Some(&'{') => {
                        chars.next();
                        out.push('{');
                    }
                    '}' if chars.peek() == Some(&'}') => {
                        chars.next();
                        out.push('}');
                    }
                    '{' => {
                        // The field, with nested `{}` in its spec (`{x:{width}}`) filled in.
                        let mut field = String::new();
                        let mut depth = 0;
                        for c in chars.by_ref() {
                            match c {
                                '{' => depth += 1,
                                '}' if depth == 0 => break,
                                '}' => depth -= 1,
                                _ => {}
                            }
                            field.push(c);
                        }
                        let (head, spec) = match field.find(':') {
                            Some(i) => (&field[..i], field[i + 1..].to_string()),
                            None => (field.as_str(), String::new()),
                        };
                        let (head, conversion) = match head.rsplit_once('!') {
                            Some((h, c)) => (h, c.chars().next()),
                            None => (head, None),
                        };
                        let spec = if spec.contains('{') { self.str_format(&spec, args, kwargs).await? } else { spec };
                        let split = head.find(['.', '[']).unwrap_or(head.len());
                        let (name, mut rest) = head.split_at(split);
                        let value = if name.is_empty() {
                            next_auto += 1;
                            args.get(next_auto - 1)
                        } else if let Ok(i) = name.parse::<usize>() {
                            args.get(i)
                        } else {
                            kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
                        };
                        let mut value = match value {
                            Some(v) => v.clone(),
                            None if name.is_empty() || name.parse::<usize>().is_ok() => {
                                return index_err(format!(
                                    "Replacement index {} out of range for positional args tuple",
                                    if name.is_empty() { (next_auto - 1).to_string() } else { name.to_string() }
                                ))
                            }
                            None => return Err(RtError::key(&Value::str(name))),
                        };
                        // `.attr` and `[key]` after the name.
                        while !rest.is_empty() {
                            if let Some(r) = rest.strip_prefix('.') {
                                let end = r.find(['.', '[']).unwrap_or(r.len());
                                value = self.get_attr(&value, &r[..end]).await?;
                                rest = &r[end..];
                            } else if let Some(r) = rest.strip_prefix('[') {
                                let end = r
                                    .find(']')
                                    .ok_or_else(|| RtError::of(Builtin::ValueError, "Missing ']' in format string"))?;
                                let key = &r[..end];
                                let key = key.parse::<i64>().map(Value::Int).unwrap_or_else(|_| Value::str(key));
                                value = self.get_item(&value, &key).await?;
                                rest = &r[end + 1..];
                            } else {
                                return value_err("Only '.' or '[' may follow ']' in format field specifier");
                            }
                        }
                        let value = match conversion {
                            Some('r') | Some('a') => Value::str(&self.py_repr(&value).await?),
                            Some('s') => Value::str(&self.py_str(&value).await?),
                            _ => value,
                        };
                        out.push_str(&self.format_field(value, &spec).await?);
                    }
                    '}' => return value_err("Single '}' encountered in format string"),
                    c => out.push(c),
                }
                super::ops::check_len(out.len())?;
            }
            Ok(out)
        })
    }
}

/// `isinstance` against what is not a class of the script's or Python's: JAX's and NumPy's.
pub(super) fn isinstance(v: &Value, cls: &Value) -> R<bool> {
    match cls {
        Value::Tuple(classes) => {
            for c in classes.iter() {
                if isinstance(v, c)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Native(n) => match &**n {
            Native::Builtin(name @ ("int" | "float" | "bool" | "str" | "list" | "tuple" | "dict")) => {
                Ok(v.type_name() == *name || (*name == "int" && matches!(v, Value::Bool(_))))
            }
            // A typed key array is a `jax.Array` too.
            Native::Jax("Array") => Ok(matches!(v, Value::Array(_) | Value::Key(_))),
            Native::Np("ndarray") => Ok(matches!(v, Value::Host(h) if !h.scalar)),
            Native::Np(name) | Native::Jnp(name)
                if super::dtype_info::JNP_ABSTRACT_DTYPES.contains(name)
                    || jaxlite::DType::from_name(name).is_some() =>
            {
                super::dtype_info::is_numpy_scalar_of(v, cls)
            }
            _ => err("isinstance() arg 2 must be a type or tuple of types"),
        },
        _ => err("isinstance() arg 2 must be a type or tuple of types"),
    }
}

/// `round(x)` rounds half to even and returns an int; `round(x, n)` returns a float.
fn round(x: &Value, ndigits: Option<&Value>) -> R<Value> {
    let digits = match ndigits {
        None | Some(Value::None) => None,
        Some(d) => Some(as_int(d).ok_or_else(|| RtError::new("round() ndigits must be an integer"))?),
    };
    match (x, digits) {
        (Value::Float(f), None) => Ok(Value::Int(float_to_int(f.round_ties_even())?)),
        (Value::Float(f), Some(n)) if n >= 0 => {
            let n = n.min(300) as usize;
            Ok(Value::Float(format!("{f:.n$}").parse().unwrap_or(*f)))
        }
        (Value::Float(f), Some(n)) => {
            let scale = 10f64.powi(n.clamp(-308, 0).unsigned_abs() as i32);
            Ok(Value::Float((f / scale).round_ties_even() * scale))
        }
        // An int to a negative number of digits: to the nearest multiple of 10^-n, ties to even.
        (v, Some(n)) if n < 0 && as_int(v).is_some() => {
            let i = as_int(v).unwrap_or(0) as i128;
            let Some(m) = 10i128.checked_pow(n.unsigned_abs() as u32).filter(|m| *m <= i64::MAX as i128) else {
                return Ok(Value::Int(0));
            };
            let (q, r) = (i.div_euclid(m), i.rem_euclid(m));
            let q = if 2 * r > m || (2 * r == m && q % 2 != 0) { q + 1 } else { q };
            i64::try_from(q * m).map(Value::Int).map_err(|_| super::exceptions::int_overflow())
        }
        (v, _) if as_int(v).is_some() => Ok(Value::Int(as_int(v).unwrap_or(0))),
        (v, _) => err(format!("type {} doesn't define __round__ method", v.type_name())),
    }
}

impl Interp<'_, '_> {
    /// `callable(v)`.
    /// A union of types (`int | str`, a `types.UnionType`) as the tuple of its members, which
    /// `isinstance` and `issubclass` take; anything else as it is.
    async fn union_members(&mut self, v: &Value) -> R<Value> {
        let Value::Instance(i) = v else { return Ok(v.clone()) };
        if i.class.name != "UnionType" {
            return Ok(v.clone());
        }
        let Value::PyModule(types) = self.import("types").await? else {
            return err("internal error: types is not a module");
        };
        let union = types.scope.vars.borrow().get("UnionType").cloned();
        match union {
            Some(Value::Class(c)) if Rc::ptr_eq(&c, &i.class) => self.get_attr(v, "__args__").await,
            _ => Ok(v.clone()),
        }
    }

    pub(super) fn is_callable(&self, v: &Value) -> bool {
        match v {
            Value::Function(_) | Value::Class(_) | Value::BoundMethod(_) => true,
            Value::Native(n) => !matches!(
                &**n,
                Native::Property { .. }
                    | Native::Super { .. }
                    | Native::TreeDef(_)
                    | Native::ShapeDtypeStruct(_)
                    | Native::Lowered(_)
                    | Native::MemoryStats(_)
                    | Native::DTypeInfo(_)
            ),
            Value::Instance(_) => self.special(v, "__call__").is_some(),
            _ => false,
        }
    }
}

impl Interp<'_, '_> {
    /// Item `i` of what `dict(...)` or `d.update(...)` is given: a key and a value.
    async fn dict_pair(&mut self, i: usize, pair: &Value) -> R<[Value; 2]> {
        let kv = self.collect(pair).await?;
        let n = kv.len();
        <[Value; 2]>::try_from(kv).map_err(|_| {
            RtError::of(
                Builtin::ValueError,
                format!("dictionary update sequence element #{i} has length {n}; 2 is required"),
            )
        })
    }
}
