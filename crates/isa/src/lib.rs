//! The emulated TPU's instruction set.
//!
//! A [`Program`] is a list of [`Instr`]s over three memories: HBM (off-chip, where a program's
//! inputs and outputs live), VMEM (the on-chip scratchpad every unit computes from) and the
//! MXU's weight registers. Addresses count 32-bit words. Instructions go to one of four units
//! (DMA, MXU, vector, scalar) that run concurrently; the timing model in `emu` says when.
//!
//! Programs stay compact with counted loops: `loop i0 32 … end` repeats its body, and every
//! address is affine in the indices of the enclosing loops (`vmem[4096+128*i0]`), so a large
//! tiled matmul is a handful of instructions. The scalar unit adds control that depends on
//! values: `s.load` reads a VMEM word into a scalar register, `s.add`, `s.lt`, … compute on
//! the registers, `while s0 … end` and `if s0 … else … end` branch on them, and an address may
//! be offset by a register (`hbm[64+16*s1]`). [`Program::ops`] runs a program's control into
//! the stream of concrete operations (`Instr<u32>`) that backends execute, asking the backend
//! for each word a `s.load` reads; [`Program::replay`] gives the same stream again from the
//! words a run loaded, which is how the timing model sees the run's branches.
//!
//! Every program prints as assembly text ([`text`]) and encodes as bytes ([`binary`]); both
//! round-trip. [`validate`] rejects malformed programs, naming the instruction.

pub mod binary;
mod ops;
pub mod text;
mod validate;

pub use ops::{Ops, Replay, MAX_OPERATIONS};
pub use validate::{validate, IsaError};

use serde::{Deserialize, Serialize};

/// Loops nest at most this deep (indices `i0` … `i5`): a batched matmul nests its batch, row
/// and column tiles, column pieces and K pieces.
pub const MAX_LOOP_DEPTH: usize = 6;

/// The scalar unit's registers: `s0` … `s15`, 32-bit two's complement integers, each 0 when a
/// program starts.
pub const SCALAR_REGS: u8 = 16;

/// A core has at most this many MXUs (`mxu=0` … `mxu=7`); published TPUs have one to four.
pub const MAX_MXUS: u8 = 8;

/// The bf16 component of an f32 operand that an MXU pass multiplies: an f32 `x` splits into
/// `hi = bf16(x)`, `mid = bf16(x - hi)`, `lo = bf16(x - hi - mid)`. DEFAULT precision uses `hi`
/// alone; HIGH and HIGHEST combine several passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Part {
    Hi,
    Mid,
    Lo,
}

impl Part {
    pub const ALL: [Part; 3] = [Part::Hi, Part::Mid, Part::Lo];

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        ["hi", "mid", "lo"][self as usize]
    }
}

/// Elementwise operations of the vector unit. Division and the transcendental functions use
/// the unit's transcendental path and cost more cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VectorOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Neg,
    Abs,
    Exp,
    Log,
    Tanh,
    /// Comparisons give 1.0 or 0.0 (NaN compares unequal to everything, -0 equals +0).
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// A masked move: `dst = a != 0 ? b : dst` (the destination is read too; bits are moved,
    /// not computed, so NaN payloads survive).
    Where,
    Sqrt,
    Rsqrt,
    Floor,
    Ceil,
    /// Half away from zero (`lax.round`'s default).
    Round,
    /// Half to even (`jnp.round`).
    RoundEven,
    Sign,
    Sin,
    Cos,
    Expm1,
    Log1p,
    Erf,
    /// `a` modulo `b` with the sign of `a` (`lax.rem`, C's fmod): exact.
    Rem,
    /// `a` rounded to bfloat16 (to nearest, ties to even), kept as a float32 word: how the
    /// vector unit, which computes in float32, writes a bfloat16 result.
    ToBf16,
    /// Integer operations on words holding the float32 of an int32 (how every int32 is kept):
    /// each operand is read as an int32 (toward zero, saturating, NaN as 0), the operation is
    /// two's complement int32 arithmetic, and the result is written as the nearest float32
    /// (ties to even). Bitwise and, or, exclusive or.
    BitAnd,
    BitOr,
    BitXor,
    /// `a << b`, wrapping; a shift outside 0..32 gives 0.
    ShiftLeft,
    /// `a >> b` with the sign copied in; a shift outside 0..32 gives 0 or -1 by `a`'s sign.
    ShiftRight,
    /// Operations on words holding the bits of a uint32 (how every uint32 is kept: the random
    /// bits and keys of `jax.random`, which need all 32 bits exact). Addition wraps; a shift
    /// amount is the bits of `b`, and a shift outside 0..32 gives 0. Results are bits, never
    /// canonicalised as floats.
    AddU32,
    OrU32,
    XorU32,
    ShlU32,
    /// Logical: zeros shifted in.
    ShrU32,
    /// A word holding the float32 of an int32 (read as `BitAnd` reads it) to that int32's
    /// two's complement bits: how an int32 becomes a uint32 (iota counters, `fold_in` data).
    IntToU32,
    /// Wrapping multiplication of uint32 bits.
    MulU32,
    /// `a % b` of uint32 bits; `a` where `b` is 0 (XLA's unsigned remainder by zero).
    RemU32,
    /// uint32 bits read as an int32 (two's complement) and written as the nearest float32, as
    /// every int32 word holds it: how `randint` turns its random offsets into values.
    U32ToInt,
    /// Comparisons of uint32 bits, written as 1.0 or 0.0 as every comparison is: the sort keys
    /// of `jax.random.permutation`.
    EqU32,
    LtU32,
}

