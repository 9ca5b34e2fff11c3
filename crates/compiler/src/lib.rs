//! compiler: from a Jaxpr to an `isa::Program` for one TensorCore, in passes that each print:
//!
//! 1. [`hlo`]: the Jaxpr as an HLO-like graph (dots canonicalised to `(M,K)·(K,N)`).
//! 2. [`fusion`]: instructions grouped into fusions, each of which becomes one kernel.
//! 3. [`emit`]: each kernel tiled over its output, tiles padded to the vector registers'
//!    128 lanes in VMEM, inputs DMA'd from HBM into alternating slots (double buffering),
//!    matmuls cut into 128×128 weight tiles on the MXU with 1, 3 or 6 bf16 passes, epilogues
//!    on the vector unit; loops with affine addresses keep the program small.

pub mod emit;
pub mod expand;
pub mod fusion;
pub mod hlo;
pub mod link;

use jaxlite::{Jaxpr, Precision};

/// What the compiler needs to know about the machine and the user's settings.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub mxu_rows: u32,
    pub mxu_cols: u32,
    /// MXUs per TensorCore: the compiler spreads each matmul's pieces across them.
    pub mxus: u32,
    /// VMEM capacity in 32-bit words; no kernel uses more.
    pub vmem_words: u32,
    /// `jax_default_matmul_precision`, for dot_generals that name none.
    pub default_precision: Precision,
}

/// A Jaxpr the compiler cannot lower, naming the equation or fusion.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Every stage of one compilation, for printing (`tpu compile --emit`, the playground): the
/// HLO and fused graphs as text (a linked program's pieces one after another, each under its
/// `# name`), and the program.
pub struct Compiled {
    pub hlo: String,
    pub fused: String,
    pub program: isa::Program,
    /// What its kernels read and write (`FusedGraph::traffic`), every piece's together.
    pub traffic: jaxlite::cost::CostAnalysis,
}

/// Compiles `jaxpr` (inputs: constvars then invars) into a program named `name`.
pub fn compile(name: &str, jaxpr: &Jaxpr, opts: &CompileOptions) -> Result<isa::Program, CompileError> {
    compile_stages(name, jaxpr, opts).map(|c| c.program)
}

/// Compiles and keeps every intermediate stage.
pub fn compile_stages(name: &str, jaxpr: &Jaxpr, opts: &CompileOptions) -> Result<Compiled, CompileError> {
    // Custom derivatives run as their functions' bodies; windows at computed positions stay
    // windows for the linker, which addresses them with the scalar unit.
    let with_windows = lowered(jaxpr, jaxlite::transform::lower_keeping_windows)?;
    let jaxpr = with_windows.as_ref();
    if let Some(aval) = empty_array(jaxpr) {
        return Err(CompileError {
            message: format!(
                "{name} has an array with no elements ({}): there is nothing for the TPU to do, so it is not compiled",
                aval.short()
            ),
        });
    }
    if let Some(aval) = host_only_array(jaxpr) {
        return Err(CompileError {
            message: format!(
                "{name} has a {} array ({}), a NumPy type of the host: the TPU computes in 32 bits \
                 (JAX without x64 converts float64 to float32 and int64 to int32 at the boundary)",
                aval.dtype.name(),
                aval.short()
            ),
        });
    }
    if jaxlite::loops::control_on_machine(jaxpr) {
        return link::link(name, jaxpr, opts);
    }
    // A program the linker cannot take (it has a callback) picks its windows out by selections.
    let selected = lowered(jaxpr, jaxlite::transform::lower)?;
    let jaxpr = selected.as_ref();
    let hlo = hlo::from_jaxpr(name, jaxpr, opts.default_precision)?;
    let fused = fusion::fuse(hlo.clone());
    let program = emit::emit(&fused, opts)?;
    isa::validate(&program)
        .map_err(|e| CompileError { message: format!("internal error: the compiled program is invalid: {e}") })?;
    Ok(Compiled { hlo: hlo.to_string(), fused: fused.to_string(), traffic: fused.traffic(), program })
}

/// `jaxpr` through `lower` where it needs lowering, else as it is.
fn lowered(
    jaxpr: &Jaxpr,
    lower: fn(&Jaxpr) -> Result<Jaxpr, jaxlite::JaxError>,
) -> Result<std::borrow::Cow<'_, Jaxpr>, CompileError> {
    if !jaxlite::transform::needs_lowering(jaxpr) {
        return Ok(std::borrow::Cow::Borrowed(jaxpr));
    }
    lower(jaxpr).map(std::borrow::Cow::Owned).map_err(|e| CompileError { message: e.0 })
}

/// An array with no elements among `jaxpr`'s inputs and values, if there is one. The kernels
/// assume every array has elements (the script fuzzer found a 0×0 matmul dividing by zero);
/// such a program has no work for the TPU, and the runtime evaluates it on the host instead.
pub fn empty_array(jaxpr: &Jaxpr) -> Option<&jaxlite::Aval> {
    find_aval(jaxpr, &|a| a.shape.contains(&0))
}

/// A value of a 64-bit NumPy type, which only the host has: the front end converts NumPy
/// arrays at the boundary, so reaching the compiler with one is a bug, reported as an error.
fn host_only_array(jaxpr: &Jaxpr) -> Option<&jaxlite::Aval> {
    find_aval(jaxpr, &|a| a.dtype.is_host_only())
}

/// The first value of `jaxpr` (or of a custom derivative's function in it) that `wanted`.
fn find_aval<'j>(jaxpr: &'j Jaxpr, wanted: &dyn Fn(&jaxlite::Aval) -> bool) -> Option<&'j jaxlite::Aval> {
    let vars = jaxpr.all_inputs().chain(jaxpr.eqns.iter().flat_map(|e| e.outputs.iter().copied()));
    vars.map(|v| jaxpr.aval(v)).find(|a| wanted(a)).or_else(|| {
        jaxpr.eqns.iter().find_map(|e| e.prim.custom_body(&e.inputs).and_then(|(call, _)| find_aval(call, wanted)))
    })
}
