//! `jnp.finfo` and `jnp.iinfo`: the limits of a dtype, as NumPy (and so JAX) reports them.
//! Model code reads them for masks and guards (`jnp.finfo(x.dtype).min` where attention masks
//! a logit, `eps` in a division), so their numbers must be the dtype's own: float attributes
//! are rank-0 arrays of that dtype (NumPy scalars in JAX, strongly typed), integer limits
//! Python ints. NumPy's float64 has them on the host.
//!
//! Also `result_type` and `promote_types`: the dtype an operation on the given values would
//! have, by JAX's promotion on the device and NumPy's on the host.

use super::jax::dtype_arg;
use super::value::Value;
use super::{err, R};
use jaxlite::{Array, DType, Data, Tensor};

/// `jax.numpy` names implemented here.
pub const JNP_DTYPE_INFO: &[&str] = &["finfo", "iinfo"];

/// `jax.numpy` names implemented here that promote dtypes.
pub const JNP_PROMOTION: &[&str] = &["result_type", "promote_types"];

/// A value's dtype and whether it is weak (a Python scalar defers to an array's dtype).
fn typed(ctx: &jaxlite::Context, v: &Value) -> R<(DType, bool)> {
    Ok(match v {
        Value::Array(t) => (t.aval().dtype, t.aval().weak_type),
        Value::Host(h) => (h.dtype(), false),
        Value::Bool(_) => (DType::Bool, true),
        Value::Int(_) => (ctx.default_int(), true),
        Value::Float(_) => (ctx.default_float(), true),
        other => (dtype_arg(other)?, false),
    })
}

/// `result_type(*values)` (arrays, scalars and dtypes) and `promote_types(a, b)` (dtypes).
pub fn promotion(ctx: &jaxlite::Context, name: &str, args: &[Value]) -> R<Value> {
    if name == "promote_types" && args.len() != 2 {
        return super::type_err(format!("promote_types() takes 2 positional arguments but {} were given", args.len()));
    }
    let mut typed_args = args.iter().map(|v| typed(ctx, v));
    let Some(first) = typed_args.next() else {
        return super::value_err("at least one array or dtype is required");
    };
    let (mut dtype, mut weak) = first?;
    for next in typed_args {
        let (d, w) = next?;
        (dtype, weak) = if ctx.on_host() {
            jaxlite::dtype::promote_numpy(dtype, weak, d, w)
        } else {
            jaxlite::dtype::promote(dtype, weak, d, w)
        };
    }
    Ok(Value::DType(dtype))
}

/// The dtype `finfo`/`iinfo` describe: given as a dtype, its name, or an array of it.
pub fn info_dtype(name: &str, v: &Value) -> R<DType> {
    let dtype = match v {
        Value::Array(t) => t.aval().dtype,
        other => dtype_arg(other)?,
    };
    match (name, dtype) {
        ("finfo", DType::F32 | DType::BF16 | DType::F64) | ("iinfo", DType::I32) => Ok(dtype),
        ("finfo", d) => err(format!("finfo: data type {} not inexact", d.name())),
        (_, d) => super::value_err(format!("iinfo: invalid integer data type {}", d.name())),
    }
}

/// `v` rounded to `dtype`: a NumPy float32 scalar, as NumPy's `finfo` (which `jnp.finfo` is)
/// gives; a rank-0 bfloat16 array, NumPy's scalars being only its own types here.
fn scalar(dtype: DType, v: f32) -> Value {
    let a = Array::new(vec![], Data::F32(vec![v])).astype(dtype);
    match dtype {
        DType::F32 => super::host::rehost(Value::array(a), true),
        _ => Value::Array(Tensor::from(a)),
    }
}

