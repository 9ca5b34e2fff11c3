//! Printing arrays as NumPy (and so JAX) prints them with `print(x)`: `str(ndarray)` with
//! NumPy's default print options (precision 8 unless set, line width 75, summarised above 1000 elements).

use crate::array::{Array, Data};
use crate::dtype::DType;

/// The width of NumPy's print lines (`np.get_printoptions()["linewidth"]`).
pub const LINE_WIDTH: usize = 75;
const THRESHOLD: usize = 1000;
const EDGE_ITEMS: usize = 3;

/// `str(x)` for a JAX array.
pub fn format_array(a: &Array) -> String {
    if a.shape().is_empty() {
        return format_scalar(a);
    }
    format_elements(a, " ", "", LINE_WIDTH)
}

/// The bracketed elements of `repr(x)` (what goes inside `Array(...)`): NumPy's formatter
/// with the `, ` separator and continuation lines indented past the `Array(` prefix.
pub fn format_array_repr(a: &Array) -> String {
    format_array_repr_with(a, "Array(")
}

/// `format_array_repr` for a repr that opens with `prefix` (NumPy's `array(`). Lines are one
/// narrower than `str`'s: both reprs pass `array2string` a one-character suffix (JAX's `,`,
/// NumPy's `)`), which NumPy takes off the line width.
pub fn format_array_repr_with(a: &Array, prefix: &str) -> String {
    if a.shape().is_empty() {
        return format_scalar(a);
    }
    format_elements(a, ", ", prefix, LINE_WIDTH - 1)
}

/// NumPy's `array2string` for a non-empty shape.
fn format_elements(a: &Array, separator: &str, prefix: &str, width: usize) -> String {
    // No elements (a shape with a 0): NumPy prints `[]` whatever the rank.
    if a.size() == 0 {
        return "[]".into();
    }
    let summarise = is_summarised(a);
    let shown = shown_indices(a.shape(), summarise);
    let formatter = ElementFormatter::new(a, &shown);
    let mut out = String::new();
    let indent = format!(" {}", " ".repeat(prefix.len()));
    let layout = Layout { separator, summarise };
    recurse(a, &formatter, &mut Vec::new(), &indent, width, &layout, &mut out);
    out
}

/// How elements are laid out: between elements of a row, and whether the array is summarised.
struct Layout<'a> {
    separator: &'a str,
    summarise: bool,
}

/// A 0-d array prints as its element does (`2.0`, `3`, `True`).
fn format_scalar(a: &Array) -> String {
    match &a.data {
        Data::Bool(v) => if v[0] { "True" } else { "False" }.to_string(),
        Data::I32(v) => v[0].to_string(),
        Data::U32(v) => v[0].to_string(),
        Data::Key(v) => format!("{:?}", v[0]),
        Data::BF16(v) => bf16_str(v[0].to_f32()),
        Data::F32(v) => float_repr(v[0]),
        Data::I64(v) => v[0].to_string(),
        Data::F64(v) => float64_repr(v[0]),
    }
}

/// A bfloat16 element as NumPy prints one (ml_dtypes' bfloat16 is no NumPy float, so NumPy
/// falls back to its `str`): C's `%g`, six significant digits, no padding (`0.839844`, `-1`,
/// `123392`, `1.00117e-08`).
pub fn bf16_str(x: f32) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to six digits decides the notation, as %g does.
    let sci = format!("{:.5e}", x as f64);
    let (mantissa, exponent) = sci.split_once('e').expect("Rust's {:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exponent.abs());
    }
    trim(&format!("{:.*}", (5 - exponent) as usize, x as f64))
}

/// The `str` of a NumPy float32 scalar, which is how JAX prints a 0-d array: shortest
/// round-trip digits, positional from 1e-4 (compared as a double) up to 1e6, scientific
/// outside with nothing padded (`1e+06`, `1.234567e+06`, `1e-04`; NumPy 2).
pub fn float_repr(x: f32) -> String {
    scalar_str(x as f64, false)
}

/// The `str` of a NumPy float64 scalar, which is Python's `repr(float)`: the same, with
/// float64's digits and positional up to 1e16.
pub fn float64_repr(x: f64) -> String {
    scalar_str(x, true)
}

