//! The emulated TPU's instruction set.
//!
//! A [`Program`] is a list of [`Instr`]s over three memories: HBM (off-chip, where a program's
//! inputs and outputs live), VMEM (the on-chip scratchpad every unit computes from) and the MXU's
//! weight registers. Addresses count 32-bit words. Instructions go to one of four units (DMA,
//! MXU, vector, scalar) which run concurrently; the timing model in `emu` says when.
//!
//! Every instruction prints as one line of assembly (`Display`); that text is what the
//! playground shows and what golden tests compare.

use serde::{Deserialize, Serialize};
use std::fmt;

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
        match self {
            Part::Hi => "hi",
            Part::Mid => "mid",
            Part::Lo => "lo",
        }
    }
}

/// Elementwise operations of the vector unit. Transcendental ones use the unit's
/// transcendental path and cost more cycles.
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
}

impl VectorOp {
    pub const ALL: [VectorOp; 11] = [
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
    ];

    pub fn name(self) -> &'static str {
        match self {
            VectorOp::Add => "add",
            VectorOp::Sub => "sub",
            VectorOp::Mul => "mul",
            VectorOp::Div => "div",
            VectorOp::Max => "max",
            VectorOp::Min => "min",
            VectorOp::Neg => "neg",
            VectorOp::Abs => "abs",
            VectorOp::Exp => "exp",
            VectorOp::Log => "log",
            VectorOp::Tanh => "tanh",
        }
    }

    /// Number of operands (1 or 2).
    pub fn arity(self) -> usize {
        match self {
            VectorOp::Neg | VectorOp::Abs | VectorOp::Exp | VectorOp::Log | VectorOp::Tanh => 1,
            _ => 2,
        }
    }

    /// Whether the op runs on the transcendental path (and division, which uses its
    /// reciprocal).
    pub fn is_transcendental(self) -> bool {
        matches!(
            self,
            VectorOp::Div | VectorOp::Exp | VectorOp::Log | VectorOp::Tanh
        )
    }

    /// The opcode shared by the CPU and GPU backends (`shaders/vector.wgsl` switches on it).
    pub fn code(self) -> u32 {
        VectorOp::ALL
            .iter()
            .position(|&o| o == self)
            .expect("listed in ALL") as u32
    }
}

/// A vector operand: a VMEM vector, one VMEM word broadcast to every lane, or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operand {
    Vmem(u32),
    Splat(u32),
    Imm(f32),
}

/// The unit an instruction occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Unit {
    Scalar,
    Dma,
    Mxu,
    Vector,
}

impl Unit {
    pub const ALL: [Unit; 4] = [Unit::Scalar, Unit::Dma, Unit::Mxu, Unit::Vector];

    pub fn name(self) -> &'static str {
        match self {
            Unit::Scalar => "scalar",
            Unit::Dma => "dma",
            Unit::Mxu => "mxu",
            Unit::Vector => "vector",
        }
    }
}

/// A rectangle of words: `rows` rows of `cols` words, rows `stride` words apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub addr: u32,
    pub rows: u32,
    pub cols: u32,
    pub stride: u32,
}

impl Block {
    /// A contiguous run of `len` words.
    pub fn flat(addr: u32, len: u32) -> Block {
        Block {
            addr,
            rows: 1,
            cols: len,
            stride: len,
        }
    }

    pub fn words(&self) -> u64 {
        self.rows as u64 * self.cols as u64
    }

