//! Unrolling a program into the operations it performs.

use crate::{Addr, Block, Instr, Operand, MAX_LOOP_DEPTH};

/// An iterator over `(instruction index, operation)`: loops unrolled, addresses resolved.
pub struct Ops<'a> {
    instrs: &'a [Instr],
    pc: usize,
    /// Open loops: (index of the `loop` instruction, trip count, current iteration).
    loops: Vec<(usize, u32, u32)>,
}

impl<'a> Ops<'a> {
    pub(crate) fn new(instrs: &'a [Instr]) -> Ops<'a> {
        Ops { instrs, pc: 0, loops: Vec::with_capacity(MAX_LOOP_DEPTH) }
    }

    fn indices(&self) -> [u32; MAX_LOOP_DEPTH] {
        let mut idx = [0; MAX_LOOP_DEPTH];
        for (d, &(_, _, i)) in self.loops.iter().enumerate().take(MAX_LOOP_DEPTH) {
            idx[d] = i;
        }
        idx
    }

    /// Skips a loop whose trip count is 0: moves past its matching `end`.
    fn skip_loop(&mut self) {
        let mut depth = 0usize;
        while self.pc < self.instrs.len() {
            match self.instrs[self.pc] {
                Instr::Loop { .. } => depth += 1,
                Instr::End => {
                    depth -= 1;
                    if depth == 0 {
                        self.pc += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pc += 1;
        }
    }
}

fn resolve_addr(a: &Addr, idx: &[u32]) -> u32 {
    a.at(idx).expect("validated program: addresses stay in range")
}

fn resolve_block(b: &Block, idx: &[u32]) -> Block<u32> {
    Block { addr: resolve_addr(&b.addr, idx), rows: b.rows, cols: b.cols, stride: b.stride }
}

fn resolve_operand(o: &Operand, idx: &[u32]) -> Operand<u32> {
    match o {
        Operand::Vmem(a) => Operand::Vmem(resolve_addr(a, idx)),
        Operand::Row(a) => Operand::Row(resolve_addr(a, idx)),
        Operand::Col(a) => Operand::Col(resolve_addr(a, idx)),
        Operand::Splat(a) => Operand::Splat(resolve_addr(a, idx)),
        Operand::Imm(x) => Operand::Imm(*x),
    }
}

/// The instruction with its addresses at these loop indices (loops have none).
pub(crate) fn resolve(instr: &Instr, idx: &[u32]) -> Instr<u32> {
    match instr {
        Instr::DmaLoad { src, dst, sem } => {
            Instr::DmaLoad { src: resolve_block(src, idx), dst: resolve_block(dst, idx), sem: *sem }
        }
        Instr::DmaStore { src, dst, sem } => {
            Instr::DmaStore { src: resolve_block(src, idx), dst: resolve_block(dst, idx), sem: *sem }
        }
        Instr::Wait { sem, count } => Instr::Wait { sem: *sem, count: *count },
        Instr::MxuWeights { src, part, mxu } => {
            Instr::MxuWeights { src: resolve_block(src, idx), part: *part, mxu: *mxu }
        }
        Instr::MxuMatmul { src, dst, part, accumulate, mxu } => Instr::MxuMatmul {
            src: resolve_block(src, idx),
            dst: resolve_block(dst, idx),
            part: *part,
            accumulate: *accumulate,
            mxu: *mxu,
        },
        Instr::Vector { op, dst, a, b } => Instr::Vector {
            op: *op,
            dst: resolve_block(dst, idx),
            a: resolve_operand(a, idx),
            b: resolve_operand(b, idx),
        },
        Instr::Transpose { src, dst } => {
            Instr::Transpose { src: resolve_block(src, idx), dst: resolve_block(dst, idx) }
        }
        Instr::Reduce { op, src, dst } => {
            Instr::Reduce { op: *op, src: resolve_block(src, idx), dst: resolve_addr(dst, idx) }
        }
        Instr::Loop { count } => Instr::Loop { count: *count },
        Instr::End => Instr::End,
    }
}

impl Iterator for Ops<'_> {
    type Item = (usize, Instr<u32>);

    fn next(&mut self) -> Option<(usize, Instr<u32>)> {
        loop {
            let instr = self.instrs.get(self.pc)?;
            match instr {
                Instr::Loop { count: 0 } => self.skip_loop(),
                Instr::Loop { count } => {
                    self.loops.push((self.pc, *count, 0));
                    self.pc += 1;
                }
                Instr::End => {
                    let top = self.loops.last_mut().expect("validated program: end matches a loop");
                    top.2 += 1;
                    if top.2 < top.1 {
                        self.pc = top.0 + 1;
                    } else {
                        self.loops.pop();
                        self.pc += 1;
                    }
                }
                _ => {
                    let index = self.pc;
                    self.pc += 1;
                    return Some((index, resolve(instr, &self.indices())));
                }
            }
        }
    }
}
