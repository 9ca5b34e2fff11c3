//! `jax.shard_map`'s native half (`_playground.shard_map_run`; the Python half in
//! `crates/pylib/python/jax/sharding.py` flattens the arguments and reads the specs).
//!
//! Every device of the mesh gets its block of each argument: along an array axis whose spec
//! entry names mesh axes, the block its coordinates on those axes pick (the first name major);
//! whole along the others. The function is traced once on device 0's blocks with every mesh
//! axis bound to its size, run on each device by `jaxlite::mapped` (collectives over a mesh
//! axis reach the devices that differ only along it), and each result's blocks are placed into
//! one array as its out spec says, from the devices at coordinate 0 of the mesh axes the spec
//! does not name.

use super::objects::Builtin;
use super::tracer_errors::TracedFor;
use super::transforms::{Arg, TraceOf};
use super::value::{repr, Value};
use super::{Interp, RtError, R};
use jaxlite::mapped::Mesh;
use jaxlite::spmd::{ShardMapCall, Spec};
use jaxlite::{eval, Array, Aval, Precision, Primitive, Tensor};

/// One array axis's spec entry: the mesh axes (by index) it is split over, the first major.
type Entry = Vec<usize>;

impl Interp<'_, '_> {
    /// `shard_map_run(call, name, axis_names, axis_sizes, device_ids, leaves, parts, out_parts)`.
    pub(super) async fn shard_map_run(&mut self, args: Vec<Value>) -> R<Value> {
        let [call, name, names, sizes, ids, leaves, parts, out_parts] = <[Value; 8]>::try_from(args)
            .map_err(|_| RtError::new("internal error: shard_map_run takes 8 arguments"))?;
        let name = super::value::to_str(&name);
        let mesh = self.read_mesh(&names, &sizes, &ids)?;
        let leaves = self.iterate(&leaves)?;
        let in_specs: Vec<Vec<Entry>> =
            self.iterate(&parts)?.iter().map(|p| self.entries(p, &mesh, "in_specs")).collect::<R<_>>()?;
        if self.ctx.is_tracing() {
            return self.shard_map_staged(call, name, mesh, leaves, in_specs, out_parts).await;
        }
        // Every device's block of every argument, on the host.
        let count = mesh.devices.len();
        let mut per_device: Vec<Vec<Array>> = vec![Vec::with_capacity(leaves.len()); count];
        let mut trees = Vec::new();
        for (leaf, spec) in leaves.iter().zip(&in_specs) {
            let tensor = self.to_tensor(leaf)?;
            trees.push(self.flatten(leaf, &mut Vec::new()).await?);
            let Some(value) = tensor.concrete() else {
                return super::unsupported("jax.shard_map of a traced value is not supported by the playground yet");
            };
            if spec.len() > value.aval.rank() {
                return super::value_err(format!(
                    "shard_map in_specs has {} entries for an argument of rank {} (shape {:?})",
                    spec.len(),
                    value.aval.rank(),
                    value.shape()
                ));
            }
            for (device, blocks) in per_device.iter_mut().enumerate() {
                blocks.push(block(value, spec, &mesh, device, &name)?);
            }
        }
        let avals = per_device[0].iter().map(|a| a.aval.clone()).collect();
        let call_args: Vec<Arg> = trees.iter().map(Arg::Traced).collect();
        let bound = mesh.names.iter().cloned().zip(mesh.sizes.iter().copied());
        let depth = self.axis_env.len();
        self.axis_env.extend(bound);
        let traced =
            self.trace_call_with(&call, TracedFor::Named("shard_map"), TraceOf::Types(avals), call_args, &[]).await;
        self.axis_env.truncate(depth);
        let traced = traced?;
        let consts: Vec<Array> = traced
            .closed
            .iter()
            .map(|t| t.concrete().cloned().ok_or_else(|| RtError::new("internal error: a constant has no value")))
            .collect::<R<_>>()?;
        let inputs = per_device.into_iter().map(|blocks| consts.iter().cloned().chain(blocks).collect()).collect();
        let outputs = jaxlite::mapped::run(self.ctx, &name, &traced.jaxpr, inputs, &mesh).await?;
        // The results' specs, read against their structure.
        let placeholder = Tensor::from(jaxlite::numpy::full(&[], 0.0, jaxlite::DType::F32));
        let probe = self.unflatten_tensors(&traced.out_tree, std::iter::repeat(placeholder)).await?;
        let found = self.call(out_parts, vec![probe], vec![]).await?;
        let out_specs: Vec<Vec<Entry>> =
            self.iterate(&found)?.iter().map(|p| self.entries(p, &mesh, "out_specs")).collect::<R<_>>()?;
        let mut placed = Vec::new();
        for (i, spec) in out_specs.iter().enumerate() {
            let blocks: Vec<&Array> = outputs.iter().map(|device| &device[i]).collect();
            let mut out = join(&blocks, spec, &mesh)?;
            out.aval.weak_type = traced.jaxpr.atom_aval(&traced.jaxpr.outvars[i]).weak_type;
            placed.push(Value::Array(Tensor::from(out)));
        }
        self.unflatten_tree(&traced.out_tree, &mut placed.into_iter()).await
    }

