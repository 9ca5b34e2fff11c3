//! Pass 3: one kernel per fusion, tiled, double-buffered and laid out in VMEM.
//!
//! Every value a kernel reads or writes lives in HBM, row-major and unpadded; inside a kernel,
//! tiles live in VMEM padded to the vector register's 128 lanes (rows are `roundup(C, 128)`
//! words apart), which is where padding waste comes from. A kernel walks its output in tiles
//! of rows; each tile's inputs are DMA'd into one of two VMEM slots, alternating, so the DMA
//! of the next tile overlaps the compute of this one (the program issues the next load as soon
//! as this tile's compute has issued; only `wait` holds issue). Tile loops are `loop`s over
//! pairs of tiles with affine addresses, plus the leftover tiles, so program size does not grow
//! with the data.
//!
//! A matmul kernel (output fusion) tiles the result into TM×TN blocks: for each block the
//! (TM×K) rows of A and (K×TN) columns of B arrive by DMA, the MXU runs one weights load and
//! one matmul per 128×128 piece of B (K pieces accumulate into the result), then the fused
//! epilogue runs on the vector unit and the block goes back to HBM.

use crate::fusion::{FusedGraph, Fusion, FusionKind};
use crate::hlo::{row_major, Elem, Graph, Op, ValueId};
use crate::{CompileError, CompileOptions};
use isa::{Addr, Block, Buffer, ElemType, Instr, Operand, Part, Program, ReduceOp, VectorOp};
use jaxlite::eval::precision_passes;
use jaxlite::{BinaryOp, CompareOp, UnaryOp};

const SEM_LOADS: u8 = 0;
const SEM_STORES: u8 = 1;
/// A matmul's loads of A's rows, which run a level above (and ahead of) its loads of B.
const SEM_ROWS: u8 = 2;
/// VMEM rows are padded to the vector unit's lanes, tiles to its sublanes.
const LANES: u32 = 128;
const SUBLANES: u32 = 8;

fn err(message: impl Into<String>) -> CompileError {
    CompileError { message: message.into() }
}

fn round_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to) * to
}

/// An address `base + stride * i_depth` (or a constant when there is no loop).
fn affine(base: u32, stride: u32, depth: Option<usize>) -> Addr {
    match depth {
        Some(d) if stride != 0 => Addr { base, strides: vec![(d as u8, stride as i32)], scalars: Vec::new() },
        _ => Addr::from(base),
    }
}

fn add_term(a: &Addr, stride: u32, depth: Option<usize>) -> Addr {
    let mut a = a.clone();
    if let (Some(d), true) = (depth, stride != 0) {
        a.strides.push((d as u8, stride as i32));
    }
    a
}

fn signed(strides: &[usize]) -> Vec<i64> {
    strides.iter().map(|&s| s as i64).collect()
}

/// `a` moved by `by` words (the linker's windows use it too).
pub(crate) fn offset(a: &Addr, by: u32) -> Addr {
    Addr { base: a.base + by, ..a.clone() }
}

/// Which tile a piece of code works on: tile `first + step * i_depth` with `rows` rows.
#[derive(Clone, Copy, Debug)]
struct Tile {
    first: u32,
    step: u32,
    depth: Option<usize>,
    rows: u32,
}

impl Tile {
    /// The address of this tile's first element in an array whose tiles are `tile_words`
    /// apart.
    fn addr(&self, base: u32, tile_words: u32) -> Addr {
        affine(base + self.first * tile_words, self.step * tile_words, self.depth)
    }

    /// `addr` from a base that is itself affine (a batch element's array).
    fn addr_in(&self, base: &Addr, tile_words: u32) -> Addr {
        add_term(&offset(base, self.first * tile_words), self.step * tile_words, self.depth)
    }
}

/// How a kernel reads an input, relative to its R×C iteration space.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Access {
    /// Same shape, row-major: row r at `base + r*C`.
    Full,
    /// One row of C values for every row.
    Row,
    /// One value per row (R contiguous values), the same across the row.
    Col,
    /// One value for everything.
    Scalar,
}

/// A materialised value's place in HBM: its first element's address, counted in elements of
/// how HBM holds it (bf16 packed two to a word, every other type a word each), which every
/// DMA that moves it names.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stored {
    addr: u32,
    elem: ElemType,
}

impl Stored {
    /// `by` elements further on.
    fn at(self, by: u32) -> Stored {
        Stored { addr: self.addr + by, ..self }
    }
}

/// The place of an iota's input, which no DMA reads.
const NO_HBM: Stored = Stored { addr: 0, elem: ElemType::F32 };

/// How HBM holds value `v` when it is stored as itself.
fn stored_elem(g: &Graph, v: ValueId) -> ElemType {
    g.instrs[v].elem.in_hbm()
}

/// Where a view's elements come from: an array in HBM, or an iota, which the kernels that read
/// it generate in VMEM (its "array" is 0, 1, 2, ..., read with the view's strides).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    Hbm(Stored),
    Iota,
}

/// The source behind a value and the strides (in elements) at which a view of shape `shape`
/// reads it, or `None` if the view is not affine.
fn view_source(g: &Graph, hbm: &[Option<Stored>], v: ValueId) -> Option<(Source, Vec<usize>)> {
    let instr = &g.instrs[v];
    if let Some(stored) = hbm[v] {
        return Some((Source::Hbm(stored), row_major(&instr.shape)));
    }
    match &instr.op {
        Op::Iota { dimension } => {
            let mut strides = vec![0; instr.shape.len()];
            strides[*dimension] = 1;
            Some((Source::Iota, strides))
        }
        // A boolean or integer read as float32 is the same words, and a bf16 read as float32
        // the same values (a DMA unpacks them).
        Op::Convert => view_source(g, hbm, instr.operands[0]),
        Op::Reshape => {
            let (source, src) = view_source(g, hbm, instr.operands[0])?;
            // Only a reshape of contiguous data is a view.
            let src_shape = &g.instrs[instr.operands[0]].shape;
            (src == row_major(src_shape)).then(|| (source, row_major(&instr.shape)))
        }
        Op::Broadcast { dims } => {
            let operand = instr.operands[0];
            let (source, src) = view_source(g, hbm, operand)?;
            let src_shape = &g.instrs[operand].shape;
            let mut strides = vec![0usize; instr.shape.len()];
            for (k, &d) in dims.iter().enumerate() {
                if src_shape[k] != 1 {
                    strides[d] = src[k];
                }
            }
            Some((source, strides))
        }
        _ => None,
    }
}

/// `view_source` for views of arrays in HBM.
fn view_strides(g: &Graph, hbm: &[Option<Stored>], v: ValueId) -> Option<(Stored, Vec<usize>)> {
    match view_source(g, hbm, v)? {
        (Source::Hbm(stored), strides) => Some((stored, strides)),
        (Source::Iota, _) => None,
    }
}

/// Where each value a kernel computes sits in the tile being worked on (looked up per operand:
/// a map, since a fusion may hold a hundred thousand ops).
type Computed = std::collections::HashMap<ValueId, Addr>;

/// VMEM liveness inside a kernel: a tile slot for each of `ops` (a fusion's elementwise ops, in
/// order), reusing the slot of a value no later op reads. A value lives from its op to its last
/// reader, or to the tile's end when it is `kept` (stored, or read after the ops, as a
/// reduction's operand); a slot is free again only after the op that read it last, so no op
/// writes over what it reads (a select moves its operands in two steps). Returns each op's slot
/// and how many slots there are: a long chain of elementwise ops needs two or three, not one
/// per op, so its tiles stay large (and a chain of a hundred thousand fits VMEM at all).
fn tile_slots(g: &Graph, ops: &[ValueId], kept: &[ValueId]) -> (Vec<usize>, usize) {
    let position: std::collections::HashMap<ValueId, usize> = ops.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    let mut last_use: Vec<usize> = (0..ops.len()).collect();
    for (j, &v) in ops.iter().enumerate() {
        for o in &g.instrs[v].operands {
            if let Some(&i) = position.get(o) {
                last_use[i] = last_use[i].max(j);
            }
        }
    }
    for v in kept {
        if let Some(&i) = position.get(v) {
            last_use[i] = usize::MAX;
        }
    }
    // Slots to free after op j.
    let mut frees: Vec<Vec<usize>> = vec![Vec::new(); ops.len()];
    let (mut free, mut count, mut slot_of) = (Vec::new(), 0, Vec::with_capacity(ops.len()));
    for j in 0..ops.len() {
        let slot = free.pop().unwrap_or_else(|| {
            count += 1;
            count - 1
        });
        slot_of.push(slot);
        if last_use[j] < ops.len() {
            frees[last_use[j]].push(slot);
        }
        free.append(&mut frees[j]);
    }
    (slot_of, count)
}

/// A kernel's iteration space: R rows of C columns (leading dims flattened).
fn rows_cols(shape: &[usize]) -> (u32, u32) {
    let c = shape.last().copied().unwrap_or(1) as u32;
    let r = shape.iter().rev().skip(1).product::<usize>() as u32;
    (r, c)
}

/// The rows × cols a loop kernel walks. Rows and columns of the shape when some input is read
/// as a row or a column; otherwise (every input whole or a scalar) the elements are one flat
/// run, which may be cut into any rows: a long last axis (a 1-D array of millions) becomes rows
/// of at most 1024 lanes, so a tile of 8 rows fits VMEM. The row length divides the run
/// exactly, and is chosen to waste the fewest lanes of its padded row (1,000,000 elements are
/// 1000 rows of 1000, 98 % of 1024 lanes; a multiple of 128 wastes none), the longer of equals.
/// A run with no such divisor using half its lanes (a prime length) stays one long row.
fn iteration_space(shape: &[usize], inputs: &[Input]) -> (u32, u32) {
    let (rows, cols) = rows_cols(shape);
    let flat = inputs.iter().all(|i| matches!(i.access, Access::Full | Access::Scalar));
    if !flat || cols <= 1024 {
        return (rows, cols);
    }
    let total = rows as u64 * cols as u64;
    let lanes_used = |c: u64| c as f64 / round_up(c as u32, LANES) as f64;
    let c = (1..=1024u64)
        .filter(|c| total.is_multiple_of(*c))
        .max_by(|&a, &b| lanes_used(a).total_cmp(&lanes_used(b)).then(a.cmp(&b)))
        .expect("1 divides every run");
    if lanes_used(c) < 0.5 {
        return (rows, cols);
    }
    ((total / c) as u32, c as u32)
}

