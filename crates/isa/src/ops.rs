//! Running a program's control: loops unrolled, branches taken, addresses resolved.

use crate::validate::IsaError;
use crate::{word_to_int, Addr, Block, ElemType, Instr, Operand, Program, MAX_LOOP_DEPTH, SCALAR_REGS};

/// A run stops with an error after this many operations: a `while` whose register never
/// becomes zero must end in an error naming it, not hang the page. (The largest programs the
/// compiler emits run a few million.)
pub const MAX_OPERATIONS: u64 = 100_000_000;

/// An open block of structured control.
#[derive(Clone, Copy, Debug)]
enum Frame {
    /// A counted loop: the index of its `loop` instruction and its trip count; its current
    /// index is `Ops::indices[depth]`.
    Loop { start: usize, count: u32 },
    /// A `while` whose body is running: the `while` is tested again at the body's `end`.
    While { start: usize },
    /// The taken half of an `if`.
    If,
}

/// The operations of a run, in order (see [`Program::ops`]): an iterator of
/// `(instruction index, operation)` or an error naming the instruction.
pub struct Ops<'a> {
    program: &'a Program,
    /// For each `loop`, `while` and `else`: the index of its `end`; for each `if`: of its
    /// `else`, or its `end` if it has none. Computed once; valid programs nest correctly.
    jumps: Vec<usize>,
    pc: usize,
    frames: Vec<Frame>,
    /// `i0` … of the open counted loops.
    indices: [u32; MAX_LOOP_DEPTH],
    loops: usize,
    scalars: [i32; SCALAR_REGS as usize],
    /// Registers holding a word nobody knows (bit `r` for `s{r}`): what a `s.load` read in a
    /// run without values (see [`Ops::load_unknown`]), and what was computed from it.
    unknown: u16,
    /// The register of a yielded `s.load`, until the caller hands over its word.
    pending: Option<u8>,
    operations: u64,
    limit: u64,
    /// `while` trips taken so far, and how many the run may take.
    trips: u64,
    max_trips: u64,
    failed: bool,
    /// How many times control reached each instruction (a `loop` once per entry, its body
    /// once per iteration), for counts the program attaches to instructions (`Program::flops`).
    visits: Vec<u64>,
}

fn at(index: usize, message: impl Into<String>) -> IsaError {
    IsaError { index: Some(index), message: message.into() }
}

impl<'a> Ops<'a> {
    pub(crate) fn new(program: &'a Program) -> Ops<'a> {
        let instrs = &program.instrs;
        let mut jumps = vec![usize::MAX; instrs.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, instr) in instrs.iter().enumerate() {
            match instr {
                Instr::Loop { .. } | Instr::While { .. } | Instr::If { .. } => open.push(i),
                Instr::Else => {
                    if let Some(&o) = open.last() {
                        jumps[o] = i;
                    }
                    open.push(i);
                }
                Instr::End => {
                    if let Some(o) = open.pop() {
                        jumps[o] = i;
                        // The `if` of an `else` jumps to the `else`; the `else` to the end.
                        if matches!(instrs[o], Instr::Else) {
                            open.pop();
                        }
                    }
                }
                _ => {}
            }
        }
        Ops {
            program,
            jumps,
            pc: 0,
            frames: Vec::with_capacity(8),
            indices: [0; MAX_LOOP_DEPTH],
            loops: 0,
            scalars: [0; SCALAR_REGS as usize],
            unknown: 0,
            pending: None,
            operations: 0,
            limit: MAX_OPERATIONS,
            trips: 0,
            max_trips: u64::MAX,
            failed: false,
            visits: vec![0; instrs.len()],
        }
    }

    /// The useful flops of the run so far: each of the program's counts once per visit of
    /// its instruction (a loop body's on every trip, an untaken branch's never).
    pub fn flops(&self) -> u64 {
        // Saturating: a decoded program may carry any count.
        let visits = |f: &crate::Flops| self.visits.get(f.instr as usize).copied().unwrap_or(0);
        self.program.flops.iter().fold(0u64, |sum, f| sum.saturating_add(f.count.saturating_mul(visits(f))))
    }

    /// Stops the run with an error after `operations` operations instead of [`MAX_OPERATIONS`].
    pub fn limit(mut self, operations: u64) -> Ops<'a> {
        self.limit = operations;
        self
    }

