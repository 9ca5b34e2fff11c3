//! The binary encoding of a program (`.tbin`), little-endian throughout:
//!
//! ```text
//! magic "TPUP", version u8 = 4
//! name: str; hbm_words u32; vmem_words u32; flops: u32 count × (instr u32, count u64)
//! inputs: u32 count × buffer; outputs: u32 count × buffer
//!   buffer = name: str, addr u32, rank u8, dims u64 × rank, elem u8 (0 = f32)
//! instructions: u32 count × (opcode u8, fields)
//!   1 dma.load    block block sem:u8        5 mxu.matmul  block block part:u8 acc:u8 mxu:u8
//!   2 dma.store   block block sem:u8        6 v.OP        op:u8 addr operand operand len:u32
//!   3 wait        sem:u8 count:u32          7 loop        count:u32
//!   4 mxu.weights block part:u8 mxu:u8      8 end
//!   9 xlu.OP      op:u8 block addr       10 xlu.transpose block block
//!  11 s.load      addr dst:u8            12 s.OP        op:u8 scalar scalar dst:u8
//!  13 while       cond:u8                14 if          cond:u8           15 else
//!   block   = addr rows:u32 cols:u32 stride:u32
//!   addr    = base:u32 terms:u8 × (index:u8 stride:i32), index = loop depth D, or 16 + R for sR
//!   scalar  = 0 register:u8 | 1 immediate:i32
//!   operand = 0 addr (vmem) | 1 addr (splat) | 2 bits:u32 (immediate) | 3 addr (row) | 4 addr (col)
//!   str     = len:u32 UTF-8 bytes
//! ```
//!
//! Decoding never panics and never allocates more than the input could describe. An error's byte
//! offset is where the offending field starts.

use crate::{
    Addr, Block, Buffer, ElemType, Flops, Instr, Operand, Part, Program, ReduceOp, ScalarOp, ScalarOperand, VectorOp,
    MAX_MXUS, SCALAR_REGS,
};
use std::fmt;

const MAGIC: &[u8; 4] = b"TPUP";
const VERSION: u8 = 4;
/// An address term's index byte: a loop depth below this, a scalar register from it on.
const REGISTER_TERM: u8 = 16;

/// Why bytes are not a program: where, and what.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeError {
    pub offset: usize,
    /// The instruction being decoded, if the error is inside one.
    pub instr: Option<usize>,
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.instr {
            Some(i) => write!(f, "byte {}: instruction {i}: {}", self.offset, self.message),
            None => write!(f, "byte {}: {}", self.offset, self.message),
        }
    }
}

impl std::error::Error for DecodeError {}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, x: u8) {
        self.0.push(x);
    }
    fn u32(&mut self, x: u32) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn addr(&mut self, a: &Addr) {
        self.u32(a.base);
        self.u8((a.strides.len() + a.scalars.len()) as u8);
        for &(depth, stride) in &a.strides {
            self.u8(depth);
            self.u32(stride as u32);
        }
        for &(reg, scale) in &a.scalars {
            self.u8(REGISTER_TERM + reg);
            self.u32(scale as u32);
        }
    }
    fn scalar(&mut self, o: &ScalarOperand) {
        match o {
            ScalarOperand::Reg(r) => {
                self.u8(0);
                self.u8(*r);
            }
            ScalarOperand::Imm(x) => {
                self.u8(1);
                self.u32(*x as u32);
            }
        }
    }
    fn block(&mut self, b: &Block) {
        self.addr(&b.addr);
        self.u32(b.rows);
        self.u32(b.cols);
        self.u32(b.stride);
    }
    fn operand(&mut self, o: &Operand) {
        match o {
            Operand::Vmem(a) => {
                self.u8(0);
                self.addr(a);
            }
            Operand::Splat(a) => {
                self.u8(1);
                self.addr(a);
            }
            Operand::Imm(x) => {
                self.u8(2);
                self.u32(x.to_bits());
            }
            Operand::Row(a) => {
                self.u8(3);
                self.addr(a);
            }
            Operand::Col(a) => {
                self.u8(4);
                self.addr(a);
            }
        }
    }
    fn buffer(&mut self, b: &Buffer) {
        self.str(&b.name);
        self.u32(b.addr);
        self.u8(b.shape.len() as u8);
        for &d in &b.shape {
            self.u64(d as u64);
        }
        self.u8(match b.elem {
            ElemType::F32 => 0,
            ElemType::Bf16 => 1,
        });
    }
}

