//! Pass 2: fusion, as XLA does it on TPUs.
//!
//! A fusion becomes one kernel: it reads its inputs from HBM, computes in VMEM, and writes
//! one result back to HBM. Fusing a consumer into its producer's kernel saves the round trip
//! of the intermediate through HBM — which is what the `hbm_bytes_*` counters show.
//!
//! - A `dot` starts an output fusion; elementwise consumers of its result (bias, activation,
//!   scaling) join it as the epilogue.
//! - Elementwise ops join the fusion of an operand they alone use (a loop fusion: one pass
//!   over the elements); otherwise they start one.
//! - A reduction joins the loop fusion that produces its operand (an input fusion, XLA's
//!   kInput), or starts its own.
//! - Broadcasts and reshapes are views: a kernel reads through them, nothing is materialised.
//! - Constants (scalars) are immediates of the kernels that use them.

use crate::hlo::{row_major, shape_text, Graph, Instruction, Op, ValueId};
use std::collections::HashSet;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FusionKind {
    /// Elementwise ops over one iteration space.
    Loop,
    /// A matmul and its elementwise epilogue.
    Output,
    /// Elementwise ops feeding a reduction.
    Reduction,
    /// A transpose on the cross-lane unit.
    Transpose,
    /// Data movement by DMA: a concatenation, a slice, a pad or an update of a slice.
    Copy,
}

