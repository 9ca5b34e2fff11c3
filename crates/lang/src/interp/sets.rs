//! `jnp` functions whose result's shape depends on the values: `unique`, `nonzero`,
//! `argwhere`, `flatnonzero`. Computed on the host from a concrete array, as JAX computes them
//! outside `jit`. With `size=` the result is cut or padded to that length, with `fill_value`
//! (default 0; for `unique`, the smallest value); that is also how `nonzero`, `argwhere` and
//! `flatnonzero` and `unique` run on a traced array, as in JAX, where the length must be known
//! before the values (`traced_positions`, `traced_unique`).

use super::builtins::{no_more_kwargs, take_kwarg};
use super::jax::int32_scalar;
use super::value::Value;
use super::{err, Interp, R};
use jaxlite::numpy::{self as jnp, Reduction};
use jaxlite::{Array, BinaryOp, CompareOp, Context, DType, Data, LocalFuture, Primitive, Tensor};

/// `jax.numpy` names implemented here.
pub const JNP_SETS: &[&str] = &["unique", "nonzero", "argwhere", "flatnonzero"];

impl Interp<'_, '_> {
    pub(super) fn call_sets<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let first = if name == "unique" { "ar" } else { "a" };
            let x = arg(0, first).ok_or_else(|| super::RtError::new(format!("{name}() missing argument '{first}'")))?;
            let flags: Vec<bool> = if name == "unique" {
                let mut flags = Vec::new();
                for (i, key) in ["return_index", "return_inverse", "return_counts"].iter().enumerate() {
                    flags.push(match arg(i + 1, key) {
                        Some(v) => self.truthy(&v)?,
                        None => false,
                    });
                }
                if !matches!(arg(4, "axis"), None | Some(Value::None)) {
                    return super::unsupported("jnp.unique with axis= is not supported by the playground yet");
                }
                flags
            } else {
                vec![]
            };
            let size = match take_kwarg(&mut kwargs, "size") {
                None | Some(Value::None) => None,
                Some(v) => Some(usize::try_from(super::jax::int_arg(&v)?).map_err(|_| {
                    super::RtError::of(
                        super::objects::Builtin::ValueError,
                        format!("jnp.{name}: size must be a non-negative integer"),
                    )
                })?),
            };
            let fill = take_kwarg(&mut kwargs, "fill_value").filter(|v| !matches!(v, Value::None));
            if name == "unique" {
                let _ = take_kwarg(&mut kwargs, "equal_nan");
                let _ = take_kwarg(&mut kwargs, "sorted");
            }
            no_more_kwargs(&format!("jnp.{name}"), &kwargs)?;
            let x = self.to_tensor(&x)?;
            let fill = match fill {
                Some(Value::Float(f)) => Some(f),
                Some(v) => Some(super::jax::int_arg(&v)? as f64),
                None => None,
            };
            if name == "nonzero" && x.aval().rank() == 0 {
                return err(
                    "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() instead.",
                );
            }
            let Some(a) = x.concrete() else {
                return match size {
                    None => err(format!(
                        "jnp.{name} of a traced array ({}): its result's shape depends on the values, which a traced array does not have; pass size= (and fill_value=) to fix the result's length, as JAX asks, or call it outside jit",
                        super::value::aval_text(x.aval()),
                    )),
                    Some(n) if name == "unique" => traced_unique(self.ctx, &x, &flags, n, fill).await,
                    Some(n) => Ok(traced_positions(self.ctx, name, &x, n, fill.unwrap_or(0.0) as i64).await?),
                };
            };
            let values = a.to_f64_vec();
            let shape = a.shape().to_vec();
            if name == "unique" {
                return Ok(unique(a, &values, &flags, size, fill));
            }
            // Row-major positions of the nonzero elements (NaN is nonzero).
            let at: Vec<usize> = (0..values.len()).filter(|&i| values[i] != 0.0).collect();
            let n = size.unwrap_or(at.len());
            let fill = fill.unwrap_or(0.0) as i32;
            let int = |shape: Vec<usize>, v: Vec<i32>| Value::array(Array::new(shape, Data::I32(v)));
            // Each nonzero element's index along `axis`, cut or padded to n.
            let coordinate = |axis: usize| -> Vec<i32> {
                let inner: usize = shape[axis + 1..].iter().product();
                let mut v: Vec<i32> = at.iter().take(n).map(|&i| ((i / inner) % shape[axis]) as i32).collect();
                v.resize(n, fill);
                v
            };
            Ok(match name {
                "flatnonzero" => {
                    let mut v: Vec<i32> = at.iter().take(n).map(|&i| i as i32).collect();
                    v.resize(n, fill);
                    int(vec![n], v)
                }
                "nonzero" => Value::tuple((0..shape.len()).map(|d| int(vec![n], coordinate(d))).collect()),
                // argwhere: one row of coordinates per element.
                _ => {
                    let columns: Vec<Vec<i32>> = (0..shape.len()).map(coordinate).collect();
                    let rows = (0..n).flat_map(|r| columns.iter().map(move |c| c[r])).collect();
                    int(vec![n, shape.len()], rows)
                }
            })
        })
    }
}