/// Encodes a program.
pub fn encode(p: &Program) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(MAGIC);
    w.u8(VERSION);
    w.str(&p.name);
    w.u32(p.hbm_words);
    w.u32(p.vmem_words);
    w.u32(p.flops.len() as u32);
    for f in &p.flops {
        w.u32(f.instr);
        w.u64(f.count);
    }
    for list in [&p.inputs, &p.outputs] {
        w.u32(list.len() as u32);
        list.iter().for_each(|b| w.buffer(b));
    }
    w.u32(p.instrs.len() as u32);
    for instr in &p.instrs {
        match instr {
            Instr::DmaLoad { src, dst, sem, elem } | Instr::DmaStore { src, dst, sem, elem } => {
                // bf16 moves have opcodes of their own, so f32 programs encode as before.
                let load = matches!(instr, Instr::DmaLoad { .. });
                w.u8(match (load, elem) {
                    (true, ElemType::F32) => 1,
                    (false, ElemType::F32) => 2,
                    (true, ElemType::Bf16) => 16,
                    (false, ElemType::Bf16) => 17,
                });
                w.block(src);
                w.block(dst);
                w.u8(*sem);
            }
            Instr::Wait { sem, count } => {
                w.u8(3);
                w.u8(*sem);
                w.u32(*count);
            }
            Instr::MxuWeights { src, part, mxu } => {
                w.u8(4);
                w.block(src);
                w.u8(part.index() as u8);
                w.u8(*mxu);
            }
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => {
                w.u8(5);
                w.block(src);
                w.block(dst);
                w.u8(part.index() as u8);
                w.u8(*accumulate as u8);
                w.u8(*mxu);
            }
            Instr::Vector { op, dst, a, b } => {
                w.u8(6);
                w.u8(op.code() as u8);
                w.block(dst);
                w.operand(a);
                w.operand(b);
            }
            Instr::Loop { count } => {
                w.u8(7);
                w.u32(*count);
            }
            Instr::End => w.u8(8),
            Instr::Transpose { src, dst } => {
                w.u8(10);
                w.block(src);
                w.block(dst);
            }
            Instr::Reduce { op, src, dst } => {
                w.u8(9);
                w.u8(*op as u8);
                w.block(src);
                w.addr(dst);
            }
            Instr::ScalarLoad { src, dst } => {
                w.u8(11);
                w.addr(src);
                w.u8(*dst);
            }
            Instr::Scalar { op, a, b, dst } => {
                w.u8(12);
                w.u8(*op as u8);
                w.scalar(a);
                w.scalar(b);
                w.u8(*dst);
            }
            Instr::While { cond } => {
                w.u8(13);
                w.u8(*cond);
            }
            Instr::If { cond } => {
                w.u8(14);
                w.u8(*cond);
            }
            Instr::Else => w.u8(15),
        }
    }
    w.0
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// Where the field read last starts: what an error about its value points at.
    field: usize,
    instr: Option<usize>,
}

type R<T> = Result<T, DecodeError>;

