//! Primitives: the operations a Jaxpr is made of, each with its parameters and shape rule.
//!
//! Adding a primitive means adding a variant here (name, parameters, shape rule), its
//! evaluation in `eval.rs`, and its lowering in the compiler.

use crate::array::Aval;
use crate::callback::HostCallback;
use crate::dtype::DType;
use crate::jaxpr::Jaxpr;
use std::fmt;
use std::rc::Rc;

pub use crate::collective::CollectiveOp;
pub use crate::control::{Branches, JitFunction, Remat, RematPolicy, ScanLoop, WhileLoop};

/// Matmul precision, as `jax.lax.Precision` and `jax_default_matmul_precision` name it.
/// On a TPU an f32 matmul at DEFAULT is one bf16 pass, HIGH three (bf16_3x), HIGHEST six.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    #[default]
    Default,
    High,
    Highest,
}

impl Precision {
    pub fn parse(name: &str) -> Option<Precision> {
        Some(match name.to_ascii_lowercase().as_str() {
            "default" | "bfloat16" | "fastest" => Precision::Default,
            "high" | "bfloat16_3x" | "tensorfloat32" => Precision::High,
            "highest" | "float32" => Precision::Highest,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::Default => "DEFAULT",
            Precision::High => "HIGH",
            Precision::Highest => "HIGHEST",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Exp,
    Log,
    Tanh,
    Logistic,
    Sqrt,
    Rsqrt,
    Abs,
    Sign,
    Sin,
    Cos,
    Log1p,
    Expm1,
    Exp2,
    Erf,
    Floor,
    Ceil,
    /// `round` with ROUND_AWAY_FROM_ZERO as `lax.round` defaults; `jnp.round` rounds half to
    /// even, which is `RoundEven`.
    Round,
    RoundEven,
    Square,
    /// Logical not on booleans.
    Not,
    /// The inverse error function (`jax.random.normal` maps uniforms through it).
    ErfInv,
    /// The same value, a copy (JAX's `copy_p`: what `jnp.array(x)`, `jnp.copy(x)` and
    /// `x.copy()` stage for a traced `x`). The compiler elides it, as XLA does.
    Copy,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Logistic => "logistic",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sign => "sign",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Log1p => "log1p",
            UnaryOp::Expm1 => "expm1",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Erf => "erf",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Round | UnaryOp::RoundEven => "round",
            UnaryOp::Square => "square",
            UnaryOp::Not => "not",
            UnaryOp::ErfInv => "erf_inv",
            UnaryOp::Copy => "copy",
        }
    }

    /// Ops defined only on floating-point operands.
    pub fn needs_float(self) -> bool {
        !matches!(self, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Square | UnaryOp::Not | UnaryOp::Copy)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    Atan2,
    /// C-style remainder (the sign of the dividend), as `lax.rem`.
    Rem,
    /// Bitwise on integers, logical on booleans.
    And,
    Or,
    Xor,
    /// Integers only; a shift outside 0..32 gives 0, or the sign for the arithmetic right shift.
    ShiftLeft,
    ShiftRightArithmetic,
    /// Zeros shifted in (on uint32, what `>>` is).
    ShiftRightLogical,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
            BinaryOp::Pow => "pow",
            BinaryOp::Atan2 => "atan2",
            BinaryOp::Rem => "rem",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::Xor => "xor",
            BinaryOp::ShiftLeft => "shift_left",
            BinaryOp::ShiftRightArithmetic => "shift_right_arithmetic",
            BinaryOp::ShiftRightLogical => "shift_right_logical",
        }
    }

    /// Whether the operation is bitwise (or logical), defined on integers and booleans only.
    pub fn is_bitwise(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor) || self.is_shift()
    }

    pub fn is_shift(self) -> bool {
        matches!(self, BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical)
    }
}

/// An elementwise comparison; the result is boolean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    pub fn name(self) -> &'static str {
        match self {
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
        }
    }

    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            CompareOp::Eq => a == b,
            CompareOp::Ne => a != b,
            CompareOp::Lt => a < b,
            CompareOp::Le => a <= b,
            CompareOp::Gt => a > b,
            CompareOp::Ge => a >= b,
        }
    }
}

