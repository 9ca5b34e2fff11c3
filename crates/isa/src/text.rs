//! The assembly text of a program: what the playground shows, what golden tests compare, and
//! what `tpu asm` reads back. `parse(&program.to_string()) == program` for every program.
//!
//! ```text
//! program f hbm=47 vmem=92 flops=165
//! input in0 f32[3,4] hbm[0]
//! output out0 f32[3,5] hbm[32]
//!    0: dma.load    hbm[0] 3x4/4 -> vmem[0] 3x4/4 sem=0
//!    1: loop        i0 4
//!    2:   mxu.weights vmem[12+20*i0] 4x5/5 part=hi
//!    3: end
//! ```
//!
//! Addresses are `BASE`, `BASE+STRIDE*iD`, `BASE+SCALE*sR`, ... ; blocks are `ROWSxCOLS/STRIDE`; immediates
//! print with Rust's round-tripping float syntax (NaN as `nan:0xBITS` to keep its payload).
//! A leading `N:` and anything after `;` are ignored.

use crate::{
    Addr, Block, Buffer, ElemType, Flops, Instr, Operand, Part, Program, ReduceOp, ScalarOp, ScalarOperand, VectorOp,
    MAX_MXUS, SCALAR_REGS,
};
use std::fmt::{self, Write};

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.base)?;
        let terms =
            self.strides.iter().map(|&(d, k)| ('i', d, k)).chain(self.scalars.iter().map(|&(r, k)| ('s', r, k)));
        for (name, n, k) in terms {
            if k < 0 {
                write!(f, "-{}*{name}{n}", k.unsigned_abs())?;
            } else {
                write!(f, "+{k}*{name}{n}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ScalarOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarOperand::Reg(r) => write!(f, "s{r}"),
            ScalarOperand::Imm(x) => write!(f, "{x}"),
        }
    }
}

fn imm(x: f32) -> String {
    if x.is_nan() {
        format!("nan:{:#010x}", x.to_bits())
    } else {
        format!("{x:?}")
    }
}

fn operand<A: fmt::Display>(op: VectorOp, o: &Operand<A>) -> String {
    match o {
        Operand::Imm(x) if op.is_u32() && op != VectorOp::IntToU32 => format!("{:#010x}", x.to_bits()),
        _ => o.to_string(),
    }
}

fn block<A: fmt::Display>(space: &str, b: &Block<A>) -> String {
    format!("{space}[{}] {}x{}/{}", b.addr, b.rows, b.cols, b.stride)
}

impl<A: fmt::Display> fmt::Display for Operand<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Vmem(a) => write!(f, "vmem[{a}]"),
            Operand::Row(a) => write!(f, "row vmem[{a}]"),
            Operand::Col(a) => write!(f, "col vmem[{a}]"),
            Operand::Splat(a) => write!(f, "splat vmem[{a}]"),
            Operand::Imm(x) => f.write_str(&imm(*x)),
        }
    }
}

impl<A: fmt::Display> fmt::Display for Instr<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.mnemonic();
        match self {
            Instr::DmaLoad { src, dst, sem, .. } => {
                write!(f, "{m:<11} {} -> {} sem={sem}", block("hbm", src), block("vmem", dst))
            }
            Instr::DmaStore { src, dst, sem, .. } => {
                write!(f, "{m:<11} {} -> {} sem={sem}", block("vmem", src), block("hbm", dst))
            }
            Instr::Wait { sem, count } => write!(f, "{m:<11} sem={sem} count={count}"),
            Instr::MxuWeights { src, part, mxu } => {
                write!(f, "{m:<11} {} part={} mxu={mxu}", block("vmem", src), part.name())
            }
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => write!(
                f,
                "{m:<11} {} -> {} part={} {} mxu={mxu}",
                block("vmem", src),
                block("vmem", dst),
                part.name(),
                if *accumulate { "acc" } else { "set" }
            ),
            Instr::Vector { op, dst, a, b } => {
                // A uint32 operation's immediates are bits: printed in hex, as they are read.
                let (a, b) = (operand(*op, a), operand(*op, b));
                if op.arity() == 2 {
                    write!(f, "{m:<11} {a}, {b} -> {}", block("vmem", dst))
                } else {
                    write!(f, "{m:<11} {a} -> {}", block("vmem", dst))
                }
            }
            Instr::Reduce { src, dst, .. } => {
                write!(f, "{m:<11} {} -> vmem[{dst}]", block("vmem", src))
            }
            Instr::Transpose { src, dst } => write!(f, "{m:<11} {} -> {}", block("vmem", src), block("vmem", dst)),
            Instr::Loop { count } => write!(f, "{m:<11} {count}"),
            Instr::End | Instr::Else => f.write_str(&m),
            Instr::ScalarLoad { src, dst } => write!(f, "{m:<11} vmem[{src}] -> s{dst}"),
            Instr::Scalar { a, b, dst, .. } => write!(f, "{m:<11} {a}, {b} -> s{dst}"),
            Instr::While { cond } | Instr::If { cond } => write!(f, "{m:<11} s{cond}"),
        }
    }
}

