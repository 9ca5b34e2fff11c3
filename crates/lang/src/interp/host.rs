//! NumPy on the host (`import numpy as np`). A JAX program's host is Python and NumPy; the
//! emulated TPU is the device. NumPy's functions are the `jax.numpy` ones run on the host: the
//! same implementations, with the context switched to the host (`Context::set_host`), where
//! each operation is evaluated at once by the reference evaluator at full width, with NumPy's
//! promotion and its 64-bit defaults (float64, int64). Host arrays are mutable in place
//! (`a[1:] += 1`, `a[mask] = 0`), so a script's array lives in a cell; NumPy's scalars
//! (`np.float64(1.5)`, what indexing and reductions give) are 0-d host arrays marked as such.
//!
//! The boundary is where JAX puts it: a host array handed to `jnp` or to a jitted function
//! becomes a device array (float64 → float32, int64 → int32, as JAX without x64 converts),
//! a device array handed to NumPy is copied to the host as it is, and NumPy reading a traced
//! value is JAX's `TracerArrayConversionError`.

use super::value::{ModuleId, Native, Value};
use super::{err, type_err, Interp, LocalFuture, RtError, R};
use crate::ast::{BinOp, CmpOp, UnaryOp};
use jaxlite::{Array, DType, Tensor};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A NumPy array (or scalar) of the script.
pub struct HostArray {
    array: RefCell<Rc<Array>>,
    /// NumPy's scalars (`np.float64(1.5)`) are 0-d arrays that print as numbers.
    pub scalar: bool,
}

impl HostArray {
    pub fn get(&self) -> Rc<Array> {
        self.array.borrow().clone()
    }

    /// Writes new contents in place: every name holding this array sees them.
    fn replace(&self, a: Array) {
        *self.array.borrow_mut() = Rc::new(a);
    }

    pub fn dtype(&self) -> DType {
        self.array.borrow().dtype()
    }
}

impl Value {
    pub fn host(a: Array, scalar: bool) -> Value {
        let scalar = scalar && a.shape().is_empty();
        Value::Host(Rc::new(HostArray { array: RefCell::new(Rc::new(a)), scalar }))
    }
}

thread_local! {
    /// Mirrors `Context::on_host` for what reads a dtype without the context (`dtype_arg`:
    /// Python's `float` is float64 to NumPy, float32 to JAX without x64).
    static ON_HOST: Cell<bool> = const { Cell::new(false) };
}

/// Whether a NumPy function is running (see `ON_HOST`).
pub fn on_host() -> bool {
    ON_HOST.with(|h| h.get())
}

/// NumPy's own names for its scalar types, as `np.float64` and `type(x).__name__` give them.
pub fn scalar_type_name(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "bool",
        other => other.name(),
    }
}

/// `repr(x)`: `array([1., 2.])`, `array([1, 2], dtype=int32)`, `np.float64(1.5)`.
pub fn repr(h: &HostArray) -> String {
    let a = h.get();
    if h.scalar {
        return match a.dtype() {
            DType::Bool => format!("np.{}_", jaxlite::format::format_array(&a)),
            dtype => format!("np.{}({})", scalar_type_name(dtype), jaxlite::format::format_array(&a)),
        };
    }
    let body = jaxlite::format::format_array_repr_with(&a, "array(");
    let body = match body.strip_suffix(".0") {
        // A 0-d float prints with NumPy's array formatter: `array(21.)`.
        Some(int) if a.shape().is_empty() && a.dtype().is_float() => format!("{int}."),
        _ => body,
    };
    // NumPy names the dtype unless it is a default one (float64, int64, bool) that the
    // elements already show; an empty array always names it.
    let default = matches!(a.dtype(), DType::F64 | DType::I64 | DType::Bool);
    let shape = if a.size() == 0 && a.shape() != [0] {
        format!(", shape={}", jaxlite::numpy::shape_str(a.shape()))
    } else {
        String::new()
    };
    if default && a.size() > 0 {
        format!("array({body})")
    } else {
        format!("array({body}{shape}, dtype={})", a.dtype().name())
    }
}

/// `str(x)`: the elements as `print` shows them.
pub fn str(h: &HostArray) -> String {
    jaxlite::format::format_array(&h.get())
}