/// `dot_general`'s dimension numbers: which axes are contracted and which are batch axes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotDims {
    pub lhs_contracting: Vec<usize>,
    pub rhs_contracting: Vec<usize>,
    pub lhs_batch: Vec<usize>,
    pub rhs_batch: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// A collective over the mapped axis `axis_name` of `axis_size` chips (see
    /// `crate::collective`).
    Collective {
        op: CollectiveOp,
        axis_name: String,
        axis_size: usize,
    },
    Unary(UnaryOp),
    /// Operands have equal shapes, or one is a rank-0 scalar broadcast over the other.
    Binary(BinaryOp),
    DotGeneral {
        dims: DotDims,
        /// `None` means the configured default (`jax_default_matmul_precision`).
        precision: Option<Precision>,
        preferred_element_type: Option<DType>,
    },
    Reshape {
        new_sizes: Vec<usize>,
    },
    BroadcastInDim {
        shape: Vec<usize>,
        broadcast_dimensions: Vec<usize>,
    },
    ConvertElementType {
        new_dtype: DType,
        /// Whether the result is weakly typed: a promotion of two weakly typed operands
        /// converts to a weak result, as in JAX.
        weak_type: bool,
    },
    Transpose {
        permutation: Vec<usize>,
    },
    ReduceSum {
        axes: Vec<usize>,
    },
    ReduceMax {
        axes: Vec<usize>,
    },
    ReduceMin {
        axes: Vec<usize>,
    },
    /// Index of the largest (`is_max`) or smallest element along `axis`; the first on ties.
    ArgReduce {
        axis: usize,
        is_max: bool,
        index_dtype: DType,
    },
    /// Operands have equal shapes, or one is a rank-0 scalar (as for `Binary`); bool result.
    Compare(CompareOp),
    /// `select_n(which, *cases)`: `cases[which]` elementwise; a bool `which` picks between two
    /// (False picks the first).
    SelectN,
    /// `clamp(lo, x, hi)`: `x` held within `[lo, hi]` elementwise (`min(max(x, lo), hi)`, as
    /// XLA defines it); `lo` and `hi` are scalars or have `x`'s shape. `lax.switch` clamps its
    /// index with it.
    Clamp,
    IntegerPow {
        y: i32,
    },
    Cumsum {
        axis: usize,
        reverse: bool,
    },
    /// No operands: an array counting up along `dimension`.
    Iota {
        dtype: DType,
        shape: Vec<usize>,
        dimension: usize,
    },
    Concatenate {
        dimension: usize,
    },
    /// Operands `x` and a scalar padding value; `(low, high, interior)` per axis. Negative low
    /// or high padding crops.
    Pad {
        config: Vec<(i64, i64, usize)>,
    },
    Slice {
        start_indices: Vec<usize>,
        limit_indices: Vec<usize>,
        strides: Option<Vec<usize>>,
    },
    Squeeze {
        dimensions: Vec<usize>,
    },
    /// The elements in reverse order along each of `dimensions` (`lax.rev`, `jnp.flip`).
    Rev {
        dimensions: Vec<usize>,
    },
    /// Operands `x` and one scalar integer start index per axis (clamped into range, as XLA).
    DynamicSlice {
        slice_sizes: Vec<usize>,
    },
    /// Operands `x`, `update` and one scalar start index per axis (clamped likewise).
    DynamicUpdateSlice,
    /// Operands `x`, `indices` (int32, one per axis of `axes`, which ascend) and `updates` (x's
    /// shape without `axes`): the elements of x at `indices` along `axes`, at every position
    /// along the other axes, take their updates, combined with what is there by `combine`
    /// (`None` replaces it: `scatter`; `scatter-add` and its kin otherwise). An index out of
    /// range drops the update (JAX's `mode=FILL_OR_DROP`). The form of JAX's `scatter` that
    /// `x.at[i].set(v)` stages for integers `i` computed under a trace.
    Scatter {
        combine: Option<BinaryOp>,
        axes: Vec<usize>,
    },
    /// Operands `x` and `indices` (int32, `[..., 1]`): for each index, the row of x it names
    /// along the first axis, clamped into range (JAX's `mode=PROMISE_IN_BOUNDS`, which XLA
    /// clamps); the result is the indices' shape without its last axis, then a row's. The
    /// form of JAX's `gather` that `x[i]` stages for an integer array `i`.
    Gather,
    /// Identity on values, zero derivative.
    StopGradient,
    /// `jax.lax.with_sharding_constraint`: the value itself, which the SPMD partitioner
    /// (`crate::spmd`) lays out over the mesh as the constraint says.
    ShardingConstraint {
        constraint: Rc<crate::spmd::Constraint>,
    },
    /// `jax.shard_map` called inside `jit`: its per-chip function over a mesh, which the SPMD
    /// partitioner places inline between the layouts its specs give.
    ShardMap {
        function: Rc<crate::spmd::ShardMapCall>,
    },
    /// The bits of each element read as `new_dtype`, of the same width (`lax.bitcast_convert_type`).
    BitcastConvertType {
        new_dtype: DType,
    },
    /// Raw keys (`uint32[..., 2]`) as typed keys (`key<fry>[...]`), and back: how JAX's
    /// `jax.random` functions take a `PRNGKey` and return new ones.
    RandomWrap,
    RandomUnwrap,
    /// Integer seeds as typed keys (`jax.random.PRNGKey(seed)` of a traced seed): a key per
    /// element, its words the seed's high 32 bits (0 for an int32) and its low 32.
    RandomSeed,
    /// `shape` words of random bits per key: `key<fry>[K] -> uint32[K + shape]`; element i
    /// (row-major) is the two Threefry-2x32 output words of the counter `(0, i)` XORed.
    RandomBits {
        shape: Vec<usize>,
    },
    /// `shape` new keys per key: `key<fry>[K] -> key<fry>[K + shape]`, key i the Threefry
    /// encryption of `(0, i)`.
    RandomSplit {
        shape: Vec<usize>,
    },
    /// `(keys, data)`: each key encrypting `(0, data)` (data uint32, one per key or a scalar).
    RandomFoldIn,
    /// The sum of two tangents or cotangents of one value (JAX's `add_any`): what
    /// differentiation writes where it adds up contributions, so a Jaxpr shows which sums it
    /// made. `add` on values; lowering makes it `add` before the compiler sees it.
    AddAny,
    /// A function with its own JVP rule (`jax.custom_jvp`): one output per leaf of what it
    /// returns. Operands: the values `call` closes over, then those `rule` closes over, then
    /// the arguments.
    CustomJvpCall {
        function: Rc<CustomJvp>,
    },
    /// A function with its own forward and backward passes (`jax.custom_vjp`): one output per
    /// leaf of what it returns. Operands: the values `call`, `fwd` and `bwd` close over, then
    /// the arguments.
    CustomVjpCall {
        function: Rc<CustomVjp>,
    },
    /// The tangents of a `custom_vjp` function's outputs: the linear map whose transpose is
    /// `bwd`, which is all reverse mode needs of it (forward mode cannot evaluate it, as in
    /// JAX). Operands: the values `bwd` closes over, the residuals, the arguments' tangents;
    /// one output per output of the function.
    CustomVjpTangent {
        function: Rc<CustomVjp>,
    },
    /// `lax.while_loop` (and `fori_loop` with traced bounds), staged as JAX stages it: `body`
    /// repeated while `cond` holds. Operands: the values `cond` closes over, then those `body`
    /// closes over, then the initial carries; the outputs are the final carries.
    While {
        function: Rc<WhileLoop>,
    },
    /// `lax.scan` (and `fori_loop` with static bounds, `lax.map`), staged as JAX stages it.
    /// Operands: the values the body closes over, the initial carries, the `xs`; outputs: the
    /// final carries, then the stacked `ys` (see `ScanLoop`).
    Scan {
        function: Rc<ScanLoop>,
    },
    /// `lax.cond` and `lax.switch`, staged as JAX stages them: the branch an `int32` index
    /// picks. Operands: the index, then the operands every branch takes (see `Branches`).
    Cond {
        function: Rc<Branches>,
    },
    /// `jax.jit` called inside a trace (JAX's `pjit`, printed `jit`): the function's Jaxpr
    /// applied as a unit (see `JitFunction`).
    Jit {
        function: Rc<JitFunction>,
    },
    /// `jax.checkpoint` called inside a trace (JAX's `remat2`): the function's Jaxpr applied as
    /// a unit, recomputed in reverse mode as its policy says (see `Remat`).
    Remat {
        function: Rc<Remat>,
    },
    /// `lax.reduce_precision`: each value rounded (to nearest, ties to even) to a float of
    /// `mantissa_bits` fraction bits and `exponent_bits` exponent bits, in its own type, as
    /// XLA's `ReducePrecision`. JAX's checkpoint inserts it after a value it saves (at the
    /// type's own precision, where it changes nothing).
    ReducePrecision {
        exponent_bits: u32,
        mantissa_bits: u32,
    },
    /// `jax.ad_checkpoint.checkpoint_name`: the operand unchanged, named for a checkpoint
    /// policy (`save_only_these_names`, …).
    Name {
        name: String,
    },
    /// `jax.pure_callback`, `io_callback` and `debug.callback`: the host calls a function of
    /// the script's with the operands' values (see `callback.rs`). Any number of operands;
    /// the outputs are the callback's declared results.
    Callback {
        function: Rc<HostCallback>,
    },
}

/// A function with its own JVP rule (`jax.custom_jvp`), both traced to Jaxprs whose leading
/// inputs are the values they close over. Evaluating it evaluates `call`; differentiating it
/// applies `rule` instead (and differentiates `rule` itself for higher derivatives), as JAX's
/// `custom_jvp_call` does. Two are equal only when they are the same traced function.
#[derive(Debug)]
pub struct CustomJvp {
    pub name: String,
    pub rule_name: String,
    /// (closed-over values, arguments) -> outputs.
    pub call: Jaxpr,
    pub call_consts: usize,
    pub rule: JvpRule,
}

/// A custom JVP rule: traced, or still to be traced (see `Pending`).
#[derive(Debug)]
pub enum JvpRule {
    /// (closed-over values, arguments, their tangents) -> outputs, then their tangents.
    Traced {
        jaxpr: Jaxpr,
        consts: usize,
    },
    Pending(Pending<CustomJvp>),
}

/// A custom rule not traced yet. JAX traces a rule only when something differentiates the
/// function: where the call itself is not differentiated (under `jit` or `vmap`, in a loop
/// body) it is staged with its rule pending, and the interpreter traces the rule when a
/// transformation is about to differentiate the Jaxpr holding it, or, for a VJP's `bwd`, when
/// reverse mode is about to transpose it (see `VjpPasses::ForwardTraced`).
pub enum Pending<F> {
    /// What the interpreter needs to trace the rule: opaque here, as a callback's function.
    Source(Rc<dyn std::any::Any>),
    /// A pending rule of a function `vmap` batched: `of`'s rule, once traced, batched with
    /// these flags for `of`'s operands (a rule's closed-over values are never batched).
    Batched { of: Rc<F>, flags: Vec<bool>, size: usize },
}

impl<F> fmt::Debug for Pending<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pending::Source(_) => f.write_str("Pending::Source"),
            Pending::Batched { flags, size, .. } => write!(f, "Pending::Batched {{ flags: {flags:?}, size: {size} }}"),
        }
    }
}

