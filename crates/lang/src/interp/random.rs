//! `jax.random`: keys and draws with JAX's generator, so a script's random numbers are JAX's.
//! A concrete key draws on the host (`jaxlite::random`: no program in the report, where JAX
//! would run Threefry on the device op by op). A traced key (an argument of `jit`, mapped by
//! `vmap`, carried through `grad`) stages JAX's equations (`jaxlite::jax_random`), so the
//! draw is part of the program and the TPU runs Threefry. Keys are arrays of uint32 pairs
//! (raw keys, `PRNGKey`) or typed keys (`jax.random.key`); they print as JAX prints them and
//! can be split, indexed and unpacked.

use super::builtins::{no_more_kwargs, take_kwarg};
use super::value::{as_f64, Native, Value};
use super::{err, unsupported, Interp, RtError, R};
use crate::ast::BinOp;
use jaxlite::numpy as jnp;
use jaxlite::{jax_random, random, Array, DType, Data, LocalFuture, Tensor};
use std::rc::Rc;

pub const RANDOM_FUNCTIONS: &[&str] = &[
    "PRNGKey",
    "key",
    "key_data",
    "split",
    "fold_in",
    "uniform",
    "normal",
    "bernoulli",
    "randint",
    "permutation",
    "choice",
    "gumbel",
    "categorical",
    "truncated_normal",
    "exponential",
    "laplace",
    "logistic",
    "cauchy",
    "rademacher",
    "bits",
];

/// The functions whose key (or another argument) may be traced: they go to `draw_traced`. (The
/// initializers, whose key follows their bound parameters, take a traced one where they draw.)
const TRACEABLE: &[&str] = &[
    "split",
    "fold_in",
    "bits",
    "uniform",
    "normal",
    "bernoulli",
    "truncated_normal",
    "exponential",
    "laplace",
    "logistic",
    "cauchy",
    "gumbel",
    "categorical",
    "rademacher",
    "randint",
    "permutation",
    "choice",
    "key_data",
];

/// `jax.nn.initializers`: factories of initializers, and the initializers themselves
/// (`init(key, shape, dtype=float32)`), which are the private functions below with their
/// parameters bound first (`functools.partial`).
pub const INITIALIZERS: &[&str] = &[
    "initializers.constant",
    "initializers.normal",
    "initializers.uniform",
    "initializers.variance_scaling",
    "initializers.glorot_uniform",
    "initializers.glorot_normal",
    "initializers.xavier_uniform",
    "initializers.xavier_normal",
    "initializers.lecun_uniform",
    "initializers.lecun_normal",
    "initializers.he_uniform",
    "initializers.he_normal",
    "initializers.kaiming_uniform",
    "initializers.kaiming_normal",
];

/// The value of `jax.nn.initializers.NAME`.
pub fn initializer_attr(name: &str) -> R<Value> {
    let bound = |func: &'static str, args: Vec<Value>| {
        Value::native(Native::Partial { func: Value::native(Native::Random(func)), args, kwargs: vec![] })
    };
    Ok(match name {
        "zeros" => bound("_init_constant", vec![Value::Float(0.0)]),
        "ones" => bound("_init_constant", vec![Value::Float(1.0)]),
        _ => match INITIALIZERS.iter().find(|&&n| n.strip_prefix("initializers.") == Some(name)) {
            Some(n) => Value::native(Native::Random(n)),
            None if pylib::in_real_module("jax.nn.initializers", name) => {
                return super::unsupported(format!("jax.nn.initializers.{name} is not supported by the playground yet"))
            }
            None => return super::attr_err(format!("module 'jax.nn.initializers' has no attribute '{name}'")),
        },
    })
}

/// An array of keys: `shape` of them, each two uint32 words. Raw keys (`PRNGKey`) are uint32
/// arrays of shape `shape + (2,)`; typed keys (`jax.random.key`, dtype `key<fry>`) have shape
/// `shape` and print the words they overlay.
#[derive(Clone, Debug, PartialEq)]
pub struct Keys {
    pub shape: Vec<usize>,
    pub words: Vec<[u32; 2]>,
    pub typed: bool,
}

impl Keys {
    /// Keys as an array: a raw key's uint32 words, a typed key's `key<fry>` elements.
    pub fn to_array(&self) -> Array {
        if self.typed {
            Array::new(self.shape.clone(), Data::Key(self.words.clone()))
        } else {
            Array::new(self.full_shape(), Data::U32(self.flat()))
        }
    }

    /// The keys an array holds: typed keys, or uint32 words whose last axis is 2 (raw keys, as
    /// a jitted function returns them).
    pub fn of_array(a: &Array) -> Option<Keys> {
        match &a.data {
            Data::Key(words) => Some(Keys { shape: a.shape().to_vec(), words: words.clone(), typed: true }),
            Data::U32(w) if a.shape().last() == Some(&2) => Some(Keys {
                shape: a.shape()[..a.shape().len() - 1].to_vec(),
                words: w.chunks(2).map(|k| [k[0], k[1]]).collect(),
                typed: false,
            }),
            _ => None,
        }
    }

    fn one(key: [u32; 2], typed: bool) -> Value {
        Value::Key(Rc::new(Keys { shape: vec![], words: vec![key], typed }))
    }

    /// The single key of a 0-d key array.
    fn single(&self, what: &str) -> R<[u32; 2]> {
        match (self.shape.as_slice(), self.words.as_slice()) {
            ([], [k]) => Ok(*k),
            _ => err(format!(
                "{what} expects a single key (shape (2,)), got an array of keys of shape {:?}; index or split it first",
                self.full_shape()
            )),
        }
    }

    pub fn full_shape(&self) -> Vec<usize> {
        let mut s = self.shape.clone();
        s.push(2);
        s
    }

    /// The keys along the first axis (what iterating and unpacking give).
    pub fn rows(&self) -> R<Vec<Value>> {
        let Some(&n) = self.shape.first() else {
            return err("iteration over a single key: it is one array of 2 words; split it first");
        };
        let per = self.words.len() / n.max(1);
        Ok((0..n)
            .map(|i| {
                let words = self.words[i * per..(i + 1) * per].to_vec();
                Value::Key(Rc::new(Keys { shape: self.shape[1..].to_vec(), words, typed: self.typed }))
            })
            .collect())
    }

    /// `keys[i]` along the first axis.
    pub fn index(&self, i: i64) -> R<Value> {
        let rows = self.rows()?;
        let n = rows.len() as i64;
        let k = if i < 0 { i + n } else { i };
        if !(0..n).contains(&k) {
            return super::index_err(format!("index {i} is out of bounds for axis 0 with size {n}"));
        }
        Ok(rows[k as usize].clone())
    }

