//! Collectives: what the chips of a mapped axis (`jax.pmap`'s `axis_name`) exchange. A
//! collective equation reads one chip's operand and the same operand on every other chip of
//! the axis, so no single chip's program can run it: `crate::mapped` runs a mapped function's
//! equations chip by chip up to each collective, performs the collective on the host from
//! every chip's values, and reports it to the executor, which times it over the slice's links.

use crate::array::{Array, Aval, Data};
use crate::dtype::DType;
use crate::eval;
use crate::prim::{BinaryOp, Precision, Primitive};
use crate::JaxError;

/// The collective primitives, named as JAX names them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CollectiveOp {
    /// `lax.psum` (and `pmean`, a `psum` then a division).
    Psum,
    Pmax,
    Pmin,
    /// `lax.all_gather`: every chip's operand, stacked along a new axis at `dimension`, or
    /// concatenated along `dimension` when `tiled`.
    AllGather {
        dimension: usize,
        tiled: bool,
    },
    /// `lax.psum_scatter`: the sum, of which chip `i` keeps the `i`th part along `dimension`
    /// (a block of it when `tiled`, else the index `i` of an axis as long as the mapped one).
    ReduceScatter {
        dimension: usize,
        tiled: bool,
    },
    /// `lax.all_to_all`: the operand split into as many parts along `split_axis` as there are
    /// chips; chip `i` gets every chip's `i`th part, joined along `concat_axis`.
    AllToAll {
        split_axis: usize,
        concat_axis: usize,
        tiled: bool,
    },
    /// `lax.ppermute`: chip `source` sends its operand to chip `destination` for each pair;
    /// a chip no pair sends to gets zeros.
    Ppermute {
        perm: Vec<(usize, usize)>,
    },
    /// `lax.axis_index`: the chip's position along the axis (no operand).
    AxisIndex,
}