/// The message a transformation gives where it meets a pending rule: the interpreter traces
/// those at the top of a Jaxpr it differentiates, not inside loop and branch bodies.
fn untraced(name: &str) -> crate::JaxError {
    crate::JaxError(format!(
        "differentiating {name} inside a loop or branch body, where its custom rule calls {name} itself and \
         this is its second derivative there, is not supported by the playground yet"
    ))
}

impl CustomJvp {
    /// How many arguments (not closed-over values) the function takes.
    pub fn arguments(&self) -> usize {
        self.call.all_inputs().count() - self.call_consts
    }

    /// How many values the rule closes over (none while it is pending).
    pub fn rule_consts(&self) -> usize {
        match &self.rule {
            JvpRule::Traced { consts, .. } => *consts,
            JvpRule::Pending(_) => 0,
        }
    }

    /// The traced rule, or an internal error where it is pending.
    pub fn traced_rule(&self) -> Result<&Jaxpr, crate::JaxError> {
        match &self.rule {
            JvpRule::Traced { jaxpr, .. } => Ok(jaxpr),
            JvpRule::Pending(_) => Err(untraced(&self.name)),
        }
    }

    /// How many operands an equation applying it takes.
    pub fn operands(&self) -> usize {
        self.call_consts + self.rule_consts() + self.arguments()
    }

    /// Splits an equation's operands into (call's closed-over values, rule's, arguments).
    pub fn split<'a, T>(&self, operands: &'a [T]) -> (&'a [T], &'a [T], &'a [T]) {
        let (call, rest) = operands.split_at(self.call_consts);
        let (rule, args) = rest.split_at(self.rule_consts());
        (call, rule, args)
    }
}

/// A function with its own VJP (`jax.custom_vjp`), its three parts traced to Jaxprs whose
/// leading inputs are the values they close over. Compared by identity, as `CustomJvp`.
#[derive(Debug)]
pub struct CustomVjp {
    pub name: String,
    pub fwd_name: String,
    pub bwd_name: String,
    /// (closed-over values, arguments) -> the outputs.
    pub call: Jaxpr,
    pub call_consts: usize,
    pub passes: VjpPasses,
}

/// A custom VJP's two passes: traced, or still to be traced (see `Pending`). (One lives in
/// each `Rc<CustomVjp>`, so the size of its larger variant costs nothing worth a box.)
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum VjpPasses {
    Traced {
        /// (closed-over values, arguments) -> the outputs, then the residuals.
        fwd: Jaxpr,
        fwd_consts: usize,
        /// (closed-over values, residuals, one cotangent per output) -> one cotangent per
        /// argument.
        bwd: Jaxpr,
        bwd_consts: usize,
    },
    /// `fwd` traced, `bwd` not yet: JAX runs `fwd` where it differentiates the call, and
    /// `bwd` only when reverse mode transposes, so the interpreter traces it just before
    /// transposing (a `custom_vjp` under `jvp` alone never runs it).
    ForwardTraced {
        fwd: Jaxpr,
        fwd_consts: usize,
        bwd: Pending<CustomVjp>,
    },
    Pending(Pending<CustomVjp>),
}

impl CustomVjp {
    pub fn arguments(&self) -> usize {
        self.call.all_inputs().count() - self.call_consts
    }

    /// How many values `fwd` and `bwd` close over (none while they are pending).
    pub fn pass_consts(&self) -> (usize, usize) {
        match &self.passes {
            VjpPasses::Traced { fwd_consts, bwd_consts, .. } => (*fwd_consts, *bwd_consts),
            VjpPasses::ForwardTraced { fwd_consts, .. } => (*fwd_consts, 0),
            VjpPasses::Pending(_) => (0, 0),
        }
    }

    /// The traced passes (fwd, bwd), or an internal error where they are pending.
    pub fn traced_passes(&self) -> Result<(&Jaxpr, &Jaxpr), crate::JaxError> {
        match &self.passes {
            VjpPasses::Traced { fwd, bwd, .. } => Ok((fwd, bwd)),
            VjpPasses::ForwardTraced { .. } | VjpPasses::Pending(_) => Err(untraced(&self.name)),
        }
    }

    /// The traced `fwd` pass, or an internal error where it is pending.
    pub fn traced_fwd(&self) -> Result<&Jaxpr, crate::JaxError> {
        match &self.passes {
            VjpPasses::Traced { fwd, .. } | VjpPasses::ForwardTraced { fwd, .. } => Ok(fwd),
            VjpPasses::Pending(_) => Err(untraced(&self.name)),
        }
    }

    /// How many operands a `custom_vjp_call` takes.
    pub fn operands(&self) -> usize {
        let (fwd, bwd) = self.pass_consts();
        self.call_consts + fwd + bwd + self.arguments()
    }

    /// How many outputs the function has (leaves of what it returns).
    pub fn outputs(&self) -> usize {
        self.call.outvars.len()
    }

    /// How many residuals `fwd` returns (none while it is pending: only a traced function
    /// has a tangent equation, which is where residuals are passed).
    pub fn residuals(&self) -> usize {
        match &self.passes {
            VjpPasses::Traced { fwd, .. } | VjpPasses::ForwardTraced { fwd, .. } => fwd.outvars.len() - self.outputs(),
            VjpPasses::Pending(_) => 0,
        }
    }

    /// Splits a call's operands into (call's, fwd's, bwd's closed-over values, arguments).
    pub fn split<'a, T>(&self, operands: &'a [T]) -> [&'a [T]; 4] {
        let (fwd_consts, bwd_consts) = self.pass_consts();
        let (call, rest) = operands.split_at(self.call_consts);
        let (fwd, rest) = rest.split_at(fwd_consts);
        let (bwd, args) = rest.split_at(bwd_consts);
        [call, fwd, bwd, args]
    }

    /// Splits a tangent equation's operands into (bwd's closed-over values, residuals,
    /// tangents).
    pub fn split_tangent<'a, T>(&self, operands: &'a [T]) -> [&'a [T]; 3] {
        let (bwd, rest) = operands.split_at(self.pass_consts().1);
        let (residuals, tangents) = rest.split_at(self.residuals());
        [bwd, residuals, tangents]
    }
}

/// Equality and hashing by identity: two traced functions are the same only if they are one.
macro_rules! identity_eq {
    ($($t:ty),*) => {$(
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                std::ptr::eq(self, other)
            }
        }

        impl Eq for $t {}

        impl std::hash::Hash for $t {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                std::ptr::hash(self, state)
            }
        }
    )*};
}

identity_eq!(CustomJvp, CustomVjp, WhileLoop, ScanLoop, Branches, JitFunction, Remat, HostCallback);

impl Primitive {
    /// Whether the equation must run even when nothing reads its outputs (an IO or debug
    /// callback); every other primitive is pure, and a pure callback too.
    pub fn has_effect(&self) -> bool {
        match self {
            Primitive::Callback { function } => function.has_effect(),
            Primitive::Jit { function } => function.body.eqns.iter().any(|e| e.prim.has_effect()),
            Primitive::Remat { function } => function.body.eqns.iter().any(|e| e.prim.has_effect()),
            Primitive::ShardMap { function } => function.body.eqns.iter().any(|e| e.prim.has_effect()),
            _ => false,
        }
    }

    /// The Jaxprs a loop, a branch or a nested `jit` runs (not a custom function's, which it
    /// runs as a call).
    pub fn sub_jaxprs(&self) -> Vec<&Jaxpr> {
        match self {
            Primitive::While { function } => vec![&function.cond, &function.body],
            Primitive::Scan { function } => vec![&function.body],
            Primitive::Cond { function } => function.branches.iter().collect(),
            Primitive::Jit { function } => vec![&function.body],
            Primitive::Remat { function } => vec![&function.body],
            _ => vec![],
        }
    }