impl VectorOp {
    /// In opcode order: `code()` is the position here.
    pub const ALL: [VectorOp; 48] = [
        VectorOp::Add,
        VectorOp::Sub,
        VectorOp::Mul,
        VectorOp::Div,
        VectorOp::Max,
        VectorOp::Min,
        VectorOp::Neg,
        VectorOp::Abs,
        VectorOp::Exp,
        VectorOp::Log,
        VectorOp::Tanh,
        VectorOp::Eq,
        VectorOp::Ne,
        VectorOp::Lt,
        VectorOp::Le,
        VectorOp::Gt,
        VectorOp::Ge,
        VectorOp::Where,
        VectorOp::Sqrt,
        VectorOp::Rsqrt,
        VectorOp::Floor,
        VectorOp::Ceil,
        VectorOp::Round,
        VectorOp::RoundEven,
        VectorOp::Sign,
        VectorOp::Sin,
        VectorOp::Cos,
        VectorOp::Expm1,
        VectorOp::Log1p,
        VectorOp::Erf,
        VectorOp::Rem,
        VectorOp::ToBf16,
        VectorOp::BitAnd,
        VectorOp::BitOr,
        VectorOp::BitXor,
        VectorOp::ShiftLeft,
        VectorOp::ShiftRight,
        VectorOp::AddU32,
        VectorOp::OrU32,
        VectorOp::XorU32,
        VectorOp::ShlU32,
        VectorOp::ShrU32,
        VectorOp::IntToU32,
        VectorOp::MulU32,
        VectorOp::RemU32,
        VectorOp::U32ToInt,
        VectorOp::EqU32,
        VectorOp::LtU32,
    ];

