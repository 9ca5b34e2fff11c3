//! Lowering a Jaxpr equation by equation to TPU instructions.

use crate::{CompileError, CompileOptions};
use isa::{Block, Buffer, ElemType, Instr, Operand, Part, Program, VectorOp};
use jaxlite::eval::precision_passes;
use jaxlite::{Atom, Aval, BinaryOp, DType, Jaxpr, Primitive, UnaryOp, Var};
use std::collections::HashMap;

/// Semaphores: loads signal one, stores the other.
const SEM_LOADS: u8 = 0;
const SEM_STORES: u8 = 1;

fn err(message: String) -> CompileError {
    CompileError { message }
}

/// A 2-D view of an array in row-major order: leading dims flattened into rows.
fn block_2d(addr: u32, aval: &Aval) -> Block<u32> {
    let cols = aval.shape.last().copied().unwrap_or(1) as u32;
    let rows = (aval.size() as u32).checked_div(cols).unwrap_or(0);
    Block {
        addr,
        rows,
        cols,
        stride: cols,
    }
}

struct Lowering<'a> {
    jaxpr: &'a Jaxpr,
    opts: &'a CompileOptions,
    instrs: Vec<Instr<u32>>,
    vmem: HashMap<Var, u32>,
    vmem_top: u32,
    flops: u64,
}

impl Lowering<'_> {
    fn alloc(&mut self, words: usize) -> u32 {
        let addr = self.vmem_top;
        self.vmem_top += words.max(1) as u32;
        addr
    }

    fn slot(&self, v: Var) -> u32 {
        self.vmem[&v]
    }

    fn operand(&self, atom: &Atom) -> (Operand<u32>, usize) {
        match atom {
            Atom::Literal(l) => (Operand::Imm(l.value as f32), 1),
            Atom::Var(v) => {
                let size = self.jaxpr.aval(*v).size();
                let op = if size == 1 {
                    Operand::Splat(self.slot(*v))
                } else {
                    Operand::Vmem(self.slot(*v))
                };
                (op, size)
            }
        }
    }

    fn vector(&mut self, op: VectorOp, dst: u32, a: Operand<u32>, b: Operand<u32>, len: usize) {
        self.instrs.push(Instr::Vector {
            op,
            dst: Block::flat(dst, len as u32),
            a,
            b,
        });
        self.flops += len as u64;
    }

    fn eqn(&mut self, index: usize) -> Result<(), CompileError> {
        let eqn = &self.jaxpr.eqns[index];
        let out = eqn.outputs[0];
        let out_aval = self.jaxpr.aval(out).clone();
        let at = |m: String| err(format!("equation {index} ({}): {m}", eqn.prim.name()));
        for a in &eqn.inputs {
            let dtype = self.jaxpr.atom_aval(a).dtype;
            if dtype != DType::F32 {
                return Err(at(format!(
                    "the compiler supports float32 only so far, got {dtype}"
                )));
            }
        }
        if let Primitive::Reshape { .. } = eqn.prim {
            // Row-major and unpadded, so a reshape is a new name for the same words.
            let Atom::Var(src) = &eqn.inputs[0] else {
                return Err(at("reshape of a literal".into()));
            };
            self.vmem.insert(out, self.slot(*src));
            return Ok(());
        }
        let dst = self.alloc(out_aval.size());
        self.vmem.insert(out, dst);
        let len = out_aval.size();
        match &eqn.prim {
            Primitive::Unary(op) => {
                let (x, _) = self.operand(&eqn.inputs[0]);
                let unused = Operand::Imm(0.0);
                match op {
                    UnaryOp::Neg => self.vector(VectorOp::Neg, dst, x, unused, len),
                    UnaryOp::Abs => self.vector(VectorOp::Abs, dst, x, unused, len),
                    UnaryOp::Exp => self.vector(VectorOp::Exp, dst, x, unused, len),
                    UnaryOp::Log => self.vector(VectorOp::Log, dst, x, unused, len),
                    UnaryOp::Tanh => self.vector(VectorOp::Tanh, dst, x, unused, len),
                    UnaryOp::Logistic => {
                        // 1 / (1 + exp(-x)), in place in the destination.
                        let d = Operand::Vmem(dst);
                        self.vector(VectorOp::Neg, dst, x, unused, len);
                        self.vector(VectorOp::Exp, dst, d, unused, len);
                        self.vector(VectorOp::Add, dst, d, Operand::Imm(1.0), len);
                        self.vector(VectorOp::Div, dst, Operand::Imm(1.0), d, len);
                    }
                    _ => {
                        return Err(at("not supported by the compiler yet".into()));
                    }
                }
            }
            Primitive::Binary(op) => {
                let (a, _) = self.operand(&eqn.inputs[0]);
                let (b, _) = self.operand(&eqn.inputs[1]);
                let vop = match op {
                    BinaryOp::Add => VectorOp::Add,
                    BinaryOp::Sub => VectorOp::Sub,
                    BinaryOp::Mul => VectorOp::Mul,
                    BinaryOp::Div => VectorOp::Div,
                    BinaryOp::Max => VectorOp::Max,
                    BinaryOp::Min => VectorOp::Min,
                    _ => return Err(at("not supported by the compiler yet".into())),
                };
                self.vector(vop, dst, a, b, len);
            }
            Primitive::DotGeneral {
                dims, precision, ..
            } => {
                let (Atom::Var(l), Atom::Var(r)) = (&eqn.inputs[0], &eqn.inputs[1]) else {
                    return Err(at("dot_general of a literal".into()));
                };
                let (la, ra) = (self.jaxpr.aval(*l).clone(), self.jaxpr.aval(*r).clone());
                let plain = dims.lhs_batch.is_empty()
                    && dims.lhs_contracting == [la.rank() - 1]
                    && dims.rhs_contracting == [0]
                    && ra.rank() <= 2;
                if !plain {
                    return Err(at(format!(
                        "only (M,K)@(K,N) matmuls are supported by the compiler yet, got dimension numbers {dims}"
                    )));
                }
                let k = la.shape[la.rank() - 1] as u32;
                let m = (la.size() as u32).checked_div(k).unwrap_or(0);
                let n = if ra.rank() == 2 {
                    ra.shape[1] as u32
                } else {
                    1
                };
                let precision = precision.unwrap_or(self.opts.default_precision);
                self.matmul(self.slot(*l), self.slot(*r), dst, (m, k, n), precision);
            }
            other => {
                return Err(at(format!(
                    "{} is not supported by the compiler yet",
                    other.name()
                )))
            }
        }
        Ok(())
    }

    /// (M,K)@(K,N) on the MXU: for each precision pass, each N tile and each K tile, load the
    /// K×N weights and stream all M rows through them. The first tile overwrites the result,
    /// the rest accumulate, so each output sums its K tiles in order, pass after pass.
    fn matmul(
        &mut self,
        lhs: u32,
        rhs: u32,
        dst: u32,
        (m, k, n): (u32, u32, u32),
        precision: jaxlite::Precision,
    ) {
        self.flops += 2 * m as u64 * k as u64 * n as u64;
        let (tr, tc) = (self.opts.mxu_rows, self.opts.mxu_cols);
        let mut first = true;
        for &(pl, pr) in precision_passes(precision) {
            for n0 in (0..n).step_by(tc as usize) {
                let nt = tc.min(n - n0);
                for k0 in (0..k).step_by(tr as usize) {
                    let kt = tr.min(k - k0);
                    let weights = Block {
                        addr: rhs + k0 * n + n0,
                        rows: kt,
                        cols: nt,
                        stride: n,
                    };
                    self.instrs.push(Instr::MxuWeights {
                        src: weights,
                        part: Part::ALL[pr],
                    });
                    let src = Block {
                        addr: lhs + k0,
                        rows: m,
                        cols: kt,
                        stride: k,
                    };
                    let out = Block {
                        addr: dst + n0,
                        rows: m,
                        cols: nt,
                        stride: n,
                    };
                    self.instrs.push(Instr::MxuMatmul {
                        src,
                        dst: out,
                        part: Part::ALL[pl],
                        accumulate: !first || k0 > 0,
                    });
                }
            }
            first = false;
        }
    }
}