    /// The body of a call the compiler inlines, a nested `jit` or a checkpoint (`remat2`),
    /// whose operands are its body's inputs.
    pub fn call_body(&self) -> Option<&Jaxpr> {
        match self {
            Primitive::Jit { function } => Some(&function.body),
            Primitive::Remat { function } => Some(&function.body),
            _ => None,
        }
    }

    /// For a call of a custom derivative's function (`custom_jvp_call`, `custom_vjp_call`):
    /// the function's Jaxpr and its inputs picked from the equation's `operands`. What
    /// evaluating, compiling or shape-checking it runs.
    pub fn custom_body<'a, T: Clone>(&'a self, operands: &[T]) -> Option<(&'a Jaxpr, Vec<T>)> {
        let (call, consts, args) = match self {
            Primitive::CustomJvpCall { function } => {
                let (consts, _, args) = function.split(operands);
                (&function.call, consts, args)
            }
            Primitive::CustomVjpCall { function } => {
                let [consts, _, _, args] = function.split(operands);
                (&function.call, consts, args)
            }
            _ => return None,
        };
        Some((call, consts.iter().chain(args).cloned().collect()))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Primitive::Collective { op, .. } => op.name(),
            Primitive::Unary(op) => op.name(),
            Primitive::Binary(op) => op.name(),
            Primitive::DotGeneral { .. } => "dot_general",
            Primitive::Reshape { .. } => "reshape",
            Primitive::BroadcastInDim { .. } => "broadcast_in_dim",
            Primitive::ConvertElementType { .. } => "convert_element_type",
            Primitive::Transpose { .. } => "transpose",
            Primitive::ReduceSum { .. } => "reduce_sum",
            Primitive::ReduceMax { .. } => "reduce_max",
            Primitive::ReduceMin { .. } => "reduce_min",
            Primitive::ArgReduce { is_max: true, .. } => "argmax",
            Primitive::ArgReduce { is_max: false, .. } => "argmin",
            Primitive::Compare(op) => op.name(),
            Primitive::SelectN => "select_n",
            Primitive::Clamp => "clamp",
            Primitive::IntegerPow { .. } => "integer_pow",
            Primitive::Cumsum { .. } => "cumsum",
            Primitive::Iota { .. } => "iota",
            Primitive::Concatenate { .. } => "concatenate",
            Primitive::Pad { .. } => "pad",
            Primitive::Slice { .. } => "slice",
            Primitive::Squeeze { .. } => "squeeze",
            Primitive::Rev { .. } => "rev",
            Primitive::DynamicSlice { .. } => "dynamic_slice",
            Primitive::DynamicUpdateSlice => "dynamic_update_slice",
            Primitive::Scatter { combine: None, .. } => "scatter",
            Primitive::Scatter { combine: Some(BinaryOp::Add), .. } => "scatter-add",
            Primitive::Scatter { combine: Some(BinaryOp::Mul), .. } => "scatter-mul",
            Primitive::Scatter { combine: Some(BinaryOp::Min), .. } => "scatter-min",
            Primitive::Scatter { combine: Some(_), .. } => "scatter-max",
            Primitive::Gather => "gather",
            Primitive::StopGradient => "stop_gradient",
            Primitive::ShardingConstraint { .. } => "sharding_constraint",
            Primitive::ShardMap { .. } => "shard_map",
            Primitive::BitcastConvertType { .. } => "bitcast_convert_type",
            Primitive::RandomWrap => "random_wrap",
            Primitive::RandomUnwrap => "random_unwrap",
            Primitive::RandomSeed => "random_seed",
            Primitive::RandomBits { .. } => "random_bits",
            Primitive::RandomSplit { .. } => "random_split",
            Primitive::RandomFoldIn => "random_fold_in",
            Primitive::AddAny => "add_any",
            Primitive::CustomJvpCall { .. } => "custom_jvp_call",
            Primitive::CustomVjpCall { .. } => "custom_vjp_call",
            Primitive::CustomVjpTangent { .. } => "custom_lin",
            Primitive::While { .. } => "while",
            Primitive::Scan { .. } => "scan",
            Primitive::Cond { .. } => "cond",
            Primitive::Jit { .. } => "jit",
            Primitive::Remat { .. } => "remat2",
            Primitive::Name { .. } => "name",
            Primitive::ReducePrecision { .. } => "reduce_precision",
            Primitive::Callback { function } => function.primitive_name(),
        }
    }

    /// How many operands the primitive takes, or `None` when variadic.
    fn arity(&self) -> Option<usize> {
        match self {
            Primitive::Collective { op, .. } => Some(op.arity()),
            Primitive::Iota { .. } => Some(0),
            Primitive::Clamp | Primitive::Scatter { .. } => Some(3),
            Primitive::Binary(_)
            | Primitive::Compare(_)
            | Primitive::DotGeneral { .. }
            | Primitive::Pad { .. }
            | Primitive::RandomFoldIn
            | Primitive::Gather
            | Primitive::AddAny => Some(2),
            Primitive::SelectN
            | Primitive::Concatenate { .. }
            | Primitive::DynamicSlice { .. }
            | Primitive::DynamicUpdateSlice => None,
            Primitive::CustomJvpCall { function, .. } => Some(function.operands()),
            Primitive::CustomVjpCall { function } => Some(function.operands()),
            Primitive::CustomVjpTangent { function } => {
                Some(function.pass_consts().1 + function.residuals() + function.arguments())
            }
            Primitive::While { function } => Some(function.cond_consts + function.body_consts + function.carries()),
            Primitive::Scan { function } => Some(function.body.invars.len()),
            Primitive::Cond { function } => Some(1 + function.operands()),
            Primitive::Jit { function } => Some(function.body.invars.len()),
            Primitive::Remat { function } => Some(function.body.invars.len()),
            Primitive::ShardMap { function } => Some(function.body.invars.len()),
            _ => Some(1),
        }
    }

    /// The output types for these input types, or a JAX-like message naming the op and shapes.
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        let name = self.name();
        if let Primitive::Callback { function } = self {
            return Ok(function.results.clone());
        }
        if let Some(arity) = self.arity() {
            if inputs.len() != arity {
                return Err(format!("{name} takes {arity} operands, got {}", inputs.len()));
            }
        } else if inputs.is_empty() {
            return Err(format!("{name} takes at least one operand"));
        }
        match self {
            Primitive::While { function } => return function.abstract_eval(inputs),
            Primitive::Scan { function } => return function.abstract_eval(inputs),
            Primitive::Cond { function } => return function.abstract_eval(inputs),
            Primitive::Jit { function } => return function.abstract_eval(inputs),
            Primitive::Remat { function } => return function.abstract_eval(inputs),
            Primitive::ShardMap { function } => return Ok(function.abstract_eval()),
            Primitive::Collective { op, axis_size, .. } => return Ok(vec![op.abstract_eval(inputs, *axis_size)?]),
            _ => {}
        }
        if let Primitive::Iota { dtype, shape, dimension } = self {
            if *dimension >= shape.len() {
                return Err(format!("iota dimension {dimension} out of range for {shape:?}"));
            }
            return Ok(vec![Aval::new(shape.clone(), *dtype)]);
        }
        // A custom derivative's call takes the types its function was traced for; the tangent
        // of a custom_vjp function takes the types of its arguments.
        let custom = match self {
            Primitive::CustomVjpTangent { function } => {
                let args = function.split_tangent(inputs)[2].to_vec();
                Some((&function.call, function.call_consts, args))
            }
            _ => self.custom_body(inputs).map(|(call, ins)| (call, 0, ins)),
        };
        if let Some((call, skip, operands)) = custom {
            let declared = call.all_inputs().skip(skip).map(|v| call.aval(v));
            if let Some((want, got)) = declared.zip(&operands).find(|(w, g)| !w.same_type(g)) {
                return Err(format!("{name} was traced for {} and called with {}", want.short(), got.short()));
            }
            return Ok(call.outvars.iter().map(|a| call.atom_aval(a).clone()).collect());
        }
        let x = &inputs[0];
        if let Some(out) = self.random_eval(inputs)? {
            return Ok(vec![out]);
        }
        let same = |shape: Vec<usize>| Aval { shape, dtype: x.dtype, weak_type: x.weak_type };
        let out = match self {
            Primitive::Iota { .. } => unreachable!("handled above"),
            Primitive::Unary(op) => {
                if op.needs_float() && !x.dtype.is_float() {
                    return Err(format!("{name} requires a floating-point operand, got {}", x.short()));
                }
                if *op == UnaryOp::Not && x.dtype != DType::Bool && x.dtype != DType::I32 {
                    return Err(format!("not requires a boolean or integer operand, got {}", x.short()));
                }
                x.clone()
            }
            Primitive::Binary(_) | Primitive::Compare(_) => {
                let y = &inputs[1];
                if x.dtype != y.dtype {
                    return Err(format!(
                        "{name} requires arguments to have the same dtypes, got {}, {}",
                        x.dtype, y.dtype
                    ));
                }
                let shape = elementwise_shape(name, &x.shape, &y.shape)?;
                if let Primitive::Binary(op) = self {
                    if op.is_bitwise() && (x.dtype.is_float() || (op.is_shift() && x.dtype == DType::Bool)) {
                        return Err(format!("{name} does not accept dtype {}", x.dtype));
                    }
                }
                if matches!(self, Primitive::Compare(_)) {
                    Aval::new(shape, DType::Bool)
                } else {
                    Aval { shape, dtype: x.dtype, weak_type: x.weak_type && y.weak_type }
                }
            }
            Primitive::SelectN => {
                let cases = &inputs[1..];
                let Some(first) = cases.first() else {
                    return Err("select_n requires at least one case".into());
                };
                if x.dtype != DType::Bool && x.dtype != DType::I32 {
                    return Err(format!("select_n selector must be bool or int32, got {}", x.short()));
                }
                if x.dtype == DType::Bool && cases.len() > 2 {
                    return Err("select_n with a boolean selector takes at most two cases".into());
                }
                for c in cases {
                    if c.dtype != first.dtype || c.shape != first.shape {
                        return Err(format!(
                            "select_n cases must have the same shapes and dtypes, got {} and {}",
                            first.short(),
                            c.short()
                        ));
                    }
                }
                if x.rank() != 0 && x.shape != first.shape {
                    return Err(format!(
                        "select_n selector shape {:?} must be scalar or match the cases' {:?}",
                        x.shape, first.shape
                    ));
                }
                Aval { weak_type: cases.iter().all(|c| c.weak_type), ..first.clone() }
            }
            Primitive::Clamp => {
                let (lo, x, hi) = (&inputs[0], &inputs[1], &inputs[2]);
                for bound in [lo, hi] {
                    if bound.dtype != x.dtype || (bound.rank() != 0 && bound.shape != x.shape) {
                        return Err(format!(
                            "clamp requires min and max to be scalars or of the operand's shape and dtype, got min {}, \
                             operand {}, max {}",
                            lo.short(),
                            x.short(),
                            hi.short()
                        ));
                    }
                }
                x.clone()
            }
            Primitive::IntegerPow { .. } => {
                if x.dtype == DType::Bool {
                    return Err(format!("integer_pow does not accept {}", x.short()));
                }
                x.clone()
            }
            Primitive::DotGeneral { dims, preferred_element_type, .. } => {
                dot_general_shape(x, &inputs[1], dims, *preferred_element_type)?
            }
            Primitive::Reshape { new_sizes } => {
                let n: usize = new_sizes.iter().product();
                if n != x.size() {
                    return Err(format!(
                        "cannot reshape array of shape {:?} (size {}) into shape {:?} (size {n})",
                        x.shape,
                        x.size(),
                        new_sizes
                    ));
                }
                same(new_sizes.clone())
            }
            Primitive::BroadcastInDim { shape, broadcast_dimensions } => {
                let ok = broadcast_dimensions.len() == x.rank()
                    && broadcast_dimensions.windows(2).all(|w| w[0] < w[1])
                    && broadcast_dimensions
                        .iter()
                        .zip(&x.shape)
                        .all(|(&d, &s)| d < shape.len() && (s == 1 || s == shape[d]));
                if !ok {
                    return Err(format!(
                        "broadcast_in_dim cannot broadcast {:?} to {:?} along dimensions {:?}",
                        x.shape, shape, broadcast_dimensions
                    ));
                }
                same(shape.clone())
            }
            Primitive::ConvertElementType { new_dtype, weak_type } => {
                Aval { shape: x.shape.clone(), dtype: *new_dtype, weak_type: *weak_type }
            }
            Primitive::Transpose { permutation } => {
                if !is_permutation(permutation, x.rank()) {
                    return Err(format!(
                        "transpose permutation {:?} is not a permutation of the axes of {:?}",
                        permutation, x.shape
                    ));
                }
                same(permutation.iter().map(|&p| x.shape[p]).collect())
            }
            Primitive::ReduceSum { axes } | Primitive::ReduceMax { axes } | Primitive::ReduceMin { axes } => {
                check_axes(name, axes, x)?;
                if !matches!(self, Primitive::ReduceSum { .. }) && axes.iter().any(|&a| x.shape[a] == 0) {
                    return Err(format!("zero-size array to reduction operation {name} which has no identity"));
                }
                same((0..x.rank()).filter(|a| !axes.contains(a)).map(|a| x.shape[a]).collect())
            }
            Primitive::ArgReduce { axis, index_dtype, .. } => {
                check_axes(name, &[*axis], x)?;
                if x.shape[*axis] == 0 {
                    return Err(format!("attempt to get {name} of an empty sequence"));
                }
                let shape = (0..x.rank()).filter(|a| a != axis).map(|a| x.shape[a]).collect();
                Aval::new(shape, *index_dtype)
            }
            Primitive::Cumsum { axis, .. } => {
                check_axes(name, &[*axis], x)?;
                x.clone()
            }
            Primitive::Concatenate { dimension } => {
                if inputs.iter().any(|y| y.rank() != x.rank()) {
                    let shapes: Vec<String> = inputs.iter().map(|a| tuple(&a.shape)).collect();
                    return Err(format!(
                        "Cannot concatenate arrays with different numbers of dimensions: got {}.",
                        shapes.join(", ")
                    ));
                }
                check_axes(name, &[*dimension], x)?;
                let mut shape = x.shape.clone();
                for y in &inputs[1..] {
                    let compatible = y.dtype == x.dtype
                        && y.rank() == x.rank()
                        && (0..x.rank()).all(|d| d == *dimension || y.shape[d] == x.shape[d]);
                    if !compatible {
                        return Err(format!(
                            "concatenate requires arrays of the same dtype and equal shapes except along dimension {dimension}, got {} and {}",
                            x.short(),
                            y.short()
                        ));
                    }
                    shape[*dimension] += y.shape[*dimension];
                }
                Aval { weak_type: inputs.iter().all(|a| a.weak_type), ..same(shape) }
            }
            Primitive::Pad { config } => {
                let v = &inputs[1];
                if v.rank() != 0 || v.dtype != x.dtype || config.len() != x.rank() {
                    return Err(format!(
                        "pad needs a scalar padding value of the operand's dtype and one (low, high, interior) per axis, got {} and {} with {} configs",
                        x.short(),
                        v.short(),
                        config.len()
                    ));
                }
                let mut shape = Vec::new();
                for (&n, &(lo, hi, interior)) in x.shape.iter().zip(config) {
                    let inner = if n == 0 { 0 } else { n + (n - 1) * interior } as i64;
                    let size = inner + lo + hi;
                    if size < 0 {
                        return Err(format!("pad config {config:?} makes a negative dimension for {:?}", x.shape));
                    }
                    shape.push(size as usize);
                }
                same(shape)
            }
            Primitive::Slice { start_indices, limit_indices, strides } => {
                let strides = strides.clone().unwrap_or_else(|| vec![1; x.rank()]);
                let ok = start_indices.len() == x.rank()
                    && limit_indices.len() == x.rank()
                    && strides.len() == x.rank()
                    && (0..x.rank()).all(|d| {
                        start_indices[d] <= limit_indices[d] && limit_indices[d] <= x.shape[d] && strides[d] > 0
                    });
                if !ok {
                    return Err(format!(
                        "slice start_indices {start_indices:?}, limit_indices {limit_indices:?}, strides {strides:?} are invalid for {:?}",
                        x.shape
                    ));
                }
                same((0..x.rank()).map(|d| (limit_indices[d] - start_indices[d]).div_ceil(strides[d])).collect())
            }
            Primitive::Squeeze { dimensions } => {
                check_axes(name, dimensions, x)?;
                if dimensions.iter().any(|&d| x.shape[d] != 1) {
                    return Err(format!(
                        "cannot select an axis to squeeze out which has size not equal to one, got shape={:?} and dimensions={dimensions:?}",
                        x.shape
                    ));
                }
                same((0..x.rank()).filter(|d| !dimensions.contains(d)).map(|d| x.shape[d]).collect())
            }
            Primitive::Rev { dimensions } => {
                check_axes(name, dimensions, x)?;
                x.clone()
            }
            Primitive::DynamicSlice { slice_sizes } => {
                check_indices(name, &inputs[1..], x)?;
                if slice_sizes.len() != x.rank() || slice_sizes.iter().zip(&x.shape).any(|(s, n)| s > n) {
                    return Err(format!(
                        "dynamic_slice slice_sizes {slice_sizes:?} must fit in the operand's shape {:?}",
                        x.shape
                    ));
                }
                same(slice_sizes.clone())
            }
            Primitive::DynamicUpdateSlice => {
                let Some(update) = inputs.get(1) else {
                    return Err("dynamic_update_slice takes an operand and an update".into());
                };
                check_indices(name, &inputs[2..], x)?;
                if update.dtype != x.dtype
                    || update.rank() != x.rank()
                    || update.shape.iter().zip(&x.shape).any(|(u, n)| u > n)
                {
                    return Err(format!(
                        "dynamic_update_slice update {} must fit in the operand {}",
                        update.short(),
                        x.short()
                    ));
                }
                x.clone()
            }
            Primitive::Scatter { combine, axes } => {
                let (indices, updates) = (&inputs[1], &inputs[2]);
                let window: Vec<usize> = (0..x.rank()).filter(|d| !axes.contains(d)).map(|d| x.shape[d]).collect();
                if axes.is_empty() || axes.windows(2).any(|w| w[0] >= w[1]) || axes.iter().any(|&d| d >= x.rank()) {
                    return Err(format!("{name} needs ascending axes of {}, got {axes:?}", x.short()));
                }
                if indices.dtype != DType::I32 || indices.shape != [axes.len()] {
                    return Err(format!("{name} needs int32[{}] indices, got {}", axes.len(), indices.short()));
                }
                if updates.dtype != x.dtype || updates.shape != window {
                    return Err(format!(
                        "{name} updates {} must be {} without axes {axes:?}",
                        updates.short(),
                        x.short()
                    ));
                }
                if !matches!(combine, None | Some(BinaryOp::Add | BinaryOp::Mul | BinaryOp::Min | BinaryOp::Max)) {
                    return Err(format!("{name} combines by add, mul, min or max"));
                }
                x.clone()
            }
            Primitive::Gather => {
                let indices = &inputs[1];
                if x.rank() == 0 || indices.dtype != DType::I32 || indices.shape.last() != Some(&1) {
                    return Err(format!(
                        "gather takes an array and int32 indices of shape [..., 1], got {} and {}",
                        x.short(),
                        indices.short()
                    ));
                }
                let mut shape = indices.shape[..indices.rank() - 1].to_vec();
                shape.extend(&x.shape[1..]);
                same(shape)
            }
            Primitive::StopGradient | Primitive::ShardingConstraint { .. } | Primitive::Name { .. } => x.clone(),
            Primitive::ReducePrecision { exponent_bits, mantissa_bits } => {
                if !x.dtype.is_float() {
                    return Err(format!("reduce_precision does not accept dtype {}", x.dtype.name()));
                }
                if *exponent_bits < 1 {
                    return Err(format!("reduce_precision: exponent_bits must be positive; got {exponent_bits}"));
                }
                let _ = mantissa_bits;
                x.clone()
            }
            Primitive::BitcastConvertType { .. }
            | Primitive::RandomWrap
            | Primitive::RandomUnwrap
            | Primitive::RandomSeed
            | Primitive::RandomBits { .. }
            | Primitive::RandomSplit { .. }
            | Primitive::RandomFoldIn => unreachable!("random_eval handles these"),
            Primitive::AddAny => {
                let y = &inputs[1];
                if x.dtype != y.dtype || x.shape != y.shape {
                    return Err(format!("add_any requires operands of one type, got {} and {}", x.short(), y.short()));
                }
                Aval { weak_type: x.weak_type && y.weak_type, ..x.clone() }
            }
            Primitive::CustomJvpCall { .. }
            | Primitive::CustomVjpCall { .. }
            | Primitive::CustomVjpTangent { .. }
            | Primitive::While { .. }
            | Primitive::Scan { .. }
            | Primitive::Cond { .. }
            | Primitive::Jit { .. }
            | Primitive::Remat { .. }
            | Primitive::ShardMap { .. }
            | Primitive::Collective { .. }
            | Primitive::Callback { .. } => unreachable!("handled above"),
        };
        Ok(vec![out])
    }
}

