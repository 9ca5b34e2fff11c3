//! `np.random.default_rng(seed)`: NumPy's `Generator` as a script sees it (arguments, shapes,
//! scalars, NumPy's errors), drawing from the bit-exact core in `pcg64.rs`. An array of draws
//! is the scalar draw repeated in C order, as NumPy fills it.

use super::np_random::{size_arg, Draws};
use super::pcg64::{Generator, SeedSequence};
use super::value::{as_int, Native, Value};
use super::{err, value_err, Interp, RtError, R};
use jaxlite::{Array, Data};
use std::cell::RefCell;

/// The `Generator` methods the playground has.
pub const METHODS: &[&str] =
    &["random", "standard_normal", "normal", "uniform", "integers", "choice", "permutation", "shuffle"];

impl Draws for Generator {
    fn uniform01(&mut self) -> f64 {
        self.random()
    }

    fn normal01(&mut self) -> f64 {
        self.standard_normal()
    }
}

/// An int64 result: a NumPy scalar for one draw, else an array of `shape`.
fn int64s(shape: Option<Vec<usize>>, mut draw: impl FnMut() -> i64) -> R<Value> {
    Ok(match shape {
        None => Value::host(Array::new(vec![], Data::I64(vec![draw()])), true),
        Some(shape) => {
            super::jax::check_size(&shape)?;
            let n: usize = shape.iter().product();
            Value::host(Array::new(shape, Data::I64((0..n).map(|_| draw()).collect())), false)
        }
    })
}

impl Interp<'_, '_> {
    /// `np.random.default_rng(seed)`: a seed (a non-negative int, or a list of them) through
    /// `SeedSequence`, `None` from the clock, or a `Generator`, which is returned as it is.
    pub(super) fn default_rng(&self, seed: Option<&Value>) -> R<Value> {
        let words = |v: &Value| -> R<u128> {
            match as_int(&super::host::unhost_scalar(v)) {
                Some(n) if n >= 0 => Ok(n as u128),
                Some(_) => value_err("expected non-negative integer"),
                None => err(format!("SeedSequence expects int or sequence of ints for entropy not {}", v.type_name())),
            }
        };
        let sequence = match seed {
            None | Some(Value::None) => SeedSequence::from_int(self.started.elapsed().as_nanos()),
            Some(Value::Native(n)) if matches!(&**n, Native::NpGenerator(_)) => {
                return Ok(seed.cloned().unwrap_or(Value::None))
            }
            Some(Value::List(items)) => {
                SeedSequence::from_ints(&items.borrow().iter().map(words).collect::<R<Vec<_>>>()?)
            }
            Some(Value::Tuple(items)) => SeedSequence::from_ints(&items.iter().map(words).collect::<R<Vec<_>>>()?),
            Some(v) => SeedSequence::from_int(words(v)?),
        };
        Ok(Value::native(Native::NpGenerator(Box::new(RefCell::new(Generator::new(&sequence))))))
    }

