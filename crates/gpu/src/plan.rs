//! Lowering a program to a list of compute dispatches: which kernel, with which parameters,
//! over how many invocations. Pure data, so it is testable without a GPU.

use bytemuck::{Pod, Zeroable};
use isa::{Block, Instr, Operand, Program, VectorOp};

/// The parameters of one dispatch, as `struct Params` in `shaders/common.wgsl` (same field
/// order; 16 words). Each dispatch's copy sits at its own 256-byte-aligned offset of one
/// uniform buffer.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Params {
    pub src_addr: u32,
    pub src_stride: u32,
    pub dst_addr: u32,
    pub dst_stride: u32,
    pub rows: u32,
    pub cols: u32,
    pub inner: u32,
    pub code: u32,
    pub a_kind: u32,
    pub a_value: u32,
    pub b_kind: u32,
    pub b_value: u32,
    pub len: u32,
    pub flags: u32,
    /// Always 0 (see `opaque` in the shader).
    pub zero: u32,
    /// Where the MXU's weight registers start in the weights buffer (each MXU has a slot).
    pub weights_at: u32,
}

/// The compute kernels, one pipeline each. Every vector opcode has its own pipeline, so a
/// pipeline holds only the maths its op needs (software adapters compile a shader with every
/// function inlined in it far more slowly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    Dma,
    MxuWeights,
    MxuActivations,
    MxuMatmul,
    MxuPackedWeights,
    MxuPackedActivations,
    MxuPackedMatmul,
    Vector(VectorOp),
    Reduce,
    Transpose,
}

impl Kernel {
    /// The WGSL entry point.
    pub fn entry_point(self) -> &'static str {
        match self {
            Kernel::Dma => "dma",
            Kernel::MxuWeights => "mxu_weights",
            Kernel::MxuActivations => "mxu_activations",
            Kernel::MxuMatmul => "mxu_matmul",
            Kernel::MxuPackedWeights => "mxu_packed_weights",
            Kernel::MxuPackedActivations => "mxu_packed_activations",
            Kernel::MxuPackedMatmul => "mxu_packed_matmul",
            Kernel::Vector(_) => "vector_op",
            Kernel::Reduce => "xlu_reduce",
            Kernel::Transpose => "xlu_transpose",
        }
    }
}

/// How the GPU runs the MXU: the layout of its weight registers and activations, and the
/// kernels over them. All give the same bits (each output's sum keeps the systolic order);
/// which is faster depends on the adapter (`GpuBackend` picks one per adapter, see
/// `matmul_kernel_for`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatmulKernel {
    /// Word-per-word layouts (`shaders/mxu.wgsl`), one output per invocation: the most
    /// parallelism, two loads per product.
    PerOutput,
    /// bfloat16 parts packed two to a word and four words to a `vec4`
    /// (`shaders/mxu_packed.wgsl`), a 4×4 block of outputs per invocation: a sixteenth of the
    /// invocations, two `vec4` loads per thirty-two products.
    Packed4x4,
}

impl MatmulKernel {
    pub const ALL: [MatmulKernel; 2] = [MatmulKernel::PerOutput, MatmulKernel::Packed4x4];

    pub fn name(self) -> &'static str {
        match self {
            MatmulKernel::PerOutput => "per-output",
            MatmulKernel::Packed4x4 => "packed-4x4",
        }
    }

    /// Words of one MXU's weight registers holding a K×N block.
    fn weight_words(self, k: u32, n: u32) -> u32 {
        match self {
            MatmulKernel::PerOutput => k * n,
            MatmulKernel::Packed4x4 => k.div_ceil(2) * n.div_ceil(4) * 4,
        }
    }

    /// Words of the activations of an M×K block.
    fn act_words(self, m: u32, k: u32) -> u64 {
        match self {
            MatmulKernel::PerOutput => m as u64 * k as u64,
            MatmulKernel::Packed4x4 => m.div_ceil(4) as u64 * 4 * k.div_ceil(2) as u64,
        }
    }

    /// The kernel and its invocations that load a K×N block of weights.
    fn weights(self, k: u32, n: u32) -> (Kernel, u32) {
        match self {
            MatmulKernel::PerOutput => (Kernel::MxuWeights, k * n),
            MatmulKernel::Packed4x4 => (Kernel::MxuPackedWeights, k.div_ceil(2) * n.div_ceil(4)),
        }
    }

    /// The kernel and its invocations that reduce an M×K block of activations to a part.
    fn activations(self, m: u32, k: u32) -> (Kernel, u32) {
        match self {
            MatmulKernel::PerOutput => (Kernel::MxuActivations, m * k),
            MatmulKernel::Packed4x4 => (Kernel::MxuPackedActivations, m.div_ceil(4) * k.div_ceil(2)),
        }
    }

    /// The kernel and its invocations for an M×N result.
    fn matmul(self, m: u32, n: u32) -> (Kernel, u32) {
        match self {
            MatmulKernel::PerOutput => (Kernel::MxuMatmul, m * n),
            MatmulKernel::Packed4x4 => (Kernel::MxuPackedMatmul, m.div_ceil(4) * n.div_ceil(4)),
        }
    }
}

