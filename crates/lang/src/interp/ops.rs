//! Operators on Python values: int arithmetic is checked (errors, never overflow panics),
//! floats follow IEEE and Python's floor-division rules, and anything involving an array goes
//! to the jax bindings.

use super::complex::as_complex;
use super::objects::Builtin;
use super::value::{as_f64, as_int, py_eq, Value};
use super::{err, type_err, value_err, zero_div, Interp, RtError, R};
use crate::ast::{BinOp, CmpOp, UnaryOp};
use jaxlite::LocalFuture;
use std::cmp::Ordering;

/// The longest list or string an operator may build, so `[0] * 10**10` is an error rather
/// than an out-of-memory abort.
const MAX_SEQUENCE: usize = 10_000_000;

fn overflow() -> RtError {
    super::exceptions::int_overflow()
}

impl Interp<'_, '_> {
    pub(super) fn binary<'a>(&'a mut self, op: BinOp, a: Value, b: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // `str.__mod__` formats whatever its right operand is (an array, an instance)
            // before that operand's `__rmod__` is asked.
            if let (BinOp::Mod, Value::Str(template)) = (op, &a) {
                return Ok(Value::str(&self.percent_format(template, &b).await?));
            }
            if matches!(a, Value::Instance(_)) || matches!(b, Value::Instance(_)) {
                return self.instance_binary(op, a, b).await;
            }
            if matches!(a, Value::Array(_)) || matches!(b, Value::Array(_)) {
                return self.array_binary(op, &a, &b).await;
            }
            // NumPy on the host; with a JAX array, JAX's operator wins (as its
            // `__array_priority__` makes it) and the NumPy operand goes to the device.
            if matches!(a, Value::Host(_)) || matches!(b, Value::Host(_)) {
                return self.host_binary(op, &a, &b).await;
            }
            if matches!(a, Value::Complex(..)) || matches!(b, Value::Complex(..)) {
                if let (Some(x), Some(y)) = (as_complex(&a), as_complex(&b)) {
                    return super::complex::binary(op, x, y, (&a.type_name(), &b.type_name()));
                }
            }
            if let (Some(x), Some(y)) = (as_int(&a), as_int(&b)) {
                return int_binary(op, x, y);
            }
            if let (Some(x), Some(y)) = (as_f64(&a), as_f64(&b)) {
                return float_binary(op, x, y);
            }
            match (op, &a, &b) {
                (BinOp::Add, Value::Str(x), Value::Str(y)) => {
                    check_len(x.len() + y.len())?;
                    Ok(Value::str(&format!("{x}{y}")))
                }
                (BinOp::Add, Value::List(x), Value::List(y)) => {
                    let mut items = x.borrow().clone();
                    items.extend(y.borrow().iter().cloned());
                    check_len(items.len())?;
                    Ok(Value::list(items))
                }
                (BinOp::Add, Value::Tuple(x), Value::Tuple(y)) => {
                    check_len(x.len() + y.len())?;
                    Ok(Value::tuple(x.iter().chain(y.iter()).cloned().collect()))
                }
                (BinOp::Mul, seq, n) | (BinOp::Mul, n, seq)
                    if as_int(n).is_some() && matches!(seq, Value::Str(_) | Value::List(_) | Value::Tuple(_)) =>
                {
                    repeat(seq, as_int(n).unwrap_or(0))
                }
                (BinOp::Mul, Value::Str(_) | Value::List(_) | Value::Tuple(_), n)
                | (BinOp::Mul, n, Value::Str(_) | Value::List(_) | Value::Tuple(_))
                    if !matches!(
                        n,
                        Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Instance(_) | Value::Array(_)
                    ) =>
                {
                    err(format!("can't multiply sequence by non-int of type '{}'", n.type_name()))
                }
                (BinOp::BitOr | BinOp::BitAnd | BinOp::Sub | BinOp::BitXor, Value::Set(x), Value::Set(y)) => {
                    let (x, y) = (x.items.borrow().clone(), y.items.borrow().clone());
                    let has = |xs: &[Value], v: &Value| xs.iter().any(|x| py_eq(x, v));
                    let items: Vec<Value> = match op {
                        BinOp::BitOr => x.iter().chain(y.iter()).cloned().collect(),
                        BinOp::BitAnd => x.iter().filter(|v| has(&y, v)).cloned().collect(),
                        BinOp::Sub => x.iter().filter(|v| !has(&y, v)).cloned().collect(),
                        _ => {
                            x.iter().filter(|v| !has(&y, v)).chain(y.iter().filter(|v| !has(&x, v))).cloned().collect()
                        }
                    };
                    let frozen = matches!(&a, Value::Set(s) if s.frozen);
                    super::builtins::make_set(items, frozen)
                }
                (BinOp::BitOr, Value::Dict(x), Value::Dict(y)) => {
                    let mut d = super::value::Dict { entries: x.borrow().entries.clone() };
                    for (k, v) in y.borrow().entries.iter() {
                        d.insert(k.clone(), v.clone())?;
                    }
                    Ok(Value::Dict(std::rc::Rc::new(std::cell::RefCell::new(d))))
                }
                // `int | None`: a union of types (PEP 604), made by `types._union`.
                (BinOp::BitOr, Value::Class(_) | Value::None, Value::Class(_) | Value::None)
                    if matches!(a, Value::Class(_)) || matches!(b, Value::Class(_)) =>
                {
                    let Value::PyModule(types) = self.import("types").await? else {
                        return err("internal error: types is not a module");
                    };
                    let union = types.scope.vars.borrow().get("_union").cloned();
                    let Some(union) = union else { return err("internal error: types has no _union") };
                    self.call(union, vec![a.clone(), b.clone()], vec![]).await
                }
                // CPython's sequences word it their own way.
                (BinOp::Add, Value::Str(_) | Value::List(_) | Value::Tuple(_), _) => err(format!(
                    "can only concatenate {} (not \"{}\") to {}",
                    a.type_name(),
                    b.type_name(),
                    a.type_name()
                )),
                _ => err(format!(
                    "unsupported operand type(s) for {}: '{}' and '{}'",
                    op.symbol(),
                    a.type_name(),
                    b.type_name()
                )),
            }
        })
    }

    pub(super) fn unary<'a>(&'a mut self, op: UnaryOp, v: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match (op, &v) {
                (_, Value::Instance(_)) => self.instance_unary(op, v).await,
                (_, Value::Array(_)) => self.array_unary(op, &v).await,
                (_, Value::Host(_)) => self.host_unary(op, &v).await,
                (UnaryOp::Neg, Value::Float(x)) => Ok(Value::Float(-x)),
                (UnaryOp::Pos, Value::Float(x)) => Ok(Value::Float(*x)),
                (UnaryOp::Neg, Value::Complex(re, im)) => Ok(Value::Complex(-re, -im)),
                (UnaryOp::Pos, Value::Complex(re, im)) => Ok(Value::Complex(*re, *im)),
                (UnaryOp::Neg, _) if as_int(&v).is_some() => {
                    Ok(Value::Int(as_int(&v).unwrap_or(0).checked_neg().ok_or_else(overflow)?))
                }
                (UnaryOp::Pos, _) if as_int(&v).is_some() => Ok(Value::Int(as_int(&v).unwrap_or(0))),
                (UnaryOp::Invert, _) if as_int(&v).is_some() => Ok(Value::Int(!as_int(&v).unwrap_or(0))),
                _ => err(format!("bad operand type for unary {}: '{}'", op.symbol(), v.type_name())),
            }
        })
    }

    /// `==` of two lists (or two tuples) holding arrays, NumPy values or objects,
    /// as CPython compares them: the same length, and each pair identical or `==` and truthy
    /// (so `[1] == [np.int32(1)]` holds). `None` where plain structural equality answers.
    fn rich_sequence_eq<'a>(&'a mut self, a: &'a Value, b: &'a Value) -> LocalFuture<'a, R<Option<bool>>> {
        Box::pin(async move {
            let (xs, ys) = match (a, b) {
                (Value::List(x), Value::List(y)) => (x.borrow().clone(), y.borrow().clone()),
                (Value::Tuple(x), Value::Tuple(y)) => (x.to_vec(), y.to_vec()),
                _ => return Ok(None),
            };
            // (Nested sequences alone stay with the structural comparison, which takes any
            // depth and cycles without recursing.)
            let rich = |v: &Value| matches!(v, Value::Array(_) | Value::Host(_) | Value::Instance(_));
            if !xs.iter().chain(&ys).any(rich) {
                return Ok(None);
            }
            if xs.len() != ys.len() {
                return Ok(Some(false));
            }
            for (x, y) in xs.iter().zip(&ys) {
                if identical(x, y) {
                    continue;
                }
                let eq = self.compare(CmpOp::Eq, x, y).await?;
                if !self.truth(&eq).await? {
                    return Ok(Some(false));
                }
            }
            Ok(Some(true))
        })
    }

    pub(super) fn compare<'a>(&'a mut self, op: CmpOp, a: &'a Value, b: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let is_array = |v: &Value| matches!(v, Value::Array(_));
            match op {
                CmpOp::Is => return Ok(Value::Bool(identical(a, b))),
                CmpOp::IsNot => return Ok(Value::Bool(!identical(a, b))),
                CmpOp::In | CmpOp::NotIn => {
                    let found = self.contains(b, a).await?;
                    return Ok(Value::Bool(found == (op == CmpOp::In)));
                }
                _ => {}
            }
            if matches!(a, Value::Instance(_)) || matches!(b, Value::Instance(_)) {
                return self.instance_compare(op, a, b).await;
            }
            if matches!(op, CmpOp::Eq | CmpOp::Ne) {
                if let Some(equal) = self.rich_sequence_eq(a, b).await? {
                    return Ok(Value::Bool(equal == (op == CmpOp::Eq)));
                }
            }
            if let (Value::Set(x), Value::Set(y)) = (a, b) {
                if !matches!(op, CmpOp::Eq | CmpOp::Ne) {
                    let (x, y) = (x.items.borrow(), y.items.borrow());
                    let subset = |p: &[Value], q: &[Value]| p.iter().all(|v| q.iter().any(|w| py_eq(v, w)));
                    return Ok(Value::Bool(match op {
                        CmpOp::Le => subset(&x, &y),
                        CmpOp::Lt => subset(&x, &y) && x.len() < y.len(),
                        CmpOp::Ge => subset(&y, &x),
                        _ => subset(&y, &x) && x.len() > y.len(),
                    }));
                }
            }
            if is_array(a) || is_array(b) {
                return self.array_compare(op, a, b).await;
            }
            if matches!(a, Value::Host(_)) || matches!(b, Value::Host(_)) {
                return self.host_compare(op, a, b).await;
            }
            let result = match op {
                CmpOp::Eq => py_eq(a, b),
                CmpOp::Ne => !py_eq(a, b),
                _ => {
                    let ord = order(a, b)?.ok_or_else(|| {
                        super::RtError::new(format!(
                            "'{}' not supported between instances of '{}' and '{}'",
                            op.symbol(),
                            a.type_name(),
                            b.type_name()
                        ))
                    })?;
                    match op {
                        CmpOp::Lt => ord == Ordering::Less,
                        CmpOp::Le => ord != Ordering::Greater,
                        CmpOp::Gt => ord == Ordering::Greater,
                        _ => ord != Ordering::Less,
                    }
                }
            };
            Ok(Value::Bool(result))
        })
    }

    /// `item in container`: a class's `__contains__`, else a search of what iterating gives.
    fn contains<'a>(&'a mut self, container: &'a Value, item: &'a Value) -> LocalFuture<'a, R<bool>> {
        Box::pin(async move {
            if matches!(container, Value::Instance(_) | Value::Class(_)) {
                if let Some(r) = self.call_special(container, "__contains__", vec![item.clone()]).await? {
                    return self.truth(&r).await;
                }
            }
            if matches!(container, Value::Instance(_) | Value::Iterator(_) | Value::Class(_)) {
                let base = super::classes::unwrap_base(container);
                if !matches!(base, Value::Instance(_)) {
                    return self.contains(&base, item).await;
                }
                let it = self.iter_of(container).await?;
                while let Some(v) = self.next_of(&it).await? {
                    let eq = self.compare(CmpOp::Eq, &v, item).await?;
                    if self.truth(&eq).await? {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            if let Value::List(_) | Value::Tuple(_) = container {
                // Objects among the items compare with their `__eq__`.
                let items = self.iterate(container)?;
                if matches!(item, Value::Instance(_)) || items.iter().any(|v| matches!(v, Value::Instance(_))) {
                    for v in &items {
                        let eq = self.compare(CmpOp::Eq, v, item).await?;
                        if self.truth(&eq).await? {
                            return Ok(true);
                        }
                    }
                    return Ok(false);
                }
            }
            let item = self.existing_key(container, item).await?;
            self.contains_value(container, &item)
        })
    }

    fn contains_value(&self, container: &Value, item: &Value) -> R<bool> {
        Ok(match container {
            Value::Set(s) => {
                super::value::check_hashable(item)?;
                s.items.borrow().iter().any(|v| py_eq(v, item))
            }
            Value::Str(s) => match item {
                Value::Str(sub) => s.contains(&**sub),
                other => {
                    return err(format!("'in <string>' requires string as left operand, not {}", other.type_name()))
                }
            },
            Value::Dict(d) => d.borrow().get(item).is_some(),
            Value::List(_) | Value::Tuple(_) | Value::Range { .. } => {
                self.iterate(container)?.iter().any(|v| py_eq(v, item))
            }
            other => return err(format!("argument of type '{}' is not iterable", other.type_name())),
        })
    }
}

/// Python's `is`: identity for objects, value for the immutable singletons and small values.
fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Class(x), Value::Class(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Instance(x), Value::Instance(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Iterator(x), Value::Iterator(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Set(x), Value::Set(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Tuple(x), Value::Tuple(y)) => std::rc::Rc::ptr_eq(x, y) || (x.is_empty() && y.is_empty()),
        (Value::Str(x), Value::Str(y)) => std::rc::Rc::ptr_eq(x, y) || x == y,
        (Value::NotImplemented, Value::NotImplemented) => true,
        (Value::List(x), Value::List(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Host(x), Value::Host(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::Function(x), Value::Function(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::BoundMethod(x), Value::BoundMethod(y)) => std::rc::Rc::ptr_eq(x, y),
        (Value::PyModule(x), Value::PyModule(y)) => std::rc::Rc::ptr_eq(x, y),
        // Natives (`jnp.float32`, `jax.jit`) are made afresh at each lookup, and arrays are
        // values: the same one is the equal one.
        (Value::Native(_) | Value::Array(_), _) => py_eq(a, b),
        (Value::None, Value::None) | (Value::Ellipsis, Value::Ellipsis) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Module(x), Value::Module(y)) => x == y,
        _ => false,
    }
}

/// Python's ordering of numbers, strings, and (lexicographically) lists and tuples; `None` for
/// values that have none. Nested sequences recurse, up to Python's own limit of 1,000 levels.
pub fn order(a: &Value, b: &Value) -> R<Option<Ordering>> {
    order_at(a, b, 0)
}

fn order_at(a: &Value, b: &Value, depth: usize) -> R<Option<Ordering>> {
    if depth > 1000 {
        return Err(RtError::of(Builtin::RecursionError, "maximum recursion depth exceeded in comparison"));
    }
    Ok(match (a, b) {
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::List(x), Value::List(y)) => seq_order(&x.borrow(), &y.borrow(), depth)?,
        (Value::Tuple(x), Value::Tuple(y)) => seq_order(x, y, depth)?,
        _ => match (as_int(a), as_int(b)) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => as_f64(a).zip(as_f64(b)).and_then(|(x, y)| x.partial_cmp(&y)),
        },
    })
}

fn seq_order(x: &[Value], y: &[Value], depth: usize) -> R<Option<Ordering>> {
    for (p, q) in x.iter().zip(y) {
        if !py_eq(p, q) {
            return order_at(p, q, depth + 1);
        }
    }
    Ok(Some(x.len().cmp(&y.len())))
}

/// Refuses a list or string longer than the playground allows (before it is built, where the
/// caller can).
pub(super) fn check_len(n: usize) -> R<()> {
    if n > MAX_SEQUENCE {
        return super::exceptions::raise(
            super::objects::Builtin::MemoryError,
            format!("sequence too long ({n} items; the playground allows {MAX_SEQUENCE})"),
        );
    }
    Ok(())
}

fn repeat(seq: &Value, n: i64) -> R<Value> {
    let n = n.max(0) as usize;
    match seq {
        Value::Str(s) => {
            check_len(s.len().saturating_mul(n))?;
            Ok(Value::str(&s.repeat(n)))
        }
        Value::List(l) => {
            let l = l.borrow();
            check_len(l.len().saturating_mul(n))?;
            Ok(Value::list(l.iter().cloned().cycle().take(l.len() * n).collect()))
        }
        Value::Tuple(t) => {
            check_len(t.len().saturating_mul(n))?;
            Ok(Value::tuple(t.iter().cloned().cycle().take(t.len() * n).collect()))
        }
        _ => err("can't multiply sequence"),
    }
}

fn int_binary(op: BinOp, x: i64, y: i64) -> R<Value> {
    let v = match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        BinOp::Div => {
            if y == 0 {
                return zero_div("division by zero");
            }
            return Ok(Value::Float(x as f64 / y as f64));
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                return zero_div(if op == BinOp::Mod {
                    "integer modulo by zero"
                } else {
                    "integer division or modulo by zero"
                });
            }
            let (q, r) = (x.checked_div_euclid(y).ok_or_else(overflow)?, x.rem_euclid(y));
            // Python rounds the quotient toward negative infinity, so the remainder takes the
            // divisor's sign; Euclidean division agrees when the divisor is positive.
            let (q, r) = if y < 0 && r != 0 { (q - 1, r + y) } else { (q, r) };
            Some(if op == BinOp::FloorDiv { q } else { r })
        }
        BinOp::Pow => {
            if y < 0 {
                return float_binary(op, x as f64, y as f64);
            }
            u32::try_from(y).ok().and_then(|e| x.checked_pow(e))
        }
        BinOp::BitAnd => Some(x & y),
        BinOp::BitOr => Some(x | y),
        BinOp::BitXor => Some(x ^ y),
        BinOp::LShift | BinOp::RShift => {
            if y < 0 {
                return value_err("negative shift count");
            }
            let s = u32::try_from(y).unwrap_or(u32::MAX);
            if op == BinOp::RShift {
                Some(if s >= 64 {
                    if x < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    x >> s
                })
            } else {
                x.checked_mul(1i64.checked_shl(s).filter(|_| s < 63).ok_or_else(overflow)?)
            }
        }
        BinOp::MatMul => return err("unsupported operand type(s) for @: 'int' and 'int'"),
    };
    v.map(Value::Int).ok_or_else(overflow)
}

