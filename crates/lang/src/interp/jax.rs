//! The `jax`, `jax.numpy` and `jax.nn` modules: Python names bound to `jaxlite::numpy`, array
//! properties and methods, and `jax.jit` / `jax.make_jaxpr`, which trace Python functions
//! into Jaxprs.

use super::builtins::{arity, float_to_int, no_more_kwargs, take_kwarg};
use super::tracer_errors::TracedFor;
use super::value::{aval_text, check_hashable, repr, Jitted, ModuleId, Native, Value};
use super::{err, unsupported, Interp, RtError, R};
use crate::ast::{BinOp, CmpOp, UnaryOp};
use crate::jnp_extra::{self, IndexItem};
use jaxlite::numpy as jnp;
use jaxlite::LocalFuture;
use jaxlite::{
    Array, Aval, BinaryOp, ClosedJaxpr, CompareOp, DType, Data, Jaxpr, Precision, Tensor, UnaryOp as JUnary,
};
use std::rc::Rc;

/// The most elements an array created by a script may have: large enough for any
/// demonstration, small enough that a typo cannot exhaust a browser tab's memory.
pub(super) const MAX_ELEMENTS: usize = 1 << 24;

/// The most elements an array type without values may have: past 2^40 no chip's HBM holds it;
/// in wasm32 (32-bit sizes) as many as keep its size in bytes countable.
const MAX_ABSTRACT_ELEMENTS: usize = if usize::BITS >= 64 { 1 << 40 } else { usize::MAX / 8 };

const JNP_FUNCTIONS: &[&str] = &[
    "array",
    "asarray",
    "zeros",
    "ones",
    "full",
    "zeros_like",
    "ones_like",
    "arange",
    "float32",
    "int32",
    "bfloat16",
    "bool_",
    // JAX's 64-bit scalar types: without x64 they make 32-bit arrays (with JAX's warning).
    "float64",
    "int64",
    "dtype",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "abs",
    "negative",
    "square",
    "maximum",
    "minimum",
    "matmul",
    "dot",
    "reshape",
    "transpose",
    "sum",
    "max",
    "mean",
    "add",
    "multiply",
    "subtract",
    "divide",
];

/// `jnp` dtypes the playground does not have.
const UNSUPPORTED_DTYPES: &[&str] =
    &["float16", "float64", "int8", "int16", "int64", "uint8", "uint16", "uint32", "uint64", "complex64", "complex128"];

/// `jax.tree_util.tree_X`, also `jax.tree.X`.
const TREE_FUNCTIONS: &[&str] =
    &["tree_map", "tree_leaves", "tree_flatten", "tree_unflatten", "tree_structure", "tree_reduce", "tree_all"];

/// `jax.tree_util`'s registrations of the script's classes as nodes (`pytrees.rs`).
const REGISTRATIONS: &[&str] = &[
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_dataclass",
    "register_static",
];

const JAX_FUNCTIONS: &[&str] = &[
    "jit",
    "pmap",
    "pure_callback",
    "checkpoint",
    "remat",
    "custom_jvp",
    "custom_vjp",
    "make_jaxpr",
    "Array",
    "default_matmul_precision",
    "block_until_ready",
    "effects_barrier",
    "new_ref",
    "freeze",
    "eval_shape",
    "linearize",
    "ShapeDtypeStruct",
    "grad",
    "value_and_grad",
    "jvp",
    "vjp",
    "vmap",
    "jacfwd",
    "jacrev",
    "hessian",
];

/// `preferred_element_type=` of a dot (matmul, dot, einsum, tensordot, conv): None or the
/// operands' own dtype computes the dot as it is (`false`); float32 with bfloat16 operands,
/// mixed precision's bf16 inputs with float32 sums, is `true`: a dot reads the bf16 operands as
/// they are with float32 sums left unrounded (one MXU pass gives the exact products, a bfloat16
/// value being its own bf16 part). Any other dtype is refused.
pub(super) fn check_preferred_element_type(name: &str, v: Option<Value>, operands: &[&Tensor]) -> R<bool> {
    let wanted = match v {
        None | Some(Value::None) => return Ok(false),
        Some(v) => dtype_arg(&v)?,
    };
    let mut result: Option<(DType, bool)> = None;
    for t in operands {
        let a = t.aval();
        result = Some(match result {
            None => (a.dtype, a.weak_type),
            Some((d, w)) => jaxlite::dtype::promote(d, w, a.dtype, a.weak_type),
        });
    }
    match result {
        Some((dtype, _)) if dtype == wanted => Ok(false),
        Some((DType::BF16, _)) if wanted == DType::F32 => Ok(true),
        Some((dtype, _)) => unsupported(format!(
            "{name}: preferred_element_type={} with {} operands is not supported by the playground yet (only their own dtype, {}{})",
            wanted.name(),
            dtype.name(),
            dtype.name(),
            if dtype == DType::BF16 { ", or float32" } else { "" }
        )),
        None => Ok(false),
    }
}

impl Interp<'_, '_> {
    /// `lax.dot_general`'s `((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))`, each
    /// a sequence of axes or one axis. Whether the axes fit the operands is the shape rule's.
    pub(super) fn dot_dimension_numbers(&self, v: &Value) -> R<jaxlite::DotDims> {
        let malformed = || {
            RtError::new(format!(
                "dot_general: dimension_numbers must be ((lhs_contracting_dims, rhs_contracting_dims), (lhs_batch_dims, rhs_batch_dims)), got {}",
                repr(v)
            ))
        };
        let pair = |v: &Value| -> R<[Value; 2]> {
            let items = self.iterate(v).map_err(|_| malformed())?;
            <[Value; 2]>::try_from(items).map_err(|_| malformed())
        };
        let axes = |v: &Value| -> R<Vec<usize>> {
            let items = match v {
                Value::Int(_) => vec![v.clone()],
                other => self.iterate(other).map_err(|_| malformed())?,
            };
            items
                .iter()
                .map(|d| match super::as_int(d) {
                    Some(d) if d >= 0 => Ok(d as usize),
                    Some(_) => {
                        err(format!("dot_general requires dimension numbers to be nonnegative, got {}", repr(v)))
                    }
                    None => Err(malformed()),
                })
                .collect()
        };
        let [contracting, batch] = pair(v)?;
        let [lc, rc] = pair(&contracting)?;
        let [lb, rb] = pair(&batch)?;
        Ok(jaxlite::DotDims {
            lhs_contracting: axes(&lc)?,
            rhs_contracting: axes(&rc)?,
            lhs_batch: axes(&lb)?,
            rhs_batch: axes(&rb)?,
        })
    }

    /// The operands of a convolution with `preferred_element_type=` (see
    /// [`check_preferred_element_type`]): widened to float32 when it asks for float32 sums of
    /// bfloat16 operands, as they are otherwise. (A dot reads them as they are, with float32
    /// sums: [`preferred_sums`].)
    pub(super) fn preferred_operands<'a>(
        &'a mut self,
        name: &'a str,
        preferred: Option<Value>,
        operands: Vec<Tensor>,
    ) -> LocalFuture<'a, R<Vec<Tensor>>> {
        Box::pin(async move {
            let refs: Vec<&Tensor> = operands.iter().collect();
            if !check_preferred_element_type(name, preferred, &refs)? {
                return Ok(operands);
            }
            let mut wide = Vec::new();
            for t in &operands {
                wide.push(jnp::astype(self.ctx, t, DType::F32).await?);
            }
            Ok(wide)
        })
    }
}

/// The sums' type a dot's `preferred_element_type=` asks for beyond its operands' own: float32
/// for bfloat16 operands (mixed precision: one `dot_general` reading them as they are, as JAX
/// stages it), else `None` (see [`check_preferred_element_type`]).
pub(super) fn preferred_sums(name: &str, preferred: Option<Value>, operands: &[&Tensor]) -> R<Option<DType>> {
    Ok(check_preferred_element_type(name, preferred, operands)?.then_some(DType::F32))
}

/// Array methods that are the `jnp` function of the same name with the array first.
const ARRAY_METHODS_OF_JNP: &[&str] = &[
    "min", "squeeze", "argmax", "argmin", "var", "std", "cumsum", "clip", "round", "swapaxes", "dot", "take",
    "flatten", "ravel", "prod", "sort", "argsort", "repeat", "any", "all", "diagonal", "trace", "nonzero",
];

const LAX_FUNCTIONS: &[&str] = &[
    "scan",
    "dot_general",
    "conv_general_dilated",
    "conv_with_general_padding",
    "conv",
    "stop_gradient",
    "integer_pow",
    "reduce_precision",
    "cumsum",
    "rsqrt",
    "erf",
    "select",
    "fori_loop",
    "while_loop",
    "switch",
    "cond",
    "exp",
    "log",
    "tanh",
    "sin",
    "cos",
    "sqrt",
    "abs",
    "neg",
    "sign",
    "logistic",
    "max",
    "min",
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "rem",
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
    "convert_element_type",
    "clamp",
];

const NN_FUNCTIONS: &[&str] = &[
    "relu",
    "sigmoid",
    "gelu",
    "softplus",
    "silu",
    "swish",
    "softmax",
    "log_softmax",
    "logsumexp",
    "one_hot",
    "dot_product_attention",
];

pub fn import_module(name: &str) -> R<ModuleId> {
    Ok(match name {
        "jax" => ModuleId::Jax,
        "jax.numpy" => ModuleId::Numpy,
        "jax.nn" => ModuleId::Nn,
        "jax.random" => ModuleId::Random,
        "jax.lax" => ModuleId::Lax,
        "jax.tree_util" => ModuleId::TreeUtil,
        "jax.tree" => ModuleId::Tree,
        "jax.scipy" => ModuleId::Scipy,
        "jax.nn.initializers" => ModuleId::Initializers,
        "jax.scipy.special" => ModuleId::ScipySpecial,
        "jax.experimental" => ModuleId::Experimental,
        "math" => ModuleId::Math,
        "functools" => ModuleId::Functools,
        "numpy" => ModuleId::HostNumpy,
        "numpy.random" => ModuleId::NpRandom,
        "numpy.linalg" => ModuleId::NpLinalg,
        "numpy.testing" => ModuleId::NpTesting,
        "jax.errors" => ModuleId::Errors,
        // `jax.config` is an object, not a module, since JAX 0.4.25: `import jax.config` and
        // `from jax.config import config` fail as they do there.
        "jax.config" => {
            return super::exceptions::raise(
                super::objects::Builtin::ModuleNotFoundError,
                "No module named 'jax.config'".to_string(),
            )
        }
        _ if name.starts_with("jax.") => {
            return super::unsupported(format!("{name} is not supported by the playground yet"))
        }
        _ => {
            return super::exceptions::raise(
                super::objects::Builtin::ModuleNotFoundError,
                format!("No module named '{name}'"),
            )
        }
    })
}

fn find(names: &'static [&'static str], name: &str) -> Option<&'static str> {
    names.iter().find(|&&n| n == name).copied()
}

/// The function a `jax.numpy` alias names: NumPy 2's array-API spellings (`acos`, `concat`,
/// `permute_dims`, `pow`) and NumPy's older ones (`absolute`, `amax`, `around`), which JAX
/// binds to the same functions.
fn jnp_alias(name: &str) -> &str {
    match name {
        "absolute" => "abs",
        "acos" => "arccos",
        "acosh" => "arccosh",
        "asin" => "arcsin",
        "asinh" => "arcsinh",
        "atan" => "arctan",
        "atanh" => "arctanh",
        "atan2" => "arctan2",
        "amax" => "max",
        "amin" => "min",
        "around" => "round",
        "concat" => "concatenate",
        "permute_dims" => "transpose",
        "pow" => "power",
        "true_divide" => "divide",
        other => other,
    }
}

pub fn module_attr(m: ModuleId, name: &str) -> R<Value> {
    // A real JAX name the playground lacks, or one JAX does not have either.
    let missing = |prefix: &str| match pylib::in_real_module(m.name(), name) {
        true => RtError::of(
            super::objects::Builtin::NotImplementedError,
            format!("{prefix}.{name} is not supported by the playground yet"),
        ),
        false => RtError::of(
            super::objects::Builtin::AttributeError,
            format!("module '{}' has no attribute '{name}'", m.name()),
        ),
    };
    let no_attr = || {
        RtError::of(super::objects::Builtin::AttributeError, format!("module '{}' has no attribute '{name}'", m.name()))
    };
    match m {
        ModuleId::HostNumpy | ModuleId::NpRandom | ModuleId::NpLinalg | ModuleId::NpTesting => {
            super::host::module_attr(m, name)
        }
        // Its classes are the interpreter's (see `Interp::get_attr`).
        ModuleId::Errors => Err(no_attr()),
        ModuleId::Math => super::math::attr(name),
        ModuleId::Functools => match name {
            "partial" => Ok(Value::native(Native::Jax("partial"))),
            _ => Err(no_attr()),
        },
        ModuleId::Debug => match name {
            "print" => Ok(Value::native(Native::Jax("debug.print"))),
            "callback" => Ok(Value::native(Native::Jax("debug.callback"))),
            _ => Err(missing("jax.debug")),
        },
        ModuleId::Experimental => match name {
            "io_callback" => Ok(Value::native(Native::Jax("io_callback"))),
            _ => Err(missing("jax.experimental")),
        },
        ModuleId::Config => match name {
            "update" => Ok(Value::native(Native::Jax("config.update"))),
            _ => Err(no_attr()),
        },
        ModuleId::Jax => match name {
            "numpy" => Ok(Value::Module(ModuleId::Numpy)),
            "nn" => Ok(Value::Module(ModuleId::Nn)),
            "config" => Ok(Value::Module(ModuleId::Config)),
            "lax" => Ok(Value::Module(ModuleId::Lax)),
            "random" => Ok(Value::Module(ModuleId::Random)),
            "tree_util" => Ok(Value::Module(ModuleId::TreeUtil)),
            "scipy" => Ok(Value::Module(ModuleId::Scipy)),
            "tree" => Ok(Value::Module(ModuleId::Tree)),
            "debug" => Ok(Value::Module(ModuleId::Debug)),
            "experimental" => Ok(Value::Module(ModuleId::Experimental)),
            "errors" => Ok(Value::Module(ModuleId::Errors)),
            "checkpoint_policies" => Ok(Value::Module(ModuleId::CheckpointPolicies)),
            // JAX's `jacobian` is `jacrev` itself.
            "jacobian" => Ok(Value::native(Native::Jax("jacrev"))),
            _ if find(JAX_FUNCTIONS, name).is_some() => {
                Ok(Value::native(Native::Jax(find(JAX_FUNCTIONS, name).unwrap_or("jit"))))
            }
            _ => Err(missing("jax")),
        },
        ModuleId::Numpy => match jnp_alias(name) {
            "pi" => Ok(Value::Float(std::f64::consts::PI)),
            "e" => Ok(Value::Float(std::f64::consts::E)),
            "inf" => Ok(Value::Float(f64::INFINITY)),
            "nan" => Ok(Value::Float(f64::NAN)),
            "newaxis" => Ok(Value::None),
            "linalg" => Ok(Value::Module(ModuleId::Linalg)),
            "ndarray" => Ok(Value::native(Native::Jax("Array"))),
            canonical => match find(JNP_FUNCTIONS, canonical)
                .or_else(|| find(super::api::JNP_MORE, canonical))
                .or_else(|| find(super::arrange::JNP_ARRANGE, canonical))
                .or_else(|| find(super::numeric::JNP_NUMERIC, canonical))
                .or_else(|| find(super::sets::JNP_SETS, canonical))
                .or_else(|| find(super::shorthands::JNP_SHORTHANDS, canonical))
                .or_else(|| find(super::dtype_info::JNP_DTYPE_INFO, canonical))
                .or_else(|| find(super::dtype_info::JNP_PROMOTION, canonical))
                .or_else(|| find(super::dtype_info::JNP_ABSTRACT_DTYPES, canonical))
                .or_else(|| find(super::dtype_info::JNP_DTYPE_TESTS, canonical))
                .or_else(|| find(super::composed::JNP_COMPOSED, canonical))
            {
                Some(f) => Ok(Value::native(Native::Jnp(f))),
                // A dtype JAX has but the playground does not: say which dtypes there are.
                None if UNSUPPORTED_DTYPES.contains(&name) => Err(RtError::new(format!(
                    "dtype {name} is not supported by the playground (it supports float32, bfloat16, int32 and bool)"
                ))),
                None => Err(missing("jnp")),
            },
        },
        ModuleId::Linalg => {
            // The native norm, which the stdlib's `norm` calls for the norms needing no SVD.
            let name = if name == "_norm" { "norm" } else { name };
            let qualified = format!("linalg.{name}");
            match super::numeric::JNP_NUMERIC.iter().chain(super::linalg::LINALG_FUNCTIONS).find(|&&f| f == qualified) {
                Some(f) => Ok(Value::native(Native::Jnp(f))),
                None => Err(missing("jnp.linalg")),
            }
        }
        ModuleId::Lax => match find(LAX_FUNCTIONS, name)
            .or_else(|| find(super::arrange::LAX_ARRANGE, name))
            .or_else(|| find(super::shorthands::LAX_SHORTHANDS, name))
            .or_else(|| find(super::pmap::LAX_COLLECTIVES, name))
        {
            Some(f) => Ok(Value::native(Native::Lax(f))),
            None if name == "Precision" => Ok(Value::Module(ModuleId::Precision)),
            None => Err(missing("jax.lax")),
        },
        ModuleId::Scipy => match name {
            "special" => Ok(Value::Module(ModuleId::ScipySpecial)),
            _ => Err(missing("jax.scipy")),
        },
        // The functions jax.nn and jax.lax already have, under the names scipy gives them.
        ModuleId::ScipySpecial => match name {
            "logsumexp" | "softmax" | "log_softmax" => {
                Ok(Value::native(Native::Nn(find(NN_FUNCTIONS, name).unwrap_or("logsumexp"))))
            }
            "expit" => Ok(Value::native(Native::Nn("sigmoid"))),
            "erf" => Ok(Value::native(Native::Lax("erf"))),
            _ => Err(missing("jax.scipy.special")),
        },
        ModuleId::TreeUtil => match name {
            _ if find(TREE_FUNCTIONS, name).is_some() => {
                Ok(Value::native(Native::Jax(find(TREE_FUNCTIONS, name).unwrap_or("tree_map"))))
            }
            _ if find(REGISTRATIONS, name).is_some() => {
                Ok(Value::native(Native::Jax(find(REGISTRATIONS, name).unwrap_or("register_static"))))
            }
            _ => Err(missing("jax.tree_util")),
        },
        ModuleId::Tree => match name {
            _ if find(TREE_FUNCTIONS, &format!("tree_{name}")).is_some() => {
                let full = format!("tree_{name}");
                Ok(Value::native(Native::Jax(find(TREE_FUNCTIONS, &full).unwrap_or("tree_map"))))
            }
            _ => Err(missing("jax.tree")),
        },
        ModuleId::Precision => match name {
            "DEFAULT" | "HIGH" | "HIGHEST" => Ok(Value::str(name)),
            _ => Err(RtError::of(
                super::objects::Builtin::AttributeError,
                format!("type object 'Precision' has no attribute '{name}'"),
            )),
        },
        ModuleId::Random => match find(super::random::RANDOM_FUNCTIONS, name) {
            Some(f) => Ok(Value::native(Native::Random(f))),
            None => Err(missing("jax.random")),
        },
        ModuleId::Initializers => super::random::initializer_attr(name),
        ModuleId::CheckpointPolicies => {
            super::remat::policy_attr(name).unwrap_or_else(|| Err(missing("jax.checkpoint_policies")))
        }
        ModuleId::Nn if name == "initializers" => Ok(Value::Module(ModuleId::Initializers)),
        ModuleId::Nn if name == "tanh" => Ok(Value::native(Native::Jnp("tanh"))),
        ModuleId::Nn => match find(NN_FUNCTIONS, name).or_else(|| find(super::numeric::NN_MORE, name)) {
            Some(f) => Ok(Value::native(Native::Nn(f))),
            None => Err(missing("jax.nn")),
        },
    }
}