    /// `shard_map` called inside `jit`: one `shard_map` equation holding the function traced on
    /// a chip's block types, which the partitioner places when the jitted call runs.
    async fn shard_map_staged(
        &mut self,
        call: Value,
        name: String,
        mesh: Mesh,
        leaves: Vec<Value>,
        in_specs: Vec<Vec<Entry>>,
        out_parts: Value,
    ) -> R<Value> {
        if !self.axis_env.is_empty() {
            return super::unsupported(
                "jax.shard_map inside jax.pmap or another shard_map is not supported by the playground yet",
            );
        }
        let mut tensors = Vec::new();
        let mut trees = Vec::new();
        let mut avals = Vec::new();
        let mut specs = Vec::new();
        for (leaf, spec) in leaves.iter().zip(&in_specs) {
            let tensor = self.to_tensor(leaf)?;
            trees.push(self.flatten(leaf, &mut Vec::new()).await?);
            let global = tensor.aval().clone();
            if spec.len() > global.rank() {
                return super::value_err(format!(
                    "shard_map in_specs has {} entries for an argument of rank {} (shape {:?})",
                    spec.len(),
                    global.rank(),
                    global.shape
                ));
            }
            let spec = Spec(spec.clone()).padded(global.rank());
            spec.check(&global.shape, &mesh).map_err(|e| {
                RtError::of(Builtin::ValueError, format!("shard_map applied to the function '{name}': {e}"))
            })?;
            avals.push(Aval { shape: spec.local_shape(&global.shape, &mesh), ..global });
            specs.push(spec);
            tensors.push(tensor);
        }
        let call_args: Vec<Arg> = trees.iter().map(Arg::Traced).collect();
        let depth = self.axis_env.len();
        self.axis_env.extend(mesh.names.iter().cloned().zip(mesh.sizes.iter().copied()));
        let traced =
            self.trace_call_with(&call, TracedFor::Named("shard_map"), TraceOf::Types(avals), call_args, &[]).await;
        self.axis_env.truncate(depth);
        let traced = traced?;
        let placeholder = Tensor::from(jaxlite::numpy::full(&[], 0.0, jaxlite::DType::F32));
        let probe = self.unflatten_tensors(&traced.out_tree, std::iter::repeat(placeholder)).await?;
        let found = self.call(out_parts, vec![probe], vec![]).await?;
        let out_specs: Vec<Spec> =
            self.iterate(&found)?.iter().map(|p| Ok(Spec(self.entries(p, &mesh, "out_specs")?))).collect::<R<_>>()?;
        let mut inputs = traced.closed.clone();
        inputs.extend(tensors);
        let function = ShardMapCall { name, body: traced.jaxpr, mesh, in_specs: specs, out_specs };
        let outs = self.ctx.bind(Primitive::ShardMap { function: std::rc::Rc::new(function) }, &inputs).await?;
        self.unflatten_tensors(&traced.out_tree, outs).await
    }

    /// A mesh from its axis names, sizes and device ids as `sharding.py` passes them, checked
    /// against the emulated machine's chips.
    pub(super) fn read_mesh(&mut self, names: &Value, sizes: &Value, ids: &Value) -> R<Mesh> {
        let mut mesh = Mesh { names: Vec::new(), sizes: Vec::new(), devices: Vec::new() };
        for n in self.iterate(names)? {
            mesh.names.push(super::value::to_str(&n));
        }
        for s in self.iterate(sizes)? {
            mesh.sizes.push(super::jax::int_arg(&s)? as usize);
        }
        for d in self.iterate(ids)? {
            mesh.devices.push(super::jax::int_arg(&d)? as u32);
        }
        let available = self.ctx.device_coords().len() as u32;
        if let Some(d) = mesh.devices.iter().find(|&&d| d >= available) {
            return super::value_err(format!(
                "the mesh names device {d}, but the emulated machine has {available} chip{}: choose a slice with more (--machine v5e-8, or the page's machine menu)",
                if available == 1 { "" } else { "s" }
            ));
        }
        Ok(mesh)
    }

