//! `jax.pmap` and the collectives over its axis (`lax.psum`, `pmean`, `pmax`, `pmin`,
//! `all_gather`, `psum_scatter`, `ppermute`, `all_to_all`, `axis_index`).
//!
//! A pmapped function is traced once per signature on one chip's share of the arguments, with
//! its axis name bound to the number of chips (so a collective knows its axis); then
//! `jaxlite::mapped::run` runs the trace on each of the slice's first chips, each on its own
//! slice of the mapped arguments, the collectives between them. The arguments are split and
//! the results stacked on the host, as JAX's pmap shards its inputs over the devices and
//! gathers the result's shards into one array.

use super::builtins::{arity, no_more_kwargs, take_kwarg};
use super::jax::Tree;
use super::objects::Builtin;
use super::tracer_errors::TracedFor;
use super::transforms::{Arg, TraceOf};
use super::value::{repr, Native, Value};
use super::{err, Interp, RtError, R};
use jaxlite::collective::CollectiveOp;
use jaxlite::numpy as jnp;
use jaxlite::{Array, LocalFuture, Primitive, Tensor};

/// `jax.pmap(f, axis_name, in_axes=0, out_axes=0, static_broadcasted_argnums=())`.
pub struct Pmapped {
    pub func: Value,
    pub axis_name: Option<String>,
    pub in_axes: Value,
    pub out_axes: Value,
    pub static_argnums: Vec<usize>,
}

/// The collectives `jax.lax` offers.
pub const LAX_COLLECTIVES: &[&str] =
    &["psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all", "axis_index"];

impl Interp<'_, '_> {
    /// `jax.pmap(...)`: the mapped function (or, without a function, a decorator taking one).
    pub(super) fn make_pmapped(&mut self, args: Vec<Value>, mut kwargs: Vec<(String, Value)>) -> R<Value> {
        let mut args = args;
        super::builtins::by_position("pmap", &mut args, &mut kwargs, &["fun", "axis_name"])?;
        let axis_name = match take_kwarg(&mut kwargs, "axis_name").or_else(|| args.get(1).cloned()) {
            None | Some(Value::None) => None,
            Some(Value::Str(s)) => Some(s.to_string()),
            Some(other) => {
                return super::unsupported(format!(
                    "jax.pmap axis_name {} is not supported by the playground yet (a string names the axis)",
                    repr(&other)
                ))
            }
        };
        let in_axes = take_kwarg(&mut kwargs, "in_axes").unwrap_or(Value::Int(0));
        let out_axes = take_kwarg(&mut kwargs, "out_axes").unwrap_or(Value::Int(0));
        let static_argnums = match take_kwarg(&mut kwargs, "static_broadcasted_argnums") {
            None | Some(Value::None) => vec![],
            Some(Value::Int(i)) => vec![i as usize],
            Some(Value::Tuple(t)) => t.iter().map(|v| super::jax::int_arg(v).map(|i| i as usize)).collect::<R<_>>()?,
            Some(Value::List(l)) => {
                l.borrow().iter().map(|v| super::jax::int_arg(v).map(|i| i as usize)).collect::<R<_>>()?
            }
            Some(other) => {
                return err(format!(
                    "static_broadcasted_argnums must be an int or a tuple of ints, got {}",
                    repr(&other)
                ))
            }
        };
        // What JAX accepts and the playground can honour by doing nothing: the devices are the
        // slice's first ones, there is one backend, and inputs are never donated here.
        for name in ["devices", "backend", "donate_argnums", "axis_size", "global_arg_shapes"] {
            if let Some(v) = take_kwarg(&mut kwargs, name) {
                let harmless = matches!(v, Value::None)
                    || (name == "donate_argnums" && matches!(&v, Value::Tuple(t) if t.is_empty()));
                if !harmless {
                    return super::unsupported(format!("jax.pmap {name}= is not supported by the playground yet"));
                }
            }
        }
        no_more_kwargs("pmap", &kwargs)?;
        arity("pmap", &args, 0, 2)?;
        let pmapped =
            |func| Value::native(Native::Pmapped(Pmapped { func, axis_name, in_axes, out_axes, static_argnums }));
        match args.into_iter().next() {
            Some(func) if !matches!(func, Value::None) => Ok(pmapped(func)),
            // `@partial(jax.pmap, axis_name='i')` passes the function later; `jax.pmap(axis_name=
            // 'i')` without one is JAX's error.
            _ => err("pmap() missing 1 required positional argument: 'fun'"),
        }
    }