fn scalar_str(x: f64, wide: bool) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let positional_below = if wide { 1e16 } else { 1e6 };
    if x == 0.0 || (1e-4..positional_below).contains(&x.abs()) {
        let s = shortest(x, wide);
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        numpy_exponent(&shortest_exp(x, wide))
    }
}

/// Rust's `1.5e-5` as NumPy writes it, `1.5e-05`: the exponent signed, two digits at least.
fn numpy_exponent(rust: &str) -> String {
    let (mant, exp) = rust.split_once('e').unwrap_or((rust, "0"));
    let (sign, digits) = if let Some(d) = exp.strip_prefix('-') { ('-', d) } else { ('+', exp) };
    format!("{mant}e{sign}{digits:0>2}")
}

/// `numpy_exponent` with the mantissa padded to `frac_digits` digits after its point, as
/// array elements print (`1.000e+06`).
fn sci_numpy(rust: &str, frac_digits: usize) -> String {
    let (mant, exp) = rust.split_once('e').unwrap_or((rust, "0"));
    let mut mant = mant.to_string();
    if !mant.contains('.') {
        mant.push('.');
    }
    let have = mant.len() - mant.find('.').map_or(mant.len(), |p| p + 1);
    mant.extend(std::iter::repeat_n('0', frac_digits.saturating_sub(have)));
    numpy_exponent(&format!("{mant}e{exp}"))
}

/// Which indices of each axis are printed (all, or the edges around a `...`).
fn shown_indices(shape: &[usize], summarise: bool) -> Vec<Vec<usize>> {
    shape
        .iter()
        .map(|&n| {
            if summarise && n > 2 * EDGE_ITEMS {
                (0..EDGE_ITEMS).chain(n - EDGE_ITEMS..n).collect()
            } else {
                (0..n).collect()
            }
        })
        .collect()
}

enum FloatMode {
    Positional { pad_left: usize, pad_right: usize },
    Scientific { frac_digits: usize, pad_left: usize },
}

/// Formats every element to one common width, as NumPy's `FloatingFormat` / `IntegerFormat`.
struct ElementFormatter {
    dtype: DType,
    float_mode: FloatMode,
    /// Width of the non-finite strings' field (`pad_left + pad_right + 1`).
    width: usize,
}

/// NumPy's print options that programs set (`np.set_printoptions(precision=4, suppress=True)`),
/// which JAX's printing follows too, as it prints with NumPy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrintOptions {
    /// Digits after the point, at most.
    pub precision: usize,
    /// Never scientific notation for small numbers (they round to 0 at `precision` instead).
    pub suppress: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions { precision: 8, suppress: false }
    }
}

thread_local! {
    static OPTIONS: std::cell::Cell<PrintOptions> = std::cell::Cell::new(PrintOptions::default());
}

/// The print options in force.
pub fn print_options() -> PrintOptions {
    OPTIONS.with(|o| o.get())
}

/// Sets the print options (a program's run starts from the defaults), giving the old ones.
pub fn set_print_options(options: PrintOptions) -> PrintOptions {
    OPTIONS.with(|o| o.replace(options))
}

fn precision() -> usize {
    print_options().precision
}

/// Whether NumPy prints `a` summarised (`...` in place of the middle elements), which NumPy's
/// repr then follows with the shape.
pub fn is_summarised(a: &Array) -> bool {
    a.size() > THRESHOLD
}

/// Shortest positional digits of `x`, at most `precision` after the point, trailing zeros
/// trimmed but the point kept (`1.`, `0.25`).
fn positional(x: f64, wide: bool) -> (String, String) {
    let s = shortest(x.abs(), wide);
    let s = match s.split_once('.') {
        Some((_, frac)) if frac.len() > precision() => {
            let r = format!("{:.*}", precision(), x.abs());
            r.trim_end_matches('0').to_string()
        }
        _ => s,
    };
    let (int, frac) = s.split_once('.').map_or((s.clone(), String::new()), |(i, f)| (i.to_string(), f.to_string()));
    let int = if x.is_sign_negative() { format!("-{int}") } else { int };
    (int, frac)
}

