//! Lowering a program to a list of compute dispatches: which kernel, with which parameters,
//! over how many invocations. Pure data, so it is testable without a GPU.

use bytemuck::{Pod, Zeroable};
use isa::{Block, Instr, IsaError, Operand, Part, Program, VectorOp};

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
    /// A matmul's first step in `Plan::steps` (it has `len`).
    pub first_step: u32,
    pub code: u32,
    pub a_kind: u32,
    pub a_value: u32,
    pub b_kind: u32,
    pub b_value: u32,
    pub len: u32,
    pub flags: u32,
    /// Always 0 (see `opaque` in the shader).
    pub zero: u32,
    /// Where the weights or activations a kernel reduces go in their scratch buffer, in words.
    pub scratch_at: u32,
}

/// The compute kernels, one pipeline each. Every vector opcode has its own pipeline, so a
/// pipeline holds only the maths its op needs (software adapters compile a shader with every
/// function inlined in it far more slowly).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// A DMA load or store; `split` when HBM is split over several bindings (`Limits`),
    /// `bf16` when HBM holds the block packed.
    Dma {
        store: bool,
        split: bool,
        bf16: bool,
    },
    /// The reducers of operands to one bf16 part: a pipeline per part, so that each holds
    /// only its part's arithmetic (a shader branching on the part at run time costs software
    /// adapters all three).
    MxuWeights(Part),
    MxuActivations(Part),
    /// On devices that flush subnormals, after each reducer: the least and greatest exponent
    /// field of each column of the weights or row of the activations, for the matmul's
    /// choice of path.
    MxuWeightsExponents,
    MxuActivationsExponents,
    MxuMatmul,
    /// On devices that flush subnormals, after each matmul: the blocks of outputs it left,
    /// those whose products might meet a subnormal or overflow.
    MxuMatmulExact,
    /// Moves loaded weights within the weights scratch.
    MxuCopyWeights,
    Vector(VectorOp),
    Reduce,
    Transpose,
}

impl Kernel {
    /// Whether the kernel's module is built for a device that flushes subnormals or one that
    /// keeps them (`FLUSHES`): the MXU's and the vector unit's are.
    pub fn knows_flushing(self) -> bool {
        !matches!(self, Kernel::Dma { .. } | Kernel::MxuWeightsExponents | Kernel::MxuActivationsExponents)
    }

    /// The WGSL entry point.
    pub fn entry_point(self) -> &'static str {
        match self {
            Kernel::Dma { store: false, bf16: false, .. } => "dma_load",
            Kernel::Dma { store: true, bf16: false, .. } => "dma_store",
            Kernel::Dma { store: false, bf16: true, .. } => "dma_load_bf16",
            Kernel::Dma { store: true, bf16: true, .. } => "dma_store_bf16",
            Kernel::MxuWeights(_) => "mxu_weights",
            Kernel::MxuActivations(_) => "mxu_activations",
            Kernel::MxuWeightsExponents => "mxu_weights_exponents",
            Kernel::MxuActivationsExponents => "mxu_activations_exponents",
            Kernel::MxuMatmul => "mxu_matmul",
            Kernel::MxuMatmulExact => "mxu_matmul_exact",
            Kernel::MxuCopyWeights => "mxu_copy_weights",
            Kernel::Vector(_) => "vector_op",
            Kernel::Reduce => "xlu_reduce",
            Kernel::Transpose => "xlu_transpose",
        }
    }
}

// The MXU's scratch layouts (`shaders/mxu.wgsl`): bfloat16 parts packed two to a word and
// four words to a `vec4`, in groups of four columns (weights) or rows (activations), each
// block followed by two `vec4`s per group for their least and greatest exponent fields (written
// only on devices that flush subnormals; always there, so the layout is one).

/// Groups of four rows or columns in the layouts, padded to an even number so that every 8×8
/// block of outputs a matmul invocation computes lies inside (`groups_of_four` in
/// `shaders/common.wgsl`).
fn groups_of_four(x: u32) -> u32 {
    x.div_ceil(8) * 2
}