    pub(super) fn call_pmapped<'a>(
        &'a mut self,
        p: &'a Pmapped,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if self.ctx.is_tracing() {
                return super::unsupported(
                    "calling a jax.pmap function inside jit, grad or vmap is not supported by the playground yet (call it at the top level)",
                );
            }
            if !kwargs.is_empty() {
                return super::unsupported(
                    "keyword arguments to a jax.pmap function are not supported by the playground yet",
                );
            }
            let dynamic: Vec<usize> = (0..args.len()).filter(|i| !p.static_argnums.contains(i)).collect();
            let specs: Vec<Value> = match &p.in_axes {
                Value::Tuple(_) | Value::List(_) => {
                    let spec = match &p.in_axes {
                        Value::Tuple(t) => t.to_vec(),
                        Value::List(l) => l.borrow().clone(),
                        _ => vec![],
                    };
                    if spec.len() == args.len() {
                        dynamic.iter().map(|&i| spec[i].clone()).collect()
                    } else if spec.len() == dynamic.len() {
                        spec
                    } else {
                        return super::value_err(format!(
                            "pmap in_axes specification must be a tree prefix of the corresponding value, got specification {} for value tree of {} arguments",
                            repr(&p.in_axes),
                            dynamic.len()
                        ));
                    }
                }
                other => vec![other.clone(); dynamic.len()],
            };
            // Leaves of the dynamic arguments, each with its mapped axis (or none).
            let mut leaves = Vec::new();
            let mut axes = Vec::new();
            let mut trees = Vec::new();
            for (&i, spec) in dynamic.iter().zip(&specs) {
                trees.push(self.flatten(&args[i], &mut leaves).await?);
                self.leaf_axes(&args[i], spec, &mut axes, 0).await?;
            }
            let mut size: Option<usize> = None;
            let mut mapped_axes = Vec::new();
            for (leaf, axis) in leaves.iter().zip(&axes) {
                let Some(a) = axis else {
                    mapped_axes.push(None);
                    continue;
                };
                let rank = leaf.aval().rank();
                let axis = jnp::normalize_axes(Some(&[*a]), rank).map_err(|_| {
                    RtError::of(
                        Builtin::ValueError,
                        format!(
                            "pmap was requested to map its argument along axis {a}, which implies that its rank should be at least {}, but is only {rank} (its shape is {})",
                            a + 1,
                            jnp::shape_str(&leaf.aval().shape)
                        ),
                    )
                })?[0];
                let n = leaf.aval().shape[axis];
                if size.is_some_and(|s| s != n) {
                    return super::value_err(format!(
                        "pmap got inconsistent sizes for array axes to be mapped: {} and {n}",
                        size.unwrap_or_default()
                    ));
                }
                size = Some(n);
                mapped_axes.push(Some(axis));
            }
            let Some(chips) = size else {
                return super::value_err("pmap requires at least one argument with a mapped axis");
            };
            let devices = self.ctx.device_coords().len();
            if chips > devices {
                return super::value_err(format!(
                    "compiling computation that requires {chips} logical devices, but only {devices} XLA devices are available (num_replicas={chips}); the emulated machine has {devices} chip{}: choose a slice with more (--machine v5e-8, or the page's machine menu)",
                    if devices == 1 { "" } else { "s" }
                ));
            }
            if chips == 0 {
                return super::value_err("pmap cannot map over an axis of size 0");
            }
            // Every chip's share of every leaf, on the host.
            let mut per_chip: Vec<Vec<Array>> = vec![Vec::with_capacity(leaves.len()); chips];
            for (leaf, axis) in leaves.iter().zip(&mapped_axes) {
                let Some(value) = leaf.concrete() else {
                    return super::unsupported("jax.pmap of a traced value is not supported by the playground yet");
                };
                for (chip, shares) in per_chip.iter_mut().enumerate() {
                    shares.push(match axis {
                        Some(axis) => jaxlite::collective::part(value, *axis, chip, chips, false)?,
                        None => value.clone(),
                    });
                }
            }
            // Trace on chip 0's share, the axis name bound to the number of chips.
            let avals = per_chip[0].iter().map(|a| a.aval.clone()).collect();
            let mut tree_iter = trees.iter();
            let call_args: Vec<Arg> = (0..args.len())
                .map(|i| match p.static_argnums.contains(&i) {
                    true => Arg::Fixed(args[i].clone()),
                    false => Arg::Traced(tree_iter.next().expect("a tree per dynamic argument")),
                })
                .collect();
            let name = format!("pmap_{}", super::jax::function_name(&p.func));
            let axis = p.axis_name.clone().unwrap_or_else(|| "_pmap_axis".to_string());
            self.axis_env.push((axis, chips));
            let traced =
                self.trace_call_with(&p.func, TracedFor::Named("pmap"), TraceOf::Types(avals), call_args, &[]).await;
            self.axis_env.pop();
            let traced = traced?;
            let consts: Vec<Array> = traced
                .closed
                .iter()
                .map(|t| {
                    t.concrete().cloned().ok_or_else(|| RtError::new("internal error: a pmap constant has no value"))
                })
                .collect::<R<_>>()?;
            let inputs: Vec<Vec<Array>> =
                per_chip.into_iter().map(|shares| consts.iter().cloned().chain(shares).collect()).collect();
            let mesh = jaxlite::mapped::Mesh {
                names: vec![p.axis_name.clone().unwrap_or_else(|| "_pmap_axis".to_string())],
                sizes: vec![chips],
                devices: (0..chips as u32).collect(),
            };
            let outputs = jaxlite::mapped::run(self.ctx, &name, &traced.jaxpr, inputs, &mesh).await?;
            // Each output leaf stacked over the chips along its out axis.
            let placeholder = Tensor::from(jnp::full(&[], 0.0, jaxlite::DType::F32));
            let probe = self.unflatten_tensors(&traced.out_tree, std::iter::repeat(placeholder)).await?;
            let mut out_axes = Vec::new();
            self.leaf_axes(&probe, &p.out_axes, &mut out_axes, 0).await?;
            let mut placed = Vec::new();
            for (i, (axis, atom)) in out_axes.iter().zip(&traced.jaxpr.outvars).enumerate() {
                let shares: Vec<Array> = outputs.iter().map(|chip| chip[i].clone()).collect();
                let weak = traced.jaxpr.atom_aval(atom).weak_type;
                let mut out = match axis {
                    // JAX returns one chip's value (the program promises they agree).
                    None => shares[0].clone(),
                    Some(a) => {
                        let rank = shares[0].aval.rank() + 1;
                        let to = jnp::normalize_axes(Some(&[*a]), rank)?[0];
                        jaxlite::collective::join(shares, to, false)?
                    }
                };
                out.aval.weak_type = weak;
                placed.push(Value::Array(Tensor::from(out)));
            }
            self.unflatten_tree(&traced.out_tree, &mut placed.into_iter()).await
        })
    }

    /// The axis `name` of an enclosing `pmap`: its size, or JAX's `NameError`.
    fn axis_size(&self, primitive: &str, name: &Value) -> R<(String, usize)> {
        let name = match name {
            Value::Str(s) => s.to_string(),
            Value::Tuple(t) if t.len() == 1 => match &t[0] {
                Value::Str(s) => s.to_string(),
                other => return err(format!("an axis name must be a string, got {}", repr(other))),
            },
            Value::Tuple(_) | Value::List(_) => {
                return super::unsupported(format!(
                    "{primitive} over several axes at once is not supported by the playground yet"
                ))
            }
            other => return err(format!("an axis name must be a string, got {}", repr(other))),
        };
        match self.axis_env.iter().rev().find(|(n, _)| *n == name) {
            Some((_, size)) => Ok((name, *size)),
            None => super::exceptions::raise(
                Builtin::NameError,
                format!(
                    "Found an unbound axis name: {name}. To fix this, please call {primitive} under `jax.shard_map`."
                ),
            ),
        }
    }

    /// `lax.psum(x, axis_name)` and the other collectives.
    pub(super) fn call_collective<'a>(
        &'a mut self,
        name: &'a str,
        args: Vec<Value>,
        mut kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let mut args = args;
            let positional: &[&str] = match name {
                "axis_index" => &["axis_name"],
                "ppermute" => &["x", "axis_name", "perm"],
                "all_to_all" => &["x", "axis_name", "split_axis", "concat_axis"],
                _ => &["x", "axis_name"],
            };
            super::builtins::by_position(name, &mut args, &mut kwargs, positional)?;
            // Over several axes at once: one axis after another (a sum, max or min over the
            // devices that differ along any of them), the position numbered first axis major.
            let axis_at = positional.iter().position(|p| *p == "axis_name").unwrap_or(1);
            let several = match args.get(axis_at) {
                Some(Value::Tuple(t)) if t.len() > 1 => Some(t.to_vec()),
                Some(Value::List(l)) if l.borrow().len() > 1 => Some(l.borrow().clone()),
                _ => None,
            };
            if let Some(names) = several {
                return match name {
                    "psum" | "pmax" | "pmin" | "pmean" if kwargs.is_empty() => {
                        let each = if name == "pmean" { "psum" } else { name };
                        let mut x = args[0].clone();
                        let mut total = 1;
                        for n in &names {
                            total *= self.axis_size(name, n)?.1;
                            x = self.call_collective(each, vec![x, n.clone()], vec![]).await?;
                        }
                        if name == "pmean" {
                            let mut values = Vec::new();
                            let tree: Tree = self.tree_of(&x, None, &mut values).await?;
                            let mut outs = Vec::new();
                            for v in values {
                                outs.push(self.call_jnp("divide", vec![v, Value::Int(total as i64)], vec![]).await?);
                            }
                            x = self.unflatten_tree(&tree, &mut outs.into_iter()).await?;
                        }
                        Ok(x)
                    }
                    "axis_index" => {
                        let mut index = Value::Int(0);
                        for n in &names {
                            let size = self.axis_size(name, n)?.1;
                            let here = self.call_collective("axis_index", vec![n.clone()], vec![]).await?;
                            let scaled =
                                self.call_jnp("multiply", vec![index, Value::Int(size as i64)], vec![]).await?;
                            index = self.call_jnp("add", vec![scaled, here], vec![]).await?;
                        }
                        Ok(index)
                    }
                    _ => super::unsupported(format!(
                        "{name} over several axes at once is not supported by the playground yet"
                    )),
                };
            }
            if let Some(groups) = take_kwarg(&mut kwargs, "axis_index_groups") {
                if !matches!(groups, Value::None) {
                    return super::unsupported(format!(
                        "{name} with axis_index_groups is not supported by the playground yet"
                    ));
                }
            }
            let int_kwarg = |kwargs: &mut Vec<(String, Value)>, key: &str, default: i64| -> R<i64> {
                match take_kwarg(kwargs, key) {
                    Some(v) => super::jax::int_arg(&v),
                    None => Ok(default),
                }
            };
            let tiled = match take_kwarg(&mut kwargs, "tiled") {
                Some(v) => self.truthy(&v)?,
                None => false,
            };
            let op = match name {
                "psum" | "pmean" => CollectiveOp::Psum,
                "pmax" => CollectiveOp::Pmax,
                "pmin" => CollectiveOp::Pmin,
                "axis_index" => CollectiveOp::AxisIndex,
                "all_gather" => {
                    CollectiveOp::AllGather { dimension: int_kwarg(&mut kwargs, "axis", 0)? as usize, tiled }
                }
                "psum_scatter" => CollectiveOp::ReduceScatter {
                    dimension: int_kwarg(&mut kwargs, "scatter_dimension", 0)? as usize,
                    tiled,
                },
                "all_to_all" => {
                    arity(name, &args, 4, 4)?;
                    CollectiveOp::AllToAll {
                        split_axis: super::jax::int_arg(&args[2])? as usize,
                        concat_axis: super::jax::int_arg(&args[3])? as usize,
                        tiled,
                    }
                }
                "ppermute" => {
                    arity(name, &args, 3, 3)?;
                    let mut perm = Vec::new();
                    for pair in self.iterate(&args[2])? {
                        let items = self.iterate(&pair)?;
                        let [s, d] = items.as_slice() else {
                            return err(format!(
                                "ppermute perm entries must be (source, destination) pairs, got {}",
                                repr(&pair)
                            ));
                        };
                        perm.push((super::jax::int_arg(s)? as usize, super::jax::int_arg(d)? as usize));
                    }
                    CollectiveOp::Ppermute { perm }
                }
                _ => return err(format!("jax.lax.{name} is not a collective")),
            };
            no_more_kwargs(name, &kwargs)?;
            let expected = if name == "axis_index" { 1 } else { 2 };
            if !matches!(op, CollectiveOp::AllToAll { .. } | CollectiveOp::Ppermute { .. }) {
                arity(name, &args, expected, expected)?;
            }
            let (axis_name, axis_size) = self.axis_size(name, &args[expected - 1])?;
            let prim = |op: CollectiveOp| Primitive::Collective { op, axis_name: axis_name.clone(), axis_size };
            if let CollectiveOp::AxisIndex = op {
                let out = self.ctx.bind(prim(op), &[]).await?;
                return Ok(Value::Array(out.into_iter().next().expect("one output")));
            }
            // Leaf by leaf; a Python number summed over the axis is known without the chips
            // meeting (JAX's `psum(1, 'i')` is the axis size).
            let mut values = Vec::new();
            let tree: Tree = self.tree_of(&args[0], None, &mut values).await?;
            let mut outs = Vec::new();
            for leaf in values {
                let out = match (&op, &leaf) {
                    (CollectiveOp::Psum, Value::Int(i)) if name == "psum" => Value::Int(i * axis_size as i64),
                    (CollectiveOp::Psum, Value::Float(f)) if name == "psum" => Value::Float(f * axis_size as f64),
                    (CollectiveOp::Pmax | CollectiveOp::Pmin, Value::Int(_) | Value::Float(_)) => leaf.clone(),
                    _ => {
                        let x = self.to_tensor(&leaf)?;
                        let out = self.ctx.bind(prim(op.clone()), &[x]).await?.remove(0);
                        Value::Array(out)
                    }
                };
                outs.push(out);
            }
            // `pmean` is JAX's `psum(x) / psum(1)`: every leaf summed, then each divided.
            if name == "pmean" {
                for out in outs.iter_mut() {
                    *out = self.call_jnp("divide", vec![out.clone(), Value::Int(axis_size as i64)], vec![]).await?;
                }
            }
            self.unflatten_tree(&tree, &mut outs.into_iter()).await
        })
    }
}