/// The `numpy` modules' attributes.
pub fn module_attr(m: ModuleId, name: &str) -> R<Value> {
    let no_attr = || {
        RtError::of(super::objects::Builtin::AttributeError, format!("module '{}' has no attribute '{name}'", m.name()))
    };
    match m {
        ModuleId::NpRandom => match super::np_random::FUNCTIONS.iter().find(|&&f| f == name) {
            Some(f) => Ok(Value::native(Native::NpRandom(f))),
            None => Err(no_attr()),
        },
        ModuleId::NpTesting => match TESTING.iter().find(|&&f| f == name) {
            Some(f) => Ok(Value::native(Native::Np(f))),
            None => Err(no_attr()),
        },
        ModuleId::NpLinalg => match super::jax::module_attr(ModuleId::Linalg, name) {
            Ok(Value::Native(n)) => match &*n {
                Native::Jnp(f) => Ok(Value::native(Native::Np(f))),
                _ => Err(no_attr()),
            },
            _ => Err(no_attr()),
        },
        _ => match name {
            "random" => Ok(Value::Module(ModuleId::NpRandom)),
            "linalg" => Ok(Value::Module(ModuleId::NpLinalg)),
            "testing" => Ok(Value::Module(ModuleId::NpTesting)),
            "ndarray" => Ok(Value::native(Native::Np("ndarray"))),
            "float64" | "double" | "float_" => Ok(Value::native(Native::Np("float64"))),
            "int64" | "int_" | "intp" => Ok(Value::native(Native::Np("int64"))),
            "float32" | "single" => Ok(Value::native(Native::Np("float32"))),
            "int32" | "uint32" | "bool_" => {
                Ok(Value::native(Native::Np(DType::from_name(name).map_or("int32", |d| d.name()))))
            }
            "bool" => Ok(Value::native(Native::Np("bool"))),
            _ => match super::jax::module_attr(ModuleId::Numpy, name) {
                Ok(Value::Native(n)) => match &*n {
                    Native::Jnp(f) => Ok(Value::native(Native::Np(f))),
                    _ => Ok(Value::Native(n)),
                },
                Ok(Value::Module(ModuleId::Linalg)) => Ok(Value::Module(ModuleId::NpLinalg)),
                Ok(other) => Ok(other),
                Err(_) => Err(no_attr()),
            },
        },
    }
}

/// `numpy.testing`'s assertions.
const TESTING: &[&str] = &["assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_equal"];

/// Functions whose 0-d results stay arrays (`np.array(1.5)` is `array(1.5)`); every other
/// NumPy function gives a 0-d result as a scalar (`np.sum(a)` is `np.float64(…)`).
const MAKES_ARRAYS: &[&str] = &[
    "array",
    "asarray",
    "zeros",
    "ones",
    "full",
    "empty",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "copy",
    "reshape",
    "squeeze",
    "expand_dims",
    "atleast_1d",
    "ravel",
];

/// A host array as the `jnp` implementations take it (a concrete array), recursively through
/// lists and tuples; anything else as it is.
pub fn unhost(v: &Value) -> Value {
    match v {
        Value::Host(h) => Value::Array(Tensor::Concrete(h.get())),
        Value::List(l) if l.borrow().iter().any(holds_host) => Value::list(l.borrow().iter().map(unhost).collect()),
        Value::Tuple(t) if t.iter().any(holds_host) => Value::tuple(t.iter().map(unhost).collect()),
        other => other.clone(),
    }
}

fn holds_host(v: &Value) -> bool {
    match v {
        Value::Host(_) => true,
        Value::List(l) => l.borrow().iter().any(holds_host),
        Value::Tuple(t) => t.iter().any(holds_host),
        _ => false,
    }
}

/// A result computed on the host as the script sees it: arrays become host arrays (0-d ones
/// scalars, where `scalars`), through tuples and lists.
pub fn rehost(v: Value, scalars: bool) -> Value {
    match v {
        Value::Array(Tensor::Concrete(a)) => {
            let mut a = Rc::unwrap_or_clone(a);
            a.aval.weak_type = false;
            Value::host(a, scalars)
        }
        Value::Tuple(t) => Value::tuple(t.iter().map(|i| rehost(i.clone(), scalars)).collect()),
        Value::List(l) => {
            let items: Vec<Value> = l.borrow().iter().map(|i| rehost(i.clone(), scalars)).collect();
            Value::list(items)
        }
        other => other,
    }
}