/// Shortest scientific digits of `x` with at most `precision` fractional digits.
fn scientific(x: f64, wide: bool) -> (String, String) {
    let s = shortest_exp(x, wide);
    let (mant, exp) = s.split_once('e').expect("Rust's {:e} always has an exponent");
    let mant = match mant.split_once('.') {
        Some((_, frac)) if frac.len() > precision() => {
            let r = format!("{:.*e}", precision(), x);
            return scientific_parts(&r);
        }
        _ => mant.to_string(),
    };
    scientific_parts(&format!("{mant}e{exp}"))
}

/// The shortest digits that read back as the same float32 (or float64, `wide`).
fn shortest(x: f64, wide: bool) -> String {
    if !x.is_finite() {
        return format!("{}", x as f32);
    }
    let (digits, exponent) = if wide { shortest_digits(x) } else { shortest_digits_f32(x as f32) };
    digits_positional(x.is_sign_negative(), &digits, exponent)
}

/// `shortest` in scientific notation (`1.5e-5`).
fn shortest_exp(x: f64, wide: bool) -> String {
    if !x.is_finite() {
        return format!("{:e}", x as f32);
    }
    let (digits, exponent) = if wide { shortest_digits(x) } else { shortest_digits_f32(x as f32) };
    let sign = if x.is_sign_negative() { "-" } else { "" };
    match digits.split_at(1) {
        (first, "") => format!("{sign}{first}e{exponent}"),
        (first, rest) => format!("{sign}{first}.{rest}e{exponent}"),
    }
}

/// The fewest significant digits that read back as the finite `x`, and the decimal exponent
/// of the first, as CPython's `repr` finds them: where two candidates of that length are
/// equally near `x`, the even one (Rust's shortest formatting takes the upper: it prints
/// 3.17350006103515625 as 3.1735000610351563, CPython as 3.1735000610351562).
pub fn shortest_digits(x: f64) -> (String, i32) {
    nearest_shortest(x.abs())
}

/// `shortest_digits` of a float32, as NumPy's Dragon4 prints one (`1.00390625` is
/// `1.0039062`, where Rust's shortest formatting gives `1.0039063`).
fn shortest_digits_f32(x: f32) -> (String, i32) {
    nearest_shortest(x.abs())
}

fn nearest_shortest<T>(x: T) -> (String, i32)
where
    T: std::fmt::LowerExp + std::str::FromStr + PartialEq,
{
    let shortest = format!("{x:e}");
    let (mantissa, _) = shortest.split_once('e').expect("scientific notation");
    let count = mantissa.chars().filter(char::is_ascii_digit).count();
    // Exact formatting to that many digits rounds a tie to even; it reads back as `x`
    // whenever a candidate of that length does, being at least as near.
    let nearest = format!("{:.*e}", count - 1, x);
    let chosen = if nearest.parse::<T>().is_ok_and(|y| y == x) { nearest } else { shortest };
    let (mantissa, exponent) = chosen.split_once('e').expect("scientific notation");
    (mantissa.replace('.', ""), exponent.parse().expect("an exponent"))
}

/// `digits` (the first at 10^`exponent`) written out positionally, as `{x}` writes a double.
pub fn digits_positional(negative: bool, digits: &str, exponent: i32) -> String {
    let sign = if negative { "-" } else { "" };
    if exponent < 0 {
        return format!("{sign}0.{}{digits}", "0".repeat((-exponent - 1) as usize));
    }
    let whole = exponent as usize + 1;
    if digits.len() <= whole {
        format!("{sign}{digits}{}", "0".repeat(whole - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..whole], &digits[whole..])
    }
}

fn scientific_parts(s: &str) -> (String, String) {
    let (mant, exp) = s.split_once('e').expect("scientific notation");
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        mant.to_string()
    };
    (mant, exp.to_string())
}