/// The `jnp` functions that refuse a list or tuple as their first argument, as JAX's
/// `check_arraylike` does (every `jnp` function but those building arrays from sequences).
const ARRAYLIKE_FIRST: &[&str] = &[
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "all",
    "allclose",
    "amax",
    "amin",
    "angle",
    "any",
    "append",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argpartition",
    "argsort",
    "argwhere",
    "around",
    "array_split",
    "asin",
    "asinh",
    "astype",
    "atan",
    "atan2",
    "atanh",
    "bincount",
    "bitwise_and",
    "bitwise_count",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "broadcast_to",
    "cbrt",
    "ceil",
    "choose",
    "clip",
    "compress",
    "conj",
    "conjugate",
    "convolve",
    "copy",
    "copysign",
    "corrcoef",
    "correlate",
    "cos",
    "cosh",
    "count_nonzero",
    "cov",
    "cross",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "deg2rad",
    "degrees",
    "delete",
    "diag",
    "diag_indices_from",
    "diagflat",
    "diagonal",
    "diff",
    "digitize",
    "divide",
    "divmod",
    "dot",
    "dsplit",
    "ediff1d",
    "empty_like",
    "equal",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "extract",
    "fabs",
    "flatnonzero",
    "flip",
    "fliplr",
    "flipud",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "full_like",
    "gcd",
    "greater",
    "greater_equal",
    "heaviside",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "histogramdd",
    "hsplit",
    "hypot",
    "i0",
    "imag",
    "inner",
    "intersect1d",
    "invert",
    "isclose",
    "iscomplex",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "kron",
    "lcm",
    "ldexp",
    "left_shift",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "matrix_transpose",
    "matvec",
    "max",
    "maximum",
    "mean",
    "median",
    "min",
    "minimum",
    "mod",
    "modf",
    "multiply",
    "nan_to_num",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "negative",
    "nextafter",
    "nonzero",
    "not_equal",
    "ones_like",
    "outer",
    "packbits",
    "pad",
    "partition",
    "percentile",
    "permute_dims",
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyint",
    "polymul",
    "polysub",
    "positive",
    "pow",
    "power",
    "prod",
    "ptp",
    "quantile",
    "rad2deg",
    "radians",
    "ravel",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "resize",
    "right_shift",
    "rint",
    "roll",
    "rollaxis",
    "roots",
    "rot90",
    "round",
    "searchsorted",
    "setdiff1d",
    "setxor1d",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "sort",
    "sort_complex",
    "spacing",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "std",
    "subtract",
    "sum",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "trace",
    "transpose",
    "trapezoid",
    "tril",
    "tril_indices_from",
    "trim_zeros",
    "triu",
    "triu_indices_from",
    "true_divide",
    "trunc",
    "union1d",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unpackbits",
    "unravel_index",
    "unstack",
    "unwrap",
    "vander",
    "var",
    "vdot",
    "vecdot",
    "vecmat",
    "vsplit",
    "where",
    "zeros_like",
];

/// Those that check their second argument too (binary functions).
const ARRAYLIKE_SECOND: &[&str] = &[
    "add",
    "allclose",
    "arctan2",
    "atan2",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "compress",
    "convolve",
    "copysign",
    "corrcoef",
    "correlate",
    "cov",
    "cross",
    "delete",
    "digitize",
    "divide",
    "divmod",
    "dot",
    "equal",
    "extract",
    "float_power",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "full_like",
    "gcd",
    "greater",
    "greater_equal",
    "heaviside",
    "histogram",
    "histogram2d",
    "histogram_bin_edges",
    "hypot",
    "inner",
    "intersect1d",
    "isclose",
    "isin",
    "kron",
    "lcm",
    "ldexp",
    "left_shift",
    "less",
    "less_equal",
    "linspace",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_or",
    "logical_xor",
    "matmul",
    "matvec",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "nanpercentile",
    "nanquantile",
    "negative",
    "nextafter",
    "not_equal",
    "outer",
    "percentile",
    "polyadd",
    "polydiv",
    "polymul",
    "polysub",
    "pow",
    "power",
    "quantile",
    "remainder",
    "repeat",
    "right_shift",
    "searchsorted",
    "setdiff1d",
    "setxor1d",
    "subtract",
    "take",
    "take_along_axis",
    "tensordot",
    "trapezoid",
    "true_divide",
    "union1d",
    "vdot",
    "vecdot",
    "vecmat",
    "where",
];

/// Those that check every positional argument.
const ARRAYLIKE_ALL: &[&str] = &["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "ix_", "meshgrid"];

/// The name JAX's message gives where it is not the function's own (an alias's, or that of the
/// function it calls first).
const ARRAYLIKE_NAMES: &[(&str, &str)] = &[
    ("abs", "absolute"),
    ("amax", "max"),
    ("amin", "min"),
    ("append", "ravel"),
    ("argpartition", "partition"),
    ("around", "round"),
    ("bitwise_right_shift", "right_shift"),
    ("conj", "conjugate"),
    ("degrees", "rad2deg"),
    ("divide", "true_divide"),
    ("empty_like", "ones_like"),
    ("extract", "extreact"),
    ("flatnonzero", "ravel"),
    ("fmax", "greater"),
    ("fmin", "less"),
    ("iscomplex", "imag"),
    ("isreal", "imag"),
    ("ix_", "ix"),
    ("mod", "remainder"),
    ("pow", "power"),
    ("radians", "deg2rad"),
    ("vecdot", "jnp.vecdot"),
    ("vecmat", "matvec"),
];

/// JAX's `check_arraylike`: `jnp` functions take arrays and scalars, not lists or tuples.
fn check_arraylike(name: &str, args: &[Value]) -> R<()> {
    // `where(condition, x, y)` checks all three.
    let positions = if ARRAYLIKE_ALL.contains(&name) || name == "where" {
        args.len()
    } else if ARRAYLIKE_SECOND.contains(&name) {
        2
    } else if ARRAYLIKE_FIRST.contains(&name) {
        1
    } else {
        0
    };
    for (i, a) in args.iter().enumerate().take(positions) {
        if matches!(a, Value::List(_) | Value::Tuple(_)) {
            let shown = ARRAYLIKE_NAMES.iter().find(|(n, _)| *n == name).map_or(name, |(_, shown)| shown);
            return super::type_err(format!(
                "{shown} requires ndarray or scalar arguments, got <class '{}'> at position {i}.",
                a.type_name()
            ));
        }
    }
    Ok(())
}

/// A traced function, ready to run: its Jaxpr with constants, and the shape of its output.
pub struct Compiled {
    /// The program; its outputs are the function's leaves.
    pub(super) closed: ClosedJaxpr,
    /// Values of an enclosing trace the function closed over (a nested trace only; never
    /// cached), passed after the constants.
    pub(super) captured: Vec<Tensor>,
    pub(super) out_tree: Tree,
    /// The `jit` equation's function, made once: every call inside another trace names the
    /// same one, as JAX's cached trace is one Jaxpr (its printer shows it once).
    pub(super) nested: std::cell::OnceCell<Rc<jaxlite::prim::JitFunction>>,
    /// What the function does to refs: constants each call takes from a ref, and refs written
    /// by the outputs after the result's leaves (see `refs.rs`).
    pub(super) refs: super::refs::RefEffects,
}

/// The container structure of a jit argument or result (a pytree), with arrays as leaves.
#[derive(Clone)]
pub(crate) enum Tree {
    Leaf,
    None,
    List(Vec<Tree>),
    Tuple(Vec<Tree>),
    Dict(Vec<(Value, Tree)>),
    /// A namedtuple (`collections.namedtuple`, `typing.NamedTuple`): a node JAX knows, rebuilt
    /// as the same class.
    Named(Rc<super::objects::Class>, Vec<Tree>),
    /// An instance of a class the script registered as a node (`register_pytree_node`,
    /// `register_dataclass`, …): its children, and the auxiliary data it is rebuilt with.
    Custom(Rc<super::objects::Class>, Rc<super::pytrees::Node>, Value, Vec<Tree>),
}

/// The fields of `v` when it is a namedtuple, which JAX flattens as a node.
pub(super) fn namedtuple_items(v: &Value) -> Option<(Rc<super::objects::Class>, Rc<Vec<Value>>)> {
    let Value::Instance(i) = v else { return None };
    let Value::Tuple(items) = &*i.base.borrow() else { return None };
    i.class.lookup("_fields").is_some().then(|| (i.class.clone(), items.clone()))
}

impl Tree {
    /// A text key for the jit cache.
    pub(super) fn key(&self, out: &mut String) {
        let seq = |open: char, items: &[Tree], close: char, out: &mut String| {
            out.push(open);
            for t in items {
                t.key(out);
                out.push(',');
            }
            out.push(close);
        };
        match self {
            Tree::Leaf => out.push('*'),
            Tree::None => out.push_str("None"),
            Tree::List(items) => seq('[', items, ']', out),
            Tree::Tuple(items) => seq('(', items, ')', out),
            Tree::Named(class, items) => {
                out.push_str(&format!("{}@{:p}", class.name, Rc::as_ptr(class)));
                seq('(', items, ')', out)
            }
            // JAX compares auxiliary data with `==`; its repr stands in for it here.
            Tree::Custom(class, _, aux, items) => {
                out.push_str(&format!("{}@{:p}[{}]", class.name, Rc::as_ptr(class), repr(aux)));
                seq('(', items, ')', out)
            }
            Tree::Dict(items) => {
                out.push('{');
                for (k, t) in items {
                    out.push_str(&repr(k));
                    out.push(':');
                    t.key(out);
                    out.push(',');
                }
                out.push('}');
            }
        }
    }

    /// How JAX prints a PyTreeDef's structure: `{'b': (*, None), 'w': *}`.
    pub(super) fn describe(&self) -> String {
        let seq = |items: &[Tree]| items.iter().map(Tree::describe).collect::<Vec<_>>().join(", ");
        match self {
            Tree::Leaf => "*".into(),
            Tree::None => "None".into(),
            Tree::List(items) => format!("[{}]", seq(items)),
            Tree::Tuple(items) if items.len() == 1 => format!("({},)", items[0].describe()),
            Tree::Tuple(items) => format!("({})", seq(items)),
            Tree::Named(class, items) => format!("CustomNode(namedtuple[{}], [{}])", class.name, seq(items)),
            Tree::Custom(class, _, aux, items) => {
                format!("CustomNode({}[{}], [{}])", class.name, super::value::to_str(aux), seq(items))
            }
            Tree::Dict(items) => {
                let entries: Vec<String> =
                    items.iter().map(|(k, t)| format!("{}: {}", repr(k), t.describe())).collect();
                format!("{{{}}}", entries.join(", "))
            }
        }
    }

    /// The children of two trees paired, where their roots are one kind of node with the
    /// same keys (JAX's node equality); `None` where they differ.
    pub(super) fn paired_children<'t>(&'t self, other: &'t Tree) -> Option<Vec<(&'t Tree, &'t Tree)>> {
        let pair = |a: &'t [Tree], b: &'t [Tree]| (a.len() == b.len()).then(|| a.iter().zip(b).collect());
        match (self, other) {
            (Tree::List(a), Tree::List(b)) | (Tree::Tuple(a), Tree::Tuple(b)) => pair(a, b),
            (Tree::Named(c, a), Tree::Named(d, b)) if Rc::ptr_eq(c, d) => pair(a, b),
            (Tree::Custom(c, _, x, a), Tree::Custom(d, _, y, b)) if Rc::ptr_eq(c, d) && repr(x) == repr(y) => {
                pair(a, b)
            }
            (Tree::Dict(a), Tree::Dict(b))
                if a.len() == b.len() && a.iter().zip(b).all(|((k, _), (l, _))| repr(k) == repr(l)) =>
            {
                Some(a.iter().zip(b).map(|((_, s), (_, t))| (s, t)).collect())
            }
            _ => None,
        }
    }

    /// Whether two trees have one structure (JAX's PyTreeDef equality).
    pub(super) fn same_structure(&self, other: &Tree) -> bool {
        let (mut a, mut b) = (String::new(), String::new());
        self.key(&mut a);
        other.key(&mut b);
        a == b
    }

    pub(super) fn num_leaves(&self) -> usize {
        match self {
            Tree::Leaf => 1,
            Tree::None => 0,
            Tree::List(items) | Tree::Tuple(items) | Tree::Named(_, items) | Tree::Custom(.., items) => {
                items.iter().map(Tree::num_leaves).sum()
            }
            Tree::Dict(items) => items.iter().map(|(_, t)| t.num_leaves()).sum(),
        }
    }
}

/// A dict's entries in pytree order: JAX flattens a dict by its sorted keys (and rebuilds it
/// in that order), so `grad` of a dict of parameters prints `{'b': …, 'w': …}`. Keys of mixed
/// types, which Python cannot sort, keep their insertion order.
pub(super) fn sorted_entries(d: &super::value::Dict) -> Vec<(Value, Value)> {
    let mut entries = d.entries.clone();
    if entries.iter().all(|(k, _)| matches!(k, Value::Str(_))) {
        entries.sort_by(|(a, _), (b, _)| match (a, b) {
            (Value::Str(a), Value::Str(b)) => a.cmp(b),
            _ => std::cmp::Ordering::Equal,
        });
    } else if entries.iter().all(|(k, _)| matches!(k, Value::Int(_))) {
        entries.sort_by_key(|(k, _)| if let Value::Int(i) = k { *i } else { 0 });
    }
    entries
}

pub(super) fn function_name(f: &Value) -> String {
    match f {
        Value::Function(func) => func.def.name.clone(),
        Value::Native(n) => match &**n {
            Native::Partial { func, .. } => function_name(func),
            Native::Jitted(j) => function_name(&j.func),
            Native::Checkpointed(c) => function_name(&c.func),
            Native::CustomJvp(c) => function_name(&c.func),
            Native::CustomVjp(c) => function_name(&c.func),
            Native::Builtin(name)
            | Native::Jnp(name)
            | Native::Jax(name)
            | Native::Nn(name)
            | Native::Lax(name)
            | Native::Math(name) => name.to_string(),
            _ => "function".into(),
        },
        _ => "function".into(),
    }
}

/// A Python scalar as JAX sees it: a 0-d array, weakly typed for an int or a float (JAX has
/// no weak bool).
fn weak_scalar(v: &Value, host: bool) -> R<Option<Array>> {
    Ok(Some(match v {
        // On the host a Python number keeps its full width: NumPy's float64 and int64.
        Value::Float(x) if host => {
            let mut a = Array::new(vec![], Data::F64(vec![*x]));
            a.aval.weak_type = true;
            a
        }
        Value::Int(i) if host => {
            let mut a = Array::new(vec![], Data::I64(vec![*i]));
            a.aval.weak_type = true;
            a
        }
        Value::Float(x) => Array::weak_scalar_f32(*x as f32),
        Value::Int(i) => Array::weak_scalar_i32(i32::try_from(*i).map_err(|_| {
            RtError::of(super::objects::Builtin::OverflowError, format!("Python int {i} too large to convert to int32"))
        })?),
        Value::Bool(b) => Array::new(vec![], Data::Bool(vec![*b])),
        _ => return Ok(None),
    }))
}

/// The dtype named by a `dtype=` argument.
/// The dtype a NumPy type character names (`np.dtype("d")` is float64).
fn type_code(code: &str) -> Option<DType> {
    Some(match code {
        "d" => DType::F64,
        "f" => DType::F32,
        "i" => DType::I32,
        "l" | "q" => DType::I64,
        "I" => DType::U32,
        "?" => DType::Bool,
        _ => return None,
    })
}

pub(super) fn dtype_arg(v: &Value) -> R<DType> {
    let unsupported = |name: &str| {
        RtError::new(format!(
            "dtype {name} is not supported by the playground (it supports float32, bfloat16, int32 and bool)"
        ))
    };
    // NumPy's 64-bit types exist on the host only; JAX without x64 has none.
    let host = super::host::on_host();
    let known = |d: Option<DType>, name: &str| match d {
        Some(d) if host || !d.is_host_only() => Ok(d),
        _ => Err(unsupported(name)),
    };
    match v {
        Value::DType(d) => Ok(*d),
        // NumPy's one-letter type codes too (`otypes="d"`).
        Value::Str(s) => known(DType::from_name(s).or_else(|| type_code(s)), s),
        Value::Native(n) => match &**n {
            Native::Jnp(name) => known(DType::from_name(name), name),
            Native::Np("bool") => Ok(DType::Bool),
            Native::Np(name) => known(DType::from_name(name), name),
            _ => Err(unsupported(&repr(v))),
        },
        // Python's own types: float64 and int64 to NumPy, float32 and int32 to JAX without x64.
        Value::Class(c) => match c.builtin {
            Some(super::objects::Builtin::Float) if host => Ok(DType::F64),
            Some(super::objects::Builtin::Int) if host => Ok(DType::I64),
            Some(super::objects::Builtin::Float) => Ok(DType::F32),
            Some(super::objects::Builtin::Int) => Ok(DType::I32),
            Some(super::objects::Builtin::Bool) => Ok(DType::Bool),
            _ => Err(unsupported(&repr(v))),
        },
        _ => Err(unsupported(&repr(v))),
    }
}

thread_local! {
    /// The 64-bit dtype a call asked for and the 32-bit one it got (see `requested_dtype`),
    /// until the interpreter warns of it as the call returns (`take_truncation`).
    static TRUNCATED: std::cell::Cell<Option<(DType, DType)>> = const { std::cell::Cell::new(None) };
}

/// A `dtype=` argument as JAX without x64 takes it: float64 or int64 named explicitly is
/// truncated to float32 or int32, and JAX warns of it (`warn_truncation`).
pub(super) fn requested_dtype(v: &Value) -> R<DType> {
    let e = match dtype_arg(v) {
        Ok(d) => return Ok(d),
        Err(e) => e,
    };
    if super::host::on_host() {
        return Err(e);
    }
    let named = match v {
        Value::Str(s) => DType::from_name(s).or_else(|| type_code(s)),
        Value::Native(n) => match &**n {
            Native::Jnp(name) | Native::Np(name) => DType::from_name(name),
            _ => None,
        },
        _ => None,
    };
    let (from, to) = match named {
        Some(DType::F64) => (DType::F64, DType::F32),
        Some(DType::I64) => (DType::I64, DType::I32),
        _ => return Err(e),
    };
    TRUNCATED.with(|t| t.set(Some((from, to))));
    Ok(to)
}

/// The truncation `requested_dtype` made during the call now returning, if any.
pub(super) fn take_truncation() -> Option<(DType, DType)> {
    TRUNCATED.with(|t| t.take())
}

/// A `precision=` argument: absent or None for the configured default, else a
/// `jax.lax.Precision` member or its name (`"highest"`, `"bfloat16_3x"`, …), or a pair of them
/// (one per operand) when both are the same.
pub(super) fn precision_arg(v: Option<Value>) -> R<Option<Precision>> {
    let one = |v: &Value| match v {
        Value::None => Ok(None),
        Value::Str(s) => Precision::parse(&s.to_lowercase())
            .map(Some)
            .ok_or_else(|| RtError::new(format!("unknown matmul precision {}", repr(v)))),
        _ => err(format!("precision must be a jax.lax.Precision, a string or None, got {}", v.type_name())),
    };
    match v {
        None => Ok(None),
        Some(Value::Tuple(pair)) if pair.len() == 2 => match (one(&pair[0])?, one(&pair[1])?) {
            (a, b) if a == b => Ok(a),
            _ => super::unsupported("a different precision for each operand is not supported by the playground"),
        },
        Some(v) => one(&v),
    }
}