impl Primitive {
    /// The shape rules of the random primitives and `bitcast_convert_type`, and the one rule
    /// that keeps keys opaque: no other primitive takes a key (so none reads its words as a
    /// number). `None` for every other primitive on other operands.
    fn random_eval(&self, inputs: &[Aval]) -> Result<Option<Aval>, String> {
        let name = self.name();
        let x = &inputs[0];
        let key_input = matches!(
            self,
            Primitive::RandomUnwrap
                | Primitive::RandomBits { .. }
                | Primitive::RandomSplit { .. }
                | Primitive::RandomFoldIn
        );
        if key_input != (x.dtype == DType::Key) || inputs[1..].iter().any(|a| a.dtype == DType::Key) {
            return Err(if key_input {
                format!("{name} takes a key<fry> array, got {}", x.short())
            } else {
                format!("{name} does not accept a key array (keys are opaque: use jax.random functions, or jax.random.key_data for their words)")
            });
        }
        let with_shape = |shape: Vec<usize>, dtype| Aval::new(shape, dtype);
        let joined = |extra: &[usize]| x.shape.iter().chain(extra).copied().collect::<Vec<_>>();
        Ok(Some(match self {
            Primitive::RandomWrap => match x.shape.split_last() {
                Some((&2, keys)) if x.dtype == DType::U32 => with_shape(keys.to_vec(), DType::Key),
                _ => {
                    return Err(format!(
                        "random_wrap takes a uint32 array whose last axis has 2 words (raw keys), got {}",
                        x.short()
                    ))
                }
            },
            Primitive::RandomUnwrap => with_shape(joined(&[2]), DType::U32),
            Primitive::RandomSeed => match x.dtype {
                DType::I32 | DType::U32 => with_shape(x.shape.clone(), DType::Key),
                _ => return Err(format!("random_seed takes integer seeds, got {}", x.short())),
            },
            Primitive::RandomBits { shape } => with_shape(joined(shape), DType::U32),
            Primitive::RandomSplit { shape } => with_shape(joined(shape), DType::Key),
            Primitive::RandomFoldIn => {
                let data = &inputs[1];
                if data.dtype != DType::U32 || !(data.shape.is_empty() || data.shape == x.shape) {
                    return Err(format!(
                        "random_fold_in takes uint32 data of the keys' shape {:?} or a scalar, got {}",
                        x.shape,
                        data.short()
                    ));
                }
                x.clone()
            }
            Primitive::BitcastConvertType { new_dtype } => {
                if x.dtype.size_bytes() != new_dtype.size_bytes() || x.dtype == DType::BF16 {
                    return Err(format!("bitcast_convert_type cannot convert {} to {new_dtype}: the playground bitcasts between 32-bit types", x.short()));
                }
                with_shape(x.shape.clone(), *new_dtype)
            }
            _ => return Ok(None),
        }))
    }
}

