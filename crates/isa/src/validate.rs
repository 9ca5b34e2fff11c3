//! The validator: a program that passes can be executed by any backend without an access
//! leaving its memory, a matmul without weights, a loop without its end, or a wait that can
//! never be satisfied. What depends on values is checked as the program runs ([`crate::Ops`]):
//! an address offset by a scalar register, and how long a `while` runs.

use crate::{Addr, Block, ElemType, Instr, Program, ScalarOperand, MAX_LOOP_DEPTH, MAX_MXUS, SCALAR_REGS};
use std::fmt;

/// What is wrong with a program, naming the instruction (index into `Program::instrs`).
#[derive(Clone, Debug, PartialEq)]
pub struct IsaError {
    pub index: Option<usize>,
    pub message: String,
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "instruction {i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for IsaError {}

fn at(index: usize, message: impl Into<String>) -> IsaError {
    IsaError { index: Some(index), message: message.into() }
}

/// Checks that `addr` over every iteration of the open loops, plus `extent` words, stays
/// within `size` words.
/// A memory's size in the units a block's addresses count.
#[derive(Clone, Copy)]
struct Memory {
    size: u64,
    unit: &'static str,
}

impl Memory {
    fn words(size: u32) -> Memory {
        Memory { size: size as u64, unit: "words" }
    }