    pub fn name(self) -> &'static str {
        [
            "add",
            "sub",
            "mul",
            "div",
            "max",
            "min",
            "neg",
            "abs",
            "exp",
            "log",
            "tanh",
            "eq",
            "ne",
            "lt",
            "le",
            "gt",
            "ge",
            "where",
            "sqrt",
            "rsqrt",
            "floor",
            "ceil",
            "round",
            "round_even",
            "sign",
            "sin",
            "cos",
            "expm1",
            "log1p",
            "erf",
            "rem",
            "bf16",
            "and",
            "or",
            "xor",
            "shl",
            "shr",
            "add_u32",
            "or_u32",
            "xor_u32",
            "shl_u32",
            "shr_u32",
            "to_u32",
            "mul_u32",
            "rem_u32",
            "u32_to_int",
            "eq_u32",
            "lt_u32",
        ][self.code() as usize]
    }

    /// Number of operands (1 or 2).
    pub fn arity(self) -> usize {
        match self {
            VectorOp::Add
            | VectorOp::Sub
            | VectorOp::Mul
            | VectorOp::Div
            | VectorOp::Max
            | VectorOp::Min
            | VectorOp::Rem
            | VectorOp::Where => 2,
            op if op.is_integer() => 2,
            op if op.is_comparison() => 2,
            VectorOp::IntToU32 | VectorOp::U32ToInt => 1,
            op if op.is_u32() => 2,
            _ => 1,
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, VectorOp::Eq | VectorOp::Ne | VectorOp::Lt | VectorOp::Le | VectorOp::Gt | VectorOp::Ge)
    }

    /// Whether the operation reads and writes its words as int32 values (see `BitAnd`).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            VectorOp::BitAnd | VectorOp::BitOr | VectorOp::BitXor | VectorOp::ShiftLeft | VectorOp::ShiftRight
        )
    }

    /// Whether the operation works on the bits of uint32 words (see `AddU32`): its results
    /// (but `U32ToInt`'s and the comparisons' 1.0 or 0.0) and its operands (but `IntToU32`'s)
    /// are bits, not floats.
    pub fn is_u32(self) -> bool {
        matches!(
            self,
            VectorOp::AddU32
                | VectorOp::OrU32
                | VectorOp::XorU32
                | VectorOp::ShlU32
                | VectorOp::ShrU32
                | VectorOp::IntToU32
                | VectorOp::MulU32
                | VectorOp::RemU32
                | VectorOp::U32ToInt
                | VectorOp::EqU32
                | VectorOp::LtU32
        )
    }

    pub fn is_transcendental(self) -> bool {
        matches!(
            self,
            VectorOp::Div
                | VectorOp::Exp
                | VectorOp::Log
                | VectorOp::Tanh
                | VectorOp::Sqrt
                | VectorOp::Rsqrt
                | VectorOp::Sin
                | VectorOp::Cos
                | VectorOp::Expm1
                | VectorOp::Log1p
                | VectorOp::Erf
                | VectorOp::Rem
        )
    }

    /// The opcode shared by the CPU and GPU backends (`shaders/vector.wgsl` switches on it).
    pub fn code(self) -> u32 {
        self as u32
    }

    pub fn from_code(code: u32) -> Option<VectorOp> {
        VectorOp::ALL.get(code as usize).copied()
    }
}

/// An address that moves with the enclosing loops and the scalar registers:
/// `base + Σ stride · i_depth + Σ scale · s_reg`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Addr {
    pub base: u32,
    /// (loop depth, stride in words), at most one term per depth.
    pub strides: Vec<(u8, i32)>,
    /// (scalar register, words per unit of its value), at most one term per register: an
    /// address the program computed, known only when the instruction runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scalars: Vec<(u8, i32)>,
}

impl Addr {
    /// The address at these loop indices (`indices[d]` is `i_d`) and scalar registers; `None`
    /// if it leaves u32.
    pub fn at(&self, indices: &[u32], scalars: &[i32]) -> Option<u32> {
        let mut a = self.base as i64;
        for &(depth, stride) in &self.strides {
            a += stride as i64 * *indices.get(depth as usize)? as i64;
        }
        for &(reg, scale) in &self.scalars {
            a += scale as i64 * *scalars.get(reg as usize)? as i64;
        }
        u32::try_from(a).ok()
    }

    /// The smallest and largest address over loops with these trip counts.
    pub fn range(&self, counts: &[u32]) -> Option<(i64, i64)> {
        let (mut lo, mut hi) = (self.base as i64, self.base as i64);
        for &(depth, stride) in &self.strides {
            let last = *counts.get(depth as usize)? as i64 - 1;
            let extent = stride as i64 * last.max(0);
            lo += extent.min(0);
            hi += extent.max(0);
        }
        Some((lo, hi))
    }
}

impl From<u32> for Addr {
    fn from(base: u32) -> Addr {
        Addr { base, strides: Vec::new(), scalars: Vec::new() }
    }
}

/// A rectangle of words: `rows` rows of `cols` words, row starts `stride` words apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block<A = Addr> {
    pub addr: A,
    pub rows: u32,
    pub cols: u32,
    pub stride: u32,
}

impl<A> Block<A> {
    pub fn words(&self) -> u64 {
        self.rows as u64 * self.cols as u64
    }

    /// Words from the first to one past the last, relative to `addr`.
    pub fn extent(&self) -> u64 {
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.rows as u64 - 1) * self.stride as u64 + self.cols as u64
        }
    }
}

impl Block<u32> {
    /// A contiguous run of `len` words.
    pub fn flat(addr: u32, len: u32) -> Block<u32> {
        Block { addr, rows: 1, cols: len, stride: len }
    }

    /// The half-open word range the block lies within.
    pub fn span(&self) -> (u32, u32) {
        (self.addr, self.addr + self.extent() as u32)
    }
}