/// `nonzero`, `argwhere` or `flatnonzero` of a traced array, `n` positions long: the k-th
/// nonzero element is the one where the running count of nonzero elements reaches k + 1, so
/// an n × size comparison of that count with 1..=n picks each position (as a sum of the one
/// index selected), and slots past the last nonzero element take `fill`.
async fn traced_positions(ctx: &mut Context, name: &str, x: &Tensor, n: usize, fill: i64) -> R<Value> {
    let shape = x.aval().shape.clone();
    let size: usize = shape.iter().product();
    let int = int32_scalar;
    let flat = jnp::reshape(ctx, x, &[size as i64]).await?;
    let nonzero = jnp::compare(ctx, CompareOp::Ne, &flat, &int(0)).await?;
    let counted = jnp::astype(ctx, &nonzero, DType::I32).await?;
    let running = jnp::apply1(ctx, Primitive::Cumsum { axis: 0, reverse: false }, &counted).await?;
    let grid = vec![n, size];
    let iota = |d: usize| Primitive::Iota { dtype: DType::I32, shape: grid.clone(), dimension: d };
    let (slot, position) = (jnp::apply(ctx, iota(0), &[]).await?, jnp::apply(ctx, iota(1), &[]).await?);
    let wanted = jnp::binary(ctx, BinaryOp::Add, &slot, &int(1)).await?;
    let running = jnp::reshape(ctx, &running, &[1, size as i64]).await?;
    let running = jnp::broadcast_to(ctx, &running, &grid).await?;
    let nonzero = jnp::reshape(ctx, &nonzero, &[1, size as i64]).await?;
    let nonzero = jnp::broadcast_to(ctx, &nonzero, &grid).await?;
    let reached = jnp::compare(ctx, CompareOp::Eq, &running, &wanted).await?;
    let picked = jnp::binary(ctx, BinaryOp::And, &reached, &nonzero).await?;
    let index = jnp::where_(ctx, &picked, &position, &int(0)).await?;
    let index = jnp::reduce(ctx, &index, Some(&[1]), Reduction::Sum).await?;
    let hits = jnp::reduce(ctx, &picked, Some(&[1]), Reduction::Sum).await?;
    let found = jnp::compare(ctx, CompareOp::Gt, &hits, &int(0)).await?;
    // Each position's index along `axis`, `fill` where there is none.
    let mut coordinates = Vec::new();
    let axes = if name == "flatnonzero" { vec![None] } else { (0..shape.len()).map(Some).collect() };
    for axis in axes {
        let coordinate = match axis {
            None => index.clone(),
            Some(d) => {
                let inner: usize = shape[d + 1..].iter().product();
                let q = jnp::floor_divide(ctx, &index, &int(inner as i64)).await?;
                jnp::remainder(ctx, &q, &int(shape[d] as i64)).await?
            }
        };
        coordinates.push(jnp::where_(ctx, &found, &coordinate, &int(fill)).await?);
    }
    Ok(match name {
        "argwhere" => {
            let mut columns = Vec::new();
            for t in &coordinates {
                columns.push(jnp::reshape(ctx, t, &[n as i64, 1]).await?);
            }
            Value::Array(jnp::apply(ctx, Primitive::Concatenate { dimension: 1 }, &columns).await?)
        }
        "nonzero" => Value::tuple(coordinates.into_iter().map(Value::Array).collect()),
        _ => Value::Array(coordinates.remove(0)),
    })
}