    /// `str(keys)`: NumPy's integer array format; a typed key's header, then its words.
    pub fn to_str(&self) -> String {
        let words = format_u32(&self.full_shape(), &self.flat(), " ", " ");
        if self.typed {
            return format!("{}\n{words}", self.typed_header());
        }
        words
    }

    /// `repr(keys)`: `Array([0, 42], dtype=uint32)`, or a typed key's `str`.
    pub fn repr(&self) -> String {
        if self.typed {
            return self.to_str();
        }
        format!("Array({}, dtype=uint32)", format_u32(&self.full_shape(), &self.flat(), ", ", "       "))
    }

    fn typed_header(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        let shape = match dims.len() {
            1 => format!("({},)", dims[0]),
            _ => format!("({})", dims.join(", ")),
        };
        format!("Array({shape}, dtype=key<fry>) overlaying:")
    }

    fn flat(&self) -> Vec<u32> {
        self.words.iter().flat_map(|w| w.iter().copied()).collect()
    }
}

/// NumPy's layout of an integer array: every number right-aligned to the widest, rows of the
/// last axis on one line (a key row is two numbers, so never wrapped), blank lines between
/// blocks of higher axes.
fn format_u32(shape: &[usize], values: &[u32], separator: &str, indent: &str) -> String {
    let width = values.iter().map(|v| v.to_string().len()).max().unwrap_or(1);
    fn go(shape: &[usize], values: &[u32], width: usize, separator: &str, indent: &str) -> String {
        if shape.len() == 1 {
            let items: Vec<String> = values.iter().map(|v| format!("{v:>width$}")).collect();
            return format!("[{}]", items.join(separator));
        }
        let per = values.len() / shape[0].max(1);
        let inner = format!("{indent} ");
        let rows: Vec<String> =
            values.chunks(per.max(1)).map(|chunk| go(&shape[1..], chunk, width, separator, &inner)).collect();
        let newlines = "\n".repeat(shape.len() - 1);
        format!("[{}]", rows.join(&format!("{}{newlines}{inner}", separator.trim_end())))
    }
    go(shape, values, width, separator, &indent[..indent.len() - 1])
}

impl Interp<'_, '_> {
    /// A `jax.nn.initializers` factory applied: the initializer, its parameters bound.
    fn initializer(&mut self, name: &str, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> R<Value> {
        let factory = name.strip_prefix("initializers.").unwrap_or(name);
        let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
        let bound = |func: &'static str, params: Vec<Value>| {
            Value::native(Native::Partial { func: Value::native(Native::Random(func)), args: params, kwargs: vec![] })
        };
        let check_dtype = |d: Option<Value>| float32_only("jax.nn.initializers", d);
        let number = |v: Option<Value>, default: f64| -> R<Value> {
            match v {
                None => Ok(Value::Float(default)),
                Some(v) => as_f64(&v)
                    .map(Value::Float)
                    .ok_or_else(|| RtError::new(format!("jax.nn.initializers.{factory}: expected a number"))),
            }
        };
        let axis = |v: Option<Value>, default: i64| -> R<Value> {
            match v {
                None => Ok(Value::Int(default)),
                Some(Value::Int(a)) => Ok(Value::Int(a)),
                Some(_) => err(format!("jax.nn.initializers.{factory}: in_axis and out_axis must be ints")),
            }
        };
        let no_batch = |v: Option<Value>| -> R<()> {
            match v {
                None | Some(Value::None) => Ok(()),
                Some(Value::Tuple(t)) if t.is_empty() => Ok(()),
                Some(_) => super::unsupported("jax.nn.initializers: batch_axis is not supported by the playground yet"),
            }
        };
        let out = match factory {
            "constant" => {
                let value = arg(0, "value").ok_or_else(|| RtError::new("constant() missing argument 'value'"))?;
                check_dtype(arg(1, "dtype"))?;
                bound("_init_constant", vec![number(Some(value), 0.0)?])
            }
            "normal" | "uniform" => {
                let p = number(arg(0, if factory == "normal" { "stddev" } else { "scale" }), 1e-2)?;
                check_dtype(arg(1, "dtype"))?;
                bound(if factory == "normal" { "_init_normal" } else { "_init_uniform" }, vec![p])
            }
            _ => {
                let (scale, mode, distribution, first) = match factory {
                    "variance_scaling" => {
                        let scale = arg(0, "scale")
                            .ok_or_else(|| RtError::new("variance_scaling() missing argument 'scale'"))?;
                        let scale = number(Some(scale), 0.0)?;
                        let text = |v: Option<Value>, what: &str| match v {
                            Some(Value::Str(s)) => Ok(s.to_string()),
                            _ => err(format!("variance_scaling() needs {what} as a string")),
                        };
                        (scale, text(arg(1, "mode"), "mode")?, text(arg(2, "distribution"), "distribution")?, 3)
                    }
                    _ => {
                        let (s, mode, dist) = match factory {
                            "glorot_uniform" | "xavier_uniform" => (1.0, "fan_avg", "uniform"),
                            "glorot_normal" | "xavier_normal" => (1.0, "fan_avg", "truncated_normal"),
                            "lecun_uniform" => (1.0, "fan_in", "uniform"),
                            "lecun_normal" => (1.0, "fan_in", "truncated_normal"),
                            "he_uniform" | "kaiming_uniform" => (2.0, "fan_in", "uniform"),
                            _ => (2.0, "fan_in", "truncated_normal"),
                        };
                        (Value::Float(s), mode.to_string(), dist.to_string(), 0)
                    }
                };
                let in_axis = axis(arg(first, "in_axis"), -2)?;
                let out_axis = axis(arg(first + 1, "out_axis"), -1)?;
                no_batch(arg(first + 2, "batch_axis"))?;
                check_dtype(arg(first + 3, "dtype"))?;
                bound(
                    "_init_variance_scaling",
                    vec![scale, Value::str(&mode), Value::str(&distribution), in_axis, out_axis],
                )
            }
        };
        no_more_kwargs(&format!("jax.nn.initializers.{factory}"), &kwargs)?;
        Ok(out)
    }

