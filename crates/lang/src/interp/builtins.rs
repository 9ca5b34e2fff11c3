//! Builtin functions, the `math` module, and the methods of lists, dicts and strings.

use super::format::format_value;
use super::ops::order;
use super::value::{as_f64, as_int, check_hashable, py_eq, repr, to_str, Dict, Native, Value};
use super::{err, Interp, RtError, R};
use crate::ast::{BinOp, CmpOp};
use crate::PrintItem;
use jaxlite::LocalFuture;
use jaxlite::{Array, Data, Tensor};
use std::cell::RefCell;
use std::rc::Rc;

const BUILTINS: &[&str] = &[
    "print",
    "len",
    "range",
    "zip",
    "enumerate",
    "min",
    "max",
    "sum",
    "abs",
    "float",
    "int",
    "bool",
    "str",
    "repr",
    "isinstance",
    "getattr",
    "hasattr",
    "list",
    "tuple",
    "dict",
    "round",
    "sorted",
    "reversed",
    "any",
    "all",
    "divmod",
    "map",
    "filter",
];

pub fn lookup(name: &str) -> Option<Value> {
    BUILTINS.iter().find(|&&b| b == name).map(|b| Value::native(Native::Builtin(b)))
}

const MATH_FUNCTIONS: &[&str] =
    &["sqrt", "exp", "log", "tanh", "cos", "sin", "floor", "ceil", "fabs", "isnan", "isinf", "isfinite", "prod"];

pub fn math_attr(name: &str) -> R<Value> {
    Ok(match name {
        "pi" => Value::Float(std::f64::consts::PI),
        "e" => Value::Float(std::f64::consts::E),
        "tau" => Value::Float(std::f64::consts::TAU),
        "inf" => Value::Float(f64::INFINITY),
        "nan" => Value::Float(f64::NAN),
        _ => match MATH_FUNCTIONS.iter().find(|&&f| f == name) {
            Some(f) => Value::native(Native::Math(f)),
            None => return err(format!("module 'math' has no attribute '{name}'")),
        },
    })
}