/// The shape of an elementwise op: equal shapes, or a rank-0 operand broadcast over the other.
fn elementwise_shape(name: &str, x: &[usize], y: &[usize]) -> Result<Vec<usize>, String> {
    if x == y || y.is_empty() {
        Ok(x.to_vec())
    } else if x.is_empty() {
        Ok(y.to_vec())
    } else {
        Err(format!("{name} got incompatible shapes for broadcasting: {x:?}, {y:?}"))
    }
}

fn is_permutation(p: &[usize], rank: usize) -> bool {
    let mut sorted = p.to_vec();
    sorted.sort_unstable();
    sorted == (0..rank).collect::<Vec<_>>()
}

fn check_axes(name: &str, axes: &[usize], x: &Aval) -> Result<(), String> {
    if axes.iter().any(|&a| a >= x.rank()) {
        return Err(format!("{name} axes {axes:?} out of range for {:?}", x.shape));
    }
    Ok(())
}

fn check_indices(name: &str, indices: &[Aval], x: &Aval) -> Result<(), String> {
    if indices.len() != x.rank() || indices.iter().any(|i| i.rank() != 0 || i.dtype != DType::I32) {
        return Err(format!(
            "{name} needs one scalar int32 start index per axis of {}, got {}",
            x.short(),
            indices.len()
        ));
    }
    Ok(())
}

