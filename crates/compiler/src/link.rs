//! A program with `while` loops, as one program for the machine: the loop runs on the scalar
//! unit (`while s0 … end`), its condition and body compiled once whatever the trip count.
//!
//! The Jaxpr's top level is cut into straight-line parts and `while` equations, as
//! `jaxlite::loops` cuts it to run by parts; each straight-line piece (a part, a loop's
//! condition, its body) is compiled by the usual passes on its own, and the pieces are linked:
//! every variable of the top level lives in one HBM buffer of the linked program, each piece's
//! HBM addresses are moved onto the buffers of the variables it reads and writes (its
//! temporaries onto a region of its own), and the loop is
//!
//! ```text
//!   copy the initial carries into the carry buffers
//!   condition; load its predicate into s0
//!   while s0
//!     body (reading the carries, writing new ones beside them)
//!     copy the new carries over the old
//!     condition; load its predicate into s0
//!   end
//! ```
//!
//! Pieces run one after another and each waits for its own DMAs before it ends, so they share
//! VMEM from address 0 and no semaphore crosses from one to the next.

use crate::{compile_stages, CompileError, CompileOptions};
use isa::{Addr, Block, Instr, Operand, Program, VectorOp};
use jaxlite::control::WhileLoop;
use jaxlite::{Atom, DType, Jaxpr, Primitive, Var};
use std::collections::HashMap;

/// The semaphore of the linker's own DMAs (the compiler's kernels use 0 to 2).
const SEM_LINK: u8 = 7;
/// Words a carry copy moves through VMEM at a time.
const COPY_WORDS: u32 = 16384;
/// The register a loop's predicate is loaded into.
const PREDICATE: u8 = 0;

fn err(message: impl Into<String>) -> CompileError {
    CompileError { message: message.into() }
}

