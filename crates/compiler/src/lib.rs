//! compiler: from a Jaxpr to an `isa::Program` for one TensorCore.
//!
//! The walking skeleton lowers equation by equation (no fusion yet): every value gets a VMEM
//! slot, inputs arrive by DMA, matmuls run on the MXU tile by tile (K and N cut to the array's
//! size, M streamed), elementwise ops run on the vector unit, and results leave by DMA. Later
//! passes (fusion, padding to the vector tile, VMEM reuse, double buffering) slot in between.

mod lower;

pub use lower::compile;

use jaxlite::Precision;

/// What the compiler needs to know about the machine and the user's settings.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub mxu_rows: u32,
    pub mxu_cols: u32,
    /// `jax_default_matmul_precision`, for dot_generals that name none.
    pub default_precision: Precision,
}

/// A Jaxpr the compiler cannot lower, naming the equation.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileError {
    pub message: String,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