/// An `argnums`-style argument: absent or None for none, an int, or a tuple or list of ints.
pub(super) fn int_list_arg(what: &str, v: Option<Value>) -> R<Vec<i64>> {
    match v {
        None | Some(Value::None) => Ok(vec![]),
        Some(Value::Int(i)) => Ok(vec![i]),
        Some(Value::Tuple(t)) => t.iter().map(int_arg).collect(),
        Some(Value::List(l)) => l.borrow().iter().map(int_arg).collect(),
        Some(other) => err(format!("{what} must be an int or a tuple of ints, not {}", other.type_name())),
    }
}

/// A name or a list of names (`static_argnames='n'` or `('n', 'm')`).
fn str_list_arg(what: &str, v: Option<Value>) -> R<Vec<String>> {
    let one = |v: &Value| match v {
        Value::Str(s) => Ok(s.to_string()),
        other => err(format!("{what} must be a string or a sequence of strings, not {}", other.type_name())),
    };
    match v {
        None | Some(Value::None) => Ok(vec![]),
        Some(Value::Tuple(t)) => t.iter().map(one).collect(),
        Some(Value::List(l)) => l.borrow().iter().map(one).collect(),
        Some(v) => Ok(vec![one(&v)?]),
    }
}

/// `jit`'s static arguments completed from the function's signature as JAX completes them: a
/// static position names its parameter and a static name its position, so that either way of
/// passing the argument makes it static; negative positions count from the last parameter.
fn static_arguments(f: &Value, nums: Vec<i64>, mut names: Vec<String>) -> R<(Vec<usize>, Vec<String>)> {
    let Value::Function(func) = f else {
        // No signature to read (a jnp function, a partial): positions and names as given.
        return Ok((nums.into_iter().filter_map(|i| usize::try_from(i).ok()).collect(), names));
    };
    let def = &func.def;
    let n = def.params.len() as i64;
    let shown = match &nums[..] {
        [one] => format!("({one},)"),
        all => format!("({})", all.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ")),
    };
    let mut positions = Vec::new();
    for &i in &nums {
        let at = if i < 0 { i + n } else { i };
        if def.vararg.is_none() && !(0..n).contains(&at) {
            return err(format!(
                "Jitted function has static_argnums={shown}, but only accepts {n} positional arguments."
            ));
        }
        if let Ok(at) = usize::try_from(at) {
            positions.push(at);
            if let Some(p) = def.params.get(at) {
                names.push(p.name.clone());
            }
        }
    }
    let mut invalid: Vec<&String> =
        names.iter().filter(|name| !def.params.iter().chain(&def.keyword_only).any(|p| &&p.name == name)).collect();
    invalid.sort();
    invalid.dedup();
    if def.kwarg.is_none() && !invalid.is_empty() {
        let listed = invalid.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ");
        return super::value_err(format!(
            "Jitted function has invalid argnames {{{listed}}} in static_argnames. Function does not take these args."
        ));
    }
    for (i, p) in def.params.iter().enumerate() {
        if names.contains(&p.name) {
            positions.push(i);
        }
    }
    positions.sort_unstable();
    positions.dedup();
    names.sort();
    names.dedup();
    Ok((positions, names))
}

/// A function's `dtype=`, which JAX truncates to 32 bits without x64 (`requested_dtype`).
pub(super) fn optional_dtype(v: Option<Value>) -> R<Option<DType>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(d) => requested_dtype(&d).map(Some),
    }
}

pub(super) fn check_size(shape: &[usize]) -> R<()> {
    let n = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    match n {
        Some(n) if n <= MAX_ELEMENTS => Ok(()),
        // A MemoryError, as jaxlite's own size errors become and as NumPy reports an array it
        // cannot allocate.
        _ => Err(RtError::of(
            super::objects::Builtin::MemoryError,
            format!(
                "array of shape {} is too large for the playground (at most {MAX_ELEMENTS} elements)",
                jnp::shape_str(shape)
            ),
        )),
    }
}

/// A shape argument: an int or a tuple/list of ints.
pub(super) fn shape_arg(v: &Value) -> R<Vec<usize>> {
    let shape = abstract_shape_arg(v)?;
    check_size(&shape)?;
    Ok(shape)
}

/// An array type's shape without values (`jax.ShapeDtypeStruct`), so not capped at what the
/// playground computes: the compiler refuses what the emulated chip's HBM cannot hold, as
/// XLA does (`RESOURCE_EXHAUSTED`).
fn abstract_shape_arg(v: &Value) -> R<Vec<usize>> {
    let entries: Vec<Value> = match v {
        Value::Tuple(t) => t.to_vec(),
        Value::List(l) => l.borrow().clone(),
        other => vec![other.clone()],
    };
    if entries.iter().any(|d| super::tracer_errors::traced(d).is_some()) {
        return Err(super::tracer_errors::traced_shape(&entries));
    }
    let dims: Vec<i64> = entries.iter().map(int_arg).collect::<R<_>>()?;
    if dims.iter().any(|&d| d < 0) {
        return super::value_err("negative dimensions are not allowed");
    }
    let shape: Vec<usize> = dims.iter().map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    if shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d)).is_none_or(|n| n > MAX_ABSTRACT_ELEMENTS) {
        return Err(RtError::of(
            super::objects::Builtin::MemoryError,
            format!(
                "array of shape {} is larger than the playground can describe (at most {MAX_ABSTRACT_ELEMENTS} elements)",
                jnp::shape_str(&shape)
            ),
        ));
    }
    Ok(shape)
}

pub(super) fn int_arg(v: &Value) -> R<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Array(Tensor::Concrete(a)) if !a.dtype().is_float() && a.size() == 1 => {
            Ok(a.scalar_f64().unwrap_or(0.0) as i64)
        }
        // A NumPy integer (`np.prod(x.shape)`), which JAX takes through `operator.index`.
        Value::Host(h) if h.get().shape().is_empty() && !h.dtype().is_float() && h.dtype() != DType::Bool => {
            Ok(h.get().to_i64_vec()[0])
        }
        other => err(format!("expected an integer, got {}", other.type_name())),
    }
}

/// `axis=`: None, an int, or a tuple of ints.
pub(super) fn axes_arg(v: Option<&Value>) -> R<Option<Vec<i64>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::Tuple(t)) => Ok(Some(t.iter().map(int_arg).collect::<R<_>>()?)),
        Some(other) => Ok(Some(vec![int_arg(other)?])),
    }
}

/// Reshape dimensions, checked so the product cannot overflow inside jaxlite.
pub(super) fn reshape_dims(args: &[Value]) -> R<Vec<i64>> {
    let dims: Vec<i64> = match args {
        [Value::Tuple(_) | Value::List(_)] => match &args[0] {
            Value::Tuple(t) => t.iter().map(int_arg).collect::<R<_>>()?,
            Value::List(l) => l.borrow().iter().map(int_arg).collect::<R<_>>()?,
            _ => vec![],
        },
        _ => args.iter().map(int_arg).collect::<R<_>>()?,
    };
    let known: Vec<usize> =
        dims.iter().filter(|&&d| d != -1).map(|&d| usize::try_from(d).unwrap_or(usize::MAX)).collect();
    if dims.iter().any(|&d| d < -1) {
        return super::value_err(format!("cannot reshape into shape {:?}: negative dimensions are not allowed", dims));
    }
    if dims.iter().filter(|&&d| d == -1).count() > 1 {
        let dims: Vec<String> = dims.iter().map(i64::to_string).collect();
        return err(format!(
            "cannot reshape into shape ({}): can only specify one unknown dimension (-1)",
            dims.join(", ")
        ));
    }
    check_size(&known)?;
    Ok(dims)
}

/// The shape of a nested list of numbers, from its first elements.
fn nested_shape(v: &Value, depth: usize) -> R<Vec<usize>> {
    if depth > 32 {
        return err("too many dimensions in array literal");
    }
    Ok(match v {
        Value::List(l) => {
            let l = l.borrow();
            let mut shape = vec![l.len()];
            if let Some(first) = l.first() {
                shape.extend(nested_shape(first, depth + 1)?);
            }
            shape
        }
        Value::Tuple(t) => {
            let mut shape = vec![t.len()];
            if let Some(first) = t.first() {
                shape.extend(nested_shape(first, depth + 1)?);
            }
            shape
        }
        Value::Array(t) => t.aval().shape.clone(),
        Value::Host(h) => h.get().shape().to_vec(),
        Value::Key(k) if !k.typed => k.full_shape(),
        _ => vec![],
    })
}

/// Whether a nested list holds a traced array anywhere (`jnp.array([x[0], 2 * x[1]])` in a
/// traced function).
fn holds_tracer(v: &Value, depth: usize) -> bool {
    match v {
        Value::Array(Tensor::Traced(_)) => true,
        Value::List(l) if depth < 32 => l.borrow().iter().any(|i| holds_tracer(i, depth + 1)),
        Value::Tuple(t) if depth < 32 => t.iter().any(|i| holds_tracer(i, depth + 1)),
        _ => false,
    }
}

/// A complex number where an array must hold it: Python's complex scalars work, arrays of them
/// do not.
fn complex_array<T>() -> R<T> {
    super::unsupported(
        "arrays of complex numbers are not supported by the playground yet (the emulated TPU has no complex dtype; Python's complex scalars work)",
    )
}

/// The dtype `jnp.array` gives a nested list: JAX's promotion of its elements, where Python
/// numbers are weakly typed, and at least float32/int32 for Python numbers alone.
fn literal_dtype(v: &Value, promoted: &mut Option<(DType, bool)>, depth: usize) -> R<()> {
    let (dtype, weak) = match v {
        Value::List(_) | Value::Tuple(_) if depth > 32 => return err("too many dimensions in array literal"),
        Value::List(l) => return l.borrow().iter().try_for_each(|i| literal_dtype(i, promoted, depth + 1)),
        Value::Tuple(t) => return t.iter().try_for_each(|i| literal_dtype(i, promoted, depth + 1)),
        Value::Array(t) => (t.aval().dtype, t.aval().weak_type),
        // A raw key on the host: its uint32 words.
        Value::Key(k) if !k.typed => (DType::U32, false),
        Value::Bool(_) => (DType::Bool, false),
        Value::Int(_) => (DType::I32, true),
        Value::Float(_) => (DType::F32, true),
        Value::Complex(..) => return complex_array(),
        other => return err(format!("can't convert a value of type {} to a JAX array", other.type_name())),
    };
    *promoted = Some(match *promoted {
        None => (dtype, weak),
        Some((d, w)) => jaxlite::dtype::promote(d, w, dtype, weak),
    });
    Ok(())
}

/// Flattens a nested list into `values`, checking it is rectangular; `dtype` becomes the
/// widest element kind seen.
fn flatten_literal(v: &Value, shape: &[usize], values: &mut Vec<f64>, dtype: &mut Option<DType>, host: bool) -> R<()> {
    let ragged =
        || RtError::new("setting an array element with a sequence. The requested array has an inhomogeneous shape");
    let mut widen = |d: DType| *dtype = Some(dtype.map_or(d, |cur| cur.max(d)));
    match v {
        Value::List(_) | Value::Tuple(_) => {
            let items = match v {
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                _ => vec![],
            };
            if shape.first() != Some(&items.len()) {
                return Err(ragged());
            }
            items.iter().try_for_each(|i| flatten_literal(i, &shape[1..], values, dtype, host))
        }
        // A NumPy array or scalar in a list: as it is on the host, narrowed for JAX.
        Value::Host(h) => {
            let a = h.get();
            let a = if host { a } else { Rc::new(super::host::to_device(&a)) };
            flatten_literal(&Value::Array(Tensor::Concrete(a)), shape, values, dtype, host)
        }
        Value::Array(Tensor::Concrete(a)) => {
            if a.shape() != shape {
                return Err(ragged());
            }
            values.extend(a.to_f64_vec());
            widen(a.dtype());
            Ok(())
        }
        Value::Key(k) if !k.typed => {
            flatten_literal(&Value::Array(Tensor::Concrete(Rc::new(k.to_array()))), shape, values, dtype, host)
        }
        Value::Array(Tensor::Traced(t)) => unsupported(format!(
            "building an array from a list of traced values ({}) is not supported by the playground yet",
            aval_text(&t.aval)
        )),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) if !shape.is_empty() => Err(ragged()),
        Value::Bool(b) => {
            values.push(*b as i64 as f64);
            widen(DType::Bool);
            Ok(())
        }
        // NumPy's int64 and float64 on the host, JAX's int32 and float32 on the device.
        Value::Int(i) => {
            if !host && i32::try_from(*i).is_err() {
                return super::exceptions::raise(
                    super::objects::Builtin::OverflowError,
                    format!("Python int {i} too large to convert to int32"),
                );
            }
            values.push(*i as f64);
            widen(if host { DType::I64 } else { DType::I32 });
            Ok(())
        }
        Value::Float(x) => {
            values.push(*x);
            widen(if host { DType::F64 } else { DType::F32 });
            Ok(())
        }
        Value::Complex(..) => complex_array(),
        other => err(format!("can't convert a value of type {} to a JAX array", other.type_name())),
    }
}

pub(super) fn array_from_f64(shape: Vec<usize>, values: &[f64], dtype: DType) -> Array {
    let data = match dtype {
        DType::Bool => Data::Bool(values.iter().map(|&x| x != 0.0).collect()),
        DType::I32 => Data::I32(values.iter().map(|&x| x as i32).collect()),
        DType::U32 => Data::U32(values.iter().map(|&x| x as i64 as u32).collect()),
        DType::I64 => Data::I64(values.iter().map(|&x| x as i64).collect()),
        DType::F64 => Data::F64(values.to_vec()),
        DType::BF16 | DType::F32 | DType::Key => Data::F32(values.iter().map(|&x| x as f32).collect()),
    };
    Array::new(shape, data).astype(dtype)
}

/// `jnp.array(literal)`: a strongly typed array from Python numbers and nested lists.
pub(super) fn literal_array(v: &Value, host: bool) -> R<Array> {
    let shape = nested_shape(v, 0)?;
    check_size(&shape)?;
    let mut values = Vec::new();
    let mut dtype = None;
    flatten_literal(v, &shape, &mut values, &mut dtype, host)?;
    let default = if host { DType::F64 } else { DType::F32 };
    Ok(array_from_f64(shape, &values, dtype.unwrap_or(default)))
}

/// The `jnp` functions JAX jits, with the names their `jit` equations carry (`make_jaxpr`
/// shows them as a unit).
const LIBRARY_JITS: &[(&str, &str)] = &[("where", "_where")];

const GATHER_INDEX: &str = "indexer must have integer or boolean type (an array of floats is neither)";

fn index_items(index: &Value) -> R<Vec<IndexItem>> {
    let item = |v: &Value| -> R<IndexItem> {
        Ok(match v {
            Value::Int(i) => IndexItem::Int(*i),
            Value::Slice(a, b, c) => IndexItem::Slice(*a, *b, *c),
            Value::None => IndexItem::NewAxis,
            Value::Ellipsis => IndexItem::Ellipsis,
            Value::Array(Tensor::Concrete(a)) if a.shape().is_empty() && a.dtype().is_integer() => {
                IndexItem::Int(a.scalar_f64().unwrap_or(0.0) as i64)
            }
            // A NumPy integer scalar (`x[np.argmax(v)]`).
            Value::Host(h) if h.get().shape().is_empty() && h.dtype().is_integer() => {
                IndexItem::Int(h.get().to_i64_vec()[0])
            }
            Value::Array(Tensor::Traced(t)) => {
                return unsupported(format!(
                    "indexing with a traced value ({}) is not supported by the playground yet",
                    aval_text(&t.aval)
                ))
            }
            // (Integer arrays and lists are gathers, taken by `integer_array_index` first, and
            // scatters on adjacent axes beside whole ones, by `scatter_indices`.)
            Value::List(_) => return super::index_err(GATHER_INDEX),
            Value::Array(t) if t.aval().dtype.is_integer() => {
                return err(
                    "integer-array indices in .at[] are supported on adjacent axes beside whole axes (`:`) only, in the playground",
                )
            }
            Value::Array(_) => return super::index_err(GATHER_INDEX),
            _ => {
                return err(
                    "only integers, slices (`:`), ellipsis (`...`) and None are valid indices in the playground",
                )
            }
        })
    };
    match index {
        Value::Tuple(items) => items.iter().map(item).collect(),
        other => Ok(vec![item(other)?]),
    }
}

/// For an `.at[]` index holding a traced integer scalar: per axis, the integer index (traced
/// or a Python int) or `None` for a whole axis (`:` or an axis past the index's items). Other
/// indices (slices with bounds, steps, `None`, arrays, no traced scalar) are `None`: they take
/// the basic-indexing path, which explains what it cannot do.
fn traced_positions(index: &Value, rank: usize) -> Option<Vec<Option<Value>>> {
    let items = match index {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let traced = |v: &Value| matches!(v, Value::Array(Tensor::Traced(t)) if t.aval.shape.is_empty());
    if items.len() > rank || !items.iter().any(traced) {
        return None;
    }
    items
        .into_iter()
        .map(|item| match item {
            Value::Slice(None, None, None) => Some(None),
            Value::Int(_) => Some(Some(item)),
            ref v if traced(v) => Some(Some(item)),
            _ => None,
        })
        .collect()
}

/// `so_far` and where `index` (int32; negative values count from the end of an axis of `n`)
/// equals the position along `dimension` of an array of `shape`: one axis's factor of an
/// `.at[]` update's selection.
async fn and_matching(
    ctx: &mut jaxlite::Context,
    so_far: Option<Tensor>,
    index: &Tensor,
    n: usize,
    shape: &[usize],
    dimension: usize,
) -> R<Tensor> {
    let int = |v: f32| Tensor::from(Array::from_f32(vec![], vec![v]).astype(DType::I32));
    let negative = jnp::compare(ctx, CompareOp::Lt, index, &int(0.0)).await?;
    let from_end = jnp::binary(ctx, BinaryOp::Add, index, &int(n as f32)).await?;
    let index = jnp::where_(ctx, &negative, &from_end, index).await?;
    let iota = jaxlite::Primitive::Iota { dtype: DType::I32, shape: shape.to_vec(), dimension };
    let here = jnp::apply(ctx, iota, &[]).await?;
    let matches = jnp::compare(ctx, CompareOp::Eq, &here, &index).await?;
    Ok(match so_far {
        None => matches,
        Some(so_far) => jnp::binary(ctx, BinaryOp::And, &so_far, &matches).await?,
    })
}

/// For an `.at[]` index with integer arrays (`x.at[ids]`, `x.at[:, ids]`, `x.at[rows, cols]`):
/// the first indexed axis and the indices of the adjacent indexed axes (arrays, or integers
/// beside them); the other items must be whole axes (`:`). `None` otherwise.
fn scatter_indices(index: &Value, rank: usize) -> Option<(usize, Vec<Value>)> {
    let items = match index {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other.clone()],
    };
    let array = |v: &Value| matches!(v, Value::Array(t) if t.aval().rank() > 0);
    let advanced = |v: &Value| array(v) || matches!(v, Value::Int(_) | Value::Array(_));
    if items.len() > rank || !items.iter().any(array) {
        return None;
    }
    let first = items.iter().position(advanced)?;
    let count = items[first..].iter().take_while(|v| advanced(v)).count();
    let rest_whole =
        items[first + count..].iter().chain(&items[..first]).all(|v| matches!(v, Value::Slice(None, None, None)));
    rest_whole.then(|| (first, items[first..first + count].to_vec()))
}

