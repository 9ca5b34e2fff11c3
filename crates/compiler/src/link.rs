//! A program with loops and branches, as one program for the machine: `while_loop`, `scan` and
//! `cond` run on the scalar unit (`while s0 … end`, `if s2 … else … end`), each body and
//! branch compiled once whatever the trip count.
//!
//! The Jaxpr's top level is cut into straight-line parts and control equations, as
//! `jaxlite::loops` cuts it to run by parts; each straight-line piece (a part, a loop's
//! condition, its body, a branch) is compiled by the usual passes on its own, and the pieces
//! are linked:
//! every variable of the top level lives in one HBM buffer of the linked program, each piece's
//! HBM addresses are moved onto the buffers of the variables it reads and writes (its
//! temporaries onto a region of its own), and the loop is
//!
//! ```text
//!   copy the initial carries into the first of two sets of carry buffers
//!   condition; load its predicate into s0
//!   while s0
//!     body (reading the carries from one set, writing the new ones into the other)
//!     swap the sets (registers s6 and s7 say which is which)
//!     condition; load its predicate into s0
//!   end
//!   copy the carries out of the set that holds them
//! ```
//!
//! A `scan` is the same loop on a row counter in `s5` (`s.lt s5, LENGTH -> s0`), its body
//! reading row `s5` of each `xs` at an address the counter moves (`hbm[BASE+ROW*s5]`) and its
//! rows of `ys` written to such addresses; a `cond` loads its index into `s1`, clamped to the
//! branches, and runs one branch in nested `if`s, each branch writing its results into the
//! same buffers.
//!
//! Pieces run one after another and each waits for its own DMAs before it ends, so they share
//! VMEM from address 0 and no semaphore crosses from one to the next.

use crate::{compile_stages, CompileError, CompileOptions};
use isa::{Addr, Block, Instr, Operand, Program, ScalarOp, ScalarOperand, VectorOp};
use jaxlite::control::{Branches, ScanLoop, WhileLoop};
use jaxlite::{Atom, DType, Jaxpr, Primitive, Var};
use std::collections::HashMap;

/// The semaphore of the linker's own DMAs (the compiler's kernels use 0 to 2).
const SEM_LINK: u8 = 7;
/// Words a carry copy moves through VMEM at a time.
const COPY_WORDS: u32 = 16384;
/// The register a loop's predicate is loaded into.
const PREDICATE: u8 = 0;
/// The register a `cond`'s index is loaded into, and the one its comparisons leave.
const INDEX: u8 = 1;
const IS_BRANCH: u8 = 2;
/// The register a `scan` counts its rows in.
const ROW: u8 = 5;
/// Which of a loop's two sets of carry buffers holds the carries now (0 or 1), and which the
/// body writes (1 minus that).
const NOW: u8 = 6;
const NEXT: u8 = 7;

fn err(message: impl Into<String>) -> CompileError {
    CompileError { message: message.into() }
}

struct Linker<'a> {
    opts: &'a CompileOptions,
    instrs: Vec<Instr>,
    hbm_top: u32,
    vmem_words: u32,
    flops: u64,
    /// Where each variable of the top-level Jaxpr lives in HBM.
    at: HashMap<Var, u32>,
    hlo: String,
    fused: String,
}