impl ElementFormatter {
    fn new(a: &Array, shown: &[Vec<usize>]) -> ElementFormatter {
        let dtype = a.dtype();
        if dtype == DType::BF16 {
            return ElementFormatter {
                dtype,
                float_mode: FloatMode::Positional { pad_left: 0, pad_right: 0 },
                width: 0,
            };
        }
        let values = shown_values(a, shown);
        if !dtype.is_float() {
            // NumPy pads every boolean to the width of "False", even when all are True.
            let width = match dtype {
                DType::Bool => 5,
                _ => values.iter().map(|&v| (v as i64).to_string().len()).max().unwrap_or(0),
            };
            return ElementFormatter { dtype, float_mode: FloatMode::Positional { pad_left: 0, pad_right: 0 }, width };
        }
        let wide = dtype == DType::F64;
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero: Vec<f64> = finite.iter().map(|v| v.abs()).filter(|&v| v != 0.0).collect();
        let exp_format = if nonzero.is_empty() {
            false
        } else {
            let max = nonzero.iter().cloned().fold(0.0f64, f64::max);
            let min = nonzero.iter().cloned().fold(f64::INFINITY, f64::min);
            max >= 1e8 || (!print_options().suppress && (min < 1e-4 || max / min > 1e3))
        };
        let mut float_mode = if finite.is_empty() {
            FloatMode::Positional { pad_left: 0, pad_right: 0 }
        } else if exp_format {
            let parts: Vec<(String, String)> = finite.iter().map(|&v| scientific(v, wide)).collect();
            let frac_digits =
                parts.iter().map(|(m, _)| m.split_once('.').map_or(0, |(_, f)| f.len())).max().unwrap_or(0);
            let pad_left =
                parts.iter().map(|(m, _)| m.split_once('.').map_or(m.len(), |(i, _)| i.len())).max().unwrap_or(1);
            FloatMode::Scientific { frac_digits, pad_left }
        } else {
            let parts: Vec<(String, String)> = finite.iter().map(|&v| positional(v, wide)).collect();
            let pad_left = parts.iter().map(|(i, _)| i.len()).max().unwrap_or(0);
            let pad_right = parts.iter().map(|(_, f)| f.len()).max().unwrap_or(0);
            FloatMode::Positional { pad_left, pad_right }
        };
        let has_nonfinite = finite.len() != values.len();
        let width = match &mut float_mode {
            FloatMode::Positional { pad_left, pad_right } => {
                if has_nonfinite {
                    let neg_inf = values.contains(&f64::NEG_INFINITY) as usize;
                    let offset = *pad_right + 1;
                    *pad_left =
                        (*pad_left).max(3usize.saturating_sub(offset)).max((3 + neg_inf).saturating_sub(offset));
                }
                *pad_left + *pad_right + 1
            }
            FloatMode::Scientific { frac_digits, pad_left } => {
                let exp_size = finite
                    .iter()
                    .map(|&v| scientific(v, wide).1.trim_start_matches('-').len().max(2))
                    .max()
                    .unwrap_or(2);
                *pad_left + *frac_digits + exp_size + 3
            }
        };
        ElementFormatter { dtype, float_mode, width }
    }

    fn format(&self, v: f64) -> String {
        match self.dtype {
            DType::Bool => return format!("{:>w$}", if v != 0.0 { "True" } else { "False" }, w = self.width),
            DType::I32 | DType::U32 | DType::I64 => return format!("{:>w$}", v as i64, w = self.width),
            DType::BF16 => return bf16_str(v as f32),
            _ => {}
        }
        let wide = self.dtype == DType::F64;
        let x = if wide { v } else { v as f32 as f64 };
        if !x.is_finite() {
            let s = if x.is_nan() {
                "nan"
            } else if x > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            return format!("{s:>w$}", w = self.width);
        }
        match self.float_mode {
            FloatMode::Positional { pad_left, pad_right } => {
                let (int, frac) = positional(x, wide);
                format!("{int:>pad_left$}.{frac:<pad_right$}")
            }
            FloatMode::Scientific { frac_digits, pad_left } => {
                let (mant, exp) = scientific(x, wide);
                let digits = mant.split_once('.').map_or(0, |(_, f)| f.len());
                // NumPy prints every element with the widest one's digits, and an element whose
                // shortest form is shorter gets its further digits from its exact binary value
                // (Dragon4's `min_digits`): float32 2.1 is `2.0999999e+00` beside `1.0499684e+05`.
                let s = if digits < frac_digits {
                    numpy_exponent(&format!("{x:.frac_digits$e}"))
                } else {
                    sci_numpy(&format!("{mant}e{exp}"), frac_digits)
                };
                let int_len = s.find('.').unwrap_or(0);
                format!("{}{s}", " ".repeat(pad_left.saturating_sub(int_len)))
            }
        }
    }
}