/// NumPy's wording of the errors its functions raise where JAX words them otherwise.
fn numpy_error(e: RtError) -> RtError {
    let message = e.message.clone();
    if let Some((_, shapes)) = message.trim_end_matches('.').split_once("got incompatible shapes for broadcasting: ") {
        // JAX's "(2, 3), (4,)" as NumPy's "(2,3) (4,) ".
        let shapes = shapes.replace(", (", " (").replace(", ", ",");
        return RtError::of(
            super::objects::Builtin::ValueError,
            format!("operands could not be broadcast together with shapes {shapes} "),
        );
    }
    e
}

impl<'c, 'p> Interp<'c, 'p> {
    /// Runs `f` with the context on the host, then back where it was.
    pub(super) async fn on_host<F>(&mut self, f: F) -> R<Value>
    where
        F: for<'a> FnOnce(&'a mut Interp<'c, 'p>) -> LocalFuture<'a, R<Value>>,
    {
        let was = self.ctx.set_host(true);
        let was_flag = ON_HOST.with(|h| h.replace(true));
        let result = f(self).await;
        self.ctx.set_host(was);
        ON_HOST.with(|h| h.set(was_flag));
        result.map_err(numpy_error)
    }

    /// A function of the `numpy` module.
    pub(super) fn call_np<'a>(
        &'a mut self,
        name: &'static str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            match name {
                "ndarray" => return type_err("cannot create 'numpy.ndarray' instances this way; use np.array"),
                "assert_allclose" | "assert_array_equal" | "assert_array_almost_equal" | "assert_equal" => {
                    return self.np_assert(name, args, kwargs).await;
                }
                _ => {}
            }
            if let Some(dtype) = DType::from_name(name).or((name == "bool").then_some(DType::Bool)) {
                return self.np_scalar_type(dtype, args).await;
            }
            let args: Vec<Value> = args.iter().map(unhost).collect();
            let kwargs: Vec<(String, Value)> = kwargs.into_iter().map(|(k, v)| (k, unhost(&v))).collect();
            let result = self.on_host(move |s| s.call_jnp(name, args, kwargs)).await?;
            Ok(rehost(result, !MAKES_ARRAYS.contains(&name)))
        })
    }

    /// `np.float32(1.5)` (a scalar), `np.float64([1, 2])` (an array), `np.int64()` (zero).
    async fn np_scalar_type(&mut self, dtype: DType, args: Vec<Value>) -> R<Value> {
        let v = args.first().map(unhost).unwrap_or(Value::Int(0));
        let scalar = !matches!(v, Value::List(_) | Value::Tuple(_));
        let dtype_value = Value::DType(dtype);
        let result = self.on_host(move |s| s.call_jnp("asarray", vec![v, dtype_value], vec![])).await?;
        Ok(rehost(result, scalar))
    }

    /// An operator with a host array and no device array: computed on the host.
    pub(super) async fn host_binary(&mut self, op: BinOp, a: &Value, b: &Value) -> R<Value> {
        let (a, b) = (unhost(a), unhost(b));
        let result = self.on_host(move |s| s.binary(op, a, b)).await?;
        Ok(rehost(result, true))
    }

    pub(super) async fn host_unary(&mut self, op: UnaryOp, v: &Value) -> R<Value> {
        let v = unhost(v);
        let result = self.on_host(move |s| s.unary(op, v)).await?;
        Ok(rehost(result, true))
    }

    pub(super) async fn host_compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<Value> {
        let (a, b) = (unhost(a), unhost(b));
        let result = self.on_host(move |s| Box::pin(async move { s.compare(op, &a, &b).await })).await?;
        Ok(rehost(result, true))
    }

    /// `x.shape`, `x.T`, `x.sum` (a method bound to the host array), ...
    pub(super) async fn host_attr(&mut self, h: &Rc<HostArray>, name: &str) -> R<Value> {
        let receiver = Value::Host(h.clone());
        let name = name.to_string();
        let array = unhost(&receiver);
        let result = self.on_host(move |s| Box::pin(async move { s.get_attr(&array, &name).await })).await?;
        Ok(match result {
            // A method stays bound to the host array, so it runs on the host.
            Value::Native(n) => match &*n {
                Native::Method(Value::Array(_), method) => Value::native(Native::Method(receiver, method)),
                _ => Value::Native(n),
            },
            other => rehost(other, false),
        })
    }

    /// A method of a host array. `sort` and `fill` work in place, as NumPy's do.
    pub(super) async fn host_method(
        &mut self,
        h: &Rc<HostArray>,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let array = unhost(&Value::Host(h.clone()));
        let name = name.to_string();
        let args: Vec<Value> = args.iter().map(unhost).collect();
        let kwargs: Vec<(String, Value)> = kwargs.into_iter().map(|(k, v)| (k, unhost(&v))).collect();
        match name.as_str() {
            "fill" => {
                let value = args.first().cloned().unwrap_or(Value::None);
                self.host_set_item(h, Value::Ellipsis, value).await?;
                return Ok(Value::None);
            }
            "sort" => {
                let sorted = self.on_host(move |s| s.call_jnp("sort", [vec![array], args].concat(), kwargs)).await?;
                if let Value::Array(Tensor::Concrete(a)) = sorted {
                    h.replace(Rc::unwrap_or_clone(a));
                }
                return Ok(Value::None);
            }
            _ => {}
        }
        let scalars =
            !matches!(name.as_str(), "reshape" | "copy" | "astype" | "squeeze" | "ravel" | "flatten" | "transpose");
        let result = self
            .on_host(move |s| {
                Box::pin(async move {
                    let Value::Array(t) = &array else { return err("expected an array") };
                    s.call_array_method(t, &name, args, kwargs).await
                })
            })
            .await?;
        Ok(rehost(result, scalars))
    }

    /// `x[index]`: a scalar for a single element, as NumPy gives it.
    pub(super) async fn host_get_item(&mut self, h: &Rc<HostArray>, index: &Value) -> R<Value> {
        let array = h.get();
        let index = masks_as_positions(&unhost(index));
        check_bounds(array.shape(), &index)?;
        if let Some(rows) = gather_rows(&array, &index) {
            return Ok(Value::host(rows, false));
        }
        let result = self
            .on_host(move |s| Box::pin(async move { s.index_array(&Tensor::Concrete(array), &index).await }))
            .await?;
        Ok(rehost(result, true))
    }

    /// `x[index] = value`, in place.
    pub(super) async fn host_set_item(&mut self, h: &Rc<HostArray>, index: Value, value: Value) -> R<()> {
        if h.scalar {
            return type_err(format!("'{}' object does not support item assignment", scalar_type_name(h.dtype())));
        }
        let array = h.get();
        let dtype = array.dtype();
        let (index, value) = (masks_as_positions(&unhost(&index)), unhost(&value));
        check_bounds(array.shape(), &index)?;
        let updated = self
            .on_host(move |s| {
                Box::pin(async move { s.at_update(&Tensor::Concrete(array), &index, "set", vec![value]).await })
            })
            .await?;
        match updated {
            Value::Array(Tensor::Concrete(a)) => {
                h.replace(Rc::unwrap_or_clone(a).astype(dtype));
                Ok(())
            }
            _ => err("an array update gave no array"),
        }
    }

    /// `x op= y` on a host array: the result written into `x`, in `x`'s dtype. As NumPy's
    /// `same_kind` casting, a float result does not go into an integer array.
    pub(super) async fn host_inplace(&mut self, h: &Rc<HostArray>, op: BinOp, rhs: Value) -> R<Value> {
        let current = Value::Host(h.clone());
        let result = self.host_binary(op, &current, &rhs).await?;
        if h.scalar {
            return Ok(result);
        }
        let Value::Host(r) = &result else { return Ok(result) };
        let (from, to) = (r.dtype(), h.dtype());
        if (from.is_float() && !to.is_float()) || (to == DType::Bool && from != DType::Bool) {
            return Err(RtError::of(
                super::objects::Builtin::TypeError,
                format!(
                    "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
                    ufunc_name(op),
                    from.name(),
                    to.name()
                ),
            ));
        }
        let new = r.get();
        if new.shape() != h.get().shape() {
            return Err(RtError::of(
                super::objects::Builtin::ValueError,
                format!(
                    "non-broadcastable output operand with shape {} doesn't match the broadcast shape {}",
                    jaxlite::numpy::shape_str(h.get().shape()),
                    jaxlite::numpy::shape_str(new.shape())
                ),
            ));
        }
        h.replace(new.astype(to));
        Ok(current)
    }

    /// `np.testing.assert_allclose(actual, desired, rtol=1e-7, atol=0)` and the exact ones:
    /// `AssertionError` with NumPy's report of the mismatch.
    async fn np_assert(&mut self, name: &str, args: Vec<Value>, kwargs: Vec<(String, Value)>) -> R<Value> {
        let mut positional = args.into_iter();
        let mut take = |key: &str, kwargs: &[(String, Value)]| -> Option<Value> {
            positional.next().or_else(|| kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
        };
        let (Some(actual), Some(desired)) = (take("actual", &kwargs), take("desired", &kwargs)) else {
            return type_err(format!("{name}() missing required arguments 'actual' and 'desired'"));
        };
        let number = |key: &str, default: f64| -> R<f64> {
            match kwargs.iter().find(|(k, _)| k == key) {
                Some((_, v)) => super::value::as_f64(v).ok_or_else(|| RtError::new(format!("{key} must be a number"))),
                None => Ok(default),
            }
        };
        let (rtol, atol) = match name {
            "assert_allclose" => (number("rtol", 1e-7)?, number("atol", 0.0)?),
            "assert_array_almost_equal" => (0.0, 1.5 * 10f64.powi(-(number("decimal", 6.0)? as i32))),
            _ => (0.0, 0.0),
        };
        let arrays = self
            .on_host(move |s| {
                Box::pin(async move {
                    let a = s.as_array(&unhost(&actual), None).await?;
                    let d = s.as_array(&unhost(&desired), None).await?;
                    Ok(Value::tuple(vec![Value::Array(a), Value::Array(d)]))
                })
            })
            .await?;
        let Value::Tuple(pair) = arrays else { return err("expected two arrays") };
        let (Value::Array(Tensor::Concrete(a)), Value::Array(Tensor::Concrete(d))) = (&pair[0], &pair[1]) else {
            return err("expected two arrays");
        };
        match assertion_report(name, a, d, rtol, atol) {
            None => Ok(Value::None),
            Some(report) => Err(RtError::of(super::objects::Builtin::AssertionError, report)),
        }
    }
}

