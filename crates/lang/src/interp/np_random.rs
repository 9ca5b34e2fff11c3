//! `numpy.random`'s legacy API (`np.random.seed`, `np.random.rand`, `RandomState(seed)`), bit
//! for bit NumPy's numbers: the Mersenne Twister seeded by `init_genrand`, doubles from 53
//! bits, normals by the polar method with the second value kept for the next call, bounded
//! integers by masked rejection, and shuffles by Fisher–Yates from the end, as NumPy's
//! `_legacy.c` and `mtrand.pyx` draw them.

use super::mersenne::Mt19937;
use super::value::{as_f64, as_int, Native, Value};
use super::{err, value_err, Interp, RtError, R};
use jaxlite::{Array, Data};
use std::cell::RefCell;

/// The module-level functions (each draws from the hidden global `RandomState`).
pub const FUNCTIONS: &[&str] = &[
    "seed",
    "rand",
    "randn",
    "randint",
    "random",
    "random_sample",
    "sample",
    "ranf",
    "standard_normal",
    "normal",
    "uniform",
    "choice",
    "permutation",
    "shuffle",
    "RandomState",
    "default_rng",
    "get_state",
    "set_state",
];

/// A `RandomState`'s generator and its kept Gaussian.
#[derive(Clone)]
pub struct LegacyState {
    mt: Mt19937,
    gauss: Option<f64>,
}

impl LegacyState {
    pub fn new(seed: u32) -> LegacyState {
        LegacyState { mt: Mt19937::new(seed), gauss: None }
    }

    /// `legacy_double`: 53 bits, as CPython's `random()`.
    fn double(&mut self) -> f64 {
        self.mt.next_f64()
    }

    /// `legacy_gauss`: Marsaglia's polar method; of each accepted pair, one value is
    /// returned and the other kept for the next call.
    fn gauss(&mut self) -> f64 {
        if let Some(g) = self.gauss.take() {
            return g;
        }
        loop {
            let x1 = 2.0 * self.double() - 1.0;
            let x2 = 2.0 * self.double() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                let f = (-2.0 * r2.ln() / r2).sqrt();
                self.gauss = Some(f * x1);
                return f * x2;
            }
        }
    }

    fn next_u64(&mut self) -> u64 {
        let hi = self.mt.next_u32() as u64;
        (hi << 32) | self.mt.next_u32() as u64
    }

    /// A uniform integer in `0..=max` by masked rejection (`random_interval` and
    /// `buffered_bounded_masked_uint32`: 32-bit draws while the range fits in 32 bits).
    fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mut mask = max;
        for shift in [1, 2, 4, 8, 16, 32] {
            mask |= mask >> shift;
        }
        loop {
            let value =
                if max <= u32::MAX as u64 { (self.mt.next_u32() as u64) & mask } else { self.next_u64() & mask };
            if value <= max {
                return value;
            }
        }
    }
}

/// What both APIs' float distributions draw from: the legacy state or a `Generator`.
pub(super) trait Draws {
    /// A double uniform in [0, 1).
    fn uniform01(&mut self) -> f64;
    /// A standard normal (the legacy polar method, or the Generator's ziggurat).
    fn normal01(&mut self) -> f64;
}

impl Draws for LegacyState {
    fn uniform01(&mut self) -> f64 {
        self.double()
    }

    fn normal01(&mut self) -> f64 {
        self.gauss()
    }
}