/// A vector operand. Element (r, c) of an operation over a `rows × cols` destination block is
/// read from: `Vmem`, a block shaped like the destination with the destination's stride;
/// `Row`, word `c` of one row broadcast down the rows; `Col`, word `r` of one column broadcast
/// across (a bias per row); `Splat`, one word for every element; or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operand<A = Addr> {
    Vmem(A),
    Row(A),
    Col(A),
    Splat(A),
    Imm(f32),
}

impl<A> Operand<A> {
    pub fn addr(&self) -> Option<&A> {
        match self {
            Operand::Vmem(a) | Operand::Row(a) | Operand::Col(a) | Operand::Splat(a) => Some(a),
            Operand::Imm(_) => None,
        }
    }

    /// Words read relative to the address, for a `rows × cols` operation with `stride`.
    pub fn extent(&self, rows: u32, cols: u32, stride: u32) -> u64 {
        let block = Block { addr: (), rows, cols, stride };
        match self {
            Operand::Vmem(_) => block.extent(),
            Operand::Row(_) => cols as u64,
            Operand::Col(_) => rows as u64,
            Operand::Splat(_) => 1,
            Operand::Imm(_) => 0,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Operand::Vmem(_) => "vmem",
            Operand::Row(_) => "row",
            Operand::Col(_) => "col",
            Operand::Splat(_) => "splat",
            Operand::Imm(_) => "imm",
        }
    }
}

/// The unit an instruction occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Unit {
    Scalar,
    Dma,
    Mxu,
    Vector,
    /// The cross-lane unit (XLU): reductions across the lanes of a row.
    CrossLane,
}

impl Unit {
    pub const ALL: [Unit; 5] = [Unit::Scalar, Unit::Dma, Unit::Mxu, Unit::Vector, Unit::CrossLane];

    pub fn name(self) -> &'static str {
        ["scalar", "dma", "mxu", "vector", "xlu"][self as usize]
    }
}

/// How the cross-lane unit combines a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min];

    pub fn name(self) -> &'static str {
        ["sum", "max", "min"][self as usize]
    }

    /// The value a reduction starts from: +0, -inf or +inf.
    pub fn identity(self) -> f32 {
        [0.0, f32::NEG_INFINITY, f32::INFINITY][self as usize]
    }
}

/// One instruction. In a [`Program`] addresses are [`Addr`]s; the operations a backend
/// executes (from [`Program::ops`]) have concrete `u32` addresses and no loops.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Instr<A = Addr> {
    /// Copy a block from HBM to VMEM (same rows and cols); on completion, signal `sem`. HBM
    /// holds the block's elements as `elem` says: f32 one per word, bf16 two per word (its
    /// address and stride then count bf16 elements); in VMEM each is one word, a bf16 as the
    /// f32 of the same value.
    DmaLoad {
        src: Block<A>,
        dst: Block<A>,
        sem: u8,
        elem: ElemType,
    },
    /// Copy a block from VMEM to HBM, each word stored as `elem` (a bf16 as its word's high
    /// half, which is the word's value when it is a bf16 value); on completion, signal `sem`.
    DmaStore {
        src: Block<A>,
        dst: Block<A>,
        sem: u8,
        elem: ElemType,
    },
    /// Stall issue until semaphore `sem` has `count` signals, then take them (it is a counting
    /// semaphore: each DMA completion adds one, each wait subtracts its count).
    Wait {
        sem: u8,
        count: u32,
    },
    /// Shift a K×N block of weights (K = `src.rows`, N = `src.cols`, at most the array's size)
    /// into MXU number `mxu` of the core, each word rounded to the bf16 `part` of its f32 value.
    MxuWeights {
        src: Block<A>,
        part: Part,
        mxu: u8,
    },
    /// Stream `src.rows` rows of K activations (`src.cols` = K of the loaded weights) through
    /// the array, each rounded to its bf16 `part`. Row m of the result is
    /// `sum_k act[m][k] * w[k][n]`, summed in f32 in order of k starting from +0.0 (products of
    /// two bf16 values are exact in f32). The M×N result overwrites `dst`, or is added to it
    /// when `accumulate` is set. A NaN result is stored as the canonical quiet NaN. Each of the
    /// core's MXUs holds its own weights: the matmul uses those last loaded into MXU `mxu`.
    MxuMatmul {
        src: Block<A>,
        dst: Block<A>,
        part: Part,
        accumulate: bool,
        mxu: u8,
    },
    /// `dst[r][c] = op(a(r, c), b(r, c))` over the destination block, in row-major order (b is
    /// unused by unary ops). The vector unit works on `sublanes × lanes` registers (8×128).
    Vector {
        op: VectorOp,
        dst: Block<A>,
        a: Operand<A>,
        b: Operand<A>,
    },
    /// `dst[r] = op over c of src[r][c]`, one word per row (R contiguous words), combining the
    /// row's words in order of c starting from the op's identity (+0, -inf, +inf); max and min
    /// propagate NaN; a NaN result is the canonical quiet NaN.
    Reduce {
        op: ReduceOp,
        src: Block<A>,
        dst: A,
    },
    /// `dst[c][r] = src[r][c]`; the destination block is the source's shape transposed and
    /// does not overlap it.
    Transpose {
        src: Block<A>,
        dst: Block<A>,
    },
    /// Repeat the instructions up to the matching `End` `count` times; inside, the loop's
    /// index is `i<depth>` (0-based, counting from the outermost loop).
    Loop {
        count: u32,
    },
    End,
    /// `s<dst> = ` the VMEM word at `src` read as the integer ops read a word: the int32 its
    /// float32 holds, toward zero, saturating, NaN as 0. The scalar unit waits for the word.
    ScalarLoad {
        src: A,
        dst: u8,
    },
    /// `s<dst> = op(a, b)` on the scalar unit, in 32-bit two's complement (wrapping).
    Scalar {
        op: ScalarOp,
        a: ScalarOperand,
        b: ScalarOperand,
        dst: u8,
    },
    /// Repeat the instructions up to the matching `End` while register `cond` is nonzero,
    /// tested before each trip (so perhaps never): a data-dependent branch.
    While {
        cond: u8,
    },
    /// Run the instructions up to the matching `Else` (or `End`) if register `cond` is
    /// nonzero, and those from the `Else` to the `End` if it is zero.
    If {
        cond: u8,
    },
    Else,
}

