//! Arrays laid out over a mesh of chips (`jax.device_put(x, NamedSharding(mesh, P(...)))`,
//! `jax.lax.with_sharding_constraint`) and `jax.jit` of them.
//!
//! An array's value is the whole array, wherever it lives; its placement (the sharding, its
//! mesh and the layout on it) is kept beside it, by the array's identity, for as long as the
//! array lives. A jitted call whose arguments are placed on a mesh, or whose function
//! constrains a layout, is partitioned (`jaxlite::spmd`): each chip runs its blocks through
//! the per-chip program with the collectives between them (`jaxlite::mapped`, which the
//! executor times over the slice's links), and the results are placed as the partitioner laid
//! them out, as `NamedSharding`s JAX would report.

use super::shard_map::{block, join};
use super::value::Value;
use super::{Interp, RtError, R};
use jaxlite::mapped::Mesh;
use jaxlite::spmd::{self, Constraint, Spec};
use jaxlite::{Array, Jaxpr, Tensor};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

/// Where an array lives: its `NamedSharding` (the Python object), the mesh and the layout.
#[derive(Clone)]
pub(super) struct Placement {
    sharding: Value,
    mesh: Mesh,
    spec: Spec,
}

/// The placed arrays, by identity (held weakly: an entry goes when its array does), and the
/// Python mesh object of each mesh seen, for the shardings of results.
#[derive(Default)]
pub(super) struct Placements {
    arrays: HashMap<usize, (Weak<Array>, Placement)>,
    meshes: Vec<(Mesh, Value)>,
}

impl Placements {
    fn of(&self, tensor: &Tensor) -> Option<&Placement> {
        let Tensor::Concrete(a) = tensor else { return None };
        let (weak, placement) = self.arrays.get(&(Rc::as_ptr(a) as usize))?;
        (weak.upgrade().is_some_and(|b| Rc::ptr_eq(a, &b))).then_some(placement)
    }

    fn insert(&mut self, array: &Rc<Array>, placement: Placement) {
        // Forget the arrays that have gone, now and then, so the table stays the size of the
        // live placed arrays.
        if self.arrays.len() > 64 && self.arrays.len().is_power_of_two() {
            self.arrays.retain(|_, (w, _)| w.strong_count() > 0);
        }
        self.arrays.insert(Rc::as_ptr(array) as usize, (Rc::downgrade(array), placement));
    }

    fn mesh_value(&self, mesh: &Mesh) -> Option<Value> {
        self.meshes.iter().find(|(m, _)| m == mesh).map(|(_, v)| v.clone())
    }
}

impl Interp<'_, '_> {
    /// The mesh and layout a Python sharding describes, from its parts as `sharding.py` passes
    /// them: `(mesh, axis_names, axis_sizes, device_ids, spec_parts)`.
    fn mesh_and_spec(&mut self, parts: &[Value], what: &str) -> R<(Mesh, Spec)> {
        let [mesh_value, names, sizes, ids, spec] = parts else {
            return Err(RtError::new("internal error: a sharding is passed as 5 parts"));
        };
        let mesh = self.read_mesh(names, sizes, ids)?;
        let spec = Spec(self.entries(spec, &mesh, what)?);
        if self.placements.mesh_value(&mesh).is_none() {
            self.placements.meshes.push((mesh.clone(), mesh_value.clone()));
        }
        Ok((mesh, spec))
    }

    /// `_playground.place(x, sharding, mesh, axis_names, axis_sizes, device_ids, spec_parts)`:
    /// `x` as a new array placed as the sharding says (`jax.device_put`).
    pub(super) fn place(&mut self, args: Vec<Value>) -> R<Value> {
        let Some((x, rest)) = args.split_first() else { return Err(RtError::new("internal error: place takes x")) };
        let Some((sharding, parts)) = rest.split_first() else {
            return Err(RtError::new("internal error: place takes a sharding"));
        };
        let (mesh, spec) = self.mesh_and_spec(parts, "device_put's sharding")?;
        let tensor = self.to_tensor(x)?;
        let Some(value) = tensor.concrete() else {
            return super::unsupported("jax.device_put of a traced value onto a mesh is not supported by the playground yet (use jax.lax.with_sharding_constraint inside jit)");
        };
        let spec = spec.padded(value.aval.rank());
        spec.check(value.shape(), &mesh)
            .map_err(|e| RtError::of(super::objects::Builtin::ValueError, format!("device_put: {e}")))?;
        let array = Rc::new(value.clone());
        self.placements.insert(&array, Placement { sharding: sharding.clone(), mesh, spec });
        Ok(Value::Array(Tensor::Concrete(array)))
    }

    /// `_playground.placement(x)`: the sharding `x` was placed with, or None.
    pub(super) fn placement(&self, args: &[Value]) -> Value {
        match args.first() {
            Some(Value::Array(t)) => self.placements.of(t).map_or(Value::None, |p| p.sharding.clone()),
            _ => Value::None,
        }
    }