/// `random(size)`, `standard_normal(size)`, `normal(loc, scale, size)` and `uniform(low,
/// high, size)`, drawn alike by both APIs (`loc + scale·z`, `low + (high − low)·u`).
pub(super) fn float_draws(
    cell: &RefCell<impl Draws>,
    name: &str,
    arg: &dyn Fn(usize, &str) -> Option<Value>,
) -> R<Value> {
    let mut g = cell.borrow_mut();
    match name {
        "random" => floats(size_arg(arg(0, "size").as_ref())?, || g.uniform01()),
        "standard_normal" => floats(size_arg(arg(0, "size").as_ref())?, || g.normal01()),
        "normal" => {
            let size = size_arg(arg(2, "size").as_ref())?;
            let (shape, loc, scale) = two_params(arg(0, "loc"), arg(1, "scale"), (0.0, 1.0), size, "normal")?;
            if scale.iter().any(|&s| s < 0.0) {
                return value_err("scale < 0");
            }
            floats_at(shape, |i| loc[i] + scale[i] * g.normal01())
        }
        _ => {
            let size = size_arg(arg(2, "size").as_ref())?;
            let (shape, low, high) = two_params(arg(0, "low"), arg(1, "high"), (0.0, 1.0), size, "uniform")?;
            floats_at(shape, |i| low[i] + (high[i] - low[i]) * g.uniform01())
        }
    }
}

/// A `size=` argument: None (one value) or a shape.
pub(super) fn size_arg(v: Option<&Value>) -> R<Option<Vec<usize>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(v) => super::jax::shape_arg(v).map(Some),
    }
}

/// An output's shape (`None` for one Python float) and two parameters' values at each of its
/// elements.
pub(super) type Params = (Option<Vec<usize>>, Vec<f64>, Vec<f64>);

/// A distribution's two parameters (`loc` and `scale`, `low` and `high`), numbers or arrays,
/// broadcast together and against `size` as NumPy's `cont()` does: the output's shape (`None`
/// for one Python float) and each parameter's value at every element of it.
pub(super) fn two_params(
    first: Option<Value>,
    second: Option<Value>,
    defaults: (f64, f64),
    size: Option<Vec<usize>>,
    what: &str,
) -> R<Params> {
    let array = |v: Option<Value>, default: f64| -> R<Array> {
        Ok(match v.map(|v| super::host::unhost(&v)) {
            None | Some(Value::None) => Array::new(vec![], Data::F64(vec![default])),
            Some(Value::Array(jaxlite::Tensor::Concrete(a))) => a.astype(jaxlite::DType::F64),
            // A list of numbers is an array to NumPy (`normal([1, 1], [2, 2], size=(500, 2))`).
            Some(v @ (Value::List(_) | Value::Tuple(_))) => {
                super::jax::literal_array(&v, true)?.astype(jaxlite::DType::F64)
            }
            Some(v) => match as_f64(&v) {
                Some(x) => Array::new(vec![], Data::F64(vec![x])),
                None => {
                    return err(format!(
                        "{what}: the playground's numpy.random takes numbers or arrays here, not {}",
                        v.type_name()
                    ))
                }
            },
        })
    };
    let (a, b) = (array(first, defaults.0)?, array(second, defaults.1)?);
    let mismatch = || {
        super::RtError::of(
            super::objects::Builtin::ValueError,
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 and arg 1.",
        )
    };
    let params = jaxlite::numpy::broadcast_shapes(what, a.shape(), b.shape()).map_err(|_| mismatch())?;
    let shape = match size {
        Some(size) => match jaxlite::numpy::broadcast_shapes(what, &params, &size) {
            Ok(s) if s == size => Some(size),
            _ => return Err(mismatch()),
        },
        None if params.is_empty() => None,
        None => Some(params),
    };
    let out = shape.clone().unwrap_or_default();
    Ok((shape, super::host::broadcast_values(&a, &out), super::host::broadcast_values(&b, &out)))
}

/// Values drawn one by one into a float64 array of `shape`, or one Python float.
pub(super) fn floats(shape: Option<Vec<usize>>, mut draw: impl FnMut() -> f64) -> R<Value> {
    floats_at(shape, |_| draw())
}

/// `floats` with each element's position in the output (for parameters given per element).
pub(super) fn floats_at(shape: Option<Vec<usize>>, mut draw: impl FnMut(usize) -> f64) -> R<Value> {
    match shape {
        None => Ok(Value::Float(draw(0))),
        Some(shape) => {
            let n: usize = shape.iter().product();
            super::jax::check_size(&shape)?;
            Ok(Value::host(Array::new(shape, Data::F64((0..n).map(draw).collect())), false))
        }
    }
}

