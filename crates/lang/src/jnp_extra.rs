//! Array operations on concrete arrays on the host (basic indexing, comparisons, `repr`), and
//! the plan that turns a basic index of a traced array into `lax.slice` and a reshape. The
//! host versions belong in `jaxlite::numpy`, as primitives, once the playground dispatches
//! them to the emulator as JAX does.

use jaxlite::{Array, Data, JaxError};

/// One item of a NumPy basic index (`x[1, 2:5, None, ...]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexItem {
    Int(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    NewAxis,
    Ellipsis,
}

/// The positions `seq[start:stop:step]` selects from a sequence of length `len`, with
/// Python's clamping of out-of-range bounds.
pub fn slice_indices(
    len: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Vec<usize>, JaxError> {
    let step = step.unwrap_or(1) as i128;
    if step == 0 {
        return Err(JaxError("slice step cannot be zero".into()));
    }
    let n = len as i128;
    let clamp = |bound: Option<i64>, default: i128, lo: i128, hi: i128| -> i128 {
        match bound {
            None => default,
            Some(b) => {
                let b = b as i128;
                let b = if b < 0 { b + n } else { b };
                b.clamp(lo, hi)
            }
        }
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, stop) = (clamp(start, 0, 0, n), clamp(stop, n, 0, n));
        while i < stop {
            out.push(i as usize);
            i += step;
        }
    } else {
        let (mut i, stop) = (clamp(start, n - 1, -1, n - 1), clamp(stop, -1, -1, n - 1));
        while i > stop {
            out.push(i as usize);
            i += step;
        }
    }
    Ok(out)
}

/// For each item, the input positions it selects, or `None` for a new axis of size 1; and
/// whether it keeps its dimension in the result.
struct Selection {
    positions: Option<Vec<usize>>,
    keeps_dim: bool,
}

/// What an integer index beyond its axis does: JAX clamps it when reading (a `dynamic_slice`,
/// whose start is clamped, so `jnp.arange(10)[11]` is 9) and drops it when updating (a
/// scatter's out-of-bounds updates are dropped, so `x.at[11].set(v)` is `x`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OutOfBounds {
    Clamp,
    Drop,
}

fn plan(shape: &[usize], items: &[IndexItem], bounds: OutOfBounds) -> Result<Vec<Selection>, JaxError> {
    let consuming = items.iter().filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(..))).count();
    let ellipses = items.iter().filter(|i| matches!(i, IndexItem::Ellipsis)).count();
    if ellipses > 1 {
        return Err(JaxError("an index can only have a single ellipsis ('...')".into()));
    }
    if consuming > shape.len() {
        return Err(JaxError(format!(
            "too many indices for array: array is {}-dimensional, but {consuming} were indexed",
            shape.len()
        )));
    }
    let fill = shape.len() - consuming;
    let mut expanded: Vec<IndexItem> = Vec::new();
    for item in items {
        match item {
            IndexItem::Ellipsis => expanded.extend(std::iter::repeat_n(IndexItem::Slice(None, None, None), fill)),
            other => expanded.push(*other),
        }
    }
    if ellipses == 0 {
        expanded.extend(std::iter::repeat_n(IndexItem::Slice(None, None, None), fill));
    }
    let mut dims = shape.iter().enumerate();
    let mut out = Vec::new();
    for item in expanded {
        let selection = match item {
            IndexItem::NewAxis => Selection { positions: None, keeps_dim: true },
            IndexItem::Int(i) => {
                let (axis, &n) = dims.next().ok_or_else(|| JaxError("too many indices for array".into()))?;
                let j = if i < 0 { i as i128 + n as i128 } else { i as i128 };
                let positions = match bounds {
                    _ if (0..n as i128).contains(&j) => vec![j as usize],
                    // An empty axis has no element to clamp to (JAX's IndexError).
                    OutOfBounds::Clamp if n == 0 => {
                        return Err(JaxError(format!("index {i} is out of bounds for axis {axis} with size {n}")))
                    }
                    OutOfBounds::Clamp => vec![j.clamp(0, n as i128 - 1) as usize],
                    OutOfBounds::Drop => vec![],
                };
                Selection { positions: Some(positions), keeps_dim: false }
            }
            IndexItem::Slice(a, b, c) => {
                let (_, &n) = dims.next().ok_or_else(|| JaxError("too many indices for array".into()))?;
                Selection { positions: Some(slice_indices(n, a, b, c)?), keeps_dim: true }
            }
            IndexItem::Ellipsis => continue,
        };
        out.push(selection);
    }
    Ok(out)
}

/// `x[items]` as `lax.rev`, `lax.slice` then a reshape, as JAX rewrites a basic index with
/// static bounds: the axes a negative step reverses, per input axis (start, limit, stride) in
/// the reversed array, and the result's shape.
pub struct BasicSlice {
    pub reversed: Vec<usize>,
    pub start: Vec<usize>,
    pub limit: Vec<usize>,
    pub strides: Vec<usize>,
    /// The input axes an integer index removes (a squeeze after the slice).
    pub dropped: Vec<usize>,
    pub shape: Vec<usize>,
    /// The axes of `shape` a `None` adds.
    pub new_axes: Vec<usize>,
}