/// Removes and returns keyword argument `name`.
pub fn take_kwarg(kwargs: &mut Vec<(String, Value)>, name: &str) -> Option<Value> {
    let i = kwargs.iter().position(|(k, _)| k == name)?;
    Some(kwargs.remove(i).1)
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

pub fn call_math(name: &str, args: &[Value], kwargs: &[(String, Value)]) -> R<Value> {
    if name == "prod" {
        return math_prod(args, kwargs);
    }
    no_more_kwargs(name, kwargs)?;
    let max_args = if name == "log" { 2 } else { 1 };
    arity(name, args, 1, max_args)?;
    let x = number(&args[0], name)?;
    let domain = || RtError::new("math domain error");
    Ok(match name {
        "sqrt" if x < 0.0 => return Err(domain()),
        "sqrt" => Value::Float(x.sqrt()),
        "exp" => Value::Float(x.exp()),
        "log" if x <= 0.0 => return Err(domain()),
        "log" => match args.get(1) {
            Some(base) => {
                let b = number(base, name)?;
                if b <= 0.0 || b == 1.0 {
                    return Err(domain());
                }
                Value::Float(x.ln() / b.ln())
            }
            None => Value::Float(x.ln()),
        },
        "tanh" => Value::Float(x.tanh()),
        "cos" => Value::Float(x.cos()),
        "sin" => Value::Float(x.sin()),
        "fabs" => Value::Float(x.abs()),
        "isnan" => Value::Bool(x.is_nan()),
        "isinf" => Value::Bool(x.is_infinite()),
        "isfinite" => Value::Bool(x.is_finite()),
        _ => Value::Int(float_to_int(if name == "floor" { x.floor() } else { x.ceil() })?),
    })
}

/// `math.prod(iterable, start=1)` of a list or tuple of numbers (`math.prod(x.shape)`): ints
/// stay ints (an error past 64 bits, where Python would go on), any float makes it a float.
fn math_prod(args: &[Value], kwargs: &[(String, Value)]) -> R<Value> {
    let mut kwargs = kwargs.to_vec();
    let start = take_kwarg(&mut kwargs, "start").unwrap_or(Value::Int(1));
    no_more_kwargs("prod", &kwargs)?;
    arity("prod", args, 1, 1)?;
    let items: Vec<Value> = match &args[0] {
        Value::List(l) => l.borrow().clone(),
        Value::Tuple(t) => t.to_vec(),
        other => return err(format!("'{}' object is not iterable", other.type_name())),
    };
    let mut acc = start;
    for item in &items {
        acc = match (&acc, item) {
            (Value::Int(a), Value::Int(b)) => Value::Int(a.checked_mul(*b).ok_or_else(|| {
                RtError::new("math.prod: the product is too large for the playground's 64-bit integers")
            })?),
            _ => Value::Float(number(&acc, "prod")? * number(item, "prod")?),
        };
    }
    Ok(acc)
}

/// A Python number (or a concrete one-element array) as f64.
fn number(v: &Value, func: &str) -> R<f64> {
    match v {
        Value::Array(Tensor::Concrete(a)) if a.size() == 1 => Ok(a.scalar_f64().unwrap_or(0.0)),
        _ => as_f64(v).ok_or_else(|| RtError::new(format!("{func}() must be a real number, not {}", v.type_name()))),
    }
}

pub fn float_to_int(x: f64) -> R<i64> {
    if x.is_nan() {
        return err("cannot convert float NaN to integer");
    }
    if x.is_infinite() {
        return err("cannot convert float infinity to integer");
    }
    let t = x.trunc();
    if t >= -(2f64.powi(63)) && t < 2f64.powi(63) {
        Ok(t as i64)
    } else {
        err("integer overflow (the playground's ints are 64-bit)")
    }
}

/// How `print` hands a value to front ends.
fn print_item(v: &Value) -> PrintItem {
    let scalar = |data: Data| PrintItem::Array(Array::new(vec![], data));
    match v {
        Value::Array(Tensor::Concrete(a)) => PrintItem::Array((**a).clone()),
        Value::Int(i) => match i32::try_from(*i) {
            Ok(i) => scalar(Data::I32(vec![i])),
            Err(_) => PrintItem::Text(i.to_string()),
        },
        Value::Float(x) => scalar(Data::F32(vec![*x as f32])),
        Value::Bool(b) => scalar(Data::Bool(vec![*b])),
        other => PrintItem::Text(to_str(other)),
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
                    no_more_kwargs(name, &kwargs)?;
                    let text: Vec<String> = args.iter().map(to_str).collect();
                    let line = text.join(&sep) + &end;
                    if self.out.stdout.len() + line.len() > self.limits.output_bytes {
                        return err(format!(
                            "the script printed more than {} bytes, the playground's output limit",
                            self.limits.output_bytes
                        ));
                    }
                    self.out.stdout.push_str(&line);
                    self.out.prints.push(args.iter().map(print_item).collect());
                    return Ok(Value::None);
                }
                "min" | "max" => return self.min_max(name, args, kwargs).await,
                "sum" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 2)?;
                    let mut acc = args.get(1).cloned().unwrap_or(Value::Int(0));
                    for item in self.iterate(&args[0])? {
                        acc = self.binary(BinOp::Add, acc, item).await?;
                    }
                    return Ok(acc);
                }
                "abs" => {
                    arity(name, &args, 1, 1)?;
                    return match &args[0] {
                        Value::Float(x) => Ok(Value::Float(x.abs())),
                        Value::Array(_) => self.call_jnp("abs", args, kwargs).await,
                        v => match as_int(v) {
                            Some(i) => i.checked_abs().map(Value::Int).ok_or_else(|| RtError::new("integer overflow")),
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
                // Lists rather than Python's lazy iterators: the same for unpacking, loops,
                // `list(...)` and `len(list(...))`, which is how scripts use them.
                "map" => {
                    no_more_kwargs(name, &kwargs)?;
                    if args.len() < 2 {
                        return err("map() must have at least two arguments.");
                    }
                    let lists: Vec<Vec<Value>> = args[1..].iter().map(|a| self.iterate(a)).collect::<R<_>>()?;
                    let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                    let mut out = Vec::with_capacity(n);
                    for i in 0..n {
                        let call_args = lists.iter().map(|l| l[i].clone()).collect();
                        out.push(self.call(args[0].clone(), call_args, vec![]).await?);
                    }
                    return Ok(Value::list(out));
                }
                "filter" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, 2)?;
                    let mut out = Vec::new();
                    for item in self.iterate(&args[1])? {
                        let keep = match &args[0] {
                            Value::None => self.truth(&item).await?,
                            f => {
                                let r = self.call(f.clone(), vec![item.clone()], vec![]).await?;
                                self.truth(&r).await?
                            }
                        };
                        if keep {
                            out.push(item);
                        }
                    }
                    return Ok(Value::list(out));
                }
                "any" | "all" => {
                    arity(name, &args, 1, 1)?;
                    let want = name == "any";
                    for item in self.iterate(&args[0])? {
                        if self.truth(&item).await? == want {
                            return Ok(Value::Bool(want));
                        }
                    }
                    return Ok(Value::Bool(!want));
                }
                _ => {}
            }
            let enumerate_start = if name == "enumerate" { take_kwarg(&mut kwargs, "start") } else { None };
            let sorted_reverse = if name == "sorted" { take_kwarg(&mut kwargs, "reverse") } else { None };
            if name != "dict" {
                no_more_kwargs(name, &kwargs)?;
            }
            let one = |args: &[Value]| -> R<Value> {
                arity(name, args, 1, 1)?;
                Ok(args[0].clone())
            };
            Ok(match name {
                "len" => {
                    let v = one(&args)?;
                    Value::Int(self.len(&v)? as i64)
                }
                "range" => {
                    arity(name, &args, 1, 3)?;
                    let mut ints = Vec::with_capacity(args.len());
                    for a in &args {
                        let a = self.concrete(a.clone()).await?;
                        ints.push(self.to_index(&a)?);
                    }
                    let (start, stop, step) = match ints[..] {
                        [stop] => (0, stop, 1),
                        [start, stop] => (start, stop, 1),
                        [start, stop, step] => (start, stop, step),
                        _ => (0, 0, 1),
                    };
                    if step == 0 {
                        return err("range() arg 3 must not be zero");
                    }
                    Value::Range { start, stop, step }
                }
                "zip" => {
                    let lists: Vec<Vec<Value>> = args.iter().map(|a| self.iterate(a)).collect::<R<_>>()?;
                    let n = lists.iter().map(Vec::len).min().unwrap_or(0);
                    Value::list((0..n).map(|i| Value::tuple(lists.iter().map(|l| l[i].clone()).collect())).collect())
                }
                "enumerate" => {
                    let items = self.iterate(&one(&args)?)?;
                    let start = enumerate_start.map_or(Ok(0), |s| self.to_index(&s))?;
                    let pairs = items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| Value::tuple(vec![Value::Int(start.wrapping_add(i as i64)), v]));
                    Value::list(pairs.collect())
                }
                "float" => match args.first() {
                    None => Value::Float(0.0),
                    Some(v) => self.to_float(v)?,
                },
                // `int` reads a differentiated value, `float` does not: JAX's JVP tracers define
                // `__int__` (and `__index__`, `__bool__`) through their primal, not `__float__`.
                "int" => match args.first() {
                    None => Value::Int(0),
                    Some(v) => {
                        let v = self.concrete(v.clone()).await?;
                        self.to_int(&v)?
                    }
                },
                "bool" => Value::Bool(match args.first() {
                    None => false,
                    Some(v) => self.truth(v).await?,
                }),
                "str" => Value::str(&args.first().map_or(String::new(), to_str)),
                "repr" => Value::str(&repr(&one(&args)?)),
                "isinstance" => {
                    arity(name, &args, 2, 2)?;
                    Value::Bool(isinstance(&args[0], &args[1])?)
                }
                // `getattr(obj, name[, default])`, `hasattr(obj, name)`: what `obj.name` gives,
                // the default (or False) where it raises.
                "getattr" | "hasattr" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, if name == "getattr" { 3 } else { 2 })?;
                    let Value::Str(attr) = &args[1] else {
                        return err(format!("{name}(): attribute name must be string, not '{}'", args[1].type_name()));
                    };
                    match (self.get_attr(&args[0], attr).await, args.get(2)) {
                        (Ok(v), _) if name == "getattr" => v,
                        (Ok(_), _) => Value::Bool(true),
                        (Err(_), _) if name == "hasattr" => Value::Bool(false),
                        (Err(_), Some(default)) => default.clone(),
                        (Err(e), None) => return Err(e),
                    }
                }
                "list" => Value::list(match args.first() {
                    None => vec![],
                    Some(v) => self.iterate(v)?,
                }),
                "tuple" => Value::tuple(match args.first() {
                    None => vec![],
                    Some(v) => self.iterate(v)?,
                }),
                "dict" => {
                    let mut d = Dict::default();
                    if let Some(v) = args.first() {
                        for pair in self.iterate(v)? {
                            let kv = self.iterate(&pair)?;
                            let [k, v] = <[Value; 2]>::try_from(kv).map_err(|_| {
                                RtError::new("dictionary update sequence element has the wrong length; 2 is required")
                            })?;
                            d.insert(k, v)?;
                        }
                    }
                    for (k, v) in kwargs {
                        d.insert(Value::str(&k), v)?;
                    }
                    Value::Dict(Rc::new(RefCell::new(d)))
                }
                "round" => {
                    arity(name, &args, 1, 2)?;
                    round(&args[0], args.get(1))?
                }
                "sorted" => {
                    let mut items = self.iterate(&one(&args)?)?;
                    let mut failure = None;
                    items.sort_by(|a, b| match order(a, b) {
                        Ok(Some(ordering)) => ordering,
                        Ok(None) => {
                            failure.get_or_insert_with(|| {
                                format!(
                                    "'<' not supported between instances of '{}' and '{}'",
                                    a.type_name(),
                                    b.type_name()
                                )
                            });
                            std::cmp::Ordering::Equal
                        }
                        Err(e) => {
                            failure.get_or_insert(e.message);
                            std::cmp::Ordering::Equal
                        }
                    });
                    if let Some(f) = failure {
                        return err(f);
                    }
                    if let Some(r) = sorted_reverse {
                        if self.truth(&r).await? {
                            items.reverse();
                        }
                    }
                    Value::list(items)
                }
                "reversed" => {
                    let mut items = self.iterate(&one(&args)?)?;
                    items.reverse();
                    Value::list(items)
                }
                _ => return err(format!("builtin '{name}' is not implemented")),
            })
        })
    }

    fn min_max<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let key = take_kwarg(&mut kwargs, "key");
            no_more_kwargs(name, &kwargs)?;
            arity(name, &args, 1, usize::MAX)?;
            let items = if args.len() == 1 { self.iterate(&args[0])? } else { args };
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
            best.map(|(v, _)| v).ok_or_else(|| RtError::new(format!("{name}() arg is an empty sequence")))
        })
    }

    fn len(&self, v: &Value) -> R<usize> {
        Ok(match v {
            Value::Str(s) => s.chars().count(),
            Value::List(l) => l.borrow().len(),
            Value::Tuple(t) => t.len(),
            Value::Dict(d) => d.borrow().entries.len(),
            Value::Range { .. } => self.iterate(v)?.len(),
            Value::Key(k) => k.full_shape()[0],
            Value::Array(t) => match t.aval().shape.first() {
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
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Value::Array(t) = recv {
                return self.call_array_method(t, name, args, kwargs).await;
            }
            if let Some(op) = name.strip_prefix("at.") {
                no_more_kwargs(&format!("at[...].{op}"), &kwargs)?;
                let Value::Tuple(target) = recv else { return err("x.at[...] needs an array") };
                let (Value::Array(x), index) = (&target[0], &target[1]) else { return err("x.at[...] needs an array") };
                return self.at_update(x, index, op, args).await;
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
            if name == "format" {
                if let Value::Str(template) = recv {
                    return Ok(Value::str(&str_format(template, &args, &kwargs)?));
                }
            }
            no_more_kwargs(name, &kwargs)?;
            let wrong = || RtError::new(format!("'{}' object has no attribute '{name}'", recv.type_name()));
            match recv {
                Value::List(l) => self.list_method(l, name, args),
                Value::Dict(d) => dict_method(d, name, args),
                Value::Str(s) => str_method(s, name, &args),
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
                    return err("pop from empty list");
                }
                let i = match args.first() {
                    Some(a) => {
                        position(self.to_index(a)?, false).ok_or_else(|| RtError::new("pop index out of range"))?
                    }
                    None => n - 1,
                };
                return Ok(l.borrow_mut().remove(i));
            }
            "index" => {
                arity(name, &args, 1, 1)?;
                let found = l.borrow().iter().position(|v| py_eq(v, &args[0]));
                return found
                    .map(|i| Value::Int(i as i64))
                    .ok_or_else(|| RtError::new(format!("{} is not in list", repr(&args[0]))));
            }
            "count" => {
                arity(name, &args, 1, 1)?;
                return Ok(Value::Int(l.borrow().iter().filter(|v| py_eq(v, &args[0])).count() as i64));
            }
            "reverse" => l.borrow_mut().reverse(),
            "clear" => {
                let items = std::mem::take(&mut *l.borrow_mut());
                super::dismantle(items);
            }
            "copy" => return Ok(Value::list(l.borrow().clone())),
            _ => return err(format!("'list' object has no attribute '{name}'")),
        }
        Ok(Value::None)
    }
}

/// The methods a value has, bound to it (`xs.append`).
pub fn method(obj: &Value, name: &str) -> R<Value> {
    const LIST: &[&str] = &["append", "extend", "insert", "pop", "index", "count", "reverse", "clear", "copy"];
    const DICT: &[&str] = &["items", "keys", "values", "get", "pop", "update", "copy"];
    const STR: &[&str] = &["join", "upper", "lower", "split", "strip", "replace", "startswith", "endswith", "format"];
    let names = match obj {
        Value::List(_) => LIST,
        Value::Dict(_) => DICT,
        Value::Str(_) => STR,
        _ => &[],
    };
    match names.iter().find(|&&n| n == name) {
        Some(n) => Ok(Value::native(Native::Method(obj.clone(), n))),
        None => err(format!("'{}' object has no attribute '{name}'", obj.type_name())),
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
        "pop" => {
            arity(name, &args, 1, 2)?;
            let mut d = d.borrow_mut();
            match d.entries.iter().position(|(k, _)| py_eq(k, &args[0])) {
                Some(i) => d.entries.remove(i).1,
                None => args.get(1).cloned().ok_or_else(|| RtError::new(format!("KeyError: {}", repr(&args[0]))))?,
            }
        }
        "update" => {
            arity(name, &args, 1, 1)?;
            let Value::Dict(other) = &args[0] else {
                return err("dict.update() argument must be a dict");
            };
            let entries = other.borrow().entries.clone();
            for (k, v) in entries {
                d.borrow_mut().insert(k, v)?;
            }
            Value::None
        }
        "copy" => Value::Dict(Rc::new(RefCell::new(Dict { entries: d.borrow().entries.clone() }))),
        _ => return err(format!("'dict' object has no attribute '{name}'")),
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
    Ok(match name {
        "upper" => Value::str(&s.to_uppercase()),
        "lower" => Value::str(&s.to_lowercase()),
        "strip" => Value::str(s.trim()),
        "split" => match args.first() {
            None | Some(Value::None) => Value::list(s.split_whitespace().map(Value::str).collect()),
            Some(_) => {
                let sep = str_arg(0)?;
                if sep.is_empty() {
                    return err("empty separator");
                }
                Value::list(s.split(sep.as_str()).map(Value::str).collect())
            }
        },
        "replace" => {
            let (from, to) = (str_arg(0)?, str_arg(1)?);
            // `s = s.replace("a", "aa")` in a loop doubles: bounded like `s + s`, by the length
            // the result would have (an empty pattern matches around every character).
            if to.len() > from.len() {
                let matches = if from.is_empty() { s.chars().count() + 1 } else { s.matches(from.as_str()).count() };
                super::ops::check_len(s.len() + matches * (to.len() - from.len()))?;
            }
            Value::str(&s.replace(&from, &to))
        }
        "startswith" => Value::Bool(s.starts_with(&str_arg(0)?)),
        "endswith" => Value::Bool(s.ends_with(&str_arg(0)?)),
        "join" => {
            arity(name, args, 1, 1)?;
            let items = match &args[0] {
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                other => return err(format!("can only join a list or tuple, not {}", other.type_name())),
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
        _ => return err(format!("'str' object has no attribute '{name}'")),
    })
}

/// `template.format(*args, **kwargs)` for `{}`, `{0}`, `{name}` fields with format specs.
fn str_format(template: &str, args: &[Value], kwargs: &[(String, Value)]) -> R<String> {
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
                let field: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let (name, spec) = field.split_once(':').unwrap_or((&field, ""));
                let value = if name.is_empty() {
                    next_auto += 1;
                    args.get(next_auto - 1)
                } else if let Ok(i) = name.parse::<usize>() {
                    args.get(i)
                } else {
                    kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
                };
                let value = value.ok_or_else(|| {
                    RtError::new(format!("Replacement index {name} out of range for positional args tuple"))
                })?;
                out.push_str(&format_value(value, spec)?);
            }
            '}' => return err("Single '}' encountered in format string"),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn isinstance(v: &Value, cls: &Value) -> R<bool> {
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
            Native::Jax("Array") => Ok(matches!(v, Value::Array(_))),
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
        (v, _) if as_int(v).is_some() => Ok(Value::Int(as_int(v).unwrap_or(0))),
        (v, _) => err(format!("type {} doesn't define __round__ method", v.type_name())),
    }
}
