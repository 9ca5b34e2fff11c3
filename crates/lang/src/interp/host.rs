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
    storage: Storage,
    /// NumPy's scalars (`np.float64(1.5)`) are 0-d arrays that print as numbers.
    pub scalar: bool,
}

/// Where a host array's elements live: its own, or a view's window onto another array's
/// (`a[1:]`, `a.T`, `a.reshape(2, 3)`): the flat positions in the base array, laid out in
/// the view's shape, so that writing through the view writes the base, as in NumPy.
enum Storage {
    Own(RefCell<Rc<Array>>),
    View { base: Rc<HostArray>, positions: Rc<Array> },
}

impl HostArray {
    pub fn get(&self) -> Rc<Array> {
        match &self.storage {
            Storage::Own(a) => a.borrow().clone(),
            Storage::View { base, positions } => {
                let base = base.get();
                let flat = Array::new(vec![base.size()], base.data.clone());
                let rows: Vec<usize> = positions.to_i64_vec().iter().map(|&p| p as usize).collect();
                Rc::new(take_rows(&flat, &rows, positions.shape()))
            }
        }
    }

    /// Writes new contents in place: every name holding this array (or a view of the same
    /// base) sees them.
    fn replace(&self, a: Array) {
        match &self.storage {
            Storage::Own(cell) => *cell.borrow_mut() = Rc::new(a),
            Storage::View { base, positions } => {
                let old = base.get();
                let dtype = old.dtype();
                let at = positions.to_i64_vec();
                let data = if dtype == DType::I64 {
                    let mut values = old.to_i64_vec();
                    for (&p, v) in at.iter().zip(a.astype(dtype).to_i64_vec()) {
                        values[p as usize] = v;
                    }
                    jaxlite::Data::I64(values)
                } else {
                    let mut values = old.to_f64_vec();
                    for (&p, v) in at.iter().zip(a.astype(dtype).to_f64_vec()) {
                        values[p as usize] = v;
                    }
                    jaxlite::Data::F64(values)
                };
                base.replace(Array::new(old.shape().to_vec(), data).astype(dtype));
            }
        }
    }

    pub fn dtype(&self) -> DType {
        match &self.storage {
            Storage::Own(a) => a.borrow().dtype(),
            Storage::View { base, .. } => base.dtype(),
        }
    }

    /// The flat positions of this array's elements in the array that owns them.
    fn positions(&self) -> Rc<Array> {
        match &self.storage {
            Storage::Own(a) => {
                let shape = a.borrow().shape().to_vec();
                let n: usize = shape.iter().product();
                Rc::new(Array::new(shape, jaxlite::Data::I64((0..n as i64).collect())))
            }
            Storage::View { positions, .. } => positions.clone(),
        }
    }

    /// The array that owns this one's elements.
    fn owner(self: &Rc<Self>) -> Rc<HostArray> {
        match &self.storage {
            Storage::Own(_) => self.clone(),
            Storage::View { base, .. } => base.clone(),
        }
    }
}

/// A view of `h` whose elements are at `positions` of `h`'s owner, or a copy where NumPy
/// would copy: when the positions are not one strided window (`a.T.ravel()`).
fn view_or_copy(h: &Rc<HostArray>, positions: Array) -> Value {
    if !is_strided(&positions) {
        let rows: Vec<usize> = positions.to_i64_vec().iter().map(|&p| p as usize).collect();
        let owner = h.owner().get();
        let flat = Array::new(vec![owner.size()], owner.data.clone());
        return Value::host(take_rows(&flat, &rows, positions.shape()), false);
    }
    Value::Host(Rc::new(HostArray {
        storage: Storage::View { base: h.owner(), positions: Rc::new(positions) },
        scalar: false,
    }))
}