    /// A method of a `Generator` (`generator` holds a `Native::NpGenerator`).
    pub(super) async fn generator_method(
        &mut self,
        generator: &Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> R<Value> {
        let Value::Native(native) = generator else { return err("expected a Generator") };
        let Native::NpGenerator(cell) = &**native else { return err("expected a Generator") };
        let arg = |i: usize, key: &str| -> Option<Value> {
            args.get(i).cloned().or_else(|| kwargs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
        };
        // Only the default dtypes: NumPy draws float32 and narrower integers differently.
        if let Some(dtype) = kwargs.iter().find(|(k, _)| k == "dtype").map(|(_, v)| v) {
            let wanted = super::jax::dtype_arg(dtype)?;
            if !matches!(wanted, jaxlite::DType::F64 | jaxlite::DType::I64) {
                return super::unsupported(format!(
                    "Generator.{name}(dtype={}) is not supported by the playground yet (float64 and int64 are)",
                    wanted.name()
                ));
            }
        }
        match name {
            "random" | "standard_normal" | "normal" | "uniform" => super::np_random::float_draws(cell, name, &arg),
            "integers" => {
                let int = |v: &Value, what: &str| {
                    as_int(&super::host::unhost_scalar(v)).ok_or_else(|| {
                        RtError::new(format!("integers: {what} must be an integer, not {}", v.type_name()))
                    })
                };
                let first = arg(0, "low").ok_or_else(|| RtError::new("integers() missing required argument 'low'"))?;
                let (low, high) = match arg(1, "high") {
                    None | Some(Value::None) => (0, int(&first, "high")?),
                    Some(h) => (int(&first, "low")?, int(&h, "high")?),
                };
                let endpoint = match arg(4, "endpoint") {
                    Some(v) => self.truth(&v).await?,
                    None => false,
                };
                let shape = size_arg(arg(2, "size").as_ref())?;
                let mut g = cell.borrow_mut();
                match endpoint {
                    false if low >= high => value_err("low >= high"),
                    true if low > high => value_err("low > high"),
                    false => int64s(shape, || g.integers(low, high)),
                    true => int64s(shape, || g.integers_closed(low, high)),
                }
            }
            "permutation" => {
                let x = arg(0, "x").unwrap_or(Value::None);
                if let Some(n) = as_int(&x).filter(|&n| n >= 0) {
                    super::jax::check_size(&[n as usize])?;
                    let order = cell.borrow_mut().permutation(n as usize);
                    return Ok(Value::host(
                        Array::new(vec![n as usize], Data::I64(order.into_iter().map(|i| i as i64).collect())),
                        false,
                    ));
                }
                let copy = self.call_np("array", vec![x], vec![]).await?;
                if matches!(&copy, Value::Host(h) if h.get().shape().is_empty()) {
                    return Err(RtError::of(
                        super::objects::Builtin::ValueError,
                        "axis 0 is out of bounds for array of dimension 0",
                    ));
                }
                shuffle(&mut cell.borrow_mut(), &copy)?;
                Ok(copy)
            }
            "shuffle" => {
                shuffle(&mut cell.borrow_mut(), &arg(0, "x").unwrap_or(Value::None))?;
                Ok(Value::None)
            }
            "choice" => {
                let a = arg(0, "a").unwrap_or(Value::None);
                let replace = match arg(2, "replace") {
                    Some(v) => self.truth(&v).await?,
                    None => true,
                };
                let reorder = match arg(5, "shuffle") {
                    Some(v) => self.truth(&v).await?,
                    None => true,
                };
                self.generator_choice(cell, a, arg(1, "size"), replace, arg(3, "p"), reorder).await
            }
            _ => Err(RtError::of(
                super::objects::Builtin::AttributeError,
                format!("'numpy.random._generator.Generator' object has no attribute '{name}'"),
            )),
        }
    }

    /// `Generator.choice(a, size=None, replace=True, p=None, shuffle=True)` with NumPy's checks
    /// of `p`; one draw from `range(a)` is a Python int, from an array its element.
    async fn generator_choice(
        &mut self,
        cell: &RefCell<Generator>,
        a: Value,
        size: Option<Value>,
        replace: bool,
        p: Option<Value>,
        reorder: bool,
    ) -> R<Value> {
        let (population, pool) = match as_int(&a) {
            Some(n) if n > 0 => (n as usize, None),
            Some(_) => return value_err("a must be a positive integer unless no samples are taken"),
            None => {
                let pool = self.call_np("array", vec![a], vec![]).await?;
                match &pool {
                    Value::Host(h) => match h.get().shape().first() {
                        Some(0) => return value_err("a cannot be empty unless no samples are taken"),
                        Some(&n) => (n, Some(pool)),
                        None => return value_err("a must be 1-dimensional or an integer"),
                    },
                    _ => return err("choice: a must be an integer or an array"),
                }
            }
        };
        let shape = size_arg(size.as_ref())?;
        let count: usize = shape.as_ref().map_or(1, |s| s.iter().product());
        let weights = match p {
            None | Some(Value::None) => None,
            Some(p) => match self.call_np("asarray", vec![p], vec![]).await? {
                Value::Host(h) => Some(h.get().to_f64_vec()),
                _ => None,
            },
        };
        if let Some(w) = &weights {
            if w.len() != population {
                return value_err("a and p must have same size");
            }
            if w.iter().any(|&x| x < 0.0) {
                return value_err("Probabilities are not non-negative");
            }
            // NumPy sums with Kahan's compensation and allows √ε.
            if (kahan_sum(w) - 1.0).abs() > f64::EPSILON.sqrt() {
                return value_err(
                    "Probabilities do not sum to 1. See Notes section of docstring for more information.",
                );
            }
        }
        if !replace && count > population {
            return value_err("Cannot take a larger sample than population when replace is False");
        }
        let indices: Vec<usize> = {
            let mut g = cell.borrow_mut();
            match (replace, &weights) {
                (true, None) => g.choice(population, count),
                (true, Some(w)) => g.choice_p(w, count),
                (false, None) => g.choice_without_replacement(population, count, reorder),
                (false, Some(w)) => match g.choice_p_without_replacement(w, count) {
                    Some(picked) => picked,
                    None => return value_err("Fewer non-zero entries in p than size"),
                },
            }
        };
        let indices: Vec<i64> = indices.into_iter().map(|i| i as i64).collect();
        match (pool, shape) {
            (None, None) => Ok(Value::Int(indices[0])),
            (None, Some(shape)) => Ok(Value::host(Array::new(shape, Data::I64(indices)), false)),
            (Some(pool), shape) => {
                let index =
                    Value::host(Array::new(shape.clone().unwrap_or_default(), Data::I64(indices)), shape.is_none());
                self.get_item(&pool, &index).await
            }
        }
    }
}

/// `Generator.shuffle`: a list's items or an array's rows, in place.
fn shuffle(g: &mut Generator, x: &Value) -> R<()> {
    match x {
        Value::List(l) => {
            g.shuffle(&mut l.borrow_mut());
            Ok(())
        }
        Value::Host(h) => {
            let a = h.get();
            let Some(&n) = a.shape().first() else { return err("shuffle: an array of at least one dimension") };
            let mut order: Vec<usize> = (0..n).collect();
            g.shuffle(&mut order);
            super::host::replace(h, super::host::take_rows(&a, &order, &[n]));
            Ok(())
        }
        other => err(format!("shuffle: the playground shuffles lists and NumPy arrays, not {}", other.type_name())),
    }
}

/// A sum with Kahan's compensation, as NumPy's `kahan_sum` checks probabilities.
fn kahan_sum(values: &[f64]) -> f64 {
    let (mut sum, mut compensation) = (0.0, 0.0);
    for &x in values {
        let y = x - compensation;
        let t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
    sum
}