    pub(super) fn call_random<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            // A traced key, or a concrete key with traced data (`fold_in(key, i)` under vmap).
            let traced = |v: &Value| matches!(v, Value::Array(Tensor::Traced(_)));
            if TRACEABLE.contains(&name) && args.iter().chain(kwargs.iter().map(|(_, v)| v)).any(traced) {
                return self.draw_traced(name, args, kwargs).await;
            }
            // An argument by position or by name.
            let arg = |kwargs: &mut Vec<(String, Value)>, i: usize, key: &str| -> Option<Value> {
                take_kwarg(kwargs, key).or_else(|| args.get(i).cloned())
            };
            let key = |v: Option<Value>| -> R<[u32; 2]> {
                match v {
                    Some(Value::Key(k)) => k.single(&format!("jax.random.{name}")),
                    Some(Value::Array(Tensor::Concrete(a))) => match Keys::of_array(&a) {
                        Some(k) => k.single(&format!("jax.random.{name}")),
                        None => err(format!(
                            "jax.random.{name} expects a key (from jax.random.PRNGKey or jax.random.key), got an array of {}",
                            a.aval.short()
                        )),
                    },
                    Some(Value::Array(Tensor::Traced(_))) => unsupported(format!(
                        "jax.random.{name} with a traced key (inside jit, vmap or grad) is not supported by the playground yet: draw it outside and pass the values in"
                    )),
                    Some(other) => err(format!("jax.random.{name} expects a key, got {}", other.type_name())),
                    None => err(format!("jax.random.{name} is missing its key argument")),
                }
            };
            let shape = |v: Option<Value>| draw_shape(name, v);
            let number = |v: Option<Value>, default: f64| -> R<f64> {
                match v {
                    None => Ok(default),
                    Some(v) => as_f64(&v).ok_or_else(|| RtError::new(format!("jax.random.{name}: expected a number"))),
                }
            };
            let dtype_f32 = |v: Option<Value>| float32_only(&format!("jax.random.{name}"), v);
            let out = match name {
                "truncated_normal" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let lower = number(arg(&mut kwargs, 1, "lower"), -2.0)? as f32;
                    let upper = number(arg(&mut kwargs, 2, "upper"), 2.0)? as f32;
                    let shape = shape(arg(&mut kwargs, 3, "shape"))?;
                    dtype_f32(arg(&mut kwargs, 4, "dtype"))?;
                    no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
                    super::jax::check_size(&shape)?;
                    let n = shape.iter().product();
                    Value::array(Array::new(shape, Data::F32(random::truncated_normal(k, n, lower, upper))))
                }
                "rademacher" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let shape = shape(arg(&mut kwargs, 1, "shape"))?;
                    let dtype = super::jax::optional_dtype(arg(&mut kwargs, 2, "dtype"))?.unwrap_or(DType::I32);
                    no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
                    super::jax::check_size(&shape)?;
                    let values = random::rademacher(k, shape.iter().product());
                    Value::array(Array::from_f32(shape, values).astype(dtype))
                }
                "exponential" | "laplace" | "logistic" | "cauchy" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let shape = shape(arg(&mut kwargs, 1, "shape"))?;
                    dtype_f32(arg(&mut kwargs, 2, "dtype"))?;
                    no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
                    super::jax::check_size(&shape)?;
                    let n = shape.iter().product();
                    let values = match name {
                        "exponential" => random::exponential(k, n),
                        "laplace" => random::laplace(k, n),
                        "cauchy" => random::cauchy(k, n),
                        _ => random::logistic(k, n),
                    };
                    Value::array(Array::new(shape, Data::F32(values)))
                }
                _ if name.starts_with("initializers.") => return self.initializer(name, args, kwargs),
                _ if name.starts_with("_init_") => {
                    // (the bound parameters, then) key, shape, dtype=float32
                    let bound = match name {
                        "_init_variance_scaling" => 5,
                        _ => 1,
                    };
                    let k = match arg(&mut kwargs, bound, "key") {
                        // A traced key (`vmap(init)(keys)`, an init inside `jit`) stages the draw.
                        Some(Value::Array(t @ Tensor::Traced(_))) => DrawKey::Traced(t),
                        given => DrawKey::Host(key(given)?),
                    };
                    let shape = shape(arg(&mut kwargs, bound + 1, "shape"))?;
                    dtype_f32(arg(&mut kwargs, bound + 2, "dtype"))?;
                    no_more_kwargs("init", &kwargs)?;
                    super::jax::check_size(&shape)?;
                    let plan = init_plan(name, &args[..bound.min(args.len())], &shape)?;
                    return Ok(Value::Array(self.init_draw(&k, plan, shape).await?));
                }
                "PRNGKey" | "key" => {
                    let seed = match arg(&mut kwargs, 0, "seed") {
                        Some(Value::Int(s)) => i32::try_from(s).map_err(|_| {
                            RtError::of(
                                super::objects::Builtin::ValueError,
                                format!("{name}: seed {s} does not fit int32 (JAX without x64 keeps 32 bits)"),
                            )
                        })?,
                        // An integer array of one seed: its key is made in the program when it
                        // is traced (`jit(lambda s: PRNGKey(s))`, `vmap(PRNGKey)(seeds)`).
                        Some(Value::Array(t)) => {
                            let aval = t.aval();
                            if aval.rank() != 0 {
                                return err(format!(
                                    "{name} accepts a scalar seed, but was given an array of shape {} != (). Use jax.vmap for batching",
                                    jnp::shape_str(&aval.shape)
                                ));
                            }
                            if !matches!(aval.dtype, DType::I32 | DType::U32 | DType::Bool) {
                                return err(format!("{name} expects an integer seed, got {}", aval.short()));
                            }
                            let seed = jnp::astype(self.ctx, &t, DType::I32).await?;
                            match seed.concrete().map(|a| &a.data) {
                                Some(Data::I32(v)) => v[0],
                                _ => return Ok(Value::Array(jax_random::seed(self.ctx, &seed, name == "key").await?)),
                            }
                        }
                        Some(other) => return err(format!("{name} expects an int seed, got {}", other.type_name())),
                        None => return err(format!("{name}() missing required argument 'seed'")),
                    };
                    Keys::one(random::seed(seed), name == "key")
                }
                "key_data" => match arg(&mut kwargs, 0, "keys") {
                    Some(Value::Key(k)) => Value::Key(Rc::new(Keys { typed: false, ..(*k).clone() })),
                    Some(Value::Array(Tensor::Concrete(a))) if Keys::of_array(&a).is_some() => {
                        Value::Array(Tensor::from(a.astype(DType::U32)))
                    }
                    _ => return err("jax.random.key_data expects a key"),
                },
                "split" => {
                    let given = arg(&mut kwargs, 0, "key");
                    let typed = matches!(&given, Some(Value::Key(k)) if k.typed);
                    let k = key(given)?;
                    let n = split_count(arg(&mut kwargs, 1, "num"))?;
                    Value::Key(Rc::new(Keys { shape: vec![n], words: random::split(k, n), typed }))
                }
                "fold_in" => {
                    let given = arg(&mut kwargs, 0, "key");
                    let typed = matches!(&given, Some(Value::Key(k)) if k.typed);
                    let k = key(given)?;
                    let data = match arg(&mut kwargs, 1, "data") {
                        Some(Value::Int(d)) => d as u32,
                        _ => return err("fold_in expects an int data argument"),
                    };
                    Keys::one(random::fold_in(k, data), typed)
                }
                "uniform" | "normal" | "bernoulli" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let (p, shape_at) =
                        if name == "bernoulli" { (number(arg(&mut kwargs, 1, "p"), 0.5)?, 2) } else { (0.0, 1) };
                    let shape = shape(arg(&mut kwargs, shape_at, "shape"))?;
                    super::jax::check_size(&shape)?;
                    let n: usize = shape.iter().product();
                    let dtype = match take_kwarg(&mut kwargs, "dtype") {
                        None => DType::F32,
                        Some(d) => super::jax::requested_dtype(&d)?,
                    };
                    if name != "bernoulli" && dtype != DType::F32 {
                        return err(format!(
                            "jax.random.{name} supports float32 in the playground, not {}",
                            dtype.name()
                        ));
                    }
                    let data = match name {
                        "uniform" => {
                            let lo = number(arg(&mut kwargs, 3, "minval"), 0.0)? as f32;
                            let hi = number(arg(&mut kwargs, 4, "maxval"), 1.0)? as f32;
                            Data::F32(random::uniform(k, n, lo, hi))
                        }
                        "normal" => Data::F32(random::normal(k, n)),
                        _ => Data::Bool(random::bernoulli(k, p as f32, n)),
                    };
                    Value::array(Array::new(shape, data))
                }
                // -log(-log(u)) for u uniform in [tiny, 1), JAX's default ("low") mode; the
                // uniform bits on the host, the logs on the machine, as JAX runs them there.
                "gumbel" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let shape = shape(arg(&mut kwargs, 1, "shape"))?;
                    self.check_gumbel_options(name, arg(&mut kwargs, 2, "dtype"), arg(&mut kwargs, 3, "mode"))?;
                    no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
                    return Ok(Value::Array(self.gumbel(&DrawKey::Host(k), shape).await?));
                }
                "categorical" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    return self.categorical(DrawKey::Host(k), &args, kwargs).await;
                }
                "randint" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let (shape, lo, hi) = randint_options(
                        arg(&mut kwargs, 1, "shape"),
                        arg(&mut kwargs, 2, "minval"),
                        arg(&mut kwargs, 3, "maxval"),
                        arg(&mut kwargs, 4, "dtype"),
                    )?;
                    let n: usize = shape.iter().product();
                    Value::array(Array::new(shape, Data::I32(random::randint(k, n, lo, hi))))
                }
                "permutation" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    return self.permutation(DrawKey::Host(k), &args, kwargs).await;
                }
                "choice" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    return self.choice(DrawKey::Host(k), &args, kwargs).await;
                }
                "bits" => {
                    let k = key(arg(&mut kwargs, 0, "key"))?;
                    let shape = shape(arg(&mut kwargs, 1, "shape"))?;
                    uint32_only(arg(&mut kwargs, 2, "dtype"))?;
                    super::jax::check_size(&shape)?;
                    let n = shape.iter().product();
                    Value::array(Array::new(shape, Data::U32(random::bits(k, n))))
                }
                _ => return super::unsupported(format!("jax.random.{name} is not supported by the playground yet")),
            };
            no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
            Ok(out)
        })
    }

    /// A `jax.random` function of a traced key: JAX's equations (`jaxlite::jax_random`).
    fn draw_traced<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let arg = |kwargs: &mut Vec<(String, Value)>, i: usize, key: &str| -> Option<Value> {
                take_kwarg(kwargs, key).or_else(|| args.get(i).cloned())
            };
            let key_name = if name == "key_data" { "keys" } else { "key" };
            let key = self.to_tensor(&arg(&mut kwargs, 0, key_name).unwrap_or(Value::None))?;
            let float = |v: Option<Value>, default: f64| -> R<Tensor> {
                match v {
                    None => Ok(Tensor::from(Array::weak_scalar_f32(default as f32))),
                    Some(v) => self.to_tensor(&v),
                }
            };
            let number = |v: Option<Value>, default: f64| -> R<f32> {
                match v {
                    None => Ok(default as f32),
                    Some(v) => as_f64(&v).map(|x| x as f32).ok_or_else(|| {
                        RtError::new(format!("jax.random.{name} with a traced key takes numbers for its bounds"))
                    }),
                }
            };
            let what = format!("jax.random.{name}");
            let out = match name {
                "split" => {
                    let n = split_count(arg(&mut kwargs, 1, "num"))?;
                    jax_random::split(self.ctx, &key, n).await?
                }
                "fold_in" => {
                    let data =
                        arg(&mut kwargs, 1, "data").ok_or_else(|| RtError::new("fold_in() missing argument 'data'"))?;
                    let data = match data {
                        // Python's int as JAX takes it: its low 32 bits.
                        Value::Int(d) => Tensor::from(Array::new(vec![], Data::U32(vec![d as u32]))),
                        other => self.to_tensor(&other)?,
                    };
                    jax_random::fold_in(self.ctx, &key, &data).await?
                }
                "bits" => {
                    let shape = draw_shape(name, arg(&mut kwargs, 1, "shape"))?;
                    uint32_only(arg(&mut kwargs, 2, "dtype"))?;
                    super::jax::check_size(&shape)?;
                    jax_random::bits(self.ctx, &key, &shape).await?
                }
                "uniform" | "normal" | "exponential" | "laplace" | "logistic" | "cauchy" => {
                    let shape = draw_shape(name, arg(&mut kwargs, 1, "shape"))?;
                    float32_only(&what, arg(&mut kwargs, 2, "dtype"))?;
                    super::jax::check_size(&shape)?;
                    match name {
                        "uniform" => {
                            let lo = float(arg(&mut kwargs, 3, "minval"), 0.0)?;
                            let hi = float(arg(&mut kwargs, 4, "maxval"), 1.0)?;
                            jax_random::uniform(self.ctx, &key, &shape, &lo, &hi).await?
                        }
                        "normal" => jax_random::normal(self.ctx, &key, &shape).await?,
                        "laplace" => jax_random::laplace(self.ctx, &key, &shape).await?,
                        "logistic" => jax_random::logistic(self.ctx, &key, &shape).await?,
                        "cauchy" => jax_random::cauchy(self.ctx, &key, &shape).await?,
                        _ => jax_random::exponential(self.ctx, &key, &shape).await?,
                    }
                }
                "gumbel" => {
                    let shape = draw_shape(name, arg(&mut kwargs, 1, "shape"))?;
                    self.check_gumbel_options(name, arg(&mut kwargs, 2, "dtype"), arg(&mut kwargs, 3, "mode"))?;
                    no_more_kwargs(&what, &kwargs)?;
                    self.gumbel(&DrawKey::Traced(key), shape).await?
                }
                "categorical" => return self.categorical(DrawKey::Traced(key), &args, kwargs).await,
                "choice" => return self.choice(DrawKey::Traced(key), &args, kwargs).await,
                "permutation" => return self.permutation(DrawKey::Traced(key), &args, kwargs).await,
                "randint" => {
                    let (shape, lo, hi) = randint_options(
                        arg(&mut kwargs, 1, "shape"),
                        arg(&mut kwargs, 2, "minval"),
                        arg(&mut kwargs, 3, "maxval"),
                        arg(&mut kwargs, 4, "dtype"),
                    )?;
                    // The values are made on the machine, whose int32 words hold float32s.
                    const EXACT: i32 = 1 << 24;
                    if !(-EXACT..=EXACT).contains(&lo) || !(-EXACT..=EXACT).contains(&hi) {
                        return err(format!(
                            "jax.random.randint with a traced key takes bounds within ±2^24 in the playground (the machine's int32 words hold float32 values), got {lo} and {hi}"
                        ));
                    }
                    jax_random::randint(self.ctx, &key, &shape, lo, hi).await?
                }
                "rademacher" => {
                    let shape = draw_shape(name, arg(&mut kwargs, 1, "shape"))?;
                    let dtype = super::jax::optional_dtype(arg(&mut kwargs, 2, "dtype"))?.unwrap_or(DType::I32);
                    super::jax::check_size(&shape)?;
                    jax_random::rademacher(self.ctx, &key, &shape, dtype).await?
                }
                "bernoulli" => {
                    let p = float(arg(&mut kwargs, 1, "p"), 0.5)?;
                    let shape = match arg(&mut kwargs, 2, "shape") {
                        None | Some(Value::None) => p.aval().shape.clone(),
                        v => draw_shape(name, v)?,
                    };
                    super::jax::check_size(&shape)?;
                    jax_random::bernoulli(self.ctx, &key, &p, &shape).await?
                }
                "truncated_normal" => {
                    let lower = number(arg(&mut kwargs, 1, "lower"), -2.0)?;
                    let upper = number(arg(&mut kwargs, 2, "upper"), 2.0)?;
                    let shape = draw_shape(name, arg(&mut kwargs, 3, "shape"))?;
                    float32_only(&what, arg(&mut kwargs, 4, "dtype"))?;
                    super::jax::check_size(&shape)?;
                    jax_random::truncated_normal(self.ctx, &key, lower, upper, &shape).await?
                }
                // "key_data"
                _ => match key.aval().dtype {
                    DType::Key => jnp::apply1(self.ctx, jaxlite::Primitive::RandomUnwrap, &key).await?,
                    _ if jax_random::is_key(&key) => key,
                    _ => return err("jax.random.key_data expects a key"),
                },
            };
            no_more_kwargs(&what, &kwargs)?;
            Ok(Value::Array(out))
        })
    }

    /// `choice(key, a, shape, replace, p, axis)` with probabilities `p`, as JAX draws them: with
    /// replacement, the first index whose cumulative probability reaches `total · (1 − u)` for
    /// a uniform `u` (`searchsorted`); without, the largest `gumbel + log p` (the Gumbel top-k
    /// trick: a stable argsort of the negated scores, so ties go to the lower index as in
    /// `lax.top_k`). `p` and the key may both be traced.
    fn weighted_choice<'a>(
        &'a mut self,
        key: &'a DrawKey,
        a: &'a Value,
        shape: Vec<usize>,
        replace: bool,
        p: &'a Value,
        axis: Option<Value>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (array, n, axis) = self.population(a, axis)?;
            let p = self.to_tensor(p)?;
            let p = jnp::astype(self.ctx, &p, DType::F32).await?;
            if p.aval().shape != [n] {
                let dims: Vec<String> = p.aval().shape.iter().map(|d| d.to_string()).collect();
                let shape = if dims.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
                return super::value_err(format!(
                    "p must be None or a 1D vector with the same size as a.shape[axis]. p has shape {shape} and a.shape[axis] is {n}."
                ));
            }
            let draws: usize = shape.iter().product();
            let picks = if replace {
                let u = match key {
                    DrawKey::Host(k) => {
                        Tensor::from(Array::new(shape.clone(), Data::F32(random::uniform(*k, draws, 0.0, 1.0))))
                    }
                    DrawKey::Traced(k) => {
                        let (lo, hi) = (
                            Tensor::from(Array::from_f32(vec![], vec![0.0])),
                            Tensor::from(Array::from_f32(vec![], vec![1.0])),
                        );
                        jax_random::uniform(self.ctx, k, &shape, &lo, &hi).await?
                    }
                };
                let cumulative = self.np("cumsum", vec![Value::Array(p)], vec![]).await?;
                let total = self.np1("take", vec![cumulative.clone(), Value::Int(n as i64 - 1)]).await?;
                let rest = self.binary(BinOp::Sub, Value::Float(1.0), Value::Array(u)).await?;
                let r = self.binary(BinOp::Mul, total, rest).await?;
                let found = self.np1("searchsorted", vec![cumulative, r]).await?;
                self.to_tensor(&found)?
            } else {
                if draws > n {
                    return super::value_err(format!(
                        "Cannot take a larger sample (size {draws}) than population (size {n}) when 'replace=False'"
                    ));
                }
                let noise = self.gumbel(key, vec![n]).await?;
                let log_p = jnp::unary(self.ctx, jaxlite::UnaryOp::Log, &p).await?;
                let scores = jnp::binary(self.ctx, jaxlite::BinaryOp::Add, &noise, &log_p).await?;
                let negated = jnp::unary(self.ctx, jaxlite::UnaryOp::Neg, &scores).await?;
                let order = self.sort(&negated, 0, true, false).await?;
                super::arrange::slice_axis(self.ctx, &order, 0, 0, draws).await?
            };
            let index_shape: Vec<i64> = if array.is_some() && !replace {
                vec![draws as i64]
            } else {
                shape.iter().map(|&d| d as i64).collect()
            };
            let picks = jnp::reshape(self.ctx, &picks, &index_shape).await?;
            let Some(x) = array else { return Ok(Value::Array(picks)) };
            let taken = jnp::take(self.ctx, &x, &picks, axis).await?;
            let mut out: Vec<i64> = x.aval().shape[..axis].iter().map(|&d| d as i64).collect();
            out.extend(shape.iter().map(|&d| d as i64));
            out.extend(x.aval().shape[axis + 1..].iter().map(|&d| d as i64));
            Ok(Value::Array(jnp::reshape(self.ctx, &taken, &out).await?))
        })
    }

    /// `a` of `choice` or `x` of `permutation`: an int n (drawing from 0..n) or a concrete array
    /// (drawing along `axis`); the array, the population's size and the axis.
    fn population(&self, a: &Value, axis: Option<Value>) -> R<(Option<Tensor>, usize, usize)> {
        if let Value::Int(n) = a {
            return match usize::try_from(*n) {
                Ok(n) => Ok((None, n, 0)),
                Err(_) => super::value_err(format!("jax.random: a population of {n} is negative")),
            };
        }
        let x = self.to_tensor(a)?;
        let rank = x.aval().rank();
        if rank == 0 {
            return err("jax.random: x must be an integer or at least 1-dimensional");
        }
        let axis = match axis {
            None | Some(Value::None) => 0,
            Some(v) => super::jax::int_arg(&v)?,
        };
        let axis = jaxlite::numpy::normalize_axes(Some(&[axis]), rank)?[0];
        let n = x.aval().shape[axis];
        Ok((Some(x), n, axis))
    }

    /// `permutation(key, x, axis)`, or `choice(key, x, shape, replace=False, axis=axis)`: the
    /// first of the shuffled elements along `axis`, as many as `shape` holds, in that shape.
    fn shuffled<'a>(
        &'a mut self,
        key: &'a DrawKey,
        x: &'a Value,
        axis: Option<Value>,
        draws: Option<Vec<usize>>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (array, n, axis) = self.population(x, axis)?;
            let wanted: usize = draws.as_ref().map_or(n, |s| s.iter().product());
            if wanted > n {
                return super::value_err(format!(
                    "Cannot take a larger sample (size {wanted}) than population (size {n}) when 'replace=False'"
                ));
            }
            super::jax::check_size(&[n])?;
            let index_shape = match (&array, &draws) {
                (None, Some(s)) => s.clone(),
                _ => vec![wanted],
            };
            let picks = match key {
                DrawKey::Host(k) => {
                    let order = random::permutation(*k, n).into_iter().take(wanted).map(|i| i as i32).collect();
                    Tensor::from(Array::new(index_shape, Data::I32(order)))
                }
                DrawKey::Traced(k) => {
                    let order = self.traced_order(k, n).await?;
                    let first = super::arrange::slice_axis(self.ctx, &order, 0, 0, wanted).await?;
                    let shape: Vec<i64> = index_shape.iter().map(|&d| d as i64).collect();
                    jnp::reshape(self.ctx, &first, &shape).await?
                }
            };
            let Some(x) = array else { return Ok(Value::Array(picks)) };
            let taken = jnp::take(self.ctx, &x, &picks, axis).await?;
            match draws {
                // choice: the drawn axis becomes `shape`.
                Some(shape) => {
                    let mut out: Vec<i64> = x.aval().shape[..axis].iter().map(|&d| d as i64).collect();
                    out.extend(shape.iter().map(|&d| d as i64));
                    out.extend(x.aval().shape[axis + 1..].iter().map(|&d| d as i64));
                    Ok(Value::Array(jnp::reshape(self.ctx, &taken, &out).await?))
                }
                None => Ok(Value::Array(taken)),
            }
        })
    }

    /// The order `permutation` puts 0..n in for a traced key, as JAX's `_shuffle`: rounds of a
    /// stable sort on fresh uint32 random keys, each round's argsort (sorting by counting, on
    /// the vector unit's uint32 comparisons) composed with the last.
    fn traced_order<'a>(&'a mut self, key: &'a Tensor, n: usize) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let mut key = key.clone();
            let mut order = Tensor::from(Array::new(vec![n], Data::I32((0..n as i32).collect())));
            for _ in 0..random::shuffle_rounds(n) {
                let [next, sub] = jax_random::split_in_two(self.ctx, "jax.random.permutation", &key).await?;
                key = next;
                let sort_keys = jax_random::bits(self.ctx, &sub, &[n]).await?;
                let by = self.sort(&sort_keys, 0, true, false).await?;
                order = jnp::take(self.ctx, &order, &by, 0).await?;
            }
            Ok(order)
        })
    }

    /// `permutation(key, x, axis=0, independent=False)` (`args[0]` is the key, already taken).
    fn permutation<'a>(
        &'a mut self,
        key: DrawKey,
        args: &'a [Value],
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, name: &str| take_kwarg(&mut kwargs, name).or_else(|| args.get(i).cloned());
            let x = arg(1, "x").ok_or_else(|| RtError::new("permutation() missing argument 'x'"))?;
            let axis = arg(2, "axis");
            let independent = arg(3, "independent");
            no_more_kwargs("jax.random.permutation", &kwargs)?;
            if let Some(v) = independent {
                if self.truthy(&v)? {
                    return super::unsupported(
                        "jax.random.permutation with independent=True is not supported by the playground yet",
                    );
                }
            }
            self.shuffled(&key, &x, axis, None).await
        })
    }

    /// `choice(key, a, shape=(), replace=True, p=None, axis=0)` (`args[0]` is the key, already
    /// taken), as JAX draws it: `randint` indices with replacement, the first of a
    /// permutation without, and with probabilities `p` as [`Self::weighted_choice`] says.
    fn choice<'a>(
        &'a mut self,
        key: DrawKey,
        args: &'a [Value],
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut arg = |i: usize, name: &str| take_kwarg(&mut kwargs, name).or_else(|| args.get(i).cloned());
            let a = arg(1, "a").ok_or_else(|| RtError::new("choice() missing argument 'a'"))?;
            let shape = draw_shape("choice", arg(2, "shape"))?;
            let replace = arg(3, "replace");
            let p = arg(4, "p").filter(|p| !matches!(p, Value::None));
            let axis = arg(5, "axis");
            no_more_kwargs("jax.random.choice", &kwargs)?;
            let replace = match replace {
                Some(v) => self.truthy(&v)?,
                None => true,
            };
            super::jax::check_size(&shape)?;
            let draws: usize = shape.iter().product();
            if let Some(p) = p {
                return self.weighted_choice(&key, &a, shape, replace, &p, axis).await;
            }
            if !replace {
                return self.shuffled(&key, &a, axis, Some(shape)).await;
            }
            let (array, n, axis) = self.population(&a, axis)?;
            if n == 0 && draws > 0 {
                return super::value_err("jax.random.choice: a must be greater than 0 unless no samples are taken");
            }
            let picks = match &key {
                DrawKey::Host(k) => {
                    Tensor::from(Array::new(shape.clone(), Data::I32(random::randint(*k, draws, 0, n as i32))))
                }
                DrawKey::Traced(k) => jax_random::randint(self.ctx, k, &shape, 0, n as i32).await?,
            };
            match array {
                None => Ok(Value::Array(picks)),
                Some(x) => Ok(Value::Array(jnp::take(self.ctx, &x, &picks, axis).await?)),
            }
        })
    }

    /// An initializer's draw of `shape`: on the host for a host key, staged for a traced one
    /// (the same scalings, in the same order, so the bits agree).
    fn init_draw<'a>(&'a mut self, key: &'a DrawKey, plan: InitDraw, shape: Vec<usize>) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            let n: usize = shape.iter().product();
            let (distribution, scales) = match plan {
                InitDraw::Constant(c) => return Ok(Tensor::from(Array::new(shape, Data::F32(vec![c; n])))),
                InitDraw::Scaled(d, scales) => (d, scales),
            };
            let k = match key {
                DrawKey::Host(k) => *k,
                DrawKey::Traced(k) => {
                    let ctx = &mut *self.ctx;
                    let scalar = |x: f32| Tensor::from(Array::from_f32(vec![], vec![x]));
                    let mut x = match distribution {
                        Distribution::Normal => jax_random::normal(ctx, k, &shape).await?,
                        Distribution::Uniform { lo, hi } => {
                            jax_random::uniform(ctx, k, &shape, &scalar(lo), &scalar(hi)).await?
                        }
                        Distribution::TruncatedNormal => {
                            jax_random::truncated_normal(ctx, k, -2.0, 2.0, &shape).await?
                        }
                    };
                    for s in scales {
                        x = jnp::binary(ctx, jaxlite::BinaryOp::Mul, &x, &scalar(s)).await?;
                    }
                    return Ok(x);
                }
            };
            let base = match distribution {
                Distribution::Normal => random::normal(k, n),
                Distribution::Uniform { lo, hi } => random::uniform(k, n, lo, hi),
                Distribution::TruncatedNormal => random::truncated_normal(k, n, -2.0, 2.0),
            };
            let values = base.into_iter().map(|x| scales.iter().fold(x, |x, s| x * s)).collect();
            Ok(Tensor::from(Array::new(shape, Data::F32(values))))
        })
    }

    /// Only float32 and JAX's default "low" mode of the Gumbel sampler.
    fn check_gumbel_options(&self, name: &str, dtype: Option<Value>, mode: Option<Value>) -> R<()> {
        if let Some(d) = dtype.filter(|d| !matches!(d, Value::None)) {
            if super::jax::requested_dtype(&d)? != DType::F32 {
                return err(format!("jax.random.{name} supports float32 in the playground"));
            }
        }
        match mode {
            None | Some(Value::None) => Ok(()),
            Some(Value::Str(m)) if &*m == "low" => Ok(()),
            Some(other) => unsupported(format!(
                "jax.random.{name}: mode={} is not supported by the playground yet (only the default, 'low')",
                super::value::repr(&other)
            )),
        }
    }

    /// `jax.random.gumbel(key, shape)` in JAX's "low" mode: for a host key the uniform bits
    /// are drawn on the host and the logs run on the machine, as JAX runs them there.
    fn gumbel<'a>(&'a mut self, key: &'a DrawKey, shape: Vec<usize>) -> LocalFuture<'a, R<Tensor>> {
        Box::pin(async move {
            super::jax::check_size(&shape)?;
            Ok(match key {
                DrawKey::Host(k) => {
                    let n: usize = shape.iter().product();
                    let u = random::uniform(*k, n, f32::MIN_POSITIVE, 1.0);
                    let u = Tensor::from(Array::new(shape, Data::F32(u)));
                    jax_random::gumbel_of_uniform(self.ctx, &u).await?
                }
                DrawKey::Traced(k) => jax_random::gumbel(self.ctx, k, &shape).await?,
            })
        })
    }

    /// `categorical(key, logits, axis=-1, shape=None, replace=True, mode=None)` (`args[0]` is
    /// the key, already taken): argmax(logits + gumbel noise) along the axis, the Gumbel-max
    /// trick, as JAX.
    fn categorical<'a>(
        &'a mut self,
        key: DrawKey,
        args: &'a [Value],
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let name = "categorical";
            let mut arg = |i: usize, key: &str| take_kwarg(&mut kwargs, key).or_else(|| args.get(i).cloned());
            let logits = arg(1, "logits").ok_or_else(|| RtError::new("categorical() missing argument 'logits'"))?;
            let axis = match arg(2, "axis") {
                None => -1,
                Some(v) => super::jax::int_arg(&v)?,
            };
            let wanted = arg(3, "shape");
            let replace = arg(4, "replace");
            let mode = arg(5, "mode");
            if let Some(v) = replace {
                if !self.truthy(&v)? {
                    return super::unsupported(
                        "jax.random.categorical with replace=False is not supported by the playground yet",
                    );
                }
            }
            self.check_gumbel_options(name, None, mode)?;
            no_more_kwargs(&format!("jax.random.{name}"), &kwargs)?;
            let logits = self.to_tensor(&logits)?;
            let logits = if logits.aval().dtype.is_float() {
                logits
            } else {
                jnp::astype(self.ctx, &logits, DType::F32).await?
            };
            let rank = logits.aval().rank();
            if rank == 0 {
                return err("jax.random.categorical: logits must have at least one dimension");
            }
            let axis = jnp::normalize_axes(Some(&[axis]), rank)?[0];
            let mut batch = logits.aval().shape.clone();
            let n = batch.remove(axis);
            let wanted = match wanted {
                None | Some(Value::None) => batch.clone(),
                v => draw_shape(name, v)?,
            };
            if wanted.len() < batch.len() || wanted[wanted.len() - batch.len()..] != batch[..] {
                return err(format!(
                    "jax.random.categorical: shape {} must end with the logits' batch shape {}",
                    jnp::shape_str(&wanted),
                    jnp::shape_str(&batch)
                ));
            }
            // The noise's shape: the extra leading axes, then the logits' own.
            let prefix = wanted.len() - batch.len();
            let mut noise_shape = wanted.clone();
            noise_shape.insert(prefix + axis, n);
            let noise = self.gumbel(&key, noise_shape.clone()).await?;
            let ctx = &mut *self.ctx;
            let logits = jnp::broadcast_to(ctx, &logits, &noise_shape).await?;
            let scores = jnp::binary(ctx, jaxlite::BinaryOp::Add, &noise, &logits).await?;
            Ok(Value::Array(jnp::arg_reduce(ctx, &scores, Some((prefix + axis) as i64), true).await?))
        })
    }
}