impl Reader<'_> {
    fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(DecodeError { offset: self.field, instr: self.instr, message: message.into() })
    }
    fn take(&mut self, n: usize) -> R<&[u8]> {
        self.field = self.pos;
        if self.bytes.len() - self.pos < n {
            return self.err(format!("unexpected end of input (needed {n} more bytes)"));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> R<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> R<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    /// A count of items each at least `min_bytes` long, checked against what is left.
    fn count(&mut self, min_bytes: usize) -> R<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_bytes) > self.bytes.len() - self.pos {
            return self.err(format!("count {n} is larger than the rest of the input allows"));
        }
        Ok(n)
    }
    /// A program's or buffer's name: non-empty, of the characters the text form's names have
    /// (the binary fuzzer found a name with a control character, which printed as text that
    /// does not assemble).
    fn str(&mut self) -> R<String> {
        let n = self.count(1)?;
        let name = String::from_utf8(self.take(n)?.to_vec()).or_else(|_| self.err("a name is not valid UTF-8"))?;
        if name.is_empty() || !name.chars().all(crate::text::is_name_char) {
            return self.err(format!("the name {name:?} is not letters, digits and ._-+:<>"));
        }
        Ok(name)
    }
    fn addr(&mut self) -> R<Addr> {
        let base = self.u32()?;
        let n = self.u8()?;
        let (mut strides, mut scalars) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let index = self.u8()?;
            let (terms, n, name) = if index < REGISTER_TERM {
                (&mut strides, index, "loop index i")
            } else {
                (&mut scalars, self.register_at(index - REGISTER_TERM)?, "register s")
            };
            // As the text form: one term per loop or register (the binary fuzzer found a
            // repeated one).
            if terms.iter().any(|&(d, _): &(u8, i32)| d == n) {
                return self.err(format!("{name}{n} appears twice in one address"));
            }
            terms.push((n, self.u32()? as i32));
        }
        Ok(Addr { base, strides, scalars })
    }
    fn register_at(&self, r: u8) -> R<u8> {
        if r < SCALAR_REGS {
            Ok(r)
        } else {
            self.err(format!("s{r} is not a register (s0 to s{})", SCALAR_REGS - 1))
        }
    }
    fn register(&mut self) -> R<u8> {
        let r = self.u8()?;
        self.register_at(r)
    }
    fn scalar(&mut self) -> R<ScalarOperand> {
        match self.u8()? {
            0 => Ok(ScalarOperand::Reg(self.register()?)),
            1 => Ok(ScalarOperand::Imm(self.u32()? as i32)),
            t => self.err(format!("scalar operand kind {t} is not 0 or 1")),
        }
    }
    fn block(&mut self) -> R<Block> {
        Ok(Block { addr: self.addr()?, rows: self.u32()?, cols: self.u32()?, stride: self.u32()? })
    }
    fn mxu(&mut self) -> R<u8> {
        match self.u8()? {
            n if n < MAX_MXUS => Ok(n),
            n => self.err(format!("MXU {n} is not below {MAX_MXUS}")),
        }
    }
    fn part(&mut self) -> R<Part> {
        let p = self.u8()?;
        match Part::ALL.get(p as usize) {
            Some(&part) => Ok(part),
            None => self.err(format!("bf16 part {p} is not 0, 1 or 2")),
        }
    }
    fn operand(&mut self) -> R<Operand> {
        match self.u8()? {
            0 => Ok(Operand::Vmem(self.addr()?)),
            1 => Ok(Operand::Splat(self.addr()?)),
            2 => Ok(Operand::Imm(f32::from_bits(self.u32()?))),
            3 => Ok(Operand::Row(self.addr()?)),
            4 => Ok(Operand::Col(self.addr()?)),
            t => self.err(format!("operand kind {t} is not one of 0 to 4")),
        }
    }
    fn buffer(&mut self) -> R<Buffer> {
        let name = self.str()?;
        let addr = self.u32()?;
        let rank = self.u8()?;
        let mut shape = Vec::with_capacity(rank as usize);
        for _ in 0..rank {
            let d = self.u64()?;
            shape.push(usize::try_from(d).or_else(|_| self.err(format!("dimension {d} is too large")))?);
        }
        match self.u8()? {
            0 => Ok(Buffer { name, addr, shape, elem: ElemType::F32 }),
            1 => Ok(Buffer { name, addr, shape, elem: ElemType::Bf16 }),
            e => self.err(format!("element type {e} is unknown")),
        }
    }
    fn instr(&mut self) -> R<Instr> {
        let opcode = self.u8()?;
        Ok(match opcode {
            1 | 2 | 16 | 17 => {
                let (src, dst, sem) = (self.block()?, self.block()?, self.u8()?);
                let elem = if opcode < 16 { ElemType::F32 } else { ElemType::Bf16 };
                if matches!(opcode, 1 | 16) {
                    Instr::DmaLoad { src, dst, sem, elem }
                } else {
                    Instr::DmaStore { src, dst, sem, elem }
                }
            }
            3 => Instr::Wait { sem: self.u8()?, count: self.u32()? },
            4 => Instr::MxuWeights { src: self.block()?, part: self.part()?, mxu: self.mxu()? },
            5 => {
                let (src, dst, part) = (self.block()?, self.block()?, self.part()?);
                let accumulate = match self.u8()? {
                    0 => false,
                    1 => true,
                    a => return self.err(format!("accumulate flag {a} is not 0 or 1")),
                };
                Instr::MxuMatmul { src, dst, part, accumulate, mxu: self.mxu()? }
            }
            6 => {
                let code = self.u8()?;
                let Some(op) = VectorOp::from_code(code as u32) else {
                    return self.err(format!("vector opcode {code} is unknown"));
                };
                let (dst, a, b) = (self.block()?, self.operand()?, self.operand()?);
                // A unary op's second operand is unused and always encoded as the immediate +0,
                // which the text form leaves out: anything else would not survive the trip
                // through the disassembler (the binary fuzzer found such a program).
                if op.arity() == 1 && !matches!(b, Operand::Imm(x) if x.to_bits() == 0) {
                    return self.err(format!(
                        "v.{} takes one operand; its unused second must be the immediate 0.0",
                        op.name()
                    ));
                }
                Instr::Vector { op, dst, a, b }
            }
            7 => Instr::Loop { count: self.u32()? },
            8 => Instr::End,
            9 => {
                let code = self.u8()?;
                let Some(&op) = ReduceOp::ALL.get(code as usize) else {
                    return self.err(format!("reduce opcode {code} is unknown"));
                };
                Instr::Reduce { op, src: self.block()?, dst: self.addr()? }
            }
            10 => Instr::Transpose { src: self.block()?, dst: self.block()? },
            11 => Instr::ScalarLoad { src: self.addr()?, dst: self.register()? },
            12 => {
                let code = self.u8()?;
                let Some(&op) = ScalarOp::ALL.get(code as usize) else {
                    return self.err(format!("scalar opcode {code} is unknown"));
                };
                Instr::Scalar { op, a: self.scalar()?, b: self.scalar()?, dst: self.register()? }
            }
            13 => Instr::While { cond: self.register()? },
            14 => Instr::If { cond: self.register()? },
            15 => Instr::Else,
            _ => return self.err(format!("opcode {opcode} is unknown")),
        })
    }
}