/// A boolean mask in an index as the positions where it holds, one integer array per axis it
/// covers (NumPy's `x[mask]` is `x[mask.nonzero()]`): with the values on the host, the
/// result's shape is known.
pub fn masks_as_positions(index: &Value) -> Value {
    match index {
        Value::Tuple(items) => Value::tuple(items.iter().flat_map(host_index_item).collect()),
        single => {
            let mut parts = host_index_item(single);
            if parts.len() == 1 {
                parts.remove(0)
            } else {
                Value::tuple(parts)
            }
        }
    }
}

/// `x[positions]` for one integer array of positions along the first axis (a batch of rows,
/// `np.eye(10)[labels]`): copied row by row, where the general indexing code would build a
/// one-hot selection as large as both arrays.
fn gather_rows(a: &Array, index: &Value) -> Option<Array> {
    let Value::Array(Tensor::Concrete(positions)) = index else { return None };
    if positions.dtype().is_float() || positions.dtype() == DType::Bool || a.shape().is_empty() {
        return None;
    }
    let n = a.shape()[0] as i64;
    let rows: Vec<usize> = positions.to_i64_vec().iter().map(|&p| if p < 0 { p + n } else { p } as usize).collect();
    Some(take_rows(a, &rows, positions.shape()))
}

/// The rows of `a` (along its first axis) at `rows`, laid out in `shape` followed by a row's
/// shape. Int64 rows are copied as integers, every other dtype through f64 (exact for all).
pub fn take_rows(a: &Array, rows: &[usize], shape: &[usize]) -> Array {
    let row: usize = a.shape()[1..].iter().product();
    fn pick<T: Copy>(values: &[T], rows: &[usize], row: usize) -> Vec<T> {
        rows.iter().flat_map(|&r| values[r * row..(r + 1) * row].iter().copied()).collect()
    }
    let data = match a.dtype() {
        DType::I64 => jaxlite::Data::I64(pick(&a.to_i64_vec(), rows, row)),
        _ => jaxlite::Data::F64(pick(&a.to_f64_vec(), rows, row)),
    };
    let mut full = shape.to_vec();
    full.extend_from_slice(&a.shape()[1..]);
    Array::new(full, data).astype(a.dtype())
}

