//! Primitives: the operations a Jaxpr is made of, each with its parameters and shape rule.
//!
//! Adding a primitive means adding a variant here (name, parameters, shape rule), its
//! evaluation in `eval.rs`, and its lowering in the compiler.

use crate::array::Aval;
use crate::dtype::DType;
use std::fmt;

/// Matmul precision, as `jax.lax.Precision` and `jax_default_matmul_precision` name it.
/// On a TPU an f32 matmul at DEFAULT is one bf16 pass, HIGH three (bf16_3x), HIGHEST six.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    #[default]
    Default,
    High,
    Highest,
}

impl Precision {
    pub fn parse(name: &str) -> Option<Precision> {
        Some(match name.to_ascii_lowercase().as_str() {
            "default" | "bfloat16" | "fastest" => Precision::Default,
            "high" | "bfloat16_3x" | "tensorfloat32" => Precision::High,
            "highest" | "float32" => Precision::Highest,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::Default => "DEFAULT",
            Precision::High => "HIGH",
            Precision::Highest => "HIGHEST",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Tanh,
    Logistic,
    Sqrt,
    Rsqrt,
    Abs,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Logistic => "logistic",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Abs => "abs",
        }
    }

    /// Ops defined only on floating-point operands.
    fn needs_float(self) -> bool {
        !matches!(self, UnaryOp::Neg | UnaryOp::Abs)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
        }
    }
}

/// `dot_general`'s dimension numbers: which axes are contracted and which are batch axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotDims {
    pub lhs_contracting: Vec<usize>,
    pub rhs_contracting: Vec<usize>,
    pub lhs_batch: Vec<usize>,
    pub rhs_batch: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    Unary(UnaryOp),
    /// Operands have equal shapes, or one is a rank-0 scalar broadcast over the other.
    Binary(BinaryOp),
    DotGeneral {
        dims: DotDims,
        /// `None` means the configured default (`jax_default_matmul_precision`).
        precision: Option<Precision>,
        preferred_element_type: Option<DType>,
    },
    Reshape {
        new_sizes: Vec<usize>,
    },
    BroadcastInDim {
        shape: Vec<usize>,
        broadcast_dimensions: Vec<usize>,
    },
    ConvertElementType {
        new_dtype: DType,
    },
    Transpose {
        permutation: Vec<usize>,
    },
    ReduceSum {
        axes: Vec<usize>,
    },
    ReduceMax {
        axes: Vec<usize>,
    },
}

impl Primitive {
    pub fn name(&self) -> &'static str {
        match self {
            Primitive::Unary(op) => op.name(),
            Primitive::Binary(op) => op.name(),
            Primitive::DotGeneral { .. } => "dot_general",
            Primitive::Reshape { .. } => "reshape",
            Primitive::BroadcastInDim { .. } => "broadcast_in_dim",
            Primitive::ConvertElementType { .. } => "convert_element_type",
            Primitive::Transpose { .. } => "transpose",
            Primitive::ReduceSum { .. } => "reduce_sum",
            Primitive::ReduceMax { .. } => "reduce_max",
        }
    }

    /// The output types for these input types, or a JAX-like message naming the op and shapes.
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        let name = self.name();
        let arity = match self {
            Primitive::Binary(_) | Primitive::DotGeneral { .. } => 2,
            _ => 1,
        };
        if inputs.len() != arity {
            return Err(format!(
                "{name} takes {arity} operands, got {}",
                inputs.len()
            ));
        }
        let x = &inputs[0];
        let out = match self {
            Primitive::Unary(op) => {
                if op.needs_float() && !x.dtype.is_float() {
                    return Err(format!(
                        "{name} requires a floating-point operand, got {}",
                        x.short()
                    ));
                }
                Aval {
                    weak_type: x.weak_type,
                    ..x.clone()
                }
            }
            Primitive::Binary(_) => {
                let y = &inputs[1];
                if x.dtype != y.dtype {
                    return Err(format!(
                        "{name} requires arguments to have the same dtypes, got {}, {}",
                        x.dtype, y.dtype
                    ));
                }
                let shape = if x.shape == y.shape || y.rank() == 0 {
                    x.shape.clone()
                } else if x.rank() == 0 {
                    y.shape.clone()
                } else {
                    return Err(format!(
                        "{name} got incompatible shapes for broadcasting: {:?}, {:?}",
                        x.shape, y.shape
                    ));
                };
                Aval {
                    shape,
                    dtype: x.dtype,
                    weak_type: x.weak_type && y.weak_type,
                }
            }
            Primitive::DotGeneral {
                dims,
                preferred_element_type,
                ..
            } => dot_general_shape(x, &inputs[1], dims, *preferred_element_type)?,
            Primitive::Reshape { new_sizes } => {
                let n: usize = new_sizes.iter().product();
                if n != x.size() {
                    return Err(format!(
                        "cannot reshape array of shape {:?} (size {}) into shape {:?} (size {n})",
                        x.shape,
                        x.size(),
                        new_sizes
                    ));
                }
                Aval {
                    shape: new_sizes.clone(),
                    ..x.clone()
                }
            }
            Primitive::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => {
                let ok = broadcast_dimensions.len() == x.rank()
                    && broadcast_dimensions.windows(2).all(|w| w[0] < w[1])
                    && broadcast_dimensions
                        .iter()
                        .zip(&x.shape)
                        .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
                if !ok {
                    return Err(format!(
                        "broadcast_in_dim cannot broadcast {:?} to {:?} along dimensions {:?}",
                        x.shape, shape, broadcast_dimensions
                    ));
                }
                Aval {
                    shape: shape.clone(),
                    ..x.clone()
                }
            }
            Primitive::ConvertElementType { new_dtype } => Aval {
                shape: x.shape.clone(),
                dtype: *new_dtype,
                weak_type: false,
            },
            Primitive::Transpose { permutation } => {
                let mut sorted = permutation.clone();
                sorted.sort_unstable();
                if sorted != (0..x.rank()).collect::<Vec<_>>() {
                    return Err(format!(
                        "transpose permutation {:?} is not a permutation of the axes of {:?}",
                        permutation, x.shape
                    ));
                }
                Aval {
                    shape: permutation.iter().map(|&p| x.shape[p]).collect(),
                    ..x.clone()
                }
            }
            Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } => {
                if axes.iter().any(|&a| a >= x.rank()) {
                    return Err(format!(
                        "{name} axes {:?} out of range for {:?}",
                        axes, x.shape
                    ));
                }
                let shape = (0..x.rank())
                    .filter(|a| !axes.contains(a))
                    .map(|a| x.shape[a]);
                Aval {
                    shape: shape.collect(),
                    ..x.clone()
                }
            }
        };
        Ok(vec![out])
    }
}

