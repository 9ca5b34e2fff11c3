//! Number formatting as CPython does it: `repr(float)` and the format-spec mini-language of
//! f-strings (`{x:.3f}`, `{name:>8}`, `{n:,d}`).

use super::value::{to_str, Value};
use super::{err, R};
use jaxlite::{Data, Tensor};

/// `repr(x)` for a Python float: the shortest digits that round-trip, positional for
/// exponents in [-4, 16), scientific (`1e-05`, `1.5e+16`) outside.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let (digits, exp) = jaxlite::format::shortest_digits(x);
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let s = jaxlite::format::digits_positional(x.is_sign_negative(), &digits, exp);
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let mant = if rest.is_empty() { first.to_string() } else { format!("{first}.{rest}") };
        format!("{sign}{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
    }
}

/// A parsed format spec: `[[fill]align][sign][#][0][width][,|_][.precision][type]`.
#[derive(Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    kind: Option<char>,
}

fn parse_spec(spec: &str) -> R<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: Option<&char>| matches!(c, Some('<' | '>' | '^' | '='));
    if is_align(chars.get(1)) {
        s.fill = chars.first().copied();
        s.align = chars.get(1).copied();
        i = 2;
    } else if is_align(chars.first()) {
        s.align = chars.first().copied();
        i = 1;
    }
    if let Some(&c @ ('+' | '-' | ' ')) = chars.get(i) {
        s.sign = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'#') {
        s.alternate = true;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.fill.get_or_insert('0');
        s.align.get_or_insert('=');
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>().parse().ok().filter(|&n: &usize| n <= 1000)
    };
    s.width = number(&mut i).unwrap_or(0);
    if let Some(&c @ (',' | '_')) = chars.get(i) {
        s.grouping = Some(c);
        i += 1;
    }
    if chars.get(i) == Some(&'.') {
        i += 1;
        s.precision = Some(number(&mut i).ok_or_else(|| super::RtError::new("Format specifier missing precision"))?);
    }
    if let Some(&c) = chars.get(i) {
        s.kind = Some(c);
        i += 1;
    }
    if i != chars.len() {
        return super::value_err(format!("Invalid format specifier '{spec}'"));
    }
    Ok(s)
}

