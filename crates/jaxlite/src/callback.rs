//! Host callbacks: `jax.pure_callback`, `jax.experimental.io_callback`,
//! `jax.debug.callback`, and `jax.debug.print` (a debug callback that formats and prints). A callback equation holds a function of the script's that the host
//! calls with the values of the equation's operands while the program runs, and whose results
//! (of the types declared when it was staged) flow back into the program. jaxlite knows nothing
//! of the script language: the function is opaque here, and whoever runs a program that has
//! callbacks hands the runner (`loops::run`) a `Host` that can call it.
//!
//! What sets the three apart is what the transformations and the runner may do with them, as
//! in JAX: a pure callback may be called any number of times, or not at all when nothing reads
//! its results; an IO callback, a debug callback and a print are effects, always called, in
//! program order, never dropped.

use crate::array::{Array, Aval};
use crate::trace::{JaxError, LocalFuture};
use std::any::Any;
use std::fmt;
use std::rc::Rc;

/// One staged callback. Compared by identity, as the functions other equations hold.
pub struct HostCallback {
    pub kind: CallbackKind,
    /// The script's function, as the front end that staged it keeps it.
    pub function: Rc<dyn Any>,
    /// What a jaxpr shows of the function, as the front end names it: `callback=` (JAX prints
    /// the wrapper of the function with the structure of its arguments), or a print's format
    /// and options. The parameters the kind implies are added to these.
    pub shown: Vec<(&'static str, String)>,
    /// The types of its results, one per output of the equation.
    pub results: Vec<Aval>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallbackKind {
    /// `jax.pure_callback`: how it batches under `vmap` (`None`: it refuses to).
    Pure { vmap_method: Option<VmapMethod> },
    /// `jax.experimental.io_callback`; an ordered one keeps its order with the others, so
    /// `vmap` refuses it.
    Io { ordered: bool },
    /// `jax.debug.callback`: no results, called with the forward values under `grad`, once per
    /// example under `vmap`.
    Debug { ordered: bool, partitioned: bool },
    /// `jax.debug.print`: a debug callback that formats its arguments and prints them (JAX's
    /// `debug_print` primitive).
    Print { ordered: bool, partitioned: bool },
}

/// `pure_callback(..., vmap_method=)`: what `vmap` of a pure callback calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VmapMethod {
    /// Once per example, in a loop (JAX writes it as `lax.map`, a `scan`).
    Sequential,
    /// The same loop, unrolled.
    SequentialUnrolled,
    /// Once, with the batch axis leading every batched argument and size 1 in the others.
    ExpandDims,
    /// Once, with every argument broadcast to the batch size.
    BroadcastAll,
}

impl VmapMethod {
    pub fn parse(name: &str) -> Option<VmapMethod> {
        Some(match name {
            "sequential" => VmapMethod::Sequential,
            "sequential_unrolled" => VmapMethod::SequentialUnrolled,
            "expand_dims" => VmapMethod::ExpandDims,
            "broadcast_all" => VmapMethod::BroadcastAll,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            VmapMethod::Sequential => "sequential",
            VmapMethod::SequentialUnrolled => "sequential_unrolled",
            VmapMethod::ExpandDims => "expand_dims",
            VmapMethod::BroadcastAll => "broadcast_all",
        }
    }
}

impl HostCallback {
    /// The primitive's name, as JAX's jaxprs print it.
    pub fn primitive_name(&self) -> &'static str {
        match self.kind {
            CallbackKind::Pure { .. } => "pure_callback",
            CallbackKind::Io { .. } => "io_callback",
            CallbackKind::Debug { .. } => "debug_callback",
            CallbackKind::Print { .. } => "debug_print",
        }
    }

    /// Whether it must run even when nothing reads its results, in program order.
    pub fn has_effect(&self) -> bool {
        !matches!(self.kind, CallbackKind::Pure { .. })
    }

    /// The same function with other result types (what `vmap` makes of it).
    pub fn with_results(&self, results: Vec<Aval>) -> HostCallback {
        HostCallback { kind: self.kind, function: self.function.clone(), shown: self.shown.clone(), results }
    }

    /// The equation's parameters, in JAX's (alphabetical) order.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let bool_text = |b: bool| if b { "True" } else { "False" }.to_string();
        let results = || {
            let avals: Vec<String> = self.results.iter().map(shaped_array).collect();
            match avals.len() {
                1 => format!("({},)", avals[0]),
                _ => format!("({})", avals.join(", ")),
            }
        };
        let mut params = self.shown.clone();
        match self.kind {
            CallbackKind::Pure { vmap_method } => params.extend([
                ("result_avals", results()),
                ("sharding", "None".into()),
                ("vmap_method", vmap_method.map_or("None", VmapMethod::name).into()),
            ]),
            CallbackKind::Io { ordered } => params.extend([
                ("ordered", bool_text(ordered)),
                ("result_avals", results()),
                ("sharding", "None".into()),
            ]),
            CallbackKind::Debug { ordered, partitioned } => params.extend([
                ("effect", if ordered { "OrderedDebug" } else { "Debug" }.into()),
                ("partitioned", bool_text(partitioned)),
            ]),
            CallbackKind::Print { ordered, partitioned } => {
                params.extend([("ordered", bool_text(ordered)), ("partitioned", bool_text(partitioned))])
            }
        }
        params.sort_by_key(|(k, _)| *k);
        params
    }
}

/// `ShapedArray(float32[3])`, as JAX prints an abstract value.
fn shaped_array(aval: &Aval) -> String {
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    let weak = if aval.weak_type { ", weak_type=True" } else { "" };
    format!("ShapedArray({}[{}]{weak})", aval.dtype.name(), dims.join(","))
}

impl fmt::Debug for HostCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostCallback")
            .field("kind", &self.kind)
            .field("shown", &self.shown)
            .field("results", &self.results)
            .finish()
    }
}

/// What calls the script's functions while a program runs: the interpreter that staged them.
pub trait Host {
    /// Calls `callback` with one value per operand; its results, one per `callback.results`,
    /// of those types.
    fn call<'a>(
        &'a mut self,
        callback: &'a HostCallback,
        args: Vec<Array>,
    ) -> LocalFuture<'a, Result<Vec<Array>, JaxError>>;
}

/// The host of a program run where no script is (the compiler's tests, eager operations):
/// it has no functions to call.
pub struct NoHost;

impl Host for NoHost {
    fn call<'a>(
        &'a mut self,
        callback: &'a HostCallback,
        _: Vec<Array>,
    ) -> LocalFuture<'a, Result<Vec<Array>, JaxError>> {
        let name = callback.primitive_name();
        Box::pin(async move { Err(JaxError(format!("{name}: this program runs where no Python host can call back"))) })
    }
}

/// JAX's messages where a transformation meets a callback it cannot go through.
pub const PURE_JVP: &str =
    "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while taking gradients.";
pub const IO_JVP: &str = "IO callbacks do not support JVP.";
pub const IO_ORDERED_VMAP: &str = "Cannot `vmap` ordered IO callback.";
pub const PURE_VMAP_NONE: &str = "vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or 'legacy_vectorized'. Got vmap_method=None.";