/// A NumPy array as JAX receives it without x64: float64 → float32, int64 → int32.
pub fn to_device(a: &Array) -> Array {
    a.astype(a.dtype().on_device())
}

/// NumPy's `IndexError` for a position past an axis (JAX clamps or drops instead).
fn check_bounds(shape: &[usize], index: &Value) -> R<()> {
    let items: Vec<Value> = match index {
        Value::Tuple(items) => items.to_vec(),
        single => vec![single.clone()],
    };
    let consumes = |v: &Value| !matches!(v, Value::None | Value::Ellipsis);
    let after_ellipsis =
        items.iter().skip_while(|v| !matches!(v, Value::Ellipsis)).skip(1).filter(|v| consumes(v)).count();
    let mut axis = 0usize;
    for item in &items {
        match item {
            Value::Ellipsis => axis = shape.len().saturating_sub(after_ellipsis),
            Value::None => {}
            _ => {
                let positions: Vec<i64> = match item {
                    Value::Int(i) => vec![*i],
                    Value::Array(Tensor::Concrete(a)) if !a.dtype().is_float() && a.dtype() != DType::Bool => {
                        a.to_i64_vec()
                    }
                    Value::List(l) => l.borrow().iter().filter_map(super::value::as_int).collect(),
                    _ => vec![],
                };
                if let Some(&n) = shape.get(axis) {
                    if let Some(&bad) = positions.iter().find(|&&p| p >= n as i64 || p < -(n as i64)) {
                        return Err(RtError::of(
                            super::objects::Builtin::IndexError,
                            format!("index {bad} is out of bounds for axis {axis} with size {n}"),
                        ));
                    }
                }
                axis += 1;
            }
        }
    }
    Ok(())
}