/// `jnp.unique` of a traced array, `n` values long: element i is the first of its value when
/// no earlier element equals it (NaNs equal one another, −0 equals +0); a value's rank is the
/// number of first elements that sort before it (NaN last); the k-th value is the first
/// element of rank k. Each element's rank is its `inverse`, and how many have rank k its
/// count. Comparisons of every pair of elements, then n × len selections.
async fn traced_unique(ctx: &mut Context, x: &Tensor, flags: &[bool], n: usize, fill: Option<f64>) -> R<Value> {
    let dtype = x.aval().dtype;
    let shape = x.aval().shape.clone();
    let len: usize = shape.iter().product();
    super::jax::check_size(&[len, len.max(n)])?;
    let int = int32_scalar;
    let keys = if dtype == DType::Bool { jnp::astype(ctx, x, DType::I32).await? } else { x.clone() };
    let flat = jnp::reshape(ctx, &keys, &[len as i64]).await?;
    let square = vec![len, len];
    let xi = jnp::reshape(ctx, &flat, &[len as i64, 1]).await?;
    let xi = jnp::broadcast_to(ctx, &xi, &square).await?;
    let xj = jnp::reshape(ctx, &flat, &[1, len as i64]).await?;
    let xj = jnp::broadcast_to(ctx, &xj, &square).await?;
    let (equal, before) = super::arrange::equal_and_before(ctx, &xi, &xj).await?;
    let iota = |shape: &Vec<usize>, d: usize| Primitive::Iota { dtype: DType::I32, shape: shape.clone(), dimension: d };
    let (i, j) = (jnp::apply(ctx, iota(&square, 0), &[]).await?, jnp::apply(ctx, iota(&square, 1), &[]).await?);
    let earlier = jnp::compare(ctx, CompareOp::Lt, &j, &i).await?;
    let repeats = jnp::binary(ctx, BinaryOp::And, &equal, &earlier).await?;
    let repeats = jnp::reduce(ctx, &repeats, Some(&[1]), Reduction::Sum).await?;
    let first = jnp::compare(ctx, CompareOp::Eq, &repeats, &int(0)).await?;
    let first_j = jnp::reshape(ctx, &first, &[1, len as i64]).await?;
    let first_j = jnp::broadcast_to(ctx, &first_j, &square).await?;
    let ranked = jnp::binary(ctx, BinaryOp::And, &first_j, &before).await?;
    let rank = jnp::reduce(ctx, &ranked, Some(&[1]), Reduction::Sum).await?;
    // n × len: slot k against each element.
    let grid = vec![n, len];
    let k = jnp::apply(ctx, iota(&grid, 0), &[]).await?;
    let position = jnp::apply(ctx, iota(&grid, 1), &[]).await?;
    let row = async |ctx: &mut Context, t: &Tensor| -> R<Tensor> {
        let t = jnp::reshape(ctx, t, &[1, len as i64]).await?;
        Ok(jnp::broadcast_to(ctx, &t, &grid).await?)
    };
    let (rank_g, first_g, values_g) = (row(ctx, &rank).await?, row(ctx, &first).await?, row(ctx, &flat).await?);
    let of_rank = jnp::compare(ctx, CompareOp::Eq, &rank_g, &k).await?;
    let picked = jnp::binary(ctx, BinaryOp::And, &of_rank, &first_g).await?;
    let hits = jnp::reduce(ctx, &picked, Some(&[1]), Reduction::Sum).await?;
    let found = jnp::compare(ctx, CompareOp::Gt, &hits, &int(0)).await?;
    // The one picked value: a max over −∞ elsewhere keeps −0 and NaN as they are (a float
    // sum would not); an int sum needs no fill.
    let key_dtype = flat.aval().dtype;
    let values = if key_dtype.is_float() {
        let lowest = Tensor::from(Array::from_f32(vec![], vec![f32::NEG_INFINITY]).astype(key_dtype));
        let terms = jnp::where_(ctx, &picked, &values_g, &lowest).await?;
        jnp::reduce(ctx, &terms, Some(&[1]), Reduction::Max).await?
    } else {
        let terms = jnp::where_(ctx, &picked, &values_g, &int(0)).await?;
        jnp::reduce(ctx, &terms, Some(&[1]), Reduction::Sum).await?
    };
    // Past the last value: fill_value, or the smallest value.
    let fill = match fill {
        Some(f) => Tensor::from(Array::from_f32(vec![], vec![f as f32]).astype(key_dtype)),
        None if n == 0 => Tensor::from(Array::from_f32(vec![], vec![0.0]).astype(key_dtype)),
        None => {
            let prim = Primitive::Slice { start_indices: vec![0], limit_indices: vec![1], strides: None };
            let smallest = jnp::apply1(ctx, prim, &values).await?;
            jnp::reshape(ctx, &smallest, &[]).await?
        }
    };
    let mut values = jnp::where_(ctx, &found, &values, &fill).await?;
    if dtype == DType::Bool {
        values = jnp::astype(ctx, &values, DType::Bool).await?;
    }
    if !flags.iter().any(|&f| f) {
        return Ok(Value::Array(values));
    }
    let mut out = vec![Value::Array(values)];
    if flags[0] {
        let terms = jnp::where_(ctx, &picked, &position, &int(0)).await?;
        let index = jnp::reduce(ctx, &terms, Some(&[1]), Reduction::Sum).await?;
        // Padding repeats the smallest value's index, as JAX pads it.
        let prim = Primitive::Slice { start_indices: vec![0], limit_indices: vec![1.min(n)], strides: None };
        let smallest = jnp::apply1(ctx, prim, &index).await?;
        let smallest = if n == 0 { int(0) } else { jnp::reshape(ctx, &smallest, &[]).await? };
        out.push(Value::Array(jnp::where_(ctx, &found, &index, &smallest).await?));
    }
    if flags[1] {
        out.push(Value::Array(jnp::reshape(ctx, &rank, &shape.iter().map(|&d| d as i64).collect::<Vec<_>>()).await?));
    }
    if flags[2] {
        let counted = jnp::reduce(ctx, &of_rank, Some(&[1]), Reduction::Sum).await?;
        out.push(Value::Array(jnp::where_(ctx, &found, &counted, &int(0)).await?));
    }
    Ok(Value::tuple(out))
}

