//! The SPMD partitioner: a program written for whole arrays (a `jit`ted function), given how
//! its inputs lie over a mesh of chips, rewritten as the one program every chip runs on its own
//! blocks, with the collectives between them. It is what XLA's sharding propagation and SPMD
//! partitioner (GSPMD) do for `jax.jit` of sharded arrays, in its simplest form:
//!
//! - Layouts flow forward, equation by equation ("computation follows data"): an elementwise
//!   operation takes its most split operand's layout, a matmul keeps its operands' batch and
//!   free axes split and sums its partial products over the mesh axes its contracting axes are
//!   split over (`psum`), a reduction over a split axis reduces the blocks and then across
//!   chips, a transpose or reshape carries the split along with the axis it moves.
//! - An operand whose layout the rule cannot use is first changed to one it can: an axis a chip
//!   holds whole is cut to its block locally (`axis_index`, `dynamic_slice`: no traffic); an
//!   axis split another way is gathered (`all_gather`) and then cut.
//! - What no rule knows (gathers, scatters, sorts, loops, branches, random numbers, custom
//!   derivatives) runs on whole arrays: its operands are gathered and every chip computes it.
//! - `sharding_constraint` equations (`jax.lax.with_sharding_constraint`) change a value's
//!   layout where they stand; `shard_map` equations place their per-chip function inline.
//!
//! Left out, as the docs say: XLA's backward propagation (a constraint does not reach back
//! to the equations before it), reduce-scatter in place of an all-reduce before a split, and
//! all-to-all in place of a gather and a cut.

use crate::array::Aval;
use crate::collective::CollectiveOp;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Literal, Var};
use crate::mapped::Mesh;
use crate::prim::{BinaryOp, Primitive};
use crate::JaxError;
use std::collections::HashMap;

/// How an array lies over a mesh: for each of its axes, the mesh axes (by index) it is split
/// over, the first major. Mesh axes that no array axis names hold copies (replicas).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Spec(pub Vec<Vec<usize>>);

impl Spec {
    /// Whole on every chip.
    pub fn replicated(rank: usize) -> Spec {
        Spec(vec![vec![]; rank])
    }

    fn uses(&self, axis: usize) -> bool {
        self.0.iter().any(|e| e.contains(&axis))
    }

    /// How many blocks array axis `d` is cut into.
    pub fn blocks(&self, d: usize, mesh: &Mesh) -> usize {
        self.0[d].iter().map(|&a| mesh.sizes[a]).product()
    }

    /// Each chip's block shape of an array of `shape`.
    pub fn local_shape(&self, shape: &[usize], mesh: &Mesh) -> Vec<usize> {
        shape.iter().enumerate().map(|(d, &n)| n / self.blocks(d, mesh)).collect()
    }

    /// Which block (along each array axis) the chip at mesh position `device` holds.
    pub fn block_of(&self, device: usize, mesh: &Mesh) -> Vec<usize> {
        let coords = mesh.coords(device);
        self.0.iter().map(|e| e.iter().fold(0, |i, &a| i * mesh.sizes[a] + coords[a])).collect()
    }

    /// The layout as mesh axis names, for messages and for `PartitionSpec`s.
    pub fn names(&self, mesh: &Mesh) -> Vec<Vec<String>> {
        self.0.iter().map(|e| e.iter().map(|&a| mesh.names[a].clone()).collect()).collect()
    }

    /// Checks that the layout fits an array of `shape` on `mesh`: one entry per axis, each mesh
    /// axis named once, each axis cut into equal blocks.
    pub fn check(&self, shape: &[usize], mesh: &Mesh) -> Result<(), String> {
        if self.0.len() > shape.len() {
            return Err(format!("a sharding with {} entries for an array of rank {}", self.0.len(), shape.len()));
        }
        for a in 0..mesh.sizes.len() {
            if self.0.iter().flatten().filter(|&&b| b == a).count() > 1 {
                return Err(format!("the mesh axis '{}' names more than one array axis", mesh.names[a]));
            }
        }
        for (d, &n) in shape.iter().enumerate().take(self.0.len()) {
            let blocks = self.blocks(d, mesh);
            if !n.is_multiple_of(blocks) {
                return Err(format!(
                    "axis {d} of an array of shape {shape:?} ({n}) does not split into {blocks} equal blocks"
                ));
            }
        }
        Ok(())
    }