fn buffer_line(kind: &str, b: &Buffer) -> String {
    let dims: Vec<String> = b.shape.iter().map(|d| d.to_string()).collect();
    format!("{kind} {} {}[{}] hbm[{}]", b.name, b.elem.name(), dims.join(","), b.addr)
}

/// A program's flops: `COUNT@INSTR` for each count, comma-separated, a bare `COUNT` for one at
/// instruction 0 (a program with no loops has one, at its start), `0` for none.
fn flops_text(flops: &[Flops]) -> String {
    if flops.is_empty() {
        return "0".into();
    }
    let terms: Vec<String> = flops
        .iter()
        .map(|f| if f.instr == 0 { f.count.to_string() } else { format!("{}@{}", f.count, f.instr) })
        .collect();
    terms.join(",")
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "program {} hbm={} vmem={} flops={}",
            self.name,
            self.hbm_words,
            self.vmem_words,
            flops_text(&self.flops)
        )?;
        for b in &self.inputs {
            writeln!(f, "{}", buffer_line("input", b))?;
        }
        for b in &self.outputs {
            writeln!(f, "{}", buffer_line("output", b))?;
        }
        // Indentation follows every block; loop indices count counted loops alone.
        let mut blocks: Vec<bool> = Vec::new();
        for (i, instr) in self.instrs.iter().enumerate() {
            if matches!(instr, Instr::End | Instr::Else) {
                blocks.pop();
            }
            let mut line = format!("{i:4}: {}", "  ".repeat(blocks.len()));
            let loops = blocks.iter().filter(|&&is_loop| is_loop).count();
            match instr {
                // The loop's index name makes the body's `*iD` terms readable.
                Instr::Loop { count } => write!(line, "loop i{loops} {count}")?,
                other => write!(line, "{other}")?,
            }
            writeln!(f, "{line}")?;
            if instr.opens_block() || matches!(instr, Instr::Else) {
                blocks.push(matches!(instr, Instr::Loop { .. }));
            }
        }
        Ok(())
    }
}

/// A syntax error in assembly text, with its line (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A cursor over one line's text.
struct Cursor<'a> {
    rest: &'a str,
}

