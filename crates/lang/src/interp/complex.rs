//! Python's `complex` numbers, as CPython computes and prints them: `2j` literals,
//! `complex(re, im)`, arithmetic with ints and floats, `abs`, `.real`, `.imag`,
//! `.conjugate()`, equality and hashing. Arrays of complex numbers are not supported (the
//! emulated machine has no complex type); a complex number reaching `jax.numpy` says so.

use super::exceptions::{raise, type_err, RtError, R};
use super::format::float_repr;
use super::objects::Builtin;
use super::value::Value;
use crate::ast::BinOp;

/// The complex value of a Python number (`None` for anything else).
pub(super) fn as_complex(v: &Value) -> Option<(f64, f64)> {
    match v {
        Value::Complex(re, im) => Some((*re, *im)),
        Value::Bool(b) => Some((f64::from(u8::from(*b)), 0.0)),
        Value::Int(i) => Some((*i as f64, 0.0)),
        Value::Float(x) => Some((*x, 0.0)),
        _ => None,
    }
}

/// `repr(z)`: `2j` when the real part is +0, else `(1+2j)`, each part as `repr(float)` without
/// a trailing `.0`.
pub(super) fn repr(re: f64, im: f64) -> String {
    let part = |x: f64, signed: bool| {
        let text = float_repr(x);
        let text = text.strip_suffix(".0").map(str::to_string).unwrap_or(text);
        if signed && !text.starts_with('-') {
            format!("+{text}")
        } else {
            text
        }
    };
    if re == 0.0 && re.is_sign_positive() {
        format!("{}j", part(im, false))
    } else {
        format!("({}{}j)", part(re, false), part(im, true))
    }
}

/// `a op b` where either is complex and both are numbers.
pub(super) fn binary(op: BinOp, a: (f64, f64), b: (f64, f64), names: (&str, &str)) -> R<Value> {
    let (re, im) = match op {
        BinOp::Add => (a.0 + b.0, a.1 + b.1),
        BinOp::Sub => (a.0 - b.0, a.1 - b.1),
        BinOp::Mul => (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0),
        BinOp::Div => divide(a, b)?,
        BinOp::Pow => power(a, b)?,
        _ => {
            return type_err(format!(
                "unsupported operand type(s) for {}: '{}' and '{}'",
                op.symbol(),
                names.0,
                names.1
            ))
        }
    };
    Ok(Value::Complex(re, im))
}

/// CPython's `_Py_c_quot`: Smith's algorithm, scaled by the larger part of the divisor.
fn divide(a: (f64, f64), b: (f64, f64)) -> R<(f64, f64)> {
    let (abs_re, abs_im) = (b.0.abs(), b.1.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return Err(zero_division());
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Ok(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_im >= abs_re {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Ok(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        // A NaN in the divisor.
        Ok((f64::NAN, f64::NAN))
    }
}

fn zero_division() -> RtError {
    RtError::of(Builtin::ZeroDivisionError, "complex division by zero")
}

/// CPython's `complex_pow`: small integral exponents by repeated squaring (`c_powi`), others
/// through the polar form (`_Py_c_pow`).
fn power(a: (f64, f64), b: (f64, f64)) -> R<(f64, f64)> {
    if b == (0.0, 0.0) {
        return Ok((1.0, 0.0));
    }
    if a == (0.0, 0.0) {
        if b.1 != 0.0 || b.0 < 0.0 {
            return raise(Builtin::ZeroDivisionError, "0.0 to a negative or complex power");
        }
        return Ok((0.0, 0.0));
    }
    if b.1 == 0.0 && b.0 == b.0.trunc() && b.0.abs() <= 100.0 {
        let n = b.0 as i64;
        return if n >= 0 {
            Ok(power_unsigned(a, n as u64))
        } else {
            divide((1.0, 0.0), power_unsigned(a, n.unsigned_abs()))
        };
    }
    let modulus = a.0.hypot(a.1);
    let mut length = modulus.powf(b.0);
    let angle = a.1.atan2(a.0);
    let mut phase = angle * b.0;
    if b.1 != 0.0 {
        length /= (angle * b.1).exp();
        phase += b.1 * modulus.ln();
    }
    Ok((length * phase.cos(), length * phase.sin()))
}

fn power_unsigned(x: (f64, f64), mut n: u64) -> (f64, f64) {
    let multiply = |p: (f64, f64), q: (f64, f64)| (p.0 * q.0 - p.1 * q.1, p.0 * q.1 + p.1 * q.0);
    let (mut result, mut base) = ((1.0, 0.0), x);
    while n > 0 {
        if n & 1 == 1 {
            result = multiply(result, base);
        }
        base = multiply(base, base);
        n >>= 1;
    }
    result
}
