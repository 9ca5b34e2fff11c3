//! A program with loops, branches and windows at computed positions, as one program for the
//! machine: `while_loop`, `scan` and `cond` run on the scalar unit (`while s0 … end`,
//! `if s2 … else … end`), each body and branch compiled once whatever the trip count, and a
//! `dynamic_slice` or `dynamic_update_slice` at a traced index moves just its window, by DMAs
//! at an address the scalar unit computes from the index (`hbm[BASE+1*s4]`).
//!
//! A Jaxpr (the program, or a loop's condition or body, or a branch: a *block*) is cut into
//! straight-line parts and those equations, as `jaxlite::loops` cuts it to run by parts; each
//! straight-line part is compiled by the usual passes on its own, and the pieces are linked:
//! every variable lives in one HBM buffer of the linked program, each piece's HBM addresses
//! are moved onto the buffers of the variables it reads and writes (its temporaries onto a
//! region of its own), and a loop is
//!
//! ```text
//!   copy the initial carries into the first of two sets of carry buffers
//!   condition; load its predicate into s0
//!   while s0
//!     body (reading the carries from one set, writing the new ones into the other)
//!     swap the sets (two registers say which is which)
//!     condition; load its predicate into s0
//!   end
//!   copy the carries out of the set that holds them
//! ```
//!
//! A `scan` is the same loop on a row counter (`s.lt s5, LENGTH -> s0`), its body reading
//! the counter's row of each `xs` at an address the counter moves (`hbm[BASE+ROW*s5]`) and its
//! rows of `ys` written to such addresses; a `cond` loads its index into `s1`, clamped to the
//! branches, and runs one branch in nested `if`s, each branch writing its results into the
//! same buffers. A body or branch is a block too, so loops and branches nest: each level of
//! loop has registers of its own for its row and its carry sets (`s5..s7`, `s8..s10`,
//! `s11..s13`), up to `jaxlite::loops::MACHINE_LOOP_DEPTH` levels.
//!
//! Pieces run one after another and each waits for its own DMAs before it ends, so they share
//! VMEM from address 0 and no semaphore crosses from one to the next.

use crate::emit::offset;
use crate::hlo::Elem;
use crate::{compile_stages, CompileError, CompileOptions};
use isa::{Addr, Block, ElemType, Instr, Operand, Program, ScalarOp, ScalarOperand, VectorOp};
use jaxlite::control::{Branches, ScanLoop, WhileLoop};
use jaxlite::loops::{is_window, last_reads, straight_part, MACHINE_LOOP_DEPTH};
use jaxlite::transform::window_starts;
use jaxlite::{Atom, Aval, DType, Eqn, Jaxpr, Primitive, Var};
use std::collections::HashMap;

/// The semaphore of the linker's own DMAs (the compiler's kernels use 0 to 2).
const SEM_LINK: u8 = 7;
/// The most words a copy moves through VMEM at a time (4 MiB; at most a quarter of VMEM): a
/// DMA's latency (hundreds of cycles) is small beside moving that many, so one load and one
/// store after another keep HBM nearly as busy as a pipelined kernel would.
const COPY_WORDS: u32 = 1 << 20;
/// The register a loop's predicate is loaded into. Loops share it: an inner loop leaves it
/// false, and the outer loop computes its own again before its `end` tests it.
const PREDICATE: u8 = 0;
/// The register a `cond`'s index is loaded into, and the one its comparisons leave. Nested
/// conds share them: a cond reads its index only before any of its branches runs.
const INDEX: u8 = 1;
const IS_BRANCH: u8 = 2;
/// A window's start along one axis, and the window's offset in words (all axes summed).
const START: u8 = 3;
const OFFSET: u8 = 4;

/// The registers of a loop inside `depth` others: the row a `scan` is at, and which of its two
/// sets of carry buffers holds the carries now (0 or 1) and which the body writes.
#[derive(Clone, Copy)]
struct LoopRegisters {
    row: u8,
    now: u8,
    next: u8,
}

impl LoopRegisters {
    fn at(depth: usize) -> Result<LoopRegisters, CompileError> {
        if depth >= MACHINE_LOOP_DEPTH {
            return Err(err(format!(
                "internal error: loops nest {} deep, and the machine's registers hold {MACHINE_LOOP_DEPTH}",
                depth + 1
            )));
        }
        let row = 5 + 3 * depth as u8;
        Ok(LoopRegisters { row, now: row + 1, next: row + 2 })
    }
}

fn err(message: impl Into<String>) -> CompileError {
    CompileError { message: message.into() }
}