fn float_binary(op: BinOp, x: f64, y: f64) -> R<Value> {
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y == 0.0 {
                return zero_div("float division by zero");
            }
            x / y
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0.0 {
                return zero_div("float modulo by zero");
            }
            let mut r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r += y;
            }
            if op == BinOp::Mod {
                r
            } else {
                ((x - r) / y).round()
            }
        }
        BinOp::Pow => {
            if x == 0.0 && y < 0.0 {
                return zero_div("0.0 cannot be raised to a negative power");
            }
            if x < 0.0 && y.fract() != 0.0 {
                return super::unsupported("complex results are not supported by the playground");
            }
            x.powf(y)
        }
        _ => return err(format!("unsupported operand type(s) for {}: 'float' and 'float'", op.symbol())),
    }))
}

impl Interp<'_, '_> {
    /// `template % args`: printf-style formatting (`%d`, `%5.2f`, `%s`, `%r`, `%(name)s`, `%%`).
    fn percent_format<'a>(&'a mut self, template: &'a str, args: &'a Value) -> LocalFuture<'a, R<String>> {
        Box::pin(async move {
            let mapping = matches!(args, Value::Dict(_));
            let mut values: Vec<Value> = match args {
                Value::Tuple(t) => t.to_vec(),
                other => vec![other.clone()],
            };
            values.reverse();
            let mut out = String::new();
            let mut chars = template.chars().peekable();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                if chars.peek() == Some(&'%') {
                    chars.next();
                    out.push('%');
                    continue;
                }
                let key = if chars.peek() == Some(&'(') {
                    chars.next();
                    let k: String = chars.by_ref().take_while(|&c| c != ')').collect();
                    Some(k)
                } else {
                    None
                };
                let mut flags = String::new();
                while let Some(&f @ ('-' | '+' | ' ' | '#' | '0')) = chars.peek() {
                    flags.push(f);
                    chars.next();
                }
                let mut width = String::new();
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == '*') {
                    width.push(d);
                    chars.next();
                }
                let mut precision = None;
                if chars.peek() == Some(&'.') {
                    chars.next();
                    let mut p = String::new();
                    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                        p.push(d);
                        chars.next();
                    }
                    precision = Some(p);
                }
                let Some(kind) = chars.next() else {
                    return value_err("incomplete format");
                };
                let value = match &key {
                    Some(k) => {
                        let Value::Dict(d) = args else { return err("format requires a mapping") };
                        let found = d.borrow().get(&Value::str(k)).cloned();
                        found.ok_or_else(|| RtError::key(&Value::str(k)))?
                    }
                    None => match values.pop() {
                        Some(v) => v,
                        None => return err("not enough arguments for format string"),
                    },
                };
                // The same value as the format-spec mini-language spells it.
                let align = if flags.contains('-') { "<" } else { "" };
                let sign = if flags.contains('+') {
                    "+"
                } else if flags.contains(' ') {
                    " "
                } else {
                    ""
                };
                let zero = if flags.contains('0') && !flags.contains('-') { "0" } else { "" };
                let precision =
                    precision.map_or(String::new(), |p| format!(".{}", if p.is_empty() { "0" } else { &p }));
                let text = match kind {
                    's' | 'r' | 'a' => {
                        let text = if kind == 's' { self.py_str(&value).await? } else { self.py_repr(&value).await? };
                        let spec = format!("{}{width}{precision}", if align.is_empty() { ">" } else { align });
                        super::format::format_value(&Value::str(&text), &spec)?
                    }
                    'd' | 'i' | 'u' => {
                        let int = match &value {
                            Value::Float(x) => Value::Int(super::builtins::float_to_int(*x)?),
                            Value::Array(_) => self.to_int(&value)?,
                            Value::Int(_) | Value::Bool(_) => value.clone(),
                            other => {
                                return type_err(format!(
                                    "%{kind} format: a real number is required, not {}",
                                    other.type_name()
                                ))
                            }
                        };
                        super::format::format_value(&int, &format!("{align}{sign}{zero}{width}d"))?
                    }
                    'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'x' | 'X' | 'o' | 'c' => {
                        let v = if matches!(value, Value::Array(_)) { self.to_float(&value)? } else { value.clone() };
                        let precision = if precision.is_empty() && matches!(kind, 'f' | 'F' | 'e' | 'E') {
                            ".6".to_string()
                        } else {
                            precision
                        };
                        let alt = if flags.contains('#') { "#" } else { "" };
                        super::format::format_value(&v, &format!("{align}{sign}{alt}{zero}{width}{precision}{kind}"))?
                    }
                    other => return value_err(format!("unsupported format character '{other}'")),
                };
                out.push_str(&text);
                check_len(out.len())?;
            }
            if !values.is_empty() && !mapping {
                return err("not all arguments converted during string formatting");
            }
            Ok(out)
        })
    }
}