/// Whether `jaxpr` (lowered: custom derivatives inlined, predicates one boolean) is what the
/// linker compiles: see `jaxlite::loops::whiles_on_machine`.
pub fn links(jaxpr: &Jaxpr) -> bool {
    jaxlite::loops::whiles_on_machine(jaxpr)
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

/// Compiles a Jaxpr that [`links`] accepts into one program, with every piece's stages.
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
    // Where each variable is last read: an equation's index, or past the end for an output.
    let mut last_read: HashMap<Var, usize> = HashMap::new();
    for (i, eqn) in jaxpr.eqns.iter().enumerate() {
        last_read.extend(eqn.inputs.iter().filter_map(var).map(|v| (v, i)));
    }
    last_read.extend(jaxpr.outvars.iter().filter_map(var).map(|v| (v, usize::MAX)));
    let (mut parts, mut whiles) = (0, 0);
    let mut i = 0;
    while i < jaxpr.eqns.len() {
        if let Primitive::While { function } = &jaxpr.eqns[i].prim {
            whiles += 1;
            l.while_loop(&format!("{name}/while{whiles}"), jaxpr, &jaxpr.eqns[i], function)?;
            i += 1;
            continue;
        }
        let end = (i..jaxpr.eqns.len())
            .find(|&j| matches!(jaxpr.eqns[j].prim, Primitive::While { .. }))
            .unwrap_or(jaxpr.eqns.len());
        parts += 1;
        let part = straight_part(jaxpr, i..end, &last_read);
        if !part.outvars.is_empty() {
            let ins: Vec<u32> = part.invars.iter().map(|v| l.at[v]).collect();
            let outs = l.piece(&format!("{name}/part{parts}"), &part, &ins)?;
            for (a, g) in part.outvars.iter().zip(outs) {
                l.at.insert(var(a).expect("a part's outputs are variables"), g);
            }
        }
        i = end;
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

/// The equations `range` of `jaxpr` as a Jaxpr: its inputs the variables they read from
/// earlier, its outputs those they define that are read later.
fn straight_part(jaxpr: &Jaxpr, range: std::ops::Range<usize>, last_read: &HashMap<Var, usize>) -> Jaxpr {
    let eqns = jaxpr.eqns[range.clone()].to_vec();
    let defined: std::collections::HashSet<Var> = eqns.iter().flat_map(|e| e.outputs.iter().copied()).collect();
    let mut invars: Vec<Var> = Vec::new();
    for v in eqns.iter().flat_map(|e| e.inputs.iter().filter_map(var)) {
        if !defined.contains(&v) && !invars.contains(&v) {
            invars.push(v);
        }
    }
    let outvars: Vec<Atom> = eqns
        .iter()
        .flat_map(|e| e.outputs.iter().copied())
        .filter(|v| last_read.get(v).is_some_and(|&at| at >= range.end))
        .map(Atom::Var)
        .collect();
    let used = invars.iter().copied().chain(defined);
    let types = used.map(|v| (v, jaxpr.aval(v).clone())).collect();
    Jaxpr { constvars: vec![], invars, eqns, outvars, types }
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

    /// Compiles a straight-line `jaxpr` whose inputs live at `inputs` and appends its
    /// instructions, moved onto those buffers; returns where each of its outputs lives.
    fn piece(&mut self, name: &str, jaxpr: &Jaxpr, inputs: &[u32]) -> Result<Vec<u32>, CompileError> {
        let stages = compile_stages(name, jaxpr, self.opts)?;
        let q = stages.program;
        self.hlo.push_str(&format!("# {name}\n{}\n", stages.hlo.trim_end()));
        self.fused.push_str(&format!("# {name}\n{}\n", stages.fused.trim_end()));
        let private = self.alloc(q.hbm_words);
        // (first word, one past the last, where it moves to) of each input and output.
        let mut regions: Vec<(u32, u32, u32)> =
            q.inputs.iter().zip(inputs).map(|(b, &g)| (b.addr, b.addr + b.words().max(1), g)).collect();
        let mut outputs = Vec::new();
        for b in &q.outputs {
            let (lo, hi) = (b.addr, b.addr + b.words().max(1));
            // An output that is an input (or a view of one) is that input's buffer: values
            // never change once written, so sharing is safe.
            let global = match regions[..q.inputs.len()].iter().find(|r| r.0 <= lo && hi <= r.1) {
                Some(r) => r.2 + (lo - r.0),
                None => {
                    let g = self.alloc(hi - lo);
                    regions.push((lo, hi, g));
                    g
                }
            };
            outputs.push(global);
        }
        let relocate = |a: &Addr| {
            let base = match regions.iter().find(|r| r.0 <= a.base && a.base < r.1) {
                Some(r) => r.2 + (a.base - r.0),
                None => private + a.base,
            };
            Addr { base, ..a.clone() }
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

    /// Copies `words` words of HBM from `from` to `to`, through VMEM.
    fn copy(&mut self, from: u32, to: u32, words: u32) {
        let chunk = words.min(COPY_WORDS);
        self.vmem_words = self.vmem_words.max(chunk);
        let (full, tail) = (words / chunk, words % chunk);
        let step = |l: &mut Linker, from: Addr, to: Addr, n: u32| {
            let vmem: Block = Block::<u32>::flat(0, n).into();
            l.instrs.push(Instr::DmaLoad {
                src: Block { addr: from, rows: 1, cols: n, stride: n },
                dst: vmem.clone(),
                sem: SEM_LINK,
            });
            l.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
            l.instrs.push(Instr::DmaStore {
                src: vmem.clone(),
                dst: Block { addr: to, rows: 1, cols: n, stride: n },
                sem: SEM_LINK,
            });
            l.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        };
        if full > 1 {
            // The copy loop's index is the depth of the loops open around it: none, since
            // pieces close theirs and `while` opens no index.
            self.instrs.push(Instr::Loop { count: full });
            let strided = |base: u32| Addr { base, strides: vec![(0, chunk as i32)], scalars: vec![] };
            step(self, strided(from), strided(to), chunk);
            self.instrs.push(Instr::End);
        } else if full == 1 {
            step(self, from.into(), to.into(), chunk);
        }
        if tail > 0 {
            step(self, (from + full * chunk).into(), (to + full * chunk).into(), tail);
        }
    }

    /// The condition on the carries, its predicate loaded into the register `while` tests.
    fn condition(&mut self, name: &str, w: &WhileLoop, consts: &[u32], carries: &[u32]) -> Result<(), CompileError> {
        let ins: Vec<u32> = consts.iter().chain(carries).copied().collect();
        let predicate = self.piece(&format!("{name}/cond"), &w.cond, &ins)?[0];
        let word = Block::<u32>::flat(0, 1).into();
        self.instrs.push(Instr::DmaLoad { src: Block::<u32>::flat(predicate, 1).into(), dst: word, sem: SEM_LINK });
        self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        self.instrs.push(Instr::ScalarLoad { src: 0.into(), dst: PREDICATE });
        Ok(())
    }

    fn while_loop(&mut self, name: &str, jaxpr: &Jaxpr, eqn: &jaxlite::Eqn, w: &WhileLoop) -> Result<(), CompileError> {
        let operands: Vec<u32> = eqn.inputs.iter().map(|a| self.atom(a)).collect::<Result<_, _>>()?;
        let [cond_consts, body_consts, init] = w.split(&operands);
        let sizes: Vec<u32> = eqn.outputs.iter().map(|&v| words(&jaxpr.aval(v).shape)).collect();
        let carries: Vec<u32> = sizes.iter().map(|&n| self.alloc(n)).collect();
        for ((&from, &to), &n) in init.iter().zip(&carries).zip(&sizes) {
            self.copy(from, to, n);
        }
        let (cond_consts, body_consts) = (cond_consts.to_vec(), body_consts.to_vec());
        self.condition(name, w, &cond_consts, &carries)?;
        self.instrs.push(Instr::While { cond: PREDICATE });
        let ins: Vec<u32> = body_consts.iter().chain(&carries).copied().collect();
        let next = self.piece(&format!("{name}/body"), &w.body, &ins)?;
        // A new carry that is an old one (the body passes it through, or swaps two) must be
        // read before any carry is overwritten: such ones go through a buffer of their own.
        let mut staged = Vec::new();
        for (k, (&n, &size)) in next.iter().zip(&sizes).enumerate() {
            let overlaps = |(j, (&c, &s)): (usize, (&u32, &u32))| j != k && n < c + s && c < n + size;
            if carries.iter().zip(&sizes).enumerate().any(overlaps) {
                let fresh = self.alloc(size);
                self.copy(n, fresh, size);
                staged.push(fresh);
            } else {
                staged.push(n);
            }
        }
        for ((&from, &to), &n) in staged.iter().zip(&carries).zip(&sizes) {
            if from != to {
                self.copy(from, to, n);
            }
        }
        self.condition(name, w, &cond_consts, &carries)?;
        self.instrs.push(Instr::End);
        for (&v, &c) in eqn.outputs.iter().zip(&carries) {
            self.at.insert(v, c);
        }
        Ok(())
    }
}