impl FusionKind {
    /// XLA's name for the kind.
    pub fn name(self) -> &'static str {
        match self {
            FusionKind::Loop => "kLoop",
            FusionKind::Output => "kOutput",
            FusionKind::Reduction => "kInput",
            FusionKind::Transpose => "kTranspose",
            FusionKind::Copy => "kCopy",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fusion {
    pub kind: FusionKind,
    /// The instructions computed inside, in order; the last is the root.
    pub ops: Vec<ValueId>,
    /// The values the kernel writes to HBM: every op used outside the fusion (or returned by
    /// the program), the root always. More than one makes it a multi-output fusion.
    pub outputs: Vec<ValueId>,
}
impl Fusion {
    pub fn root(&self) -> ValueId {
        *self.ops.last().expect("a fusion has at least one op")
    }

    /// Values the kernel reads from HBM (directly or through a view), in first-use order.
    /// Constants (and splats of them) are not inputs: they become immediates.
    pub fn inputs(&self, g: &Graph) -> Vec<ValueId> {
        let ops: HashSet<ValueId> = self.ops.iter().copied().collect();
        let mut seen = HashSet::new();
        let mut inputs = Vec::new();
        for &v in &self.ops {
            // A materialising fusion's root may itself be a view: its input is the source.
            for &o in &g.instrs[v].operands {
                if !ops.contains(&o) && g.constant_value(o).is_none() && seen.insert(o) {
                    inputs.push(o);
                }
            }
        }
        inputs
    }
}

/// The graph and its fusions, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedGraph {
    pub graph: Graph,
    pub fusions: Vec<Fusion>,
}

impl FusedGraph {
    /// What the kernels move, as XLA's cost analysis counts a compiled program: each fusion
    /// reads its inputs (the source of a view: a broadcast reads what it broadcasts) and
    /// writes its outputs, at their element types' sizes; no flops (those are the
    /// equations', see `jaxlite::cost`).
    pub fn traffic(&self) -> jaxlite::cost::CostAnalysis {
        let g = &self.graph;
        let bytes = |v: ValueId| (g.instrs[v].size() * g.instrs[v].elem.bytes()) as f64;
        let mut cost = jaxlite::cost::CostAnalysis::default();
        for fusion in &self.fusions {
            let operands: Vec<(f64, f64)> = fusion
                .inputs(g)
                .into_iter()
                .map(|mut v| {
                    while g.instrs[v].is_view() {
                        v = g.instrs[v].operands[0];
                    }
                    (bytes(v), 1.0)
                })
                .collect();
            let written = fusion.outputs.iter().map(|&v| bytes(v)).sum();
            cost.operation(&operands, written, 0.0, 0.0);
        }
        cost
    }
}

/// Groups the graph's instructions into fusions.
pub fn fuse(graph: Graph) -> FusedGraph {
    let mut fusions: Vec<Fusion> = Vec::new();
    let mut owner: Vec<Option<usize>> = vec![None; graph.instrs.len()];
    // Kernels run in fusion order, so an op may join fusion `f` only if what it reads is
    // computed in `f` itself, by an earlier fusion, or not at all; and what it reads through
    // a view (a broadcast or reshape, read from HBM as a whole) by an earlier fusion.
    let ready_before = |instr: &crate::hlo::Instruction, f: usize, owner: &[Option<usize>]| {
        instr.operands.iter().all(|&o| {
            let mut s = o;
            while graph.instrs[s].is_view() && owner[s].is_none() {
                s = graph.instrs[s].operands[0];
            }
            owner[s].is_none_or(|g| if s == o { g <= f } else { g < f })
        })
    };
    // A loop fusion that writes out a view or a constant (a broadcast some kernel cannot read
    // through) is that alone: its kernel copies, it does not compute (the data-movement
    // property test found an elementwise op joining one, which the emitter then read as a
    // view of the wrong rank).
    let writes_out_a_view = |f: usize, fusions: &[Fusion]| {
        fusions[f].kind == FusionKind::Loop && !graph.instrs[fusions[f].ops[0]].is_elementwise()
    };
    for (v, instr) in graph.instrs.iter().enumerate() {
        if !instr.is_view() {
            for &o in &instr.operands {
                materialise_unviewable(&graph, o, &mut fusions, &mut owner);
            }
        }
        let target = match &instr.op {
            Op::Parameter(_) | Op::Constant(_) | Op::Iota { .. } | Op::Broadcast { .. } | Op::Reshape | Op::Convert => {
                continue
            }
            Op::Dot { .. } => {
                materialise_operands(&graph, instr, &mut fusions, &mut owner);
                None
            }
            Op::Transpose { .. }
            | Op::Concatenate { .. }
            | Op::Slice { .. }
            | Op::Reverse { .. }
            | Op::Pad { .. }
            | Op::UpdateSlice { .. } => {
                materialise_operands(&graph, instr, &mut fusions, &mut owner);
                let kind =
                    if matches!(instr.op, Op::Transpose { .. }) { FusionKind::Transpose } else { FusionKind::Copy };
                fusions.push(Fusion { kind, ops: vec![v], outputs: vec![] });
                owner[v] = Some(fusions.len() - 1);
                continue;
            }
            // A reduction joins the loop fusion computing its operand (which, if others read it
            // too, becomes an extra output: softmax's exp feeds both its sum and the divide).
            // A broadcast being reduced (a max over an axis it repeats) is written out first:
            // the reduction reads its operand as whole tiles. (A broadcast constant is written
            // into a tile by the reduction itself.)
            Op::Reduce { .. } => {
                let operand = instr.operands[0];
                let source = &graph.instrs[operand];
                let spread = matches!(source.op, Op::Broadcast { .. } | Op::Iota { .. })
                    && graph.constant_value(operand).is_none();
                if spread && needs_materialising(&graph, operand, &owner) {
                    fusions.push(Fusion { kind: FusionKind::Loop, ops: vec![operand], outputs: vec![] });
                    owner[operand] = Some(fusions.len() - 1);
                    None
                } else {
                    owner[operand].filter(|&f| {
                        fusions[f].kind == FusionKind::Loop
                            && !writes_out_a_view(f, &fusions)
                            && ready_before(instr, f, &owner)
                    })
                }
            }
            // An elementwise op joins the fusion that computes one of its operands, over the
            // same elements; values it shares with ops outside become extra outputs.
            Op::Unary(_) | Op::Binary(_) | Op::Compare(_) | Op::Select | Op::ToBf16 | Op::ToU32 | Op::FromU32 => {
                instr.operands.iter().find_map(|&o| {
                    owner[o].filter(|&f| {
                        // A batched matmul's kernel has no epilogue (yet): the ops after it loop.
                        let batched_dot =
                            fusions[f].kind == FusionKind::Output && graph.instrs[fusions[f].ops[0]].shape.len() == 3;
                        matches!(fusions[f].kind, FusionKind::Loop | FusionKind::Output)
                            && !batched_dot
                            && !writes_out_a_view(f, &fusions)
                            && graph.instrs[o].shape == instr.shape
                            && ready_before(instr, f, &owner)
                    })
                })
            }
        };
        match target {
            Some(f) => {
                fusions[f].ops.push(v);
                if matches!(instr.op, Op::Reduce { .. }) {
                    fusions[f].kind = FusionKind::Reduction;
                }
                owner[v] = Some(f);
            }
            None => {
                let kind = match instr.op {
                    Op::Dot { .. } => FusionKind::Output,
                    Op::Reduce { .. } => FusionKind::Reduction,
                    _ => FusionKind::Loop,
                };
                fusions.push(Fusion { kind, ops: vec![v], outputs: vec![] });
                owner[v] = Some(fusions.len() - 1);
            }
        }
    }
    // An output that no kernel computes (a broadcast, a constant) is materialised by a loop
    // fusion of its own; parameters and reshapes of computed values need nothing.
    for &o in &graph.outputs {
        materialise_unviewable(&graph, o, &mut fusions, &mut owner);
        if owner[o].is_none() && needs_materialising(&graph, o, &owner) && !fusions.iter().any(|f| f.root() == o) {
            fusions.push(Fusion { kind: FusionKind::Loop, ops: vec![o], outputs: vec![] });
        }
    }
    // Each value's users, so finding a fusion's outputs is linear in the graph (a long chain of
    // ops traced from a Python loop is one fusion of thousands).
    let mut users: Vec<Vec<ValueId>> = vec![Vec::new(); graph.instrs.len()];
    for (u, i) in graph.instrs.iter().enumerate() {
        for &o in &i.operands {
            users[o].push(u);
        }
    }
    let returned: HashSet<ValueId> = graph.outputs.iter().copied().collect();
    for fusion in &mut fusions {
        let root = fusion.root();
        let inside: HashSet<ValueId> = fusion.ops.iter().copied().collect();
        fusion.outputs = fusion
            .ops
            .iter()
            .copied()
            .filter(|&v| v == root || returned.contains(&v) || users[v].iter().any(|u| !inside.contains(u)))
            .collect();
    }
    FusedGraph { graph, fusions }
}

/// Kernels that read their operands as whole arrays from HBM (matmuls, transposes, copies) need
/// a broadcast or constant operand written out first: a loop fusion of its own, before them.
/// (A pad's scalar value is read as a constant or a word, so it needs nothing.)
fn materialise_operands(graph: &Graph, instr: &Instruction, fusions: &mut Vec<Fusion>, owner: &mut [Option<usize>]) {
    let operands = if matches!(instr.op, Op::Pad { .. }) { &instr.operands[..1] } else { &instr.operands[..] };
    for &o in operands {
        // A reshape is a view: write out what it reshapes (a broadcast, say), and read that
        // through the reshape.
        let mut o = o;
        while graph.instrs[o].op == Op::Reshape {
            o = graph.instrs[o].operands[0];
        }
        if owner[o].is_none() && needs_materialising(graph, o, owner) {
            fusions.push(Fusion { kind: FusionKind::Loop, ops: vec![o], outputs: vec![] });
            owner[o] = Some(fusions.len() - 1);
        }
    }
}

/// A reshape is a view only of elements laid out row-major: a reshape that merges a broadcast
/// axis with another (`jnp.tile`'s) reads what no strides describe. Then what it reshapes is
/// written out first, by a loop fusion of its own, and read through the reshape as a whole.
fn materialise_unviewable(graph: &Graph, v: ValueId, fusions: &mut Vec<Fusion>, owner: &mut [Option<usize>]) {
    while let Err(source) = view_strides(graph, v, owner) {
        materialise_unviewable(graph, graph.instrs[source].operands[0], fusions, owner);
        fusions.push(Fusion { kind: FusionKind::Loop, ops: vec![source], outputs: vec![] });
        owner[source] = Some(fusions.len() - 1);
    }
}

/// The strides at which the kernels will read `v` through its chain of views, each computed
/// value row-major (as the emitter's `view_source` sees them); or the operand of the first
/// reshape in the chain that is not a view.
fn view_strides(g: &Graph, v: ValueId, owner: &[Option<usize>]) -> Result<Vec<usize>, ValueId> {
    let instr = &g.instrs[v];
    if owner[v].is_some() {
        return Ok(row_major(&instr.shape));
    }
    match &instr.op {
        Op::Iota { dimension } => {
            let mut strides = vec![0; instr.shape.len()];
            strides[*dimension] = 1;
            Ok(strides)
        }
        Op::Convert => view_strides(g, instr.operands[0], owner),
        Op::Reshape => {
            let operand = instr.operands[0];
            let src = view_strides(g, operand, owner)?;
            if src == row_major(&g.instrs[operand].shape) {
                Ok(row_major(&instr.shape))
            } else {
                Err(operand)
            }
        }
        Op::Broadcast { dims } => {
            let operand = instr.operands[0];
            let (src, src_shape) = (view_strides(g, operand, owner)?, &g.instrs[operand].shape);
            let mut strides = vec![0; instr.shape.len()];
            for (k, &d) in dims.iter().enumerate() {
                if src_shape[k] != 1 {
                    strides[d] = src[k];
                }
            }
            Ok(strides)
        }
        _ => Ok(row_major(&instr.shape)),
    }
}

/// Whether a value has no HBM buffer it could be read from as is (row-major).
fn needs_materialising(g: &Graph, v: ValueId, owner: &[Option<usize>]) -> bool {
    if owner[v].is_some() {
        return false;
    }
    match &g.instrs[v].op {
        Op::Parameter(_) => false,
        Op::Reshape | Op::Convert => needs_materialising(g, g.instrs[v].operands[0], owner),
        Op::Constant(_) | Op::Iota { .. } | Op::Broadcast { .. } => true,
        _ => false,
    }
}

impl fmt::Display for FusedGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.graph;
        writeln!(f, "FusedModule {}", g.name)?;
        for (i, fusion) in self.fusions.iter().enumerate() {
            let root = fusion.root();
            let inputs: Vec<String> = fusion.inputs(g).iter().map(|&v| format!("%{}", g.value_name(v))).collect();
            let calls: Vec<String> = fusion.ops.iter().map(|&v| format!("%{}", g.value_name(v))).collect();
            let marker = if g.outputs.contains(&root) { "ROOT " } else { "" };
            let outputs = if fusion.outputs.len() > 1 {
                let names: Vec<String> = fusion.outputs.iter().map(|&v| format!("%{}", g.value_name(v))).collect();
                format!(", outputs={{{}}}", names.join(", "))
            } else {
                String::new()
            };
            writeln!(
                f,
                "  {marker}%fusion.{i} = {} fusion({}), kind={}, calls={{{}}}{outputs}",
                shape_text(g.instrs[root].elem, &g.instrs[root].shape),
                inputs.join(", "),
                fusion.kind.name(),
                calls.join(", ")
            )?;
        }
        Ok(())
    }
}