/// Compiles a Jaxpr that `jaxlite::loops::control_on_machine` accepts into one program, with every piece's stages.
pub fn link(name: &str, jaxpr: &Jaxpr, opts: &CompileOptions) -> Result<crate::Compiled, CompileError> {
    let mut l = Linker {
        opts,
        instrs: Vec::new(),
        hbm_top: 0,
        vmem_words: 1,
        flops: 0,
        at: HashMap::new(),
        hlo: String::new(),
        fused: String::new(),
    };
    let mut inputs = Vec::new();
    for (i, v) in jaxpr.all_inputs().enumerate() {
        let aval = jaxpr.aval(v);
        let addr = l.alloc(words(&aval.shape));
        l.at.insert(v, addr);
        inputs.push(isa::Buffer { name: format!("in{i}"), addr, shape: aval.shape.clone(), elem: isa::ElemType::F32 });
    }
    let last_read = jaxlite::loops::last_reads(jaxpr);
    let control =
        |p: &Primitive| matches!(p, Primitive::While { .. } | Primitive::Scan { .. } | Primitive::Cond { .. });
    let (mut parts, mut whiles, mut scans, mut conds) = (0, 0, 0, 0);
    let mut i = 0;
    while i < jaxpr.eqns.len() {
        let eqn = &jaxpr.eqns[i];
        match &eqn.prim {
            Primitive::While { function } => {
                whiles += 1;
                l.while_loop(&format!("{name}/while{whiles}"), jaxpr, eqn, function)?;
            }
            Primitive::Scan { function } => {
                scans += 1;
                l.scan(&format!("{name}/scan{scans}"), jaxpr, eqn, function)?;
            }
            Primitive::Cond { function } => {
                conds += 1;
                l.cond(&format!("{name}/cond{conds}"), jaxpr, eqn, function)?;
            }
            _ => {
                let end = (i..jaxpr.eqns.len()).find(|&j| control(&jaxpr.eqns[j].prim)).unwrap_or(jaxpr.eqns.len());
                parts += 1;
                let part = jaxlite::loops::straight_part(jaxpr, i..end, &last_read);
                if !part.outvars.is_empty() {
                    let ins: Vec<Addr> = part.invars.iter().map(|v| l.at[v].into()).collect();
                    let outs = l.piece(&format!("{name}/part{parts}"), &part, &ins, &[])?;
                    for (a, g) in part.outvars.iter().zip(outs) {
                        l.at.insert(var(a).expect("a part's outputs are variables"), g.base);
                    }
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    let mut outputs = Vec::new();
    for (i, a) in jaxpr.outvars.iter().enumerate() {
        let addr = l.atom(a)?;
        let shape = jaxpr.atom_aval(a).shape.clone();
        outputs.push(isa::Buffer { name: format!("out{i}"), addr, shape, elem: isa::ElemType::F32 });
    }
    let program = Program {
        name: name.to_string(),
        instrs: l.instrs,
        hbm_words: l.hbm_top.max(1),
        vmem_words: l.vmem_words,
        inputs,
        outputs,
        flops: l.flops,
    };
    isa::validate(&program).map_err(|e| err(format!("internal error: the linked program {name} is invalid: {e}")))?;
    Ok(crate::Compiled { hlo: l.hlo, fused: l.fused, program })
}

fn var(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }
}

fn words(shape: &[usize]) -> u32 {
    (shape.iter().product::<usize>() as u32).max(1)
}

/// The words of each variable's buffer.
fn sizes(jaxpr: &Jaxpr, vars: &[Var]) -> Vec<u32> {
    vars.iter().map(|&v| words(&jaxpr.aval(v).shape)).collect()
}

impl Linker<'_> {
    fn alloc(&mut self, words: u32) -> u32 {
        let a = self.hbm_top;
        self.hbm_top += words;
        a
    }

    /// The buffer holding an operand: a variable's, or a literal's, written into a buffer of
    /// its own where it is needed.
    fn atom(&mut self, a: &Atom) -> Result<u32, CompileError> {
        match a {
            Atom::Var(v) => self.at.get(v).copied().ok_or_else(|| err(format!("internal error: {v:?} has no buffer"))),
            Atom::Literal(l) => {
                let word = if l.aval.dtype == DType::U32 { l.value as i64 as u32 } else { (l.value as f32).to_bits() };
                let g = self.alloc(1);
                // `where` moves the immediate's bits, so even a NaN or uint32 word arrives whole.
                self.instrs.push(Instr::Vector {
                    op: VectorOp::Where,
                    dst: Block::<u32>::flat(0, 1).into(),
                    a: Operand::Imm(1.0),
                    b: Operand::Imm(f32::from_bits(word)),
                });
                self.instrs.push(Instr::DmaStore {
                    src: Block::<u32>::flat(0, 1).into(),
                    dst: Block::<u32>::flat(g, 1).into(),
                    sem: SEM_LINK,
                });
                self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
                Ok(g)
            }
        }
    }

    /// Compiles a straight-line `jaxpr` whose inputs live at `inputs` (addresses a register
    /// may move: a scan's row) and appends its instructions, moved onto those buffers; its
    /// outputs are written to `dests` where one is given (else to buffers of their own).
    /// Returns where each output lives: an output that is an input, or one returned twice, is
    /// not at its destination, and the caller copies it there.
    fn piece(
        &mut self,
        name: &str,
        jaxpr: &Jaxpr,
        inputs: &[Addr],
        dests: &[Option<Addr>],
    ) -> Result<Vec<Addr>, CompileError> {
        let stages = compile_stages(name, jaxpr, self.opts)?;
        let q = stages.program;
        self.hlo.push_str(&format!("# {name}\n{}\n", stages.hlo.trim_end()));
        self.fused.push_str(&format!("# {name}\n{}\n", stages.fused.trim_end()));
        let private = self.alloc(q.hbm_words);
        // (first word, one past the last, where it moves to) of each input and output.
        let mut regions: Vec<(u32, u32, Addr)> =
            q.inputs.iter().zip(inputs).map(|(b, g)| (b.addr, b.addr + b.words().max(1), g.clone())).collect();
        let moved = |r: &(u32, u32, Addr), at: u32| Addr { base: r.2.base + (at - r.0), ..r.2.clone() };
        let mut outputs = Vec::new();
        for (j, b) in q.outputs.iter().enumerate() {
            let (lo, hi) = (b.addr, b.addr + b.words().max(1));
            // An output that is an input (or a view of one), or another output (a value
            // returned twice), is that one's buffer: values never change once written, so
            // sharing is safe.
            let global = match regions.iter().find(|r| r.0 <= lo && hi <= r.1) {
                Some(r) => moved(r, lo),
                None => {
                    let g = match dests.get(j).cloned().flatten() {
                        Some(d) => d,
                        None => Addr::from(self.alloc(hi - lo)),
                    };
                    regions.push((lo, hi, g.clone()));
                    g
                }
            };
            outputs.push(global);
        }
        let relocate = |a: &Addr| {
            let to = match regions.iter().find(|r| r.0 <= a.base && a.base < r.1) {
                Some(r) => moved(r, a.base),
                None => Addr::from(private + a.base),
            };
            Addr { base: to.base, strides: a.strides.clone(), scalars: to.scalars }
        };
        for instr in &q.instrs {
            self.instrs.push(match instr {
                Instr::DmaLoad { src, dst, sem } => Instr::DmaLoad {
                    src: Block { addr: relocate(&src.addr), ..src.clone() },
                    dst: dst.clone(),
                    sem: *sem,
                },
                Instr::DmaStore { src, dst, sem } => Instr::DmaStore {
                    src: src.clone(),
                    dst: Block { addr: relocate(&dst.addr), ..dst.clone() },
                    sem: *sem,
                },
                other => other.clone(),
            });
        }
        self.vmem_words = self.vmem_words.max(q.vmem_words);
        self.flops += q.flops;
        Ok(outputs)
    }

    fn scalar(&mut self, op: ScalarOp, a: ScalarOperand, b: ScalarOperand, dst: u8) {
        self.instrs.push(Instr::Scalar { op, a, b, dst });
    }

    /// Loads the word at HBM `at` into register `dst`.
    fn load_scalar(&mut self, at: u32, dst: u8) {
        let word = Block::<u32>::flat(0, 1).into();
        self.instrs.push(Instr::DmaLoad { src: Block::<u32>::flat(at, 1).into(), dst: word, sem: SEM_LINK });
        self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        self.instrs.push(Instr::ScalarLoad { src: 0.into(), dst });
    }

    /// Two sets of buffers for a loop's carries, holding `init` at first (see [`Carries`]).
    fn carries(&mut self, init: &[u32], sizes: &[u32]) -> Carries {
        let a: Vec<u32> = sizes.iter().map(|&n| self.alloc(n)).collect();
        let b: Vec<u32> = sizes.iter().map(|&n| self.alloc(n)).collect();
        for ((&from, &to), &n) in init.iter().zip(&a).zip(sizes) {
            self.copy(from.into(), to.into(), n);
        }
        self.scalar(ScalarOp::Add, ScalarOperand::Imm(0), ScalarOperand::Imm(0), NOW);
        self.scalar(ScalarOp::Add, ScalarOperand::Imm(1), ScalarOperand::Imm(0), NEXT);
        Carries { a, b, sizes: sizes.to_vec() }
    }

    /// After a trip: new carries that the body did not write in place (an old carry passed
    /// through, an input) copied into the next set, which then becomes the current one.
    fn next_trip(&mut self, carries: &Carries, written: &[Addr]) {
        for (k, w) in written.iter().enumerate() {
            if *w != carries.next(k) {
                self.copy(w.clone(), carries.next(k), carries.sizes[k]);
            }
        }
        self.scalar(ScalarOp::Sub, ScalarOperand::Imm(1), ScalarOperand::Reg(NOW), NOW);
        self.scalar(ScalarOp::Sub, ScalarOperand::Imm(1), ScalarOperand::Reg(NOW), NEXT);
    }

    /// After the loop: the final carries, from whichever set holds them, into buffers of their
    /// own (where the loop's results live).
    fn final_carries(&mut self, carries: &Carries) -> Vec<u32> {
        (0..carries.sizes.len())
            .map(|k| {
                let n = carries.sizes[k];
                let to = self.alloc(n);
                self.copy(carries.now(k), to.into(), n);
                to
            })
            .collect()
    }

    /// Copies `words` words of HBM from `from` to `to`, through VMEM.
    fn copy(&mut self, from: Addr, to: Addr, words: u32) {
        let chunk = words.min(COPY_WORDS);
        self.vmem_words = self.vmem_words.max(chunk);
        let (full, tail) = (words / chunk, words % chunk);
        let step = |l: &mut Linker, from: Addr, to: Addr, n: u32| {
            let vmem: Block = Block::<u32>::flat(0, n).into();
            let hbm = |addr: Addr| Block { addr, rows: 1, cols: n, stride: n };
            l.instrs.push(Instr::DmaLoad { src: hbm(from), dst: vmem.clone(), sem: SEM_LINK });
            l.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
            l.instrs.push(Instr::DmaStore { src: vmem, dst: hbm(to), sem: SEM_LINK });
            l.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        };
        // The copy loop's index is the depth of the loops open around it: none, since pieces
        // close theirs and `while` and `if` open no index.
        let at = |a: &Addr, offset: u32, looped: bool| Addr {
            base: a.base + offset,
            strides: if looped { vec![(0, chunk as i32)] } else { vec![] },
            scalars: a.scalars.clone(),
        };
        if full > 1 {
            self.instrs.push(Instr::Loop { count: full });
            step(self, at(&from, 0, true), at(&to, 0, true), chunk);
            self.instrs.push(Instr::End);
        } else if full == 1 {
            step(self, at(&from, 0, false), at(&to, 0, false), chunk);
        }
        if tail > 0 {
            step(self, at(&from, full * chunk, false), at(&to, full * chunk, false), tail);
        }
    }

    /// The condition on the carries, its predicate loaded into the register `while` tests.
    /// Returns its instructions, which the loop runs again after each trip: the carries it
    /// reads are wherever `s6` says, so the same instructions serve every test.
    fn condition(
        &mut self,
        name: &str,
        w: &WhileLoop,
        consts: &[u32],
        carries: &Carries,
    ) -> Result<Vec<Instr>, CompileError> {
        let start = self.instrs.len();
        let ins: Vec<Addr> = consts.iter().map(|&a| a.into()).chain(carries.all_now()).collect();
        let predicate = self.piece(&format!("{name}/cond"), &w.cond, &ins, &[])?.remove(0);
        self.load_scalar(predicate.base, PREDICATE);
        Ok(self.instrs[start..].to_vec())
    }

    /// Buffers for values of these types, and their sizes.
    fn results(&mut self, sizes: &[u32]) -> Vec<u32> {
        sizes.iter().map(|&n| self.alloc(n)).collect()
    }

    fn while_loop(&mut self, name: &str, jaxpr: &Jaxpr, eqn: &jaxlite::Eqn, w: &WhileLoop) -> Result<(), CompileError> {
        let operands: Vec<u32> = eqn.inputs.iter().map(|a| self.atom(a)).collect::<Result<_, _>>()?;
        let [cond_consts, body_consts, init] = w.split(&operands);
        let body_consts = body_consts.to_vec();
        let carries = self.carries(init, &sizes(jaxpr, &eqn.outputs));
        let test = self.condition(name, w, cond_consts, &carries)?;
        self.instrs.push(Instr::While { cond: PREDICATE });
        let ins: Vec<Addr> = body_consts.iter().map(|&a| a.into()).chain(carries.all_now()).collect();
        let dests: Vec<Option<Addr>> = carries.all_next().map(Some).collect();
        let next = self.piece(&format!("{name}/body"), &w.body, &ins, &dests)?;
        self.next_trip(&carries, &next);
        self.instrs.extend(test);
        self.instrs.push(Instr::End);
        let results = self.final_carries(&carries);
        for (&v, &c) in eqn.outputs.iter().zip(&results) {
            self.at.insert(v, c);
        }
        Ok(())
    }

    /// A scan: a `while` on a row counter, the body reading and writing the counter's rows.
    fn scan(&mut self, name: &str, jaxpr: &Jaxpr, eqn: &jaxlite::Eqn, scan: &ScanLoop) -> Result<(), CompileError> {
        let operands: Vec<u32> = eqn.inputs.iter().map(|a| self.atom(a)).collect::<Result<_, _>>()?;
        let [consts, init, xs] = scan.split(&operands);
        let (consts, xs) = (consts.to_vec(), xs.to_vec());
        let (carry_outputs, y_outputs) = eqn.outputs.split_at(scan.carries);
        let ys = self.results(&sizes(jaxpr, y_outputs));
        let carries = self.carries(init, &sizes(jaxpr, carry_outputs));
        let body = &scan.body;
        let row_words = |a: &Atom| words(&body.atom_aval(a).shape);
        let x_rows: Vec<u32> =
            body.invars[scan.consts + scan.carries..].iter().map(|&v| words(&body.aval(v).shape)).collect();
        let y_rows: Vec<u32> = body.outvars[scan.carries..].iter().map(row_words).collect();
        let row = |base: u32, words: u32| Addr { base, strides: vec![], scalars: vec![(ROW, words as i32)] };
        let length = scan.length as i32;
        let (first, step) = if scan.reverse { (length - 1, -1) } else { (0, 1) };
        let test = |l: &mut Linker| {
            if scan.reverse {
                l.scalar(ScalarOp::Ge, ScalarOperand::Reg(ROW), ScalarOperand::Imm(0), PREDICATE);
            } else {
                l.scalar(ScalarOp::Lt, ScalarOperand::Reg(ROW), ScalarOperand::Imm(length), PREDICATE);
            }
        };
        self.scalar(ScalarOp::Add, ScalarOperand::Imm(first), ScalarOperand::Imm(0), ROW);
        test(self);
        self.instrs.push(Instr::While { cond: PREDICATE });
        let ins: Vec<Addr> = consts
            .iter()
            .map(|&a| a.into())
            .chain(carries.all_now())
            .chain(xs.iter().zip(&x_rows).map(|(&a, &n)| row(a, n)))
            .collect();
        // The body writes its carries into the next set and its rows of `ys` in place.
        let dests: Vec<Option<Addr>> =
            carries.all_next().map(Some).chain(ys.iter().zip(&y_rows).map(|(&y, &n)| Some(row(y, n)))).collect();
        let next = self.piece(&format!("{name}/body"), body, &ins, &dests)?;
        // Rows of `ys` that are values of their own (an old carry, an `xs` row) are copied
        // before the carries change sets.
        for ((from, &to), &n) in next[scan.carries..].iter().zip(&ys).zip(&y_rows) {
            if *from != row(to, n) {
                self.copy(from.clone(), row(to, n), n);
            }
        }
        self.next_trip(&carries, &next[..scan.carries]);
        self.scalar(ScalarOp::Add, ScalarOperand::Reg(ROW), ScalarOperand::Imm(step), ROW);
        test(self);
        self.instrs.push(Instr::End);
        let results = self.final_carries(&carries);
        for (&v, &c) in eqn.outputs.iter().zip(results.iter().chain(&ys)) {
            self.at.insert(v, c);
        }
        Ok(())
    }

    /// A cond: the index into `s1`, clamped to the branches as `Branches::taken` clamps it;
    /// branch k runs in the `if` of `s1 == k`, nested from the last branch down, branch 0 in
    /// the innermost `else`. Every branch writes its results into the same buffers.
    fn cond(&mut self, name: &str, jaxpr: &Jaxpr, eqn: &jaxlite::Eqn, c: &Branches) -> Result<(), CompileError> {
        let operands: Vec<u32> = eqn.inputs.iter().map(|a| self.atom(a)).collect::<Result<_, _>>()?;
        let Some((&index, operands)) = operands.split_first() else {
            return Err(err("internal error: a cond without its index"));
        };
        let sizes = sizes(jaxpr, &eqn.outputs);
        let results = self.results(&sizes);
        let last = c.branches.len() as i32 - 1;
        self.load_scalar(index, INDEX);
        self.scalar(ScalarOp::Max, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(0), INDEX);
        self.scalar(ScalarOp::Min, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(last), INDEX);
        let ins: Vec<Addr> = operands.iter().map(|&a| a.into()).collect();
        for k in (0..c.branches.len()).rev() {
            if k > 0 {
                self.scalar(ScalarOp::Eq, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(k as i32), IS_BRANCH);
                self.instrs.push(Instr::If { cond: IS_BRANCH });
            }
            let dests: Vec<Option<Addr>> = results.iter().map(|&r| Some(r.into())).collect();
            let outs = self.piece(&format!("{name}/branch{k}"), &c.branches[k], &ins, &dests)?;
            for ((from, &to), &n) in outs.iter().zip(&results).zip(&sizes) {
                if *from != Addr::from(to) {
                    self.copy(from.clone(), to.into(), n);
                }
            }
            if k > 0 {
                self.instrs.push(Instr::Else);
            }
        }
        for _ in 1..c.branches.len() {
            self.instrs.push(Instr::End);
        }
        for (&v, &r) in eqn.outputs.iter().zip(&results) {
            self.at.insert(v, r);
        }
        Ok(())
    }
}

/// A loop's carries in two sets of buffers, `a` and `b`: register `s6` says which holds them
/// now (0 for `a`) and `s7` the other, which the body writes; each trip swaps the registers,
/// so no carry is copied back (an address `a + (b - a)·s6` is either set).
struct Carries {
    a: Vec<u32>,
    b: Vec<u32>,
    sizes: Vec<u32>,
}

impl Carries {
    fn at(&self, k: usize, register: u8) -> Addr {
        Addr { base: self.a[k], strides: vec![], scalars: vec![(register, self.b[k] as i32 - self.a[k] as i32)] }
    }

    fn now(&self, k: usize) -> Addr {
        self.at(k, NOW)
    }

    fn next(&self, k: usize) -> Addr {
        self.at(k, NEXT)
    }

    fn all_now(&self) -> impl Iterator<Item = Addr> + '_ {
        (0..self.a.len()).map(|k| self.now(k))
    }

    fn all_next(&self) -> impl Iterator<Item = Addr> + '_ {
        (0..self.a.len()).map(|k| self.next(k))
    }
}