    /// This layout padded with whole axes to `rank` (a longer one is kept, for `check` to
    /// refuse).
    pub fn padded(mut self, rank: usize) -> Spec {
        self.0.resize(rank.max(self.0.len()), vec![]);
        self
    }
}

/// A `with_sharding_constraint`'s layout, as its `sharding_constraint` equation holds it: the
/// mesh, the layout on it, the array axes it leaves as they are (`vmap`'s batch axis), and the
/// mesh as Python prints it (for `make_jaxpr`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Constraint {
    pub mesh: Mesh,
    pub spec: Spec,
    pub unconstrained: Vec<usize>,
    pub mesh_text: String,
}

impl Constraint {
    /// The constraint with a new array axis at `axis` left as it is (`vmap`'s batch axis).
    pub fn batched(&self, axis: usize) -> Constraint {
        let mut spec = self.spec.clone();
        spec.0.insert(axis.min(spec.0.len()), vec![]);
        let mut unconstrained: Vec<usize> = self.unconstrained.iter().map(|&d| d + usize::from(d >= axis)).collect();
        unconstrained.push(axis);
        unconstrained.sort_unstable();
        Constraint { spec, unconstrained, ..self.clone() }
    }

    /// The sharding as JAX 0.10 prints it: `NamedSharding(mesh=Mesh('x': 8, axis_types=(Auto,)),
    /// spec=P('x',), memory_kind=device)`.
    pub fn sharding_text(&self) -> String {
        let entries: Vec<String> = self
            .spec
            .0
            .iter()
            .enumerate()
            .map(|(d, e)| match e.as_slice() {
                _ if self.unconstrained.contains(&d) => "UNCONSTRAINED".to_string(),
                [] => "None".to_string(),
                [a] => format!("'{}'", self.mesh.names[*a]),
                many => {
                    let names: Vec<String> = many.iter().map(|&a| format!("'{}'", self.mesh.names[a])).collect();
                    format!("({})", names.join(", "))
                }
            })
            .collect();
        let comma = if entries.len() == 1 { "," } else { "" };
        format!("NamedSharding(mesh={}, spec=P({}{comma}), memory_kind=device)", self.mesh_text, entries.join(", "))
    }
}

/// A `jax.shard_map` called inside `jit`: the function each chip runs on its blocks (traced on
/// device 0's block types, its collectives over the mesh's axes; constants are its first
/// inputs, whole on every chip), the mesh, and the layouts its specs give its inputs and
/// outputs.
#[derive(Debug, PartialEq)]
pub struct ShardMapCall {
    pub name: String,
    pub body: Jaxpr,
    pub mesh: Mesh,
    pub in_specs: Vec<Spec>,
    pub out_specs: Vec<Spec>,
}

impl ShardMapCall {
    /// The whole results' types: each block's, times its blocks along each axis.
    pub fn abstract_eval(&self) -> Vec<Aval> {
        self.body
            .outvars
            .iter()
            .zip(&self.out_specs)
            .map(|(o, spec)| {
                let local = self.body.atom_aval(o);
                let spec = spec.clone().padded(local.rank());
                let shape = local.shape.iter().enumerate().map(|(d, &n)| n * spec.blocks(d, &self.mesh)).collect();
                Aval { shape, ..local.clone() }
            })
            .collect()
    }

    pub fn params(&self) -> Vec<(&'static str, String)> {
        let specs = |specs: &[Spec]| {
            let each: Vec<String> = specs.iter().map(|s| format!("{:?}", s.names(&self.mesh))).collect();
            format!("({})", each.join(", "))
        };
        vec![
            ("name", self.name.clone()),
            ("mesh", describe(&self.mesh)),
            ("in_specs", specs(&self.in_specs)),
            ("out_specs", specs(&self.out_specs)),
        ]
    }
}

impl Eq for ShardMapCall {}

impl std::hash::Hash for ShardMapCall {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.mesh.hash(state);
        self.in_specs.hash(state);
        self.out_specs.hash(state);
    }
}