pub fn basic_slice(shape: &[usize], items: &[IndexItem], bounds: OutOfBounds) -> Result<BasicSlice, JaxError> {
    let mut s = BasicSlice {
        reversed: vec![],
        start: vec![],
        limit: vec![],
        strides: vec![],
        dropped: vec![],
        shape: vec![],
        new_axes: vec![],
    };
    for selection in plan(shape, items, bounds)? {
        let Some(mut p) = selection.positions else {
            s.new_axes.push(s.shape.len());
            s.shape.push(1);
            continue;
        };
        let mut step = if p.len() > 1 { p[1] as i64 - p[0] as i64 } else { 1 };
        if step < 0 {
            // Position q of the axis is n - 1 - q once reversed, where the steps go forward.
            let n = shape[s.start.len()];
            s.reversed.push(s.start.len());
            p.iter_mut().for_each(|q| *q = n - 1 - *q);
            step = -step;
        }
        let first = p.first().copied().unwrap_or(0);
        s.start.push(first);
        s.limit.push(p.last().map_or(first, |&l| l + 1));
        s.strides.push(step as usize);
        if selection.keeps_dim {
            s.shape.push(p.len());
        } else {
            s.dropped.push(s.start.len() - 1);
        }
    }
    Ok(s)
}

/// `x[items]` for a concrete array (NumPy basic indexing, integers beyond an axis clamped as
/// JAX clamps them).
pub fn index(a: &Array, items: &[IndexItem]) -> Result<Array, JaxError> {
    let selections = plan(a.shape(), items, OutOfBounds::Clamp)?;
    let out_shape: Vec<usize> =
        selections.iter().filter(|s| s.keeps_dim).map(|s| s.positions.as_ref().map_or(1, Vec::len)).collect();
    // The input axes in order, each with the positions it contributes.
    let axes: Vec<&Vec<usize>> = selections.iter().filter_map(|s| s.positions.as_ref()).collect();
    let strides = jaxlite::eval::strides(a.shape());
    let mut flat = vec![0usize];
    for (axis, positions) in axes.iter().enumerate() {
        let stride = strides[axis];
        flat = flat.iter().flat_map(|&base| positions.iter().map(move |&p| base + p * stride)).collect();
    }
    let take = |n: usize| flat.iter().copied().filter(move |&i| i < n);
    let data = match &a.data {
        Data::Bool(v) => Data::Bool(take(v.len()).map(|i| v[i]).collect()),
        Data::I32(v) => Data::I32(take(v.len()).map(|i| v[i]).collect()),
        Data::U32(v) => Data::U32(take(v.len()).map(|i| v[i]).collect()),
        Data::Key(v) => Data::Key(take(v.len()).map(|i| v[i]).collect()),
        Data::BF16(v) => Data::BF16(take(v.len()).map(|i| v[i]).collect()),
        Data::F32(v) => Data::F32(take(v.len()).map(|i| v[i]).collect()),
        Data::I64(v) => Data::I64(take(v.len()).map(|i| v[i]).collect()),
        Data::F64(v) => Data::F64(take(v.len()).map(|i| v[i]).collect()),
    };
    Ok(Array::new(out_shape, data))
}

/// The sub-arrays along the first axis, as iterating over an array yields them.
pub fn rows(a: &Array) -> Result<Vec<Array>, JaxError> {
    let n = *a.shape().first().ok_or_else(|| JaxError("iteration over a 0-d array".into()))?;
    (0..n).map(|i| index(a, &[IndexItem::Int(i as i64)])).collect()
}

/// An element-wise comparison with NumPy broadcasting, giving a bool array.
pub fn compare(a: &Array, b: &Array, op: fn(f64, f64) -> bool) -> Result<Array, JaxError> {
    let shape = jaxlite::numpy::broadcast_shapes("compare", a.shape(), b.shape())?;
    let (x, y) = (a.to_f64_vec(), b.to_f64_vec());
    let (xs, ys) = (broadcast_strides(a.shape(), &shape), broadcast_strides(b.shape(), &shape));
    let n: usize = shape.iter().product();
    let out_strides = jaxlite::eval::strides(&shape);
    let values = (0..n).map(|i| {
        let (mut xi, mut yi) = (0, 0);
        for (d, &s) in out_strides.iter().enumerate() {
            let k = (i / s.max(1)) % shape[d].max(1);
            xi += k * xs[d];
            yi += k * ys[d];
        }
        op(x.get(xi).copied().unwrap_or(f64::NAN), y.get(yi).copied().unwrap_or(f64::NAN))
    });
    Ok(Array::new(shape.clone(), Data::Bool(values.collect())))
}

/// Strides of `shape` seen through a broadcast to `target` (0 along broadcast axes).
fn broadcast_strides(shape: &[usize], target: &[usize]) -> Vec<usize> {
    let own = jaxlite::eval::strides(shape);
    let offset = target.len() - shape.len();
    (0..target.len()).map(|d| if d < offset || shape[d - offset] == 1 { 0 } else { own[d - offset] }).collect()
}