    /// HBM as a DMA moving `elem`s addresses it.
    fn hbm(words: u32, elem: ElemType) -> Memory {
        Memory { size: words as u64 * elem.per_word(), unit: elem.unit() }
    }
}

fn check_range(i: usize, what: &str, addr: &Addr, extent: u64, counts: &[u32], memory: Memory) -> Result<(), IsaError> {
    for &(depth, _) in &addr.strides {
        if depth as usize >= counts.len() {
            return Err(at(i, format!("{what} address uses i{depth} outside a loop of that depth")));
        }
    }
    for &(reg, _) in &addr.scalars {
        register(i, reg)?;
    }
    // A register's value is known only when the instruction runs: `Ops` checks it then.
    if !addr.scalars.is_empty() {
        return Ok(());
    }
    // Inside a loop that runs no times the instruction never runs, so nothing to check.
    if counts.contains(&0) {
        return Ok(());
    }
    let (lo, hi) = addr.range(counts).expect("depths checked above");
    // Every address must exist, even a block of no words' (the binary fuzzer found one whose
    // address went negative on the loop's second trip, which the emulator could not resolve).
    if lo < 0 || hi > u32::MAX as i64 {
        return Err(at(i, format!("{what} address (from {lo} to {hi}) leaves the 32-bit address space")));
    }
    let Memory { size, unit } = memory;
    if extent > 0 && hi as i128 + extent as i128 > size as i128 {
        return Err(at(
            i,
            format!("{what} ({unit} {lo}..{}) is outside its memory of {size} {unit}", hi as i128 + extent as i128),
        ));
    }
    Ok(())
}

fn check_block(i: usize, what: &str, b: &Block, counts: &[u32], memory: Memory) -> Result<(), IsaError> {
    if b.rows > 1 && b.stride < b.cols {
        return Err(at(i, format!("{what} rows overlap: stride {} is less than {} columns", b.stride, b.cols)));
    }
    check_range(i, what, &b.addr, b.extent(), counts, memory)
}

fn register(i: usize, reg: u8) -> Result<(), IsaError> {
    if reg < SCALAR_REGS {
        Ok(())
    } else {
        Err(at(i, format!("scalar register s{reg} is not below s{SCALAR_REGS}")))
    }
}

/// A block of structured control the validator is inside.
enum Open {
    Loop,
    /// A `while`, with the MXUs' weights before it: its body may run no times.
    While(Weights),
    /// An `if`: the MXUs' weights before it, and at the end of its first half once an `else`
    /// began the second.
    If {
        before: Weights,
        then: Option<Weights>,
    },
}

type Weights = [Option<(u32, u32)>; MAX_MXUS as usize];

/// What each MXU surely holds after one of two paths: the weights both leave it.
fn meet(a: &Weights, b: &Weights) -> Weights {
    std::array::from_fn(|m| if a[m] == b[m] { a[m] } else { None })
}

fn mxu_slot<T>(i: usize, slots: &mut [T], mxu: u8) -> Result<&mut T, IsaError> {
    slots.get_mut(mxu as usize).ok_or_else(|| at(i, format!("MXU {mxu} is not below {MAX_MXUS}")))
}

/// Validates `program`; on success every backend can run it.
pub fn validate(program: &Program) -> Result<(), IsaError> {
    let (hbm, vmem) = (program.hbm_words, Memory::words(program.vmem_words));
    for b in program.inputs.iter().chain(&program.outputs) {
        let (first, words) = b.hbm_words();
        if first + words > hbm as u64 {
            return Err(IsaError {
                index: None,
                message: format!("buffer {} ({} HBM words from {first}) is outside HBM's {hbm} words", b.name, words),
            });
        }
        if b.elem == ElemType::Bf16 && b.addr % 2 == 1 {
            return Err(IsaError {
                index: None,
                message: format!(
                    "bf16 buffer {} starts at element {}, inside a word (it must be even)",
                    b.name, b.addr
                ),
            });
        }
    }
    let mut counts: Vec<u32> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    // The weights each MXU surely holds (K×N), once loaded: on every path to here.
    let mut weights: Weights = [None; MAX_MXUS as usize];
    for (i, instr) in program.instrs.iter().enumerate() {
        match instr {
            Instr::DmaLoad { src, dst, elem, .. } | Instr::DmaStore { src, dst, elem, .. } => {
                let load = matches!(instr, Instr::DmaLoad { .. });
                let hbm = Memory::hbm(hbm, *elem);
                let (src_size, dst_size) = if load { (hbm, vmem) } else { (vmem, hbm) };
                check_block(i, "source", src, &counts, src_size)?;
                check_block(i, "destination", dst, &counts, dst_size)?;
                if (src.rows, src.cols) != (dst.rows, dst.cols) {
                    return Err(at(
                        i,
                        format!("DMA source is {}x{} but destination is {}x{}", src.rows, src.cols, dst.rows, dst.cols),
                    ));
                }
            }
            Instr::Wait { .. } => {}
            Instr::MxuWeights { src, mxu, .. } => {
                check_block(i, "weights", src, &counts, vmem)?;
                *mxu_slot(i, &mut weights, *mxu)? = Some((src.rows, src.cols));
            }
            Instr::MxuMatmul { src, dst, mxu, .. } => {
                check_block(i, "activations", src, &counts, vmem)?;
                check_block(i, "result", dst, &counts, vmem)?;
                let (k, n) = mxu_slot(i, &mut weights, *mxu)?
                    .ok_or_else(|| at(i, format!("matmul before any weights were loaded into MXU {mxu}")))?;
                if src.cols != k || dst.cols != n || dst.rows != src.rows {
                    return Err(at(
                        i,
                        format!(
                            "matmul of {}x{} activations into a {}x{} result does not fit the loaded {k}x{n} weights",
                            src.rows, src.cols, dst.rows, dst.cols
                        ),
                    ));
                }
            }
            Instr::Vector { op, dst, a, b } => {
                check_block(i, "vector destination", dst, &counts, vmem)?;
                let operands = if op.arity() == 2 { vec![a, b] } else { vec![a] };
                for o in operands {
                    if let Some(x) = o.addr() {
                        check_range(i, "vector operand", x, o.extent(dst.rows, dst.cols, dst.stride), &counts, vmem)?;
                    }
                }
            }
            Instr::Transpose { src, dst } => {
                check_block(i, "transpose source", src, &counts, vmem)?;
                check_block(i, "transpose destination", dst, &counts, vmem)?;
                if (dst.rows, dst.cols) != (src.cols, src.rows) {
                    return Err(at(
                        i,
                        format!(
                            "a {}x{} block transposes to {}x{}, not {}x{}",
                            src.rows, src.cols, src.cols, src.rows, dst.rows, dst.cols
                        ),
                    ));
                }
                let span = |b: &Block, c: &[u32]| b.addr.range(c).map(|(lo, hi)| (lo, hi + b.extent() as i64));
                if let (Some(s), Some(d)) = (span(src, &counts), span(dst, &counts)) {
                    if s.0 < d.1 && d.0 < s.1 && src.words() > 0 {
                        return Err(at(i, "a transpose's source and destination overlap"));
                    }
                }
            }
            Instr::Reduce { src, dst, .. } => {
                check_block(i, "reduce source", src, &counts, vmem)?;
                check_range(i, "reduce destination", dst, src.rows as u64, &counts, vmem)?;
            }
            Instr::Loop { count } => {
                if counts.len() == MAX_LOOP_DEPTH {
                    return Err(at(i, format!("loops nest deeper than {MAX_LOOP_DEPTH}")));
                }
                counts.push(*count);
                open.push(Open::Loop);
            }
            Instr::ScalarLoad { src, dst } => {
                register(i, *dst)?;
                check_range(i, "scalar load", src, 1, &counts, vmem)?;
            }
            Instr::Scalar { a, b, dst, .. } => {
                register(i, *dst)?;
                for o in [a, b] {
                    if let ScalarOperand::Reg(r) = o {
                        register(i, *r)?;
                    }
                }
            }
            Instr::While { cond } => {
                register(i, *cond)?;
                open.push(Open::While(weights));
            }
            Instr::If { cond } => {
                register(i, *cond)?;
                open.push(Open::If { before: weights, then: None });
            }
            Instr::Else => match open.last_mut() {
                Some(Open::If { before, then: then @ None }) => {
                    *then = Some(weights);
                    weights = *before;
                }
                _ => return Err(at(i, "else outside an if (or a second else)")),
            },
            Instr::End => match open.pop() {
                Some(Open::Loop) => {
                    counts.pop();
                }
                // A while's body may run no times, and a branch may be skipped.
                Some(Open::While(before)) => weights = meet(&weights, &before),
                Some(Open::If { before, then }) => weights = meet(&weights, &then.unwrap_or(before)),
                None => return Err(at(i, "end without a loop, while or if")),
            },
        }
    }
    if !open.is_empty() {
        return Err(IsaError { index: None, message: format!("{} block(s) not closed by end", open.len()) });
    }
    if let Some(f) = program.flops.iter().find(|f| f.instr as usize >= program.instrs.len()) {
        let message = format!(
            "{} flops are counted at instruction {}, but the program has {} instructions",
            f.count,
            f.instr,
            program.instrs.len()
        );
        return Err(IsaError { index: None, message });
    }
    check_waits(program)
}

/// Every wait must be satisfiable by DMAs issued before it (DMAs run asynchronously, but a
/// blocked wait stops the issue of later ones). Counted loops are walked trip by trip; a
/// `while` body and each half of an `if` must leave every semaphore as they found it, so the
/// check holds however many times the body runs and whichever half is taken.
fn check_waits(program: &Program) -> Result<(), IsaError> {
    let mut available = [0u64; 256];
    walk_waits(&program.instrs, 0, program.instrs.len(), &mut available)
}

/// The index of the `end` (or `else`) that closes the block opened at `start`.
fn block_end(instrs: &[Instr], start: usize) -> (Option<usize>, usize) {
    let (mut depth, mut otherwise) = (0usize, None);
    for (i, instr) in instrs.iter().enumerate().skip(start) {
        if instr.opens_block() {
            depth += 1;
        } else if matches!(instr, Instr::Else) && depth == 1 {
            otherwise = Some(i);
        } else if matches!(instr, Instr::End) {
            depth -= 1;
            if depth == 0 {
                return (otherwise, i);
            }
        }
    }
    (otherwise, instrs.len())
}

fn walk_waits(instrs: &[Instr], from: usize, to: usize, available: &mut [u64; 256]) -> Result<(), IsaError> {
    let mut i = from;
    while i < to {
        match &instrs[i] {
            Instr::DmaLoad { sem, .. } | Instr::DmaStore { sem, .. } => available[*sem as usize] += 1,
            Instr::Wait { sem, count } => {
                let have = available[*sem as usize];
                if have < *count as u64 {
                    return Err(at(
                        i,
                        format!(
                            "waits for {count} signals of semaphore {sem}, but the DMAs before it give only {have}"
                        ),
                    ));
                }
                available[*sem as usize] -= *count as u64;
            }
            Instr::Loop { count } => {
                let (_, end) = block_end(instrs, i);
                let signals = instrs[i + 1..end]
                    .iter()
                    .any(|x| matches!(x, Instr::DmaLoad { .. } | Instr::DmaStore { .. } | Instr::Wait { .. }));
                // A body without DMAs or waits leaves the semaphores alone: one walk checks it.
                let trips = if signals { *count } else { (*count).min(1) };
                for _ in 0..trips {
                    walk_waits(instrs, i + 1, end, available)?;
                }
                i = end;
            }
            Instr::While { .. } => {
                let (_, end) = block_end(instrs, i);
                let before = *available;
                walk_waits(instrs, i + 1, end, available)?;
                if *available != before {
                    return Err(at(i, "a while loop's body must wait for every DMA it issues (and for no earlier one), since it may run any number of times"));
                }
                i = end;
            }
            Instr::If { .. } => {
                let (otherwise, end) = block_end(instrs, i);
                let before = *available;
                walk_waits(instrs, i + 1, otherwise.unwrap_or(end), available)?;
                let then = std::mem::replace(available, before);
                if let Some(e) = otherwise {
                    walk_waits(instrs, e + 1, end, available)?;
                }
                if *available != then {
                    return Err(at(i, "the two halves of an if leave different DMAs to wait for"));
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}