impl Interp<'_, '_> {
    /// An operand for `jaxlite`: arrays as they are, Python scalars weakly typed, lists as
    /// arrays. A tracer that escaped its `jit` trace is an error (as in JAX).
    /// `name(x)` for an elementwise op: exactly one argument, taken as an array.
    pub(super) async fn unary_call(&mut self, name: &str, args: &[Value], op: JUnary) -> R<Value> {
        arity(name, args, 1, 1)?;
        let x = self.to_tensor(&args[0])?;
        Ok(Value::Array(jnp::unary(self.ctx, op, &x).await?))
    }

    pub(super) fn to_tensor(&self, v: &Value) -> R<Tensor> {
        match v {
            // NumPy cannot read a traced value (JAX's `__array__` on a tracer).
            Value::Array(Tensor::Traced(t)) if self.ctx.on_host() => Err(super::tracer_errors::array_conversion(t)),
            Value::Array(Tensor::Traced(t)) if !self.ctx.is_tracing() => super::exceptions::raise(super::objects::Builtin::UnexpectedTracerError, format!(
                "Encountered an unexpected tracer ({}): a value computed inside a jitted function escaped it (for example by being stored in a global) and was used after the trace ended",
                aval_text(&t.aval)
            )),
            Value::Array(t) => Ok(t.clone()),
            // On the host, a NumPy array as it is; handed to JAX, converted as JAX converts
            // one without x64 (float64 → float32, int64 → int32), strongly typed.
            Value::Host(h) if self.ctx.on_host() => Ok(Tensor::Concrete(h.get())),
            Value::Host(h) => Ok(self.upload(super::host::to_device(&h.get()))),
            // A raw key is its uint32 words; a typed key a `key<fry>` array.
            Value::Key(k) => Ok(Tensor::from(k.to_array())),
            Value::List(_) | Value::Tuple(_) if self.ctx.on_host() => Ok(Tensor::from(literal_array(v, true)?)),
            Value::List(_) | Value::Tuple(_) => Ok(self.upload(literal_array(v, false)?)),
            other => match weak_scalar(other, self.ctx.on_host())? {
                Some(a) => Ok(Tensor::from(a)),
                None if matches!(other, Value::Complex(..)) => complex_array(),
                None => err(format!("expected an array or a number, got {}", other.type_name())),
            },
        }
    }

    /// A host value made a device array: one copy to the device, as JAX's `device_put`.
    fn upload(&self, a: Array) -> Tensor {
        self.ctx.note_host_to_device((a.size() * a.dtype().size_bytes()) as u64);
        Tensor::from(a)
    }

    /// Notes the device arrays among `values` (through lists and tuples) as copied to the host:
    /// NumPy or Python reading their elements.
    pub(super) fn download(&self, values: &[&Value]) {
        for v in values {
            match v {
                Value::Array(Tensor::Concrete(a)) => {
                    self.ctx.note_device_to_host((a.size() * a.dtype().size_bytes()) as u64)
                }
                Value::List(l) => self.download(&l.borrow().iter().collect::<Vec<_>>()),
                Value::Tuple(t) => self.download(&t.iter().collect::<Vec<_>>()),
                _ => {}
            }
        }
    }

