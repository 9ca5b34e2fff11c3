//! emu: the emulated TPU. Machine presets ([`TpuConfig`]), the timing model ([`timing`]), the
//! CPU reference backend ([`CpuBackend`]) and the [`Backend`] trait that the GPU backend also
//! implements. Values come from a backend; counters come from the timing model alone, so they
//! are the same whichever backend computed the values.

pub mod config;
pub mod cpu;
pub mod ici;
pub mod systolic;
pub mod timing;
pub mod vpu_math;

pub use config::{ConfigError, MachineSummary, MxuDtype, TpuConfig};
pub use cpu::CpuBackend;
pub use ici::{collective_time, Collective, CollectiveKind, CollectiveTime};
pub use timing::{simulate, simulate_without_values, Breakdown, Counters, InstrTime, Span, Timing};

use isa::Program;
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

impl From<isa::IsaError> for EmuError {
    fn from(e: isa::IsaError) -> EmuError {
        EmuError { instr: e.index, message: e.message }
    }
}

/// What a run produced: the output buffers' words, in `program.outputs` order, and the words
/// its `s.load`s read, in order ([`Program::replay`] takes them to time the same run).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Executed {
    pub outputs: Vec<Vec<u32>>,
    pub loads: Vec<u32>,
}

/// What a backend's `run` returns.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<Executed, EmuError>> + 'a>>;

/// Executes programs.
pub trait Backend {
    /// `"cpu"` or `"gpu"`.
    fn name(&self) -> &'static str;
    /// The GPU adapter's name, for a GPU backend.
    fn adapter(&self) -> Option<String>;
    /// Runs `program`, its `while` loops taking at most `max_trips` trips together (see
    /// [`isa::Ops::max_trips`]).
    fn run_limited<'a>(&'a mut self, program: &'a Program, inputs: &'a [Vec<u32>], max_trips: u64) -> RunFuture<'a>;
    fn run<'a>(&'a mut self, program: &'a Program, inputs: &'a [Vec<u32>]) -> RunFuture<'a> {
        self.run_limited(program, inputs, u64::MAX)
    }
    /// Destroys the backend's device, as a GPU reset or a driver crash would: for the tests of
    /// what a run does when its device is lost. Nothing to lose on the CPU.
    fn lose_device(&mut self) {}
}

/// Validates a program for execution (see [`isa::validate`]).
pub fn validate(program: &Program) -> Result<(), EmuError> {
    isa::validate(program).map_err(EmuError::from)
}

/// Writes the input buffers into an HBM image.
pub fn place_inputs(program: &Program, inputs: &[Vec<u32>], hbm: &mut [u32]) -> Result<(), EmuError> {
    if inputs.len() != program.inputs.len() {
        return Err(EmuError {
            instr: None,
            message: format!("program takes {} inputs, got {}", program.inputs.len(), inputs.len()),
        });
    }
    for (buf, data) in program.inputs.iter().zip(inputs) {
        let ((a, words), n) = (buf.hbm_words(), buf.elements() as usize);
        let (a, words) = (a as usize, words as usize);
        if data.len() != n || a + words > hbm.len() {
            return Err(EmuError {
                instr: None,
                message: format!("input {} needs {n} words, got {}", buf.name, data.len()),
            });
        }
        hbm[a..a + words].copy_from_slice(&buf.pack(data));
    }
    Ok(())
}

/// Reads the output buffers from an HBM image (one word per element, a bf16 as its f32).
pub fn read_outputs(program: &Program, hbm: &[u32]) -> Vec<Vec<u32>> {
    program
        .outputs
        .iter()
        .map(|b| {
            let (a, words) = b.hbm_words();
            b.unpack(&hbm[a as usize..(a + words) as usize])
        })
        .collect()
}