impl CollectiveOp {
    pub fn name(&self) -> &'static str {
        match self {
            CollectiveOp::Psum => "psum",
            CollectiveOp::Pmax => "pmax",
            CollectiveOp::Pmin => "pmin",
            CollectiveOp::AllGather { .. } => "all_gather",
            CollectiveOp::ReduceScatter { .. } => "reduce_scatter",
            CollectiveOp::AllToAll { .. } => "all_to_all",
            CollectiveOp::Ppermute { .. } => "ppermute",
            CollectiveOp::AxisIndex => "axis_index",
        }
    }

    pub fn arity(&self) -> usize {
        match self {
            CollectiveOp::AxisIndex => 0,
            _ => 1,
        }
    }

    /// The result type on each chip of an axis of `size` chips.
    pub fn abstract_eval(&self, inputs: &[Aval], size: usize) -> Result<Aval, String> {
        let name = self.name();
        if let CollectiveOp::AxisIndex = self {
            return Ok(Aval::new(vec![], DType::I32));
        }
        let x = &inputs[0];
        let axis_in = |d: usize, extra: usize| {
            if d < x.rank() + extra {
                Ok(d)
            } else {
                Err(format!("{name}: dimension {d} is out of range for an operand of shape {:?}", x.shape))
            }
        };
        let mut shape = x.shape.clone();
        match self {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin | CollectiveOp::Ppermute { .. } => {}
            CollectiveOp::AllGather { dimension, tiled: false } => shape.insert(axis_in(*dimension, 1)?, size),
            CollectiveOp::AllGather { dimension, tiled: true } => shape[axis_in(*dimension, 0)?] *= size,
            CollectiveOp::ReduceScatter { dimension, tiled } => {
                let d = axis_in(*dimension, 0)?;
                match tiled {
                    true if shape[d].is_multiple_of(size) => shape[d] /= size,
                    false if shape[d] == size => {
                        shape.remove(d);
                    }
                    _ => {
                        return Err(format!(
                        "psum_scatter: the scattered dimension {d} has size {}, which must be {} the axis size {size}",
                        shape[d],
                        if *tiled { "a multiple of" } else { "equal to" }
                    ))
                    }
                }
            }
            CollectiveOp::AllToAll { split_axis, concat_axis, tiled } => {
                let split = axis_in(*split_axis, 0)?;
                if !shape[split].is_multiple_of(size) {
                    return Err(format!(
                        "all_to_all: the split axis {split} has size {}, which the axis size {size} does not divide",
                        shape[split]
                    ));
                }
                if *tiled {
                    shape[split] /= size;
                    shape[axis_in(*concat_axis, 0)?] *= size;
                } else {
                    if shape[split] != size {
                        return Err(format!(
                            "all_to_all: the split axis {split} has size {}, which must equal the axis size {size}",
                            shape[split]
                        ));
                    }
                    shape.remove(split);
                    shape.insert(axis_in(*concat_axis, 0)?, size);
                }
            }
            CollectiveOp::AxisIndex => unreachable!("handled above"),
        }
        if let CollectiveOp::Ppermute { perm } = self {
            let mut sources = vec![false; size];
            let mut destinations = vec![false; size];
            for &(s, d) in perm {
                if s >= size || d >= size {
                    return Err(format!("ppermute: the pair ({s}, {d}) names a position outside the axis of {size}"));
                }
                if std::mem::replace(&mut sources[s], true) || std::mem::replace(&mut destinations[d], true) {
                    return Err(format!("ppermute sources and destinations must be unique, got {}", pairs(perm)));
                }
            }
        }
        Ok(Aval { shape, ..x.clone() })
    }

    /// The parameters JAX 0.10 prints, in its order.
    pub fn params(&self, axis_name: &str, size: usize) -> Vec<(&'static str, String)> {
        let names = format!("('{axis_name}',)");
        let bool_text = |b: bool| if b { "True" } else { "False" }.to_string();
        match self {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
                vec![("axes", names), ("axis_index_groups", "None".into())]
            }
            CollectiveOp::AllGather { dimension, tiled } => vec![
                ("all_gather_dimension", dimension.to_string()),
                ("axis_index_groups", "None".into()),
                ("axis_name", names),
                ("axis_size", size.to_string()),
                ("tiled", bool_text(*tiled)),
            ],
            CollectiveOp::ReduceScatter { dimension, tiled } => vec![
                ("axis_index_groups", "None".into()),
                ("axis_name", names),
                ("axis_size", size.to_string()),
                ("scatter_dimension", dimension.to_string()),
                ("tiled", bool_text(*tiled)),
            ],
            CollectiveOp::AllToAll { split_axis, concat_axis, tiled } => vec![
                ("axis_index_groups", "None".into()),
                ("axis_name", axis_name.to_string()),
                ("concat_axis", concat_axis.to_string()),
                ("split_axis", split_axis.to_string()),
                ("tiled", bool_text(*tiled)),
            ],
            CollectiveOp::Ppermute { perm } => vec![("axis_name", names), ("perm", pairs(perm))],
            CollectiveOp::AxisIndex => vec![("axis_name", axis_name.to_string())],
        }
    }

    /// The op that carries cotangents back: JAX's transpose rules (`psum` is its own, as under
    /// `pmap`; a gather's is a reduce-scatter and back; a permutation's is the inverse one).
    /// `None` for `pmax`, `pmin` and `axis_index`, which are not linear.
    pub fn transpose(&self) -> Option<CollectiveOp> {
        Some(match self {
            CollectiveOp::Psum => CollectiveOp::Psum,
            CollectiveOp::AllGather { dimension, tiled } => {
                CollectiveOp::ReduceScatter { dimension: *dimension, tiled: *tiled }
            }
            CollectiveOp::ReduceScatter { dimension, tiled } => {
                CollectiveOp::AllGather { dimension: *dimension, tiled: *tiled }
            }
            CollectiveOp::AllToAll { split_axis, concat_axis, tiled } => {
                CollectiveOp::AllToAll { split_axis: *concat_axis, concat_axis: *split_axis, tiled: *tiled }
            }
            CollectiveOp::Ppermute { perm } => {
                CollectiveOp::Ppermute { perm: perm.iter().map(|&(s, d)| (d, s)).collect() }
            }
            CollectiveOp::Pmax | CollectiveOp::Pmin | CollectiveOp::AxisIndex => return None,
        })
    }

    /// The same op on operands with a new leading (batch) axis, as `vmap` inside `pmap` needs.
    pub fn batched(&self) -> CollectiveOp {
        match self {
            CollectiveOp::AllGather { dimension, tiled } => {
                CollectiveOp::AllGather { dimension: dimension + 1, tiled: *tiled }
            }
            CollectiveOp::ReduceScatter { dimension, tiled } => {
                CollectiveOp::ReduceScatter { dimension: dimension + 1, tiled: *tiled }
            }
            CollectiveOp::AllToAll { split_axis, concat_axis, tiled } => {
                CollectiveOp::AllToAll { split_axis: split_axis + 1, concat_axis: concat_axis + 1, tiled: *tiled }
            }
            other => other.clone(),
        }
    }

    /// Every chip's result from every chip's operand (`operands[i]` is chip `i`'s; empty for
    /// `axis_index`), computed on the host as the reference evaluator computes: sums in chip
    /// order.
    pub fn perform(&self, operands: &[Array], size: usize) -> Result<Vec<Array>, JaxError> {
        let apply = |prim: Primitive, ins: &[Array]| eval::apply(&prim, ins, Precision::Highest);
        let fold = |op: BinaryOp| -> Result<Array, JaxError> {
            let mut acc = operands[0].clone();
            for x in &operands[1..] {
                acc = apply(Primitive::Binary(op), &[acc, x.clone()])?;
            }
            Ok(acc)
        };
        let part = |x: &Array, axis: usize, i: usize, tiled: bool| part(x, axis, i, size, tiled);
        Ok(match self {
            CollectiveOp::Psum => vec![fold(BinaryOp::Add)?; size],
            CollectiveOp::Pmax => vec![fold(BinaryOp::Max)?; size],
            CollectiveOp::Pmin => vec![fold(BinaryOp::Min)?; size],
            CollectiveOp::AllGather { dimension, tiled } => vec![join(operands.to_vec(), *dimension, *tiled)?; size],
            CollectiveOp::ReduceScatter { dimension, tiled } => {
                let sum = fold(BinaryOp::Add)?;
                (0..size).map(|i| part(&sum, *dimension, i, *tiled)).collect::<Result<_, _>>()?
            }
            CollectiveOp::AllToAll { split_axis, concat_axis, tiled } => (0..size)
                .map(|i| {
                    let parts = operands.iter().map(|x| part(x, *split_axis, i, *tiled)).collect::<Result<_, _>>()?;
                    join(parts, *concat_axis, *tiled)
                })
                .collect::<Result<_, _>>()?,
            CollectiveOp::Ppermute { perm } => {
                let zeros = zeros_like(&operands[0]);
                let mut out = vec![zeros; size];
                for &(s, d) in perm {
                    out[d] = operands[s].clone();
                }
                out
            }
            CollectiveOp::AxisIndex => (0..size).map(|i| Array::new(vec![], Data::I32(vec![i as i32]))).collect(),
        })
    }
}

