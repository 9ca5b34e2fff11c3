//! `jnp.finfo` and `jnp.iinfo`: the limits of a dtype, as NumPy (and so JAX) reports them.
//! Model code reads them for masks and guards (`jnp.finfo(x.dtype).min` where attention masks
//! a logit, `eps` in a division), so their numbers must be the dtype's own: float attributes
//! are rank-0 arrays of that dtype (NumPy scalars in JAX, strongly typed), integer limits
//! Python ints.

use super::jax::dtype_arg;
use super::value::Value;
use super::{err, R};
use jaxlite::{Array, DType, Data, Tensor};

/// `jax.numpy` names implemented here.
pub const JNP_DTYPE_INFO: &[&str] = &["finfo", "iinfo"];

/// The dtype `finfo`/`iinfo` describe: given as a dtype, its name, or an array of it.
pub fn info_dtype(name: &str, v: &Value) -> R<DType> {
    let dtype = match v {
        Value::Array(t) => t.aval().dtype,
        other => dtype_arg(other)?,
    };
    match (name, dtype) {
        ("finfo", DType::F32 | DType::BF16) | ("iinfo", DType::I32) => Ok(dtype),
        ("finfo", d) => err(format!("finfo: data type {} not inexact", d.name())),
        (_, d) => super::value_err(format!("iinfo: invalid integer data type {}", d.name())),
    }
}

/// A rank-0 array of `dtype` holding `v` rounded to it.
fn scalar(dtype: DType, v: f32) -> Value {
    Value::Array(Tensor::from(Array::new(vec![], Data::F32(vec![v])).astype(dtype)))
}

/// `finfo(dtype).name` (float32 or bfloat16).
pub fn finfo_attr(dtype: DType, name: &str) -> R<Value> {
    let bf = dtype == DType::BF16;
    // Significand bits after the point, and the most (negative) and least exponent.
    let mant: i32 = if bf { 7 } else { 23 };
    // bfloat16's greatest is float32's with the low 16 bits of the significand cleared.
    let max = if bf { f32::from_bits(0x7f7f_0000) } else { f32::MAX };
    let float = |v: f32| Ok(scalar(dtype, v));
    let int = |v: i64| Ok(Value::Int(v));
    match name {
        "eps" => float(2f32.powi(-mant)),
        "epsneg" => float(2f32.powi(-mant - 1)),
        "max" => float(max),
        "min" => float(-max),
        "tiny" | "smallest_normal" => float(2f32.powi(-126)),
        // The least bit set (2^(−126 − mant), which `powi` would reach through an overflow).
        "smallest_subnormal" => float(f32::from_bits(if bf { 1 << 16 } else { 1 })),
        // 10^-precision, precision the decimal digits the significand holds for sure.
        "resolution" => float(if bf { 0.01 } else { 1e-6 }),
        "precision" => int(if bf { 2 } else { 6 }),
        "bits" => int(if bf { 16 } else { 32 }),
        "machep" => int(-i64::from(mant)),
        "negep" => int(-i64::from(mant) - 1),
        "nmant" => int(i64::from(mant)),
        "nexp" | "iexp" => int(8),
        "minexp" => int(-126),
        "maxexp" => int(128),
        "dtype" => Ok(Value::DType(dtype)),
        _ => super::attr_err(format!("'finfo' object has no attribute '{name}'")),
    }
}

/// `iinfo(int32).name`.
pub fn iinfo_attr(name: &str) -> R<Value> {
    match name {
        "min" => Ok(Value::Int(i64::from(i32::MIN))),
        "max" => Ok(Value::Int(i64::from(i32::MAX))),
        "bits" => Ok(Value::Int(32)),
        "dtype" => Ok(Value::DType(DType::I32)),
        _ => super::attr_err(format!("'iinfo' object has no attribute '{name}'")),
    }
}

/// How NumPy prints a `finfo` or `iinfo` (its repr; `print` shows a longer table in NumPy).
pub fn info_repr(dtype: DType) -> String {
    match dtype {
        DType::F32 => "finfo(resolution=1e-06, min=-3.4028235e+38, max=3.4028235e+38, dtype=float32)".to_string(),
        DType::BF16 => "finfo(resolution=0.0100098, min=-3.38953e+38, max=3.38953e+38, dtype=bfloat16)".to_string(),
        _ => format!("iinfo(min={}, max={}, dtype=int32)", i32::MIN, i32::MAX),
    }
}