fn dot_general_shape(x: &Aval, y: &Aval, dims: &DotDims, preferred: Option<DType>) -> Result<Aval, String> {
    let in_range = |axes: &[usize], a: &Aval| axes.iter().all(|&d| d < a.rank());
    if !in_range(&dims.lhs_contracting, x)
        || !in_range(&dims.lhs_batch, x)
        || !in_range(&dims.rhs_contracting, y)
        || !in_range(&dims.rhs_batch, y)
        || dims.lhs_contracting.len() != dims.rhs_contracting.len()
        || dims.lhs_batch.len() != dims.rhs_batch.len()
    {
        return Err(format!("dot_general got invalid dimension numbers {dims} for {} and {}", x.short(), y.short()));
    }
    for (&l, &r) in dims.lhs_contracting.iter().zip(&dims.rhs_contracting) {
        if x.shape[l] != y.shape[r] {
            return Err(format!(
                "dot_general requires contracting dimensions to have the same shape, got {} and {}",
                tuple(&dims.lhs_contracting.iter().map(|&d| x.shape[d]).collect::<Vec<_>>()),
                tuple(&dims.rhs_contracting.iter().map(|&d| y.shape[d]).collect::<Vec<_>>())
            ));
        }
    }
    for (&l, &r) in dims.lhs_batch.iter().zip(&dims.rhs_batch) {
        if x.shape[l] != y.shape[r] {
            return Err(format!(
                "dot_general requires batch dimensions to have the same shape, got {:?} and {:?}",
                x.shape, y.shape
            ));
        }
    }
    // Floats of two widths meet where a preferred type names the sums' (a bfloat16 operand's
    // cotangent, float32, against the other operand: how JAX transposes a mixed-precision dot).
    let mixed_floats = preferred.is_some() && x.dtype.is_float() && y.dtype.is_float();
    if x.dtype != y.dtype && !mixed_floats {
        return Err(format!("dot_general requires operands of the same dtype, got {} and {}", x.dtype, y.dtype));
    }
    let free = |a: &Aval, contracting: &[usize], batch: &[usize]| -> Vec<usize> {
        (0..a.rank()).filter(|d| !contracting.contains(d) && !batch.contains(d)).map(|d| a.shape[d]).collect()
    };
    let mut shape: Vec<usize> = dims.lhs_batch.iter().map(|&d| x.shape[d]).collect();
    shape.extend(free(x, &dims.lhs_contracting, &dims.lhs_batch));
    shape.extend(free(y, &dims.rhs_contracting, &dims.rhs_batch));
    Ok(Aval::new(shape, preferred.unwrap_or(x.dtype)))
}

fn list(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    format!("[{}]", items.join(", "))
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// A scatter's `dimension_numbers` as JAX prints them, for an operand of rank `rank`: the
/// updates' axes are the window's, the indexed axes are inserted, each index addresses its axis.
pub fn scatter_dimension_numbers(axes: &[usize], rank: usize) -> String {
    let window: Vec<usize> = (0..rank.saturating_sub(axes.len())).collect();
    format!(
        "ScatterDimensionNumbers(update_window_dims={}, inserted_window_dims={}, scatter_dims_to_operand_dims={}, \
         operand_batching_dims=(), scatter_indices_batching_dims=())",
        tuple(&window),
        tuple(axes),
        tuple(axes)
    )
}

/// A gather's `dimension_numbers` as JAX prints them, for indices of rank `index_rank` (the
/// last axis the index vector) into an operand of rank `rank`: a row's axes follow the
/// indices' batch axes, the first axis is collapsed, the index addresses it.
pub fn gather_dimension_numbers(index_rank: usize, rank: usize) -> String {
    let batch = index_rank.saturating_sub(1);
    let offsets: Vec<usize> = (batch..batch + rank.saturating_sub(1)).collect();
    format!(
        "GatherDimensionNumbers(offset_dims={}, collapsed_slice_dims=(0,), start_index_map=(0,), \
         operand_batching_dims=(), start_indices_batching_dims=())",
        tuple(&offsets)
    )
}

/// A gather's `slice_sizes`: one row of `shape`.
pub fn gather_slice_sizes(shape: &[usize]) -> String {
    let mut sizes = vec![1];
    sizes.extend(shape.iter().skip(1));
    tuple(&sizes)
}

/// A scatter's `update_jaxpr`: how it combines two scalars of `dtype` (`None` for a plain
/// `scatter`, which replaces).
pub fn scatter_update_jaxpr(combine: Option<BinaryOp>, dtype: DType) -> Option<crate::jaxpr::Jaxpr> {
    let mut b = crate::transform::Builder::new();
    let (x, y) = (b.input(Aval::new(vec![], dtype)), b.input(Aval::new(vec![], dtype)));
    let combined = b.binary(combine?, &x, &y).ok()?;
    Some(b.finish(vec![combined]))
}

fn tuple(v: &[usize]) -> String {
    let items: Vec<String> = v.iter().map(|d| d.to_string()).collect();
    if items.len() == 1 {
        format!("({},)", items[0])
    } else {
        format!("({})", items.join(", "))
    }
}

impl fmt::Display for DotDims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "(({}, {}), ({}, {}))",
            list(&self.lhs_contracting),
            list(&self.rhs_contracting),
            list(&self.lhs_batch),
            list(&self.rhs_batch)
        )
    }
}