/// Operations of the scalar unit. Comparisons give 1 or 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarOp {
    Add,
    Sub,
    Mul,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl ScalarOp {
    /// In opcode order: the binary encoding's code is the position here.
    pub const ALL: [ScalarOp; 11] = [
        ScalarOp::Add,
        ScalarOp::Sub,
        ScalarOp::Mul,
        ScalarOp::Min,
        ScalarOp::Max,
        ScalarOp::Eq,
        ScalarOp::Ne,
        ScalarOp::Lt,
        ScalarOp::Le,
        ScalarOp::Gt,
        ScalarOp::Ge,
    ];

    pub fn name(self) -> &'static str {
        ["add", "sub", "mul", "min", "max", "eq", "ne", "lt", "le", "gt", "ge"][self as usize]
    }

    pub fn apply(self, a: i32, b: i32) -> i32 {
        match self {
            ScalarOp::Add => a.wrapping_add(b),
            ScalarOp::Sub => a.wrapping_sub(b),
            ScalarOp::Mul => a.wrapping_mul(b),
            ScalarOp::Min => a.min(b),
            ScalarOp::Max => a.max(b),
            ScalarOp::Eq => (a == b) as i32,
            ScalarOp::Ne => (a != b) as i32,
            ScalarOp::Lt => (a < b) as i32,
            ScalarOp::Le => (a <= b) as i32,
            ScalarOp::Gt => (a > b) as i32,
            ScalarOp::Ge => (a >= b) as i32,
        }
    }
}

/// An operand of a scalar operation: a register or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarOperand {
    Reg(u8),
    Imm(i32),
}

impl ScalarOperand {
    pub fn value(self, scalars: &[i32]) -> i32 {
        match self {
            ScalarOperand::Reg(r) => scalars[r as usize],
            ScalarOperand::Imm(x) => x,
        }
    }
}

/// A VMEM word as `s.load` reads it (and as the integer vector ops read their operands): the
/// int32 its float32 holds, toward zero, saturating, NaN as 0 (Rust's `as` is exactly that).
pub fn word_to_int(word: u32) -> i32 {
    f32::from_bits(word) as i32
}

impl<A> Instr<A> {
    pub fn unit(&self) -> Unit {
        match self {
            Instr::DmaLoad { .. } | Instr::DmaStore { .. } => Unit::Dma,
            Instr::Wait { .. }
            | Instr::Loop { .. }
            | Instr::End
            | Instr::ScalarLoad { .. }
            | Instr::Scalar { .. }
            | Instr::While { .. }
            | Instr::If { .. }
            | Instr::Else => Unit::Scalar,
            Instr::MxuWeights { .. } | Instr::MxuMatmul { .. } => Unit::Mxu,
            Instr::Vector { .. } => Unit::Vector,
            Instr::Reduce { .. } | Instr::Transpose { .. } => Unit::CrossLane,
        }
    }