    /// `_playground.constrain(x, mesh_text, sharding, mesh, axis_names, axis_sizes, device_ids,
    /// spec_parts)`: `jax.lax.with_sharding_constraint` of one array. Under a trace it is a
    /// `sharding_constraint` equation; on a value, a placement like `device_put`'s.
    pub(super) async fn constrain(&mut self, args: Vec<Value>) -> R<Value> {
        let [x, mesh_text, rest @ ..] = &args[..] else {
            return Err(RtError::new("internal error: constrain takes x and the mesh's text"));
        };
        let tensor = self.to_tensor(x)?;
        if tensor.concrete().is_some() {
            let mut placed = vec![x.clone()];
            placed.extend(rest.iter().cloned());
            return self.place(placed);
        }
        let (mesh, spec) = self.mesh_and_spec(&rest[1..], "with_sharding_constraint's sharding")?;
        let spec = spec.padded(tensor.aval().rank());
        spec.check(&tensor.aval().shape, &mesh)
            .map_err(|e| RtError::of(super::objects::Builtin::ValueError, format!("with_sharding_constraint: {e}")))?;
        let constraint = Constraint { mesh, spec, unconstrained: vec![], mesh_text: super::value::to_str(mesh_text) };
        let prim = jaxlite::Primitive::ShardingConstraint { constraint: Rc::new(constraint) };
        let out = self.ctx.bind(prim, std::slice::from_ref(&tensor)).await?;
        Ok(Value::Array(out.into_iter().next().expect("one result")))
    }

    /// A jitted call's run over a mesh, when its arguments are placed on one or its function
    /// constrains a layout: the results, placed; `None` for an ordinary call on one chip.
    pub(super) async fn run_sharded(
        &mut self,
        name: &str,
        jaxpr: &Jaxpr,
        leaves: &[Tensor],
        inputs: &[Array],
    ) -> R<Option<Vec<Tensor>>> {
        let placed: Vec<Option<Placement>> = leaves.iter().map(|t| self.placements.of(t).cloned()).collect();
        let named = spmd::named_mesh(jaxpr).cloned();
        let Some(mesh) = placed.iter().flatten().map(|p| p.mesh.clone()).next().or(named) else {
            return Ok(None);
        };
        // Constants are on every chip; an argument that is not placed is too (JAX moves an
        // uncommitted array where the computation is).
        let consts = inputs.len() - leaves.len();
        let mut specs: Vec<Spec> = inputs[..consts].iter().map(|c| Spec::replicated(c.aval.rank())).collect();
        for (p, leaf) in placed.iter().zip(leaves) {
            specs.push(match p {
                None => Spec::replicated(leaf.aval().rank()),
                Some(p) => spmd::translate(&p.spec, &p.mesh, &mesh).ok_or_else(|| {
                    RtError::of(
                        super::objects::Builtin::ValueError,
                        format!(
                            "the arguments of {name} are placed on meshes that lay out the devices differently; one jitted call on two meshes is not supported by the playground yet"
                        ),
                    )
                })?,
            });
        }
        let partitioned = spmd::partition(jaxpr, &mesh, &specs)?;
        let mut per_device: Vec<Vec<Array>> = vec![Vec::with_capacity(inputs.len()); mesh.devices.len()];
        for (value, spec) in inputs.iter().zip(&specs) {
            for (device, blocks) in per_device.iter_mut().enumerate() {
                blocks.push(block(value, &spec.0, &mesh, device, name)?);
            }
        }
        let outputs = jaxlite::mapped::run(self.ctx, name, &partitioned.jaxpr, per_device, &mesh).await?;
        let mesh_value =
            self.placements.mesh_value(&mesh).ok_or_else(|| RtError::new("internal error: an unknown mesh"))?;
        let mut results = Vec::new();
        for (i, spec) in partitioned.outputs.iter().enumerate() {
            let blocks: Vec<&Array> = outputs.iter().map(|device| &device[i]).collect();
            let mut out = join(&blocks, &spec.0, &mesh)?;
            out.aval.weak_type = jaxpr.atom_aval(&jaxpr.outvars[i]).weak_type;
            let array = Rc::new(out);
            let sharding = self.named_sharding(&mesh_value, spec, &mesh).await?;
            self.placements.insert(&array, Placement { sharding, mesh: mesh.clone(), spec: spec.clone() });
            results.push(Tensor::Concrete(array));
        }
        Ok(Some(results))
    }

    /// `NamedSharding(mesh, P(...))` for a layout, made by `jax.sharding` itself.
    async fn named_sharding(&mut self, mesh_value: &Value, spec: &Spec, mesh: &Mesh) -> R<Value> {
        // JAX drops the trailing whole axes from a result's spec: P('y',), not P('y', None).
        let mut names = spec.names(mesh);
        while names.last().is_some_and(|n| n.is_empty()) {
            names.pop();
        }
        let parts = names
            .into_iter()
            .map(|n| match n.len() {
                0 => Value::None,
                1 => Value::str(&n[0]),
                _ => Value::tuple(n.iter().map(|s| Value::str(s)).collect()),
            })
            .collect();
        let module = self.import("jax.sharding").await?;
        let make = self.get_attr(&module, "_named").await?;
        self.call(make, vec![mesh_value.clone(), Value::list(parts)], vec![]).await
    }
}