/// Part `i` of `x` along `axis`, `count` equal parts in all: a block, or (`!tiled`) the index
/// `i` of an axis of `count`, that axis dropped. On the host.
pub fn part(x: &Array, axis: usize, i: usize, count: usize, tiled: bool) -> Result<Array, JaxError> {
    let len = x.shape()[axis] / count;
    let mut start = vec![0; x.shape().len()];
    let mut limit = x.shape().to_vec();
    start[axis] = i * len;
    limit[axis] = (i + 1) * len;
    let block = eval::apply(
        &Primitive::Slice { start_indices: start, limit_indices: limit, strides: None },
        std::slice::from_ref(x),
        Precision::Highest,
    )?;
    if tiled {
        return Ok(block);
    }
    let mut shape = block.shape().to_vec();
    shape.remove(axis);
    let mut out = eval::apply(&Primitive::Reshape { new_sizes: shape }, &[block], Precision::Highest)?;
    out.aval.weak_type = x.aval.weak_type;
    Ok(out)
}

/// `parts` joined along `axis`, or (`!tiled`) stacked along a new axis there. On the host.
pub fn join(parts: Vec<Array>, axis: usize, tiled: bool) -> Result<Array, JaxError> {
    let parts = if tiled {
        parts
    } else {
        parts
            .into_iter()
            .map(|p| {
                let mut shape = p.shape().to_vec();
                shape.insert(axis, 1);
                eval::apply(&Primitive::Reshape { new_sizes: shape }, &[p], Precision::Highest)
            })
            .collect::<Result<_, _>>()?
    };
    eval::apply(&Primitive::Concatenate { dimension: axis }, &parts, Precision::Highest)
}

fn zeros_like(x: &Array) -> Array {
    Array::from_f32(x.shape().to_vec(), vec![0.0; x.size()]).astype(x.dtype())
}

fn pairs(perm: &[(usize, usize)]) -> String {
    let items: Vec<String> = perm.iter().map(|(s, d)| format!("({s}, {d})")).collect();
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}