/// One dispatch: `invocations` threads of `kernel` (one per word, output or lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub kernel: Kernel,
    pub params: Params,
    pub invocations: u32,
}

/// A program as dispatches, with the scratch sizes its MXU kernels need.
#[derive(Debug, Default)]
pub struct Plan {
    pub dispatches: Vec<Dispatch>,
    /// Words of the weight registers (a slot per MXU used) and of the largest activation block.
    pub weight_words: u64,
    pub act_words: u64,
}

const OPERAND_VMEM: u32 = 0;
const OPERAND_SPLAT: u32 = 1;
const OPERAND_IMM: u32 = 2;
const OPERAND_ROW: u32 = 3;
const OPERAND_COL: u32 = 4;

fn operand(o: Operand<u32>) -> (u32, u32) {
    match o {
        Operand::Vmem(a) => (OPERAND_VMEM, a),
        Operand::Splat(a) => (OPERAND_SPLAT, a),
        Operand::Imm(x) => (OPERAND_IMM, x.to_bits()),
        Operand::Row(a) => (OPERAND_ROW, a),
        Operand::Col(a) => (OPERAND_COL, a),
    }
}

fn overlaps(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < a.1 && b.0 < b.1 && a.0 < b.1 && b.0 < a.1
}

/// Whether elements of `dst[r][c] = op(a(r, c), b(r, c))` would read words other elements
/// write: then the reference's in-order loop is the semantics, and elements must run in order.
/// Conservative: running in order is always correct, only slower.
fn vector_lanes_interfere(dst: &Block<u32>, operands: &[Operand<u32>]) -> bool {
    let written = dst.span();
    operands.iter().any(|o| match *o {
        // Element for element in place is fine: each reads its own word before writing it.
        Operand::Vmem(x) if x == dst.addr => false,
        Operand::Row(x) if x == dst.addr && dst.rows <= 1 => false,
        Operand::Imm(_) => false,
        _ => {
            let x = *o.addr().expect("non-immediate operands have an address");
            let extent = o.extent(dst.rows, dst.cols, dst.stride) as u32;
            overlaps(written, (x, x.saturating_add(extent)))
        }
    })
}

fn block_params(src: &Block<u32>, dst: &Block<u32>) -> Params {
    Params {
        src_addr: src.addr,
        src_stride: src.stride,
        dst_addr: dst.addr,
        dst_stride: dst.stride,
        rows: src.rows,
        cols: src.cols,
        ..Params::default()
    }
}