impl Interp<'_, '_> {
    /// The global `RandomState` the module-level functions draw from, seeded from the clock
    /// until `np.random.seed` is called (as NumPy seeds it from the OS).
    fn global_random(&mut self) -> Value {
        if let Some(state) = &self.np_random {
            return state.clone();
        }
        let seed = self.started.elapsed().as_nanos() as u32;
        let state = Value::native(Native::NpRandomState(Box::new(RefCell::new(LegacyState::new(seed)))));
        self.np_random = Some(state.clone());
        state
    }

    /// `np.random.name(...)`: the global state's method.
    pub(super) async fn call_np_random(
        &mut self,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        if name == "default_rng" {
            return self.default_rng(args.first().or(kwargs.first().map(|(_, v)| v)));
        }
        if name == "RandomState" {
            let seed = self.legacy_seed(args.first().or(kwargs.first().map(|(_, v)| v)))?;
            return Ok(Value::native(Native::NpRandomState(Box::new(RefCell::new(LegacyState::new(seed))))));
        }
        let state = self.global_random();
        self.random_state_method(&state, name, args, kwargs).await
    }

    /// `np.random.seed(s)`'s seed: an int in 0..2**32 (None: from the clock).
    fn legacy_seed(&self, v: Option<&Value>) -> R<u32> {
        match v {
            None | Some(Value::None) => Ok(self.started.elapsed().as_nanos() as u32),
            Some(v) => match super::value::as_int(&super::host::unhost_scalar(v)) {
                Some(s) if (0..=u32::MAX as i64).contains(&s) => Ok(s as u32),
                Some(_) => value_err("Seed must be between 0 and 2**32 - 1"),
                None => err(format!("Cannot cast {} to an integer seed", v.type_name())),
            },
        }
    }