    /// The mnemonic, as the assembly writes it.
    pub fn mnemonic(&self) -> String {
        match self {
            Instr::DmaLoad { elem: ElemType::F32, .. } => "dma.load".into(),
            Instr::DmaStore { elem: ElemType::F32, .. } => "dma.store".into(),
            Instr::DmaLoad { elem: ElemType::Bf16, .. } => "dma.load.bf16".into(),
            Instr::DmaStore { elem: ElemType::Bf16, .. } => "dma.store.bf16".into(),
            Instr::Wait { .. } => "wait".into(),
            Instr::MxuWeights { .. } => "mxu.weights".into(),
            Instr::MxuMatmul { .. } => "mxu.matmul".into(),
            Instr::Vector { op, .. } => format!("v.{}", op.name()),
            Instr::Reduce { op, .. } => format!("xlu.{}", op.name()),
            Instr::Transpose { .. } => "xlu.transpose".into(),
            Instr::Loop { .. } => "loop".into(),
            Instr::End => "end".into(),
            Instr::ScalarLoad { .. } => "s.load".into(),
            Instr::Scalar { op, .. } => format!("s.{}", op.name()),
            Instr::While { .. } => "while".into(),
            Instr::If { .. } => "if".into(),
            Instr::Else => "else".into(),
        }
    }

    /// Whether the instruction opens a block that an `End` closes.
    pub fn opens_block(&self) -> bool {
        matches!(self, Instr::Loop { .. } | Instr::While { .. } | Instr::If { .. })
    }
}

impl Instr<u32> {
    /// VMEM blocks the operation reads.
    pub fn vmem_read_blocks(&self) -> Vec<Block<u32>> {
        match self {
            Instr::DmaStore { src, .. }
            | Instr::MxuWeights { src, .. }
            | Instr::Reduce { src, .. }
            | Instr::Transpose { src, .. } => vec![*src],
            Instr::ScalarLoad { src, .. } => vec![Block::flat(*src, 1)],
            Instr::MxuMatmul { src, dst, accumulate, .. } => {
                let mut r = vec![*src];
                if *accumulate {
                    r.push(*dst);
                }
                r
            }
            Instr::Vector { op, dst, a, b } => {
                let operands = if op.arity() == 2 { vec![a, b] } else { vec![a] };
                let mut reads: Vec<Block<u32>> = operands
                    .into_iter()
                    .filter_map(|o| match *o {
                        Operand::Vmem(x) => Some(Block { addr: x, ..*dst }),
                        Operand::Row(x) => Some(Block::flat(x, dst.cols)),
                        Operand::Col(x) => Some(Block::flat(x, dst.rows)),
                        Operand::Splat(x) => Some(Block::flat(x, 1)),
                        Operand::Imm(_) => None,
                    })
                    .collect();
                if *op == VectorOp::Where {
                    reads.push(*dst);
                }
                reads
            }
            _ => vec![],
        }
    }

    /// VMEM blocks the operation writes.
    pub fn vmem_write_blocks(&self) -> Vec<Block<u32>> {
        match self {
            Instr::DmaLoad { dst, .. }
            | Instr::MxuMatmul { dst, .. }
            | Instr::Vector { dst, .. }
            | Instr::Transpose { dst, .. } => vec![*dst],
            Instr::Reduce { src, dst, .. } => vec![Block::flat(*dst, src.rows)],
            _ => vec![],
        }
    }

    /// VMEM word ranges the operation reads (the spans of its blocks).
    pub fn vmem_reads(&self) -> Vec<(u32, u32)> {
        self.vmem_read_blocks().iter().map(Block::span).collect()
    }

    /// VMEM word ranges the operation writes.
    pub fn vmem_writes(&self) -> Vec<(u32, u32)> {
        self.vmem_write_blocks().iter().map(Block::span).collect()
    }
}

/// How HBM holds an array's elements. Every 32-bit type (f32, int32, bool, uint32) is a word
/// each; bf16 is packed as the hardware packs it, two to a word (element `2k` in word `k`'s low
/// half, `2k+1` in its high half), so moving a bf16 array moves half the bytes. HBM addresses
/// and strides of bf16 data count bf16 elements: element `h` is half `h % 2` of word `h / 2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElemType {
    F32,
    Bf16,
}

