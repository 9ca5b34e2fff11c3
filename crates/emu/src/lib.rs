//! emu: the emulated TPU. Machine presets ([`TpuConfig`]), the timing model ([`timing`]), the
//! CPU reference backend ([`CpuBackend`]) and the [`Backend`] trait that the GPU backend also
//! implements. Values come from a backend; counters come from the timing model alone, so they
//! are the same whichever backend computed the values.

pub mod config;
pub mod cpu;
pub mod timing;
pub mod vpu_math;

pub use config::TpuConfig;
pub use cpu::CpuBackend;
pub use timing::{simulate, Counters, Span, Timing};

use isa::{Block, Instr, Operand, Program};
use std::future::Future;
use std::pin::Pin;

/// A malformed program or a failed run, with the instruction it concerns where there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuError {
    pub instr: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.instr {
            Some(i) => write!(f, "instruction {i}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

fn at(i: usize, message: String) -> EmuError {
    EmuError {
        instr: Some(i),
        message,
    }
}

/// What a backend's `run` returns: the output buffers' words, in `program.outputs` order.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<Vec<Vec<u32>>, EmuError>> + 'a>>;

/// Executes programs.
pub trait Backend {
    /// `"cpu"` or `"gpu"`.
    fn name(&self) -> &'static str;
    /// The GPU adapter's name, for a GPU backend.
    fn adapter(&self) -> Option<String>;
    fn run<'a>(&'a mut self, program: &'a Program, inputs: &'a [Vec<u32>]) -> RunFuture<'a>;
}

/// Checks that every access stays inside the program's memories and that MXU operands match
/// the loaded weights, so backends can execute without bounds checks failing.
pub fn validate(program: &Program) -> Result<(), EmuError> {
    let in_mem = |b: &Block, size: u32| {
        b.cols <= b.stride.max(b.cols) && (b.rows <= 1 || b.stride >= b.cols) && b.span().1 <= size
    };
    let mut weights: Option<(u32, u32)> = None;
    for (i, instr) in program.instrs.iter().enumerate() {
        let check = |b: &Block, size: u32, what: &str| {
            if in_mem(b, size) {
                Ok(())
            } else {
                Err(at(i, format!("{what} block {}x{} at {} (stride {}) is outside its memory of {size} words", b.rows, b.cols, b.addr, b.stride)))
            }
        };
        match instr {
            Instr::DmaLoad { src, dst, .. } | Instr::DmaStore { src, dst, .. } => {
                let (s_size, d_size) = if matches!(instr, Instr::DmaLoad { .. }) {
                    (program.hbm_words, program.vmem_words)
                } else {
                    (program.vmem_words, program.hbm_words)
                };
                check(src, s_size, "source")?;
                check(dst, d_size, "destination")?;
                if (src.rows, src.cols) != (dst.rows, dst.cols) {
                    return Err(at(i, "DMA source and destination shapes differ".into()));
                }
            }
            Instr::Wait { .. } => {}
            Instr::MxuWeights { src, .. } => {
                check(src, program.vmem_words, "weights")?;
                weights = Some((src.rows, src.cols));
            }
            Instr::MxuMatmul { src, dst, .. } => {
                check(src, program.vmem_words, "activations")?;
                check(dst, program.vmem_words, "result")?;
                let (k, n) =
                    weights.ok_or_else(|| at(i, "matmul before any weights were loaded".into()))?;
                if src.cols != k || dst.cols != n || dst.rows != src.rows {
                    return Err(at(
                        i,
                        format!("matmul shapes do not match the loaded {k}x{n} weights"),
                    ));
                }
            }
            Instr::Vector { dst, a, b, len, op } => {
                let ok = |x: u32, n: u32| x.checked_add(n).is_some_and(|e| e <= program.vmem_words);
                let operands = if op.arity() == 2 { vec![a, b] } else { vec![a] };
                let operands_ok = operands.iter().all(|o| match **o {
                    Operand::Vmem(x) => ok(x, *len),
                    Operand::Splat(x) => ok(x, 1),
                    Operand::Imm(_) => true,
                });
                if !ok(*dst, *len) || !operands_ok {
                    return Err(at(i, "vector operand outside VMEM".into()));
                }
            }
        }
    }
    Ok(())
}

/// Writes the input buffers into an HBM image.
pub fn place_inputs(
    program: &Program,
    inputs: &[Vec<u32>],
    hbm: &mut [u32],
) -> Result<(), EmuError> {
    if inputs.len() != program.inputs.len() {
        return Err(EmuError {
            instr: None,
            message: format!(
                "program takes {} inputs, got {}",
                program.inputs.len(),
                inputs.len()
            ),
        });
    }
    for (buf, data) in program.inputs.iter().zip(inputs) {
        let (a, n) = (buf.addr as usize, buf.words() as usize);
        if data.len() != n || a + n > hbm.len() {
            return Err(EmuError {
                instr: None,
                message: format!("input {} needs {n} words, got {}", buf.name, data.len()),
            });
        }
        hbm[a..a + n].copy_from_slice(data);
    }
    Ok(())
}

/// Reads the output buffers from an HBM image.
pub fn read_outputs(program: &Program, hbm: &[u32]) -> Vec<Vec<u32>> {
    program
        .outputs
        .iter()
        .map(|b| hbm[b.addr as usize..(b.addr + b.words()) as usize].to_vec())
        .collect()
}