struct Linker<'a> {
    opts: &'a CompileOptions,
    instrs: Vec<Instr>,
    hbm_top: u32,
    vmem_words: u32,
    flops: Vec<isa::Flops>,
    hlo: String,
    fused: String,
    traffic: jaxlite::cost::CostAnalysis,
}

/// Compiles a Jaxpr that `jaxlite::loops::control_on_machine` accepts into one program, with every piece's stages.
pub fn link(name: &str, jaxpr: &Jaxpr, opts: &CompileOptions) -> Result<crate::Compiled, CompileError> {
    let mut l = Linker {
        opts,
        instrs: Vec::new(),
        hbm_top: 0,
        vmem_words: 1,
        flops: Vec::new(),
        hlo: String::new(),
        fused: String::new(),
        traffic: jaxlite::cost::CostAnalysis::default(),
    };
    let mut inputs = Vec::new();
    let mut at = Vec::new();
    for (i, v) in jaxpr.all_inputs().enumerate() {
        let aval = jaxpr.aval(v);
        let size = size(aval);
        let addr = l.place(size);
        at.push(Addr::from(addr));
        inputs.push(isa::Buffer { name: format!("in{i}"), addr, shape: aval.shape.clone(), elem: size.elem });
    }
    let results = l.block(name, jaxpr, &at, &[], 0)?;
    let mut outputs = Vec::new();
    for (i, (a, g)) in jaxpr.outvars.iter().zip(results).enumerate() {
        if !g.scalars.is_empty() || !g.strides.is_empty() {
            return Err(err(format!("internal error: output {i} of {name} is at a moving address {g:?}")));
        }
        let aval = jaxpr.atom_aval(a);
        outputs.push(isa::Buffer {
            name: format!("out{i}"),
            addr: g.base,
            shape: aval.shape.clone(),
            elem: size(aval).elem,
        });
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
    Ok(crate::Compiled { hlo: l.hlo, fused: l.fused, traffic: l.traffic, program })
}

fn var(a: &Atom) -> Option<Var> {
    match a {
        Atom::Var(v) => Some(*v),
        Atom::Literal(_) => None,
    }
}

/// How many elements a buffer holds (at least one) and how HBM holds them: every variable's
/// buffer is typed by its dtype, bf16 packed two to a word, its addresses counting elements
/// (the pieces' programs type their buffers the same way).
#[derive(Clone, Copy, Debug)]
struct Size {
    elements: u32,
    elem: ElemType,
}

fn size(aval: &Aval) -> Size {
    Size { elements: (aval.shape.iter().product::<usize>() as u32).max(1), elem: Elem::of(aval.dtype).in_hbm() }
}

/// The size of each variable's buffer.
fn sizes(jaxpr: &Jaxpr, vars: &[Var]) -> Vec<Size> {
    vars.iter().map(|&v| size(jaxpr.aval(v))).collect()
}

/// Whether the linker, not a piece, compiles `eqn`.
fn linked(eqn: &Eqn) -> bool {
    matches!(eqn.prim, Primitive::While { .. } | Primitive::Scan { .. } | Primitive::Cond { .. }) || is_window(eqn)
}

/// `a` moved by `elements` more elements (of its buffer's type) for each unit of register `register`.
fn plus_register(a: &Addr, register: u8, elements: i32) -> Addr {
    let mut a = a.clone();
    a.scalars.push((register, elements));
    a
}

/// One axis of a window, as [`Linker::move_window`] walks it: `count` steps, `from` and `to`
/// words apart in the source and the destination.
#[derive(Clone, Copy, Debug)]
struct Axis {
    count: u32,
    from: u32,
    to: u32,
}

/// A window of `window` in an array of `shape` (both row-major) as the axes that step through
/// it (outermost first, axes of one dropped) and the run of contiguous words at each step;
/// the axes' `from` strides are the array's and their `to` strides the window's own.
fn window_layout(shape: &[usize], window: &[usize]) -> (Vec<Axis>, u32) {
    let stride = |dims: &[usize], k: usize| dims[k + 1..].iter().product::<usize>() as u32;
    let mut axes: Vec<Axis> = (0..shape.len())
        .filter(|&k| window[k] > 1)
        .map(|k| Axis { count: window[k] as u32, from: stride(shape, k), to: stride(window, k) })
        .collect();
    // The innermost axes whose window spans everything inside them are one run.
    let mut run = 1;
    while let Some(&a) = axes.last() {
        if a.from != run {
            break;
        }
        run *= a.count;
        axes.pop();
    }
    (axes, run)
}

impl Linker<'_> {
    /// `words` words of HBM; their first word's address.
    fn alloc(&mut self, words: u32) -> u32 {
        let a = self.hbm_top;
        self.hbm_top = self.hbm_top.saturating_add(words);
        a
    }

    /// A buffer of `size`; its address in its elements (past the 32-bit range, saturated:
    /// the linked program then fails validation, naming the address).
    fn place(&mut self, size: Size) -> u32 {
        let word = self.alloc(size.elem.words(size.elements as u64) as u32);
        size.elem.at_word(word)
    }

    /// The buffer holding an operand: a variable's, or a literal's, written into a buffer of
    /// its own where it is needed.
    fn atom(&mut self, at: &HashMap<Var, Addr>, a: &Atom) -> Result<Addr, CompileError> {
        match a {
            Atom::Var(v) => at.get(v).cloned().ok_or_else(|| err(format!("internal error: {v:?} has no buffer"))),
            Atom::Literal(l) => {
                let word = if l.aval.dtype == DType::U32 { l.value as i64 as u32 } else { (l.value as f32).to_bits() };
                let elem = size(&l.aval).elem;
                let g = self.place(Size { elements: 1, elem });
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
                    elem,
                });
                self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
                Ok(g.into())
            }
        }
    }

    /// Buffers for values of these sizes: the wanted ones where given, else new ones.
    fn buffers(&mut self, sizes: &[Size], wanted: &[Option<Addr>]) -> Vec<Addr> {
        sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| wanted.get(k).cloned().flatten().unwrap_or_else(|| self.place(n).into()))
            .collect()
    }

    /// Compiles `jaxpr`, inside `depth` loops, on inputs at `inputs` (addresses registers may
    /// move: a scan's row, a carry set) and appends its instructions; each output is written
    /// to its `dests` where one is given, else to a buffer of its own. Returns where each
    /// output is.
    fn block(
        &mut self,
        name: &str,
        jaxpr: &Jaxpr,
        inputs: &[Addr],
        dests: &[Option<Addr>],
        depth: usize,
    ) -> Result<Vec<Addr>, CompileError> {
        let outs = if jaxpr.eqns.iter().any(linked) {
            self.linked_block(name, jaxpr, inputs, dests, depth)?
        } else {
            self.piece(name, jaxpr, inputs, dests)?
        };
        // An output that is an input, a literal or a value returned twice is elsewhere.
        let mut landed = Vec::with_capacity(outs.len());
        for (k, (out, a)) in outs.into_iter().zip(&jaxpr.outvars).enumerate() {
            match dests.get(k).cloned().flatten() {
                Some(d) if d != out => {
                    self.copy(out, d.clone(), size(jaxpr.atom_aval(a)));
                    landed.push(d);
                }
                _ => landed.push(out),
            }
        }
        Ok(landed)
    }

    /// A block with loops, branches or windows: its straight-line parts compiled as pieces,
    /// the rest by the linker. A value the block returns is written where it is wanted as it
    /// is made, where that is possible.
    fn linked_block(
        &mut self,
        name: &str,
        jaxpr: &Jaxpr,
        inputs: &[Addr],
        dests: &[Option<Addr>],
        depth: usize,
    ) -> Result<Vec<Addr>, CompileError> {
        let mut at: HashMap<Var, Addr> = jaxpr.all_inputs().zip(inputs.iter().cloned()).collect();
        let mut wanted: HashMap<Var, Addr> = HashMap::new();
        for (a, d) in jaxpr.outvars.iter().zip(dests) {
            if let (Some(v), Some(d)) = (var(a), d) {
                if !at.contains_key(&v) {
                    wanted.entry(v).or_insert_with(|| d.clone());
                }
            }
        }
        let last_read = last_reads(jaxpr);
        let (mut parts, mut whiles, mut scans, mut conds) = (0, 0, 0, 0);
        let mut i = 0;
        while i < jaxpr.eqns.len() {
            let eqn = &jaxpr.eqns[i];
            if !linked(eqn) {
                let end = (i..jaxpr.eqns.len()).find(|&j| linked(&jaxpr.eqns[j])).unwrap_or(jaxpr.eqns.len());
                parts += 1;
                let part = straight_part(jaxpr, i..end, &last_read);
                if !part.outvars.is_empty() {
                    let ins: Vec<Addr> = part.invars.iter().map(|v| at[v].clone()).collect();
                    let dests: Vec<Option<Addr>> =
                        part.outvars.iter().map(|a| var(a).and_then(|v| wanted.get(&v).cloned())).collect();
                    let outs = self.piece(&format!("{name}/part{parts}"), &part, &ins, &dests)?;
                    for (a, g) in part.outvars.iter().zip(outs) {
                        at.insert(var(a).expect("a part's outputs are variables"), g);
                    }
                }
                i = end;
                continue;
            }
            // A window reads its constant starts as immediates: only its values need buffers.
            let read = window_starts(&eqn.prim).unwrap_or(eqn.inputs.len());
            let mut site = Site {
                name: String::new(),
                jaxpr,
                eqn,
                operands: eqn.inputs[..read].iter().map(|a| self.atom(&at, a)).collect::<Result<_, _>>()?,
                wanted: eqn.outputs.iter().map(|v| wanted.get(v).cloned()).collect(),
                depth,
            };
            let outs = match &eqn.prim {
                Primitive::While { function } => {
                    whiles += 1;
                    site.name = format!("{name}/while{whiles}");
                    self.while_loop(&site, function)?
                }
                Primitive::Scan { function } => {
                    scans += 1;
                    site.name = format!("{name}/scan{scans}");
                    self.scan(&site, function)?
                }
                Primitive::Cond { function } => {
                    conds += 1;
                    site.name = format!("{name}/cond{conds}");
                    self.cond(&site, function)?
                }
                _ => {
                    let starts: Vec<Start> = eqn.inputs[read..]
                        .iter()
                        .map(|a| match a {
                            Atom::Literal(l) => Ok(Start::Constant(l.value)),
                            a => self.atom(&at, a).map(Start::At),
                        })
                        .collect::<Result<_, _>>()?;
                    vec![self.window(&site, &starts)?]
                }
            };
            at.extend(eqn.outputs.iter().copied().zip(outs));
            i += 1;
        }
        jaxpr.outvars.iter().map(|a| self.atom(&at, a)).collect()
    }

    /// Compiles a straight-line `jaxpr` whose inputs live at `inputs` and appends its
    /// instructions, moved onto those buffers; its outputs are written to `dests` where one
    /// is given (else to buffers of their own). Returns where each output lives: an output
    /// that is an input, or one returned twice, is not at its destination.
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
        self.traffic.add(&stages.traffic);
        let private = self.alloc(q.hbm_words);
        // (first element, one past the last, how HBM holds them, where they move to) of each
        // input and output; addresses count the region's elements, so a DMA only ever falls in
        // a region of its own element type.
        let mut regions: Vec<(u32, u32, ElemType, Addr)> = q
            .inputs
            .iter()
            .zip(inputs)
            .map(|(b, g)| (b.addr, b.addr + b.elements().max(1), b.elem, g.clone()))
            .collect();
        let moved = |r: &(u32, u32, ElemType, Addr), at: u32| Addr { base: r.3.base + (at - r.0), ..r.3.clone() };
        let mut outputs = Vec::new();
        for (j, b) in q.outputs.iter().enumerate() {
            let (lo, hi) = (b.addr, b.addr + b.elements().max(1));
            // An output that is an input (or a view of one), or another output (a value
            // returned twice), is that one's buffer: values never change once written, so
            // sharing is safe.
            let global = match regions.iter().find(|r| r.2 == b.elem && r.0 <= lo && hi <= r.1) {
                Some(r) => moved(r, lo),
                None => {
                    let g = match dests.get(j).cloned().flatten() {
                        Some(d) => d,
                        None => Addr::from(self.place(Size { elements: hi - lo, elem: b.elem })),
                    };
                    regions.push((lo, hi, b.elem, g.clone()));
                    g
                }
            };
            outputs.push(global);
        }
        // The piece's temporaries move onto its private words.
        let relocate = |a: &Addr, elem: ElemType| {
            let to = match regions.iter().find(|r| r.2 == elem && r.0 <= a.base && a.base < r.1) {
                Some(r) => moved(r, a.base),
                None => Addr::from(elem.at_word(private).saturating_add(a.base)),
            };
            Addr { base: to.base, strides: a.strides.clone(), scalars: to.scalars }
        };
        // Each piece's flops count when its instructions run: a loop body's once per trip.
        let base = self.instrs.len() as u32;
        self.flops.extend(q.flops.iter().map(|f| isa::Flops { instr: base + f.instr, ..*f }));
        for instr in &q.instrs {
            self.instrs.push(match instr {
                Instr::DmaLoad { src, dst, sem, elem } => Instr::DmaLoad {
                    src: Block { addr: relocate(&src.addr, *elem), ..src.clone() },
                    dst: dst.clone(),
                    sem: *sem,
                    elem: *elem,
                },
                Instr::DmaStore { src, dst, sem, elem } => Instr::DmaStore {
                    src: src.clone(),
                    dst: Block { addr: relocate(&dst.addr, *elem), ..dst.clone() },
                    sem: *sem,
                    elem: *elem,
                },
                other => other.clone(),
            });
        }
        self.vmem_words = self.vmem_words.max(q.vmem_words);
        Ok(outputs)
    }

    fn scalar(&mut self, op: ScalarOp, a: ScalarOperand, b: ScalarOperand, dst: u8) {
        self.instrs.push(Instr::Scalar { op, a, b, dst });
    }

    /// `dst = value`.
    fn set(&mut self, dst: u8, value: i32) {
        self.scalar(ScalarOp::Add, ScalarOperand::Imm(value), ScalarOperand::Imm(0), dst);
    }

    /// Loads the word at HBM `at` into register `dst`.
    fn load_scalar(&mut self, at: Addr, dst: u8) {
        let word = Block::<u32>::flat(0, 1).into();
        self.instrs.push(Instr::DmaLoad {
            src: Block { addr: at, rows: 1, cols: 1, stride: 1 },
            dst: word,
            sem: SEM_LINK,
            elem: ElemType::F32,
        });
        self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        self.instrs.push(Instr::ScalarLoad { src: 0.into(), dst });
    }

    /// Two sets of buffers for a loop's carries, holding `init` at first (see [`Carries`]).
    fn carries(&mut self, init: &[Addr], sizes: &[Size], registers: LoopRegisters) -> Carries {
        let a: Vec<u32> = sizes.iter().map(|&n| self.place(n)).collect();
        let b: Vec<u32> = sizes.iter().map(|&n| self.place(n)).collect();
        for ((from, &to), &n) in init.iter().zip(&a).zip(sizes) {
            self.copy(from.clone(), to.into(), n);
        }
        self.set(registers.now, 0);
        self.set(registers.next, 1);
        Carries { a, b, sizes: sizes.to_vec(), registers }
    }

    /// After a trip, whose body wrote the new carries into the next set: that set becomes
    /// the current one.
    fn swap(&mut self, carries: &Carries) {
        let LoopRegisters { now, next, .. } = carries.registers;
        self.scalar(ScalarOp::Sub, ScalarOperand::Imm(1), ScalarOperand::Reg(now), now);
        self.scalar(ScalarOp::Sub, ScalarOperand::Imm(1), ScalarOperand::Reg(now), next);
    }

    /// After the loop: the final carries, from whichever set holds them, into the buffers
    /// wanted for them or buffers of their own (where the loop's results live).
    fn final_carries(&mut self, carries: &Carries, wanted: &[Option<Addr>]) -> Vec<Addr> {
        let results = self.buffers(&carries.sizes, wanted);
        for (k, to) in results.iter().enumerate() {
            self.copy(carries.now(k), to.clone(), carries.sizes[k]);
        }
        results
    }

    /// The words one step of a copy moves: [`COPY_WORDS`], or a quarter of VMEM if less.
    fn copy_words(&self) -> u32 {
        COPY_WORDS.min(self.opts.vmem_words / 4).max(1)
    }

    /// Copies a buffer of `size` in HBM from `from` to `to`, through VMEM.
    fn copy(&mut self, from: Addr, to: Addr, size: Size) {
        self.move_window(from, to, &[], size.elements, size.elem);
    }

    /// Moves a window from HBM to HBM through VMEM: at each step of `axes` (outermost first),
    /// `run` contiguous elements (held in HBM as `elem`) from `from` to `to`, each axis moving
    /// them by its strides. As many rows of the innermost axis go at once as fit in
    /// [`Linker::copy_words`] (a word each in VMEM); the other axes are loops.
    fn move_window(&mut self, from: Addr, to: Addr, axes: &[Axis], run: u32, elem: ElemType) {
        let axes: Vec<Axis> = axes.iter().copied().filter(|a| a.count > 1).collect();
        let chunk = self.copy_words();
        if run > chunk {
            // A long run is cut into runs that fit, and a tail.
            let (full, tail) = (run / chunk, run % chunk);
            let mut cut = axes.clone();
            cut.push(Axis { count: full, from: chunk, to: chunk });
            self.move_window(from.clone(), to.clone(), &cut, chunk, elem);
            if tail > 0 {
                let done = full * chunk;
                self.move_window(offset(&from, done), offset(&to, done), &axes, tail, elem);
            }
            return;
        }
        let (rows, loops) = match axes.split_last() {
            Some((&rows, outer)) => {
                let fit = chunk / run;
                if fit == 1 {
                    // One row at a time: every axis is a loop.
                    (Axis { count: 1, from: run, to: run }, axes.clone())
                } else if rows.count > fit {
                    // Too many rows for one block: blocks of `fit` rows, and a tail.
                    let (full, tail) = (rows.count / fit, rows.count % fit);
                    let mut cut = outer.to_vec();
                    cut.push(Axis { count: full, from: rows.from * fit, to: rows.to * fit });
                    cut.push(Axis { count: fit, ..rows });
                    self.move_window(from.clone(), to.clone(), &cut, run, elem);
                    if tail > 0 {
                        let mut rest = outer.to_vec();
                        rest.push(Axis { count: tail, ..rows });
                        self.move_window(
                            offset(&from, full * fit * rows.from),
                            offset(&to, full * fit * rows.to),
                            &rest,
                            run,
                            elem,
                        );
                    }
                    return;
                } else {
                    (rows, outer.to_vec())
                }
            }
            None => (Axis { count: 1, from: run, to: run }, Vec::new()),
        };
        self.vmem_words = self.vmem_words.max(rows.count * run);
        // The loops' indices are their depth among the loops open here: only these, since
        // pieces close theirs and `while` and `if` open no index.
        let looped = |a: &Addr, stride: fn(&Axis) -> u32| Addr {
            strides: loops.iter().enumerate().map(|(d, axis)| (d as u8, stride(axis) as i32)).collect(),
            ..a.clone()
        };
        for axis in &loops {
            self.instrs.push(Instr::Loop { count: axis.count });
        }
        let vmem = Block { addr: Addr::from(0), rows: rows.count, cols: run, stride: run };
        let src = Block { addr: looped(&from, |a| a.from), rows: rows.count, cols: run, stride: rows.from };
        let dst = Block { addr: looped(&to, |a| a.to), rows: rows.count, cols: run, stride: rows.to };
        self.instrs.push(Instr::DmaLoad { src, dst: vmem.clone(), sem: SEM_LINK, elem });
        self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        self.instrs.push(Instr::DmaStore { src: vmem, dst, sem: SEM_LINK, elem });
        self.instrs.push(Instr::Wait { sem: SEM_LINK, count: 1 });
        for _ in &loops {
            self.instrs.push(Instr::End);
        }
    }

    /// A `dynamic_slice` or `dynamic_update_slice` at computed indices (`starts`): each index loaded
    /// into a register and clamped as XLA clamps it (so the window fits), the window's offset
    /// summed in `s4`, and the window moved by DMAs at that offset. An update copies its
    /// operand first, then writes the update into the copy: values never change once
    /// written.
    fn window(&mut self, site: &Site, starts: &[Start]) -> Result<Addr, CompileError> {
        let Site { jaxpr, eqn, operands, .. } = site;
        let update = matches!(eqn.prim, Primitive::DynamicUpdateSlice);
        let shape = &jaxpr.atom_aval(&eqn.inputs[0]).shape;
        let window = if update { &jaxpr.atom_aval(&eqn.inputs[1]).shape } else { &jaxpr.aval(eqn.outputs[0]).shape };
        let result = self.buffers(&sizes(jaxpr, &eqn.outputs), &site.wanted).remove(0);
        let elem = size(jaxpr.atom_aval(&eqn.inputs[0])).elem;
        if update {
            self.copy(operands[0].clone(), result.clone(), size(jaxpr.atom_aval(&eqn.inputs[0])));
        }
        let mut fixed = 0u32;
        let mut computed = false;
        for (k, start) in starts.iter().enumerate() {
            let last = (shape[k] - window[k]) as i32;
            let stride = shape[k + 1..].iter().product::<usize>() as i32;
            match start {
                Start::Constant(value) => fixed += (value.clamp(0.0, last as f64) as i32 * stride) as u32,
                // A window as long as its axis starts at 0, wherever it is asked to.
                Start::At(_) if last == 0 => {}
                Start::At(start) => {
                    self.load_scalar(start.clone(), START);
                    self.scalar(ScalarOp::Max, ScalarOperand::Reg(START), ScalarOperand::Imm(0), START);
                    self.scalar(ScalarOp::Min, ScalarOperand::Reg(START), ScalarOperand::Imm(last), START);
                    if stride != 1 {
                        self.scalar(ScalarOp::Mul, ScalarOperand::Reg(START), ScalarOperand::Imm(stride), START);
                    }
                    let sum = if computed { ScalarOperand::Reg(OFFSET) } else { ScalarOperand::Imm(0) };
                    self.scalar(ScalarOp::Add, sum, ScalarOperand::Reg(START), OFFSET);
                    computed = true;
                }
            }
        }
        if !computed {
            self.set(OFFSET, 0);
        }
        let (axes, run) = window_layout(shape, window);
        if update {
            let at = plus_register(&offset(&result, fixed), OFFSET, 1);
            let axes: Vec<Axis> = axes.iter().map(|a| Axis { from: a.to, to: a.from, ..*a }).collect();
            self.move_window(operands[1].clone(), at, &axes, run, elem);
        } else {
            let at = plus_register(&offset(&operands[0], fixed), OFFSET, 1);
            self.move_window(at, result.clone(), &axes, run, elem);
        }
        Ok(result)
    }

    /// The condition on the carries, its predicate loaded into the register `while` tests.
    /// Returns its instructions, which the loop runs again after each trip: the carries it
    /// reads are wherever the loop's registers say, so the same instructions serve every test.
    fn condition(
        &mut self,
        name: &str,
        w: &WhileLoop,
        consts: &[Addr],
        carries: &Carries,
        depth: usize,
    ) -> Result<Vec<Instr>, CompileError> {
        let start = self.instrs.len();
        let ins: Vec<Addr> = consts.iter().cloned().chain(carries.all_now()).collect();
        let predicate = self.block(&format!("{name}/cond"), &w.cond, &ins, &[], depth + 1)?.remove(0);
        self.load_scalar(predicate, PREDICATE);
        Ok(self.instrs[start..].to_vec())
    }

    fn while_loop(&mut self, site: &Site, w: &WhileLoop) -> Result<Vec<Addr>, CompileError> {
        let Site { name, jaxpr, eqn, operands, wanted, depth } = site;
        let depth = *depth;
        let registers = LoopRegisters::at(depth)?;
        let [cond_consts, body_consts, init] = w.split(operands);
        let carries = self.carries(init, &sizes(jaxpr, &eqn.outputs), registers);
        let test = self.condition(name, w, cond_consts, &carries, depth)?;
        self.instrs.push(Instr::While { cond: PREDICATE });
        let ins: Vec<Addr> = body_consts.iter().cloned().chain(carries.all_now()).collect();
        let dests: Vec<Option<Addr>> = carries.all_next().map(Some).collect();
        self.block(&format!("{name}/body"), &w.body, &ins, &dests, depth + 1)?;
        self.swap(&carries);
        self.instrs.extend(test);
        self.instrs.push(Instr::End);
        Ok(self.final_carries(&carries, wanted))
    }

    /// A scan: a `while` on a row counter, the body reading and writing the counter's rows.
    /// With `unroll` k > 1, as XLA compiles it: a loop whose every trip runs the body k times
    /// (k copies of its instructions, one row after another), then a loop of single steps for
    /// the rows left over.
    fn scan(&mut self, site: &Site, scan: &ScanLoop) -> Result<Vec<Addr>, CompileError> {
        let Site { name, jaxpr, eqn, operands, wanted, depth } = site;
        let depth = *depth;
        let registers = LoopRegisters::at(depth)?;
        let [consts, init, xs] = scan.split(operands);
        let (carry_outputs, y_outputs) = eqn.outputs.split_at(scan.carries);
        let ys = self.buffers(&sizes(jaxpr, y_outputs), &wanted[scan.carries..]);
        let carries = self.carries(init, &sizes(jaxpr, carry_outputs), registers);
        let body = &scan.body;
        // A row's elements: what the row counter moves each address by.
        let x_rows: Vec<u32> =
            body.invars[scan.consts + scan.carries..].iter().map(|&v| size(body.aval(v)).elements).collect();
        let y_rows: Vec<u32> = body.outvars[scan.carries..].iter().map(|a| size(body.atom_aval(a)).elements).collect();
        let row = |a: &Addr, elements: u32| plus_register(a, registers.row, elements as i32);
        let length = scan.length as i32;
        let (first, step) = if scan.reverse { (length - 1, -1) } else { (0, 1) };
        let k = scan.unroll.clamp(1, scan.length.max(1)) as i32;
        // The rows a loop covers end where the row counter reaches `bound`.
        let test = |l: &mut Linker, bound: i32| {
            if scan.reverse {
                l.scalar(ScalarOp::Ge, ScalarOperand::Reg(registers.row), ScalarOperand::Imm(bound), PREDICATE);
            } else {
                l.scalar(ScalarOp::Lt, ScalarOperand::Reg(registers.row), ScalarOperand::Imm(bound), PREDICATE);
            }
        };
        let ins: Vec<Addr> = consts
            .iter()
            .cloned()
            .chain(carries.all_now())
            .chain(xs.iter().zip(&x_rows).map(|(a, &n)| row(a, n)))
            .collect();
        // The body writes its carries into the next set and its rows of `ys` in place.
        let dests: Vec<Option<Addr>> =
            carries.all_next().map(Some).chain(ys.iter().zip(&y_rows).map(|(y, &n)| Some(row(y, n)))).collect();
        self.set(registers.row, first);
        // (the bound the row counter stops at, body copies a trip, their name): whole blocks
        // of k rows, then single rows for what is left (every row when k is 1).
        let mut loops = Vec::new();
        let done = length / k * k;
        if k > 1 && done > 0 {
            loops.push((if scan.reverse { length - done } else { done }, k, format!("{name}/body_unroll{k}")));
        }
        if k == 1 || done < length {
            loops.push((if scan.reverse { 0 } else { length }, 1, format!("{name}/body")));
        }
        for (bound, copies, part) in loops {
            test(self, bound);
            self.instrs.push(Instr::While { cond: PREDICATE });
            for copy in 0..copies {
                let part = if copies > 1 { format!("{part}/step{copy}") } else { part.clone() };
                self.block(&part, body, &ins, &dests, depth + 1)?;
                self.swap(&carries);
                self.scalar(ScalarOp::Add, ScalarOperand::Reg(registers.row), ScalarOperand::Imm(step), registers.row);
            }
            test(self, bound);
            self.instrs.push(Instr::End);
        }
        let mut results = self.final_carries(&carries, &wanted[..scan.carries]);
        results.extend(ys);
        Ok(results)
    }

    /// A cond: the index into `s1`, clamped to the branches as `Branches::taken` clamps it;
    /// branch k runs in the `if` of `s1 == k`, nested from the last branch down, branch 0 in
    /// the innermost `else`. Every branch writes its results into the same buffers.
    fn cond(&mut self, site: &Site, c: &Branches) -> Result<Vec<Addr>, CompileError> {
        let Site { name, jaxpr, eqn, operands, wanted, depth } = site;
        let depth = *depth;
        let Some((index, operands)) = operands.split_first() else {
            return Err(err("internal error: a cond without its index"));
        };
        let results = self.buffers(&sizes(jaxpr, &eqn.outputs), wanted);
        let last = c.branches.len() as i32 - 1;
        self.load_scalar(index.clone(), INDEX);
        self.scalar(ScalarOp::Max, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(0), INDEX);
        self.scalar(ScalarOp::Min, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(last), INDEX);
        let dests: Vec<Option<Addr>> = results.iter().cloned().map(Some).collect();
        for k in (0..c.branches.len()).rev() {
            if k > 0 {
                self.scalar(ScalarOp::Eq, ScalarOperand::Reg(INDEX), ScalarOperand::Imm(k as i32), IS_BRANCH);
                self.instrs.push(Instr::If { cond: IS_BRANCH });
            }
            self.block(&format!("{name}/branch{k}"), &c.branches[k], operands, &dests, depth)?;
            if k > 0 {
                self.instrs.push(Instr::Else);
            }
        }
        for _ in 1..c.branches.len() {
            self.instrs.push(Instr::End);
        }
        Ok(results)
    }
}