/// `spec`, a layout on `from`, as a layout on `to`, where both meshes hold the same devices in
/// the same order and each axis of `from` is one or more consecutive axes of `to` (a 1-D mesh
/// of 8 over a 2×4 one's devices is its two axes, the first major).
pub fn translate(spec: &Spec, from: &Mesh, to: &Mesh) -> Option<Spec> {
    if from == to {
        return Some(spec.clone());
    }
    if from.devices != to.devices {
        return None;
    }
    let mut axes_of = Vec::new();
    let mut next = 0;
    for &size in &from.sizes {
        let mut group = Vec::new();
        let mut product = 1;
        while product < size && next < to.sizes.len() {
            product *= to.sizes[next];
            group.push(next);
            next += 1;
        }
        if product != size {
            return None;
        }
        axes_of.push(group);
    }
    Some(Spec(spec.0.iter().map(|e| e.iter().flat_map(|&a| axes_of[a].iter().copied()).collect()).collect()))
}

/// A partitioned program: what each chip runs (its inputs and outputs are its blocks), and the
/// layout of each output.
#[derive(Clone, Debug)]
pub struct Partitioned {
    pub jaxpr: Jaxpr,
    pub outputs: Vec<Spec>,
}

/// Partitions `jaxpr` (every input an invar, constants first, laid out as `inputs` say) over
/// `mesh`; the outputs keep the layouts the equations gave them.
pub fn partition(jaxpr: &Jaxpr, mesh: &Mesh, inputs: &[Spec]) -> Result<Partitioned, JaxError> {
    let jaxpr = inline_calls(jaxpr);
    let mut b = Builder { mesh, out: Jaxpr::default(), next: 0, at: HashMap::new() };
    for (v, spec) in jaxpr.all_inputs().zip(inputs) {
        let global = jaxpr.aval(v);
        let spec = spec.clone().padded(global.rank());
        spec.check(&global.shape, mesh).map_err(JaxError)?;
        let local = Aval { shape: spec.local_shape(&global.shape, mesh), ..global.clone() };
        let var = b.fresh(local);
        b.out.invars.push(var);
        b.at.insert(v, (Atom::Var(var), spec));
    }
    for eqn in &jaxpr.eqns {
        b.equation(&jaxpr, eqn)?;
    }
    let mut specs = Vec::new();
    for atom in &jaxpr.outvars {
        let (local, spec) = b.read(atom);
        b.out.outvars.push(local);
        specs.push(spec);
    }
    Ok(Partitioned { jaxpr: b.out, outputs: specs })
}

/// The first mesh a `sharding_constraint` or a `shard_map` of `jaxpr` names (at its top level
/// or in the `jit`s it calls): a program that names one is partitioned over it.
pub fn named_mesh(jaxpr: &Jaxpr) -> Option<&Mesh> {
    jaxpr.eqns.iter().find_map(|e| match &e.prim {
        Primitive::ShardingConstraint { constraint } => Some(&constraint.mesh),
        Primitive::ShardMap { function } => Some(&function.mesh),
        prim => prim.call_body().and_then(named_mesh),
    })
}

/// `jaxpr` with every nested `jit` and checkpoint replaced by its body, so that layouts flow
/// through calls.
fn inline_calls(jaxpr: &Jaxpr) -> Jaxpr {
    if !jaxpr.eqns.iter().any(|e| e.prim.call_body().is_some()) {
        return jaxpr.clone();
    }
    let mut out = Jaxpr { eqns: vec![], ..jaxpr.clone() };
    let mut next = jaxpr.types.keys().map(|v| v.0 + 1).max().unwrap_or(0);
    for eqn in &jaxpr.eqns {
        let Some(body) = eqn.prim.call_body() else {
            out.eqns.push(eqn.clone());
            continue;
        };
        let body = inline_calls(body);
        let mut rename: HashMap<Var, Atom> = body.all_inputs().zip(eqn.inputs.iter().cloned()).collect();
        for v in body.types.keys() {
            if !rename.contains_key(v) {
                rename.insert(*v, Atom::Var(Var(next)));
                out.types.insert(Var(next), body.types[v].clone());
                next += 1;
            }
        }
        let atom = |a: &Atom| match a {
            Atom::Var(v) => rename[v].clone(),
            literal => literal.clone(),
        };
        for e in &body.eqns {
            let outputs = e
                .outputs
                .iter()
                .map(|v| match &rename[v] {
                    Atom::Var(v) => *v,
                    Atom::Literal(_) => unreachable!("a body's equations define fresh variables"),
                })
                .collect();
            out.eqns.push(Eqn {
                prim: e.prim.clone(),
                inputs: e.inputs.iter().map(atom).collect(),
                outputs,
                source: e.source.clone(),
            });
        }
        // The call's outputs are the body's, each bound by a copy the compiler fuses away.
        for (o, b) in eqn.outputs.iter().zip(&body.outvars) {
            let aval = out.types[o].clone();
            out.eqns.push(Eqn {
                source: eqn.source.clone(),
                prim: Primitive::ConvertElementType { new_dtype: aval.dtype, weak_type: aval.weak_type },
                inputs: vec![atom(b)],
                outputs: vec![*o],
            });
        }
    }
    out
}