impl ElemType {
    pub fn bytes(self) -> u64 {
        match self {
            ElemType::F32 => 4,
            ElemType::Bf16 => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ElemType::F32 => "f32",
            ElemType::Bf16 => "bf16",
        }
    }

    /// Elements of this type a word holds.
    pub fn per_word(self) -> u64 {
        match self {
            ElemType::F32 => 1,
            ElemType::Bf16 => 2,
        }
    }

    /// What its HBM addresses count: `words` or `bf16 elements`.
    pub fn unit(self) -> &'static str {
        match self {
            ElemType::F32 => "words",
            ElemType::Bf16 => "bf16 elements",
        }
    }

    /// The word of HBM holding the element at address `a` (in this type's elements).
    pub fn word_of(self, a: u64) -> u64 {
        a / self.per_word()
    }

    /// The words `n` elements take in HBM.
    pub fn words(self, n: u64) -> u64 {
        n.div_ceil(self.per_word())
    }

    /// The address, in this type's elements, of HBM word `w`'s first element (saturated past
    /// the 32-bit range, which validation then reports).
    pub fn at_word(self, w: u32) -> u32 {
        w.saturating_mul(self.per_word() as u32)
    }
}

/// The HBM word element `h` of a bf16 array leaves after `word` (the element's own half of
/// it): what a packed store writes.
pub fn store_bf16(word: u32, h: u64, value: u32) -> u32 {
    let shift = 16 * (h % 2) as u32;
    (word & !(0xFFFF << shift)) | ((value >> 16) << shift)
}

/// Element `h` of a bf16 array, as the f32 word of the same value, from its HBM `word`.
pub fn load_bf16(word: u32, h: u64) -> u32 {
    ((word >> (16 * (h % 2) as u32)) & 0xFFFF) << 16
}

/// An array a program reads from or writes to HBM. `addr` counts elements of `elem` (a bf16
/// buffer starts at an even element, a word's low half).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub addr: u32,
    pub shape: Vec<usize>,
    pub elem: ElemType,
}

impl Buffer {
    pub fn elements(&self) -> u32 {
        self.shape.iter().product::<usize>() as u32
    }

    /// The HBM words the buffer spans: its first and how many.
    pub fn hbm_words(&self) -> (u64, u64) {
        let (a, n) = (self.addr as u64, self.elements() as u64);
        let first = self.elem.word_of(a);
        (first, if n == 0 { 0 } else { self.elem.word_of(a + n - 1) + 1 - first })
    }

    /// The buffer's words in HBM, from its elements one word each (as the host holds them).
    pub fn pack(&self, elements: &[u32]) -> Vec<u32> {
        match self.elem {
            ElemType::F32 => elements.to_vec(),
            ElemType::Bf16 => {
                elements.chunks(2).map(|p| (p[0] >> 16) | (p.get(1).map_or(0, |&b| b >> 16) << 16)).collect()
            }
        }
    }

    /// The buffer's elements, one word each, from its words in HBM.
    pub fn unpack(&self, words: &[u32]) -> Vec<u32> {
        match self.elem {
            ElemType::F32 => words.to_vec(),
            ElemType::Bf16 => (0..self.elements() as u64).map(|h| load_bf16(words[(h / 2) as usize], h)).collect(),
        }
    }
}

/// A compiled program: its instructions, memory footprint, and where inputs and outputs live.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Program {
    pub name: String,
    pub instrs: Vec<Instr>,
    /// Words of HBM and VMEM the program uses (addresses are below these).
    pub hbm_words: u32,
    pub vmem_words: u32,
    /// Where the runtime writes each argument before the run, in argument order.
    pub inputs: Vec<Buffer>,
    /// Where the results are after the run, in result order.
    pub outputs: Vec<Buffer>,
    /// Useful floating-point operations of the source program (2·M·K·N per matmul, one per
    /// element per elementwise op), independent of padding and precision passes: each count
    /// is done whenever control reaches its instruction, so a loop body's counts once per trip
    /// and an untaken branch's not at all ([`Ops::flops`]).
    pub flops: Vec<Flops>,
}

/// Flops a program does each time control reaches instruction `instr`: a compiled piece's, at
/// its first instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flops {
    pub instr: u32,
    pub count: u64,
}