    fn astype<'a>(&'a mut self, t: &'a Tensor, dtype: DType) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move { Ok(jnp::astype(self.ctx, t, dtype).await?) })
    }

    /// `jnp.asarray(v, dtype)`: strongly typed (a Python scalar becomes a plain 0-d array).
    pub(super) fn as_array<'a>(&'a mut self, v: &'a Value, dtype: Option<DType>) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let t = match v {
                Value::Array(_) | Value::Host(_) => self.to_tensor(v)?,
                // A raw key is its uint32 words; a typed key array stays one.
                Value::Key(k) => Tensor::from(k.to_array()),
                _ if holds_tracer(v, 0) => {
                    let shape = nested_shape(v, 0)?;
                    check_size(&shape)?;
                    let dtype = match dtype {
                        Some(d) => d,
                        None => {
                            let mut promoted = None;
                            literal_dtype(v, &mut promoted, 0)?;
                            promoted.map_or(DType::F32, |(d, _)| d)
                        }
                    };
                    return self.traced_literal(v, &shape, dtype).await;
                }
                _ => Tensor::from(literal_array(v, self.ctx.on_host())?),
            };
            match dtype {
                Some(d) => self.astype(&t, d).await,
                None => Ok(t),
            }
        })
    }

    /// A copy of `t`: the same array where it has a value (arrays are immutable), JAX's `copy`
    /// equation where it is traced (`jnp.array(x)`, `jnp.copy(x)`, `x.copy()`).
    pub(super) async fn copied(&mut self, t: &Tensor) -> R<Tensor> {
        Ok(match t {
            Tensor::Traced(tracer) if tracer.aval.dtype != DType::Key => jnp::unary(self.ctx, JUnary::Copy, t).await?,
            _ => t.clone(),
        })
    }

    /// A nested list holding traced values made an array of `shape` and `dtype`, as JAX builds
    /// it: each element strongly typed, given a leading axis of one (`broadcast_in_dim`), and a
    /// list's rows concatenated, from the innermost lists out.
    fn traced_literal<'a>(&'a mut self, v: &'a Value, shape: &'a [usize], dtype: DType) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let ragged = || {
                RtError::new("setting an array element with a sequence. The requested array has an inhomogeneous shape")
            };
            let items = match v {
                Value::List(l) => l.borrow().clone(),
                Value::Tuple(t) => t.to_vec(),
                leaf => {
                    let t = match leaf {
                        Value::Array(t) if t.aval().shape == shape => t.clone(),
                        Value::Array(_) => return Err(ragged()),
                        _ if !shape.is_empty() => return Err(ragged()),
                        scalar => Tensor::from(literal_array(scalar, self.ctx.on_host())?),
                    };
                    return Ok(jnp::strongly_typed(self.ctx, &t, dtype).await?);
                }
            };
            if shape.first() != Some(&items.len()) {
                return Err(ragged());
            }
            let row_shape = [&[1], &shape[1..]].concat();
            let mut rows = Vec::with_capacity(items.len());
            for item in &items {
                let row = self.traced_literal(item, &shape[1..], dtype).await?;
                let prim = jaxlite::Primitive::BroadcastInDim {
                    shape: row_shape.clone(),
                    broadcast_dimensions: (1..row_shape.len()).collect(),
                };
                rows.push(jnp::apply1(self.ctx, prim, &row).await?);
            }
            if rows.len() == 1 {
                return Ok(rows.remove(0));
            }
            Ok(jnp::apply(self.ctx, jaxlite::Primitive::Concatenate { dimension: 0 }, &rows).await?)
        })
    }

    pub(super) fn array_binary<'a>(&'a mut self, op: BinOp, a: &'a Value, b: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let x = self.to_tensor(a)?;
            if op == BinOp::Pow {
                return self.power(&x, b).await;
            }
            let y = self.to_tensor(b)?;
            let ctx = &mut *self.ctx;
            let out = match op {
                BinOp::Add => jnp::binary(ctx, BinaryOp::Add, &x, &y).await?,
                BinOp::Sub => jnp::binary(ctx, BinaryOp::Sub, &x, &y).await?,
                BinOp::Mul => jnp::binary(ctx, BinaryOp::Mul, &x, &y).await?,
                BinOp::Div => jnp::true_divide(ctx, &x, &y).await?,
                BinOp::MatMul => jnp::matmul(ctx, &x, &y, None).await?,
                BinOp::Mod => jnp::remainder(ctx, &x, &y).await?,
                BinOp::FloorDiv => jnp::floor_divide(ctx, &x, &y).await?,
                // Bitwise on integers; on booleans (masks) the logical operators, as in JAX.
                BinOp::BitAnd => jnp::bitwise(ctx, BinaryOp::And, &x, &y).await?,
                BinOp::BitOr => jnp::bitwise(ctx, BinaryOp::Or, &x, &y).await?,
                BinOp::BitXor => jnp::bitwise(ctx, BinaryOp::Xor, &x, &y).await?,
                BinOp::LShift => jnp::bitwise(ctx, BinaryOp::ShiftLeft, &x, &y).await?,
                BinOp::RShift => jnp::bitwise(ctx, BinaryOp::ShiftRightArithmetic, &x, &y).await?,
                _ => {
                    return unsupported(format!(
                        "the '{}' operator on arrays is not supported by the playground yet",
                        op.symbol()
                    ))
                }
            };
            Ok(Value::Array(out))
        })
    }

    /// `x ** y`: `integer_pow` for a Python int exponent (as JAX), `pow` otherwise.
    pub(super) fn power<'a>(&'a mut self, x: &'a Tensor, exponent: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Value::Int(n) = exponent {
                if let Ok(n) = i32::try_from(*n) {
                    if x.aval().dtype.is_float() || n >= 0 {
                        return Ok(Value::Array(jnp::integer_pow(self.ctx, x, n).await?));
                    }
                }
            }
            let y = self.to_tensor(exponent)?;
            Ok(Value::Array(jnp::binary(self.ctx, BinaryOp::Pow, x, &y).await?))
        })
    }

    pub(super) fn array_unary<'a>(&'a mut self, op: UnaryOp, v: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let x = self.to_tensor(v)?;
            match op {
                UnaryOp::Neg => Ok(Value::Array(jnp::unary(self.ctx, JUnary::Neg, &x).await?)),
                UnaryOp::Pos => Ok(Value::Array(x)),
                // `~mask` is logical not, `~n` bitwise not, as in JAX.
                UnaryOp::Invert => Ok(Value::Array(jnp::bitwise_not(self.ctx, &x).await?)),
                _ => unsupported(format!(
                    "the unary '{}' operator on arrays is not supported by the playground yet",
                    op.symbol()
                )),
            }
        })
    }

    /// Element-wise comparison, a `Compare` primitive (traced inside `jit`).
    pub(super) fn array_compare<'a>(&'a mut self, op: CmpOp, a: &'a Value, b: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let cmp = match op {
                CmpOp::Eq => CompareOp::Eq,
                CmpOp::Ne => CompareOp::Ne,
                CmpOp::Lt => CompareOp::Lt,
                CmpOp::Le => CompareOp::Le,
                CmpOp::Gt => CompareOp::Gt,
                CmpOp::Ge => CompareOp::Ge,
                _ => return err(format!("'{}' is not supported on arrays", op.symbol())),
            };
            let (x, y) = (self.to_tensor(a)?, self.to_tensor(b)?);
            Ok(Value::Array(jnp::compare(self.ctx, cmp, &x, &y).await?))
        })
    }

    /// `keys[i]` of a traced array of typed keys (as JAX indexes them): their words indexed
    /// (the words' own last axis untouched), wrapped again.
    fn index_keys<'a>(&'a mut self, t: &'a Tensor, index: &'a Value, items: &[IndexItem]) -> LocalFuture<'a, R<Value>> {
        let has_ellipsis = items.iter().any(|i| matches!(i, IndexItem::Ellipsis));
        Box::pin(async move {
            if has_ellipsis {
                return super::unsupported("indexing an array of keys with ... is not supported by the playground yet");
            }
            let words = jnp::apply1(self.ctx, jaxlite::Primitive::RandomUnwrap, t).await?;
            let picked = self.index_array(&words, index).await?;
            let Value::Array(picked) = picked else { return Ok(picked) };
            if picked.aval().shape.last() != Some(&2) {
                return super::unsupported("this index of an array of keys is not supported by the playground yet");
            }
            Ok(Value::Array(jnp::apply1(self.ctx, jaxlite::Primitive::RandomWrap, &picked).await?))
        })
    }

    /// An index holding boolean masks whose values are known (NumPy's, or JAX arrays outside
    /// a trace) with each mask as the positions where it holds, as JAX converts a concrete
    /// mask; `None` when there is none.
    fn concrete_masks(&self, index: &Value) -> Option<Value> {
        let known_mask = |v: &Value| match v {
            Value::Host(h) => h.dtype() == DType::Bool && !h.get().shape().is_empty(),
            Value::Array(Tensor::Concrete(a)) => {
                a.dtype() == DType::Bool && !a.shape().is_empty() && !self.ctx.is_tracing()
            }
            _ => false,
        };
        let has_mask = match index {
            Value::Tuple(items) => items.iter().any(known_mask),
            single => known_mask(single),
        };
        has_mask.then(|| super::host::masks_as_positions(&super::host::unhost(index)))
    }

    pub(super) fn index_array<'a>(&'a mut self, t: &'a Tensor, index: &'a Value) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // NumPy arrays in an index go to the device first, as JAX converts them.
            let is_host_array = |v: &Value| matches!(v, Value::Host(h) if !h.get().shape().is_empty());
            let on_device = |interp: &mut Self, v: &Value| -> R<Value> {
                Ok(if is_host_array(v) { Value::Array(interp.to_tensor(v)?) } else { v.clone() })
            };
            let converted = match index {
                Value::Tuple(items) if items.iter().any(is_host_array) => {
                    Some(Value::tuple(items.iter().map(|v| on_device(self, v)).collect::<R<Vec<_>>>()?))
                }
                v if is_host_array(v) => Some(on_device(self, v)?),
                _ => None,
            };
            let index = converted.as_ref().unwrap_or(index);
            if let Some((index, emptied)) = super::host::zero_d_masks(index, t.aval().rank()) {
                let picked = self.index_array(t, &index).await?;
                return match (emptied, &picked) {
                    (Some(axis), Value::Array(p)) => self.index_array(p, &super::host::emptying_index(axis)).await,
                    _ => Ok(picked),
                };
            }
            let concrete_index = self.concrete_masks(index);
            let index = concrete_index.as_ref().unwrap_or(index);
            if let Some(gather) = self.integer_array_index(t, index).await? {
                return Ok(Value::Array(gather));
            }
            let items = index_items(index)?;
            if t.aval().dtype == DType::Key {
                return self.index_keys(t, index, &items).await;
            }
            match t {
                Tensor::Concrete(a) => Ok(Value::array(jnp_extra::index(a, &items)?)),
                Tensor::Traced(tr) => {
                    let parts: Vec<&Value> = match index {
                        Value::Tuple(parts) => parts.iter().collect(),
                        single => vec![single],
                    };
                    if let Some(window) = self.index_by_dynamic_slice(t, &parts).await? {
                        return Ok(Value::Array(window));
                    }
                    let mut s = jnp_extra::basic_slice(&tr.aval.shape, &items, jnp_extra::OutOfBounds::Clamp)?;
                    // As JAX's `_static_idx`: a negative step's elements sliced where they are,
                    // in the array's own order, then reversed.
                    for &d in &s.reversed {
                        let n = tr.aval.shape[d];
                        (s.start[d], s.limit[d]) = (n - s.limit[d], n - s.start[d]);
                    }
                    let whole = s.start.iter().zip(&s.limit).zip(&tr.aval.shape).all(|((&a, &b), &n)| a == 0 && b == n)
                        && s.strides.iter().all(|&k| k == 1);
                    let mut x = t.clone();
                    if !whole {
                        let prim = jaxlite::Primitive::Slice {
                            start_indices: s.start,
                            limit_indices: s.limit,
                            strides: s.strides.iter().any(|&k| k != 1).then_some(s.strides),
                        };
                        x = jnp::apply1(self.ctx, prim, &x).await?;
                    }
                    if !s.reversed.is_empty() {
                        x = jnp::apply1(self.ctx, jaxlite::Primitive::Rev { dimensions: s.reversed }, &x).await?;
                    }
                    if !s.dropped.is_empty() {
                        x = jnp::apply1(self.ctx, jaxlite::Primitive::Squeeze { dimensions: s.dropped }, &x).await?;
                    }
                    // `None` axes, as JAX's `expand_dims`.
                    if !s.new_axes.is_empty() {
                        let kept = (0..s.shape.len()).filter(|d| !s.new_axes.contains(d)).collect();
                        let prim = jaxlite::Primitive::BroadcastInDim { shape: s.shape, broadcast_dimensions: kept };
                        x = jnp::apply1(self.ctx, prim, &x).await?;
                    }
                    Ok(Value::Array(x))
                }
            }
        })
    }

    /// `x[i]`, `x[:, i]`, `x[i, j]` with integer arrays (or lists, or traced integers) `i`, `j`
    /// at consecutive positions and full slices elsewhere: a gather, as `jnp.take` along the
    /// indexed axes flattened into one. The index arrays broadcast together; negative indices
    /// count from the end and out-of-range ones are clamped (JAX's default for indexing).
    /// `None` when `index` has no integer arrays (basic indexing handles it).
    fn integer_array_index<'a>(&'a mut self, x: &'a Tensor, index: &'a Value) -> LocalFuture<'a, R<Option<Tensor>>> {
        Box::pin(async move {
            let items: Vec<&Value> = match index {
                Value::Tuple(items) => items.iter().collect(),
                // As JAX: a list as the whole index is refused (inside a tuple it is an array).
                Value::List(_) => {
                    return err(
                        "Using a non-tuple sequence for multidimensional indexing is not allowed; use `arr[array(seq)]` instead of `arr[seq]`. See https://github.com/jax-ml/jax/issues/4564 for more information.",
                    )
                }
                other => vec![other],
            };
            let is_array_index = |v: &Value| match v {
                Value::List(_) => true,
                Value::Array(t) => {
                    !t.aval().dtype.is_float() && (t.aval().rank() > 0 || matches!(t, Tensor::Traced(_)))
                }
                _ => false,
            };
            if !items.iter().any(|v| is_array_index(v)) {
                return Ok(None);
            }
            if let Some(window) = self.index_by_dynamic_slice(x, &items).await? {
                return Ok(Some(window));
            }
            // Beside an integer array, an integer is one too (a 0-d one), as in NumPy.
            let is_int = |v: &Value| {
                matches!(v, Value::Int(_) | Value::Bool(_))
                    || is_array_index(v)
                    || matches!(v, Value::Array(t) if t.aval().dtype.is_integer())
            };
            let positions: Vec<usize> = (0..items.len()).filter(|&i| is_int(items[i])).collect();
            let first = positions[0];
            let full = |v: &Value| matches!(v, Value::Slice(None, None, None));
            let consecutive = positions.iter().enumerate().all(|(k, &p)| p == first + k);
            if !consecutive {
                return err(format!(
                    "indexing with {}: integer-array indices must sit next to each other in the playground",
                    repr(index)
                ));
            }
            let others_full = (0..items.len()).all(|i| positions.contains(&i) || full(items[i]));
            if !others_full {
                // Adjacent integer arrays beside slices, new axes or an ellipsis act on their
                // own axes, as NumPy defines it: the basic part first (`:` in the arrays'
                // places), then the arrays with `:` over every other axis.
                let all = Value::Slice(None, None, None);
                let basic: Vec<Value> = items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if positions.contains(&i) { all.clone() } else { (*v).clone() })
                    .collect();
                let Value::Array(y) = self.index_array(x, &Value::tuple(basic)).await? else {
                    return err("basic indexing gave no array");
                };
                let mut gather = Vec::new();
                for (i, v) in items.iter().enumerate() {
                    match v {
                        _ if positions.contains(&i) => gather.push((*v).clone()),
                        Value::Ellipsis => {
                            let covered = y.aval().rank() + 1 - items.len();
                            gather.extend(std::iter::repeat_n(all.clone(), covered));
                        }
                        _ => gather.push(all.clone()),
                    }
                }
                return match self.index_array(&y, &Value::tuple(gather)).await? {
                    Value::Array(z) => Ok(Some(z)),
                    _ => err("indexing gave no array"),
                };
            }
            let shape = x.aval().shape.clone();
            if first + positions.len() > shape.len() {
                return super::index_err(format!(
                    "too many indices for array: array is {}-dimensional, but {} were indexed",
                    shape.len(),
                    first + positions.len()
                ));
            }
            let mut indices = Vec::new();
            for &p in &positions {
                let t = self.as_array(items[p], None).await?;
                match t.aval().dtype {
                    DType::I32 => indices.push(t),
                    // A traced mask: the result's shape would depend on its values.
                    DType::Bool if matches!(t, Tensor::Traced(_)) => {
                        return Err(RtError::of(
                            super::objects::Builtin::NonConcreteBooleanIndexError,
                            format!(
                                "Array boolean indices must be concrete; got {}\n\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError",
                                t.aval().short()
                            ),
                        ))
                    }
                    DType::Bool => {
                        return super::unsupported("indexing with a boolean mask is not supported by the playground (the result's shape depends on the values); use jnp.where")
                    }
                    _ => return super::index_err(GATHER_INDEX),
                }
            }
            // One integer array on the first axis is JAX's `gather` of rows: the indices made
            // non-negative, given a trailing axis of one (the index vector).
            if positions == [0] && !matches!(x.aval().dtype, DType::Bool | DType::Key) && indices[0].aval().rank() > 0 {
                let ctx = &mut *self.ctx;
                let t = &indices[0];
                let normalized = nonnegative_start(ctx, t, shape[0], false).await?;
                let mut column_shape = t.aval().shape.clone();
                column_shape.push(1);
                let dims = (0..t.aval().rank()).collect();
                let column = jaxlite::Primitive::BroadcastInDim { shape: column_shape, broadcast_dimensions: dims };
                let column = jnp::apply1(ctx, column, &normalized).await?;
                return Ok(Some(jnp::apply(ctx, jaxlite::Primitive::Gather, &[x.clone(), column]).await?));
            }
            // Broadcast the index arrays together, then each into range for its axis.
            let mut common: Vec<usize> = Vec::new();
            for t in &indices {
                common = jnp::broadcast_shapes("index", &common, &t.aval().shape)?;
            }
            let ctx = &mut *self.ctx;
            let mut flat: Option<Tensor> = None;
            for (t, &p) in indices.iter().zip(&positions) {
                let t = jnp::broadcast_to(ctx, t, &common).await?;
                let (t, _) = super::api::index_mode(ctx, &t, shape[p], "clip", true).await?;
                flat = Some(match flat {
                    None => t,
                    Some(f) => {
                        let scaled = jnp::binary(ctx, BinaryOp::Mul, &f, &super::api::int32(shape[p] as i32)).await?;
                        jnp::binary(ctx, BinaryOp::Add, &scaled, &t).await?
                    }
                });
            }
            let flat = flat.expect("one index at least");
            // The indexed axes of x as one.
            let last = first + positions.len();
            let mut merged: Vec<i64> = shape[..first].iter().map(|&d| d as i64).collect();
            merged.push(shape[first..last].iter().product::<usize>() as i64);
            merged.extend(shape[last..].iter().map(|&d| d as i64));
            let x = jnp::reshape(ctx, x, &merged).await?;
            Ok(Some(jnp::take(ctx, &x, &flat, first).await?))
        })
    }

    /// `x[i]`, `x[i, 1:3]`, `x[..., i]`: traced integer scalars among integers, contiguous
    /// slices and an ellipsis are one window, as JAX's `_attempt_rewriting_take_via_slice`
    /// stages them: each start index made non-negative (`select_n(s < 0, s, s + n)`, the
    /// traced ones first converted to int32 when there are several), a `dynamic_slice`, and a
    /// `squeeze` of the integer-indexed axes. The machine moves just that window
    /// (`compiler::link`). `None` for any other index (a gather then).
    fn index_by_dynamic_slice<'a>(
        &'a mut self,
        x: &'a Tensor,
        items: &'a [&'a Value],
    ) -> LocalFuture<'a, R<Option<Tensor>>> {
        Box::pin(async move {
            let shape = x.aval().shape.clone();
            let ellipses = items.iter().filter(|v| matches!(v, Value::Ellipsis)).count();
            let explicit = items.len() - ellipses;
            if ellipses > 1 || explicit > shape.len() {
                return Ok(None);
            }
            let all = Value::Slice(None, None, None);
            let mut full: Vec<&Value> = Vec::with_capacity(shape.len());
            for &v in items {
                match v {
                    Value::Ellipsis => full.extend(std::iter::repeat_n(&all, shape.len() - explicit)),
                    v => full.push(v),
                }
            }
            full.resize(shape.len(), &all);
            enum Start {
                Traced(Tensor),
                Int(i64),
            }
            let (mut starts, mut sizes, mut squeezed) = (Vec::new(), Vec::new(), Vec::new());
            // A static integer beyond its axis is no static slice to JAX: the whole index
            // becomes a `dynamic_slice` (whose start the machine clamps).
            let mut beyond = false;
            for (axis, (&v, &n)) in full.iter().zip(&shape).enumerate() {
                let n = n as i64;
                match v {
                    Value::Int(i) if n > 0 => {
                        beyond |= !(-n <= *i && *i < n);
                        starts.push(Start::Int(*i));
                        sizes.push(1);
                        squeezed.push(axis);
                    }
                    Value::Array(t @ Tensor::Traced(_))
                        if t.aval().rank() == 0 && t.aval().dtype.is_integer() && n > 0 =>
                    {
                        starts.push(Start::Traced(t.clone()));
                        sizes.push(1);
                        squeezed.push(axis);
                    }
                    // A contiguous slice with static bounds, as Python's `slice.indices` reads them.
                    Value::Slice(start, stop, None | Some(1)) => {
                        let bound = |b: Option<i64>, default: i64| match b {
                            None => default,
                            Some(b) if b < 0 => (b + n).max(0),
                            Some(b) => b.min(n),
                        };
                        let (start, stop) = (bound(*start, 0), bound(*stop, n));
                        starts.push(Start::Int(start));
                        sizes.push((stop - start).max(0) as usize);
                    }
                    _ => return Ok(None),
                }
            }
            let traced = starts.iter().filter(|s| matches!(s, Start::Traced(_))).count();
            let lone_int32 =
                starts.len() == 1 && matches!(&starts[0], Start::Traced(t) if t.aval().dtype == DType::I32);
            if !beyond && (traced == 0 || (starts.len() == 1 && !lone_int32)) {
                return Ok(None);
            }
            let ctx = &mut *self.ctx;
            // Several start indices are promoted to one type first (every traced one converted).
            let several = starts.len() > 1;
            let mut promoted = Vec::with_capacity(starts.len());
            for s in &starts {
                promoted.push(match s {
                    Start::Traced(t) if several => jnp::apply1(ctx, int32_conversion(), t).await?,
                    Start::Traced(t) => t.clone(),
                    Start::Int(i) => super::api::int32(*i as i32),
                });
            }
            let mut operands = vec![x.clone()];
            for ((s, start), &n) in promoted.iter().zip(&starts).zip(&shape) {
                let convert = !several && matches!(start, Start::Traced(_));
                operands.push(nonnegative_start(ctx, s, n, convert).await?);
            }
            let window = jnp::apply(ctx, jaxlite::Primitive::DynamicSlice { slice_sizes: sizes }, &operands).await?;
            Ok(Some(jnp::apply1(ctx, jaxlite::Primitive::Squeeze { dimensions: squeezed }, &window).await?))
        })
    }

    /// `x.at[index].set(v)` and its kin, for basic indices: the indexed box of x, as a strided
    /// slice from `start`, gets `v` (broadcast to it): `v` is padded into x's shape (interior
    /// padding for steps) and selected where a padded mask is set (`set`), added (`add`) or
    /// multiplied in (`multiply`, padding with 1). JAX uses a scatter; the values are the same
    /// and the ops differentiate and compile as they are.
    pub(super) fn at_update<'a>(
        &'a mut self,
        x: &'a Tensor,
        index: &'a Value,
        op: &'a str,
        args: Vec<Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if op == "get" {
                arity("get", &args, 0, 0)?;
                return self.index_array(x, index).await;
            }
            let concrete_index = self.concrete_masks(index);
            let index = concrete_index.as_ref().unwrap_or(index);
            arity(op, &args, 1, 1)?;
            // A list holding traced values (`.set([x, y])` inside jit) is stacked, as JAX does.
            let mut args = args;
            if !matches!(args[0], Value::Array(_)) && holds_tracer(&args[0], 0) {
                args[0] = Value::Array(self.as_array(&args[0], None).await?);
            }
            if let Some(positions) = traced_positions(index, x.aval().rank()) {
                return self.at_update_traced(x, &positions, op, &args[0]).await;
            }
            if let Some((first, indices)) = scatter_indices(index, x.aval().rank()) {
                return self.at_update_scatter(x, first, &indices, op, &args[0]).await;
            }
            let shape = x.aval().shape.clone();
            let dtype = x.aval().dtype;
            let items = index_items(index)?;
            let s = jnp_extra::basic_slice(&shape, &items, jnp_extra::OutOfBounds::Drop)?;
            let counts: Vec<usize> = (0..shape.len())
                .map(|d| if s.limit[d] > s.start[d] { (s.limit[d] - s.start[d] - 1) / s.strides[d] + 1 } else { 0 })
                .collect();
            if counts.contains(&0) {
                return Ok(Value::Array(x.clone()));
            }
            let v = self.to_tensor(&args[0])?;
            let v = jnp::astype(self.ctx, &v, dtype).await?;
            let v = jnp::broadcast_to(self.ctx, &v, &s.shape).await?;
            let dims: Vec<i64> = counts.iter().map(|&c| c as i64).collect();
            let v = jnp::reshape(self.ctx, &v, &dims).await?;
            let config: Vec<(i64, i64, usize)> = (0..shape.len())
                .map(|d| {
                    let end = s.start[d] + (counts[d] - 1) * s.strides[d] + 1;
                    (s.start[d] as i64, (shape[d] - end) as i64, s.strides[d] - 1)
                })
                .collect();
            let scalar = |x: f64| Tensor::from(Array::from_f32(vec![], vec![x as f32]).astype(dtype));
            // The fill is the pad's second operand: 0 to place, 1 to multiply. The pad places
            // the values where the slice took them from, in the array reversed along the axes a
            // negative step walks; a reversal puts them back.
            let ctx = &mut *self.ctx;
            let place = async |ctx: &mut jaxlite::Context, v: Tensor, fill: Tensor| -> R<Tensor> {
                let placed = jnp::apply(ctx, jaxlite::Primitive::Pad { config: config.clone() }, &[v, fill]).await?;
                if s.reversed.is_empty() {
                    return Ok(placed);
                }
                Ok(jnp::apply1(ctx, jaxlite::Primitive::Rev { dimensions: s.reversed.clone() }, &placed).await?)
            };
            let out = match op {
                "set" => {
                    let placed = place(ctx, v, scalar(0.0)).await?;
                    let ones = Tensor::from(jnp::full(&counts, 1.0, DType::F32));
                    let zero = Tensor::from(Array::from_f32(vec![], vec![0.0]));
                    let mask = place(ctx, ones, zero.clone()).await?;
                    let mask = jnp::compare(ctx, CompareOp::Ne, &mask, &zero).await?;
                    jnp::where_(ctx, &mask, &placed, x).await?
                }
                "add" => {
                    let placed = place(ctx, v, scalar(0.0)).await?;
                    jnp::binary(ctx, BinaryOp::Add, x, &placed).await?
                }
                // Elsewhere the fill is what changes nothing: −inf for max, +inf for min.
                "max" | "min" => {
                    let (fill, op) =
                        if op == "max" { (f64::NEG_INFINITY, BinaryOp::Max) } else { (f64::INFINITY, BinaryOp::Min) };
                    let placed = place(ctx, v, scalar(fill)).await?;
                    jnp::binary(ctx, op, x, &placed).await?
                }
                _ => {
                    let placed = place(ctx, v, scalar(1.0)).await?;
                    jnp::binary(ctx, BinaryOp::Mul, x, &placed).await?
                }
            };
            Ok(Value::Array(out))
        })
    }

    /// `x.at[index].op(v)` where `index` holds integers computed under a trace (`positions`,
    /// from `traced_positions`): each indexed axis compares its positions with the index
    /// (negative ones counting from the end), and the elements where every axis matches take
    /// the update. An index out of range matches nothing, so its update is dropped, as JAX's
    /// scatter drops it. Elementwise selections over `x`, which differentiate, batch and
    /// compile as they are (JAX uses a scatter; the values are the same).
    async fn at_update_traced(&mut self, x: &Tensor, positions: &[Option<Value>], op: &str, v: &Value) -> R<Value> {
        if let Some(out) = self.at_update_by_scatter(x, positions, op, v).await? {
            return Ok(Value::Array(out));
        }
        let (shape, dtype) = (x.aval().shape.clone(), x.aval().dtype);
        let mut inside: Option<Tensor> = None;
        let mut region = Vec::new();
        let mut kept = Vec::new();
        for (axis, &n) in shape.iter().enumerate() {
            let Some(index) = positions.get(axis).cloned().flatten() else {
                region.push(n);
                kept.push(n as i64);
                continue;
            };
            kept.push(1);
            let index = self.to_tensor(&index)?;
            if !matches!(index.aval().dtype, DType::I32) {
                return super::index_err(format!("indices must be integers, got {} in .at[]", aval_text(index.aval())));
            }
            inside = Some(and_matching(self.ctx, inside, &index, n, &shape, axis).await?);
        }
        let Some(inside) = inside else { return err("an .at[] update indexes no axis") };
        let v = self.to_tensor(v)?;
        let ctx = &mut *self.ctx;
        let v = jnp::astype(ctx, &v, dtype).await?;
        let v = jnp::broadcast_to(ctx, &v, &region).await?;
        let v = jnp::reshape(ctx, &v, &kept).await?;
        let v = jnp::broadcast_to(ctx, &v, &shape).await?;
        let updated = match op {
            "set" => v,
            "add" => jnp::binary(ctx, BinaryOp::Add, x, &v).await?,
            "max" => jnp::binary(ctx, BinaryOp::Max, x, &v).await?,
            "min" => jnp::binary(ctx, BinaryOp::Min, x, &v).await?,
            _ => jnp::binary(ctx, BinaryOp::Mul, x, &v).await?,
        };
        Ok(Value::Array(jnp::where_(ctx, &inside, &updated, x).await?))
    }

    /// `x.at[index].op(v)` for `set`, `add`, `multiply`, `min` and `max` where `index`
    /// (`positions`, from `traced_positions`) holds int32 scalars computed under a trace: a
    /// `scatter` (`scatter-add`, ...) staged as JAX's `_scatter_impl` stages it. Each computed
    /// index is made non-negative (`select_n(i < 0, i, i + n)`), then converted to int32
    /// where weakly typed; the indices (a constant one too) become one int32 vector; `v`,
    /// of x's type, is broadcast to the window. The machine moves just the window
    /// (`transform::lower`). `None` where the selections of `at_update_traced` must do: a
    /// boolean `x`, an update JAX would promote `x` for, an integer out of range.
    async fn at_update_by_scatter(
        &mut self,
        x: &Tensor,
        positions: &[Option<Value>],
        op: &str,
        v: &Value,
    ) -> R<Option<Tensor>> {
        let combine = match op {
            "set" => None,
            "add" => Some(BinaryOp::Add),
            "multiply" => Some(BinaryOp::Mul),
            "min" => Some(BinaryOp::Min),
            "max" => Some(BinaryOp::Max),
            _ => return Ok(None),
        };
        let (shape, dtype) = (x.aval().shape.clone(), x.aval().dtype);
        let v = self.to_tensor(v)?;
        let promotes_x = v.aval().dtype.is_float() && !dtype.is_float();
        if dtype == DType::Bool || (v.aval().dtype != dtype && (!v.aval().weak_type || promotes_x)) {
            return Ok(None);
        }
        // Each indexed axis and its index: a constant one as an int32 scalar, already
        // non-negative.
        let (mut axes, mut indices) = (Vec::new(), Vec::new());
        for (axis, position) in positions.iter().enumerate() {
            let n = shape[axis] as i64;
            match position {
                None => continue,
                Some(Value::Int(i)) if (-n..n).contains(i) => indices.push(int32_scalar(i.rem_euclid(n))),
                Some(Value::Array(t)) if t.aval().dtype == DType::I32 => indices.push(t.clone()),
                Some(_) => return Ok(None),
            }
            axes.push(axis);
        }
        // As JAX orders it: every computed index made non-negative, then each weakly typed one
        // (a Python int passed in, weak through its sum) converted.
        let ctx = &mut *self.ctx;
        let mut columns = Vec::with_capacity(indices.len());
        for (t, &axis) in indices.iter().zip(&axes) {
            columns.push(match t {
                Tensor::Traced(_) => nonnegative_start(ctx, t, shape[axis], false).await?,
                constant => constant.clone(),
            });
        }
        for (column, index) in columns.iter_mut().zip(&indices) {
            if index.aval().weak_type {
                *column = jnp::apply1(ctx, int32_conversion(), column).await?;
            }
        }
        let column = jaxlite::Primitive::BroadcastInDim { shape: vec![1], broadcast_dimensions: vec![] };
        let mut vector = Vec::with_capacity(columns.len());
        for c in &columns {
            vector.push(jnp::apply1(ctx, column.clone(), c).await?);
        }
        let indices = match vector.len() {
            1 => vector.remove(0),
            _ => jnp::apply(ctx, jaxlite::Primitive::Concatenate { dimension: 0 }, &vector).await?,
        };
        let window: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| shape[d]).collect();
        let v = jnp::astype(ctx, &v, dtype).await?;
        let v = jnp::broadcast_to(ctx, &v, &window).await?;
        let scatter = jaxlite::Primitive::Scatter { combine, axes };
        Ok(Some(jnp::apply(ctx, scatter, &[x.clone(), indices, v]).await?))
    }

    /// `x.at[indices].op(v)` with integer arrays on adjacent axes from `first`: a scatter, as
    /// selections. The index arrays broadcast together to the update positions B (negative
    /// indices counting from the end); each position compares with every element of `x` along
    /// the indexed axes, and the matches take the update: added (duplicates summed), combined
    /// by max or min, or set (the last of duplicates wins, as XLA's scatter applies them in
    /// order on the CPU). Out-of-range indices match nothing: dropped, as JAX's scatter drops
    /// them. Costs |B|·|x| elements, which the playground's array-size cap bounds.
    async fn at_update_scatter(
        &mut self,
        x: &Tensor,
        first: usize,
        indices: &[Value],
        op: &str,
        v: &Value,
    ) -> R<Value> {
        if x.aval().dtype == DType::Bool {
            let ints = jnp::astype(self.ctx, x, DType::I32).await?;
            let v = self.to_tensor(v)?;
            let v = Value::Array(jnp::astype(self.ctx, &v, DType::I32).await?);
            let Value::Array(out) = Box::pin(self.at_update_scatter(&ints, first, indices, op, &v)).await? else {
                return err("an .at[] update gave no array");
            };
            return Ok(Value::Array(jnp::astype(self.ctx, &out, DType::Bool).await?));
        }
        if !matches!(op, "set" | "add" | "multiply" | "max" | "min") {
            return super::unsupported(format!(
                ".at[].{op} with integer-array indices is not supported by the playground yet"
            ));
        }
        let (shape, dtype) = (x.aval().shape.clone(), x.aval().dtype);
        let count = indices.len();
        let mut idx = Vec::new();
        let mut positions: Vec<usize> = vec![];
        for i in indices {
            let t = self.to_tensor(i)?;
            if !t.aval().dtype.is_integer() {
                return super::index_err(format!(
                    "indexer must have integer type in .at[], got {}",
                    aval_text(t.aval())
                ));
            }
            positions = jnp::broadcast_shapes("scatter", &positions, &t.aval().shape)?;
            idx.push(t);
        }
        let n: usize = positions.iter().product();
        super::jax::check_size(&[n, shape.iter().product()])?;
        if op == "multiply" && n > super::api::MAX_PROD_FACTORS {
            return unsupported(format!(
                ".at[].multiply with {n} updates is not supported by the playground yet (at most {}: each is a multiply of its own)",
                super::api::MAX_PROD_FACTORS
            ));
        }
        let ctx = &mut *self.ctx;
        let rank = shape.len();
        // [n] ++ x's shape: one copy of x's positions per update.
        let mut full = vec![n];
        full.extend(&shape);
        let mut inside: Option<Tensor> = None;
        let int = int32_scalar;
        for (j, i) in idx.iter().enumerate() {
            let axis = first + j;
            let i = jnp::broadcast_to(ctx, i, &positions).await?;
            let mut column = vec![n as i64];
            column.extend(std::iter::repeat_n(1, rank));
            let i = jnp::reshape(ctx, &i, &column).await?;
            inside = Some(and_matching(ctx, inside, &i, shape[axis], &full, axis + 1).await?);
        }
        let Some(inside) = inside else { return err("an .at[] update indexes no axis") };
        // The updates as [n] ++ x's shape: v in the indexed region's shape (x's axes before
        // `first`, the positions, the axes after), the positions moved first, spread over the
        // indexed axes.
        let v = self.to_tensor(v)?;
        let ctx = &mut *self.ctx;
        let v = jnp::astype(ctx, &v, dtype).await?;
        let mut region: Vec<usize> = shape[..first].to_vec();
        region.extend(&positions);
        region.extend(&shape[first + count..]);
        let v = jnp::broadcast_to(ctx, &v, &region).await?;
        let mut flat: Vec<i64> = shape[..first].iter().map(|&d| d as i64).collect();
        flat.push(n as i64);
        flat.extend(shape[first + count..].iter().map(|&d| d as i64));
        let v = jnp::reshape(ctx, &v, &flat).await?;
        let mut order = vec![first];
        order.extend((0..flat.len()).filter(|&d| d != first));
        let v = jnp::transpose(ctx, &v, Some(&order)).await?;
        let mut spread: Vec<i64> = vec![n as i64];
        spread.extend(shape[..first].iter().map(|&d| d as i64));
        spread.extend(std::iter::repeat_n(1, count));
        spread.extend(shape[first + count..].iter().map(|&d| d as i64));
        let v = jnp::reshape(ctx, &v, &spread).await?;
        let v = jnp::broadcast_to(ctx, &v, &full).await?;
        let scalar = |x: f64| Tensor::from(Array::from_f32(vec![], vec![x as f32]).astype(dtype));
        // Fills that lose to every value: ±2^24 bounds the int32 values the machine holds.
        let (lowest, highest) =
            if dtype == DType::I32 { (-16_777_216.0, 16_777_216.0) } else { (f64::NEG_INFINITY, f64::INFINITY) };
        let hit = {
            let any = jnp::astype(ctx, &inside, DType::I32).await?;
            let any = jnp::reduce(ctx, &any, Some(&[0]), jnp::Reduction::Max).await?;
            jnp::compare(ctx, CompareOp::Gt, &any, &int(0)).await?
        };
        let updated = match op {
            "add" => {
                let terms = jnp::where_(ctx, &inside, &v, &scalar(0.0)).await?;
                let total = jnp::reduce(ctx, &terms, Some(&[0]), jnp::Reduction::Sum).await?;
                jnp::binary(ctx, BinaryOp::Add, x, &total).await?
            }
            // Each update multiplies in turn, in the order of the updates (as XLA's scatter on
            // the CPU applies them); an update elsewhere multiplies by 1.
            "multiply" => {
                let factors = jnp::where_(ctx, &inside, &v, &scalar(1.0)).await?;
                let mut product = x.clone();
                for j in 0..n {
                    let mut start = vec![0; full.len()];
                    start[0] = j;
                    let mut limit = full.clone();
                    limit[0] = j + 1;
                    let prim = jaxlite::Primitive::Slice { start_indices: start, limit_indices: limit, strides: None };
                    let factor = jnp::apply1(ctx, prim, &factors).await?;
                    let factor =
                        jnp::reshape(ctx, &factor, &shape.iter().map(|&d| d as i64).collect::<Vec<_>>()).await?;
                    product = jnp::binary(ctx, BinaryOp::Mul, &product, &factor).await?;
                }
                product
            }
            "max" | "min" => {
                let (fill, reduction, combine) = if op == "max" {
                    (lowest, jnp::Reduction::Max, BinaryOp::Max)
                } else {
                    (highest, jnp::Reduction::Min, BinaryOp::Min)
                };
                let terms = jnp::where_(ctx, &inside, &v, &scalar(fill)).await?;
                let extreme = jnp::reduce(ctx, &terms, Some(&[0]), reduction).await?;
                jnp::binary(ctx, combine, x, &extreme).await?
            }
            // set: the last update to reach each element.
            _ => {
                let order = jnp::apply(
                    ctx,
                    jaxlite::Primitive::Iota { dtype: DType::I32, shape: full.clone(), dimension: 0 },
                    &[],
                )
                .await?;
                let candidates = jnp::where_(ctx, &inside, &order, &int(-1)).await?;
                let last = jnp::reduce(ctx, &candidates, Some(&[0]), jnp::Reduction::Max).await?;
                let chosen = jnp::compare(ctx, CompareOp::Eq, &order, &last).await?;
                let chosen = jnp::binary(ctx, BinaryOp::And, &chosen, &inside).await?;
                // One term is chosen: a max keeps it exactly (a float sum would turn −0 into
                // +0); an int sum does too, and needs no fill below every value.
                if dtype == DType::I32 {
                    let terms = jnp::where_(ctx, &chosen, &v, &scalar(0.0)).await?;
                    jnp::reduce(ctx, &terms, Some(&[0]), jnp::Reduction::Sum).await?
                } else {
                    let terms = jnp::where_(ctx, &chosen, &v, &scalar(lowest)).await?;
                    jnp::reduce(ctx, &terms, Some(&[0]), jnp::Reduction::Max).await?
                }
            }
        };
        Ok(Value::Array(jnp::where_(ctx, &hit, &updated, x).await?))
    }

    /// `float(v)`.
    pub(super) fn to_float(&self, v: &Value) -> R<Value> {
        Ok(Value::Float(match v {
            Value::Float(x) => *x,
            Value::Int(i) => *i as f64,
            Value::Bool(b) => *b as i64 as f64,
            Value::Str(s) => parse_float(s.trim()).ok_or_else(|| {
                RtError::of(
                    super::objects::Builtin::ValueError,
                    format!("could not convert string to float: {}", repr(v)),
                )
            })?,
            Value::Array(_) => {
                self.download(&[v]);
                self.array_scalar(v, "float")?
            }
            Value::Host(h) => self.array_scalar(&Value::Array(Tensor::Concrete(h.get())), "float")?,
            other => {
                return err(format!("float() argument must be a string or a real number, not '{}'", other.type_name()))
            }
        }))
    }

    /// `int(v)`.
    pub(super) fn to_int(&self, v: &Value) -> R<Value> {
        Ok(Value::Int(match v {
            Value::Float(x) => float_to_int(*x)?,
            Value::Int(i) => *i,
            Value::Bool(b) => *b as i64,
            Value::Str(s) => s.trim().replace('_', "").parse().map_err(|_| {
                RtError::of(
                    super::objects::Builtin::ValueError,
                    format!("invalid literal for int() with base 10: {}", repr(v)),
                )
            })?,
            Value::Array(_) => {
                self.download(&[v]);
                float_to_int(self.array_scalar(v, "int")?)?
            }
            Value::Host(h) if h.dtype() == DType::I64 && h.get().size() == 1 => h.get().to_i64_vec()[0],
            Value::Host(h) => float_to_int(self.array_scalar(&Value::Array(Tensor::Concrete(h.get())), "int")?)?,
            other => {
                return err(format!(
                    "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                    other.type_name()
                ))
            }
        }))
    }

    /// The value of a one-element concrete array, with JAX's errors for the rest.
    fn array_scalar(&self, v: &Value, to: &str) -> R<f64> {
        match v {
            Value::Array(Tensor::Concrete(a)) => a.scalar_f64().ok_or_else(|| {
                RtError::new(format!(
                    "Only scalar arrays can be converted to Python scalars; got arr.ndim={}",
                    a.shape().len()
                ))
            }),
            Value::Array(Tensor::Traced(t)) => Err(super::tracer_errors::concretization(t, to)),
            _ => err(format!("expected an array, got {}", v.type_name())),
        }
    }

    pub(super) fn array_attr<'a>(&'a mut self, obj: &'a Value, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Value::Array(t) = obj else {
                return err("expected an array");
            };
            let aval = t.aval().clone();
            Ok(match name {
                "shape" => Value::tuple(aval.shape.iter().map(|&d| Value::Int(d as i64)).collect()),
                "ndim" => Value::Int(aval.rank() as i64),
                "size" => Value::Int(aval.size() as i64),
                "itemsize" => Value::Int(aval.dtype.size_bytes() as i64),
                "nbytes" => Value::Int((aval.size() * aval.dtype.size_bytes()) as i64),
                "dtype" => Value::DType(aval.dtype),
                "weak_type" => Value::Bool(aval.weak_type),
                "T" => Value::Array(jnp::transpose(self.ctx, t, None).await?),
                // The one device the array lives on (`x.devices()` is the set of it). A tracer
                // has none, as in JAX.
                "device" | "devices" | "sharding" if matches!(t, Tensor::Traced(_)) => {
                    return super::attr_err(format!("DynamicJaxprTracer has no attribute {name}"))
                }
                "device" | "sharding" => {
                    let module = self.import("jax._devices").await?;
                    let getter = if name == "device" { "device_of" } else { "sharding_of" };
                    let getter = self.get_attr(&module, getter).await?;
                    return self.call(getter, vec![obj.clone()], vec![]).await;
                }
                "devices" => Value::native(Native::Method(obj.clone(), "devices")),
                // `x.at[index]` then `.set(v)`, `.add(v)`, `.multiply(v)` or `.get()`.
                "at" => Value::native(Native::Method(obj.clone(), "at")),
                _ => match find(
                    &[
                        "reshape",
                        "sum",
                        "max",
                        "mean",
                        "astype",
                        "transpose",
                        "item",
                        "tolist",
                        "block_until_ready",
                        "copy",
                    ],
                    name,
                )
                .or_else(|| find(ARRAY_METHODS_OF_JNP, name))
                {
                    Some(m) => Value::native(Native::Method(obj.clone(), m)),
                    None => return super::attr_err(format!("'ArrayImpl' object has no attribute '{name}'")),
                },
            })
        })
    }

    pub(super) fn call_array_method<'a>(
        &'a mut self,
        t: &'a Tensor,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let x = self.to_tensor(&Value::Array(t.clone()))?;
            match name {
                "reshape" => {
                    no_more_kwargs(name, &kwargs)?;
                    let dims = reshape_dims(&args)?;
                    Ok(Value::Array(jnp::reshape(self.ctx, &x, &dims).await?))
                }
                "sum" | "max" | "min" | "mean" => {
                    let axis = take_kwarg(&mut kwargs, "axis");
                    let keep = take_kwarg(&mut kwargs, "keepdims");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 1)?;
                    let axes = axes_arg(axis.as_ref().or(args.first()))?;
                    self.reduce_keeping(name, &x, axes, keep).await
                }
                "astype" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    let d = dtype_arg(&args[0])?;
                    Ok(Value::Array(self.astype(&x, d).await?))
                }
                "transpose" => {
                    no_more_kwargs(name, &kwargs)?;
                    let axes = match args.len() {
                        0 => None,
                        _ => Some(reshape_dims(&args)?),
                    };
                    self.transpose(&x, axes).await
                }
                "item" => {
                    arity(name, &args, 0, 0)?;
                    let v = self.concrete(Value::Array(x.clone())).await?;
                    if !self.ctx.on_host() {
                        self.download(&[&v]);
                    }
                    let scalar = self.array_scalar(&v, "item")?;
                    Ok(match (x.aval().dtype, &v) {
                        (DType::I64, Value::Array(Tensor::Concrete(a))) if a.size() == 1 => {
                            Value::Int(a.to_i64_vec()[0])
                        }
                        (DType::I32 | DType::I64 | DType::U32, _) => Value::Int(scalar as i64),
                        (DType::Bool, _) => Value::Bool(scalar != 0.0),
                        _ => Value::Float(scalar),
                    })
                }
                // The values as nested Python lists of Python numbers.
                "tolist" => {
                    arity(name, &args, 0, 0)?;
                    let a = match &x {
                        Tensor::Concrete(a) => a,
                        Tensor::Traced(t) => return Err(super::tracer_errors::concretization(t, "tolist")),
                    };
                    if !self.ctx.on_host() {
                        self.download(&[&Value::Array(x.clone())]);
                    }
                    let integer = matches!(a.aval.dtype, DType::I32 | DType::I64 | DType::U32);
                    let number = |v: f64| match a.aval.dtype {
                        DType::Bool => Value::Bool(v != 0.0),
                        _ => Value::Float(v),
                    };
                    fn nest(values: &mut impl Iterator<Item = Value>, shape: &[usize]) -> Value {
                        match shape {
                            [] => values.next().unwrap_or(Value::None),
                            [d, rest @ ..] => Value::list((0..*d).map(|_| nest(values, rest)).collect()),
                        }
                    }
                    if integer {
                        return Ok(nest(&mut a.to_i64_vec().into_iter().map(Value::Int), &a.aval.shape));
                    }
                    Ok(nest(&mut a.to_f64_vec().into_iter().map(number), &a.aval.shape))
                }
                "copy" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 0)?;
                    Ok(Value::Array(self.copied(&x).await?))
                }
                // Arrays here are ready when the call that made them returns.
                "block_until_ready" => {
                    arity(name, &args, 0, 0)?;
                    Ok(Value::Array(x.clone()))
                }
                "devices" => {
                    arity(name, &args, 0, 0)?;
                    let module = self.import("jax._devices").await?;
                    let getter = self.get_attr(&module, "devices_of").await?;
                    self.call(getter, vec![Value::Array(x.clone())], vec![]).await
                }
                "flatten" | "ravel" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 0)?;
                    Ok(Value::Array(jnp::reshape(self.ctx, &x, &[-1]).await?))
                }
                // `x.f(args)` is `jnp.f(x, args)` for these, as in JAX.
                _ if ARRAY_METHODS_OF_JNP.contains(&name) => {
                    let mut all = vec![Value::Array(x.clone())];
                    all.extend(args);
                    self.call_jnp(name, all, kwargs).await
                }
                _ => super::attr_err(format!("'ArrayImpl' object has no attribute '{name}'")),
            }
        })
    }

    /// `jnp.sum(x, axis, keepdims=...)` and its kin: the reduction, with the reduced axes kept
    /// as size 1 when asked.
    fn reduce_keeping<'a>(
        &'a mut self,
        name: &'a str,
        x: &'a Tensor,
        axes: Option<Vec<i64>>,
        keep: Option<Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let keep = match &keep {
                Some(v) => self.truthy(v)?,
                None => false,
            };
            let r = self.reduce(name, x, axes.clone()).await?;
            if !keep {
                return Ok(r);
            }
            let r = self.to_tensor(&r)?;
            Ok(Value::Array(self.maybe_keepdims(r, x, axes, true).await?))
        })
    }

    pub(super) fn reduce<'a>(
        &'a mut self,
        name: &'a str,
        x: &'a Tensor,
        axes: Option<Vec<i64>>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let kind = match name {
                "max" => jnp::Reduction::Max,
                "min" => jnp::Reduction::Min,
                _ => jnp::Reduction::Sum,
            };
            let summed = jnp::reduce(self.ctx, x, axes.as_deref(), kind).await?;
            if name != "mean" {
                return Ok(Value::Array(summed));
            }
            let in_size = x.aval().size();
            let out_size = summed.aval().size().max(1);
            let count = Tensor::from(Array::weak_scalar_f32((in_size / out_size) as f32));
            Ok(Value::Array(jnp::true_divide(self.ctx, &summed, &count).await?))
        })
    }

    fn transpose<'a>(&'a mut self, x: &'a Tensor, axes: Option<Vec<i64>>) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let rank = x.aval().rank();
            let axes = match axes {
                None => None,
                Some(a) => Some(jnp::normalize_axes(Some(&a), rank)?),
            };
            Ok(Value::Array(jnp::transpose(self.ctx, x, axes.as_deref()).await?))
        })
    }

    pub(super) fn call_jnp<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // NumPy's functions (run here on the host) take lists.
            if !self.ctx.on_host() {
                check_arraylike(name, &args)?;
            }
            if let Some(&(own, jit_name)) = LIBRARY_JITS.iter().find(|(n, _)| *n == name) {
                let body = self.library_jit_body.take() == Some(own);
                if !body && self.ctx.is_tracing() && args.len() == 3 {
                    return self.call_library_jit(own, jit_name, args, kwargs).await;
                }
            }
            if super::api::JNP_MORE.contains(&name) {
                return self.call_jnp_more(name, args, kwargs).await;
            }
            if super::arrange::JNP_ARRANGE.contains(&name) {
                return self.call_arrange(name, args, kwargs).await;
            }
            if super::numeric::JNP_NUMERIC.contains(&name) {
                return self.call_numeric(name, args, kwargs).await;
            }
            if super::sets::JNP_SETS.contains(&name) {
                return self.call_sets(name, args, kwargs).await;
            }
            if super::shorthands::JNP_SHORTHANDS.contains(&name) {
                return self.call_shorthand(name, args, kwargs).await;
            }
            if super::composed::JNP_COMPOSED.contains(&name) {
                return self.call_composed(name, args, kwargs).await;
            }
            if super::linalg::LINALG_FUNCTIONS.contains(&name) {
                return self.call_linalg(name, args, kwargs).await;
            }
            if super::dtype_info::JNP_DTYPE_TESTS.contains(&name) {
                no_more_kwargs(name, &kwargs)?;
                return super::dtype_info::issubdtype(&args);
            }
            if super::dtype_info::JNP_PROMOTION.contains(&name) {
                no_more_kwargs(name, &kwargs)?;
                return super::dtype_info::promotion(self.ctx, name, &args);
            }
            if super::dtype_info::JNP_DTYPE_INFO.contains(&name) {
                let of = take_kwarg(&mut kwargs, "dtype").or_else(|| args.first().cloned());
                no_more_kwargs(name, &kwargs)?;
                arity(name, &args, 0, 1)?;
                let Some(of) = of else {
                    return err(format!("{name}() missing 1 required positional argument: 'dtype'"));
                };
                let dtype = super::dtype_info::info_dtype(name, &of)?;
                return Ok(Value::native(Native::DTypeInfo(dtype)));
            }
            let dtype = optional_dtype(take_kwarg(&mut kwargs, "dtype"))?;
            let unary = |op| Some(op);
            let unary_op = match name {
                "tanh" => unary(JUnary::Tanh),
                "exp" => unary(JUnary::Exp),
                "log" => unary(JUnary::Log),
                "sqrt" => unary(JUnary::Sqrt),
                "abs" => unary(JUnary::Abs),
                "negative" => unary(JUnary::Neg),
                _ => None,
            };
            if let Some(op) = unary_op {
                no_more_kwargs(name, &kwargs)?;
                return self.unary_call(name, &args, op).await;
            }
            let binary_op = match name {
                "add" => Some(BinOp::Add),
                "subtract" => Some(BinOp::Sub),
                "multiply" => Some(BinOp::Mul),
                "divide" => Some(BinOp::Div),
                "matmul" => Some(BinOp::MatMul),
                _ => None,
            };
            if let Some(op) = binary_op {
                let precision = if op == BinOp::MatMul { take_kwarg(&mut kwargs, "precision") } else { None };
                let preferred =
                    if op == BinOp::MatMul { take_kwarg(&mut kwargs, "preferred_element_type") } else { None };
                no_more_kwargs(name, &kwargs)?;
                arity(name, &args, 2, 2)?;
                let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                if op == BinOp::MatMul {
                    let sums = preferred_sums(name, preferred, &[&x, &y])?;
                    let precision = precision_arg(precision)?;
                    return Ok(Value::Array(jnp::matmul_preferring(self.ctx, &x, &y, precision, sums).await?));
                }
                return self.array_binary(op, &Value::Array(x), &Value::Array(y)).await;
            }
            let axis = if matches!(name, "sum" | "max" | "mean" | "transpose") {
                take_kwarg(&mut kwargs, if name == "transpose" { "axes" } else { "axis" })
            } else {
                None
            };
            let keep = if matches!(name, "sum" | "max" | "mean") { take_kwarg(&mut kwargs, "keepdims") } else { None };
            let fill = if name == "full" { take_kwarg(&mut kwargs, "fill_value") } else { None };
            let precision = if name == "dot" { take_kwarg(&mut kwargs, "precision") } else { None };
            let preferred = if name == "dot" { take_kwarg(&mut kwargs, "preferred_element_type") } else { None };
            let mut args = args;
            if matches!(name, "zeros" | "ones" | "full" | "empty") {
                super::builtins::by_position(name, &mut args, &mut kwargs, &["shape"])?;
            }
            no_more_kwargs(name, &kwargs)?;
            match name {
                "array" | "asarray" => {
                    // array(object, dtype=None): the dtype by position too.
                    arity(name, &args, 1, 2)?;
                    let dtype = match (args.get(1), dtype) {
                        (Some(_), Some(_)) => return err(format!("{name}() got multiple values for argument 'dtype'")),
                        (Some(d), None) => optional_dtype(Some(d.clone()))?,
                        (None, d) => d,
                    };
                    // `array` copies a traced array first (JAX's `copy` equation); `asarray` not.
                    if let (Value::Array(t @ Tensor::Traced(_)), "array") = (&args[0], name) {
                        let copied = self.copied(t).await?;
                        return Ok(Value::Array(match dtype {
                            Some(d) => self.astype(&copied, d).await?,
                            None => copied,
                        }));
                    }
                    Ok(Value::Array(self.as_array(&args[0], dtype).await?))
                }
                "zeros" | "ones" => {
                    // zeros(shape, dtype=None): the dtype by position too.
                    arity(name, &args, 1, 2)?;
                    let dtype = match (args.get(1), dtype) {
                        (Some(_), Some(_)) => return err(format!("{name}() got multiple values for argument 'dtype'")),
                        (Some(Value::Int(n)), None) => {
                            return err(format!(
                                "Cannot interpret '{n}' as a data type. Did you accidentally write \
                                 `jax.numpy.{name}({}, {n})` when you meant `jax.numpy.{name}(({}, {n}))`, i.e. with a \
                                 single tuple argument for the shape?",
                                repr(&args[0]),
                                repr(&args[0])
                            ))
                        }
                        (Some(d), None) => optional_dtype(Some(d.clone()))?,
                        (None, d) => d,
                    };
                    let value = if name == "ones" { 1.0 } else { 0.0 };
                    let shape = shape_arg(&args[0])?;
                    Ok(Value::Array(
                        jnp::full_in(self.ctx, &shape, value, dtype.unwrap_or(self.ctx.default_float()), false).await?,
                    ))
                }
                "full" => {
                    let fill = fill.or_else(|| args.get(1).cloned());
                    arity(name, &args, 1, 2)?;
                    let fill = fill.ok_or_else(|| RtError::new("full() missing required argument 'fill_value'"))?;
                    let python_number = matches!(fill, Value::Int(_) | Value::Float(_));
                    let fill = self.as_array(&fill, None).await?;
                    let shape = shape_arg(&args[0])?;
                    let Some(value) = fill.concrete().and_then(Array::scalar_f64) else {
                        // A traced (or array) fill is broadcast to the shape, as JAX's `full`.
                        let fill = match dtype {
                            Some(d) if d != fill.aval().dtype => jnp::astype(self.ctx, &fill, d).await?,
                            _ => fill,
                        };
                        return Ok(Value::Array(jnp::broadcast_to(self.ctx, &fill, &shape).await?));
                    };
                    // Typed by the fill when no dtype is given, weakly by a Python scalar.
                    let (dtype, weak) = match dtype {
                        Some(d) => (d, false),
                        None => (fill.aval().dtype, python_number || fill.aval().weak_type),
                    };
                    Ok(Value::Array(jnp::full_in(self.ctx, &shape, value, dtype, weak).await?))
                }
                "zeros_like" | "ones_like" => {
                    arity(name, &args, 1, 1)?;
                    let aval = self.to_tensor(&args[0])?.aval().clone();
                    let value = if name == "ones_like" { 1.0 } else { 0.0 };
                    // `x`'s weak typing too, when no dtype is given (JAX's `full_like`).
                    let (dtype, weak) = match dtype {
                        Some(d) => (d, false),
                        None => (aval.dtype, aval.weak_type),
                    };
                    Ok(Value::Array(jnp::full_in(self.ctx, &aval.shape, value, dtype, weak).await?))
                }
                "arange" => {
                    arity(name, &args, 1, 3)?;
                    let nums: Vec<f64> = args
                        .iter()
                        .map(|a| self.to_float(a).map(|v| super::value::as_f64(&v).unwrap_or(0.0)))
                        .collect::<R<_>>()?;
                    let (start, stop, step) = match nums[..] {
                        [stop] => (0.0, stop, 1.0),
                        [start, stop] => (start, stop, 1.0),
                        [start, stop, step] => (start, stop, step),
                        _ => (0.0, 0.0, 1.0),
                    };
                    // Python or NumPy integers (`np.prod(shape)`) count as integers.
                    let all_int = args.iter().all(|a| match a {
                        Value::Int(_) => true,
                        Value::Host(h) => h.get().shape().is_empty() && h.dtype().is_integer(),
                        _ => false,
                    });
                    let n = ((stop - start) / step).ceil();
                    if n.is_finite() && n > MAX_ELEMENTS as f64 {
                        // The real length in the message (`as` saturates beyond usize).
                        check_size(&[n as usize])?;
                    }
                    let dtype =
                        dtype.unwrap_or(if all_int { self.ctx.default_int() } else { self.ctx.default_float() });
                    Ok(Value::Array(jnp::arange_in(self.ctx, start, stop, step, dtype).await?))
                }
                // `jnp.dtype(jnp.float32)`, `jnp.dtype('int32')`: the dtype object.
                "dtype" => {
                    arity(name, &args, 1, 1)?;
                    Ok(Value::DType(dtype_arg(&args[0])?))
                }
                "float32" | "int32" | "bfloat16" | "bool_" | "float64" | "int64" => {
                    arity(name, &args, 1, 1)?;
                    let d = requested_dtype(&Value::str(name))?;
                    Ok(Value::Array(self.as_array(&args[0], Some(d)).await?))
                }
                "square" => {
                    arity(name, &args, 1, 1)?;
                    let x = self.to_tensor(&args[0])?;
                    self.power(&x, &Value::Int(2)).await
                }
                "maximum" | "minimum" => {
                    arity(name, &args, 2, 2)?;
                    let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                    let op = if name == "maximum" { BinaryOp::Max } else { BinaryOp::Min };
                    Ok(Value::Array(jnp::binary(self.ctx, op, &x, &y).await?))
                }
                "dot" => {
                    arity(name, &args, 2, 2)?;
                    let (x, y) = (self.to_tensor(&args[0])?, self.to_tensor(&args[1])?);
                    if x.aval().rank() == 0 || y.aval().rank() == 0 {
                        // A product, not a dot: widened first where float32 sums are asked for.
                        let xy = self.preferred_operands(name, preferred, vec![x, y]).await?;
                        let (x, y) = (Value::Array(xy[0].clone()), Value::Array(xy[1].clone()));
                        return self.array_binary(BinOp::Mul, &x, &y).await;
                    }
                    let sums = preferred_sums(name, preferred, &[&x, &y])?;
                    Ok(Value::Array(jnp::matmul_preferring(self.ctx, &x, &y, precision_arg(precision)?, sums).await?))
                }
                "reshape" => {
                    arity(name, &args, 2, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let dims = reshape_dims(&args[1..])?;
                    Ok(Value::Array(jnp::reshape(self.ctx, &x, &dims).await?))
                }
                "transpose" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let axes = match axis.as_ref().or(args.get(1)) {
                        None | Some(Value::None) => None,
                        Some(a) => Some(reshape_dims(std::slice::from_ref(a))?),
                    };
                    self.transpose(&x, axes).await
                }
                "sum" | "max" | "mean" => {
                    arity(name, &args, 1, 2)?;
                    let x = self.to_tensor(&args[0])?;
                    let axes = axes_arg(axis.as_ref().or(args.get(1)))?;
                    self.reduce_keeping(name, &x, axes, keep).await
                }
                _ => super::unsupported(format!("jnp.{name} is not implemented")),
            }
        })
    }

    pub(super) fn call_jax<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match name {
                "custom_jvp" | "custom_vjp" => {
                    let nondiff = int_list_arg("nondiff_argnums", take_kwarg(&mut kwargs, "nondiff_argnums"))?;
                    if nondiff.iter().any(|&i| i < 0) {
                        return super::unsupported("negative nondiff_argnums are not supported by the playground yet");
                    }
                    let nondiff: Vec<usize> = nondiff.into_iter().map(|i| i as usize).collect();
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    let func = args[0].clone();
                    Ok(Value::native(if name == "custom_jvp" {
                        Native::CustomJvp(super::custom_derivatives::CustomJvpFn {
                            func,
                            rule: std::cell::RefCell::new(None),
                            nondiff,
                        })
                    } else {
                        Native::CustomVjp(super::custom_derivatives::CustomVjpFn {
                            func,
                            passes: std::cell::RefCell::new(None),
                            nondiff,
                        })
                    }))
                }
                "checkpoint" | "remat" => self.checkpoint(name, args, kwargs),
                factory if find(super::remat::POLICY_FACTORIES, factory).is_some() => {
                    super::remat::make_policy(factory, &args, &kwargs)
                }
                // `@jax.jit(static_argnums=...)`: a decorator that jits what it decorates.
                "jit" if args.is_empty() => {
                    Ok(Value::native(Native::Partial { func: Value::native(Native::Jax("jit")), args, kwargs }))
                }
                "jit" => {
                    let static_argnums = int_list_arg("static_argnums", take_kwarg(&mut kwargs, "static_argnums"))?;
                    let static_argnames = str_list_arg("static_argnames", take_kwarg(&mut kwargs, "static_argnames"))?;
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    if !self.is_callable(&args[0]) {
                        return err(format!("Expected a callable value, got {}", repr(&args[0])));
                    }
                    let (static_argnums, static_argnames) =
                        static_arguments(&args[0], static_argnums, static_argnames)?;
                    let name = function_name(&args[0]);
                    let cache = self.jit_cache(&args[0], &name, &static_argnums, &static_argnames);
                    let jitted = Jitted { name, func: args[0].clone(), static_argnums, static_argnames, cache };
                    Ok(Value::native(Native::Jitted(jitted)))
                }
                // f applied leaf by leaf to trees of one structure; the result has that structure.
                "tree_map" => {
                    let is_leaf = take_kwarg(&mut kwargs, "is_leaf");
                    no_more_kwargs(name, &kwargs)?;
                    arity("tree_map", &args, 2, usize::MAX)?;
                    let mut args = args.into_iter();
                    let f = args.next().unwrap_or(Value::None);
                    let first = args.next().unwrap_or(Value::None);
                    let mut leaves = Vec::new();
                    let tree = self.tree_of(&first, is_leaf.as_ref(), &mut leaves).await?;
                    let mut columns = vec![leaves];
                    for (i, other) in args.enumerate() {
                        let mut leaves = Vec::new();
                        let path = if i == 0 { "tree_map rest[0]".to_string() } else { format!("tree_map rest[{i}]") };
                        self.flatten_up_to(&tree, &other, path, &mut leaves).await?;
                        columns.push(leaves);
                    }
                    let mut results = Vec::new();
                    for i in 0..columns[0].len() {
                        let leaf_args = columns.iter().map(|c| c[i].clone()).collect();
                        results.push(self.call(f.clone(), leaf_args, vec![]).await?);
                    }
                    self.unflatten_tree(&tree, &mut results.into_iter()).await
                }
                // functools.reduce over the leaves; `all` of them.
                "tree_reduce" | "tree_all" => {
                    let is_leaf = take_kwarg(&mut kwargs, "is_leaf");
                    let (function, tree, initial) = match name {
                        "tree_reduce" => {
                            let f = take_kwarg(&mut kwargs, "function").or_else(|| args.first().cloned());
                            let t = take_kwarg(&mut kwargs, "tree").or_else(|| args.get(1).cloned());
                            (f, t, take_kwarg(&mut kwargs, "initializer").or_else(|| args.get(2).cloned()))
                        }
                        _ => (None, take_kwarg(&mut kwargs, "tree").or_else(|| args.first().cloned()), None),
                    };
                    no_more_kwargs(name, &kwargs)?;
                    let Some(tree) = tree else { return err(format!("{name}() missing argument 'tree'")) };
                    let mut leaves = Vec::new();
                    self.tree_of(&tree, is_leaf.as_ref(), &mut leaves).await?;
                    let Some(function) = function else {
                        for leaf in &leaves {
                            if !self.truthy(leaf)? {
                                return Ok(Value::Bool(false));
                            }
                        }
                        return Ok(Value::Bool(true));
                    };
                    let mut leaves = leaves.into_iter();
                    let Some(mut acc) = initial.or_else(|| leaves.next()) else {
                        return super::value_err("reduce() of empty iterable with no initial value");
                    };
                    for leaf in leaves {
                        acc = self.call(function.clone(), vec![acc, leaf], vec![]).await?;
                    }
                    Ok(acc)
                }
                "pure_callback" | "io_callback" | "debug.callback" | "debug.print" => {
                    self.host_callback(name, args, kwargs).await
                }
                "ShapeDtypeStruct.like" => {
                    no_more_kwargs(name, &kwargs)?;
                    self.shape_dtype_like(&args)
                }
                _ if REGISTRATIONS.contains(&name) => self.call_registration(name, args, kwargs).await,
                "ShapeDtypeStruct" => {
                    let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
                    let (Some(shape), Some(dtype)) = (arg(0, "shape"), arg(1, "dtype")) else {
                        return err("ShapeDtypeStruct() takes a shape and a dtype");
                    };
                    let weak_type = match arg(2, "weak_type") {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    };
                    let _ = take_kwarg(&mut kwargs, "sharding");
                    no_more_kwargs(name, &kwargs)?;
                    let aval = Aval { shape: abstract_shape_arg(&shape)?, dtype: dtype_arg(&dtype)?, weak_type };
                    Ok(Value::native(Native::ShapeDtypeStruct(aval)))
                }
                "eval_shape" => self.eval_shape(args, kwargs).await,
                // Every result is ready when the call that made it returns.
                "block_until_ready" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    Ok(args[0].clone())
                }
                // Callbacks run when the call that stages them does, in program order: by the
                // time a call returns, every effect it had has happened.
                "new_ref" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    self.new_ref(&args[0])
                }
                "freeze" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    self.freeze(&args[0])
                }
                "effects_barrier" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 0, 0)?;
                    Ok(Value::None)
                }
                "default_matmul_precision" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    match precision_arg(Some(args[0].clone()))? {
                        Some(p) => Ok(Value::native(Native::PrecisionScope(p))),
                        None => err("default_matmul_precision: expected a precision name such as 'highest'"),
                    }
                }
                "tree_leaves" | "tree_flatten" | "tree_structure" => {
                    let is_leaf = take_kwarg(&mut kwargs, "is_leaf");
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    let mut leaves = Vec::new();
                    let tree = self.tree_of(&args[0], is_leaf.as_ref(), &mut leaves).await?;
                    let treedef = || Value::native(Native::TreeDef(tree));
                    Ok(match name {
                        "tree_leaves" => Value::list(leaves),
                        "tree_flatten" => Value::tuple(vec![Value::list(leaves), treedef()]),
                        _ => treedef(),
                    })
                }
                "tree_unflatten" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 2, 2)?;
                    let Value::Native(n) = &args[0] else {
                        return err(format!("tree_unflatten expects a PyTreeDef, got {}", args[0].type_name()));
                    };
                    let Native::TreeDef(tree) = &**n else {
                        return err("tree_unflatten expects a PyTreeDef");
                    };
                    let leaves = self.iterate(&args[1])?;
                    let want = tree.num_leaves();
                    if leaves.len() != want {
                        let few = if leaves.len() < want { "few" } else { "many" };
                        return super::value_err(format!(
                            "Too {few} leaves for PyTreeDef; expected {want}, got {}",
                            leaves.len()
                        ));
                    }
                    self.unflatten_tree(tree, &mut leaves.into_iter()).await
                }
                "make_jaxpr" => {
                    let static_argnums = int_list_arg("static_argnums", take_kwarg(&mut kwargs, "static_argnums"))?;
                    no_more_kwargs(name, &kwargs)?;
                    arity(name, &args, 1, 1)?;
                    let static_argnums = static_argnums.into_iter().filter_map(|i| usize::try_from(i).ok()).collect();
                    Ok(Value::native(Native::MakeJaxpr { func: args[0].clone(), static_argnums }))
                }
                "partial" => {
                    arity(name, &args, 1, usize::MAX)?;
                    let mut args = args;
                    let func = args.remove(0);
                    Ok(Value::native(Native::Partial { func, args, kwargs }))
                }
                "config.update" => {
                    no_more_kwargs(name, &kwargs)?;
                    arity("update", &args, 2, 2)?;
                    match (&args[0], &args[1]) {
                        (Value::Str(option), Value::Str(value)) if &**option == "jax_default_matmul_precision" => {
                            self.ctx.default_precision = Precision::parse(value)
                                .ok_or_else(|| RtError::new(format!("unknown matmul precision {}", repr(&args[1]))))?;
                            Ok(Value::None)
                        }
                        (Value::Str(option), Value::None) if &**option == "jax_default_matmul_precision" => {
                            self.ctx.default_precision = self.initial_precision;
                            Ok(Value::None)
                        }
                        (Value::Str(option), v) if &**option == "jax_explain_cache_misses" => {
                            self.explain_cache_misses = self.truthy(v)?;
                            Ok(Value::None)
                        }
                        (Value::Str(option), v) if &**option == "jax_enable_x64" => {
                            if self.truthy(v)? {
                                return super::unsupported(
                                    "64-bit mode is not supported by the playground (TPUs compute in 32 bits)",
                                );
                            }
                            Ok(Value::None)
                        }
                        (option, _) => {
                            err(format!("the playground does not support the config option {}", repr(option)))
                        }
                    }
                }
                "grad" | "value_and_grad" | "jacfwd" | "jacrev" | "hessian" | "vmap" => {
                    self.make_transformed(name, args, kwargs)
                }
                "pmap" => self.make_pmapped(args, kwargs),
                "jvp" => {
                    no_more_kwargs(name, &kwargs)?;
                    self.jvp_call(args).await
                }
                "vjp" => {
                    no_more_kwargs(name, &kwargs)?;
                    self.vjp_call(args).await
                }
                "linearize" => {
                    no_more_kwargs(name, &kwargs)?;
                    self.linearize_call(args).await
                }
                _ => err(format!("jax.{name} is not callable")),
            }
        })
    }

    /// Flattens a pytree of arrays and Python scalars into tensors.
    pub(super) async fn flatten(&mut self, v: &Value, leaves: &mut Vec<Tensor>) -> R<Tree> {
        let mut values = Vec::new();
        let tree = self.tree_of(v, None, &mut values).await?;
        for leaf in &values {
            match leaf {
                Value::Array(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Key(_) | Value::Host(_) => {
                    leaves.push(self.to_tensor(leaf)?)
                }
                r if super::refs::ref_cell(r).is_some() => {
                    return unsupported(
                        "a jax.new_ref inside a pytree, passed to a transformation or returned from one, is not \
                         supported by the playground yet (jax.jit and jax.vmap take refs as arguments of their own)",
                    )
                }
                other => {
                    return err(format!(
                        "a value of type {} is not a valid JAX type (jit arguments and results must be arrays, numbers, or lists, tuples and dicts of them; mark other arguments static)",
                        other.type_name()
                    ))
                }
            }
        }
        Ok(tree)
    }

    /// Traces `f` on abstract versions of `args`: each argument with a tree is replaced by
    /// tracers for its leaves; static arguments (no tree) are passed as they are.
    pub(super) fn trace<'a>(&'a mut self, f: &'a Value, call: &'a CallArgs) -> LocalFuture<'a, R<Compiled>> {
        Box::pin(async move {
            let mut tracers = self.ctx.begin_trace(&call.types).into_iter();
            let mut outs = Vec::new();
            let mut refs = super::refs::RefEffects::default();
            let flattened = async {
                let mut traced_args = Vec::with_capacity(call.args.len());
                for (a, tree) in call.args.iter().zip(&call.trees) {
                    traced_args.push(match tree {
                        Some(t) => self.unflatten_tree(t, &mut (&mut tracers).map(Value::of_tensor)).await?,
                        None => a.clone(),
                    });
                }
                let kwargs = split_keywords(&mut traced_args, &call.keywords);
                let site = self.trace_site(f, TracedFor::Named("jit"), call.trees.clone(), &call.keywords);
                let result = self.call_in_trace(site, traced_args, kwargs).await;
                let tree = self.flatten(&result?, &mut outs).await?;
                refs = self.discharge_refs(&mut outs, &call.args);
                Ok(tree)
            }
            .await;
            let out_tree = match flattened {
                Ok(tree) => tree,
                Err(e) => {
                    self.ctx.abort_trace();
                    return Err(e);
                }
            };
            match self.ctx.end_trace(&outs) {
                Ok(closed) => Ok(Compiled { closed, captured: vec![], out_tree, nested: Default::default(), refs }),
                Err(e) => {
                    self.ctx.abort_trace();
                    Err(e.into())
                }
            }
        })
    }

    /// JAX's warning for a 64-bit dtype a call asked for without x64 (`requested_dtype`):
    /// "requested in `site`" where JAX names the function.
    pub(super) async fn warn_truncation(&mut self, site: Option<&str>) -> R<()> {
        let Some((from, to)) = take_truncation() else { return Ok(()) };
        let requested = site.map_or(String::new(), |s| format!(" requested in {s}"));
        let message = format!(
            "Explicitly requested dtype {}{requested} is not available, and will be truncated to dtype {}. To enable \
             more dtypes, set the jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment \
             variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
            from.name(),
            to.name()
        );
        let warnings = self.import("warnings").await?;
        let warn = self.get_attr(&warnings, "warn").await?;
        self.call(warn, vec![Value::str(&message)], vec![]).await?;
        Ok(())
    }

    /// The trace cache of `jax.jit(f)` with these options: one per function (while it lives)
    /// and options, shared by every `jit` wrapper of it, as JAX's cache of traces is.
    pub(super) fn jit_cache(
        &mut self,
        f: &Value,
        name: &str,
        nums: &[usize],
        names: &[String],
    ) -> super::value::JitCache {
        let Some((address, fn_ref)) = super::value::fn_ref(f) else { return Default::default() };
        let key = (address, format!("{name}|{nums:?}|{names:?}"));
        if let Some((held, cache)) = self.jit_caches.get(&key) {
            if held.strong_count() > 0 {
                return cache.clone();
            }
        }
        // Forget the functions gone, now and then, so that a loop jitting fresh lambdas does
        // not keep their programs.
        if self.jit_caches.len() >= 64 && self.jit_caches.len().is_power_of_two() {
            self.jit_caches.retain(|_, (held, _)| held.strong_count() > 0);
        }
        let cache = super::value::JitCache::default();
        self.jit_caches.insert(key, (fn_ref, cache.clone()));
        cache
    }

    pub(super) fn call_jitted<'a>(
        &'a mut self,
        j: &'a Jitted,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let call = self
                .jit_arguments(
                    args,
                    kwargs,
                    |i| j.static_argnums.contains(&i),
                    |k| j.static_argnames.iter().any(|s| s == k),
                )
                .await?;
            let key = self.jit_key(&call);
            let cached = j.cache.borrow().traces.get(&key).cloned();
            // Inside another trace the function is one `jit` equation calling its Jaxpr, as
            // JAX's nested jit is: traced once per signature (a `print` in it runs once).
            if self.ctx.is_tracing() {
                let compiled = match cached {
                    Some(c) => c,
                    None => {
                        self.note_cache_miss(j, &call)?;
                        let compiled = Rc::new(self.trace_nested(&j.func, &call, TracedFor::Named("jit")).await?);
                        // A function closing over values of the enclosing trace is traced
                        // again each time, as in JAX.
                        if compiled.captured.is_empty() {
                            j.cache.borrow_mut().traces.insert(key, compiled.clone());
                        }
                        compiled
                    }
                };
                let mut inputs: Vec<Tensor> = compiled.closed.consts.iter().cloned().map(Tensor::from).collect();
                for (i, held) in self.ref_inputs(&compiled.refs, &call.args)? {
                    inputs[i] = held;
                }
                inputs.extend(compiled.captured.iter().cloned());
                inputs.extend(call.leaves);
                let function =
                    compiled.nested.get_or_init(|| nested_jit(j.name.clone(), &compiled.closed.jaxpr)).clone();
                let mut outs = self.ctx.bind(jaxlite::Primitive::Jit { function }, &inputs).await?;
                self.store_ref_outputs(&compiled.refs, &call.args, &mut outs)?;
                return self.unflatten_tensors(&compiled.out_tree, outs).await;
            }
            let compiled = match cached {
                Some(c) => c,
                None => {
                    self.note_cache_miss(j, &call)?;
                    let c = Rc::new(self.trace(&j.func, &call).await?);
                    j.cache.borrow_mut().traces.insert(key, c.clone());
                    c
                }
            };
            let mut inputs = compiled.closed.consts.clone();
            for (i, held) in self.ref_inputs(&compiled.refs, &call.args)? {
                inputs[i] = held.concrete().cloned().ok_or_else(|| {
                    RtError::new("a ref read by a jitted function holds a traced value outside any trace")
                })?;
            }
            for t in &call.leaves {
                inputs.extend(t.concrete().cloned());
            }
            let jaxpr = &compiled.closed.jaxpr;
            if compiled.refs.is_empty() {
                if let Some(outs) = self.run_sharded(&j.name, jaxpr, &call.leaves, &inputs).await? {
                    return self.unflatten_tensors(&compiled.out_tree, outs).await;
                }
            }
            let results = self.execute(j.name.clone(), jaxpr.clone(), inputs).await?;
            let mut outs: Vec<Tensor> = results
                .into_iter()
                .zip(&jaxpr.outvars)
                .map(|(mut a, atom)| {
                    a.aval.weak_type = jaxpr.atom_aval(atom).weak_type;
                    Tensor::from(a)
                })
                .collect();
            self.store_ref_outputs(&compiled.refs, &call.args, &mut outs)?;
            self.unflatten_tensors(&compiled.out_tree, outs).await
        })
    }

    /// A `jnp` function JAX jits, called inside a trace: one `jit` equation named as JAX names
    /// it, whose body is the function traced on its arguments (Python numbers among them as
    /// weakly typed scalars, as a jitted function takes them).
    async fn call_library_jit(
        &mut self,
        name: &'static str,
        jit_name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let jitted = Jitted {
            func: Value::native(Native::Jnp(name)),
            name: jit_name.to_string(),
            static_argnums: vec![],
            static_argnames: vec![],
            cache: Default::default(),
        };
        self.library_jit_body = Some(name);
        let result = self.call_jitted(&jitted, args, kwargs).await;
        self.library_jit_body = None;
        result
    }

    /// A call's arguments taken apart for tracing: positional ones, then keyword ones sorted by
    /// name (the order in which JAX flattens them); the traced ones flattened to leaves, the
    /// static ones (`is_static` by position or name) kept as values.
    pub(super) async fn jit_arguments(
        &mut self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        is_static: impl Fn(usize) -> bool,
        is_static_name: impl Fn(&str) -> bool,
    ) -> R<CallArgs> {
        self.jit_arguments_of(args, kwargs, is_static, is_static_name, false).await
    }

    /// `jit_arguments`, where `types_only` takes `ShapeDtypeStruct`s among the leaves (and
    /// keeps only the leaves' types, in `types`, not their values).
    pub(super) async fn jit_arguments_of(
        &mut self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        is_static: impl Fn(usize) -> bool,
        is_static_name: impl Fn(&str) -> bool,
        types_only: bool,
    ) -> R<CallArgs> {
        let mut kwargs = kwargs;
        kwargs.sort_by(|a, b| a.0.cmp(&b.0));
        let positional = args.len();
        let (keywords, keyword_values): (Vec<String>, Vec<Value>) = kwargs.into_iter().unzip();
        let mut call = CallArgs { args, keywords, leaves: Vec::new(), types: Vec::new(), trees: Vec::new() };
        call.args.extend(keyword_values);
        for (i, a) in call.args.iter().enumerate() {
            let fixed = match i.checked_sub(positional) {
                None => is_static(i),
                Some(k) => is_static_name(&call.keywords[k]),
            };
            // A ref is passed as it is: the function reads and writes the caller's ref.
            if super::refs::ref_cell(a).is_some() {
                call.trees.push(None);
            } else if fixed {
                check_hashable(a).map_err(|_| {
                    let which = match i.checked_sub(positional) {
                        None => format!("argument {i}"),
                        Some(k) => format!("argument '{}'", call.keywords[k]),
                    };
                    RtError::new(format!(
                        "Non-hashable static arguments are not supported: {which} is of type {}",
                        a.type_name()
                    ))
                })?;
                call.trees.push(None);
            } else if types_only {
                let mut leaves = Vec::new();
                call.trees.push(Some(self.tree_of(a, None, &mut leaves).await?));
                for leaf in &leaves {
                    call.types.push(match leaf {
                        Value::Native(n) if matches!(&**n, Native::ShapeDtypeStruct(_)) => {
                            let Native::ShapeDtypeStruct(aval) = &**n else { unreachable!() };
                            aval.clone()
                        }
                        other => self.to_tensor(other)?.aval().clone(),
                    });
                }
            } else {
                call.trees.push(Some(self.flatten(a, &mut call.leaves).await?));
            }
        }
        if !types_only {
            call.types = call.leaves.iter().map(|t| t.aval().clone()).collect();
        }
        Ok(call)
    }

    /// A jitted function's cache key for a call: static arguments by value, the others by
    /// structure, type and weak type, keyword arguments by name too, and the configured matmul
    /// precision, which dots record, as in JAX's cache.
    pub(super) fn jit_key(&self, call: &CallArgs) -> String {
        let mut key = String::new();
        let positional = call.args.len() - call.keywords.len();
        for (i, (a, tree)) in call.args.iter().zip(&call.trees).enumerate() {
            if let Some(k) = i.checked_sub(positional) {
                key.push_str(&format!("{}=", call.keywords[k]));
            }
            match (tree, super::refs::ref_cell(a)) {
                // A ref by its type, as JAX keys it: any ref of that type shares the trace.
                (None, Some((_, cell))) => key.push_str(&format!("ref {}", cell.borrow().aval().short())),
                (None, None) => key.push_str(&format!("static {}", repr(a))),
                (Some(tree), _) => tree.key(&mut key),
            }
            key.push('|');
        }
        for aval in &call.types {
            key.push_str(&aval.short());
            key.push(if aval.weak_type { '~' } else { ' ' });
        }
        key.push_str(&format!("|{:?}", self.ctx.default_precision));
        key
    }

    /// Traces a jitted function called inside another trace, in a trace of its own; what it
    /// closed over of the enclosing trace is `captured`.
    pub(super) fn trace_nested<'a>(
        &'a mut self,
        f: &'a Value,
        call: &'a CallArgs,
        traced_for: TracedFor,
    ) -> LocalFuture<'a, R<Compiled>> {
        use super::transforms::Arg;
        Box::pin(async move {
            let avals: Vec<Aval> = call.leaves.iter().map(|t| t.aval().clone()).collect();
            let args = call
                .args
                .iter()
                .zip(&call.trees)
                .map(|(a, tree)| match tree {
                    Some(t) => Arg::Traced(t),
                    None => Arg::Fixed(a.clone()),
                })
                .collect();
            let of = super::transforms::TraceOf::Types(avals);
            let traced = self.trace_call_with(f, traced_for, of, args, &call.keywords).await?;
            // The Jaxpr's leading inputs are what the function closed over: constants, then
            // values of the enclosing trace.
            let mut consts = Vec::new();
            let mut captured = Vec::new();
            for t in traced.closed {
                match t {
                    Tensor::Concrete(a) if captured.is_empty() => consts.push((*a).clone()),
                    t => captured.push(t),
                }
            }
            let mut jaxpr = traced.jaxpr;
            jaxpr.constvars = jaxpr.invars.drain(..consts.len()).collect();
            Ok(Compiled {
                closed: ClosedJaxpr { jaxpr, consts },
                captured,
                out_tree: traced.out_tree,
                nested: Default::default(),
                refs: traced.refs,
            })
        })
    }

    /// `jax.eval_shape(f, *args, **kwargs)`: `f` traced on the types of its arguments (arrays,
    /// numbers, or `ShapeDtypeStruct`s, so no values are needed however large), the types of
    /// its result as `ShapeDtypeStruct`s. Nothing runs.
    pub(super) fn eval_shape<'a>(
        &'a mut self,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let Some((f, args)) = args.split_first() else {
                return err("eval_shape() missing 1 required positional argument: 'fun'");
            };
            let (keywords, keyword_values): (Vec<String>, Vec<Value>) = kwargs.into_iter().unzip();
            let mut avals = Vec::new();
            let mut trees = Vec::new();
            for a in args.iter().chain(&keyword_values) {
                let mut leaves = Vec::new();
                trees.push(self.tree_of(a, None, &mut leaves).await?);
                for leaf in &leaves {
                    avals.push(match leaf {
                        Value::Native(n) => match &**n {
                            Native::ShapeDtypeStruct(aval) => aval.clone(),
                            _ => return err(format!("eval_shape: {} is not an array type", repr(leaf))),
                        },
                        other => self.to_tensor(other)?.aval().clone(),
                    });
                }
            }
            let mut tracers = self.ctx.begin_trace(&avals).into_iter();
            let mut traced = Vec::with_capacity(trees.len());
            for t in &trees {
                match self.unflatten_tree(t, &mut (&mut tracers).map(Value::of_tensor)).await {
                    Ok(v) => traced.push(v),
                    Err(e) => {
                        self.ctx.abort_trace();
                        return Err(e);
                    }
                }
            }
            let kwargs = split_keywords(&mut traced, &keywords);
            let site =
                self.trace_site(f, TracedFor::Named("jit"), trees.iter().cloned().map(Some).collect(), &keywords);
            let result = self.call_in_trace(site, traced, kwargs).await;
            let mut outs = Vec::new();
            let out_tree = match result {
                Ok(out) => self.flatten(&out, &mut outs).await,
                Err(e) => Err(e),
            };
            // Refs written give back what they held: nothing runs.
            self.discharge_refs(&mut Vec::new(), &[]);
            // Only the types were wanted: the trace is dropped.
            self.ctx.abort_trace();
            let mut structs = outs.iter().map(|t| Value::native(Native::ShapeDtypeStruct(t.aval().clone())));
            let out_tree = out_tree?;
            self.unflatten_tree(&out_tree, &mut structs).await
        })
    }

    pub(super) fn make_jaxpr<'a>(
        &'a mut self,
        f: Value,
        static_argnums: &'a [usize],
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // Static arguments go to the function as they are, as `jit`'s do; keyword
            // arguments are traced.
            let call = self.jit_arguments(args, kwargs, |i| static_argnums.contains(&i), |_| false).await?;
            // A jitted `f` is one `jit` equation in the trace, as JAX prints it.
            let compiled = self.trace(&f, &call).await?;
            if !compiled.refs.is_empty() {
                // JAX prints `Ref{...}` inputs and `<-` effects; the trace here is discharged.
                return unsupported(
                    "make_jaxpr of a function reading or writing refs (jax.new_ref) is not supported by the playground yet",
                );
            }
            Ok(Value::Jaxpr(Rc::new(compiled.closed)))
        })
    }
}