/// Whether a view reads row-major data as is (dimensions of size 1 have no stride to match).
fn contiguous(strides: &[usize], shape: &[usize]) -> bool {
    let mut expect = 1usize;
    for d in (0..shape.len()).rev() {
        if shape[d] != 1 && strides[d] != expect {
            return false;
        }
        expect *= shape[d];
    }
    true
}

fn classify(strides: &[usize], shape: &[usize]) -> Option<Access> {
    let rank = shape.len();
    let broadcast = |s: &[usize], n: &[usize]| s.iter().zip(n).all(|(&s, &n)| s == 0 || n == 1);
    if contiguous(strides, shape) {
        Some(Access::Full)
    } else if broadcast(strides, shape) {
        Some(Access::Scalar)
    } else if strides[rank - 1] == 1 && broadcast(&strides[..rank - 1], &shape[..rank - 1]) {
        Some(Access::Row)
    } else if (strides[rank - 1] == 0 || shape[rank - 1] == 1) && contiguous(&strides[..rank - 1], &shape[..rank - 1]) {
        // One value per row, the leading dims row-major over R contiguous values.
        Some(Access::Col)
    } else {
        None
    }
}

/// An input of a kernel: where it is in HBM and how the kernel reads it.
#[derive(Clone, Debug)]
struct Input {
    value: ValueId,
    /// Its place in HBM (0 for a generated iota).
    hbm: Stored,
    /// For an iota: the axes its row or column spans, as (count, stride), outermost first.
    iota: Option<Vec<(u32, u32)>>,
    access: Access,
    /// VMEM address of a whole-kernel input (Row, Col, Scalar), or of slot 0 (Full).
    vmem: u32,
}

/// How a tile loop overlaps loads with compute (see `Emitter::tile_pipeline`): the semaphore
/// its loads signal and how many each tile issues, whether the caller already loaded the
/// first tile, and whether the loop loads each next tile itself.
#[derive(Clone, Copy)]
struct Pipeline {
    sem: u8,
    per_tile: u32,
    preloaded: bool,
    load_ahead: bool,
}

/// The VMEM of one kernel: a bump allocator whose high-water mark is the kernel's footprint.
struct Vmem {
    top: u32,
    limit: u32,
}

impl Vmem {
    fn alloc(&mut self, words: u32, what: &str) -> Result<u32, CompileError> {
        let a = self.top;
        self.top = self
            .top
            .checked_add(words.max(1))
            .filter(|&t| t <= self.limit)
            .ok_or_else(|| err(format!("{what} needs more VMEM than the machine has ({} words)", self.limit)))?;
        Ok(a)
    }
}

pub struct Emitter<'a> {
    fused: &'a FusedGraph,
    opts: &'a CompileOptions,
    instrs: Vec<Instr>,
    /// Where every materialised value is in HBM.
    hbm: Vec<Option<Stored>>,
    /// HBM words allocated so far.
    hbm_top: u32,
    vmem_peak: u32,
    flops: u64,
    /// Loops open around the code being emitted (the next loop's index is `i<depth>`).
    depth: usize,
}

impl<'a> Emitter<'a> {
    /// Opens a loop of `count` iterations when there is more than one; returns its index's
    /// depth (for affine addresses), or `None` when the body is emitted once, unlooped.
    fn open_loop(&mut self, count: u32) -> Option<usize> {
        (count > 1).then(|| {
            self.instrs.push(Instr::Loop { count });
            self.depth += 1;
            self.depth - 1
        })
    }

    fn close_loop(&mut self, opened: Option<usize>) {
        if opened.is_some() {
            self.instrs.push(Instr::End);
            self.depth -= 1;
        }
    }

    /// HBM for value `v`, a bf16 packed (`emit` checked that every address fits).
    fn hbm_alloc(&mut self, v: ValueId) -> Stored {
        let elem = stored_elem(&self.fused.graph, v);
        let n = (self.fused.graph.instrs[v].size() as u64).max(1);
        let stored = Stored { addr: elem.at_word(self.hbm_top), elem };
        self.hbm_top += elem.words(n) as u32;
        self.hbm[v] = Some(stored);
        stored
    }