/// Lowers a validated program (see `emu::validate`): one or two dispatches per operation,
/// loops unrolled; matmul outputs computed by `matmul`.
pub fn plan(program: &Program, matmul: MatmulKernel) -> Plan {
    let mut plan = Plan::default();
    // Each MXU's weight registers are a slot of the weights buffer, as large as the largest
    // weight block the program loads.
    let slot = program
        .instrs
        .iter()
        .filter_map(|i| match i {
            Instr::MxuWeights { src, .. } => Some(matmul.weight_words(src.rows, src.cols)),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    let mut weight_cols = [0u32; isa::MAX_MXUS as usize];
    // What the activations buffer holds: a source block reduced to a part, as long as nothing
    // has written to that block since. Consecutive matmuls over the same activations (one per
    // block of weight columns) then reduce them once.
    let mut act_holds: Option<(Block<u32>, usize)> = None;
    for (_, instr) in program.ops() {
        match &instr {
            Instr::DmaLoad { src, dst, .. } | Instr::DmaStore { src, dst, .. } => {
                let store = matches!(instr, Instr::DmaStore { .. });
                plan.dispatches.push(Dispatch {
                    kernel: Kernel::Dma,
                    params: Params { code: store as u32, ..block_params(src, dst) },
                    invocations: src.rows * src.cols,
                });
            }
            // Dispatches already run in program order, each seeing all earlier writes; ops()
            // has already unrolled the loops.
            Instr::Wait { .. } | Instr::Loop { .. } | Instr::End => {}
            // One invocation per row. The destination may overlap the source (the reference
            // reads a whole row before writing its word), so overlapping rows run in order.
            // Source and destination never overlap (validated): one invocation per element.
            Instr::Transpose { src, dst } => plan.dispatches.push(Dispatch {
                kernel: Kernel::Transpose,
                params: block_params(src, dst),
                invocations: src.rows * src.cols,
            }),
            Instr::Reduce { op, src, dst } => {
                let serial = overlaps(src.span(), (*dst, dst.saturating_add(src.rows)));
                plan.dispatches.push(Dispatch {
                    kernel: Kernel::Reduce,
                    params: Params { dst_addr: *dst, code: *op as u32, flags: serial as u32, ..block_params(src, src) },
                    invocations: if serial { src.rows.min(1) } else { src.rows },
                });
            }
            Instr::MxuWeights { src, part, mxu } => {
                weight_cols[*mxu as usize] = src.cols;
                plan.weight_words = plan.weight_words.max((*mxu as u64 + 1) * slot as u64);
                let (kernel, invocations) = matmul.weights(src.rows, src.cols);
                plan.dispatches.push(Dispatch {
                    kernel,
                    params: Params {
                        code: part.index() as u32,
                        weights_at: *mxu as u32 * slot,
                        ..block_params(src, src)
                    },
                    invocations,
                });
            }
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => {
                // The reference reads a row of activations, then writes that row of results.
                // When the result block overlaps the activations, a later row may read what
                // an earlier one wrote, so go row by row; otherwise all rows at once.
                let row_by_row = overlaps(src.span(), dst.span());
                let chunk = if row_by_row { 1 } else { src.rows.max(1) };
                let (k, n) = (src.cols, weight_cols[*mxu as usize]);
                plan.act_words = plan.act_words.max(matmul.act_words(chunk, k));
                for row in (0..src.rows).step_by(chunk as usize) {
                    let rows = chunk.min(src.rows - row);
                    let src = Block { addr: src.addr + row * src.stride, rows, ..*src };
                    let dst = Block { addr: dst.addr + row * dst.stride, rows, ..*dst };
                    if act_holds != Some((src, part.index())) {
                        let (kernel, invocations) = matmul.activations(rows, k);
                        plan.dispatches.push(Dispatch {
                            kernel,
                            params: Params { code: part.index() as u32, ..block_params(&src, &src) },
                            invocations,
                        });
                        act_holds = Some((src, part.index()));
                    }
                    let (kernel, invocations) = matmul.matmul(rows, n);
                    plan.dispatches.push(Dispatch {
                        kernel,
                        params: Params {
                            cols: n,
                            inner: k,
                            flags: *accumulate as u32,
                            weights_at: *mxu as u32 * slot,
                            ..block_params(&src, &dst)
                        },
                        invocations,
                    });
                }
            }
            Instr::Vector { op, dst, a, b } => {
                let operands: &[Operand<u32>] = if op.arity() == 2 { &[*a, *b] } else { &[*a] };
                let serial = vector_lanes_interfere(dst, operands);
                let (a_kind, a_value) = operand(*a);
                let (b_kind, b_value) = operand(*b);
                let elements = dst.rows * dst.cols;
                plan.dispatches.push(Dispatch {
                    kernel: Kernel::Vector(*op),
                    params: Params {
                        dst_addr: dst.addr,
                        dst_stride: dst.stride,
                        rows: dst.rows,
                        cols: dst.cols,
                        code: op.code(),
                        a_kind,
                        a_value,
                        b_kind,
                        b_value,
                        len: elements,
                        flags: serial as u32,
                        ..Params::default()
                    },
                    invocations: if serial { elements.min(1) } else { elements },
                });
            }
        }
        if act_holds.is_some_and(|(held, _)| instr.vmem_writes().into_iter().any(|w| overlaps(held.span(), w))) {
            act_holds = None;
        }
    }
    plan
}

/// Workgroups for `invocations` threads of `workgroup_size`: a 1-D grid while it fits in
/// `max_per_dim` groups, else 2-D (the shaders linearise `(y * groups.x + x)`).
pub fn grid(invocations: u32, workgroup_size: u32, max_per_dim: u32) -> (u32, u32) {
    let groups = invocations.div_ceil(workgroup_size);
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        (max_per_dim, groups.div_ceil(max_per_dim))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_wgsl_struct() {
        assert_eq!(std::mem::size_of::<Params>(), 64);
    }

    #[test]
    fn large_problems_use_a_2d_grid() {
        assert_eq!(grid(64, 64, 65535), (1, 1));
        assert_eq!(grid(65, 64, 65535), (2, 1));
        assert_eq!(grid(65535 * 64, 64, 65535), (65535, 1));
        assert_eq!(grid(65535 * 64 + 1, 64, 65535), (65535, 2));
        let (x, y) = grid(u32::MAX, 64, 65535);
        assert!(x as u64 * y as u64 * 64 >= u32::MAX as u64);
    }

    #[test]
    fn consecutive_matmuls_reduce_their_activations_once() {
        let src = Block { addr: 0, rows: 8, cols: 4, stride: 4 };
        let weights = Block { addr: 32, rows: 4, cols: 4, stride: 4 };
        let matmul = |dst, mxu| Instr::MxuMatmul {
            src,
            dst: Block { addr: dst, rows: 8, cols: 4, stride: 4 },
            part: isa::Part::Hi,
            accumulate: false,
            mxu,
        };
        let program = |instrs: Vec<Instr<u32>>| Program {
            name: "p".into(),
            instrs: instrs.into_iter().map(Instr::from).collect(),
            hbm_words: 0,
            vmem_words: 200,
            inputs: vec![],
            outputs: vec![],
            flops: 0,
        };
        let weights_to = |mxu| Instr::MxuWeights { src: weights, part: isa::Part::Hi, mxu };
        let rewrite = Instr::Vector { op: VectorOp::Neg, dst: src, a: Operand::Vmem(0), b: Operand::Imm(0.0) };
        let reductions = |p: &Program, kernel: MatmulKernel| {
            let (reduce, _) = kernel.activations(1, 1);
            plan(p, kernel).dispatches.iter().filter(|d| d.kernel == reduce).count()
        };
        let twice = program(vec![weights_to(0), weights_to(1), matmul(48, 0), matmul(80, 1)]);
        let rewritten = program(vec![weights_to(0), matmul(48, 0), rewrite, matmul(80, 0)]);
        for kernel in MatmulKernel::ALL {
            assert_eq!(reductions(&twice, kernel), 1, "{}", kernel.name());
            assert_eq!(reductions(&rewritten, kernel), 2, "{}", kernel.name());
        }
    }

    #[test]
    fn interfering_vector_lanes_are_detected() {
        let v = |x| Operand::Vmem(x);
        let flat = Block::flat(10, 8);
        assert!(!vector_lanes_interfere(&flat, &[v(10), v(10)]));
        assert!(vector_lanes_interfere(&flat, &[v(11)]));
        assert!(vector_lanes_interfere(&flat, &[v(3)]));
        assert!(!vector_lanes_interfere(&flat, &[v(2)]));
        assert!(!vector_lanes_interfere(&flat, &[v(18)]));
        assert!(vector_lanes_interfere(&flat, &[Operand::Splat(12)]));
        assert!(!vector_lanes_interfere(&flat, &[Operand::Imm(1.0)]));
        // A 2x4 block with stride 8 leaves words 14..18 alone: a row there does not interfere.
        let strided = Block { addr: 10, rows: 2, cols: 4, stride: 8 };
        assert!(vector_lanes_interfere(&strided, &[Operand::Row(14)]));
        assert!(!vector_lanes_interfere(&strided, &[Operand::Row(22)]));
        assert!(vector_lanes_interfere(&strided, &[Operand::Col(21)]));
    }
}