/// The arguments of a call to trace: every argument in order, the last `keywords.len()` of
/// them passed by those names; `trees` holds each traced argument's structure (None for a
/// static one) and `leaves` their leaves, in order.
pub(super) struct CallArgs {
    pub args: Vec<Value>,
    pub keywords: Vec<String>,
    pub leaves: Vec<Tensor>,
    /// The leaves' types (all there is of them for `jit(f).lower` on `ShapeDtypeStruct`s).
    pub types: Vec<Aval>,
    pub trees: Vec<Option<Tree>>,
}

impl CallArgs {
    /// The call without its leaves' values: arguments, keywords, structure and types.
    pub fn clone_shape(&self) -> CallArgs {
        CallArgs {
            args: self.args.clone(),
            keywords: self.keywords.clone(),
            leaves: vec![],
            types: self.types.clone(),
            trees: self.trees.clone(),
        }
    }
}

/// Splits the trailing keyword arguments off `args`, paired with their names.
pub(super) fn split_keywords(args: &mut Vec<Value>, keywords: &[String]) -> Vec<(String, Value)> {
    let tail = args.split_off(args.len() - keywords.len());
    keywords.iter().cloned().zip(tail).collect()
}

/// Python's `float(str)`, including `inf` and `nan`.
fn parse_float(s: &str) -> Option<f64> {
    match s.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        other => other.replace('_', "").parse().ok(),
    }
}

