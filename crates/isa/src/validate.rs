//! The validator: a program that passes can be executed by any backend without an access
//! leaving its memory, a matmul without weights, a loop without its end, or a wait that can
//! never be satisfied.

use crate::{Addr, Block, Instr, Program, MAX_LOOP_DEPTH, MAX_MXUS};
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
fn check_range(i: usize, what: &str, addr: &Addr, extent: u64, counts: &[u32], size: u32) -> Result<(), IsaError> {
    for &(depth, _) in &addr.strides {
        if depth as usize >= counts.len() {
            return Err(at(i, format!("{what} address uses i{depth} outside a loop of that depth")));
        }
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
    if extent > 0 && hi as i128 + extent as i128 > size as i128 {
        return Err(at(
            i,
            format!("{what} (words {lo}..{}) is outside its memory of {size} words", hi as i128 + extent as i128),
        ));
    }
    Ok(())
}

fn check_block(i: usize, what: &str, b: &Block, counts: &[u32], size: u32) -> Result<(), IsaError> {
    if b.rows > 1 && b.stride < b.cols {
        return Err(at(i, format!("{what} rows overlap: stride {} is less than {} columns", b.stride, b.cols)));
    }
    check_range(i, what, &b.addr, b.extent(), counts, size)
}

fn mxu_slot<T>(i: usize, slots: &mut [T], mxu: u8) -> Result<&mut T, IsaError> {
    slots.get_mut(mxu as usize).ok_or_else(|| at(i, format!("MXU {mxu} is not below {MAX_MXUS}")))
}

/// Validates `program`; on success every backend can run it.
pub fn validate(program: &Program) -> Result<(), IsaError> {
    let (hbm, vmem) = (program.hbm_words, program.vmem_words);
    let mut counts: Vec<u32> = Vec::new();
    // The weights each MXU holds (K×N), once loaded.
    let mut weights: [Option<(u32, u32)>; MAX_MXUS as usize] = [None; MAX_MXUS as usize];
    for (i, instr) in program.instrs.iter().enumerate() {
        match instr {
            Instr::DmaLoad { src, dst, .. } | Instr::DmaStore { src, dst, .. } => {
                let load = matches!(instr, Instr::DmaLoad { .. });
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
            }
            Instr::End => {
                if counts.pop().is_none() {
                    return Err(at(i, "end without a loop"));
                }
            }
        }
    }
    if !counts.is_empty() {
        return Err(IsaError { index: None, message: format!("{} loop(s) not closed by end", counts.len()) });
    }
    check_waits(program)
}

/// Every wait must be satisfiable by DMAs issued before it (DMAs run asynchronously, but a
/// blocked wait stops the issue of later ones).
fn check_waits(program: &Program) -> Result<(), IsaError> {
    let mut available = [0u64; 256];
    for (i, op) in program.ops() {
        match op {
            Instr::DmaLoad { sem, .. } | Instr::DmaStore { sem, .. } => available[sem as usize] += 1,
            Instr::Wait { sem, count } => {
                let have = available[sem as usize];
                if have < count as u64 {
                    return Err(at(
                        i,
                        format!(
                            "waits for {count} signals of semaphore {sem}, but the DMAs before it give only {have}"
                        ),
                    ));
                }
                available[sem as usize] -= count as u64;
            }
            _ => {}
        }
    }
    Ok(())
}