    /// A method of a `RandomState` (`state` holds a `Native::NpRandomState`).
    pub(super) async fn random_state_method(
        &mut self,
        state: &Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let Value::Native(native) = state else { return err("expected a RandomState") };
        let Native::NpRandomState(cell) = &**native else { return err("expected a RandomState") };
        // Positional then keyword arguments, by parameter name.
        let arg = |i: usize, key: &str| -> Option<Value> {
            args.get(i).cloned().or_else(|| kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
        };
        match name {
            "seed" => {
                let seed = self.legacy_seed(arg(0, "seed").as_ref())?;
                *cell.borrow_mut() = LegacyState::new(seed);
                Ok(Value::None)
            }
            // ('MT19937', the 624 words, the position, whether a Gaussian is kept, and it).
            "get_state" => {
                let s = cell.borrow();
                let (words, pos) = s.mt.words();
                let key = Array::new(vec![words.len()], Data::U32(words.to_vec()));
                Ok(Value::tuple(vec![
                    Value::str("MT19937"),
                    Value::host(key, false),
                    Value::Int(pos as i64),
                    Value::Int(s.gauss.is_some() as i64),
                    Value::Float(s.gauss.unwrap_or(0.0)),
                ]))
            }
            "set_state" => {
                let state = arg(0, "state").unwrap_or(Value::None);
                let bad = || value_err("set_state can only be used with legacy MT19937 state instances.");
                let Value::Tuple(parts) = &state else {
                    return err("state must be a dict or a tuple.");
                };
                let (Some(Value::Str(kind)), Some(Value::Host(key)), Some(pos)) =
                    (parts.first(), parts.get(1), parts.get(2))
                else {
                    return bad();
                };
                if &**kind != "MT19937" {
                    return bad();
                }
                let words: Vec<u32> = key.get().to_i64_vec().iter().map(|&w| w as u32).collect();
                let pos = as_int(pos).unwrap_or(-1);
                let Some(mt) = Mt19937::from_words(&words, pos.max(0) as usize).filter(|_| pos >= 0) else {
                    return value_err("state must be 624 elements");
                };
                let gauss = match (parts.get(3).and_then(as_int), parts.get(4).and_then(as_f64)) {
                    (Some(1), Some(g)) => Some(g),
                    _ => None,
                };
                *cell.borrow_mut() = LegacyState { mt, gauss };
                Ok(Value::None)
            }
            "random" | "random_sample" | "sample" | "ranf" | "standard_normal" | "normal" | "uniform" => {
                let name =
                    if name == "standard_normal" || name == "normal" || name == "uniform" { name } else { "random" };
                float_draws(cell, name, &arg)
            }
            "rand" | "randn" => {
                let dims: Vec<usize> = args.iter().map(|a| super::jax::shape_arg(a).map(|d| d[0])).collect::<R<_>>()?;
                let shape = (!args.is_empty()).then_some(dims);
                let mut s = cell.borrow_mut();
                if name == "rand" {
                    floats(shape, || s.double())
                } else {
                    floats(shape, || s.gauss())
                }
            }
            "randint" => {
                let int = |v: Option<Value>| v.and_then(|v| as_int(&super::host::unhost_scalar(&v)));
                let (low, high) = match (int(arg(0, "low")), arg(1, "high")) {
                    (Some(high), None | Some(Value::None)) => (0, high),
                    (Some(low), Some(h)) => match int(Some(h)) {
                        Some(high) => (low, high),
                        None => return err("randint: high must be an integer"),
                    },
                    (None, _) => return err("randint: low must be an integer"),
                };
                if low >= high {
                    return value_err("low >= high");
                }
                let shape = size_arg(arg(2, "size").as_ref())?;
                let range = (high as i128 - low as i128 - 1) as u64;
                let mut s = cell.borrow_mut();
                let mut draw = || low.wrapping_add(s.interval(range) as i64);
                Ok(match shape {
                    None => Value::Int(draw()),
                    Some(shape) => {
                        super::jax::check_size(&shape)?;
                        let n: usize = shape.iter().product();
                        Value::host(Array::new(shape, Data::I64((0..n).map(|_| draw()).collect())), false)
                    }
                })
            }
            "permutation" => {
                let x = arg(0, "x").unwrap_or(Value::None);
                let array = match as_int(&x) {
                    Some(n) if n >= 0 => {
                        super::jax::check_size(&[n as usize])?;
                        Value::host(Array::new(vec![n as usize], Data::I64((0..n).collect())), false)
                    }
                    _ => {
                        let copy = self.call_np("array", vec![x], vec![]).await?;
                        if let Value::Host(h) = &copy {
                            if h.get().shape().is_empty() {
                                return Err(RtError::of(
                                    super::objects::Builtin::IndexError,
                                    "x must be an integer or at least 1-dimensional",
                                ));
                            }
                        }
                        copy
                    }
                };
                self.shuffle(cell, &array)?;
                Ok(array)
            }
            "shuffle" => {
                let x = arg(0, "x").unwrap_or(Value::None);
                self.shuffle(cell, &x)?;
                Ok(Value::None)
            }
            "choice" => self.legacy_choice(cell, arg(0, "a"), arg(1, "size"), arg(2, "replace"), arg(3, "p")).await,
            _ => Err(RtError::of(
                super::objects::Builtin::AttributeError,
                format!("'numpy.random.mtrand.RandomState' object has no attribute '{name}'"),
            )),
        }
    }

    /// NumPy's legacy shuffle: for i from n−1 down to 1, swap item i with a uniform j ≤ i.
    /// A list's items or an array's rows (along the first axis), in place.
    fn shuffle(&mut self, cell: &RefCell<LegacyState>, x: &Value) -> R<()> {
        let mut s = cell.borrow_mut();
        match x {
            Value::List(l) => {
                let mut items = l.borrow_mut();
                for i in (1..items.len()).rev() {
                    let j = s.interval(i as u64) as usize;
                    items.swap(i, j);
                }
                Ok(())
            }
            Value::Host(h) => {
                let a = h.get();
                let Some(&n) = a.shape().first() else { return err("shuffle: an array of at least one dimension") };
                let mut order: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    let j = s.interval(i as u64) as usize;
                    order.swap(i, j);
                }
                let shuffled = super::host::take_rows(&a, &order, &[n]);
                super::host::replace(h, shuffled);
                Ok(())
            }
            other => err(format!("shuffle: the playground shuffles lists and NumPy arrays, not {}", other.type_name())),
        }
    }