/// One item of a host index as the indexing code takes it: a mask as its positions, and
/// integer positions as int32, as JAX's are.
fn host_index_item(v: &Value) -> Vec<Value> {
    let narrow = |v: Value| -> Value {
        match v {
            Value::Array(Tensor::Concrete(a)) if a.dtype() == DType::I64 => Value::array(a.astype(DType::I32)),
            other => other,
        }
    };
    match v {
        Value::Array(Tensor::Concrete(m)) if m.dtype() == DType::Bool && !m.shape().is_empty() => {
            let strides = jaxlite::eval::strides(m.shape());
            let hits: Vec<usize> =
                m.to_f64_vec().iter().enumerate().filter(|(_, &b)| b != 0.0).map(|(i, _)| i).collect();
            (0..m.shape().len())
                .map(|d| {
                    let at = hits.iter().map(|&i| ((i / strides[d]) % m.shape()[d]) as i32).collect();
                    Value::array(Array::new(vec![hits.len()], jaxlite::Data::I32(at)))
                })
                .collect()
        }
        Value::List(items) => vec![Value::list(items.borrow().iter().map(unhost).map(narrow).collect())],
        other => vec![narrow(other.clone())],
    }
}

fn ufunc_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "subtract",
        BinOp::Mul => "multiply",
        BinOp::Div => "divide",
        BinOp::FloorDiv => "floor_divide",
        BinOp::Mod => "remainder",
        BinOp::Pow => "power",
        BinOp::MatMul => "matmul",
        _ => "bitwise",
    }
}