/// `format(value, spec)`.
pub fn format_value(v: &Value, spec: &str) -> R<String> {
    if spec.is_empty() && matches!(v, Value::Host(_)) {
        // A NumPy scalar formats as its `str` (float32's own digits).
        return Ok(to_str(v));
    }
    if spec.is_empty() {
        // A 0-d array formats as the Python scalar it holds, even with no spec: `f"{x}"` of a
        // float32 scalar shows the float64 digits of its value (3.81416392326355), where
        // `str(x)` shows float32's (3.814164), as NumPy's scalars do.
        return Ok(to_str(&scalar_of_array(v).unwrap_or_else(|| v.clone())));
    }
    let s = parse_spec(spec)?;
    let v = scalar_of_array(v).unwrap_or_else(|| v.clone());
    let body = match (&v, s.kind) {
        (Value::Str(text), None | Some('s')) => {
            let text: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            return Ok(pad(&text, &s, '<'));
        }
        (Value::Int(_) | Value::Bool(_), None | Some('d')) => {
            let i = super::value::as_int(&v).unwrap_or(0);
            if s.precision.is_some() {
                return err("Precision not allowed in integer format specifier");
            }
            signed(i < 0, group(&i.unsigned_abs().to_string(), s.grouping), &s)?
        }
        (Value::Int(_) | Value::Bool(_), Some(kind @ ('x' | 'X' | 'o' | 'b' | 'c'))) => {
            let i = super::value::as_int(&v).unwrap_or(0);
            if s.precision.is_some() {
                return err("Precision not allowed in integer format specifier");
            }
            if kind == 'c' {
                return match u32::try_from(i).ok().and_then(char::from_u32) {
                    Some(c) => Ok(pad(&c.to_string(), &s, '<')),
                    None => super::exceptions::raise(
                        super::objects::Builtin::OverflowError,
                        "%c arg not in range(0x110000)",
                    ),
                };
            }
            let m = i.unsigned_abs();
            let (digits, prefix) = match kind {
                'x' => (format!("{m:x}"), "0x"),
                'X' => (format!("{m:X}"), "0X"),
                'o' => (format!("{m:o}"), "0o"),
                _ => (format!("{m:b}"), "0b"),
            };
            // `_` groups hex, octal and binary digits by four.
            let digits = group_every(&digits, s.grouping, 4);
            signed_with(i < 0, if s.alternate { prefix } else { "" }, digits, &s)?
        }
        (Value::Int(_) | Value::Bool(_) | Value::Float(_), Some(kind @ ('f' | 'F' | 'e' | 'E' | 'g' | 'G' | '%')))
        | (Value::Float(_), Some(kind @ 'n')) => {
            let x = super::value::as_f64(&v).unwrap_or(0.0);
            let text = float_body(x.abs(), kind, s.precision.unwrap_or(6), s.alternate);
            let text = group_float(&text, s.grouping);
            signed(x.is_sign_negative() && !x.is_nan(), text, &s)?
        }
        (Value::Float(x), None) => {
            let text = match s.precision {
                Some(p) => float_body(x.abs(), 'g', p, s.alternate),
                None => float_repr(x.abs()),
            };
            signed(x.is_sign_negative() && !x.is_nan(), group_float(&text, s.grouping), &s)?
        }
        (Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::Float(_), Some(kind)) => {
            return super::value_err(format!("Unknown format code '{kind}' for object of type '{}'", v.type_name()))
        }
        _ => return err(format!("unsupported format string passed to {}.__format__", v.type_name())),
    };
    Ok(body)
}

/// A 0-d concrete array formats as the Python scalar it holds (as `ArrayImpl.__format__`).
fn scalar_of_array(v: &Value) -> Option<Value> {
    let host;
    let a = match v {
        Value::Array(Tensor::Concrete(a)) => a,
        Value::Host(h) => {
            host = h.get();
            &host
        }
        _ => return None,
    };
    if !a.shape().is_empty() {
        return None;
    }
    Some(match &a.data {
        Data::Bool(b) => Value::Bool(*b.first()?),
        Data::I32(i) => Value::Int(*i.first()? as i64),
        Data::I64(i) => Value::Int(*i.first()?),
        _ => Value::Float(a.scalar_f64()?),
    })
}

fn float_body(x: f64, kind: char, precision: usize, alternate: bool) -> String {
    if !x.is_finite() {
        let s = if x.is_nan() { "nan" } else { "inf" };
        return if kind.is_ascii_uppercase() { s.to_uppercase() } else { s.to_string() };
    }
    let p = precision.min(100);
    match kind {
        'f' | 'F' => format!("{x:.p$}"),
        '%' => format!("{:.p$}%", x * 100.0),
        'e' | 'E' => {
            let s = sci(x, p);
            if kind == 'E' {
                s.to_uppercase()
            } else {
                s
            }
        }
        _ => {
            // General format: scientific when the exponent is < -4 or >= the precision,
            // insignificant trailing zeros removed (unless `#`).
            let p = p.max(1);
            let exp = sci(x, p - 1).split_once('e').and_then(|(_, e)| e.parse::<i64>().ok()).unwrap_or(0);
            let s = if -4 <= exp && exp < p as i64 {
                let decimals = (p as i64 - 1 - exp).max(0) as usize;
                format!("{x:.decimals$}")
            } else {
                sci(x, p - 1)
            };
            let s = if alternate { s } else { strip_zeros(&s) };
            if kind == 'G' {
                s.to_uppercase()
            } else {
                s
            }
        }
    }
}

