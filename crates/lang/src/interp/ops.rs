//! Operators on Python values: int arithmetic is checked (errors, never overflow panics),
//! floats follow IEEE and Python's floor-division rules, and anything involving an array goes
//! to the jax bindings.

use super::value::{as_f64, as_int, py_eq, Value};
use super::{err, Interp, R};
use crate::ast::{BinOp, CmpOp, UnaryOp};
use jaxlite::LocalFuture;
use std::cmp::Ordering;

/// The longest list or string an operator may build, so `[0] * 10**10` is an error rather
/// than an out-of-memory abort.
const MAX_SEQUENCE: usize = 10_000_000;

fn overflow() -> super::RtError {
    super::RtError::new("integer overflow (the playground's ints are 64-bit)")
}

impl Interp<'_, '_> {
    pub(super) fn binary<'a>(&'a mut self, op: BinOp, a: Value, b: Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if matches!(a, Value::Array(_)) || matches!(b, Value::Array(_)) {
                return self.array_binary(op, &a, &b).await;
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
                (BinOp::Mod, Value::Str(_), _) => {
                    err("%-formatting of strings is not supported by the playground; use an f-string")
                }
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
                (_, Value::Array(_)) => self.array_unary(op, &v).await,
                (UnaryOp::Neg, Value::Float(x)) => Ok(Value::Float(-x)),
                (UnaryOp::Pos, Value::Float(x)) => Ok(Value::Float(*x)),
                (UnaryOp::Neg, _) if as_int(&v).is_some() => {
                    Ok(Value::Int(as_int(&v).unwrap_or(0).checked_neg().ok_or_else(overflow)?))
                }
                (UnaryOp::Pos, _) if as_int(&v).is_some() => Ok(Value::Int(as_int(&v).unwrap_or(0))),
                (UnaryOp::Invert, _) if as_int(&v).is_some() => Ok(Value::Int(!as_int(&v).unwrap_or(0))),
                _ => err(format!("bad operand type for unary {}: '{}'", op.symbol(), v.type_name())),
            }
        })
    }

    pub(super) fn compare<'a>(&'a mut self, op: CmpOp, a: &'a Value, b: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let is_array = |v: &Value| matches!(v, Value::Array(_));
            match op {
                CmpOp::Is => return Ok(Value::Bool(identical(a, b))),
                CmpOp::IsNot => return Ok(Value::Bool(!identical(a, b))),
                CmpOp::In | CmpOp::NotIn => {
                    let found = self.contains(b, a)?;
                    return Ok(Value::Bool(found == (op == CmpOp::In)));
                }
                _ => {}
            }
            if is_array(a) || is_array(b) {
                return self.array_compare(op, a, b).await;
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

    fn contains(&self, container: &Value, item: &Value) -> R<bool> {
        Ok(match container {
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
        (Value::List(_) | Value::Dict(_) | Value::Function(_) | Value::Native(_) | Value::Array(_), _) => py_eq(a, b),
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
        return err("maximum recursion depth exceeded in comparison");
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
        return err(format!("sequence too long ({n} items; the playground allows {MAX_SEQUENCE})"));
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
                return err("ZeroDivisionError: division by zero");
            }
            return Ok(Value::Float(x as f64 / y as f64));
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0 {
                return err("ZeroDivisionError: integer division or modulo by zero");
            }
            let (q, r) = (x.checked_div_euclid(y).ok_or_else(overflow)?, x.rem_euclid(y));
            // Python rounds the quotient toward negative infinity, so the remainder takes the
            // divisor's sign; Euclidean division agrees when the divisor is positive.
            let (q, r) = if y < 0 && r != 0 { (q + 1, r + y) } else { (q, r) };
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
                return err("negative shift count");
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
                return err("ZeroDivisionError: float division by zero");
            }
            x / y
        }
        BinOp::FloorDiv | BinOp::Mod => {
            if y == 0.0 {
                return err("ZeroDivisionError: float modulo by zero");
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
                return err("ZeroDivisionError: 0.0 cannot be raised to a negative power");
            }
            if x < 0.0 && y.fract() != 0.0 {
                return err("complex results are not supported by the playground");
            }
            x.powf(y)
        }
        _ => return err(format!("unsupported operand type(s) for {}: 'float' and 'float'", op.symbol())),
    }))
}