/// `randint`'s shape, int bounds and dtype (int32 only), checked.
fn randint_options(
    shape: Option<Value>,
    minval: Option<Value>,
    maxval: Option<Value>,
    dtype: Option<Value>,
) -> R<(Vec<usize>, i32, i32)> {
    let shape = draw_shape("randint", shape)?;
    super::jax::check_size(&shape)?;
    let bound = |v: Option<Value>, what: &str| -> R<i32> {
        let v = v.ok_or_else(|| RtError::new(format!("randint() missing argument '{what}'")))?;
        let i = super::jax::int_arg(&v).map_err(|_| {
            RtError::new(format!(
                "jax.random.randint: {what} must be an int in the playground, got {}",
                super::value::repr(&v)
            ))
        })?;
        i32::try_from(i).map_err(|_| {
            RtError::of(
                super::objects::Builtin::ValueError,
                format!("jax.random.randint: {what}={i} does not fit int32"),
            )
        })
    };
    let (lo, hi) = (bound(minval, "minval")?, bound(maxval, "maxval")?);
    if let Some(d) = dtype.filter(|d| !matches!(d, Value::None)) {
        if super::jax::dtype_arg(&d)? != DType::I32 {
            return err("jax.random.randint supports int32 in the playground");
        }
    }
    Ok((shape, lo, hi))
}