fn int32_conversion() -> jaxlite::Primitive {
    jaxlite::Primitive::ConvertElementType { new_dtype: DType::I32, weak_type: false }
}

/// A window's start `s` along an axis of `n` made non-negative as JAX's
/// `_dynamic_slice_indices` stages it: `select_n(s < 0, s, s + n)`, `s` converted to int32
/// for the sum when `convert` (a lone start; several were converted when promoted).
pub(super) async fn nonnegative_start(
    ctx: &mut jaxlite::Context,
    s: &Tensor,
    n: usize,
    convert: bool,
) -> Result<Tensor, jaxlite::JaxError> {
    let int32 = super::api::int32;
    let negative = jnp::apply(ctx, jaxlite::Primitive::Compare(CompareOp::Lt), &[s.clone(), int32(0)]).await?;
    let addend = if convert { jnp::apply1(ctx, int32_conversion(), s).await? } else { s.clone() };
    let wrapped = jnp::apply(ctx, jaxlite::Primitive::Binary(BinaryOp::Add), &[addend, int32(n as i32)]).await?;
    jnp::apply(ctx, jaxlite::Primitive::SelectN, &[negative, s.clone(), wrapped]).await
}

/// The function of a `jit` equation named `name` calling `jaxpr` (whose constvars, if any, are
/// inputs too, the values passed first).
fn nested_jit(name: String, jaxpr: &Jaxpr) -> Rc<jaxlite::prim::JitFunction> {
    let mut body = jaxpr.clone();
    let consts = std::mem::take(&mut body.constvars);
    let n_consts = consts.len();
    body.invars.splice(0..0, consts);
    Rc::new(jaxlite::prim::JitFunction { name, body, consts: n_consts })
}

/// An int32 scalar (strongly typed, unlike a Python int's weak one).
pub(super) fn int32_scalar(v: i64) -> Tensor {
    Tensor::from(Array::from_f32(vec![], vec![v as f32]).astype(DType::I32))
}