/// `jnp.unique` of a flattened array: the sorted distinct values (−0 and +0 one value, the
/// first met; NaNs one value, last), then, as asked, the index of each value's first
/// occurrence, the index of each element's value (in the array's shape), and the counts.
fn unique(a: &Array, values: &[f64], flags: &[bool], size: Option<usize>, fill: Option<f64>) -> Value {
    let dtype = a.dtype();
    let order_of = |x: f64, y: f64| x.partial_cmp(&y).unwrap_or_else(|| x.is_nan().cmp(&y.is_nan()));
    // A stable sort of the positions, so each run of equal values starts at its first occurrence.
    let mut sorted: Vec<usize> = (0..values.len()).collect();
    sorted.sort_by(|&i, &j| order_of(values[i], values[j]));
    let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
    let mut firsts: Vec<usize> = Vec::new();
    let mut counts: Vec<i32> = Vec::new();
    let mut inverse = vec![0i32; values.len()];
    for &i in &sorted {
        match firsts.last() {
            Some(&f) if same(values[f], values[i]) => *counts.last_mut().expect("a count per value") += 1,
            _ => {
                firsts.push(i);
                counts.push(1);
            }
        }
        inverse[i] = firsts.len() as i32 - 1;
    }
    let n = size.unwrap_or(firsts.len());
    let smallest = firsts.first().map_or(0.0, |&f| values[f]);
    let mut distinct: Vec<f64> = firsts.iter().take(n).map(|&f| values[f]).collect();
    distinct.resize(n, fill.unwrap_or(smallest));
    let distinct = Value::array(super::jax::array_from_f64(vec![n], &distinct, dtype));
    if !flags.iter().any(|&f| f) {
        return distinct;
    }
    let int = |shape: Vec<usize>, v: Vec<i32>| Value::array(Array::new(shape, Data::I32(v)));
    // Padding repeats the smallest value's index, as JAX pads it.
    let mut index: Vec<i32> = firsts.iter().take(n).map(|&f| f as i32).collect();
    index.resize(n, firsts.first().map_or(0, |&f| f as i32));
    let mut counts: Vec<i32> = counts.into_iter().take(n).collect();
    counts.resize(n, 0);
    let mut out = vec![distinct];
    if flags[0] {
        out.push(int(vec![n], index));
    }
    if flags[1] {
        out.push(int(a.shape().to_vec(), inverse));
    }
    if flags[2] {
        out.push(int(vec![n], counts));
    }
    Value::tuple(out)
}