fn shown_values(a: &Array, shown: &[Vec<usize>]) -> Vec<f64> {
    let all = a.to_f64_vec();
    let strides = crate::eval::strides(a.shape());
    let mut out = Vec::new();
    let mut idx = vec![0usize; shown.len()];
    loop {
        out.push(all[idx.iter().enumerate().map(|(d, &i)| shown[d][i] * strides[d]).sum::<usize>()]);
        let mut d = shown.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shown[d].len() {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// NumPy's `_extendLine`: wrap when the word does not fit, unless wrapping would not help.
fn extend_line(s: &mut String, line: &mut String, word: &str, width: usize, indent: &str) {
    if line.len() + word.len() > width && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        *line = indent.to_string();
    }
    line.push_str(word);
}

/// NumPy's `_formatArray` recursion.
fn recurse(
    a: &Array,
    f: &ElementFormatter,
    index: &mut Vec<usize>,
    indent: &str,
    width: usize,
    layout: &Layout,
    out: &mut String,
) {
    let summarise = layout.summarise;
    let axis = index.len();
    let shape = a.shape();
    let strides = crate::eval::strides(shape);
    let axes_left = shape.len() - axis;
    let n = shape[axis];
    let show_summary = summarise && 2 * EDGE_ITEMS < n;
    let items: Vec<Option<usize>> = if show_summary {
        (0..EDGE_ITEMS).map(Some).chain([None]).chain((n - EDGE_ITEMS..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    };
    let next_indent = format!("{indent} ");
    let next_width = width - 1;
    let mut s = String::new();
    if axes_left == 1 {
        let elem_width = width - 1;
        let all = a.to_f64_vec();
        let mut line = indent.to_string();
        for (k, item) in items.iter().enumerate() {
            let word = match item {
                Some(i) => {
                    let flat: usize = index.iter().enumerate().map(|(d, &j)| j * strides[d]).sum::<usize>() + i;
                    f.format(all[flat])
                }
                None => "...".to_string(),
            };
            extend_line(&mut s, &mut line, &word, elem_width, indent);
            if k + 1 < items.len() {
                line.push_str(layout.separator);
            }
        }
        s.push_str(&line);
    } else {
        let line_sep = format!("{}{}", layout.separator.trim_end(), "\n".repeat(axes_left - 1));
        for (k, item) in items.iter().enumerate() {
            s.push_str(indent);
            match item {
                Some(i) => {
                    index.push(*i);
                    let mut nested = String::new();
                    recurse(a, f, index, &next_indent, next_width, layout, &mut nested);
                    index.pop();
                    s.push_str(&nested);
                }
                None => s.push_str("..."),
            }
            if k + 1 < items.len() {
                s.push_str(&line_sep);
            }
        }
    }
    out.push('[');
    out.push_str(&s[indent.len()..]);
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    fn f32s(shape: &[usize], v: &[f32]) -> String {
        format_array(&Array::from_f32(shape.to_vec(), v.to_vec()))
    }

    #[test]
    fn floats_share_one_width() {
        expect!["[1.  2.5 3. ]"].assert_eq(&f32s(&[3], &[1.0, 2.5, 3.0]));
        expect![[r#"
            [[0.  0.1 0.2]
             [0.3 0.4 0.5]]"#]]
        .assert_eq(&f32s(&[2, 3], &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5]));
        expect!["[-1.7615942  0.5      ]"].assert_eq(&f32s(&[2], &[-1.7615942, 0.5]));
    }

    #[test]
    fn small_and_large_values_switch_to_scientific() {
        expect!["[1.e-05 1.e+00]"].assert_eq(&f32s(&[2], &[1e-5, 1.0]));
        expect!["[1.5e+09 2.0e+00]"].assert_eq(&f32s(&[2], &[1.5e9, 2.0]));
        // Digits beyond an element's shortest form come from its exact value (NumPy's
        // Dragon4 `min_digits`): float32 2.1 is 2.0999999046..., float64 2.1 is 2.1000000000...
        expect!["[1.0500000e+00 2.0999999e+00 1.0499684e+05]"].assert_eq(&f32s(&[3], &[1.05, 2.1, 104996.84]));
        let f64s = Array::new(vec![3], Data::F64(vec![1.05, 2.1, 104996.84]));
        expect!["[1.0500000e+00 2.1000000e+00 1.0499684e+05]"].assert_eq(&format_array(&f64s));
        expect!["[3.3e+00 1.0e+09 7.0e-01]"].assert_eq(&f32s(&[3], &[3.3, 1e9, 0.7]));
    }

    #[test]
    fn bfloat16_prints_as_numpy_prints_it() {
        // print(jnp.array([...], dtype=jnp.bfloat16)) in JAX 0.10.
        let v = [0.0, 0.83984375, -1.0, 1.078125, 1.0011717e-8, 9.999221e9, 123392.0, -0.0, f32::NAN, 0.008_850_098];
        let a = Array::from_f32(vec![v.len()], v.to_vec()).astype(DType::BF16);
        expect!["[0 0.839844 -1 1.07812 1.00117e-08 9.99922e+09 123392 -0 nan 0.0088501]"].assert_eq(&format_array(&a));
        let m = Array::from_f32(vec![2, 2], vec![1.0, 2.5, -3.0, 0.5]).astype(DType::BF16);
        expect![[r#"
            [[1 2.5]
             [-3 0.5]]"#]]
        .assert_eq(&format_array(&m));
    }

    #[test]
    fn non_finite_values() {
        expect!["[ nan  inf -inf   1.]"].assert_eq(&f32s(&[4], &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.0]));
    }

    #[test]
    fn long_rows_wrap_at_75_columns() {
        let v: Vec<f32> = (0..12).map(|i| (i as f64 * 0.123_456_79) as f32).collect();
        expect![[r#"
            [0.         0.12345679 0.24691358 0.37037036 0.49382716 0.61728394
             0.7407407  0.86419755 0.9876543  1.1111112  1.2345679  1.3580247 ]"#]]
        .assert_eq(&f32s(&[12], &v));
    }

    #[test]
    fn big_arrays_are_summarised() {
        let v: Vec<f32> = (0..2000).map(|i| i as f32).collect();
        expect!["[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03]"].assert_eq(&f32s(&[2000], &v));
    }

    #[test]
    fn ints_bools_and_scalars() {
        expect!["[ 1 -2 30]"].assert_eq(&format_array(&Array::new(vec![3], Data::I32(vec![1, -2, 30]))));
        expect!["[ True  True]"].assert_eq(&format_array(&Array::new(vec![2], Data::Bool(vec![true, true]))));
        expect!["[ True False]"].assert_eq(&format_array(&Array::new(vec![2], Data::Bool(vec![true, false]))));
        expect!["2.0"].assert_eq(&f32s(&[], &[2.0]));
        expect!["0.1"].assert_eq(&f32s(&[], &[0.1]));
        // NumPy 2's float32 str: scientific from 1e6 and below 1e-4, unpadded.
        expect!["999999.0"].assert_eq(&f32s(&[], &[999999.0]));
        expect!["1e+06"].assert_eq(&f32s(&[], &[1e6]));
        expect!["-1.234567e+06"].assert_eq(&f32s(&[], &[-1234567.0]));
        expect!["4.9999237e+09"].assert_eq(&f32s(&[], &[4999923700.0]));
        expect!["1e-04"].assert_eq(&f32s(&[], &[1e-4]));
        expect!["0.000123"].assert_eq(&f32s(&[], &[0.000123]));
        expect!["3e+38"].assert_eq(&f32s(&[], &[3e38]));
    }

    #[test]
    fn empty_arrays_print_as_empty_brackets() {
        for shape in [&[0][..], &[2, 0], &[0, 3, 1]] {
            assert_eq!(f32s(shape, &[]), "[]", "shape {shape:?}");
        }
    }
}
