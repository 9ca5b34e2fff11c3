//! Shared by the fixture harnesses (`crates/lang/tests/fixtures.rs`,
//! `crates/runtime/tests/fixtures.rs`): loading `tests/jax/fixtures.json` and comparing what a
//! script printed with what JAX printed.
//!
//! Tolerance: printed outputs are compared token by token, ignoring whitespace (NumPy pads
//! columns to the widest element, which depends on the last digit). Non-numeric tokens must be
//! equal; numbers must satisfy `|ours - jax| <= ATOL + RTOL * max(|ours|, |jax|)`, NaN equal to
//! NaN. RTOL = 1e-4 covers a few float32 ulps in transcendental functions (XLA's CPU
//! approximations are not ours) amplified through a short chain of operations; ATOL = 1e-5
//! covers values that cancel to near zero.

use serde::Deserialize;

pub const RTOL: f64 = 1e-4;
pub const ATOL: f64 = 1e-5;
/// At DEFAULT precision a matmul's operands are bf16 (8 significant bits): when our f32
/// intermediate differs from XLA's by one ulp, its bf16 rounding can differ by one bf16 ulp
/// (2^-8 relative), so DEFAULT results are compared at 1e-2 relative, 1e-4 absolute.
pub const RTOL_DEFAULT: f64 = 1e-2;
pub const ATOL_DEFAULT: f64 = 1e-4;

#[derive(Deserialize)]
pub struct Fixture {
    pub name: String,
    pub script: String,
    pub highest: String,
    pub default: String,
    pub error: Option<String>,
    /// What JAX wrote to standard error, object ids as `id=N` (recorded for a few programs).
    #[serde(default)]
    #[allow(dead_code)] // read by lang's fixtures test only
    pub stderr: Option<String>,
}

#[derive(Deserialize)]
struct File {
    fixtures: Vec<Fixture>,
}

#[allow(dead_code)]
pub fn load() -> Vec<Fixture> {
    let text = include_str!("fixtures.json");
    let file: File = serde_json::from_str(text).expect("tests/jax/fixtures.json parses");
    file.fixtures
}

/// `tests/jax/slice_fixtures.json`: programs for a slice of 8 chips (`tests/jax/slices.py`).
#[allow(dead_code)]
pub fn load_slices() -> Vec<Fixture> {
    let text = include_str!("slice_fixtures.json");
    let file: File = serde_json::from_str(text).expect("tests/jax/slice_fixtures.json parses");
    file.fixtures
}

#[derive(Debug, PartialEq)]
enum Token {
    Num(f64),
    Text(char),
}

fn tokens(s: &str) -> Vec<Token> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let starts_number = c.is_ascii_digit()
            || ((c == '-' || c == '.') && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit() || *d == '.'));
        if starts_number {
            let start = i;
            i += 1;
            while i < chars.len() {
                let d = chars[i];
                let exponent_sign = (d == '-' || d == '+') && matches!(chars[i - 1], 'e' | 'E');
                if d.is_ascii_digit() || d == '.' || d == 'e' || d == 'E' || exponent_sign {
                    i += 1;
                } else {
                    break;
                }
            }
            let text: String = chars[start..i].iter().collect();
            match text.trim_end_matches('.').parse::<f64>().or_else(|_| text.parse::<f64>()) {
                Ok(v) => out.push(Token::Num(v)),
                Err(_) => out.extend(text.chars().map(Token::Text)),
            }
            continue;
        }
        for (word, value) in [("nan", f64::NAN), ("-inf", f64::NEG_INFINITY), ("inf", f64::INFINITY)] {
            let w: Vec<char> = word.chars().collect();
            if chars[i..].starts_with(&w) {
                out.push(Token::Num(value));
                i += w.len();
                break;
            }
        }
        if i < chars.len() && !chars[i].is_whitespace() && out.last().is_none_or(|_| true) {
            if let Some(Token::Num(_)) = out.last() {
                if i > 0 && !chars[i - 1].is_ascii_alphanumeric() && chars[i] != 'n' && chars[i] != 'i' {
                    // fallthrough: plain punctuation after a number
                }
            }
            if !(chars[i].is_ascii_alphabetic()
                && i >= 3
                && out.last().is_some_and(|t| matches!(t, Token::Num(v) if v.is_nan() || v.is_infinite())))
            {
                out.push(Token::Text(chars[i]));
            }
            i += 1;
        }
    }
    out
}

/// As `compare`, for a run with JAX's own CPU arithmetic (the reference evaluator): a fixture
/// named `cpu_exact_*` is compared exactly as well. Through the emulator, which computes as its
/// TPU does (its own exp, no fused multiply-adds), those are compared within the tolerance.
#[allow(dead_code)] // the emulator's harnesses use `compare`
pub fn compare_with_cpu_arithmetic(
    fixture: &Fixture,
    ours: &str,
    expected: &str,
    default_precision: bool,
) -> Option<String> {
    if fixture.name.starts_with("cpu_exact_") {
        return (ours != expected).then(|| format!("printed:\n{ours}\nJAX printed (compared exactly):\n{expected}"));
    }
    compare(fixture, ours, expected, default_precision)
}

/// `None` when `ours` matches `expected` within the tolerance (exactly, for a fixture whose
/// name starts with `exact_`), else a description.
pub fn compare(fixture: &Fixture, ours: &str, expected: &str, default_precision: bool) -> Option<String> {
    if fixture.name.starts_with("exact_") {
        return (ours != expected).then(|| format!("printed:\n{ours}\nJAX printed (compared exactly):\n{expected}"));
    }
    let (a, b) = (tokens(ours), tokens(expected));
    let (rtol, atol) = if default_precision { (RTOL_DEFAULT, ATOL_DEFAULT) } else { (RTOL, ATOL) };
    let close =
        |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= atol + rtol * x.abs().max(y.abs());
    let same = a.len() == b.len()
        && a.iter().zip(&b).all(|(p, q)| match (p, q) {
            (Token::Num(x), Token::Num(y)) => close(*x, *y),
            (p, q) => p == q,
        });
    (!same).then(|| format!("printed:\n{ours}\nJAX printed:\n{expected}"))
}