/// Compiles `jaxpr` (inputs: constvars then invars) into a program named `name`.
pub fn compile(name: &str, jaxpr: &Jaxpr, opts: &CompileOptions) -> Result<Program, CompileError> {
    let mut l = Lowering {
        jaxpr,
        opts,
        instrs: Vec::new(),
        vmem: HashMap::new(),
        vmem_top: 0,
        flops: 0,
    };
    let mut hbm_top = 0u32;
    let mut inputs = Vec::new();
    for (i, v) in jaxpr.all_inputs().enumerate() {
        let aval = jaxpr.aval(v);
        if aval.dtype != DType::F32 {
            return Err(err(format!(
                "input {i} is {}; the compiler supports float32 only so far",
                aval.short()
            )));
        }
        let buf = Buffer {
            name: format!("in{i}"),
            addr: hbm_top,
            shape: aval.shape.clone(),
            elem: ElemType::F32,
        };
        hbm_top += buf.words().max(1);
        let slot = l.alloc(aval.size());
        l.vmem.insert(v, slot);
        l.instrs.push(Instr::DmaLoad {
            src: block_2d(buf.addr, aval),
            dst: block_2d(slot, aval),
            sem: SEM_LOADS,
        });
        inputs.push(buf);
    }
    if !inputs.is_empty() {
        l.instrs.push(Instr::Wait {
            sem: SEM_LOADS,
            count: inputs.len() as u32,
        });
    }
    for index in 0..jaxpr.eqns.len() {
        l.eqn(index)?;
    }
    let mut outputs = Vec::new();
    for (i, atom) in jaxpr.outvars.iter().enumerate() {
        let Atom::Var(v) = atom else {
            return Err(err(format!(
                "output {i} is a constant; constant outputs are not supported by the compiler yet"
            )));
        };
        let aval = jaxpr.aval(*v);
        let buf = Buffer {
            name: format!("out{i}"),
            addr: hbm_top,
            shape: aval.shape.clone(),
            elem: ElemType::F32,
        };
        hbm_top += buf.words().max(1);
        l.instrs.push(Instr::DmaStore {
            src: block_2d(l.slot(*v), aval),
            dst: block_2d(buf.addr, aval),
            sem: SEM_STORES,
        });
        outputs.push(buf);
    }
    if !outputs.is_empty() {
        l.instrs.push(Instr::Wait {
            sem: SEM_STORES,
            count: outputs.len() as u32,
        });
    }
    Ok(Program {
        name: name.to_string(),
        instrs: l.instrs.into_iter().map(Instr::from).collect(),
        hbm_words: hbm_top.max(1),
        vmem_words: l.vmem_top.max(1),
        inputs,
        outputs,
        flops: l.flops,
    })
}