/// `finfo(dtype).name` (float32, bfloat16 or, on the host, float64).
pub fn finfo_attr(dtype: DType, name: &str) -> R<Value> {
    if dtype == DType::F64 {
        return finfo64_attr(name);
    }
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

/// `finfo(np.float64).name`: NumPy scalars.
fn finfo64_attr(name: &str) -> R<Value> {
    let float = |v: f64| Ok(super::host::rehost(Value::array(Array::new(vec![], Data::F64(vec![v]))), true));
    let int = |v: i64| Ok(Value::Int(v));
    match name {
        "eps" => float(f64::EPSILON),
        "epsneg" => float(f64::EPSILON / 2.0),
        "max" => float(f64::MAX),
        "min" => float(f64::MIN),
        "tiny" | "smallest_normal" => float(f64::MIN_POSITIVE),
        "smallest_subnormal" => float(f64::from_bits(1)),
        "resolution" => float(1e-15),
        "precision" => int(15),
        "bits" => int(64),
        "machep" => int(-52),
        "negep" => int(-53),
        "nmant" => int(52),
        "nexp" | "iexp" => int(11),
        "minexp" => int(-1022),
        "maxexp" => int(1024),
        "dtype" => Ok(Value::DType(DType::F64)),
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
        DType::F64 => {
            "finfo(resolution=1e-15, min=-1.7976931348623157e+308, max=1.7976931348623157e+308, dtype=float64)"
                .to_string()
        }
        _ => format!("iinfo(min={}, max={}, dtype=int32)", i32::MIN, i32::MAX),
    }
}

/// NumPy's abstract scalar classes (`jnp.integer` is `np.integer`), which `issubdtype` and
/// `isinstance` test dtypes against; no array has one as its dtype.
pub const JNP_ABSTRACT_DTYPES: &[&str] =
    &["generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating"];

/// `jax.numpy` names implemented here that test dtypes.
pub const JNP_DTYPE_TESTS: &[&str] = &["issubdtype"];

/// The abstract classes a class is under, itself included: NumPy's hierarchy.
fn abstract_ancestors(name: &str) -> &'static [&'static str] {
    match name {
        "generic" => &["generic"],
        "number" => &["generic", "number"],
        "integer" => &["generic", "number", "integer"],
        "signedinteger" => &["generic", "number", "integer", "signedinteger"],
        "unsignedinteger" => &["generic", "number", "integer", "unsignedinteger"],
        "inexact" => &["generic", "number", "inexact"],
        "floating" => &["generic", "number", "inexact", "floating"],
        "complexfloating" => &["generic", "number", "inexact", "complexfloating"],
        _ => &[],
    }
}

/// The abstract classes a concrete dtype is under. A typed key is no NumPy scalar at all.
fn dtype_ancestors(dtype: DType) -> &'static [&'static str] {
    match dtype {
        DType::Bool => &["generic"],
        DType::U32 => abstract_ancestors("unsignedinteger"),
        DType::I32 | DType::I64 => abstract_ancestors("signedinteger"),
        DType::BF16 | DType::F32 | DType::F64 => abstract_ancestors("floating"),
        DType::Key => &[],
    }
}

/// The abstract class a value names, if it names one.
fn abstract_name(v: &Value) -> Option<&'static str> {
    match v {
        Value::Native(n) => match &**n {
            super::value::Native::Jnp(name) | super::value::Native::Np(name) => {
                JNP_ABSTRACT_DTYPES.iter().find(|&&a| a == *name).copied()
            }
            _ => None,
        },
        _ => None,
    }
}

/// A class or dtype for `issubdtype`: an abstract class, or a concrete dtype. Python's `float`
/// and `int` are NumPy's float64 and int64 there, as `np.dtype(float)` makes them, on the
/// device too.
enum DTypeClass {
    Abstract(&'static str),
    Concrete(DType),
}

fn dtype_class(v: &Value) -> R<DTypeClass> {
    if let Some(name) = abstract_name(v) {
        return Ok(DTypeClass::Abstract(name));
    }
    Ok(DTypeClass::Concrete(match v {
        Value::Class(c) => match c.builtin {
            Some(super::objects::Builtin::Float) => DType::F64,
            Some(super::objects::Builtin::Int) => DType::I64,
            _ => dtype_arg(v)?,
        },
        Value::Array(t) => t.aval().dtype,
        Value::Host(h) => h.dtype(),
        other => dtype_arg(other)?,
    }))
}

/// `issubdtype(arg1, arg2)`: whether the first dtype (or class) is the second or under it.
pub fn issubdtype(args: &[Value]) -> R<Value> {
    let [a, b] = args else {
        return super::type_err(format!("issubdtype() takes 2 positional arguments but {} were given", args.len()));
    };
    let under = match (dtype_class(a)?, dtype_class(b)?) {
        (DTypeClass::Abstract(a), DTypeClass::Abstract(b)) => abstract_ancestors(a).contains(&b),
        (DTypeClass::Concrete(a), DTypeClass::Abstract(b)) => dtype_ancestors(a).contains(&b),
        (DTypeClass::Abstract(_), DTypeClass::Concrete(_)) => false,
        (DTypeClass::Concrete(a), DTypeClass::Concrete(b)) => a == b,
    };
    Ok(Value::Bool(under))
}

/// `isinstance(x, cls)` for NumPy's scalar classes, abstract or concrete: only NumPy scalars
/// are instances (a JAX array is not, as in JAX).
pub fn is_numpy_scalar_of(v: &Value, cls: &Value) -> R<bool> {
    let Value::Host(h) = v else { return Ok(false) };
    if !h.scalar {
        return Ok(false);
    }
    Ok(match dtype_class(cls)? {
        DTypeClass::Abstract(name) => dtype_ancestors(h.dtype()).contains(&name),
        DTypeClass::Concrete(d) => h.dtype() == d,
    })
}