/// The key of a draw: two words on the host, or a traced key (its draw becomes equations).
enum DrawKey {
    Host([u32; 2]),
    Traced(Tensor),
}

/// `split`'s `num` argument (2 when not given), checked against the array size cap (each key is
/// two words) before anything is allocated.
fn split_count(v: Option<Value>) -> R<usize> {
    let n = match v {
        None => 2,
        Some(Value::Int(n)) if n >= 0 => n as usize,
        Some(other) => {
            return super::value_err(format!(
                "split: num must be a non-negative int, got {}",
                super::value::repr(&other)
            ))
        }
    };
    super::jax::check_size(&[n, 2])?;
    Ok(n)
}

/// A draw's `shape` argument.
fn draw_shape(name: &str, v: Option<Value>) -> R<Vec<usize>> {
    match v {
        None | Some(Value::None) => Ok(vec![]),
        // "expected an integer, got float" alone would not say which argument.
        Some(v) => super::jax::shape_arg(&v).map_err(|e| {
            if e.message.starts_with("expected an integer") {
                let got = super::value::repr(&v);
                RtError::new(format!("jax.random.{name}: shape must be a tuple of ints, got {got}"))
            } else {
                e
            }
        }),
    }
}

/// A `dtype=` argument where only float32 is there: absent, or float32.
fn float32_only(what: &str, d: Option<Value>) -> R<()> {
    only_dtype(what, d, DType::F32)
}