impl Flops {
    /// `count` flops at the first of `instrs` instructions, none where there are no
    /// instructions to do them (or nothing to count).
    pub fn at_start(instrs: usize, count: u64) -> Vec<Flops> {
        if instrs == 0 || count == 0 {
            return vec![];
        }
        vec![Flops { instr: 0, count }]
    }
}

impl Program {
    /// The operations the program performs, in order, loops unrolled, branches taken and
    /// addresses resolved, each with the index of the instruction it came from: the scalar
    /// unit's own operations (`s.load`, `s.add`, `while`, `if`) too, which backends skip but
    /// the timing model charges. After it yields a `s.load`, the caller hands over the word
    /// with [`Ops::load`]. The program must be valid; what only a run can check (an address
    /// computed from a register, a `while` that does not end) comes as an error.
    pub fn ops(&self) -> Ops<'_> {
        Ops::new(self)
    }

    /// The operations of a run whose `s.load`s read `loads`, in order (see [`Program::ops`]):
    /// the run again, without its values. A program without `s.load` takes no words.
    pub fn replay<'a>(&'a self, loads: &'a [u32]) -> Replay<'a> {
        Replay { ops: Ops::new(self), loads: Some(loads.iter()) }
    }

    /// The operations of a run that computes no values (see [`Ops::load_unknown`]): the same
    /// as any run's when no branch and no VMEM address depends on a word the program loaded;
    /// otherwise an error at the first instruction that does.
    pub fn replay_without_values(&self) -> Replay<'_> {
        Replay { ops: Ops::new(self), loads: None }
    }

    /// Whether the program's operations depend on values it reads (it has a `s.load`).
    pub fn reads_scalars(&self) -> bool {
        self.instrs.iter().any(|i| matches!(i, Instr::ScalarLoad { .. }))
    }

    /// How many MXUs the program drives: one more than the highest MXU it names (0 for none).
    pub fn mxus_used(&self) -> u8 {
        self.instrs
            .iter()
            .filter_map(|i| match i {
                Instr::MxuWeights { mxu, .. } | Instr::MxuMatmul { mxu, .. } => Some(mxu + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Instructions with fixed addresses (no loop strides) lift into program instructions, which
/// is how tests and hand-written programs build them.
impl From<Block<u32>> for Block {
    fn from(b: Block<u32>) -> Block {
        Block { addr: b.addr.into(), rows: b.rows, cols: b.cols, stride: b.stride }
    }
}

impl From<Operand<u32>> for Operand {
    fn from(o: Operand<u32>) -> Operand {
        match o {
            Operand::Vmem(a) => Operand::Vmem(a.into()),
            Operand::Row(a) => Operand::Row(a.into()),
            Operand::Col(a) => Operand::Col(a.into()),
            Operand::Splat(a) => Operand::Splat(a.into()),
            Operand::Imm(x) => Operand::Imm(x),
        }
    }
}

impl From<Instr<u32>> for Instr {
    fn from(i: Instr<u32>) -> Instr {
        match i {
            Instr::DmaLoad { src, dst, sem, elem } => Instr::DmaLoad { src: src.into(), dst: dst.into(), sem, elem },
            Instr::DmaStore { src, dst, sem, elem } => Instr::DmaStore { src: src.into(), dst: dst.into(), sem, elem },
            Instr::Wait { sem, count } => Instr::Wait { sem, count },
            Instr::MxuWeights { src, part, mxu } => Instr::MxuWeights { src: src.into(), part, mxu },
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => {
                Instr::MxuMatmul { src: src.into(), dst: dst.into(), part, accumulate, mxu }
            }
            Instr::Vector { op, dst, a, b } => Instr::Vector { op, dst: dst.into(), a: a.into(), b: b.into() },
            Instr::Reduce { op, src, dst } => Instr::Reduce { op, src: src.into(), dst: dst.into() },
            Instr::Transpose { src, dst } => Instr::Transpose { src: src.into(), dst: dst.into() },
            Instr::Loop { count } => Instr::Loop { count },
            Instr::End => Instr::End,
            Instr::ScalarLoad { src, dst } => Instr::ScalarLoad { src: src.into(), dst },
            Instr::Scalar { op, a, b, dst } => Instr::Scalar { op, a, b, dst },
            Instr::While { cond } => Instr::While { cond },
            Instr::If { cond } => Instr::If { cond },
            Instr::Else => Instr::Else,
        }
    }
}