type R<T> = Result<T, String>;

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn expected(&self, what: &str) -> String {
        match self.rest.trim() {
            "" => format!("expected {what} at the end of the line"),
            rest => format!("expected {what} at '{rest}'"),
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if let Some(r) = self.rest.strip_prefix(token) {
            self.rest = r;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> R<()> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.expected(&format!("'{token}'")))
        }
    }

    /// A run of characters that can make up a word or a number.
    fn word(&mut self) -> R<&'a str> {
        self.skip_ws();
        let end = self.rest.find(|c: char| !is_name_char(c)).unwrap_or(self.rest.len());
        if end == 0 {
            return Err(self.expected("a word"));
        }
        let (w, r) = self.rest.split_at(end);
        self.rest = r;
        Ok(w)
    }

    fn digits(&mut self) -> R<&'a str> {
        self.skip_ws();
        let end = self.rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.rest.len());
        if end == 0 {
            return Err(self.expected("a number"));
        }
        let (w, r) = self.rest.split_at(end);
        self.rest = r;
        Ok(w)
    }

    fn u32(&mut self) -> R<u32> {
        let d = self.digits()?;
        d.parse().map_err(|_| format!("{d} does not fit 32 bits"))
    }

    fn u64(&mut self) -> R<u64> {
        let d = self.digits()?;
        d.parse().map_err(|_| format!("{d} does not fit 64 bits"))
    }

    /// What [`flops_text`] writes; counts of 0 are dropped.
    fn flops(&mut self) -> R<Vec<Flops>> {
        let mut flops = Vec::new();
        loop {
            let count = self.u64()?;
            let instr = if self.eat("@") { self.u32()? } else { 0 };
            if count > 0 {
                flops.push(Flops { instr, count });
            }
            if !self.eat(",") {
                return Ok(flops);
            }
        }
    }

    fn key(&mut self, name: &str) -> R<u32> {
        self.expect(name)?;
        self.expect("=")?;
        self.u32()
    }

    fn end(&mut self) -> R<()> {
        self.skip_ws();
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected '{}'", self.rest))
        }
    }

    fn addr(&mut self) -> R<Addr> {
        let base = self.u32()?;
        let (mut strides, mut scalars) = (Vec::<(u8, i32)>::new(), Vec::<(u8, i32)>::new());
        loop {
            let negative = if self.eat("+") {
                false
            } else if self.eat("-") {
                true
            } else {
                break;
            };
            let magnitude = self.digits()?.parse::<i64>().map_err(|_| "stride too large".to_string())?;
            self.expect("*")?;
            let (name, terms) = if self.eat("s") {
                ('s', &mut scalars)
            } else {
                self.expect("i")?;
                ('i', &mut strides)
            };
            let n: u8 = self.digits()?.parse().map_err(|_| format!("bad {name} number"))?;
            // The binary form tells a loop index from a register by its number.
            if n >= SCALAR_REGS {
                return Err(format!("{name}{n} is not a {}", if name == 's' { "register" } else { "loop index" }));
            }
            if terms.iter().any(|&(d, _)| d == n) {
                return Err(format!("{name}{n} appears twice in one address"));
            }
            let stride = if negative { -magnitude } else { magnitude };
            terms.push((n, i32::try_from(stride).map_err(|_| format!("stride {stride} does not fit 32 bits"))?));
        }
        Ok(Addr { base, strides, scalars })
    }

    /// `sN`, a scalar register.
    fn register(&mut self) -> R<u8> {
        self.expect("s")?;
        let d = self.digits()?;
        d.parse::<u8>()
            .ok()
            .filter(|&r| r < SCALAR_REGS)
            .ok_or_else(|| format!("s{d} is not a register (s0 to s{})", SCALAR_REGS - 1))
    }

    /// A register or an integer immediate.
    fn scalar_operand(&mut self) -> R<ScalarOperand> {
        self.skip_ws();
        if self.rest.starts_with('s') {
            return self.register().map(ScalarOperand::Reg);
        }
        let negative = self.eat("-");
        let d = self.digits()?;
        let x: i64 = d.parse().map_err(|_| format!("{d} does not fit 32 bits"))?;
        let x = if negative { -x } else { x };
        i32::try_from(x).map(ScalarOperand::Imm).map_err(|_| format!("{x} does not fit 32 bits"))
    }

    fn space(&mut self, space: &str) -> R<Addr> {
        self.expect(space)?;
        self.expect("[")?;
        let a = self.addr()?;
        self.expect("]")?;
        Ok(a)
    }

    fn block(&mut self, space: &str) -> R<Block> {
        let addr = self.space(space)?;
        let rows = self.u32()?;
        self.expect("x")?;
        let cols = self.u32()?;
        self.expect("/")?;
        let stride = self.u32()?;
        Ok(Block { addr, rows, cols, stride })
    }

    fn part(&mut self) -> R<Part> {
        self.expect("part")?;
        self.expect("=")?;
        let w = self.word()?;
        Part::ALL.into_iter().find(|p| p.name() == w).ok_or_else(|| format!("unknown part '{w}' (hi, mid or lo)"))
    }

    /// `mxu=N`: which of the core's MXUs (0 when left out, as in single-MXU listings).
    fn mxu(&mut self) -> R<u8> {
        self.skip_ws();
        if !self.rest.starts_with("mxu") {
            return Ok(0);
        }
        let n = self.key("mxu")?;
        u8::try_from(n).ok().filter(|&n| n < MAX_MXUS).ok_or_else(|| format!("MXU {n} is not below {MAX_MXUS}"))
    }

    fn operand(&mut self) -> R<Operand> {
        self.skip_ws();
        for (kind, make) in
            [("splat", Operand::Splat as fn(Addr) -> Operand), ("row", Operand::Row), ("col", Operand::Col)]
        {
            if self.rest.starts_with(kind) {
                self.eat(kind);
                return Ok(make(self.space("vmem")?));
            }
        }
        if self.rest.starts_with("vmem") {
            return Ok(Operand::Vmem(self.space("vmem")?));
        }
        let w = self.word()?;
        // `nan:0x…` is a NaN's payload, `0x…` a uint32 operation's bits.
        if let Some(bits) = w.strip_prefix("nan:0x").or_else(|| w.strip_prefix("0x")) {
            let bits = u32::from_str_radix(bits, 16).map_err(|_| format!("bad bits '{w}'"))?;
            return Ok(Operand::Imm(f32::from_bits(bits)));
        }
        w.parse::<f32>()
            .map(Operand::Imm)
            .map_err(|_| format!("expected an operand (vmem[..], splat vmem[..] or a number), got '{w}'"))
    }
}