/// `jax.random.bits`'s `dtype=`: absent, or uint32.
fn uint32_only(d: Option<Value>) -> R<()> {
    only_dtype("jax.random.bits", d, DType::U32)
}

fn only_dtype(what: &str, d: Option<Value>, only: DType) -> R<()> {
    match d {
        None => Ok(()),
        Some(d) => match super::jax::requested_dtype(&d)? {
            dtype if dtype == only => Ok(()),
            other => err(format!("{what} supports {} in the playground, not {}", only.name(), other.name())),
        },
    }
}

/// What an initializer draws (the `_init_*` functions, after their bound parameters), its
/// scales computed as jax.nn.initializers does (the variance from Python floats, as JAX).
enum InitDraw {
    Constant(f32),
    /// Draws of the distribution multiplied by each scale in turn.
    Scaled(Distribution, Vec<f32>),
}

enum Distribution {
    Normal,
    Uniform {
        lo: f32,
        hi: f32,
    },
    /// A unit normal truncated to (−2, 2).
    TruncatedNormal,
}

fn init_plan(name: &str, params: &[Value], shape: &[usize]) -> R<InitDraw> {
    let number = |i: usize| -> R<f64> {
        params
            .get(i)
            .and_then(as_f64)
            .ok_or_else(|| RtError::new(format!("initializer parameter {i} must be a number")))
    };
    Ok(match name {
        "_init_constant" => InitDraw::Constant(number(0)? as f32),
        "_init_normal" => InitDraw::Scaled(Distribution::Normal, vec![number(0)? as f32]),
        "_init_uniform" => InitDraw::Scaled(Distribution::Uniform { lo: 0.0, hi: 1.0 }, vec![number(0)? as f32]),
        _ => {
            let text = |i: usize| match params.get(i) {
                Some(Value::Str(s)) => Ok(s.to_string()),
                _ => err(format!("variance_scaling: parameter {i} must be a string")),
            };
            let axis = |i: usize| match params.get(i) {
                Some(Value::Int(a)) => Ok(*a),
                _ => err("variance_scaling: in_axis and out_axis must be ints"),
            };
            let (scale, mode, distribution) = (number(0)?, text(1)?, text(2)?);
            // JAX's _compute_fans: the in and out axes' sizes times the receptive field (the
            // product of every other axis).
            let rank = shape.len() as i64;
            let (in_axis, out_axis) = (axis(3)?, axis(4)?);
            let resolve = |a: i64| if a < 0 { a + rank } else { a };
            let (i, o) = (resolve(in_axis), resolve(out_axis));
            if rank < 2 || !(0..rank).contains(&i) || !(0..rank).contains(&o) || i == o {
                return err(format!(
                    "variance_scaling needs an array of at least 2 dimensions with distinct in_axis and out_axis, got shape {shape:?}"
                ));
            }
            let total: f64 = shape.iter().map(|&d| d as f64).product();
            let (in_size, out_size) = (shape[i as usize] as f64, shape[o as usize] as f64);
            let receptive = total / in_size / out_size;
            let (fan_in, fan_out) = (in_size * receptive, out_size * receptive);
            let denominator = match mode.as_str() {
                "fan_in" => fan_in,
                "fan_out" => fan_out,
                "fan_avg" => (fan_in + fan_out) / 2.0,
                other => return super::value_err(format!("invalid mode for variance scaling initializer: {other}")),
            };
            let variance = (scale / denominator) as f32;
            match distribution.as_str() {
                "truncated_normal" => {
                    // x · sqrt(variance) / stddev, stddev that of a unit normal truncated to
                    // (-2, 2), the division as XLA compiles one by a constant: a
                    // multiplication by its reciprocal.
                    let stddev = 0.879_625_661_034_239_8_f64 as f32;
                    InitDraw::Scaled(Distribution::TruncatedNormal, vec![variance.sqrt(), 1.0 / stddev])
                }
                "normal" | "untruncated_normal" => InitDraw::Scaled(Distribution::Normal, vec![variance.sqrt()]),
                "uniform" => {
                    InitDraw::Scaled(Distribution::Uniform { lo: -1.0, hi: 1.0 }, vec![(3.0 * variance).sqrt()])
                }
                other => {
                    return super::value_err(format!("invalid distribution for variance scaling initializer: {other}"))
                }
            }
        }
    })
}