    /// Stops the run with an error when its `while` loops, together, would take more than
    /// `trips` trips: a step budget, as the interpreter has for the script's own loops.
    pub fn max_trips(mut self, trips: u64) -> Ops<'a> {
        self.max_trips = trips;
        self
    }

    /// Hands over the word the `s.load` just yielded read from VMEM.
    pub fn load(&mut self, word: u32) {
        if let Some(reg) = self.pending.take() {
            self.scalars[reg as usize] = word_to_int(word);
            self.unknown &= !(1 << reg);
        }
    }

    /// Hands over no word for the `s.load` just yielded: a run without values (timing a
    /// program whose arrays were never computed). Addresses in HBM that the register moves
    /// resolve as if it held 0 (the timing model charges a transfer by its size, wherever it
    /// reads); a branch on it, or a VMEM address it moves, is an error naming the instruction,
    /// since those change what runs.
    pub fn load_unknown(&mut self) {
        if let Some(reg) = self.pending.take() {
            self.scalars[reg as usize] = 0;
            self.unknown |= 1 << reg;
        }
    }

    fn reads_unknown(&self, a: &Addr) -> bool {
        a.scalars.iter().any(|&(r, _)| self.unknown & (1 << r) != 0)
    }

    /// The scalar registers now.
    pub fn scalars(&self) -> &[i32] {
        &self.scalars
    }

    fn jump(&self, pc: usize) -> Result<usize, IsaError> {
        match self.jumps.get(pc) {
            Some(&j) if j != usize::MAX => Ok(j),
            _ => Err(at(pc, "a block without its end (the program was not validated)")),
        }
    }

    fn addr(&self, index: usize, a: &Addr) -> Result<u32, IsaError> {
        a.at(&self.indices[..self.loops], &self.scalars).ok_or_else(|| {
            at(index, format!("address {a} leaves the 32-bit address space at {}", self.registers_of(a)))
        })
    }

    /// `s1 = 7, s2 = -1`: the registers an address reads, for an error about it.
    fn registers_of(&self, a: &Addr) -> String {
        let regs: Vec<String> =
            a.scalars.iter().map(|&(r, _)| format!("s{r} = {}", self.scalars[r as usize])).collect();
        if regs.is_empty() {
            "these loop indices".into()
        } else {
            regs.join(", ")
        }
    }

    fn block(&self, index: usize, b: &Block) -> Result<Block<u32>, IsaError> {
        Ok(Block { addr: self.addr(index, &b.addr)?, rows: b.rows, cols: b.cols, stride: b.stride })
    }

    fn operand(&self, index: usize, o: &Operand) -> Result<Operand<u32>, IsaError> {
        Ok(match o {
            Operand::Vmem(a) => Operand::Vmem(self.addr(index, a)?),
            Operand::Row(a) => Operand::Row(self.addr(index, a)?),
            Operand::Col(a) => Operand::Col(self.addr(index, a)?),
            Operand::Splat(a) => Operand::Splat(self.addr(index, a)?),
            Operand::Imm(x) => Operand::Imm(*x),
        })
    }

    /// The instruction with its addresses at the current indices and registers.
    fn resolve(&self, index: usize, instr: &Instr) -> Result<Instr<u32>, IsaError> {
        Ok(match instr {
            Instr::DmaLoad { src, dst, sem, elem } => {
                Instr::DmaLoad { src: self.block(index, src)?, dst: self.block(index, dst)?, sem: *sem, elem: *elem }
            }
            Instr::DmaStore { src, dst, sem, elem } => {
                Instr::DmaStore { src: self.block(index, src)?, dst: self.block(index, dst)?, sem: *sem, elem: *elem }
            }
            Instr::Wait { sem, count } => Instr::Wait { sem: *sem, count: *count },
            Instr::MxuWeights { src, part, mxu } => {
                Instr::MxuWeights { src: self.block(index, src)?, part: *part, mxu: *mxu }
            }
            Instr::MxuMatmul { src, dst, part, accumulate, mxu } => Instr::MxuMatmul {
                src: self.block(index, src)?,
                dst: self.block(index, dst)?,
                part: *part,
                accumulate: *accumulate,
                mxu: *mxu,
            },
            Instr::Vector { op, dst, a, b } => Instr::Vector {
                op: *op,
                dst: self.block(index, dst)?,
                a: self.operand(index, a)?,
                b: self.operand(index, b)?,
            },
            Instr::Transpose { src, dst } => {
                Instr::Transpose { src: self.block(index, src)?, dst: self.block(index, dst)? }
            }
            Instr::Reduce { op, src, dst } => {
                Instr::Reduce { op: *op, src: self.block(index, src)?, dst: self.addr(index, dst)? }
            }
            Instr::ScalarLoad { src, dst } => Instr::ScalarLoad { src: self.addr(index, src)?, dst: *dst },
            Instr::Scalar { op, a, b, dst } => Instr::Scalar { op: *op, a: *a, b: *b, dst: *dst },
            Instr::While { cond } => Instr::While { cond: *cond },
            Instr::If { cond } => Instr::If { cond: *cond },
            Instr::Loop { count } => Instr::Loop { count: *count },
            Instr::End => Instr::End,
            Instr::Else => Instr::Else,
        })
    }

    /// An operation whose address a register moved must stay inside its memory; the validator
    /// checked every other one.
    fn check_computed(&self, index: usize, instr: &Instr, op: &Instr<u32>) -> Result<(), IsaError> {
        let computed = |a: &Addr| !a.scalars.is_empty();
        let (hbm, vmem) = (self.program.hbm_words as u64, self.program.vmem_words as u64);
        let vmem_addrs: Vec<&Addr> = match instr {
            Instr::DmaLoad { dst, .. } => vec![&dst.addr],
            Instr::DmaStore { src, .. } => vec![&src.addr],
            other => instr_addrs(other),
        };
        if let Some(a) = vmem_addrs.into_iter().find(|a| self.reads_unknown(a)) {
            return Err(at(
                index,
                format!("its VMEM address vmem[{a}] depends on a value the program computed, which a run without values does not have"),
            ));
        }
        // HBM's size in the elements a DMA counts.
        let hbm_in = |elem: ElemType| (hbm * elem.per_word(), elem.unit());
        // An HBM address moved by an unknown word is not checked: it stands for any place.
        let computed = |a: &Addr| computed(a) && !self.reads_unknown(a);
        let check = |what: &str, b: &Block<u32>, (size, unit): (u64, &str)| {
            let end = b.addr as u64 + b.extent();
            if b.extent() > 0 && end > size {
                Err(at(index, format!("{what} ({unit} {}..{end}) is outside its memory of {size} {unit}", b.addr)))
            } else {
                Ok(())
            }
        };
        match (instr, op) {
            (Instr::DmaLoad { src: s, dst: d, .. }, Instr::DmaLoad { src, dst, elem, .. }) => {
                if computed(&s.addr) {
                    check("the computed source", src, hbm_in(*elem))?;
                }
                if computed(&d.addr) {
                    check("the computed destination", dst, (vmem, "words"))?;
                }
            }
            (Instr::DmaStore { src: s, dst: d, .. }, Instr::DmaStore { src, dst, elem, .. }) => {
                if computed(&s.addr) {
                    check("the computed source", src, (vmem, "words"))?;
                }
                if computed(&d.addr) {
                    check("the computed destination", dst, hbm_in(*elem))?;
                }
            }
            (Instr::ScalarLoad { src: s, .. }, Instr::ScalarLoad { src, .. }) if computed(s) => {
                check("the computed scalar load", &Block::flat(*src, 1), (vmem, "words"))?;
            }
            _ => {
                // Compute units address VMEM alone.
                let any = instr_addrs(instr).into_iter().any(computed);
                if any {
                    for b in op.vmem_read_blocks().iter().chain(&op.vmem_write_blocks()) {
                        check("a computed operand", b, (vmem, "words"))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs control instructions up to the next operation.
    fn step(&mut self) -> Result<Option<(usize, Instr<u32>)>, IsaError> {
        if let Some(reg) = self.pending {
            return Err(at(self.pc.saturating_sub(1), format!("s{reg} was loaded but its word was never handed over")));
        }
        loop {
            let pc = self.pc;
            let Some(instr) = self.program.instrs.get(pc) else {
                return Ok(None);
            };
            self.visits[pc] += 1;
            match instr {
                Instr::Loop { count } => {
                    if *count == 0 {
                        self.pc = self.jump(pc)? + 1;
                    } else {
                        if self.loops == MAX_LOOP_DEPTH {
                            return Err(at(pc, format!("loops nest deeper than {MAX_LOOP_DEPTH}")));
                        }
                        self.indices[self.loops] = 0;
                        self.loops += 1;
                        self.frames.push(Frame::Loop { start: pc, count: *count });
                        self.pc += 1;
                    }
                    continue;
                }
                Instr::End => {
                    match self.frames.pop() {
                        Some(Frame::Loop { start, count }) => {
                            let i = &mut self.indices[self.loops - 1];
                            *i += 1;
                            if *i < count {
                                self.frames.push(Frame::Loop { start, count });
                                self.pc = start + 1;
                            } else {
                                self.loops -= 1;
                                self.pc += 1;
                            }
                        }
                        // The test runs again (and is charged again).
                        Some(Frame::While { start }) => self.pc = start,
                        Some(Frame::If) => self.pc += 1,
                        None => return Err(at(pc, "end without a loop, while or if")),
                    }
                    continue;
                }
                // The end of an `if`'s taken half: skip the other.
                Instr::Else => {
                    self.frames.pop();
                    self.pc = self.jump(pc)? + 1;
                    continue;
                }
                _ => {}
            }
            self.operations += 1;
            if self.operations > self.limit {
                return Err(at(
                    pc,
                    format!(
                        "the run passed {} operations here (a while loop whose register never becomes 0?)",
                        self.limit
                    ),
                ));
            }
            let op = self.resolve(pc, instr)?;
            self.check_computed(pc, instr, &op)?;
            self.pc += 1;
            match instr {
                Instr::ScalarLoad { dst, .. } => self.pending = Some(*dst),
                Instr::Scalar { op, a, b, dst } => {
                    self.scalars[*dst as usize] = op.apply(a.value(&self.scalars), b.value(&self.scalars));
                    let unknown = |o: &crate::ScalarOperand| match *o {
                        crate::ScalarOperand::Reg(r) => self.unknown & (1 << r) != 0,
                        crate::ScalarOperand::Imm(_) => false,
                    };
                    if unknown(a) || unknown(b) {
                        self.unknown |= 1 << dst;
                    } else {
                        self.unknown &= !(1 << dst);
                    }
                }
                Instr::While { cond } | Instr::If { cond } if self.unknown & (1 << cond) != 0 => {
                    return Err(at(
                        pc,
                        format!(
                            "it branches on s{cond}, a value the program computed, which a run without values \
                             does not have"
                        ),
                    ));
                }
                Instr::While { cond } => {
                    if self.scalars[*cond as usize] != 0 {
                        self.trips += 1;
                        if self.trips > self.max_trips {
                            return Err(at(
                                pc,
                                format!(
                                    "the program's loops ran {} trips and this one's condition still held; the run \
                                     stops there (the step budget), taking it for a loop that never ends",
                                    self.max_trips
                                ),
                            ));
                        }
                        self.frames.push(Frame::While { start: pc });
                    } else {
                        self.pc = self.jump(pc)? + 1;
                    }
                }
                Instr::If { cond } => {
                    if self.scalars[*cond as usize] != 0 {
                        self.frames.push(Frame::If);
                    } else {
                        let other = self.jump(pc)?;
                        self.pc = other + 1;
                        if matches!(self.program.instrs[other], Instr::Else) {
                            self.frames.push(Frame::If);
                        }
                    }
                }
                _ => {}
            }
            return Ok(Some((pc, op)));
        }
    }
}

/// Every address an instruction names.
fn instr_addrs(instr: &Instr) -> Vec<&Addr> {
    match instr {
        Instr::DmaLoad { src, dst, .. }
        | Instr::DmaStore { src, dst, .. }
        | Instr::MxuMatmul { src, dst, .. }
        | Instr::Transpose { src, dst } => vec![&src.addr, &dst.addr],
        Instr::MxuWeights { src, .. } => vec![&src.addr],
        Instr::Vector { dst, a, b, .. } => [Some(&dst.addr), a.addr(), b.addr()].into_iter().flatten().collect(),
        Instr::Reduce { src, dst, .. } => vec![&src.addr, dst],
        Instr::ScalarLoad { src, .. } => vec![src],
        _ => vec![],
    }
}

impl Iterator for Ops<'_> {
    type Item = Result<(usize, Instr<u32>), IsaError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let step = self.step();
        self.failed = step.is_err();
        step.transpose()
    }
}

/// A run's operations again, its `s.load`s reading the words the run loaded (see
/// [`Program::replay`]), or none (see [`Program::replay_without_values`]).
pub struct Replay<'a> {
    pub(crate) ops: Ops<'a>,
    pub(crate) loads: Option<std::slice::Iter<'a, u32>>,
}

impl Replay<'_> {
    /// The useful flops of the replay so far (see [`Ops::flops`]).
    pub fn flops(&self) -> u64 {
        self.ops.flops()
    }
}

impl Iterator for Replay<'_> {
    type Item = Result<(usize, Instr<u32>), IsaError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.ops.next()?;
        if let Ok((index, Instr::ScalarLoad { .. })) = item {
            let Some(loads) = self.loads.as_mut() else {
                self.ops.load_unknown();
                return Some(item);
            };
            match loads.next() {
                Some(&word) => self.ops.load(word),
                None => {
                    self.ops.failed = true;
                    return Some(Err(at(index, "a replay ran out of the run's loaded words")));
                }
            }
        }
        Some(item)
    }
}