/// Builds the per-chip program: each global variable's block and layout as it stands.
struct Builder<'m> {
    mesh: &'m Mesh,
    out: Jaxpr,
    next: u32,
    at: HashMap<Var, (Atom, Spec)>,
}

fn int32(value: usize) -> Atom {
    Atom::Literal(Literal { value: value as f64, aval: Aval::new(vec![], DType::I32) })
}

/// Whether a primitive works element by element (each output element from the operands'
/// elements at the same place).
fn elementwise(prim: &Primitive) -> bool {
    matches!(
        prim,
        Primitive::Unary(_)
            | Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::SelectN
            | Primitive::Clamp
            | Primitive::IntegerPow { .. }
            | Primitive::ConvertElementType { .. }
            | Primitive::StopGradient
            | Primitive::Name { .. }
            | Primitive::AddAny
    )
}

impl Builder<'_> {
    fn fresh(&mut self, aval: Aval) -> Var {
        let v = Var(self.next);
        self.next += 1;
        self.out.types.insert(v, aval);
        v
    }

    fn aval(&self, atom: &Atom) -> Aval {
        self.out.atom_aval(atom).clone()
    }

    /// A global atom's block and layout (a literal is a scalar every chip has).
    fn read(&self, atom: &Atom) -> (Atom, Spec) {
        match atom {
            Atom::Var(v) => self.at[v].clone(),
            Atom::Literal(l) => (atom.clone(), Spec::replicated(l.aval.rank())),
        }
    }

    /// Appends `prim` on local operands; its local results.
    fn emit(&mut self, prim: Primitive, inputs: Vec<Atom>) -> Result<Vec<Atom>, JaxError> {
        let avals: Vec<Aval> = inputs.iter().map(|a| self.aval(a)).collect();
        let results = prim
            .abstract_eval(&avals)
            .map_err(|e| JaxError(format!("partitioning {} over the mesh: {e}", prim.name())))?;
        let outputs: Vec<Var> = results.into_iter().map(|a| self.fresh(a)).collect();
        self.out.eqns.push(Eqn { prim, inputs, outputs: outputs.clone(), source: None });
        Ok(outputs.into_iter().map(Atom::Var).collect())
    }

    fn emit1(&mut self, prim: Primitive, inputs: Vec<Atom>) -> Result<Atom, JaxError> {
        Ok(self.emit(prim, inputs)?.remove(0))
    }

    fn collective(&mut self, op: CollectiveOp, axis: usize, inputs: Vec<Atom>) -> Result<Atom, JaxError> {
        let prim =
            Primitive::Collective { op, axis_name: self.mesh.names[axis].clone(), axis_size: self.mesh.sizes[axis] };
        self.emit1(prim, inputs)
    }

    /// `x`, split along array axis `d` over `axes`, gathered whole along it (the minor mesh
    /// axis first, so each gather joins consecutive blocks).
    fn gather(&mut self, mut x: Atom, d: usize, axes: &[usize]) -> Result<Atom, JaxError> {
        for &a in axes.iter().rev() {
            x = self.collective(CollectiveOp::AllGather { dimension: d, tiled: true }, a, vec![x])?;
        }
        Ok(x)
    }

    /// `x`'s block along array axis `d`, cut further over `axes` (major first): each chip keeps
    /// the part its positions on those axes pick, with no traffic.
    fn cut(&mut self, x: Atom, d: usize, axes: &[usize]) -> Result<Atom, JaxError> {
        if axes.is_empty() {
            return Ok(x);
        }
        let shape = self.aval(&x).shape;
        let count: usize = axes.iter().map(|&a| self.mesh.sizes[a]).product();
        let len = shape[d] / count;
        let mut index: Option<Atom> = None;
        for &a in axes {
            let i = self.collective(CollectiveOp::AxisIndex, a, vec![])?;
            index = Some(match index {
                None => i,
                Some(major) => {
                    let scaled =
                        self.emit1(Primitive::Binary(BinaryOp::Mul), vec![major, int32(self.mesh.sizes[a])])?;
                    self.emit1(Primitive::Binary(BinaryOp::Add), vec![scaled, i])?
                }
            });
        }
        let index = index.expect("at least one axis");
        let start = self.emit1(Primitive::Binary(BinaryOp::Mul), vec![index, int32(len)])?;
        let mut operands = vec![x];
        operands.extend((0..shape.len()).map(|k| if k == d { start.clone() } else { int32(0) }));
        let mut sizes = shape;
        sizes[d] = len;
        self.emit1(Primitive::DynamicSlice { slice_sizes: sizes }, operands)
    }

    /// `x`, laid out as `from`, laid out as `to`: axes whose split `to` extends are cut
    /// further; the others are gathered whole first, then cut.
    fn reshard(&mut self, mut x: Atom, from: &Spec, to: &Spec) -> Result<Atom, JaxError> {
        if from == to {
            return Ok(x);
        }
        let keeps = |d: usize| to.0[d].starts_with(&from.0[d]);
        for d in 0..from.0.len() {
            if !keeps(d) {
                x = self.gather(x, d, &from.0[d])?;
            }
        }
        for d in 0..to.0.len() {
            let done = if keeps(d) { from.0[d].len() } else { 0 };
            x = self.cut(x, d, &to.0[d][done..])?;
        }
        Ok(x)
    }

    /// Binds `eqn`'s outputs to local results laid out as `specs`.
    fn bind(&mut self, eqn: &Eqn, results: Vec<Atom>, specs: Vec<Spec>) {
        for ((v, r), s) in eqn.outputs.iter().zip(results).zip(specs) {
            self.at.insert(*v, (r, s));
        }
    }

    /// The equation's operands, each changed to the layout `want` gives it; their blocks.
    fn operands(&mut self, eqn: &Eqn, want: impl Fn(usize, &Spec) -> Spec) -> Result<Vec<Atom>, JaxError> {
        let mut out = Vec::new();
        for (i, a) in eqn.inputs.iter().enumerate() {
            let (local, spec) = self.read(a);
            let wanted = want(i, &spec);
            out.push(self.reshard(local, &spec, &wanted)?);
        }
        Ok(out)
    }

    fn equation(&mut self, global: &Jaxpr, eqn: &Eqn) -> Result<(), JaxError> {
        let specs: Vec<Spec> = eqn.inputs.iter().map(|a| self.read(a).1).collect();
        let shapes: Vec<Vec<usize>> = eqn.inputs.iter().map(|a| global.atom_aval(a).shape.clone()).collect();
        let out_shape = |k: usize| global.aval(eqn.outputs[k]).shape.clone();
        match &eqn.prim {
            prim if elementwise(prim) => {
                let rank = out_shape(0).len();
                // The most split operand of the result's rank leads; scalars stay as they are.
                let lead = specs
                    .iter()
                    .filter(|s| s.0.len() == rank)
                    .max_by_key(|s| (0..rank).map(|d| s.blocks(d, self.mesh)).product::<usize>())
                    .cloned()
                    .unwrap_or_else(|| Spec::replicated(rank));
                let ins = self.operands(eqn, |_, s| if s.0.len() == rank { lead.clone() } else { s.clone() })?;
                let results = self.emit(prim.clone(), ins)?;
                let n = results.len();
                self.bind(eqn, results, vec![lead; n]);
            }
            Primitive::ShardingConstraint { constraint } => {
                let wanted = translate(&constraint.spec, &constraint.mesh, self.mesh).ok_or_else(|| {
                    JaxError(format!(
                        "with_sharding_constraint names a mesh ({}) whose devices are not laid out as the computation's mesh ({}): one program over two meshes is not supported by the playground yet",
                        describe(&constraint.mesh),
                        describe(self.mesh)
                    ))
                })?;
                let mut wanted = wanted.padded(shapes[0].len());
                let (local, spec) = self.read(&eqn.inputs[0]);
                for &d in &constraint.unconstrained {
                    wanted.0[d] = spec.0[d].clone();
                }
                wanted.check(&shapes[0], self.mesh).map_err(|e| JaxError(format!("with_sharding_constraint: {e}")))?;
                let result = self.reshard(local, &spec, &wanted)?;
                self.bind(eqn, vec![result], vec![wanted]);
            }
            Primitive::ShardMap { function } => self.shard_map(eqn, function)?,
            Primitive::DotGeneral { dims, .. } => {
                let (mut l, mut r) = (specs[0].clone(), specs[1].clone());
                let pairs: Vec<(usize, usize)> = dims
                    .lhs_batch
                    .iter()
                    .copied()
                    .zip(dims.rhs_batch.iter().copied())
                    .chain(dims.lhs_contracting.iter().copied().zip(dims.rhs_contracting.iter().copied()))
                    .collect();
                // Each batch and contracting pair split alike: the other side takes a split
                // one side has (when its axes are free there), else both are gathered.
                for &(a, c) in &pairs {
                    if l.0[a] == r.0[c] {
                        continue;
                    }
                    let free_in = |s: &Spec, d: usize, axes: &[usize]| {
                        axes.iter().all(|&m| !s.0.iter().enumerate().any(|(k, e)| k != d && e.contains(&m)))
                    };
                    if !l.0[a].is_empty() && free_in(&r, c, &l.0[a]) {
                        r.0[c] = l.0[a].clone();
                    } else if !r.0[c].is_empty() && free_in(&l, a, &r.0[c]) {
                        l.0[a] = r.0[c].clone();
                    } else {
                        l.0[a].clear();
                        r.0[c].clear();
                    }
                }
                let lhs_free: Vec<usize> = (0..shapes[0].len())
                    .filter(|d| !dims.lhs_batch.contains(d) && !dims.lhs_contracting.contains(d))
                    .collect();
                let rhs_free: Vec<usize> = (0..shapes[1].len())
                    .filter(|d| !dims.rhs_batch.contains(d) && !dims.rhs_contracting.contains(d))
                    .collect();
                // A mesh axis splits one axis of the result: the right side's free axes give
                // up what the left side's use.
                for &d in &rhs_free {
                    if r.0[d].iter().any(|&m| l.uses(m)) {
                        r.0[d].clear();
                    }
                }
                let mut out = Spec(dims.lhs_batch.iter().map(|&d| l.0[d].clone()).collect());
                out.0.extend(lhs_free.iter().map(|&d| l.0[d].clone()));
                out.0.extend(rhs_free.iter().map(|&d| r.0[d].clone()));
                let partial: Vec<usize> = dims.lhs_contracting.iter().flat_map(|&d| l.0[d].clone()).collect();
                let ins = self.operands(eqn, |i, _| if i == 0 { l.clone() } else { r.clone() })?;
                let mut result = self.emit1(eqn.prim.clone(), ins)?;
                for a in partial {
                    result = self.collective(CollectiveOp::Psum, a, vec![result])?;
                }
                self.bind(eqn, vec![result], vec![out]);
            }
            Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } | Primitive::ReduceMin { axes } => {
                let op = match &eqn.prim {
                    Primitive::ReduceSum { .. } => CollectiveOp::Psum,
                    Primitive::ReduceMax { .. } => CollectiveOp::Pmax,
                    _ => CollectiveOp::Pmin,
                };
                let (local, spec) = self.read(&eqn.inputs[0]);
                let mut result = self.emit1(eqn.prim.clone(), vec![local])?;
                for &d in axes {
                    for &a in &spec.0[d] {
                        result = self.collective(op.clone(), a, vec![result])?;
                    }
                }
                let out = Spec(spec.0.iter().enumerate().filter(|(d, _)| !axes.contains(d)).map(|(_, e)| e.clone()).collect());
                self.bind(eqn, vec![result], vec![out]);
            }
            Primitive::Transpose { permutation } => {
                let (local, spec) = self.read(&eqn.inputs[0]);
                let result = self.emit1(eqn.prim.clone(), vec![local])?;
                self.bind(eqn, vec![result], vec![Spec(permutation.iter().map(|&p| spec.0[p].clone()).collect())]);
            }
            Primitive::BroadcastInDim { shape, broadcast_dimensions } => {
                let (local, spec) = self.read(&eqn.inputs[0]);
                let mut out = Spec::replicated(shape.len());
                for (i, &d) in broadcast_dimensions.iter().enumerate() {
                    if shapes[0][i] == shape[d] {
                        out.0[d] = spec.0[i].clone();
                    }
                }
                let prim = Primitive::BroadcastInDim {
                    shape: out.local_shape(shape, self.mesh),
                    broadcast_dimensions: broadcast_dimensions.clone(),
                };
                let result = self.emit1(prim, vec![local])?;
                self.bind(eqn, vec![result], vec![out]);
            }
            Primitive::Squeeze { dimensions } => {
                let (local, spec) = self.read(&eqn.inputs[0]);
                let result = self.emit1(eqn.prim.clone(), vec![local])?;
                let out =
                    Spec(spec.0.iter().enumerate().filter(|(d, _)| !dimensions.contains(d)).map(|(_, e)| e.clone()).collect());
                self.bind(eqn, vec![result], vec![out]);
            }
            Primitive::Reshape { new_sizes } => {
                let (keep, out) = reshape_layouts(&shapes[0], new_sizes, &specs[0], self.mesh);
                let ins = self.operands(eqn, |_, _| keep.clone())?;
                let prim = Primitive::Reshape { new_sizes: out.local_shape(new_sizes, self.mesh) };
                let result = self.emit1(prim, ins)?;
                self.bind(eqn, vec![result], vec![out]);
            }
            // Axes these leave whole keep their split; the others are gathered.
            Primitive::Slice { start_indices, limit_indices, strides } => {
                let whole = |d: usize| {
                    start_indices[d] == 0
                        && limit_indices[d] == shapes[0][d]
                        && strides.as_ref().is_none_or(|s| s[d] == 1)
                };
                let spec = kept(&specs[0], whole);
                let local = spec.local_shape(&shapes[0], self.mesh);
                let prim = Primitive::Slice {
                    start_indices: start_indices.clone(),
                    limit_indices: (0..local.len()).map(|d| if whole(d) { local[d] } else { limit_indices[d] }).collect(),
                    strides: strides.clone(),
                };
                let ins = self.operands(eqn, |_, _| spec.clone())?;
                let result = self.emit1(prim, ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::Pad { config } => {
                let spec = kept(&specs[0], |d| config[d] == (0, 0, 0));
                let ins = self.operands(eqn, |i, s| if i == 0 { spec.clone() } else { s.clone() })?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::Rev { dimensions } => {
                let spec = kept(&specs[0], |d| !dimensions.contains(&d));
                let ins = self.operands(eqn, |_, _| spec.clone())?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::Cumsum { axis, .. } => {
                let spec = kept(&specs[0], |d| d != *axis);
                let ins = self.operands(eqn, |_, _| spec.clone())?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::ArgReduce { axis, .. } => {
                let spec = kept(&specs[0], |d| d != *axis);
                let ins = self.operands(eqn, |_, _| spec.clone())?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                let out = Spec(spec.0.iter().enumerate().filter(|(d, _)| d != axis).map(|(_, e)| e.clone()).collect());
                self.bind(eqn, vec![result], vec![out]);
            }
            Primitive::Concatenate { dimension } => {
                // The first operand's split, but along the joined axis, is every operand's.
                let spec = kept(&specs[0], |d| d != *dimension);
                let ins = self.operands(eqn, |_, _| spec.clone())?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::DynamicSlice { slice_sizes } => {
                let spec = kept(&specs[0], |d| slice_sizes[d] == shapes[0][d]);
                let local = spec.local_shape(&shapes[0], self.mesh);
                let sizes = (0..local.len()).map(|d| if spec.0[d].is_empty() { slice_sizes[d] } else { local[d] }).collect();
                let ins = self.operands(eqn, |i, s| if i == 0 { spec.clone() } else { s.clone() })?;
                let result = self.emit1(Primitive::DynamicSlice { slice_sizes: sizes }, ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::DynamicUpdateSlice => {
                let spec = kept(&specs[0], |d| shapes[1][d] == shapes[0][d]);
                let ins = self.operands(eqn, |i, s| if i < 2 { spec.clone() } else { s.clone() })?;
                let result = self.emit1(eqn.prim.clone(), ins)?;
                self.bind(eqn, vec![result], vec![spec]);
            }
            Primitive::Collective { .. } => {
                return Err(JaxError(
                    "a collective (psum, all_gather, ...) in a jitted function of sharded arrays outside shard_map: name its axes in a jax.shard_map".into(),
                ))
            }
            // Everything else runs on whole arrays on every chip.
            prim => {
                let ins = self.operands(eqn, |_, s| Spec::replicated(s.0.len()))?;
                let results = self.emit(prim.clone(), ins)?;
                let specs = (0..results.len()).map(|k| Spec::replicated(out_shape(k).len())).collect();
                self.bind(eqn, results, specs);
            }
        }
        Ok(())
    }
}

impl Builder<'_> {
    /// A `shard_map` inside the program: its operands changed to the layouts its in_specs
    /// give, its function's equations placed inline on their blocks, its results laid out as
    /// its out_specs say.
    fn shard_map(&mut self, eqn: &Eqn, call: &ShardMapCall) -> Result<(), JaxError> {
        if call.mesh != *self.mesh {
            return Err(JaxError(format!(
                "the shard_map '{}' runs on the mesh {}, and the jitted function around it on {}: one program over two meshes is not supported by the playground yet",
                call.name,
                describe(&call.mesh),
                describe(self.mesh)
            )));
        }
        let consts = call.body.invars.len() - call.in_specs.len();
        let mut rename: HashMap<Var, Atom> = HashMap::new();
        for (i, (v, a)) in call.body.invars.iter().zip(&eqn.inputs).enumerate() {
            let (local, spec) = self.read(a);
            let rank = spec.0.len();
            let wanted =
                if i < consts { Spec::replicated(rank) } else { call.in_specs[i - consts].clone().padded(rank) };
            rename.insert(*v, self.reshard(local, &spec, &wanted)?);
        }
        for e in &call.body.eqns {
            let inputs = e
                .inputs
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => rename[v].clone(),
                    literal => literal.clone(),
                })
                .collect();
            let results = self.emit(e.prim.clone(), inputs)?;
            for (v, r) in e.outputs.iter().zip(results) {
                rename.insert(*v, r);
            }
        }
        for ((v, o), spec) in eqn.outputs.iter().zip(&call.body.outvars).zip(&call.out_specs) {
            let local = match o {
                Atom::Var(b) => rename[b].clone(),
                literal => literal.clone(),
            };
            let rank = self.aval(&local).rank();
            self.at.insert(*v, (local, spec.clone().padded(rank)));
        }
        Ok(())
    }
}

/// `spec` with the axes `keep` rejects made whole.
fn kept(spec: &Spec, keep: impl Fn(usize) -> bool) -> Spec {
    Spec(spec.0.iter().enumerate().map(|(d, e)| if keep(d) { e.clone() } else { vec![] }).collect())
}

/// For a reshape of `from` into `to`: the layout the operand must have, and the result's.
/// The axes are grouped where their sizes' products meet (a merge, a split or an axis kept);
/// a group's split is carried over when it is on the group's major axis (of size > 1) and the
/// result's major axis of the group splits into as many blocks, which then hold the same
/// elements. Other splits are gathered first.
fn reshape_layouts(from: &[usize], to: &[usize], spec: &Spec, mesh: &Mesh) -> (Spec, Spec) {
    let mut keep = Spec::replicated(from.len());
    let mut out = Spec::replicated(to.len());
    let (mut i, mut j) = (0, 0);
    while i < from.len() || j < to.len() {
        let (i0, j0) = (i, j);
        let (mut p, mut q) = (1usize, 1usize);
        if i < from.len() {
            p *= from[i];
            i += 1;
        }
        if j < to.len() {
            q *= to[j];
            j += 1;
        }
        while p != q {
            if p < q && i < from.len() {
                p *= from[i];
                i += 1;
            } else if q < p && j < to.len() {
                q *= to[j];
                j += 1;
            } else {
                // The sizes cannot meet (the shapes disagree): gather everything.
                return (Spec::replicated(from.len()), Spec::replicated(to.len()));
            }
        }
        let major_in = (i0..i).find(|&d| from[d] > 1);
        let major_out = (j0..j).find(|&d| to[d] > 1);
        if let (Some(a), Some(b)) = (major_in, major_out) {
            let blocks = spec.blocks(a, mesh);
            if to[b].is_multiple_of(blocks) {
                keep.0[a] = spec.0[a].clone();
                out.0[b] = spec.0[a].clone();
            }
        }
    }
    (keep, out)
}

/// A mesh as messages name it: `('x': 2, 'y': 4)`.
fn describe(mesh: &Mesh) -> String {
    let axes: Vec<String> = mesh.names.iter().zip(&mesh.sizes).map(|(n, s)| format!("'{n}': {s}")).collect();
    format!("({})", axes.join(", "))
}