fn parse_instr(c: &mut Cursor) -> R<Instr> {
    let m = c.word()?;
    let instr = match m {
        "dma.load" | "dma.store" | "dma.load.bf16" | "dma.store.bf16" => {
            let load = m.starts_with("dma.load");
            let elem = if m.ends_with(".bf16") { ElemType::Bf16 } else { ElemType::F32 };
            let (from, to) = if load { ("hbm", "vmem") } else { ("vmem", "hbm") };
            let src = c.block(from)?;
            c.expect("->")?;
            let dst = c.block(to)?;
            let sem = c.key("sem")?;
            let sem = u8::try_from(sem).map_err(|_| format!("semaphore {sem} is not below 256"))?;
            if load {
                Instr::DmaLoad { src, dst, sem, elem }
            } else {
                Instr::DmaStore { src, dst, sem, elem }
            }
        }
        "wait" => {
            let sem = c.key("sem")?;
            let sem = u8::try_from(sem).map_err(|_| format!("semaphore {sem} is not below 256"))?;
            Instr::Wait { sem, count: c.key("count")? }
        }
        "mxu.weights" => {
            let src = c.block("vmem")?;
            let part = c.part()?;
            Instr::MxuWeights { src, part, mxu: c.mxu()? }
        }
        "mxu.matmul" => {
            let src = c.block("vmem")?;
            c.expect("->")?;
            let dst = c.block("vmem")?;
            let part = c.part()?;
            let accumulate = match c.word()? {
                "acc" => true,
                "set" => false,
                w => return Err(format!("expected 'acc' or 'set', got '{w}'")),
            };
            Instr::MxuMatmul { src, dst, part, accumulate, mxu: c.mxu()? }
        }
        "loop" => {
            c.expect("i")?;
            c.digits()?;
            Instr::Loop { count: c.u32()? }
        }
        "end" => Instr::End,
        "else" => Instr::Else,
        "while" => Instr::While { cond: c.register()? },
        "if" => Instr::If { cond: c.register()? },
        "s.load" => {
            let src = c.space("vmem")?;
            c.expect("->")?;
            Instr::ScalarLoad { src, dst: c.register()? }
        }
        _ if m.starts_with("s.") => {
            let op = ScalarOp::ALL
                .into_iter()
                .find(|o| m == format!("s.{}", o.name()))
                .ok_or_else(|| format!("unknown instruction '{m}'"))?;
            let a = c.scalar_operand()?;
            c.expect(",")?;
            let b = c.scalar_operand()?;
            c.expect("->")?;
            Instr::Scalar { op, a, b, dst: c.register()? }
        }
        "xlu.transpose" => {
            let src = c.block("vmem")?;
            c.expect("->")?;
            Instr::Transpose { src, dst: c.block("vmem")? }
        }
        _ if m.starts_with("xlu.") => {
            let op = ReduceOp::ALL
                .into_iter()
                .find(|o| m == format!("xlu.{}", o.name()))
                .ok_or_else(|| format!("unknown instruction '{m}'"))?;
            let src = c.block("vmem")?;
            c.expect("->")?;
            Instr::Reduce { op, src, dst: c.space("vmem")? }
        }
        _ => {
            let op = m
                .strip_prefix("v.")
                .and_then(|name| VectorOp::ALL.into_iter().find(|o| o.name() == name))
                .ok_or_else(|| format!("unknown instruction '{m}'"))?;
            let a = c.operand()?;
            let b = if op.arity() == 2 {
                c.expect(",")?;
                c.operand()?
            } else {
                Operand::Imm(0.0)
            };
            c.expect("->")?;
            Instr::Vector { op, dst: c.block("vmem")?, a, b }
        }
    };
    c.end()?;
    Ok(instr)
}