/// Decodes a program encoded by [`encode`].
pub fn decode(bytes: &[u8]) -> Result<Program, DecodeError> {
    let mut r = Reader { bytes, pos: 0, field: 0, instr: None };
    if r.take(4)? != MAGIC {
        return Err(DecodeError {
            offset: 0,
            instr: None,
            message: "not a TPU program (the magic bytes are not \"TPUP\")".into(),
        });
    }
    let version = r.u8()?;
    if version != VERSION {
        return r.err(format!("version {version} is not supported (this build reads version {VERSION})"));
    }
    let name = r.str()?;
    let (hbm_words, vmem_words) = (r.u32()?, r.u32()?);
    let n = r.count(12)?;
    let mut flops = Vec::with_capacity(n);
    for _ in 0..n {
        flops.push(Flops { instr: r.u32()?, count: r.u64()? });
    }
    let mut lists = [Vec::new(), Vec::new()];
    for list in &mut lists {
        // The smallest buffer: a 1-byte name (4 + 1), its address (4), rank 0 (1), its element
        // type (1). (15 refused valid scalar buffers: the assembler fuzzer's find.)
        let n = r.count(11)?;
        for _ in 0..n {
            list.push(r.buffer()?);
        }
    }
    let [inputs, outputs] = lists;
    let n = r.count(1)?;
    let mut instrs = Vec::with_capacity(n);
    for i in 0..n {
        r.instr = Some(i);
        instrs.push(r.instr()?);
    }
    r.instr = None;
    if r.pos != bytes.len() {
        // Points at the first extra byte.
        r.field = r.pos;
        return r.err(format!("{} bytes after the last instruction", bytes.len() - r.pos));
    }
    Ok(Program { name, instrs, hbm_words, vmem_words, inputs, outputs, flops })
}