/// `repr(x)` as JAX writes it (`Array([1. , 2.5], dtype=float32)`): NumPy's formatter with
/// `, ` separators, continuation lines indented past `Array(`, and the dtype after a space,
/// or after six when JAX's length check (which counts two more than the last line holds)
/// finds the line too long: JAX pads there without breaking the line.
pub fn array_repr(a: &Array) -> String {
    let body = jaxlite::format::format_array_repr(a);
    let body = match body.strip_suffix(".0") {
        // A 0-d float prints with NumPy's array formatter: `21.`, not `21.0`.
        Some(int) if a.shape().is_empty() && a.dtype().is_float() => format!("{int}."),
        _ => body,
    };
    let weak = if a.aval.weak_type { ", weak_type=True" } else { "" };
    let dtype = format!("dtype={}{weak}", a.dtype().name());
    // An empty array prints as `[]` with its shape.
    let body = if a.size() == 0 { format!("[], shape={}", jaxlite::numpy::shape_str(a.shape())) } else { body };
    let last_line = match body.rfind('\n') {
        Some(p) => body.len() - p + 1,
        None => body.len() + 2,
    };
    let spacer = if last_line + dtype.len() + 2 > jaxlite::format::LINE_WIDTH { "      " } else { " " };
    format!("Array({body},{spacer}{dtype})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use jaxlite::format::format_array;

    fn iota(shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        Array::new(shape.to_vec(), Data::I32((0..n as i32).collect()))
    }

    #[test]
    fn basic_indexing() {
        let x = iota(&[3, 4]);
        let show = |items: &[IndexItem]| {
            index(&x, items).map_or_else(|e| e.0, |a| format!("{:?} {}", a.shape(), format_array(&a)))
        };
        assert_eq!(show(&[IndexItem::Int(-1)]), "[4] [ 8  9 10 11]");
        assert_eq!(show(&[IndexItem::Slice(None, None, None), IndexItem::Int(0)]), "[3] [0 4 8]");
        assert_eq!(
            show(&[IndexItem::Slice(None, None, Some(-2)), IndexItem::Slice(Some(1), Some(3), None)]),
            "[2, 2] [[ 9 10]\n [ 1  2]]"
        );
        assert_eq!(show(&[IndexItem::NewAxis, IndexItem::Ellipsis, IndexItem::Int(3)]), "[1, 3] [[ 3  7 11]]");
        // Beyond the axis: clamped, as JAX's dynamic_slice clamps.
        assert_eq!(show(&[IndexItem::Int(3)]), "[4] [ 8  9 10 11]");
        assert_eq!(show(&[IndexItem::Int(-7), IndexItem::Int(9)]), "[] 3");
        let empty = iota(&[0, 2]);
        assert_eq!(
            index(&empty, &[IndexItem::Int(0)]).map(|_| ()).unwrap_err().0,
            "index 0 is out of bounds for axis 0 with size 0"
        );
        assert_eq!(
            show(&[IndexItem::Int(0), IndexItem::Int(0), IndexItem::Int(0)]),
            "too many indices for array: array is 2-dimensional, but 3 were indexed"
        );
    }

    #[test]
    fn comparisons_broadcast() {
        let x = iota(&[2, 2]);
        let y = Array::new(vec![2], Data::I32(vec![1, 2]));
        assert_eq!(
            format_array(&compare(&x, &y, |a, b| a < b).unwrap_or_else(|e| panic!("{e}"))),
            "[[ True  True]\n [False False]]"
        );
    }

    #[test]
    fn reprs_follow_jax() {
        let x = Array::from_f32(vec![2, 3], vec![3.0, 5.0, 7.0, 9.0, 11.0, 13.0]);
        assert_eq!(array_repr(&x), "Array([[ 3.,  5.,  7.],\n       [ 9., 11., 13.]], dtype=float32)");
        assert_eq!(array_repr(&Array::from_f32(vec![], vec![21.0])), "Array(21., dtype=float32)");
        assert_eq!(array_repr(&Array::weak_scalar_i32(3)), "Array(3, dtype=int32, weak_type=True)");
        assert_eq!(array_repr(&iota(&[2, 1, 2])), "Array([[[0, 1]],\n\n       [[2, 3]]], dtype=int32)");
        // JAX names the shape of every empty array, (0,) too (NumPy does not).
        assert_eq!(array_repr(&iota(&[0])), "Array([], shape=(0,), dtype=int32)");
        assert_eq!(array_repr(&iota(&[2, 0])), "Array([], shape=(2, 0), dtype=int32)");
        // Too long for one line with the dtype: JAX pads the dtype with six spaces instead.
        let long = Array::from_f32(vec![5], vec![0.0, 0.247_403_96, 0.479_425_55, 0.681_638_8, 0.841_470_96]);
        assert_eq!(
            array_repr(&long),
            "Array([0.        , 0.24740396, 0.47942555, 0.6816388 , 0.84147096],      dtype=float32)"
        );
    }
}