/// Words of one MXU's weight registers holding a K×N block.
fn weight_words(k: u32, n: u32) -> u32 {
    (k.div_ceil(2) + 2) * groups_of_four(n) * 4
}

/// Words of the activations of an M×K block.
fn act_words(m: u32, k: u32) -> u64 {
    groups_of_four(m) as u64 * 4 * (k.div_ceil(2) as u64 + 2)
}

/// One dispatch: `invocations` threads of `kernel` (one per word, output or lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub kernel: Kernel,
    pub params: Params,
    pub invocations: u32,
}

/// One matmul of a chain: where its activations and weights (already reduced to their bf16
/// part, in the kernel's layout) start in their scratch buffers, in words, and its K.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct Step {
    pub act_at: u32,
    pub weights_at: u32,
    pub k: u32,
    pub unused: u32,
}

/// A program as dispatches, with the scratch sizes its MXU kernels need.
#[derive(Debug, Default)]
pub struct Plan {
    pub dispatches: Vec<Dispatch>,
    /// The steps of every matmul dispatch: each reads `Params::len` steps from
    /// `Params::first_step` (a storage buffer of its own).
    pub steps: Vec<Step>,
    /// Words of the weights scratch and of the activations scratch the plan uses.
    pub weight_words: u64,
    pub act_words: u64,
}

/// Words of each scratch region a plan fills before it flushes its pending matmuls and starts
/// over (see `Planner`): enough for every chain of a 1024³ matmul at once, small beside any
/// adapter's binding limit. A region is never smaller than the blocks it must hold.
pub const SCRATCH_WORDS: u64 = 1 << 21;

/// Bindings HBM may be split over: with VMEM, the two scratch buffers and the steps, WebGPU's
/// default of eight storage buffers per shader stage.
pub const HBM_PARTS: u64 = 4;

/// What an adapter allows a plan (`GpuBackend` derives it from the adapter's limits).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Words of each MXU scratch region.
    pub scratch_words: u64,
    /// Words of one HBM binding, a power of two: a larger HBM is split over up to `HBM_PARTS`
    /// bindings, word `a` in part `a / hbm_part_words`.
    pub hbm_part_words: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { scratch_words: SCRATCH_WORDS, hbm_part_words: 1 << 30 }
    }
}

/// Pairs of k each invocation of the exponent kernels folds (`CHUNK` in
/// `shaders/mxu_exponents.wgsl`).
const EXPONENTS_CHUNK: u32 = 16;

/// Words of a row each DMA invocation copies (`DMA_RUN` in `shaders/dma.wgsl`).
const DMA_RUN: u32 = 32;

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