    /// The half-open word range the block lies within.
    pub fn span(&self) -> (u32, u32) {
        if self.rows == 0 || self.cols == 0 {
            return (self.addr, self.addr);
        }
        (
            self.addr,
            self.addr + (self.rows - 1) * self.stride + self.cols,
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Instr {
    /// Copy a block from HBM to VMEM (same rows and cols); on completion, signal `sem`.
    DmaLoad { src: Block, dst: Block, sem: u8 },
    /// Copy a block from VMEM to HBM; on completion, signal `sem`.
    DmaStore { src: Block, dst: Block, sem: u8 },
    /// Stall issue until semaphore `sem` has been signalled `count` times in total.
    Wait { sem: u8, count: u32 },
    /// Shift a K×N block of weights (`src.rows` × `src.cols`, at most the array's size) into
    /// the MXU, each word rounded to the bf16 `part` of its f32 value.
    MxuWeights { src: Block, part: Part },
    /// Stream `src.rows` rows of K activations (K = the loaded weights' rows, `src.cols` = K)
    /// through the array, each rounded to its bf16 `part`. Row m of the result is
    /// `sum_k act[m][k] * w[k][n]`, summed in f32 in order of k starting from +0.0 (products
    /// of two bf16 values are exact in f32). The M×N result overwrites `dst`, or is added to
    /// it when `accumulate` is set.
    MxuMatmul {
        src: Block,
        dst: Block,
        part: Part,
        accumulate: bool,
    },
    /// `dst[i] = op(a[i], b[i])` for `len` words (b unused by unary ops).
    Vector {
        op: VectorOp,
        dst: u32,
        a: Operand,
        b: Operand,
        len: u32,
    },
}

impl Instr {
    pub fn unit(&self) -> Unit {
        match self {
            Instr::DmaLoad { .. } | Instr::DmaStore { .. } => Unit::Dma,
            Instr::Wait { .. } => Unit::Scalar,
            Instr::MxuWeights { .. } | Instr::MxuMatmul { .. } => Unit::Mxu,
            Instr::Vector { .. } => Unit::Vector,
        }
    }

    /// VMEM word ranges the instruction reads.
    pub fn vmem_reads(&self) -> Vec<(u32, u32)> {
        match self {
            Instr::DmaStore { src, .. } | Instr::MxuWeights { src, .. } => vec![src.span()],
            Instr::MxuMatmul {
                src,
                dst,
                accumulate,
                ..
            } => {
                let mut r = vec![src.span()];
                if *accumulate {
                    r.push(dst.span());
                }
                r
            }
            Instr::Vector { op, a, b, len, .. } => {
                let operands = if op.arity() == 2 { vec![a, b] } else { vec![a] };
                operands
                    .into_iter()
                    .filter_map(|o| match *o {
                        Operand::Vmem(x) => Some((x, x + len)),
                        Operand::Splat(x) => Some((x, x + 1)),
                        Operand::Imm(_) => None,
                    })
                    .collect()
            }
            Instr::DmaLoad { .. } | Instr::Wait { .. } => vec![],
        }
    }

    /// VMEM word ranges the instruction writes.
    pub fn vmem_writes(&self) -> Vec<(u32, u32)> {
        match self {
            Instr::DmaLoad { dst, .. } | Instr::MxuMatmul { dst, .. } => vec![dst.span()],
            Instr::Vector { dst, len, .. } => vec![(*dst, dst + len)],
            _ => vec![],
        }
    }
}

/// Element type of a buffer in HBM (every element is one 32-bit word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElemType {
    F32,
}

/// An array a program reads from or writes to HBM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub addr: u32,
    pub shape: Vec<usize>,
    pub elem: ElemType,
}

impl Buffer {
    pub fn words(&self) -> u32 {
        self.shape.iter().product::<usize>() as u32
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
    /// element per elementwise op), independent of padding and precision passes.
    pub flops: u64,
}

fn block(space: &str, b: &Block) -> String {
    format!("{space}[{}] {}x{}/{}", b.addr, b.rows, b.cols, b.stride)
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Vmem(a) => write!(f, "vmem[{a}]"),
            Operand::Splat(a) => write!(f, "splat vmem[{a}]"),
            Operand::Imm(x) => write!(f, "{x:?}"),
        }
    }
}

impl fmt::Display for Instr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Instr::DmaLoad { src, dst, sem } => {
                write!(
                    f,
                    "dma.load    {} -> {} sem={sem}",
                    block("hbm", src),
                    block("vmem", dst)
                )
            }
            Instr::DmaStore { src, dst, sem } => {
                write!(
                    f,
                    "dma.store   {} -> {} sem={sem}",
                    block("vmem", src),
                    block("hbm", dst)
                )
            }
            Instr::Wait { sem, count } => write!(f, "wait        sem={sem} count={count}"),
            Instr::MxuWeights { src, part } => {
                write!(f, "mxu.weights {} part={}", block("vmem", src), part.name())
            }
            Instr::MxuMatmul {
                src,
                dst,
                part,
                accumulate,
            } => write!(
                f,
                "mxu.matmul  {} -> {} part={} {}",
                block("vmem", src),
                block("vmem", dst),
                part.name(),
                if *accumulate { "acc" } else { "set" }
            ),
            Instr::Vector { op, dst, a, b, len } => {
                let mnemonic = format!("v.{}", op.name());
                if op.arity() == 2 {
                    write!(f, "{mnemonic:<11} {a}, {b} -> vmem[{dst}] len={len}")
                } else {
                    write!(f, "{mnemonic:<11} {a} -> vmem[{dst}] len={len}")
                }
            }
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "program {}  ; hbm {} words, vmem {} words, {} flops",
            self.name, self.hbm_words, self.vmem_words, self.flops
        )?;
        for b in &self.inputs {
            writeln!(f, "  input  {} f32{:?} @ hbm[{}]", b.name, b.shape, b.addr)?;
        }
        for b in &self.outputs {
            writeln!(f, "  output {} f32{:?} @ hbm[{}]", b.name, b.shape, b.addr)?;
        }
        for (i, instr) in self.instrs.iter().enumerate() {
            writeln!(f, "  {i:4}: {instr}")?;
        }
        Ok(())
    }
}