/// A window's start index along one axis: a constant, read as an immediate, or a value in a
/// buffer, loaded into a register.
enum Start {
    Constant(f64),
    At(Addr),
}

/// An equation the linker compiles itself, and where it is: its name (its pieces' prefix), the
/// Jaxpr holding it, its operands' buffers, the buffers its results are wanted in (where
/// known), and how many loops are around it.
struct Site<'j> {
    name: String,
    jaxpr: &'j Jaxpr,
    eqn: &'j Eqn,
    operands: Vec<Addr>,
    wanted: Vec<Option<Addr>>,
    depth: usize,
}

/// A loop's carries in two sets of buffers, `a` and `b`: the loop's `now` register says which
/// holds them now (0 for `a`) and its `next` register the other, which the body writes; each
/// trip swaps the registers, so no carry is copied back (an address `a + (b - a)·s` is either
/// set).
struct Carries {
    a: Vec<u32>,
    b: Vec<u32>,
    sizes: Vec<Size>,
    registers: LoopRegisters,
}

impl Carries {
    fn at(&self, k: usize, register: u8) -> Addr {
        Addr { base: self.a[k], strides: vec![], scalars: vec![(register, self.b[k] as i32 - self.a[k] as i32)] }
    }

    fn now(&self, k: usize) -> Addr {
        self.at(k, self.registers.now)
    }

    fn next(&self, k: usize) -> Addr {
        self.at(k, self.registers.next)
    }

    fn all_now(&self) -> impl Iterator<Item = Addr> + '_ {
        (0..self.a.len()).map(|k| self.now(k))
    }

    fn all_next(&self) -> impl Iterator<Item = Addr> + '_ {
        (0..self.a.len()).map(|k| self.next(k))
    }
}