/// `name[param=value ...]` as a Jaxpr prints an equation's primitive.
impl Primitive {
    /// The parameters JAX prints in brackets after the name, in its order and with its pretty
    /// printing rules: the trivial or implied ones left out (a dot's default precision,
    /// `broadcast_in_dim`'s shape, and its dimensions when there are none).
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let s = |k: &'static str, v: String| (k, v);
        match self {
            Primitive::Collective { op, axis_name, axis_size } => op.params(axis_name, *axis_size),
            Primitive::Unary(_) | Primitive::Binary(_) => vec![],
            Primitive::DotGeneral { dims, precision, preferred_element_type } => {
                let mut p = vec![s("dimension_numbers", dims.to_string())];
                if let Some(precision) = precision {
                    let name = precision.name();
                    p.push(s("precision", format!("(Precision.{name}, Precision.{name})")));
                }
                // JAX leaves it out where the call named none (`lax.dot_general`'s default).
                if let Some(dtype) = preferred_element_type {
                    p.push(s("preferred_element_type", dtype.name().to_string()));
                }
                p
            }
            Primitive::Reshape { new_sizes } => {
                vec![s("dimensions", "None".into()), s("new_sizes", tuple(new_sizes)), s("sharding", "None".into())]
            }
            Primitive::BroadcastInDim { broadcast_dimensions, .. } if broadcast_dimensions.is_empty() => vec![],
            Primitive::BroadcastInDim { broadcast_dimensions, .. } => {
                vec![s("broadcast_dimensions", tuple(broadcast_dimensions))]
            }
            Primitive::ConvertElementType { new_dtype, weak_type } => {
                let weak = if *weak_type { "True" } else { "False" };
                vec![s("new_dtype", new_dtype.name().to_string()), s("weak_type", weak.into())]
            }
            Primitive::Transpose { permutation } => vec![s("permutation", tuple(permutation))],
            Primitive::ShardingConstraint { constraint } => {
                let dims: Vec<String> = constraint.unconstrained.iter().map(|d| d.to_string()).collect();
                vec![
                    s("context_mesh", "Mesh()".into()),
                    s("layout", "None".into()),
                    s("sharding", constraint.sharding_text()),
                    s("unconstrained_dims", format!("frozenset({{{}}})", dims.join(", "))),
                ]
            }
            Primitive::ReduceSum { axes } => vec![s("axes", tuple(axes)), s("out_sharding", "None".into())],
            Primitive::ReduceMax { axes } | Primitive::ReduceMin { axes } => vec![s("axes", tuple(axes))],
            Primitive::ArgReduce { axis, index_dtype, .. } => {
                vec![s("axes", format!("({axis},)")), s("index_dtype", index_dtype.name().to_string())]
            }
            Primitive::Compare(_)
            | Primitive::SelectN
            | Primitive::Clamp
            | Primitive::DynamicUpdateSlice
            | Primitive::StopGradient
            | Primitive::RandomUnwrap
            | Primitive::RandomFoldIn
            | Primitive::AddAny => {
                vec![]
            }
            // The printer adds the parameters that depend on the operands' shapes.
            Primitive::Gather => vec![
                s("fill_value", "None".into()),
                s("indices_are_sorted", "False".into()),
                s("mode", "GatherScatterMode.PROMISE_IN_BOUNDS".into()),
            ],
            // The printer adds `dimension_numbers` (from the operand's rank) and `update_jaxpr`.
            Primitive::Scatter { .. } => vec![
                s("indices_are_sorted", "True".into()),
                s("mode", "GatherScatterMode.FILL_OR_DROP".into()),
                s("unique_indices", "True".into()),
                s("update_consts", "()".into()),
            ],
            Primitive::BitcastConvertType { new_dtype } => vec![s("new_dtype", new_dtype.name().to_string())],
            Primitive::RandomWrap | Primitive::RandomSeed => vec![s("impl", "fry".into())],
            Primitive::RandomBits { shape } => vec![s("bit_width", "32".into()), s("shape", tuple(shape))],
            Primitive::RandomSplit { shape } => vec![s("shape", tuple(shape))],
            Primitive::IntegerPow { y } => vec![s("y", y.to_string())],
            Primitive::Cumsum { axis, reverse } => {
                vec![s("axis", axis.to_string()), s("reverse", py_bool(*reverse).into())]
            }
            Primitive::Iota { dtype, shape, dimension } => vec![
                s("dimension", dimension.to_string()),
                s("dtype", dtype.name().to_string()),
                s("shape", tuple(shape)),
                s("sharding", "None".into()),
            ],
            Primitive::Concatenate { dimension } => vec![s("dimension", dimension.to_string())],
            Primitive::Pad { config } => {
                let items: Vec<String> = config.iter().map(|(lo, hi, int)| format!("({lo}, {hi}, {int})")).collect();
                let trailing = if items.len() == 1 { "," } else { "" };
                vec![s("padding_config", format!("({}{trailing})", items.join(", ")))]
            }
            Primitive::Slice { start_indices, limit_indices, strides } => vec![
                s("limit_indices", tuple(limit_indices)),
                s("start_indices", tuple(start_indices)),
                s("strides", strides.as_ref().map_or("None".into(), |s| tuple(s))),
            ],
            Primitive::Squeeze { dimensions } | Primitive::Rev { dimensions } => {
                vec![s("dimensions", tuple(dimensions))]
            }
            Primitive::DynamicSlice { slice_sizes } => vec![s("slice_sizes", tuple(slice_sizes))],
            // The Jaxpr printer shows the called Jaxpr too (see `Jaxpr`'s `Display`).
            Primitive::CustomJvpCall { function, .. } => vec![
                s("name", function.name.clone()),
                s("jvp", function.rule_name.clone()),
                s("symbolic_zeros", "False".into()),
            ],
            Primitive::CustomVjpCall { function } | Primitive::CustomVjpTangent { function } => {
                vec![s("name", function.name.clone())]
            }
            // The printer shows the two Jaxprs as well.
            Primitive::While { function } => vec![
                s("body_nconsts", function.body_consts.to_string()),
                s("cond_nconsts", function.cond_consts.to_string()),
            ],
            // The printer shows the body first, as `jaxpr=`.
            // The printer shows the branches.
            Primitive::Cond { .. } => vec![],
            // The printer shows the body as `jaxpr=`.
            Primitive::Jit { function } => vec![s("name", function.name.clone())],
            // The printer shows the body as `jaxpr=` (after `differentiated`).
            Primitive::Remat { function } => vec![
                s("differentiated", if function.differentiated { "True" } else { "False" }.into()),
                s("policy", function.policy.param()),
                s("prevent_cse", if function.prevent_cse { "True" } else { "False" }.into()),
            ],
            Primitive::Name { name } => vec![s("name", name.clone())],
            Primitive::ReducePrecision { exponent_bits, mantissa_bits } => {
                vec![s("exponent_bits", exponent_bits.to_string()), s("mantissa_bits", mantissa_bits.to_string())]
            }
            Primitive::ShardMap { function } => function.params(),
            Primitive::Callback { function } => function.params(),
            Primitive::Scan { function } => vec![
                s("length", function.length.to_string()),
                s("num_carry", function.carries.to_string()),
                s("num_consts", function.consts.to_string()),
                s("reverse", if function.reverse { "True" } else { "False" }.into()),
                s("unroll", function.unroll.to_string()),
            ],
        }
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let params = self.params();
        if !params.is_empty() {
            let pairs: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            write!(f, "[{}]", pairs.join(" "))?;
        }
        Ok(())
    }
}