fn parse_buffer(c: &mut Cursor) -> R<Buffer> {
    let name = c.word()?.to_string();
    let elem = if c.eat("bf16") {
        ElemType::Bf16
    } else {
        c.expect("f32")?;
        ElemType::F32
    };
    c.expect("[")?;
    let mut shape = Vec::new();
    if !c.eat("]") {
        loop {
            shape.push(c.u64()? as usize);
            if c.eat("]") {
                break;
            }
            c.expect(",")?;
        }
    }
    let addr = c.space("hbm")?;
    if !addr.strides.is_empty() || !addr.scalars.is_empty() {
        return Err("a buffer's address cannot depend on a loop or a register".into());
    }
    c.end()?;
    Ok(Buffer { name, addr: addr.base, shape, elem })
}

/// The characters of a program's or buffer's name in the text form: letters, digits and
/// `._-+:<>` (the compiler names a lambda's program `<lambda>`). The binary decoder holds names to
/// the same rule, so every decoded program prints as text that assembles.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._-+:<>".contains(c)
}

/// Parses assembly text into a program (the inverse of `Display`). Loop index names must be
/// the loop's depth (`i0` outermost); the validator checks the rest.
pub fn parse(text: &str) -> Result<Program, ParseError> {
    let mut program: Option<Program> = None;
    for (n, raw) in text.lines().enumerate() {
        let err = |message: String| ParseError { line: n + 1, message };
        // `;` starts a comment, and so does `#` (`tpu compile --emit asm` heads each program
        // with `# name (called N times)`).
        let mut line = raw.split([';', '#']).next().unwrap_or("").trim();
        // Drop an instruction-index label.
        if let Some((label, rest)) = line.split_once(':') {
            if !label.is_empty() && label.trim().chars().all(|c| c.is_ascii_digit()) {
                line = rest.trim();
            }
        }
        if line.is_empty() {
            continue;
        }
        let mut c = Cursor { rest: line };
        if c.eat("program ") {
            if program.is_some() {
                return Err(err("a second 'program' header".into()));
            }
            let name = c.word().map_err(&err)?.to_string();
            let hbm_words = c.key("hbm").map_err(&err)?;
            let vmem_words = c.key("vmem").map_err(&err)?;
            c.expect("flops").and_then(|_| c.expect("=")).map_err(&err)?;
            let flops = c.flops().map_err(&err)?;
            c.end().map_err(&err)?;
            program =
                Some(Program { name, instrs: vec![], hbm_words, vmem_words, inputs: vec![], outputs: vec![], flops });
            continue;
        }
        let p = program.as_mut().ok_or_else(|| err("expected 'program NAME hbm=.. vmem=.. flops=..' first".into()))?;
        if c.eat("input ") {
            p.inputs.push(parse_buffer(&mut c).map_err(&err)?);
        } else if c.eat("output ") {
            p.outputs.push(parse_buffer(&mut c).map_err(&err)?);
        } else {
            p.instrs.push(parse_instr(&mut c).map_err(&err)?);
        }
    }
    program.ok_or(ParseError { line: 1, message: "empty program: expected a 'program' header".into() })
}