/// Whether two blocks share a word. Blocks of one stride are compared row by row (the column
/// tiles of a matrix interleave without sharing a word); others by their spans, which may
/// say they share one when they do not (conservative: the plan then only splits a chain).
fn blocks_overlap(a: &Block<u32>, b: &Block<u32>) -> bool {
    if !overlaps(a.span(), b.span()) {
        return false;
    }
    // A single row fits any stride its columns fit in.
    let stride = match (a.rows, b.rows) {
        (1, _) => b.stride,
        (_, 1) => a.stride,
        _ if a.stride == b.stride => a.stride,
        _ => return true,
    };
    if stride == 0 || a.cols > stride || b.cols > stride {
        return true;
    }
    // A word of both is a + r1·s + c1 = b + r2·s + c2, so c1 - c2 ≡ b - a (mod s), and c1 - c2
    // lies in (-b.cols, a.cols), an interval shorter than 2s: two candidates to try.
    let (s, d) = (stride as i64, b.addr as i64 - a.addr as i64);
    let first = d.rem_euclid(s);
    [first, first - s].into_iter().any(|delta| {
        if delta <= -(b.cols as i64) || delta >= a.cols as i64 {
            return false;
        }
        // r1 = r2 + q with 0 <= r1 < a.rows and 0 <= r2 < b.rows.
        let q = (d - delta) / s;
        0.max(-q) < (b.rows as i64).min(a.rows as i64 - q)
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

/// Kernels for a device that flushes subnormals (see `shaders/mxu.wgsl`): each reduced block's
/// least and greatest exponent fields follow it, and each matmul dispatch is followed by the
/// exact kernel.
#[derive(Clone, Copy, Debug)]
pub struct Flushing {
    /// Blocks of outputs per invocation of the exact kernel: 1 on hardware GPUs, more on
    /// software adapters, which pay for every invocation of a large kernel (`GpuBackend`).
    pub exact_run: u32,
}

/// Lowers a validated program without `s.load` (see `emu::validate`): one dispatch per
/// operation, loops unrolled, except that the matmuls accumulating into one block run as one
/// dispatch (see `Planner`), within the adapter's `limits`, with the kernels for a device that
/// flushes subnormals where `flushing` says so. A program that reads scalars is planned a
/// piece at a time ([`Pieces`]); here it is an error.
pub fn plan(program: &Program, limits: Limits, flushing: Option<Flushing>) -> Result<Plan, IsaError> {
    match Pieces::new(program, limits, flushing, u64::MAX).next_piece()? {
        (plan, None) => Ok(plan),
        (_, Some(_)) => Err(IsaError {
            index: None,
            message: "the program reads scalars (s.load): it is planned a piece at a time".into(),
        }),
    }
}

/// A program planned a piece at a time: a piece ends at a `s.load`, whose word the host reads
/// back from VMEM before the rest can be planned (the branches and addresses after it depend on
/// it), or at the program's end. The planner's state (the MXUs' weights in their scratch,
/// activations already reduced) carries over from piece to piece, as the buffers do.
pub struct Pieces<'a> {
    planner: Planner,
    ops: isa::Ops<'a>,
}

impl<'a> Pieces<'a> {
    /// Plans `program`, its `while` loops taking at most `max_trips` trips together.
    pub fn new(program: &'a Program, limits: Limits, flushing: Option<Flushing>, max_trips: u64) -> Pieces<'a> {
        let mut planner = Planner::new(program, limits, flushing);
        if program.reads_scalars() {
            // Scratch the first piece sizes must not grow under a later one (growing replaces
            // the buffer, and the weights in it).
            planner.plan.weight_words = 2 * planner.weights_half as u64;
            planner.plan.act_words = planner.plan.act_words.max(planner.act_size as u64);
        }
        Pieces { planner, ops: program.ops().max_trips(max_trips) }
    }

    /// The next piece's dispatches, and the VMEM address of the word whose `s.load` ends it
    /// (`None` for the last piece). Each piece's `Params::first_step` count from its own steps.
    pub fn next_piece(&mut self) -> Result<(Plan, Option<u32>), IsaError> {
        let mut load = None;
        for next in self.ops.by_ref() {
            let (_, instr) = next?;
            if let Instr::ScalarLoad { src, .. } = instr {
                load = Some(src);
                break;
            }
            self.planner.instr(&instr);
        }
        self.planner.flush_all();
        let plan = &mut self.planner.plan;
        let piece = Plan {
            dispatches: std::mem::take(&mut plan.dispatches),
            steps: std::mem::take(&mut plan.steps),
            weight_words: plan.weight_words,
            act_words: plan.act_words,
        };
        Ok((piece, load))
    }

    /// Hands over the word the last piece's `s.load` read.
    pub fn load(&mut self, word: u32) {
        self.ops.load(word);
    }
}

/// Weights loaded into an MXU: where in the weights scratch, and their shape.
#[derive(Clone, Copy, Debug)]
struct Loaded {
    at: u32,
    k: u32,
    n: u32,
}

/// Matmuls into one destination block not yet dispatched: the first overwrites it or adds to
/// it (`accumulate`), each later one adds to it.
#[derive(Debug)]
struct Chain {
    dst: Block<u32>,
    n: u32,
    accumulate: bool,
    steps: Vec<Step>,
}

/// Builds a plan. On a TPU a K-tiled matmul is a chain of MXU passes adding into one output
/// block; dispatched one by one, each pass would read and write every output again. Instead
/// each pass's operands are reduced to their parts where the pass stands (so later writes to
/// their sources do not matter), into scratch of their own, and the pass joins its
/// destination's pending chain; the chain is dispatched, as one kernel that keeps the running
/// sums in registers, when anything else reads or writes its destination, when scratch runs
/// out, or at the end. The bits are those of one dispatch per pass: each pass's sum starts
/// from +0 and is added to the running sum in program order.
struct Planner {
    plan: Plan,
    /// On a device that flushes subnormals, the blocks of outputs each invocation of
    /// `Kernel::MxuMatmulExact` looks at (see `Flushing`).
    exact_run: Option<u32>,
    /// Each MXU's loaded weights.
    mxus: [Option<Loaded>; isa::MAX_MXUS as usize],
    /// The weights scratch is two halves of `weights_half` words; loads fill the one at
    /// `weights_base` from `weights_in_half` on. When it is full, the weights still loaded
    /// move to the start of the other (`Kernel::MxuCopyWeights`).
    weights_half: u32,
    weights_base: u32,
    weights_in_half: u32,
    act_size: u32,
    act_used: u32,
    /// Activation blocks already reduced: (source block, part) at an offset of the scratch,
    /// as long as nothing has written to the block since.
    acts: Vec<(Block<u32>, usize, u32)>,
    chains: Vec<Chain>,
    /// HBM is split over several bindings (`Limits::hbm_part_words`).
    split_hbm: bool,
}

impl Planner {
    fn new(program: &Program, limits: Limits, flushing: Option<Flushing>) -> Planner {
        let scratch_words = limits.scratch_words;
        let (mut largest_weights, mut largest_act, mut most_blocks) = (0u32, 0u64, 0u64);
        for instr in &program.instrs {
            match instr {
                Instr::MxuWeights { src, .. } => {
                    largest_weights = largest_weights.max(weight_words(src.rows, src.cols))
                }
                Instr::MxuMatmul { src, dst, .. } => {
                    largest_act = largest_act.max(act_words(src.rows, src.cols));
                    most_blocks = most_blocks.max(groups_of_four(dst.rows) as u64 * groups_of_four(dst.cols) as u64);
                }
                _ => {}
            }
        }
        // A half holds every MXU's weights plus one more load, so moving the live ones
        // always leaves room for the load that needed it.
        // A multiple of four words: blocks start on a `vec4`.
        let weights_half = scratch_words.max((isa::MAX_MXUS as u64 + 1) * largest_weights as u64).next_multiple_of(4);
        let mut plan = Plan::default();
        let act_size = scratch_words.max(largest_act).next_multiple_of(4);
        if flushing.is_some() {
            // The blocks the matmul leaves to the exact kernel: a `vec4` flag per block of
            // outputs, after the activations.
            plan.act_words = act_size + 4 * most_blocks;
        }
        Planner {
            plan,
            exact_run: flushing.map(|f| f.exact_run.max(1)),
            mxus: [None; isa::MAX_MXUS as usize],
            weights_half: u32::try_from(weights_half).unwrap_or(u32::MAX / 2),
            weights_base: 0,
            weights_in_half: 0,
            act_size: u32::try_from(act_size).unwrap_or(u32::MAX),
            act_used: 0,
            acts: Vec::new(),
            chains: Vec::new(),
            split_hbm: program.hbm_words as u64 > limits.hbm_part_words,
        }
    }

    fn push(&mut self, kernel: Kernel, params: Params, invocations: u32) {
        self.plan.dispatches.push(Dispatch { kernel, params, invocations });
    }

    fn instr(&mut self, instr: &Instr<u32>) {
        let writes = instr.vmem_writes();
        // The chain this matmul continues, if any (by its destination): dispatching it now
        // would only split it.
        let continues = match instr {
            Instr::MxuMatmul { src, dst, accumulate: true, mxu, .. } if !overlaps(src.span(), dst.span()) => {
                let loaded = self.mxus[*mxu as usize];
                self.chains
                    .iter()
                    .find(|c| c.dst == *dst && loaded.is_some_and(|w| w.n == c.n && w.k == src.cols))
                    .map(|c| c.dst)
            }
            _ => None,
        };
        let blocks = [instr.vmem_read_blocks(), instr.vmem_write_blocks()].concat();
        let (pending, touched): (Vec<Chain>, Vec<Chain>) = std::mem::take(&mut self.chains)
            .into_iter()
            .partition(|c| Some(c.dst) == continues || !blocks.iter().any(|b| blocks_overlap(b, &c.dst)));
        self.chains = pending;
        for chain in touched {
            self.dispatch(chain);
        }
        match instr {
            Instr::DmaLoad { src, dst, elem, .. } | Instr::DmaStore { src, dst, elem, .. } => {
                let store = matches!(instr, Instr::DmaStore { .. });
                let bf16 = *elem == isa::ElemType::Bf16;
                // A packed store's invocations each write whole words of a row (`dma.wgsl`).
                let per_row = if store && bf16 { src.cols / 2 + 1 } else { src.cols };
                let invocations = src.rows * per_row.div_ceil(DMA_RUN);
                self.push(Kernel::Dma { store, split: self.split_hbm, bf16 }, block_params(src, dst), invocations);
            }
            // Dispatches already run in program order, each seeing all earlier writes; ops()
            // has already run the control (a `s.load` ends a piece before it gets here).
            Instr::Wait { .. }
            | Instr::Loop { .. }
            | Instr::End
            | Instr::ScalarLoad { .. }
            | Instr::Scalar { .. }
            | Instr::While { .. }
            | Instr::If { .. }
            | Instr::Else => {}
            // Source and destination never overlap (validated): one invocation per element.
            Instr::Transpose { src, dst } => self.push(Kernel::Transpose, block_params(src, dst), src.rows * src.cols),
            // One invocation per row. The destination may overlap the source (the reference
            // reads a whole row before writing its word), so overlapping rows run in order.
            Instr::Reduce { op, src, dst } => {
                let serial = overlaps(src.span(), (*dst, dst.saturating_add(src.rows)));
                let params =
                    Params { dst_addr: *dst, code: *op as u32, flags: serial as u32, ..block_params(src, src) };
                self.push(Kernel::Reduce, params, if serial { src.rows.min(1) } else { src.rows });
            }
            Instr::MxuWeights { src, part, mxu } => self.load_weights(src, *part, *mxu),
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => {
                let Some(weights) = self.mxus[*mxu as usize] else {
                    // Validation rejects a matmul before its MXU's first load; the reference
                    // would multiply by an empty array, so there is nothing to do.
                    return;
                };
                // The reference reads a row of activations, then writes that row of results.
                // When the result block overlaps the activations, a later row may read what an
                // earlier one wrote, so go row by row, each at once.
                if overlaps(src.span(), dst.span()) {
                    for row in 0..src.rows {
                        let src = Block { addr: src.addr + row * src.stride, rows: 1, ..*src };
                        let dst = Block { addr: dst.addr + row * dst.stride, rows: 1, ..*dst };
                        let act_at = self.reduce_activations(&src, *part, false);
                        let step = Step { act_at, weights_at: weights.at, k: src.cols, unused: 0 };
                        self.dispatch(Chain { dst, n: weights.n, accumulate: *accumulate, steps: vec![step] });
                    }
                } else {
                    let act_at = self.reduce_activations(src, *part, true);
                    let step = Step { act_at, weights_at: weights.at, k: src.cols, unused: 0 };
                    match self.chains.iter_mut().find(|c| Some(c.dst) == continues) {
                        Some(chain) => chain.steps.push(step),
                        None => self.chains.push(Chain {
                            dst: *dst,
                            n: weights.n,
                            accumulate: *accumulate,
                            steps: vec![step],
                        }),
                    }
                }
            }
            Instr::Vector { op, dst, a, b } => {
                let operands: &[Operand<u32>] = if op.arity() == 2 { &[*a, *b] } else { &[*a] };
                let serial = vector_lanes_interfere(dst, operands);
                let (a_kind, a_value) = operand(*a);
                let (b_kind, b_value) = operand(*b);
                let elements = dst.rows * dst.cols;
                let params = Params {
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
                };
                self.push(Kernel::Vector(*op), params, if serial { elements.min(1) } else { elements });
            }
        }
        self.acts.retain(|(held, _, _)| writes.iter().all(|&w| !overlaps(held.span(), w)));
    }

    /// Reduces a K×N block of weights into fresh weights scratch for `mxu`.
    fn load_weights(&mut self, src: &Block<u32>, part: Part, mxu: u8) {
        let words = weight_words(src.rows, src.cols);
        if self.weights_in_half + words > self.weights_half {
            self.move_weights_to_the_other_half(mxu);
        }
        let at = self.weights_base + self.weights_in_half;
        self.weights_in_half += words;
        self.plan.weight_words = self.plan.weight_words.max((at + words) as u64);
        self.mxus[mxu as usize] = Some(Loaded { at, k: src.rows, n: src.cols });
        // One invocation per pair of rows and group of four columns; for the exponents, per
        // run of `EXPONENTS_CHUNK` pairs.
        let params = Params { scratch_at: at, ..block_params(src, src) };
        let (pairs, groups) = (src.rows.div_ceil(2), groups_of_four(src.cols));
        self.push(Kernel::MxuWeights(part), params, pairs * groups);
        if self.exact_run.is_some() {
            self.push(Kernel::MxuWeightsExponents, params, pairs.div_ceil(EXPONENTS_CHUNK) * groups);
        }
    }

    /// Dispatches every pending chain, then copies the weights still loaded (but those of
    /// `reloading`, about to be replaced) to the start of the other half, which later loads
    /// fill.
    fn move_weights_to_the_other_half(&mut self, reloading: u8) {
        self.flush_all();
        self.weights_base = if self.weights_base == 0 { self.weights_half } else { 0 };
        self.weights_in_half = 0;
        for (mxu, slot) in self.mxus.iter_mut().enumerate() {
            let Some(loaded) = slot.as_mut() else { continue };
            if mxu == reloading as usize {
                *slot = None;
                continue;
            }
            let to = self.weights_base + self.weights_in_half;
            let words = weight_words(loaded.k, loaded.n);
            let params = Params { src_addr: loaded.at, dst_addr: to, len: words, ..Params::default() };
            // One invocation per `vec4`.
            self.plan.dispatches.push(Dispatch { kernel: Kernel::MxuCopyWeights, params, invocations: words / 4 });
            loaded.at = to;
            self.weights_in_half += words;
            self.plan.weight_words = self.plan.weight_words.max((to + words) as u64);
        }
    }

    /// Where the parts of an M×K block of activations are in the activations scratch:
    /// reduced there now unless `reuse` finds them already reduced.
    fn reduce_activations(&mut self, src: &Block<u32>, part: Part, reuse: bool) -> u32 {
        let key = (*src, part.index());
        if let Some(&(_, _, at)) = self.acts.iter().find(|(block, p, _)| reuse && (*block, *p) == key) {
            return at;
        }
        let words = u32::try_from(act_words(src.rows, src.cols)).unwrap_or(u32::MAX);
        if self.act_used.saturating_add(words) > self.act_size {
            self.flush_all();
            self.acts.clear();
            self.act_used = 0;
        }
        let at = self.act_used;
        self.act_used += words;
        self.plan.act_words = self.plan.act_words.max(self.act_used as u64);
        if reuse {
            self.acts.push((*src, part.index(), at));
        }
        // One invocation per group of four rows and pair of columns; for the exponents, per
        // run of `EXPONENTS_CHUNK` pairs.
        let params = Params { scratch_at: at, ..block_params(src, src) };
        let (groups, pairs) = (groups_of_four(src.rows), src.cols.div_ceil(2));
        self.push(Kernel::MxuActivations(part), params, groups * pairs);
        if self.exact_run.is_some() {
            self.push(Kernel::MxuActivationsExponents, params, groups * pairs.div_ceil(EXPONENTS_CHUNK));
        }
        at
    }

    /// Dispatches a chain: its steps go to the plan's table, one matmul dispatch reads them.
    fn dispatch(&mut self, chain: Chain) {
        let first_step = self.plan.steps.len() as u32;
        let len = chain.steps.len() as u32;
        self.plan.steps.extend(chain.steps);
        // One invocation per 8×8 block of outputs; the exact kernel looks at 4×4 blocks.
        let blocks = groups_of_four(chain.dst.rows) * groups_of_four(chain.n);
        let params = Params {
            dst_addr: chain.dst.addr,
            dst_stride: chain.dst.stride,
            rows: chain.dst.rows,
            cols: chain.n,
            first_step,
            len,
            flags: chain.accumulate as u32,
            // Where the blocks left to the exact kernel are flagged (see `Planner::new`).
            scratch_at: self.act_size,
            ..Params::default()
        };
        self.push(Kernel::MxuMatmul, params, blocks / 4);
        if let Some(run) = self.exact_run {
            // `run` blocks of outputs per invocation.
            let params = Params { code: run, ..params };
            self.push(Kernel::MxuMatmulExact, params, blocks.div_ceil(run));
        }
    }

    fn flush_all(&mut self) {
        for chain in std::mem::take(&mut self.chains) {
            self.dispatch(chain);
        }
    }
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
            part: Part::Hi,
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
            flops: vec![],
        };
        let weights_to = |mxu| Instr::MxuWeights { src: weights, part: Part::Hi, mxu };
        let rewrite = Instr::Vector { op: VectorOp::Neg, dst: src, a: Operand::Vmem(0), b: Operand::Imm(0.0) };
        let count = |p: &Program, flushes: bool, kernel| {
            plan(p, Limits::default(), flushes.then_some(Flushing { exact_run: 1 }))
                .unwrap()
                .dispatches
                .iter()
                .filter(|d| d.kernel == kernel)
                .count()
        };
        let twice = program(vec![weights_to(0), weights_to(1), matmul(48, 0), matmul(80, 1)]);
        let rewritten = program(vec![weights_to(0), matmul(48, 0), rewrite, matmul(80, 0)]);
        for flushes in [false, true] {
            assert_eq!(count(&twice, flushes, Kernel::MxuActivations(Part::Hi)), 1);
            assert_eq!(count(&rewritten, flushes, Kernel::MxuActivations(Part::Hi)), 2);
            // Each reduced block's exponents once, where the device flushes subnormals.
            let exponents = |p| count(p, flushes, Kernel::MxuActivationsExponents);
            assert_eq!((exponents(&twice), exponents(&rewritten)), if flushes { (1, 2) } else { (0, 0) });
            assert_eq!(count(&twice, flushes, Kernel::MxuWeightsExponents), if flushes { 2 } else { 0 });
            assert_eq!(count(&twice, flushes, Kernel::MxuMatmulExact), if flushes { 2 } else { 0 });
        }
    }

    /// A K-tiled matmul: `k_tiles` K tiles of 8 × two column tiles of 4, one MXU per column
    /// tile, and, when `peek`, a store of the first column tile after the first K tile.
    fn k_tiled(k_tiles: u32, peek: bool) -> Program {
        let (m, k, n) = (8, 8 * k_tiles, 8);
        let (a, w, d) = (0, m * k, m * k + k * n);
        let mut instrs = vec![];
        for kt in 0..k_tiles {
            for nt in 0..2 {
                let mxu = nt as u8;
                let src = Block { addr: w + kt * 8 * n + nt * 4, rows: 8, cols: 4, stride: n };
                instrs.push(Instr::MxuWeights { src, part: Part::Hi, mxu });
                instrs.push(Instr::MxuMatmul {
                    src: Block { addr: a + kt * 8, rows: m, cols: 8, stride: k },
                    dst: Block { addr: d + nt * 4, rows: m, cols: 4, stride: n },
                    part: Part::Hi,
                    accumulate: kt > 0,
                    mxu,
                });
            }
            if peek && kt == 0 {
                let src = Block { addr: d, rows: m, cols: 4, stride: n };
                instrs.push(Instr::DmaStore { src, dst: Block::flat(0, 32), sem: 0, elem: isa::ElemType::F32 });
            }
        }
        Program {
            name: "k-tiled".into(),
            instrs: instrs.into_iter().map(Instr::from).collect(),
            hbm_words: 32,
            vmem_words: d + m * n,
            inputs: vec![],
            outputs: vec![],
            flops: vec![],
        }
    }

    #[test]
    fn matmuls_adding_into_one_block_are_one_dispatch() {
        let count = |p: &Program, scratch_words, kernel| {
            plan(p, Limits { scratch_words, ..Limits::default() }, None)
                .unwrap()
                .dispatches
                .iter()
                .filter(|d| d.kernel == kernel)
                .count()
        };
        // One dispatch per column tile, each with all its K tiles.
        let p = k_tiled(5, false);
        assert_eq!(count(&p, SCRATCH_WORDS, Kernel::MxuMatmul), 2);
        let planned = plan(&p, Limits::default(), None).unwrap();
        assert!(planned.dispatches.iter().filter(|d| d.kernel == Kernel::MxuMatmul).all(|d| d.params.len == 5));
        assert_eq!(planned.steps.len(), 10);
        // Reading the first tile's sums ends its chain there; the second's goes on.
        assert_eq!(count(&k_tiled(5, true), SCRATCH_WORDS, Kernel::MxuMatmul), 3);
        // Scratch for only a few loads: the plan dispatches what is pending and moves the
        // loaded weights, more often the less scratch there is.
        let small = count(&p, 16, Kernel::MxuCopyWeights);
        assert!(small > 0 && count(&p, SCRATCH_WORDS, Kernel::MxuCopyWeights) == 0);
        assert!(count(&p, 16, Kernel::MxuMatmul) > 2);
    }

    #[test]
    fn interleaved_blocks_do_not_overlap() {
        let b = |addr, rows, cols, stride| Block { addr, rows, cols, stride };
        let brute = |x: &Block<u32>, y: &Block<u32>| {
            let words = |z: &Block<u32>| {
                (0..z.rows).flat_map(move |r| (0..z.cols).map(move |c| z.addr + r * z.stride + c)).collect::<Vec<_>>()
            };
            let ys = words(y);
            words(x).iter().any(|w| ys.contains(w))
        };
        // Column tiles of one matrix, a tile against a window of rows, single rows.
        assert!(!blocks_overlap(&b(100, 8, 4, 8), &b(104, 8, 4, 8)));
        assert!(blocks_overlap(&b(100, 8, 4, 8), &b(103, 8, 4, 8)));
        assert!(!blocks_overlap(&b(100, 8, 4, 8), &b(164, 1, 4, 4)));
        // Every small case against counting the words.
        for (ar, ac, br, bc, stride) in [(3, 2, 2, 3, 5), (1, 7, 4, 2, 3), (4, 4, 4, 4, 4), (2, 1, 3, 2, 2)] {
            for addr in 0..30 {
                let (x, y) = (b(10, ar, ac, stride), b(addr, br, bc, if br == 1 { 1 } else { stride }));
                assert_eq!(blocks_overlap(&x, &y), brute(&x, &y), "{x:?} {y:?}");
                assert_eq!(blocks_overlap(&y, &x), brute(&x, &y), "{y:?} {x:?}");
            }
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