/// NumPy's report when arrays differ (`numpy.testing.assert_allclose`), `None` when they
/// match: the header, the count of mismatched elements, the largest differences, and both
/// arrays.
fn assertion_report(name: &str, actual: &Array, desired: &Array, rtol: f64, atol: f64) -> Option<String> {
    let header = match name {
        "assert_allclose" => format!("\nNot equal to tolerance rtol={}, atol={}\n", py_g(rtol), py_g(atol)),
        "assert_array_almost_equal" => "\nArrays are not almost equal to 6 decimals\n".to_string(),
        _ => "\nArrays are not equal\n".to_string(),
    };
    let shape = match jaxlite::numpy::broadcast_shapes("assert", actual.shape(), desired.shape()) {
        Ok(s) => s,
        Err(_) => {
            return Some(format!(
                "{header}\n(shapes {}, {} mismatch)\n x: {}\n y: {}",
                jaxlite::numpy::shape_str(actual.shape()),
                jaxlite::numpy::shape_str(desired.shape()),
                array_line(actual),
                array_line(desired)
            ))
        }
    };
    let n: usize = shape.iter().product();
    let (x, y) = (broadcast_values(actual, &shape), broadcast_values(desired, &shape));
    let mut mismatched = 0;
    let (mut max_abs, mut max_rel) = (0.0f64, 0.0f64);
    for (&a, &d) in x.iter().zip(&y) {
        let same_nan = a.is_nan() && d.is_nan();
        let close = same_nan || a == d || (a - d).abs() <= atol + rtol * d.abs();
        if !close {
            mismatched += 1;
        }
        if !same_nan {
            let diff = (a - d).abs();
            max_abs = max_abs.max(diff);
            if d != 0.0 {
                max_rel = max_rel.max(diff / d.abs());
            } else if diff > 0.0 {
                max_rel = f64::INFINITY;
            }
        }
    }
    if mismatched == 0 {
        return None;
    }
    let percent = 100.0 * mismatched as f64 / n as f64;
    let percent = py_g(percent);
    let mut report = format!("{header}\nMismatched elements: {mismatched} / {n} ({percent}%)\n");
    if actual.dtype() == DType::Bool || desired.dtype() == DType::Bool {
        // NumPy reports no differences for booleans.
    } else {
        report.push_str(&format!("Max absolute difference among violations: {}\n", py_g(max_abs)));
        report.push_str(&format!("Max relative difference among violations: {}\n", py_g(max_rel)));
    }
    report.push_str(&format!(" ACTUAL: {}\n DESIRED: {}", array_line(actual), array_line(desired)));
    Some(report)
}

/// An array as the assertion report shows it (its `repr`, continuation lines indented).
fn array_line(a: &Array) -> String {
    repr(&HostArray { array: RefCell::new(Rc::new(a.clone())), scalar: false })
}

/// The elements of `a` broadcast to `shape`, as f64.
fn broadcast_values(a: &Array, shape: &[usize]) -> Vec<f64> {
    let values = a.to_f64_vec();
    let n: usize = shape.iter().product();
    let offset = shape.len() - a.shape().len();
    let strides = jaxlite::eval::strides(a.shape());
    (0..n)
        .map(|i| {
            let mut rest = i;
            let mut at = 0;
            for d in (0..shape.len()).rev() {
                let k = rest % shape[d].max(1);
                rest /= shape[d].max(1);
                if d >= offset && a.shape()[d - offset] != 1 {
                    at += k * strides[d - offset];
                }
            }
            values[at]
        })
        .collect()
}

/// `%g`-style shortest text of a float, as NumPy's reports print their numbers (`1e-07`,
/// `0`, `33.3333`).
fn py_g(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.is_infinite() {
        return "inf".into();
    }
    let exponent = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exponent) {
        let s = format!("{:.5e}", x);
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let s = format!("{:.*}", (5 - exponent).max(0) as usize, x);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Writes new contents into a host array in place (see `HostArray::replace`).
pub fn replace(h: &HostArray, a: Array) {
    h.replace(a)
}

/// A NumPy scalar as the Python number it holds (a seed, a count); anything else as it is.
pub fn unhost_scalar(v: &Value) -> Value {
    match v {
        Value::Host(h) if h.get().size() == 1 => {
            let a = h.get();
            match a.dtype() {
                DType::Bool => Value::Bool(a.to_f64_vec()[0] != 0.0),
                d if d.is_float() => Value::Float(a.to_f64_vec()[0]),
                _ => Value::Int(a.to_i64_vec()[0]),
            }
        }
        other => other.clone(),
    }
}