/// `1.500e+03`: Rust's `{:e}` with Python's exponent (sign and at least two digits).
fn sci(x: f64, precision: usize) -> String {
    let s = format!("{x:.precision$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs())
}

fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.split_once('e') {
        Some((m, e)) => (m, format!("e{e}")),
        None => (s, String::new()),
    };
    let mant = if mant.contains('.') { mant.trim_end_matches('0').trim_end_matches('.') } else { mant };
    format!("{mant}{exp}")
}

fn group(digits: &str, sep: Option<char>) -> String {
    group_every(digits, sep, 3)
}

/// `digits` with `sep` between each `n` from the right.
fn group_every(digits: &str, sep: Option<char>, n: usize) -> String {
    let Some(sep) = sep else {
        return digits.to_string();
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(n) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn group_float(text: &str, sep: Option<char>) -> String {
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    format!("{}{}", group(&text[..split], sep), &text[split..])
}

fn signed(negative: bool, body: String, s: &Spec) -> R<String> {
    signed_with(negative, "", body, s)
}

/// The sign, then `prefix` (`0x` for `#x`), then `body`; `=` alignment pads between them.
fn signed_with(negative: bool, prefix: &str, body: String, s: &Spec) -> R<String> {
    let sign = match (negative, s.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    if s.align == Some('=') {
        let fill = s.fill.unwrap_or(' ');
        let n = s.width.saturating_sub(sign.len() + prefix.len() + body.chars().count());
        return Ok(format!("{sign}{prefix}{}{body}", fill.to_string().repeat(n)));
    }
    Ok(pad(&format!("{sign}{prefix}{body}"), s, '>'))
}

fn pad(text: &str, s: &Spec, default_align: char) -> String {
    let n = s.width.saturating_sub(text.chars().count());
    let fill = s.fill.unwrap_or(' ').to_string();
    match s.align.unwrap_or(default_align) {
        '<' => format!("{text}{}", fill.repeat(n)),
        '^' => format!("{}{text}{}", fill.repeat(n / 2), fill.repeat(n - n / 2)),
        _ => format!("{}{text}", fill.repeat(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_cpython() {
        let cases = [
            (0.1, "0.1"),
            (2.0, "2.0"),
            (1e-5, "1e-05"),
            (1.5e16, "1.5e+16"),
            (-0.0, "-0.0"),
            (123456.789, "123456.789"),
            (1e16, "1e+16"),
            (0.0001, "0.0001"),
            // An exact tie between two shortest candidates goes to the even digit.
            (415_957.0 / 131_072.0, "3.1735000610351562"),
            (580_069.0 / 65_536.0, "8.851150512695312"),
            (-2.5e-300, "-2.5e-300"),
            (1e22, "1e+22"),
            (123.0, "123.0"),
        ];
        for (x, s) in cases {
            assert_eq!(float_repr(x), s);
        }
    }

    #[test]
    fn format_specs() {
        let f = |v: Value, spec: &str| format_value(&v, spec).unwrap_or_else(|e| e.message.clone());
        assert_eq!(f(Value::Float(1.23456), ".3f"), "1.235");
        assert_eq!(f(Value::Float(1234.5), ".2e"), "1.23e+03");
        assert_eq!(f(Value::Float(0.000012345), ".3g"), "1.23e-05");
        assert_eq!(f(Value::Float(1234.5), ".3g"), "1.23e+03");
        assert_eq!(f(Value::Float(12.5), ".3g"), "12.5");
        assert_eq!(f(Value::Float(-2.5), ">8.2f"), "   -2.50");
        assert_eq!(f(Value::Int(42), "05d"), "00042");
        assert_eq!(f(Value::Int(1234567), ","), "1,234,567");
        assert_eq!(f(Value::str("ab"), ">4"), "  ab");
        assert_eq!(f(Value::str("ab"), "*^6"), "**ab**");
        assert_eq!(f(Value::Float(0.25), ".1%"), "25.0%");
        assert_eq!(f(Value::Int(3), ".2f"), "3.00");
        assert_eq!(f(Value::str("x"), "d"), "Unknown format code 'd' for object of type 'str'");
    }
}