    fn graph(&self) -> &'a Graph {
        &self.fused.graph
    }

    /// How the kernel over `shape` reads `v`.
    fn input(&mut self, v: ValueId, shape: &[usize]) -> Result<Input, CompileError> {
        let g = self.graph();
        let (source, strides) = view_source(g, &self.hbm, v).ok_or_else(|| {
            err(format!("%{} is read through a view not supported by the compiler yet", g.value_name(v)))
        })?;
        let access = if g.instrs[v].shape.is_empty() {
            Some(Access::Scalar)
        } else if source == Source::Iota {
            // Generated, so any strides will do for a row or a column.
            let rank = shape.len();
            let leading = strides[..rank - 1].iter().zip(shape).any(|(&s, &n)| s != 0 && n != 1);
            let last = strides[rank - 1] != 0 && shape[rank - 1] != 1;
            Some(match (leading, last) {
                (false, false) => Access::Scalar,
                (false, true) => Access::Row,
                (true, false) => Access::Col,
                (true, true) => Access::Full,
            })
        } else {
            classify(&strides, shape)
        };
        if let (None, Source::Hbm(stored)) = (access, source) {
            // Broadcast along a middle axis: written out first, by DMA, then read whole.
            let out = self.hbm_alloc(v);
            self.copy_box((stored, signed(&strides)), (out, row_major(&g.instrs[v].shape)), &g.instrs[v].shape)?;
            return Ok(Input { value: v, hbm: out, iota: None, access: Access::Full, vmem: 0 });
        }
        let access = access.ok_or_else(|| {
            err(format!(
                "%{} is broadcast in a pattern not supported by the compiler yet (only rows, columns and scalars)",
                g.value_name(v)
            ))
        })?;
        let (hbm, iota) = match (source, access) {
            (Source::Hbm(stored), _) => (stored, None),
            // An iota is generated once per kernel, as a row or a column, not tile by tile.
            (Source::Iota, Access::Full) => {
                return Err(err(format!(
                    "%{} reads an iota as a whole array, which is not supported by the compiler yet",
                    g.value_name(v)
                )))
            }
            (Source::Iota, Access::Row) => {
                (NO_HBM, Some(vec![(shape[shape.len() - 1] as u32, strides[shape.len() - 1] as u32)]))
            }
            (Source::Iota, Access::Col) => {
                let leading = shape.len() - 1;
                (NO_HBM, Some((0..leading).map(|k| (shape[k] as u32, strides[k] as u32)).collect()))
            }
            (Source::Iota, Access::Scalar) => (NO_HBM, Some(vec![])),
        };
        Ok(Input { value: v, hbm, iota, access, vmem: 0 })
    }

    /// Loads `src` of HBM, holding `elem`s, into `dst` of VMEM.
    fn dma_load(&mut self, elem: ElemType, src: Block, dst: Block) {
        self.dma_load_on(SEM_LOADS, elem, src, dst);
    }

    fn dma_load_on(&mut self, sem: u8, elem: ElemType, src: Block, dst: Block) {
        self.instrs.push(Instr::DmaLoad { src, dst, sem, elem });
    }

    /// Stores `src` of VMEM into `dst` of HBM as `elem`s.
    fn dma_store(&mut self, elem: ElemType, src: Block, dst: Block) {
        self.instrs.push(Instr::DmaStore { src, dst, sem: SEM_STORES, elem });
    }

    /// Loads the whole-kernel inputs (rows, columns, scalars) once; returns how many DMAs.
    fn load_resident(
        &mut self,
        inputs: &mut [Input],
        rows: u32,
        cols: u32,
        vmem: &mut Vmem,
    ) -> Result<u32, CompileError> {
        let mut n = 0;
        for input in inputs.iter_mut() {
            let words = match input.access {
                Access::Full => continue,
                Access::Row => cols,
                Access::Col => rows,
                Access::Scalar => 1,
            };
            input.vmem = vmem.alloc(round_up(words, LANES), "an input")?;
            if let Some(axes) = &input.iota {
                self.generate_iota(input.vmem, axes);
                continue;
            }
            self.dma_load(
                input.hbm.elem,
                Block { addr: input.hbm.addr.into(), rows: 1, cols: words, stride: words },
                Block { addr: input.vmem.into(), rows: 1, cols: words, stride: words },
            );
            n += 1;
        }
        Ok(n)
    }

    /// Writes an iota's row or column at `at` in VMEM: word w holds `sum of index_k * stride_k`
    /// over the `axes` (count, stride) it spans, w's indices taken row-major. Built by doubling,
    /// innermost axis first: the words so far (one block per index of the inner axes) are
    /// copied after themselves with `have * stride` added, until the axis is complete; log(n)
    /// vector ops on single rows per axis.
    fn generate_iota(&mut self, at: u32, axes: &[(u32, u32)]) {
        let row = |addr: u32, n: u32| Block { addr: addr.into(), rows: 1, cols: n, stride: n };
        // Word 0 is 0 (a masked move of the immediate).
        self.instrs.push(Instr::Vector {
            op: VectorOp::Where,
            dst: row(at, 1),
            a: Operand::Imm(1.0),
            b: Operand::Imm(0.0),
        });
        let mut block = 1;
        for &(count, stride) in axes.iter().rev() {
            let mut have = 1;
            while have < count {
                let more = have.min(count - have);
                self.instrs.push(Instr::Vector {
                    op: VectorOp::Add,
                    dst: row(at + have * block, more * block),
                    a: Operand::Vmem(at.into()),
                    b: Operand::Imm((have * stride) as f32),
                });
                have += more;
            }
            block *= count;
        }
    }

    /// Vector code for one elementwise op of a fusion, over a tile block.
    fn vector_op(&mut self, v: ValueId, dst: Block, operand: &dyn Fn(ValueId) -> Operand) -> Result<(), CompileError> {
        let g = self.graph();
        let instr = &g.instrs[v];
        let unused = Operand::Imm(0.0);
        let push = |e: &mut Self, op: VectorOp, a: Operand, b: Operand| {
            e.instrs.push(Instr::Vector { op, dst: dst.clone(), a, b });
        };
        match &instr.op {
            Op::Unary(u) => {
                let x = operand(instr.operands[0]);
                let simple = match u {
                    UnaryOp::Neg => Some(VectorOp::Neg),
                    UnaryOp::Abs => Some(VectorOp::Abs),
                    UnaryOp::Exp => Some(VectorOp::Exp),
                    UnaryOp::Log => Some(VectorOp::Log),
                    UnaryOp::Tanh => Some(VectorOp::Tanh),
                    UnaryOp::Sqrt => Some(VectorOp::Sqrt),
                    UnaryOp::Rsqrt => Some(VectorOp::Rsqrt),
                    UnaryOp::Floor => Some(VectorOp::Floor),
                    UnaryOp::Ceil => Some(VectorOp::Ceil),
                    UnaryOp::Round => Some(VectorOp::Round),
                    UnaryOp::RoundEven => Some(VectorOp::RoundEven),
                    UnaryOp::Sign => Some(VectorOp::Sign),
                    UnaryOp::Sin => Some(VectorOp::Sin),
                    UnaryOp::Cos => Some(VectorOp::Cos),
                    UnaryOp::Expm1 => Some(VectorOp::Expm1),
                    UnaryOp::Log1p => Some(VectorOp::Log1p),
                    UnaryOp::Erf => Some(VectorOp::Erf),
                    _ => None,
                };
                match (simple, u) {
                    (Some(op), _) => push(self, op, x, unused.clone()),
                    // Logical not of a boolean (1.0 or 0.0): x == 0.
                    (None, UnaryOp::Not) => push(self, VectorOp::Eq, x, Operand::Imm(0.0)),
                    (None, UnaryOp::Logistic) => {
                        // 1 / (1 + exp(-x)), in place in the destination.
                        let d = Operand::Vmem(dst.addr.clone());
                        push(self, VectorOp::Neg, x, unused.clone());
                        push(self, VectorOp::Exp, d.clone(), unused.clone());
                        push(self, VectorOp::Add, d.clone(), Operand::Imm(1.0));
                        push(self, VectorOp::Div, Operand::Imm(1.0), d);
                    }
                    _ => return Err(err(format!("{} is not supported by the compiler yet", instr.opcode()))),
                }
            }
            Op::Binary(b) if instr.elem == Elem::U32 => {
                let op = match b {
                    BinaryOp::Add => VectorOp::AddU32,
                    BinaryOp::Mul => VectorOp::MulU32,
                    BinaryOp::Rem => VectorOp::RemU32,
                    BinaryOp::Or => VectorOp::OrU32,
                    BinaryOp::Xor => VectorOp::XorU32,
                    BinaryOp::ShiftLeft => VectorOp::ShlU32,
                    BinaryOp::ShiftRightLogical => VectorOp::ShrU32,
                    _ => return Err(err(format!("uint32 {} is not supported by the compiler yet", instr.opcode()))),
                };
                push(self, op, operand(instr.operands[0]), operand(instr.operands[1]));
            }
            Op::Binary(b) => {
                let op = match b {
                    BinaryOp::Add => VectorOp::Add,
                    BinaryOp::Sub => VectorOp::Sub,
                    BinaryOp::Mul => VectorOp::Mul,
                    BinaryOp::Div => VectorOp::Div,
                    BinaryOp::Max => VectorOp::Max,
                    BinaryOp::Min => VectorOp::Min,
                    BinaryOp::Rem => VectorOp::Rem,
                    // Only int32 operands get here (booleans became min, max and ne).
                    BinaryOp::And => VectorOp::BitAnd,
                    BinaryOp::Or => VectorOp::BitOr,
                    BinaryOp::Xor => VectorOp::BitXor,
                    BinaryOp::ShiftLeft => VectorOp::ShiftLeft,
                    BinaryOp::ShiftRightArithmetic => VectorOp::ShiftRight,
                    _ => return Err(err(format!("{} is not supported by the compiler yet", instr.opcode()))),
                };
                push(self, op, operand(instr.operands[0]), operand(instr.operands[1]));
            }
            // uint32 bits compare as unsigned integers; the other comparisons are these two with
            // the operands swapped (lowered so in hlo.rs).
            Op::Compare(c) if g.instrs[instr.operands[0]].elem == Elem::U32 => {
                let op = match c {
                    CompareOp::Eq => VectorOp::EqU32,
                    CompareOp::Lt => VectorOp::LtU32,
                    _ => return Err(err(format!("uint32 {} is not supported by the compiler yet", instr.opcode()))),
                };
                push(self, op, operand(instr.operands[0]), operand(instr.operands[1]));
            }
            Op::Compare(c) => {
                let op = match c {
                    CompareOp::Eq => VectorOp::Eq,
                    CompareOp::Ne => VectorOp::Ne,
                    CompareOp::Lt => VectorOp::Lt,
                    CompareOp::Le => VectorOp::Le,
                    CompareOp::Gt => VectorOp::Gt,
                    CompareOp::Ge => VectorOp::Ge,
                };
                push(self, op, operand(instr.operands[0]), operand(instr.operands[1]));
            }
            Op::ToBf16 => push(self, VectorOp::ToBf16, operand(instr.operands[0]), unused.clone()),
            Op::ToU32 => push(self, VectorOp::IntToU32, operand(instr.operands[0]), unused.clone()),
            Op::FromU32 => push(self, VectorOp::U32ToInt, operand(instr.operands[0]), unused.clone()),
            // Bits are copied by a masked move (an always-true mask), never through arithmetic,
            // which would quiet a NaN pattern or flush a subnormal one.
            Op::Broadcast { .. } | Op::Reshape | Op::Convert | Op::Constant(_) if instr.elem == Elem::U32 => {
                push(self, VectorOp::Where, Operand::Imm(1.0), operand(v));
            }
            Op::Select => {
                // Move the on-false values in (an always-true mask moves bits exactly), then
                // the on-true values where the predicate holds.
                let [pred, on_false, on_true] = [0, 1, 2].map(|k| operand(instr.operands[k]));
                push(self, VectorOp::Where, Operand::Imm(1.0), on_false);
                push(self, VectorOp::Where, pred, on_true);
            }
            // Materialising a view or a constant: copy through it (x * 1 is exact).
            Op::Broadcast { .. } | Op::Reshape | Op::Convert | Op::Constant(_) | Op::Iota { .. } => {
                let x = operand(v);
                self.instrs.push(Instr::Vector { op: VectorOp::Mul, dst, a: x, b: Operand::Imm(1.0) });
            }
            _ => return Err(err(format!("{} cannot be part of an elementwise fusion", instr.opcode()))),
        }
        Ok(())
    }

    /// Rows per tile: as many as fit `words_per_row` words per row in the VMEM budget, a
    /// multiple of the sublanes, at most the rows there are (rounded up) and 512.
    fn tile_rows(&self, rows: u32, words_per_row: u32, budget: u32) -> Result<u32, CompileError> {
        self.tile_rows_at_most(rows, words_per_row, budget, 512)
    }

    /// `tile_rows` with a larger cap where reuse pays for the longer first load (a matmul
    /// re-reads B once per block of A's rows).
    fn tile_rows_at_most(&self, rows: u32, words_per_row: u32, budget: u32, cap: u32) -> Result<u32, CompileError> {
        let fit = budget / words_per_row.max(1);
        if fit < SUBLANES {
            return Err(err(format!(
                "a tile of {SUBLANES} rows needs {} words of VMEM, more than the {budget} left",
                SUBLANES * words_per_row
            )));
        }
        Ok((fit / SUBLANES * SUBLANES).min(round_up(rows.max(1), SUBLANES)).min(cap))
    }

    /// Runs a kernel over `count` tiles of `rows` rows and a last tile of `last_rows` (0:
    /// none), alternating VMEM slots 0 and 1, software-pipelined: `load(tile, slot)` issues a
    /// tile's `per_tile` DMAs (on `SEM_LOADS`) one tile ahead of `compute(tile, slot)`, so
    /// tile t+1 streams in while tile t computes:
    ///
    /// ```text
    /// load(0)
    /// loop over pairs:  load(t+1); wait; compute(t)   (t = 2i, then 2i+1)
    /// the rest:         load(t+1) if there is one; wait; compute(t)
    /// ```
    ///
    /// The loop covers the tiles whose next tile is a full one, so its loads never run past
    /// the array; the last one or two tiles (and a ragged one) are emitted after it.
    fn for_tiles(
        &mut self,
        dims: (u32, u32, u32),
        per_tile: u32,
        load: impl FnMut(&mut Self, Tile, usize),
        mut compute: impl FnMut(&mut Self, Tile, usize) -> Result<(), CompileError>,
    ) -> Result<(), CompileError> {
        let pipeline = Pipeline { sem: SEM_LOADS, per_tile, preloaded: false, load_ahead: true };
        self.tile_pipeline(dims, pipeline, load, |e, t, s, _| compute(e, t, s), |_| {})
    }

    /// The general form of `for_tiles`. With `preloaded`, the first tile's loads were issued
    /// by the caller. Without `load_ahead`, `compute(tile, slot, next)` gets the next tile
    /// (and its slot) and loads it itself: a matmul's row blocks load the next block's rows
    /// (and its first columns of B) from inside the column loop, at its last tile
    /// (`at_last`, which runs where a load of the next tile would, before the last wait).
    fn tile_pipeline(
        &mut self,
        (count, rows, last_rows): (u32, u32, u32),
        p: Pipeline,
        mut load: impl FnMut(&mut Self, Tile, usize),
        mut compute: impl FnMut(&mut Self, Tile, usize, Option<(Tile, usize)>) -> Result<(), CompileError>,
        mut at_last: impl FnMut(&mut Self),
    ) -> Result<(), CompileError> {
        let tiles = count + (last_rows > 0) as u32;
        if tiles == 0 {
            return Ok(());
        }
        let fixed = |p: u32| Tile { first: p, step: 0, depth: None, rows: if p < count { rows } else { last_rows } };
        if !p.preloaded {
            load(self, fixed(0), 0);
        }
        let wait = |e: &mut Self| {
            if p.per_tile > 0 {
                e.instrs.push(Instr::Wait { sem: p.sem, count: p.per_tile });
            }
        };
        // Tiles 0 .. 2·pairs, each followed by a full tile (2·pairs ≤ count − 1).
        let pairs = count.saturating_sub(1) / 2;
        if pairs > 0 {
            let depth = self.open_loop(pairs);
            for slot in 0..2 {
                let next = (Tile { first: slot as u32 + 1, step: 2, depth, rows }, 1 - slot);
                if p.load_ahead {
                    load(self, next.0, next.1);
                }
                wait(self);
                compute(self, Tile { first: slot as u32, step: 2, depth, rows }, slot, Some(next))?;
            }
            self.close_loop(depth);
        }
        for t in 2 * pairs..tiles {
            let next = (t + 1 < tiles).then(|| (fixed(t + 1), ((t + 1) % 2) as usize));
            match next {
                Some((tile, slot)) if p.load_ahead => load(self, tile, slot),
                Some(_) => {}
                None => at_last(self),
            }
            wait(self);
            compute(self, fixed(t), (t % 2) as usize, next)?;
        }
        Ok(())
    }

    /// HBM for the values a fusion writes: (position in `fusion.ops`, place) of each.
    fn alloc_outputs(&mut self, fusion: &Fusion) -> Vec<(usize, Stored)> {
        fusion
            .outputs
            .iter()
            .map(|&v| (fusion.ops.iter().position(|&o| o == v).expect("outputs are ops"), self.hbm_alloc(v)))
            .collect()
    }

    /// The inputs of a kernel over `shape`, with how it reads each.
    /// DMAs tile `t` of every whole-tile (`Full`) input from HBM, where tiles are `tile` rows of
    /// `cols`, into VMEM slot `s` of that input (slots `slot` words apart, rows `padded` apart).
    fn load_full_inputs(
        &mut self,
        inputs: &[Input],
        t: Tile,
        s: usize,
        (tile, cols): (u32, u32),
        (slot, padded): (u32, u32),
    ) {
        for input in inputs.iter().filter(|i| i.access == Access::Full) {
            let src = Block { addr: t.addr(input.hbm.addr, tile * cols), rows: t.rows, cols, stride: cols };
            let dst = Block { addr: Addr::from(input.vmem + s as u32 * slot), rows: t.rows, cols, stride: padded };
            self.dma_load(input.hbm.elem, src, dst);
        }
    }

    fn inputs(&mut self, sources: &[ValueId], shape: &[usize]) -> Result<Vec<Input>, CompileError> {
        sources.iter().map(|&v| self.input(v, shape)).collect()
    }

    /// The operand for value `v` in a tile: a computed value's tile, an input, or an immediate.
    fn operand_of(
        g: &Graph,
        v: ValueId,
        computed: &Computed,
        inputs: &[Input],
        full_tile: &dyn Fn(u32) -> Addr,
        t: Tile,
        tile_rows: u32,
    ) -> Operand {
        if let Some(addr) = computed.get(&v) {
            return Operand::Vmem(addr.clone());
        }
        if let Some(x) = g.constant_value(v) {
            return Operand::Imm(x);
        }
        let input = inputs.iter().find(|i| i.value == v).expect("every operand is computed, constant or an input");
        match input.access {
            Access::Full => Operand::Vmem(full_tile(input.vmem)),
            Access::Row => Operand::Row(input.vmem.into()),
            Access::Col => Operand::Col(t.addr(input.vmem, tile_rows)),
            Access::Scalar => Operand::Splat(input.vmem.into()),
        }
    }

    /// A loop fusion: elementwise ops (or a view or constant being materialised) over the
    /// root's shape, tile by tile.
    fn loop_kernel(&mut self, fusion: &Fusion) -> Result<(), CompileError> {
        let g = self.graph();
        let root = fusion.root();
        let shape = g.instrs[root].shape.clone();
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        // A materialised view reads through itself; otherwise the fusion's inputs.
        let materialising = !g.instrs[root].is_elementwise();
        let sources = if g.constant_value(root).is_some() {
            vec![]
        } else if materialising {
            vec![root]
        } else {
            fusion.inputs(g)
        };
        self.flops += fusion
            .ops
            .iter()
            .filter(|&&v| g.instrs[v].is_elementwise())
            .map(|&v| g.instrs[v].size() as u64)
            .sum::<u64>();
        let mut inputs = self.inputs(&sources, &shape)?;
        if materialising && self.hbm[root].is_some() {
            // A broadcast along a middle axis: reading it wrote it out whole, by DMA.
            return Ok(());
        }
        let (rows, cols) = iteration_space(&shape, &inputs);
        let padded = round_up(cols, LANES);
        // Allocated after its inputs are resolved: a materialised view must not read itself.
        let outputs: Vec<(usize, Stored)> = self.alloc_outputs(fusion);
        let resident = self.load_resident(&mut inputs, rows, cols, &mut vmem)?;
        if resident > 0 {
            self.instrs.push(Instr::Wait { sem: SEM_LOADS, count: resident });
        }
        let full = inputs.iter().filter(|i| i.access == Access::Full).count() as u32;
        let (slot_of, slots) = tile_slots(g, &fusion.ops, &fusion.outputs);
        // Per row: two slots of every full input and of every value alive at once.
        let tile = self.tile_rows(rows, 2 * (full + slots as u32) * padded, vmem.limit - vmem.top)?;
        let slot = tile * padded;
        for input in inputs.iter_mut().filter(|i| i.access == Access::Full) {
            input.vmem = vmem.alloc(2 * slot, "an input tile")?;
        }
        let bases: Vec<u32> = (0..slots).map(|_| vmem.alloc(2 * slot, "a tile")).collect::<Result<_, _>>()?;
        let results: Vec<u32> = slot_of.iter().map(|&k| bases[k]).collect();
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        let load = |e: &mut Self, t: Tile, s: usize| e.load_full_inputs(&inputs, t, s, (tile, cols), (slot, padded));
        self.for_tiles((rows / tile, tile, rows % tile), full, load, |e, t, s| {
            let at = |base: u32| Addr::from(base + s as u32 * slot);
            let block = |base: u32| Block { addr: at(base), rows: t.rows, cols, stride: padded };
            let computed: Computed = if materialising {
                Computed::new()
            } else {
                fusion.ops.iter().zip(&results).map(|(&v, &r)| (v, at(r))).collect()
            };
            for (&v, &r) in fusion.ops.iter().zip(&results) {
                let operand = |o: ValueId| Self::operand_of(g, o, &computed, &inputs, &at, t, tile);
                e.vector_op(v, block(r), &operand)?;
            }
            for &(k, hbm) in &outputs {
                let dst = Block { addr: t.addr(hbm.addr, tile * cols), rows: t.rows, cols, stride: cols };
                e.dma_store(hbm.elem, block(results[k]), dst);
            }
            Ok(())
        })
    }

    /// A reduction fusion: elementwise ops, then a reduction of their result over the last
    /// axis (on the cross-lane unit, row by row), the leading axes (row after row into an
    /// accumulator on the vector unit), or all axes (both).
    fn reduce_kernel(&mut self, fusion: &Fusion) -> Result<(), CompileError> {
        let g = self.graph();
        let root = fusion.root();
        let Op::Reduce { op, axes } = &g.instrs[root].op else { unreachable!("a reduction fusion ends in its reduce") };
        let op = *op;
        let operand = g.instrs[root].operands[0];
        let shape = g.instrs[operand].shape.clone();
        let rank = shape.len();
        let mut sorted = axes.clone();
        sorted.sort_unstable();
        #[derive(PartialEq)]
        enum Over {
            Lanes,
            Rows,
            All,
        }
        let over = if sorted == (0..rank).collect::<Vec<_>>() {
            Over::All
        } else if rank >= 2 && sorted == [rank - 1] {
            Over::Lanes
        } else if rank >= 2 && sorted == (0..rank - 1).collect::<Vec<_>>() {
            Over::Rows
        } else {
            return Err(err(format!("reducing axes {axes:?} of f32{shape:?} is not supported by the compiler yet (the last axis, the leading axes or all)")));
        };
        let out_hbm = self.hbm_alloc(root);
        // Elementwise values that ops outside the fusion also read are written out too.
        let extra: Vec<(usize, Stored)> = fusion
            .outputs
            .iter()
            .filter(|&&v| v != root)
            .map(|&v| (fusion.ops.iter().position(|&o| o == v).expect("outputs are ops"), self.hbm_alloc(v)))
            .collect();
        let (rows, cols) = rows_cols(&shape);
        let padded = round_up(cols, LANES);
        let prefix = &fusion.ops[..fusion.ops.len() - 1];
        let mut inputs = self.inputs(&fusion.inputs(g), &shape)?;
        // The reduced value must be a tile in VMEM: computed in the fusion, or a full input.
        // (A fusion can hold elementwise ops that feed only its extra outputs while it
        // reduces a broadcast input: the fuzzer found one in a gradient.)
        if !prefix.contains(&operand) && inputs.iter().any(|i| i.value == operand && i.access != Access::Full) {
            return Err(err(format!(
                "reducing the broadcast %{} is not supported by the compiler yet",
                g.value_name(operand)
            )));
        }
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        let resident = self.load_resident(&mut inputs, rows, cols, &mut vmem)?;
        if resident > 0 {
            self.instrs.push(Instr::Wait { sem: SEM_LOADS, count: resident });
        }
        let full = inputs.iter().filter(|i| i.access == Access::Full).count() as u32;
        // A constant being reduced (the broadcast `1/n` of a mean's gradient, say) is written
        // into a tile of its own each time round, so the reduction sums it as the reference
        // does, word by word.
        let constant = if prefix.contains(&operand) { None } else { g.constant_value(operand) };
        // The reduced operand and the extra outputs live to the tile's end.
        let mut kept = vec![operand];
        kept.extend(fusion.outputs.iter().filter(|&&v| v != root));
        let (slot_of, slots) = tile_slots(g, prefix, &kept);
        let tiles = full + slots as u32 + constant.is_some() as u32;
        // Per row: two slots of each full input, computed value and constant, and a word of output.
        let tile = self.tile_rows(rows, 2 * tiles * padded + 2, vmem.limit - vmem.top)?;
        let slot = tile * padded;
        for input in inputs.iter_mut().filter(|i| i.access == Access::Full) {
            input.vmem = vmem.alloc(2 * slot, "an input tile")?;
        }
        let bases: Vec<u32> = (0..slots).map(|_| vmem.alloc(2 * slot, "a tile")).collect::<Result<_, _>>()?;
        let results: Vec<u32> = slot_of.iter().map(|&k| bases[k]).collect();
        let constant_tile = match constant {
            Some(c) => Some((c, vmem.alloc(2 * slot, "a constant tile")?)),
            None => None,
        };
        // Lanes: each tile's row results (two slots). Rows: the accumulator row. All: one word
        // per row of the whole input, then the total.
        let (column, column_words) = match over {
            Over::Lanes => (vmem.alloc(2 * tile, "the reduced rows")?, tile),
            Over::Rows => (vmem.alloc(padded, "the accumulator")?, 0),
            Over::All => (vmem.alloc(round_up(rows, LANES) + 1, "the reduced rows")?, 0),
        };
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        self.flops +=
            fusion.ops.iter().map(|&v| g.instrs[if v == root { operand } else { v }].size() as u64).sum::<u64>();
        let vector = match op {
            ReduceOp::Sum => VectorOp::Add,
            ReduceOp::Max => VectorOp::Max,
            ReduceOp::Min => VectorOp::Min,
        };
        if over == Over::Rows {
            let acc = Block { addr: column.into(), rows: 1, cols, stride: padded };
            self.instrs.push(Instr::Vector {
                op: VectorOp::Add,
                dst: acc,
                a: Operand::Imm(op.identity()),
                b: Operand::Imm(0.0),
            });
        }
        let load = |e: &mut Self, t: Tile, s: usize| e.load_full_inputs(&inputs, t, s, (tile, cols), (slot, padded));
        self.for_tiles((rows / tile, tile, rows % tile), full, load, |e, t, s| {
            let at = |base: u32| Addr::from(base + s as u32 * slot);
            let block = |base: u32| Block { addr: at(base), rows: t.rows, cols, stride: padded };
            let computed: Computed = prefix.iter().zip(&results).map(|(&v, &r)| (v, at(r))).collect();
            for (&v, &r) in prefix.iter().zip(&results) {
                let operand = |o: ValueId| Self::operand_of(g, o, &computed, &inputs, &at, t, tile);
                e.vector_op(v, block(r), &operand)?;
            }
            for &(k, hbm) in &extra {
                let dst = Block { addr: t.addr(hbm.addr, tile * cols), rows: t.rows, cols, stride: cols };
                e.dma_store(hbm.elem, block(results[k]), dst);
            }
            let source = match (constant_tile, Self::operand_of(g, operand, &computed, &inputs, &at, t, tile)) {
                // c · 1 is c to the bit, -0 and NaN included (c + 0 would turn -0 into +0).
                (Some((c, base)), _) => {
                    let fill = block(base);
                    e.instrs.push(Instr::Vector {
                        op: VectorOp::Mul,
                        dst: fill.clone(),
                        a: Operand::Imm(c),
                        b: Operand::Imm(1.0),
                    });
                    fill
                }
                (None, Operand::Vmem(a)) => Block { addr: a, rows: t.rows, cols, stride: padded },
                _ => unreachable!("checked above: the reduced value is a full tile"),
            };
            match over {
                Over::Lanes => {
                    let dst = Addr::from(column + s as u32 * column_words);
                    e.instrs.push(Instr::Reduce { op, src: source, dst: dst.clone() });
                    let out = Block { addr: t.addr(out_hbm.addr, tile), rows: 1, cols: t.rows, stride: t.rows };
                    e.dma_store(out_hbm.elem, Block { addr: dst, rows: 1, cols: t.rows, stride: t.rows }, out);
                }
                Over::All => e.instrs.push(Instr::Reduce { op, src: source, dst: t.addr(column, tile) }),
                Over::Rows => {
                    // The tile's rows into the accumulator, in order.
                    let d = e.open_loop(t.rows);
                    let acc = Block { addr: column.into(), rows: 1, cols, stride: padded };
                    let row = add_term(&source.addr, padded, d);
                    e.instrs.push(Instr::Vector {
                        op: vector,
                        dst: acc,
                        a: Operand::Vmem(column.into()),
                        b: Operand::Vmem(row),
                    });
                    e.close_loop(d);
                }
            }
            Ok(())
        })?;
        match over {
            Over::Lanes => {}
            Over::Rows => {
                let acc = Block { addr: column.into(), rows: 1, cols, stride: padded };
                let out = Block { addr: out_hbm.addr.into(), rows: 1, cols, stride: cols };
                self.dma_store(out_hbm.elem, acc, out);
            }
            Over::All => {
                let total = column + round_up(rows, LANES);
                let partials = Block { addr: column.into(), rows: 1, cols: rows, stride: rows };
                self.instrs.push(Instr::Reduce { op, src: partials, dst: total.into() });
                let word = |a: u32| Block { addr: a.into(), rows: 1, cols: 1, stride: 1 };
                self.dma_store(out_hbm.elem, word(total), word(out_hbm.addr));
            }
        }
        Ok(())
    }

    /// A transpose. Merging the axes that stay together (and dropping size-1 axes) leaves one
    /// of two patterns: `(A, X, Y) → (A, Y, X)`, A matrices transposed on the cross-lane unit,
    /// or `(A, X, Y, C) → (A, Y, X, C)` with C > 1, rows of C words moved by DMA alone.
    fn transpose_kernel(&mut self, fusion: &Fusion) -> Result<(), CompileError> {
        let g = self.graph();
        let root = fusion.root();
        let Op::Transpose { permutation } = &g.instrs[root].op else { unreachable!("a transpose fusion") };
        let source = g.instrs[root].operands[0];
        let shape = g.instrs[source].shape.clone();
        let src_hbm = match view_strides(g, &self.hbm, source) {
            Some((stored, strides)) if contiguous(&strides, &shape) => stored,
            _ => {
                return Err(err(format!(
                    "transposing the broadcast %{} is not supported by the compiler yet",
                    g.value_name(source)
                )))
            }
        };
        let out_hbm = self.hbm_alloc(root);
        let (dims, perm) = crate::hlo::merge_transpose(&shape, permutation);
        let d = |i: usize| dims[i] as u32;
        match perm.as_slice() {
            [] | [0] => self.move_rows(src_hbm, out_hbm, (1, 1, 1, dims.iter().product::<usize>() as u32)),
            [1, 0] => self.transpose_matrices(src_hbm, out_hbm, (1, d(0), d(1))),
            [0, 2, 1] => self.transpose_matrices(src_hbm, out_hbm, (d(0), d(1), d(2))),
            [1, 0, 2] => self.move_rows(src_hbm, out_hbm, (1, d(0), d(1), d(2))),
            [0, 2, 1, 3] => self.move_rows(src_hbm, out_hbm, (d(0), d(1), d(2), d(3))),
            _ => Err(err(format!(
                "transposing f32{shape:?} by {permutation:?} is not supported by the compiler yet \
                 (after merging axes that stay together it is a {}-axis permutation {perm:?})",
                perm.len()
            ))),
        }
    }

    /// `batch` R×C matrices transposed on the cross-lane unit, a band of rows at a time: each
    /// band of the source becomes a band of columns of the result.
    fn transpose_matrices(
        &mut self,
        src_hbm: Stored,
        out_hbm: Stored,
        (batch, rows, cols): (u32, u32, u32),
    ) -> Result<(), CompileError> {
        let padded = round_up(cols, LANES);
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        // A band of at most 128 rows becomes 128 padded columns of the result.
        let tile = self.tile_rows(rows, 2 * padded + 2 * cols, vmem.limit)?.min(LANES);
        let band = round_up(tile, LANES);
        let src_buf = vmem.alloc(2 * tile * padded, "the source band")?;
        let dst_buf = vmem.alloc(2 * cols * band, "the transposed band")?;
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        let db = self.open_loop(batch);
        let (src_base, out_base) = (affine(src_hbm.addr, rows * cols, db), affine(out_hbm.addr, rows * cols, db));
        let src_block = move |t: Tile, s: usize| Block {
            addr: Addr::from(src_buf + s as u32 * tile * padded),
            rows: t.rows,
            cols,
            stride: padded,
        };
        let load = |e: &mut Self, t: Tile, s: usize| {
            let src = Block { addr: t.addr_in(&src_base, tile * cols), rows: t.rows, cols, stride: cols };
            e.dma_load(src_hbm.elem, src, src_block(t, s));
        };
        self.for_tiles((rows / tile, tile, rows % tile), 1, load, |e, t, s| {
            let src = src_block(t, s);
            let dst =
                Block { addr: Addr::from(dst_buf + s as u32 * cols * band), rows: cols, cols: t.rows, stride: band };
            e.instrs.push(Instr::Transpose { src, dst: dst.clone() });
            let out = Block { addr: t.addr_in(&out_base, tile), rows: cols, cols: t.rows, stride: rows };
            e.dma_store(out_hbm.elem, dst, out);
            Ok(())
        })?;
        self.close_loop(db);
        Ok(())
    }

    /// `(A, X, Y, C) → (A, Y, X, C)` by DMA alone: a tile of the source's X rows (each Y·C
    /// contiguous words) comes into VMEM, and each of its rows goes out as Y runs of C words,
    /// X·C apart. No unit computes, so VMEM rows need no padding.
    fn move_rows(
        &mut self,
        src_hbm: Stored,
        out_hbm: Stored,
        (a, x, y, c): (u32, u32, u32, u32),
    ) -> Result<(), CompileError> {
        let row = y * c;
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        let tile = self.tile_rows(x, 2 * row, vmem.limit)?;
        let buf = vmem.alloc(2 * tile * row, "a tile of rows")?;
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        let da = self.open_loop(a);
        let (src_base, out_base) = (affine(src_hbm.addr, x * row, da), affine(out_hbm.addr, x * row, da));
        let slot = move |s: usize| buf + s as u32 * tile * row;
        let load = |e: &mut Self, t: Tile, s: usize| {
            let src = Block { addr: t.addr_in(&src_base, tile * row), rows: t.rows, cols: row, stride: row };
            e.dma_load(src_hbm.elem, src, Block { addr: slot(s).into(), rows: t.rows, cols: row, stride: row });
        };
        self.for_tiles((x / tile, tile, x % tile), 1, load, |e, t, s| {
            // Row r of the tile (source row x = tile start + r) lands at column x·C of each of
            // the result's Y rows.
            let dr = e.open_loop(t.rows);
            let src = Block { addr: affine(slot(s), row, dr), rows: y, cols: c, stride: c };
            let dst = Block { addr: add_term(&t.addr_in(&out_base, tile * c), c, dr), rows: y, cols: c, stride: x * c };
            e.dma_store(out_hbm.elem, src, dst);
            e.close_loop(dr);
            Ok(())
        })?;
        self.close_loop(da);
        Ok(())
    }

    /// A concatenation, slice, pad or slice update: boxes of the source copied by DMA (through
    /// VMEM) to their place in the result; a pad first fills the result with its value, an
    /// update first copies the whole operand.
    fn copy_kernel(&mut self, fusion: &Fusion) -> Result<(), CompileError> {
        let g = self.graph();
        let root = fusion.root();
        let instr = &g.instrs[root];
        let whole = |e: &Self, v: ValueId| -> Result<(Stored, Vec<usize>), CompileError> {
            match view_strides(g, &e.hbm, v) {
                Some((stored, strides)) if contiguous(&strides, &g.instrs[v].shape) => Ok((stored, strides)),
                _ => {
                    Err(err(format!("copying the broadcast %{} is not supported by the compiler yet", g.value_name(v))))
                }
            }
        };
        let out_hbm = self.hbm_alloc(root);
        let out_strides = row_major(&instr.shape);
        match &instr.op {
            Op::Concatenate { dimension } => {
                let mut at = 0;
                for &o in &instr.operands {
                    let (addr, strides) = whole(self, o)?;
                    let dst = (out_hbm.at((at * out_strides[*dimension]) as u32), out_strides.clone());
                    self.copy_box((addr, signed(&strides)), dst, &g.instrs[o].shape)?;
                    at += g.instrs[o].shape[*dimension];
                }
            }
            Op::Slice { start, strides } => {
                let (addr, src) = whole(self, instr.operands[0])?;
                let first: usize = start.iter().zip(&src).map(|(a, s)| a * s).sum();
                let stepped = src.iter().zip(strides).map(|(s, k)| (s * k) as i64).collect();
                self.copy_box((addr.at(first as u32), stepped), (out_hbm, out_strides), &instr.shape)?;
            }
            // The source read from its far end along each reversed axis, stepping back.
            Op::Reverse { dims } => {
                let (addr, src) = whole(self, instr.operands[0])?;
                let shape = &instr.shape;
                let last: usize = dims.iter().map(|&d| shape[d].saturating_sub(1) * src[d]).sum();
                let steps = (0..shape.len()).map(|d| if dims.contains(&d) { -(src[d] as i64) } else { src[d] as i64 });
                self.copy_box((addr.at(last as u32), steps.collect()), (out_hbm, out_strides), shape)?;
            }
            Op::Pad { low, interior } => {
                self.fill(out_hbm, &instr.shape, instr.operands[1])?;
                let x = instr.operands[0];
                let (addr, src_strides) = whole(self, x)?;
                // Per axis, the source elements that land inside the result (a negative low
                // or a short result crops), where the first lands, and the step between them.
                let (mut src_at, mut dst_at) = (addr.addr as i64, out_hbm.addr as i64);
                let mut dst_strides = Vec::new();
                let mut counts = Vec::new();
                for (d, &n) in g.instrs[x].shape.iter().enumerate() {
                    let (k, lo, out) = (interior[d] as i64 + 1, low[d], instr.shape[d] as i64);
                    let first = if lo < 0 { (-lo + k - 1) / k } else { 0 };
                    let end = if out - 1 - lo < 0 { 0 } else { (n as i64).min((out - 1 - lo) / k + 1) };
                    counts.push((end - first).max(0) as usize);
                    src_at += first * src_strides[d] as i64;
                    dst_at += (lo + first * k) * out_strides[d] as i64;
                    dst_strides.push(out_strides[d] * k as usize);
                }
                if counts.iter().all(|&c| c > 0) {
                    let (from, to) =
                        (Stored { addr: src_at as u32, ..addr }, Stored { addr: dst_at as u32, ..out_hbm });
                    self.copy_box((from, signed(&src_strides)), (to, dst_strides), &counts)?;
                }
            }
            Op::UpdateSlice { start } => {
                let (x, update) = (instr.operands[0], instr.operands[1]);
                let (addr, strides) = whole(self, x)?;
                self.copy_box((addr, signed(&strides)), (out_hbm, out_strides.clone()), &instr.shape)?;
                let first: usize = start.iter().zip(&out_strides).map(|(a, s)| a * s).sum();
                let (addr, strides) = whole(self, update)?;
                self.copy_box(
                    (addr, signed(&strides)),
                    (out_hbm.at(first as u32), out_strides),
                    &g.instrs[update].shape,
                )?;
            }
            other => unreachable!("a copy fusion of {other:?}"),
        }
        Ok(())
    }

    /// Writes the scalar `value` (a constant, or a word in HBM) over the whole array at `hbm`:
    /// one VMEM tile filled once, stored tile after tile.
    fn fill(&mut self, hbm: Stored, shape: &[usize], value: ValueId) -> Result<(), CompileError> {
        let (rows, cols) = rows_cols(shape);
        let padded = round_up(cols, LANES);
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        let word = vmem.alloc(1, "the padding value")?;
        let tile = self.tile_rows(rows, padded, vmem.limit - vmem.top)?;
        let buf = vmem.alloc(tile * padded, "the filled tile")?;
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        let g = self.graph();
        let b = match g.constant_value(value) {
            Some(x) => Operand::Imm(x),
            None => {
                let (stored, _) = view_strides(g, &self.hbm, value)
                    .ok_or_else(|| err(format!("the padding value %{} has no place in HBM", g.value_name(value))))?;
                let one = |a: u32| Block { addr: a.into(), rows: 1, cols: 1, stride: 1 };
                self.dma_load(stored.elem, one(stored.addr), one(word));
                self.instrs.push(Instr::Wait { sem: SEM_LOADS, count: 1 });
                Operand::Splat(word.into())
            }
        };
        // A masked move keeps the value's bits (-0.0, NaN payloads) where an add would not.
        let dst = Block { addr: buf.into(), rows: tile.min(rows), cols, stride: padded };
        self.instrs.push(Instr::Vector { op: VectorOp::Where, dst, a: Operand::Imm(1.0), b });
        self.for_tiles(
            (rows / tile, tile, rows % tile),
            0,
            |_, _, _| {},
            |e, t, _| {
                let src = Block { addr: buf.into(), rows: t.rows, cols, stride: padded };
                let dst = Block { addr: t.addr(hbm.addr, tile * cols), rows: t.rows, cols, stride: cols };
                e.dma_store(hbm.elem, src, dst);
                Ok(())
            },
        )
    }

    /// Copies a box of `shape` elements from `src` to `dst`, each an HBM address and a stride
    /// per axis (the source's may be negative: a reversal reads backwards): axes that are
    /// contiguous on both sides merge, the leading ones loop, and the last two stream through
    /// VMEM in tiles of rows (a strided DMA in, a strided DMA out).
    fn copy_box(
        &mut self,
        (src, src_strides): (Stored, Vec<i64>),
        (dst, dst_strides): (Stored, Vec<usize>),
        shape: &[usize],
    ) -> Result<(), CompileError> {
        // (count, source stride, destination stride) per axis, size-1 axes dropped.
        let mut axes: Vec<(u32, i64, u32)> = Vec::new();
        for d in 0..shape.len() {
            if shape[d] == 1 {
                continue;
            }
            let axis = (shape[d] as u32, src_strides[d], dst_strides[d] as u32);
            match axes.last_mut() {
                Some(last) if last.1 == axis.0 as i64 * axis.1 && last.2 == axis.0 * axis.2 => {
                    *last = (last.0 * axis.0, axis.1, axis.2);
                }
                _ => axes.push(axis),
            }
        }
        // A DMA row is contiguous on both sides: without such a last axis (a step along it,
        // a single column, a reversal), rows are one word each.
        let mut cols = match axes.last() {
            Some(&(n, 1, 1)) => {
                axes.pop();
                n
            }
            _ => 1,
        };
        // A run too long for a tile of rows in VMEM (a 2048×2048 mask broadcast over heads is
        // one run of 4M words) is cut into rows of a length that divides it.
        let longest = self.opts.vmem_words / (2 * SUBLANES);
        if cols > longest {
            let piece = (1..=longest).rev().find(|&c| cols.is_multiple_of(c)).unwrap_or(1);
            axes.push((cols / piece, piece as i64, piece));
            cols = piece;
        }
        // Axes the source repeats (stride 0, a broadcast) loop outermost: a DMA block's rows
        // must not overlap. Any order of a box's axes copies the same elements. A DMA block's
        // rows step forward, so an axis read backwards loops.
        axes.sort_by_key(|a| a.1 > 0);
        let (rows, s_row, d_row) = match axes.last() {
            Some(&(_, s, _)) if s > 0 => {
                let (rows, s, d) = axes.pop().expect("just looked");
                (rows, s as u32, d)
            }
            _ => (1, cols, cols),
        };
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        let tile = self.tile_rows(rows, 2 * cols, vmem.limit)?;
        let buf = vmem.alloc(2 * tile * cols, "a tile of the copy")?;
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        let (mut src_base, mut dst_base) = (Addr::from(src.addr), Addr::from(dst.addr));
        let mut loops = Vec::new();
        for &(count, s, d) in &axes {
            let depth = self.open_loop(count);
            if let (Some(depth), true) = (depth, s != 0) {
                src_base.strides.push((depth as u8, s as i32));
            }
            dst_base = add_term(&dst_base, d, depth);
            loops.push(depth);
        }
        let slot = move |t: Tile, s: usize| Block {
            addr: (buf + s as u32 * tile * cols).into(),
            rows: t.rows,
            cols,
            stride: cols,
        };
        let load = |e: &mut Self, t: Tile, s: usize| {
            let from = Block { addr: t.addr_in(&src_base, tile * s_row), rows: t.rows, cols, stride: s_row };
            e.dma_load(src.elem, from, slot(t, s));
        };
        self.for_tiles((rows / tile, tile, rows % tile), 1, load, |e, t, s| {
            let to = Block { addr: t.addr_in(&dst_base, tile * d_row), rows: t.rows, cols, stride: d_row };
            e.dma_store(dst.elem, slot(t, s), to);
            Ok(())
        })?;
        for depth in loops.into_iter().rev() {
            self.close_loop(depth);
        }
        Ok(())
    }

    /// An output fusion: `(M,K)·(K,N)` on the MXU, then its elementwise epilogue; or a batched
    /// `(B,M,K)·(B,K,N)`, a loop over the batch of the same kernel (without epilogue).
    fn matmul_kernel(&mut self, fusion: &Fusion) -> Result<(), CompileError> {
        let g = self.graph();
        let dot = fusion.ops[0];
        let Op::Dot { precision } = g.instrs[dot].op else { unreachable!("an output fusion starts with its dot") };
        let outputs = self.alloc_outputs(fusion);
        let (lhs, rhs) = (g.instrs[dot].operands[0], g.instrs[dot].operands[1]);
        let (ls, rs) = (&g.instrs[lhs].shape, &g.instrs[rhs].shape);
        let batch = if ls.len() == 3 { ls[0] as u32 } else { 1 };
        let (m, k) = (ls[ls.len() - 2] as u32, ls[ls.len() - 1] as u32);
        let n = rs[rs.len() - 1] as u32;
        let mut operand_hbm = [NO_HBM; 2];
        for (slot, v) in operand_hbm.iter_mut().zip([lhs, rhs]) {
            match view_strides(g, &self.hbm, v) {
                Some((stored, strides)) if contiguous(&strides, &g.instrs[v].shape) => *slot = stored,
                _ => {
                    return Err(err(format!(
                        "a broadcast matmul operand (%{}) is not supported by the compiler yet",
                        g.value_name(v)
                    )))
                }
            }
        }
        let [a_hbm, b_hbm] = operand_hbm;
        let shape = g.instrs[dot].shape.clone();
        // The matmul's operands are loaded as its A and B; an epilogue op may read one of them
        // too (`a + a @ w` with a square w: the jit fuzzer found it), as an input of its own.
        let read_by_epilogue = |v: ValueId| fusion.ops[1..].iter().any(|&o| g.instrs[o].operands.contains(&v));
        let epilogue_inputs: Vec<ValueId> =
            fusion.inputs(g).into_iter().filter(|&v| (v != lhs && v != rhs) || read_by_epilogue(v)).collect();
        let mut inputs = self.inputs(&epilogue_inputs, &shape)?;
        let mut vmem = Vmem { top: 0, limit: self.opts.vmem_words };
        let resident = self.load_resident(&mut inputs, m, n, &mut vmem)?;
        if resident > 0 {
            self.instrs.push(Instr::Wait { sem: SEM_LOADS, count: resident });
        }
        let tc = self.opts.mxu_cols;
        let kp = round_up(k, LANES);
        // Result blocks: TN columns (whole MXU widths, at least four and a multiple of the
        // core's MXUs, so each gets whole pieces), TM rows; both as large as VMEM allows.
        let mxus = self.opts.mxus.max(1);
        let tn = round_up(n, tc).min(4u32.div_ceil(mxus) * mxus * tc);
        let tnp = round_up(tn, LANES);
        let full = inputs.iter().filter(|i| i.access == Access::Full).count() as u32;
        let ops = fusion.ops.len() as u32;
        let b_words = 2 * kp * tnp;
        let budget = vmem.limit.saturating_sub(vmem.top + b_words);
        // Per row of a block: two slots of A's row, and of the result, epilogue values and
        // full epilogue inputs.
        // Each block of TM rows re-reads all of B: at 1024 rows a large matmul on four MXUs
        // computes longer than it loads (docs/compiler.md).
        let tm = self.tile_rows_at_most(m, 2 * kp + 2 * (ops + full) * tnp, budget, 1024)?;
        let a_buf = vmem.alloc(2 * tm * kp, "the matmul's lhs tile")?;
        let b_buf = vmem.alloc(b_words, "the matmul's rhs tile")?;
        for input in inputs.iter_mut().filter(|i| i.access == Access::Full) {
            input.vmem = vmem.alloc(2 * tm * tnp, "an epilogue input tile")?;
        }
        let results: Vec<u32> =
            fusion.ops.iter().map(|_| vmem.alloc(2 * tm * tnp, "a result tile")).collect::<Result<_, _>>()?;
        self.vmem_peak = self.vmem_peak.max(vmem.top);
        self.flops += 2 * m as u64 * k as u64 * n as u64;
        self.flops += fusion.ops[1..].iter().map(|&v| g.instrs[v].size() as u64).sum::<u64>();
        let passes = precision_passes(precision);
        let (n_blocks, n_last) = (n / tn, n % tn);
        self.flops += 2 * (batch as u64 - 1) * m as u64 * k as u64 * n as u64;
        // Each batch element is a matmul of its own: its arrays are M·K, K·N and M·N words on.
        let db = self.open_loop(batch);
        let a_base = affine(a_hbm.addr, m * k, db);
        let b_base = affine(b_hbm.addr, k * n, db);
        let outputs: Vec<(usize, Addr, ElemType)> =
            outputs.iter().map(|&(i, hbm)| (i, affine(hbm.addr, m * n, db), hbm.elem)).collect();
        // Row blocks (A's rows) outside, column blocks (B's columns) inside, as one pipeline:
        // each block of columns loads during the previous block's compute, and the last
        // block of a row block loads the next row block's rows and first columns. A's loads
        // signal their own semaphore, so the inner waits count only B's. B's slots alternate
        // over the whole sequence of blocks (row block o, column block i is block o·Q + i).
        let col_blocks = n_blocks + (n_last > 0) as u32;
        let a_rows = move |mt: Tile, ms: usize| Block {
            addr: Addr::from(a_buf + ms as u32 * tm * kp),
            rows: mt.rows,
            cols: k,
            stride: kp,
        };
        let b_cols = move |nt: Tile, bs: usize| Block {
            addr: Addr::from(b_buf + bs as u32 * kp * tnp),
            rows: k,
            cols: nt.rows,
            stride: tnp,
        };
        let b_slot = move |mt: Tile, ns: usize| (mt.first as usize % 2 * col_blocks as usize + ns) % 2;
        let at = move |base: u32, bs: usize| Addr::from(base + bs as u32 * tm * tnp);
        let block = move |base: u32, mt: Tile, nt: Tile, bs: usize| Block {
            addr: at(base, bs),
            rows: mt.rows,
            cols: nt.rows,
            stride: tnp,
        };
        // The block's first element in an M×N array: row tile `mt`, column tile `nt`.
        let corner = |base: &Addr, mt: Tile, nt: Tile| {
            add_term(&offset(&mt.addr_in(base, tm * n), nt.first * tn), nt.step * tn, nt.depth)
        };
        let first_cols = Tile { first: 0, step: 0, depth: None, rows: if n_blocks > 0 { tn } else { n_last } };
        // B's columns for column block `nt` of row block `mt`, then that block's full
        // epilogue inputs.
        let load_b = |e: &mut Self, mt: Tile, nt: Tile, bs: usize| {
            let src = Block { addr: nt.addr_in(&b_base, tn), rows: k, cols: nt.rows, stride: n };
            e.dma_load(b_hbm.elem, src, b_cols(nt, bs));
            for input in inputs.iter().filter(|i| i.access == Access::Full) {
                let from = input.hbm.addr.into();
                let src = Block { addr: corner(&from, mt, nt), rows: mt.rows, cols: nt.rows, stride: n };
                e.dma_load(input.hbm.elem, src, block(input.vmem, mt, nt, bs));
            }
        };
        let load_row_block = |e: &mut Self, mt: Tile, ms: usize| {
            let src = Block { addr: mt.addr_in(&a_base, tm * k), rows: mt.rows, cols: k, stride: k };
            e.dma_load_on(SEM_ROWS, a_hbm.elem, src, a_rows(mt, ms));
            load_b(e, mt, first_cols, b_slot(mt, 0));
        };
        // One block of results: the MXUs, the epilogue, the stores.
        let compute_block = |e: &mut Self, mt: Tile, ms: usize, nt: Tile, ns: usize| {
            let bs = b_slot(mt, ns);
            let (a, b) = (a_rows(mt, ms).addr, b_cols(nt, bs).addr);
            e.mxu_block((&a, kp), (&b, tnp), &block(results[0], mt, nt, bs), (k, nt.rows), passes);
            let at = |base: u32| at(base, bs);
            let computed: Computed = fusion.ops.iter().zip(&results).map(|(&v, &r)| (v, at(r))).collect();
            // Row inputs are indexed from this block's first column (columns from its first
            // row, which `operand_of` does with the row tile).
            for (&v, &r) in fusion.ops.iter().zip(&results).skip(1) {
                let operand = |o: ValueId| match Self::operand_of(g, o, &computed, &inputs, &at, mt, tm) {
                    Operand::Row(a) => Operand::Row(add_term(&offset(&a, nt.first * tn), nt.step * tn, nt.depth)),
                    other => other,
                };
                e.vector_op(v, block(r, mt, nt, bs), &operand)?;
            }
            for (i, hbm, elem) in &outputs {
                let dst = Block { addr: corner(hbm, mt, nt), rows: mt.rows, cols: nt.rows, stride: n };
                e.dma_store(*elem, block(results[*i], mt, nt, bs), dst);
            }
            Ok(())
        };
        let rows_pipeline = Pipeline { sem: SEM_ROWS, per_tile: 1, preloaded: false, load_ahead: false };
        let cols_pipeline = Pipeline { sem: SEM_LOADS, per_tile: 1 + full, preloaded: true, load_ahead: true };
        let row_block = |e: &mut Self, mt: Tile, ms: usize, next_rows: Option<(Tile, usize)>| {
            let load_next_cols = |e: &mut Self, nt: Tile, ns: usize| load_b(e, mt, nt, b_slot(mt, ns));
            let load_next_rows = |e: &mut Self| {
                if let Some((next, slot)) = next_rows {
                    load_row_block(e, next, slot);
                }
            };
            let cols = (n_blocks, tn, n_last);
            e.tile_pipeline(
                cols,
                cols_pipeline,
                load_next_cols,
                |e, nt, ns, _| compute_block(e, mt, ms, nt, ns),
                load_next_rows,
            )
        };
        self.tile_pipeline((m / tm, tm, m % tm), rows_pipeline, load_row_block, row_block, |_| {})?;
        self.close_loop(db);
        Ok(())
    }

    /// One block of results on the core's MXUs: for every bf16 pass, every round of column
    /// pieces and every 128-row piece of K, load each MXU's weights and stream its rows of A
    /// through. The first K piece of the first pass overwrites the result; the rest accumulate.
    /// Full pieces are loops with affine addresses; a ragged last piece is emitted after them.
    /// `a` and `b` are (address, row stride) of A's rows and B's columns in VMEM.
    fn mxu_block(
        &mut self,
        (a, a_stride): (&Addr, u32),
        (b, b_stride): (&Addr, u32),
        c: &Block,
        (k, n): (u32, u32),
        passes: &[(usize, usize)],
    ) {
        let tr = self.opts.mxu_rows;
        let k_runs = |p: usize| -> Vec<(u32, u32, u32, bool)> {
            // (first piece, how many, rows, accumulate): the full pieces, then the ragged one;
            // the very first piece of the first pass sets the result, so it is peeled off.
            let mut runs = vec![(0, k / tr, tr, true)];
            if !k.is_multiple_of(tr) {
                runs.push((k / tr, 1, k % tr, true));
            }
            runs.retain(|r| r.1 > 0);
            if p == 0 {
                let (first, count, rows, _) = runs[0];
                runs[0] = (first + 1, count - 1, rows, true);
                runs.insert(0, (first, 1, rows, false));
                runs.retain(|r| r.1 > 0);
            }
            runs
        };
        let rounds = self.mxu_rounds(c.rows, n);
        for (p, &(pl, pr)) in passes.iter().enumerate() {
            for (count, stride, lanes) in &rounds {
                let dn = self.open_loop(*count);
                for (first, count, kt, accumulate) in k_runs(p) {
                    let dk = self.open_loop(count);
                    let k_at = |base: &Addr, stride: u32| add_term(&offset(base, first * tr * stride), tr * stride, dk);
                    for lane in lanes {
                        let n_at = |base: &Addr| add_term(&offset(base, lane.col), *stride, dn);
                        let weights =
                            Block { addr: n_at(&k_at(b, b_stride)), rows: kt, cols: lane.cols, stride: b_stride };
                        self.instrs.push(Instr::MxuWeights { src: weights, part: Part::ALL[pr], mxu: lane.mxu });
                        let src = Block {
                            addr: offset(&k_at(a, 1), lane.row * a_stride),
                            rows: lane.rows,
                            cols: kt,
                            stride: a_stride,
                        };
                        let dst = Block {
                            addr: n_at(&offset(&c.addr, lane.row * c.stride)),
                            rows: lane.rows,
                            cols: lane.cols,
                            stride: c.stride,
                        };
                        let part = Part::ALL[pl];
                        self.instrs.push(Instr::MxuMatmul { src, dst, part, accumulate, mxu: lane.mxu });
                    }
                    self.close_loop(dk);
                }
                self.close_loop(dn);
            }
        }
    }

    /// How a `rows × n` result block is shared among the core's MXUs: rounds of lanes, each
    /// lane one MXU's piece of the block, as (times the round repeats, the column stride
    /// between repeats, lanes). Each MXU takes a whole MXU width of columns; when the block has
    /// fewer column pieces than MXUs, the MXUs on one piece split its rows instead (each
    /// loads the same weights and streams its share of the rows).
    fn mxu_rounds(&self, rows: u32, n: u32) -> Vec<(u32, u32, Vec<Lane>)> {
        let (tc, mxus) = (self.opts.mxu_cols, self.opts.mxus.max(1));
        let pieces: Vec<(u32, u32)> = (0..n.div_ceil(tc)).map(|i| (i * tc, tc.min(n - i * tc))).collect();
        let lane = |mxu: u32, (col, cols): (u32, u32)| Lane { mxu: mxu as u8, col, cols, row: 0, rows };
        if pieces.len() as u32 >= mxus {
            // Whole rounds of full pieces loop; the rest (fewer than `mxus` pieces) follow.
            let full = n / tc / mxus;
            let mut rounds = vec![(full, mxus * tc, (0..mxus).map(|m| lane(m, pieces[m as usize])).collect())];
            let rest = &pieces[(full * mxus) as usize..];
            rounds.push((1, 0, rest.iter().zip(0..).map(|(&p, m)| lane(m, p)).collect()));
            rounds.retain(|r: &(u32, u32, Vec<Lane>)| r.0 > 0 && !r.2.is_empty());
            return rounds;
        }
        // Split rows in multiples of the vector unit's sublanes.
        let share = mxus / pieces.len() as u32;
        let chunk = round_up(rows.div_ceil(share), SUBLANES);
        let mut lanes = Vec::new();
        for (j, &piece) in pieces.iter().enumerate() {
            for (q, row) in (0..rows).step_by(chunk as usize).enumerate() {
                let mxu = j as u32 * share + q as u32;
                lanes.push(Lane { row, rows: chunk.min(rows - row), ..lane(mxu, piece) });
            }
        }
        vec![(1, 0, lanes)]
    }
}

