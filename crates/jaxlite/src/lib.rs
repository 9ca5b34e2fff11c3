//! jaxlite: the array model and the tracing machinery of a small JAX.
//!
//! Arrays ([`Array`]) carry an abstract value ([`Aval`]: shape, dtype, weak type). Operations
//! are [`Primitive`]s applied through [`Context::bind`]: eagerly, as one small program run by
//! the [`Executor`], or, inside a `jit` trace, recorded as equations of a [`Jaxpr`].
//! [`numpy`] layers NumPy broadcasting and JAX's promotion on top; [`eval`] is the reference
//! evaluator; [`format`] prints arrays as NumPy does.

pub mod array;
pub mod callback;
pub mod collective;
pub mod contraction;
pub mod control;
pub mod cost;
pub mod dtype;
pub mod eval;
pub mod format;
pub mod jax_random;
pub mod jaxpr;
pub mod loops;
pub mod mapped;
pub mod numpy;
pub mod prim;
pub mod random;
pub mod spmd;
pub mod trace;
pub mod transform;
pub mod xla_cpu;

pub use array::{Array, Aval, Data};
pub use dtype::DType;
pub use jaxpr::{Atom, Eqn, Jaxpr, Literal, SourceInfo, Var};
pub use prim::{BinaryOp, CompareOp, DotDims, Precision, Primitive, Remat, RematPolicy, UnaryOp};
pub use trace::{
    AheadOfTime, ClosedJaxpr, Context, Executor, JaxError, LocalFuture, ProgramCall, Tensor, Tracer, Transfers,
};