/// Whether positions laid out in their shape are `offset + Σ index_d · stride_d` for some
/// strides: what a NumPy view can describe.
fn is_strided(positions: &Array) -> bool {
    let (shape, at) = (positions.shape(), positions.to_i64_vec());
    if at.is_empty() {
        return true;
    }
    let steps = jaxlite::eval::strides(shape);
    let strides: Vec<i64> = (0..shape.len()).map(|d| if shape[d] > 1 { at[steps[d]] - at[0] } else { 0 }).collect();
    at.iter().enumerate().all(|(flat, &p)| {
        let expected: i64 = (0..shape.len()).map(|d| ((flat / steps[d]) % shape[d]) as i64 * strides[d]).sum();
        p == at[0] + expected
    })
}

impl Value {
    pub fn host(a: Array, scalar: bool) -> Value {
        let scalar = scalar && a.shape().is_empty();
        Value::Host(Rc::new(HostArray { storage: Storage::Own(RefCell::new(Rc::new(a))), scalar }))
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
    // NumPy adds what the elements do not show: the shape of an empty or summarised array,
    // and the dtype unless it is a default one (float64, int64, bool) or the array is empty.
    let mut extras = Vec::new();
    if (a.size() == 0 && a.shape() != [0]) || jaxlite::format::is_summarised(&a) {
        extras.push(format!("shape={}", jaxlite::numpy::shape_str(a.shape())));
    }
    if !matches!(a.dtype(), DType::F64 | DType::I64 | DType::Bool) || a.size() == 0 {
        extras.push(format!("dtype={}", a.dtype().name()));
    }
    if extras.is_empty() {
        return format!("array({body})");
    }
    // The extras go on a line of their own when they would take the last line past the width.
    let head = format!("array({body},");
    let last_line = head.len() - head.rfind('\n').map_or(0, |p| p + 1);
    let extras = extras.join(", ");
    let spacer = if last_line + extras.len() + 2 > jaxlite::format::LINE_WIDTH { "\n      " } else { " " };
    format!("{head}{spacer}{extras})")
}

/// `str(x)`: the elements as `print` shows them.
pub fn str(h: &HostArray) -> String {
    jaxlite::format::format_array(&h.get())
}

/// The `numpy` modules' attributes.
pub fn module_attr(m: ModuleId, name: &str) -> R<Value> {
    // A name NumPy has that the playground lacks is "not supported yet", as for JAX's.
    let no_attr = || match pylib::in_real_module(m.name(), name) {
        true => RtError::of(
            super::objects::Builtin::NotImplementedError,
            format!("{}.{name} is not supported by the playground yet", m.name()),
        ),
        false => RtError::of(
            super::objects::Builtin::AttributeError,
            format!("module '{}' has no attribute '{name}'", m.name()),
        ),
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
            "True_" | "False_" => Ok(Value::host(Array::new(vec![], jaxlite::Data::Bool(vec![name == "True_"])), true)),
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

/// NumPy functions that call the method of the same job on an array that is not NumPy's, by
/// the function's name and the method's.
const ARRAY_METHOD_DISPATCH: &[(&str, &str)] = &[
    ("sum", "sum"),
    ("prod", "prod"),
    ("mean", "mean"),
    ("std", "std"),
    ("var", "var"),
    ("max", "max"),
    ("amax", "max"),
    ("min", "min"),
    ("amin", "min"),
    ("any", "any"),
    ("all", "all"),
    ("argmax", "argmax"),
    ("argmin", "argmin"),
    ("argsort", "argsort"),
    ("cumsum", "cumsum"),
    ("cumprod", "cumprod"),
    ("round", "round"),
    ("around", "round"),
    ("clip", "clip"),
    ("reshape", "reshape"),
    ("transpose", "transpose"),
    ("swapaxes", "swapaxes"),
    ("squeeze", "squeeze"),
    ("take", "take"),
    ("repeat", "repeat"),
    ("nonzero", "nonzero"),
    ("searchsorted", "searchsorted"),
];

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

/// NumPy's `ValueError` for `a @ b` whose inner sizes differ (JAX's is a TypeError).
fn matmul_error(e: RtError) -> RtError {
    let sizes = e.message.split_once("contracting dimensions to have the same shape, got (").and_then(|(_, rest)| {
        let (a, rest) = rest.split_once(",) and (")?;
        let (b, _) = rest.split_once(",)")?;
        Some((a.to_string(), b.to_string()))
    });
    match sizes {
        Some((a, b)) => RtError::of(
            super::objects::Builtin::ValueError,
            format!("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b} is different from {a})"),
        ),
        None => e,
    }
}

/// NumPy's wording of the errors its functions raise where JAX words them otherwise.
fn numpy_error(e: RtError) -> RtError {
    let message = e.message.clone();
    if let Some((_, rest)) = message.split_once("cannot reshape array of shape ") {
        // JAX's "(6,) (size 6) into shape (4, 2)" as NumPy's "size 6 into shape (4,2)".
        if let Some((_, rest)) = rest.split_once("(size ") {
            let (size, target) = rest.split_once(") into shape ").unwrap_or((rest, ""));
            return RtError::of(
                super::objects::Builtin::ValueError,
                format!("cannot reshape array of size {size} into shape {}", target.replace(", ", ",")),
            );
        }
    }
    let shapes = message.trim_end_matches('.').split_once("got incompatible shapes for broadcasting: ").map(|(_, s)| s);
    let shapes = shapes.or_else(|| {
        message.strip_prefix("Incompatible shapes for broadcasting: shapes=[").and_then(|s| s.strip_suffix(']'))
    });
    if let Some(shapes) = shapes {
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
            // `np.array(jax.devices())`: an array of devices, as meshes are built from (the
            // playground's NumPy holds numbers only, so it is `jax.sharding`'s device array).
            if matches!(name, "array" | "asarray") && first_leaf_is_device(args.first()) {
                let module = self.import("jax.sharding").await?;
                let make = self.get_attr(&module, "_device_array").await?;
                return self.call(make, args[..1].to_vec(), vec![]).await;
            }
            // `np.asarray(a)` of a NumPy array (in its own dtype) is that array.
            if let (["asarray"], [Value::Host(h)]) = ([name], args.as_slice()) {
                let same_dtype = match kwargs.as_slice() {
                    [] => true,
                    [(k, v)] if k == "dtype" => super::jax::dtype_arg(v).is_ok_and(|d| d == h.dtype()),
                    _ => false,
                };
                if same_dtype && !h.scalar {
                    return Ok(args[0].clone());
                }
            }
            // NumPy hands these to the array's own method when it is not NumPy's (its
            // `_wrapreduction` and `_wrapfunc`): on a JAX array, `np.sum(x)` is `x.sum()`, a
            // JAX array computed on the device (and, inside jit, traced rather than refused).
            if let (Some(Value::Array(x)), Some(&(_, method))) =
                (args.first(), ARRAY_METHOD_DISPATCH.iter().find(|(f, _)| *f == name))
            {
                let x = x.clone();
                return self.call_array_method(&x, method, args[1..].to_vec(), kwargs).await;
            }
            // What NumPy reads off any array-like's attributes: a JAX array's own, so that
            // `np.shape(x)` of a tracer inside `jit` works, as NumPy reads `x.shape`.
            if matches!(name, "shape" | "size" | "ndim") && matches!(args.first(), Some(Value::Array(_))) {
                return self.call_jnp(name, args, kwargs).await;
            }
            // Device arrays given to NumPy are copied to the host.
            self.download(&args.iter().chain(kwargs.iter().map(|(_, v)| v)).collect::<Vec<_>>());
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
        self.download(&[a, b]);
        let (a, b) = (unhost(a), unhost(b));
        let result = self.on_host(move |s| s.binary(op, a, b)).await.map_err(|e| match op {
            BinOp::MatMul => matmul_error(e),
            _ => e,
        })?;
        Ok(rehost(result, true))
    }

    pub(super) async fn host_unary(&mut self, op: UnaryOp, v: &Value) -> R<Value> {
        let v = unhost(v);
        let result = self.on_host(move |s| s.unary(op, v)).await?;
        Ok(rehost(result, true))
    }

    pub(super) async fn host_compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> R<Value> {
        self.download(&[a, b]);
        let (a, b) = (unhost(a), unhost(b));
        let result = self.on_host(move |s| Box::pin(async move { s.compare(op, &a, &b).await })).await?;
        Ok(rehost(result, true))
    }

    /// `x.shape`, `x.T`, `x.sum` (a method bound to the host array), ...
    pub(super) async fn host_attr(&mut self, h: &Rc<HostArray>, name: &str) -> R<Value> {
        // NumPy's own in-place methods, which JAX arrays lack.
        if name == "fill" {
            return Ok(Value::native(Native::Method(Value::Host(h.clone()), "fill")));
        }
        if name == "T" && !h.scalar {
            let positions = h.positions();
            let picked = self
                .on_host(move |s| {
                    Box::pin(async move { s.get_attr(&Value::Array(Tensor::Concrete(positions)), "T").await })
                })
                .await?;
            if let Value::Array(Tensor::Concrete(p)) = picked {
                return Ok(view_or_copy(h, Rc::unwrap_or_clone(p)));
            }
        }
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
        // These rearrange without copying in NumPy (where strides can describe the result).
        if !h.scalar && matches!(name.as_str(), "reshape" | "ravel" | "transpose" | "squeeze" | "swapaxes") {
            let positions = h.positions();
            let picked = self
                .on_host(move |s| {
                    Box::pin(
                        async move { s.call_array_method(&Tensor::Concrete(positions), &name, args, kwargs).await },
                    )
                })
                .await?;
            return match picked {
                Value::Array(Tensor::Concrete(p)) => Ok(view_or_copy(h, Rc::unwrap_or_clone(p))),
                other => Ok(other),
            };
        }
        let scalars = !matches!(name.as_str(), "copy" | "astype" | "flatten");
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
        if let Some((index, emptied)) = zero_d_masks(index, h.get().shape().len()) {
            let picked = Box::pin(self.host_get_item(h, &index)).await?;
            return match (emptied, &picked) {
                (Some(axis), Value::Host(p)) => Box::pin(self.host_get_item(p, &emptying_index(axis))).await,
                _ => Ok(picked),
            };
        }
        let array = h.get();
        let index = masks_as_positions(&unhost(index));
        check_bounds(array.shape(), &index)?;
        // Slices, integers, new axes and an ellipsis select a window: a view, as NumPy's
        // basic indexing gives (a single element is a scalar, a copy).
        if !h.scalar && is_basic_index(&index) {
            let positions = h.positions();
            let index = index.clone();
            let picked = self
                .on_host(move |s| Box::pin(async move { s.index_array(&Tensor::Concrete(positions), &index).await }))
                .await?;
            if let Value::Array(Tensor::Concrete(p)) = picked {
                if !p.shape().is_empty() {
                    return Ok(view_or_copy(h, Rc::unwrap_or_clone(p)));
                }
            }
        }
        if let Some(rows) = gather_rows(&array, &index) {
            // One position of a vector is an element: a scalar.
            return Ok(Value::host(rows, true));
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
        let check = match name {
            "assert_allclose" => Check::Close { rtol: number("rtol", 1e-7)?, atol: number("atol", 0.0)? },
            "assert_array_almost_equal" => Check::Decimals(number("decimal", 6.0)? as i32),
            _ => Check::Equal,
        };
        // `assert_equal` of two plain Python values compares them as Python does.
        if name == "assert_equal" && ![&actual, &desired].iter().any(|v| matches!(v, Value::Host(_) | Value::Array(_)))
        {
            if super::value::py_eq(&actual, &desired) {
                return Ok(Value::None);
            }
            let report = format!(
                "\nItems are not equal:\n ACTUAL: {}\n DESIRED: {}",
                super::value::repr(&actual),
                super::value::repr(&desired)
            );
            return Err(RtError::of(super::objects::Builtin::AssertionError, report));
        }
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
        match assertion_report(check, a, d) {
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

/// NumPy's 0-d boolean masks in an index (`True`, `np.array(False)`): `x[True]` is `x[None]`
/// and `x[False]` is `x[None][:0]`, an axis of length 1 or 0 where the mask stands (several
/// 0-d masks make one axis, kept when all hold). `None` when the index has none; else the index
/// with the first mask as `None` and the others dropped, and, when the axis is to be emptied,
/// its place in the result of that index on an array of rank `rank`.
pub fn zero_d_masks(index: &Value, rank: usize) -> Option<(Value, Option<usize>)> {
    let mask = |v: &Value| match v {
        Value::Bool(b) => Some(*b),
        Value::Host(h) if h.dtype() == DType::Bool && h.get().shape().is_empty() => {
            Some(h.get().to_f64_vec()[0] != 0.0)
        }
        Value::Array(Tensor::Concrete(a)) if a.dtype() == DType::Bool && a.shape().is_empty() => {
            Some(a.to_f64_vec()[0] != 0.0)
        }
        _ => None,
    };
    let items: Vec<Value> = match index {
        Value::Tuple(items) => items.to_vec(),
        single => vec![single.clone()],
    };
    let first = items.iter().position(|v| mask(v).is_some())?;
    let keep = items.iter().filter_map(mask).all(|b| b);
    // Axes of the result before the mask's: one per slice or new axis, none per integer, and
    // an ellipsis stands for the axes no other item indexes.
    let indexes_axis = |v: &Value| !matches!(v, Value::None | Value::Ellipsis) && mask(v).is_none();
    let indexed = items.iter().filter(|v| indexes_axis(v)).count();
    let place = items[..first]
        .iter()
        .map(|v| match v {
            Value::Int(_) => 0,
            Value::Array(t) if t.aval().rank() == 0 => 0,
            Value::Host(h) if h.get().shape().is_empty() => 0,
            Value::Ellipsis => rank.saturating_sub(indexed),
            _ => 1,
        })
        .sum();
    let rewritten: Vec<Value> = items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| match mask(v) {
            Some(_) if i == first => Some(Value::None),
            Some(_) => None,
            None => Some(v.clone()),
        })
        .collect();
    Some((Value::tuple(rewritten), (!keep).then_some(place)))
}

/// The index that empties axis `axis` and keeps the others whole.
pub fn emptying_index(axis: usize) -> Value {
    let mut items = vec![Value::Slice(None, None, None); axis];
    items.push(Value::Slice(Some(0), Some(0), None));
    Value::tuple(items)
}

/// Whether an index is NumPy's basic kind (integers, slices, `None`, `...`), which gives a view.
fn is_basic_index(index: &Value) -> bool {
    let basic = |v: &Value| match v {
        Value::Int(_) | Value::Slice(..) | Value::None | Value::Ellipsis => true,
        Value::Array(Tensor::Concrete(a)) => a.shape().is_empty() && a.dtype().is_integer(),
        _ => false,
    };
    match index {
        Value::Tuple(items) => items.iter().all(basic),
        single => basic(single),
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
        // A list is an array of positions (or a mask) to NumPy, where JAX refuses it.
        Value::List(_) => match super::jax::literal_array(&unhost(v), true) {
            Ok(a) => host_index_item(&Value::array(a)),
            Err(_) => vec![v.clone()],
        },
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

/// What a `numpy.testing` assertion checks of each pair of elements.
#[derive(Clone, Copy)]
enum Check {
    /// `assert_array_equal`, `assert_equal`: `==`.
    Equal,
    /// `assert_allclose`: `|a − d| <= atol + rtol·|d|`.
    Close { rtol: f64, atol: f64 },
    /// `assert_array_almost_equal`: `|a − d| < 1.5·10^−decimal`.
    Decimals(i32),
}

/// NumPy's report (`assert_array_compare`) when the arrays differ, else `None`: the shapes must
/// match (or one be a scalar); NaNs and infinities must sit at the same places (and infinities
/// agree in sign), and are not compared further; the rest pass the check or are listed: how
/// many, the first five places with both values, the largest differences among them.
fn assertion_report(check: Check, actual: &Array, desired: &Array) -> Option<String> {
    let (header, precision) = match check {
        Check::Close { rtol, atol } => {
            (format!("Not equal to tolerance rtol={}, atol={}", py_g(rtol, ""), py_g(atol, "")), 6)
        }
        Check::Decimals(d) => (format!("Arrays are not almost equal to {d} decimals"), d.max(0) as usize),
        Check::Equal => ("Arrays are not equal".to_string(), 6),
    };
    let report_of = |message: &str, actual: &Array, desired: &Array| {
        let shown = |a: &Array| {
            let r = with_precision(precision, || array_line(a));
            // NumPy shows at most three lines of each array.
            match r.lines().count() > 4 {
                true => format!("{}...", r.lines().take(3).collect::<Vec<_>>().join("\n")),
                false => r,
            }
        };
        Some(format!("\n{header}\n{message}\n ACTUAL: {}\n DESIRED: {}", shown(actual), shown(desired)))
    };
    let report = |message: &str| report_of(message, actual, desired);
    let (xs, ys) = (actual.shape(), desired.shape());
    if !(xs.is_empty() || ys.is_empty() || xs == ys) {
        let (xs, ys) = (jaxlite::numpy::shape_str(xs), jaxlite::numpy::shape_str(ys));
        return report(&format!("\n(shapes {xs}, {ys} mismatch)"));
    }
    let shape = if xs.is_empty() { ys.to_vec() } else { xs.to_vec() };
    let n: usize = shape.iter().product();
    let (x, y) = (broadcast_values(actual, &shape), broadcast_values(desired, &shape));
    let numeric = actual.dtype() != DType::Bool && desired.dtype() != DType::Bool;
    let mut skipped = vec![false; n];
    if numeric {
        for (what, test) in [("nan", f64::is_nan as fn(f64) -> bool), ("inf", f64::is_infinite)] {
            if (0..n).any(|i| test(x[i]) != test(y[i])) {
                return report(&format!("\n{what} location mismatch:"));
            }
            if what == "inf" && (0..n).any(|i| test(x[i]) && x[i] != y[i]) {
                // NumPy shows only the infinities then.
                let only = |values: &[f64], dtype: DType| {
                    let picked: Vec<f64> = (0..n).filter(|&i| test(x[i])).map(|i| values[i]).collect();
                    Array::new(vec![picked.len()], jaxlite::Data::F64(picked)).astype(dtype)
                };
                return report_of("\ninf values mismatch:", &only(&x, actual.dtype()), &only(&y, desired.dtype()));
            }
            (0..n).filter(|&i| test(x[i])).for_each(|i| skipped[i] = true);
        }
    }
    let passes = |a: f64, d: f64| match check {
        Check::Equal => a == d,
        Check::Close { rtol, atol } => (a - d).abs() <= atol + rtol * d.abs(),
        Check::Decimals(k) => (a - d).abs() < 1.5 * 10f64.powi(-k),
    };
    let failing: Vec<usize> = (0..n).filter(|&i| !skipped[i] && !passes(x[i], y[i])).collect();
    if failing.is_empty() {
        return None;
    }
    let percent = py_g(100.0 * failing.len() as f64 / n as f64, ".3");
    let mut remarks = vec![format!("Mismatched elements: {} / {n} ({percent}%)", failing.len())];
    if !shape.is_empty() {
        let strides = jaxlite::eval::strides(&shape);
        let element = |a: &Array, values: &[f64], i: usize| {
            let at = if a.shape().is_empty() { 0 } else { i };
            let one = match a.dtype() {
                DType::I64 => Array::new(vec![], jaxlite::Data::I64(vec![a.to_i64_vec()[at]])),
                dtype => Array::new(vec![], jaxlite::Data::F64(vec![values[i]])).astype(dtype),
            };
            jaxlite::format::format_array(&one)
        };
        let lines: Vec<String> = failing
            .iter()
            .take(5)
            .map(|&i| {
                let place: Vec<String> = (0..shape.len()).map(|d| ((i / strides[d]) % shape[d]).to_string()).collect();
                let (a, d) = (element(actual, &x, i), element(desired, &y, i));
                format!(" [{}]: {a} (ACTUAL), {d} (DESIRED)", place.join(", "))
            })
            .collect();
        let title = match failing.len() {
            1 => "Mismatch at index:",
            2..=5 => "Mismatch at indices:",
            _ => "First 5 mismatches are at indices:",
        };
        remarks.push(format!("{title}\n{}", lines.join("\n")));
    }
    if numeric {
        // In the dtype NumPy's `abs(x - y)` has; the relative one divides by |y| in float.
        let dtype = jaxlite::dtype::promote_numpy(actual.dtype(), false, desired.dtype(), false).0;
        let max_abs = failing.iter().map(|&i| (x[i] - y[i]).abs()).fold(0.0, f64::max);
        let relative: Vec<f64> =
            failing.iter().filter(|&&i| y[i] != 0.0).map(|&i| (x[i] - y[i]).abs() / y[i].abs()).collect();
        let max_rel = relative.into_iter().reduce(f64::max).unwrap_or(f64::INFINITY);
        let float = if dtype.is_float() { dtype } else { DType::F64 };
        remarks.push(format!("Max absolute difference among violations: {}", zero_d_str(max_abs, dtype)));
        remarks.push(format!("Max relative difference among violations: {}", zero_d_str(max_rel, float)));
    }
    report(&format!("\n{}", remarks.join("\n")))
}

/// A number as NumPy's `array2string` prints a 0-d array of `dtype` (`1.e-05`, not `1e-05`).
fn zero_d_str(x: f64, dtype: DType) -> String {
    let one = Array::new(vec![1], jaxlite::Data::F64(vec![x])).astype(dtype);
    let text = jaxlite::format::format_array(&one);
    text.trim_start_matches('[').trim_end_matches(']').trim().to_string()
}

/// Python's `format(x, spec + "g")`.
fn py_g(x: f64, spec: &str) -> String {
    super::format::format_value(&Value::Float(x), &format!("{spec}g")).unwrap_or_else(|_| x.to_string())
}

/// Runs `f` with NumPy's print precision set to `precision`, as the assertion reports print.
fn with_precision<T>(precision: usize, f: impl FnOnce() -> T) -> T {
    use jaxlite::format::{print_options, set_print_options, PrintOptions};
    let old = set_print_options(PrintOptions { precision, ..print_options() });
    let out = f();
    set_print_options(old);
    out
}

/// An array as the assertion report shows it (its `repr`, continuation lines indented).
fn array_line(a: &Array) -> String {
    repr(&HostArray { storage: Storage::Own(RefCell::new(Rc::new(a.clone()))), scalar: false })
}

/// The elements of `a` broadcast to `shape`, as f64.
pub(super) fn broadcast_values(a: &Array, shape: &[usize]) -> Vec<f64> {
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

/// Whether a (nested) list or tuple starts with a `TpuDevice`.
fn first_leaf_is_device(v: Option<&Value>) -> bool {
    match v {
        Some(Value::List(l)) => first_leaf_is_device(l.borrow().first()),
        Some(Value::Tuple(t)) => first_leaf_is_device(t.first()),
        Some(Value::Instance(i)) => i.class.name == "TpuDevice",
        _ => false,
    }
}