    /// `choice(a, size=None, replace=True, p=None)` as the legacy generator draws: uniform
    /// indices by `randint`, weighted ones by searching the normalised cumulative weights for
    /// uniform doubles, without replacement the head of a permutation.
    async fn legacy_choice(
        &mut self,
        cell: &RefCell<LegacyState>,
        a: Option<Value>,
        size: Option<Value>,
        replace: Option<Value>,
        p: Option<Value>,
    ) -> R<Value> {
        let a = a.unwrap_or(Value::None);
        let (population, pool) = match as_int(&a) {
            Some(n) if n > 0 => (n as usize, None),
            Some(_) => return value_err("a must be a positive integer unless no samples are taken"),
            None => {
                let pool = self.call_np("array", vec![a], vec![]).await?;
                let n = match &pool {
                    Value::Host(h) => h.get().shape().first().copied().unwrap_or(0),
                    _ => 0,
                };
                if n == 0 {
                    return value_err("'a' cannot be empty unless no samples are taken");
                }
                (n, Some(pool))
            }
        };
        let shape = size_arg(size.as_ref())?;
        let count: usize = shape.as_ref().map_or(1, |s| s.iter().product());
        let replace = match replace {
            None => true,
            Some(v) => self.truth(&v).await?,
        };
        let weights: Option<Vec<f64>> = match p {
            None | Some(Value::None) => None,
            Some(p) => match self.call_np("asarray", vec![p], vec![]).await? {
                Value::Host(h) => Some(h.get().to_f64_vec()),
                _ => None,
            },
        };
        if let Some(w) = &weights {
            if w.len() != population {
                return value_err("'a' and 'p' must have same size");
            }
        }
        let indices: Vec<i64> = {
            let mut s = cell.borrow_mut();
            match (replace, &weights) {
                (true, None) => (0..count).map(|_| s.interval(population as u64 - 1) as i64).collect(),
                (true, Some(w)) => {
                    let mut cdf = Vec::with_capacity(w.len());
                    let mut total = 0.0;
                    for &x in w {
                        total += x;
                        cdf.push(total);
                    }
                    let last = *cdf.last().unwrap_or(&1.0);
                    let cdf: Vec<f64> = cdf.iter().map(|c| c / last).collect();
                    (0..count)
                        .map(|_| {
                            let u = s.double();
                            cdf.partition_point(|&c| c <= u) as i64
                        })
                        .collect()
                }
                (false, None) => {
                    if count > population {
                        return value_err("Cannot take a larger sample than population when 'replace=False'");
                    }
                    let mut order: Vec<i64> = (0..population as i64).collect();
                    for i in (1..population).rev() {
                        let j = s.interval(i as u64) as usize;
                        order.swap(i, j);
                    }
                    order.truncate(count);
                    order
                }
                (false, Some(_)) => {
                    return super::unsupported(
                        "np.random.choice with replace=False and weights p is not supported by the playground yet",
                    )
                }
            }
        };
        let index_shape = shape.clone().unwrap_or_default();
        let index = Value::host(Array::new(index_shape, Data::I64(indices)), shape.is_none());
        match pool {
            None => Ok(index),
            Some(pool) => self.get_item(&pool, &index).await,
        }
    }
}