/// One MXU's share of a result block: `rows` rows from `row` and `cols` columns from `col`.
#[derive(Clone, Copy, Debug)]
struct Lane {
    mxu: u8,
    col: u32,
    cols: u32,
    row: u32,
    rows: u32,
}

/// Emits the program for a fused graph.
pub fn emit(fused: &FusedGraph, opts: &CompileOptions) -> Result<Program, CompileError> {
    let g = &fused.graph;
    // HBM addresses are 32-bit, counting words (bf16 elements for packed bf16): check the
    // total first, so no later arithmetic can overflow (the runtime then checks it against
    // the machine's HBM). Every value HBM may hold counts (a broadcast read whole is too).
    let (mut words, mut packed) = (0u64, false);
    for &v in g.params.iter().chain(fused.fusions.iter().flat_map(|f| &f.outputs)) {
        let n = g.instrs[v].shape.iter().map(|&d| d as u64).product::<u64>().max(1);
        let elem = stored_elem(g, v);
        packed |= elem == ElemType::Bf16;
        words += elem.words(n);
    }
    let reach = if packed { u32::MAX as u64 / 2 } else { u32::MAX as u64 };
    if words > reach {
        return Err(err(format!(
            "RESOURCE_EXHAUSTED: needs {} of HBM, more than the {} the emulator can address{}",
            human_bytes(words * 4),
            human_bytes(reach * 4 + 4),
            if packed { " with bf16 arrays in it (their addresses count 2-byte elements)" } else { "" }
        )));
    }
    let mut e = Emitter {
        fused,
        opts,
        instrs: vec![],
        hbm: vec![None; g.instrs.len()],
        hbm_top: 0,
        vmem_peak: 0,
        flops: 0,
        depth: 0,
    };
    let mut inputs = Vec::new();
    for (i, &p) in g.params.iter().enumerate() {
        let Stored { addr, elem } = e.hbm_alloc(p);
        inputs.push(Buffer { name: format!("in{i}"), addr, shape: g.instrs[p].shape.clone(), elem });
    }
    for (i, fusion) in fused.fusions.iter().enumerate() {
        let at = |m: CompileError| err(format!("fusion.{i}: {}", m.message));
        match fusion.kind {
            FusionKind::Loop => e.loop_kernel(fusion).map_err(at)?,
            FusionKind::Output => e.matmul_kernel(fusion).map_err(at)?,
            FusionKind::Reduction => e.reduce_kernel(fusion).map_err(at)?,
            FusionKind::Transpose => e.transpose_kernel(fusion).map_err(at)?,
            FusionKind::Copy => e.copy_kernel(fusion).map_err(at)?,
        }
    }
    let mut outputs = Vec::new();
    for (i, &o) in g.outputs.iter().enumerate() {
        let shape = &g.instrs[o].shape;
        let mut stored = match view_strides(g, &e.hbm, o) {
            Some((stored, strides)) if contiguous(&strides, shape) => stored,
            _ => return Err(err(format!("internal error: output {i} is not a contiguous array in HBM"))),
        };
        // A result is held as its own type (its caller, the linker, lays out buffers by
        // type): a float32 view of bf16 data (a convert) is unpacked into a buffer of its own.
        if stored.elem != stored_elem(g, o) {
            let own = e.hbm_alloc(o);
            e.copy_box((stored, signed(&row_major(shape))), (own, row_major(shape)), shape)?;
            stored = own;
        }
        let Stored { addr, elem } = stored;
        outputs.push(Buffer { name: format!("out{i}"), addr, shape: shape.clone(), elem });
    }
    let mut program = Program {
        name: g.name.clone(),
        flops: isa::Flops::at_start(e.instrs.len(), e.flops),
        instrs: e.instrs,
        hbm_words: e.hbm_top.max(1),
        vmem_words: e.vmem_peak.max(1),
        inputs,
        outputs,
    };
    // The program ends when its results are in HBM: wait for every store.
    // (Counted over the loops' trip counts: the compiler emits no data-dependent control.)
    let (mut trips, mut stores) = (vec![1u32], 0u32);
    for instr in &program.instrs {
        let outer = *trips.last().expect("the program's own level");
        match instr {
            Instr::Loop { count } => trips.push(outer.saturating_mul(*count)),
            Instr::End => {
                trips.pop();
            }
            Instr::DmaStore { .. } => stores = stores.saturating_add(outer),
            _ => {}
        }
    }
    if stores > 0 {
        program.instrs.push(Instr::Wait { sem: SEM_STORES, count: stores });
    }
    Ok(program)
}

/// Bytes as a person reads them: `18.3 GiB`, `4.0 MiB`, `512 bytes`.
pub fn human_bytes(bytes: u64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match units.iter().find(|(size, _)| bytes >= *size) {
        Some((size, unit)) => format!("{:.1} {unit}", bytes as f64 / *size as f64),
        None => format!("{bytes} bytes"),
    }
}