    /// A spec's entries as mesh axis indices.
    pub(super) fn entries(&self, parts: &Value, mesh: &Mesh, which: &str) -> R<Vec<Entry>> {
        let axis = |n: &Value| -> R<usize> {
            let name = super::value::to_str(n);
            mesh.names.iter().position(|m| *m == name).ok_or_else(|| {
                RtError::of(
                    Builtin::ValueError,
                    format!(
                        "shard_map {which} refer to the mesh axis {}, which the mesh ({}) does not have",
                        repr(n),
                        mesh.names.join(", ")
                    ),
                )
            })
        };
        let mut out = Vec::new();
        for entry in self.iterate(parts)? {
            out.push(match &entry {
                Value::None => vec![],
                Value::Str(_) => vec![axis(&entry)?],
                other => self.iterate(other)?.iter().map(axis).collect::<R<_>>()?,
            });
        }
        Ok(out)
    }
}

/// Which block a device holds along an axis split over `entry`, and how many there are.
fn block_index(entry: &Entry, mesh: &Mesh, device: usize) -> (usize, usize) {
    let coords = mesh.coords(device);
    entry.iter().fold((0, 1), |(index, count), &a| (index * mesh.sizes[a] + coords[a], count * mesh.sizes[a]))
}

/// Device `device`'s block of `x`.
pub(super) fn block(x: &Array, spec: &[Entry], mesh: &Mesh, device: usize, name: &str) -> R<Array> {
    let mut start = vec![0; x.shape().len()];
    let mut limit = x.shape().to_vec();
    for (axis, entry) in spec.iter().enumerate() {
        let (index, count) = block_index(entry, mesh, device);
        let size = x.shape()[axis];
        if !size.is_multiple_of(count) {
            return super::value_err(format!(
                "shard_map applied to the function '{name}' was given an argument of shape {:?} whose axis {axis} ({size}) is not evenly divisible by the {count} blocks its spec asks for",
                x.shape()
            ));
        }
        let len = size / count;
        start[axis] = index * len;
        limit[axis] = (index + 1) * len;
    }
    Ok(eval::apply(
        &Primitive::Slice { start_indices: start, limit_indices: limit, strides: None },
        std::slice::from_ref(x),
        Precision::Highest,
    )?)
}

/// One array from every device's block: each placed where its coordinates on the spec's mesh
/// axes say, taken from the devices at coordinate 0 of the other mesh axes.
pub(super) fn join(blocks: &[&Array], spec: &[Entry], mesh: &Mesh) -> R<Array> {
    let first = blocks[0];
    if spec.len() > first.aval.rank() {
        return super::value_err(format!(
            "shard_map out_specs has {} entries for a result of rank {} (shape {:?})",
            spec.len(),
            first.aval.rank(),
            first.shape()
        ));
    }
    let named: Vec<usize> = spec.iter().flatten().copied().collect();
    let mut shape = first.shape().to_vec();
    for (axis, entry) in spec.iter().enumerate() {
        shape[axis] *= entry.iter().map(|&a| mesh.sizes[a]).product::<usize>();
    }
    let size: usize = shape.iter().product();
    let mut out = Array::from_f32(shape, vec![0.0; size]).astype(first.dtype());
    for (device, b) in blocks.iter().enumerate() {
        let coords = mesh.coords(device);
        if coords.iter().enumerate().any(|(a, &c)| c != 0 && !named.contains(&a)) {
            continue;
        }
        let mut operands = vec![out, (*b).clone()];
        for axis in 0..first.aval.rank() {
            let index = spec.get(axis).map_or(0, |entry| block_index(entry, mesh, device).0);
            let offset = index * first.shape()[axis];
            operands.push(Array::new(vec![], jaxlite::Data::I32(vec![offset as i32])));
        }
        out = eval::apply(&Primitive::DynamicUpdateSlice, &operands, Precision::Highest)?;
    }
    Ok(out)
}