fn dot_general_shape(
    x: &Aval,
    y: &Aval,
    dims: &DotDims,
    preferred: Option<DType>,
) -> Result<Aval, String> {
    let in_range = |axes: &[usize], a: &Aval| axes.iter().all(|&d| d < a.rank());
    if !in_range(&dims.lhs_contracting, x)
        || !in_range(&dims.lhs_batch, x)
        || !in_range(&dims.rhs_contracting, y)
        || !in_range(&dims.rhs_batch, y)
        || dims.lhs_contracting.len() != dims.rhs_contracting.len()
        || dims.lhs_batch.len() != dims.rhs_batch.len()
    {
        return Err(format!(
            "dot_general got invalid dimension numbers {dims} for {} and {}",
            x.short(),
            y.short()
        ));
    }
    for (&l, &r) in dims.lhs_contracting.iter().zip(&dims.rhs_contracting) {
        if x.shape[l] != y.shape[r] {
            return Err(format!(
                "dot_general requires contracting dimensions to have the same shape, got {:?} and {:?}",
                dims.lhs_contracting.iter().map(|&d| x.shape[d]).collect::<Vec<_>>(),
                dims.rhs_contracting.iter().map(|&d| y.shape[d]).collect::<Vec<_>>()
            ));
        }
    }
    for (&l, &r) in dims.lhs_batch.iter().zip(&dims.rhs_batch) {
        if x.shape[l] != y.shape[r] {
            return Err(format!(
                "dot_general requires batch dimensions to have the same shape, got {:?} and {:?}",
                x.shape, y.shape
            ));
        }
    }
    if x.dtype != y.dtype {
        return Err(format!(
            "dot_general requires operands of the same dtype, got {} and {}",
            x.dtype, y.dtype
        ));
    }
    let free = |a: &Aval, contracting: &[usize], batch: &[usize]| -> Vec<usize> {
        (0..a.rank())
            .filter(|d| !contracting.contains(d) && !batch.contains(d))
            .map(|d| a.shape[d])
            .collect()
    };
    let mut shape: Vec<usize> = dims.lhs_batch.iter().map(|&d| x.shape[d]).collect();
    shape.extend(free(x, &dims.lhs_contracting, &dims.lhs_batch));
    shape.extend(free(y, &dims.rhs_contracting, &dims.rhs_batch));
    Ok(Aval::new(shape, preferred.unwrap_or(x.dtype)))
}

fn list(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn tuple(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

impl fmt::Display for DotDims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(({}, {}), ({}, {}))",
            list(&self.lhs_contracting),
            list(&self.rhs_contracting),
            list(&self.lhs_batch),
            list(&self.rhs_batch)
        )
    }
}

/// `name[param=value ...]` as a Jaxpr prints an equation's primitive.
impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Primitive::Unary(_) | Primitive::Binary(_) => Ok(()),
            Primitive::DotGeneral {
                dims,
                precision,
                preferred_element_type,
            } => {
                // Like JAX, the default precision is left out.
                let precision = precision.map_or(String::new(), |p| format!(" precision={}", p.name()));
                let preferred = preferred_element_type.map_or("None", |d| d.name());
                write!(f, "[dimension_numbers={dims}{precision} preferred_element_type={preferred}]")
            }
            Primitive::Reshape { new_sizes } => {
                write!(f, "[dimensions=None new_sizes={}]", tuple(new_sizes))
            }
            Primitive::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => write!(
                f,
                "[broadcast_dimensions={} shape={}]",
                tuple(broadcast_dimensions),
                tuple(shape)
            ),
            Primitive::ConvertElementType { new_dtype } => {
                write!(f, "[new_dtype={} weak_type=False]", new_dtype.name())
            }
            Primitive::Transpose { permutation } => {
                write!(f, "[permutation={}]", tuple(permutation))
            }
            Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } => {
                write!(f, "[axes={}]", tuple(axes))
            }
        }
    }
}
