//! The playground's language: a Python subset in which users write JAX.
//!
//! [`parse`] turns source into an [`ast::Module`] and every syntax error it found (the parser
//! recovers at statement boundaries and never panics). [`run_script`] parses, then interprets
//! the module with a tree-walking interpreter whose `jax` and `jax.numpy` names are bound to
//! `jaxlite`: array operations go through a [`jaxlite::Context`], so they run eagerly through
//! its executor or, inside `jax.jit`, are traced into a Jaxpr.

pub mod ast;
mod interp;
pub mod jnp_extra;
mod lexer;
mod parser;

use std::fmt;

pub use interp::{DEFAULT_OUTPUT_LIMIT, DEFAULT_RECURSION_LIMIT, DEFAULT_STEP_BUDGET};

/// An error with its place in the script: 1-based line and column (in chars).
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptError {
    pub message: String,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ScriptError {}

/// One positional argument of a `print()` call, for front ends that render arrays richly.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintItem {
    /// A concrete array, or a Python number as a 0-d array (int → int32, float → float32,
    /// bool → bool).
    Array(jaxlite::Array),
    /// Any other value, as `str()` prints it.
    Text(String),
}

/// What a script printed: one entry per `print()` call, and the text CPython would print
/// (on standard output, and on standard error: `print(..., file=sys.stderr)`, warnings).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOutput {
    pub prints: Vec<Vec<PrintItem>>,
    pub stdout: String,
    pub stderr: String,
}

/// Why a script failed: every parse error, or the one runtime error; with what it printed
/// before failing.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptFailure {
    pub errors: Vec<ScriptError>,
    pub output: RunOutput,
}

/// How far a script may run before it is stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Evaluation steps (one per statement and expression evaluated).
    pub steps: u64,
    /// Python call frames.
    pub recursion: usize,
    /// Bytes of printed output.
    pub output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { steps: DEFAULT_STEP_BUDGET, recursion: DEFAULT_RECURSION_LIMIT, output_bytes: DEFAULT_OUTPUT_LIMIT }
    }
}

/// Parses `source` into a module and every syntax error found. Never panics.
pub fn parse(source: &str) -> (ast::Module, Vec<ScriptError>) {
    parser::parse(source, 0)
}

/// Parses, then interprets `source` with the default [`Limits`].
pub async fn run_script(source: &str, ctx: &mut jaxlite::Context) -> Result<RunOutput, ScriptFailure> {
    run_script_with_limits(source, ctx, Limits::default()).await
}

/// [`run_script`] with explicit limits on steps and recursion.
pub async fn run_script_with_limits(
    source: &str,
    ctx: &mut jaxlite::Context,
    limits: Limits,
) -> Result<RunOutput, ScriptFailure> {
    run_script_with_progress(source, ctx, limits, None).await
}

/// Where a long run is: the outermost loop running (a training loop, usually), reported to a
/// [`run_script_with_progress`] callback as each of its iterations starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The line of the loop's `for` or `while`.
    pub line: u32,
    /// Iterations started, this one included (1 for the first).
    pub iteration: u64,
    /// How many iterations a `for` will make, when its iterable says (ranges, lists, tuples,
    /// arrays); `None` for `while`.
    pub total: Option<u64>,
    /// Evaluation steps so far (see [`Limits::steps`]).
    pub steps: u64,
}

/// [`run_script_with_limits`], calling `progress` at each iteration of the outermost loop
/// running (how often to show it is the caller's choice: the page redraws ten times a second).
pub async fn run_script_with_progress(
    source: &str,
    ctx: &mut jaxlite::Context,
    limits: Limits,
    progress: Option<&mut dyn FnMut(Progress)>,
) -> Result<RunOutput, ScriptFailure> {
    let (module, errors) = parse(source);
    if !errors.is_empty() {
        return Err(ScriptFailure { errors, output: RunOutput::default() });
    }
    // Each program starts from NumPy's default print options, whatever the last one set.
    jaxlite::format::set_print_options(jaxlite::format::PrintOptions::default());
    interp::run(&module, ctx, limits, progress).await
}
