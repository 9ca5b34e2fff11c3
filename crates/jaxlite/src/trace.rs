//! Tracing: binding primitives either eagerly (one small program each, through the executor)
//! or into the Jaxpr of the function being traced.

use crate::array::{Array, Aval};
use crate::callback::NoHost;
use crate::dtype::DType;
use crate::jaxpr::{Atom, Eqn, Jaxpr, Literal, Var};
use crate::prim::{Precision, Primitive};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// A future that may hold borrows and need not be `Send` (wasm is single-threaded).
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// An error from jaxlite or from the executor. `lang` adds the script location.
#[derive(Clone, Debug, PartialEq)]
pub struct JaxError(pub String);

impl std::fmt::Display for JaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for JaxError {
    fn from(s: String) -> JaxError {
        JaxError(s)
    }
}

/// One program to run: a Jaxpr and its inputs (constants first, then arguments).
pub struct ProgramCall {
    /// What the user knows this program as: the jitted function's name, or the primitive's.
    pub name: String,
    /// Shared, so that a loop calling the same body every step hands over the same Jaxpr (an
    /// executor may recognise it by identity instead of comparing it).
    pub jaxpr: Rc<Jaxpr>,
    pub args: Vec<Array>,
    /// `jax_default_matmul_precision`, for dot_generals whose precision is `None`.
    pub default_precision: Precision,
    /// A single primitive dispatched outside `jit` (JAX's op-by-op mode), not a traced function.
    pub eager: bool,
    /// Bytes copied from the host to the device for this call: NumPy arrays and Python lists
    /// made device arrays since the previous program ran (its arguments, usually).
    pub host_to_device_bytes: u64,
    /// How many trips the program's `while` loops may take together on the machine before
    /// the run stops (the script's step budget); unlimited for a program without loops.
    pub max_trips: u64,
}
/// Runs programs. `runtime` implements it with the compiler and the emulator; the reference
/// evaluator implements it for tests. Execution is async because GPU readback is.
pub trait Executor {
    fn execute(&mut self, call: ProgramCall) -> LocalFuture<'_, Result<Vec<Array>, JaxError>>;

    /// Whether `execute` runs a program with loops and branches (as `loops::control_on_machine`
    /// accepts) as one program, its control on the machine; otherwise they run by parts.
    fn runs_control(&self) -> bool {
        false
    }

    /// The device as `jax.devices()[0].device_kind` names it: a TPU of the emulated
    /// generation (`"TPU v5 lite"` for v5e, the default machine, whose DEFAULT-precision
    /// rounding every executor follows).
    fn device_kind(&self) -> String {
        "TPU v5 lite".to_string()
    }

    /// Compiles a program without running it (`jax.jit(f).lower(...).compile()`): its inputs
    /// are types, not values. An executor that times programs times it here, without values
    /// (see `emu::simulate_without_values`). This default, for an executor without a
    /// compiler, reports the Jaxpr itself as what it runs.
    fn compile_ahead(&mut self, name: &str, jaxpr: &Jaxpr, _precision: Precision) -> Result<AheadOfTime, JaxError> {
        Ok(uncompiled(name, jaxpr))
    }

    /// A mapped call (`jax.pmap`) has run: its programs (each already run through `execute`
    /// once per chip) and collectives, in order, for an executor that times it over a slice.
    fn mapped(&mut self, _call: crate::mapped::MappedCall) -> Result<(), JaxError> {
        Ok(())
    }

    /// Each device's coordinates in the slice (x, y, z), device `i` at index `i`: what
    /// `jax.devices()` lists. One chip by default.
    fn device_coords(&self) -> Vec<[u32; 3]> {
        vec![[0, 0, 0]]
    }
}

/// A program as an executor without a compiler runs it: the Jaxpr is both what was lowered
/// and what runs, and the cost is its equations'.
pub fn uncompiled(name: &str, jaxpr: &Jaxpr) -> AheadOfTime {
    let text = format!("# {name}\n{jaxpr}");
    AheadOfTime {
        lowered_text: text.clone(),
        compiled_text: text,
        cost: crate::cost::lowered(jaxpr),
        temp_bytes: 0,
        code_bytes: 0,
    }
}

/// A program compiled ahead of time (see [`Executor::compile_ahead`]).
#[derive(Clone, Debug)]
pub struct AheadOfTime {
    /// What `Lowered.as_text()` shows: the compiler's first form of the program (its HLO).
    pub lowered_text: String,
    /// What `Compiled.as_text()` shows: what the compiler made of it.
    pub compiled_text: String,
    /// `Compiled.cost_analysis()`: XLA's counts over the compiled program (see [`crate::cost`]).
    pub cost: crate::cost::CostAnalysis,
    /// Device memory the program uses beyond its arguments and results, in bytes.
    pub temp_bytes: u64,
    /// The program's size, in bytes of its binary form.
    pub code_bytes: u64,
}

/// A value flowing through a traced function.
#[derive(Clone, Debug)]
pub struct Tracer {
    pub var: Var,
    pub aval: Aval,
    /// Which trace frame created it: its depth, and the frame's unique id (so a tracer that
    /// escaped a finished trace is recognised even when a new frame has the same depth).
    pub level: usize,
    pub trace_id: u64,
}

/// An array as the user's program holds it: concrete, or a tracer inside a `jit` trace.
#[derive(Clone, Debug)]
pub enum Tensor {
    Concrete(Rc<Array>),
    Traced(Rc<Tracer>),
}

impl Tensor {
    /// Whether the two are the same value (the same array, or the same traced variable), as
    /// JAX tells a function's closed-over values apart.
    pub fn same(&self, other: &Tensor) -> bool {
        match (self, other) {
            (Tensor::Concrete(a), Tensor::Concrete(b)) => Rc::ptr_eq(a, b),
            (Tensor::Traced(a), Tensor::Traced(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }

    pub fn aval(&self) -> &Aval {
        match self {
            Tensor::Concrete(a) => &a.aval,
            Tensor::Traced(t) => &t.aval,
        }
    }

    pub fn concrete(&self) -> Option<&Array> {
        match self {
            Tensor::Concrete(a) => Some(a),
            Tensor::Traced(_) => None,
        }
    }
}

impl From<Array> for Tensor {
    fn from(a: Array) -> Tensor {
        Tensor::Concrete(Rc::new(a))
    }
}

struct Frame {
    id: u64,
    invars: Vec<Var>,
    eqns: Vec<Eqn>,
    /// Concrete arrays closed over by the traced function, keyed by their allocation.
    consts: Vec<(Var, Rc<Array>)>,
    /// Tracers of enclosing frames closed over by the traced function (a loss closing over
    /// the data inside `jit`, an inner `grad` closing over an outer one's value).
    captured: Vec<(Var, Rc<Tracer>)>,
    types: HashMap<Var, Aval>,
    /// For a trace whose arguments have values (differentiation outside `jit`, where JAX's
    /// tracers carry concrete primals). `None` for an abstract trace (`jit`, `vmap`,
    /// `make_jaxpr`).
    known: Option<Known>,
}

/// What a trace of values knows, filled in on demand by `Context::concrete_value`.
#[derive(Default)]
struct Known {
    /// What each variable stands for, as far as it has been computed. Arguments map to what
    /// was passed (a tracer of an enclosing trace, or an array).
    values: HashMap<Var, Tensor>,
    /// The equation that computes each variable, for the first `indexed` equations: equations
    /// are only ever appended, so each query indexes just the ones recorded since the last.
    producer: HashMap<Var, usize>,
    indexed: usize,
}

/// A traced function: its Jaxpr and the values of its constvars.
#[derive(Clone, Debug)]
pub struct ClosedJaxpr {
    pub jaxpr: Jaxpr,
    pub consts: Vec<Array>,
}

/// The tracing state and the executor that runs eager ops and compiled functions.
pub struct Context {
    frames: Vec<Frame>,
    next_var: u32,
    next_trace_id: u64,
    executor: Box<dyn Executor>,
    pub default_precision: Precision,
    /// Operations run on the host, as NumPy's: evaluated at once by the reference evaluator
    /// at full width, with NumPy's promotion and its 64-bit defaults, whatever is being traced.
    host: bool,
    /// Copies between the host and the device so far (a cell: they are noted where values are
    /// only read).
    transfers: std::cell::Cell<Transfers>,
    /// Host-to-device bytes not yet charged to a program call.
    pending_upload: std::cell::Cell<u64>,
    /// The most iterations a program's `while` loops may run in all (see `loops`): a loop
    /// that has not ended by then is taken to never end.
    pub loop_limit: u64,
    /// Where the script is (see `SourceInfo`): what the front end is evaluating, given to
    /// each equation staged from now on.
    pub source: Option<Rc<crate::jaxpr::SourceInfo>>,
}

/// Bytes and copies between the host (Python, NumPy) and the device, as JAX makes them: a
/// NumPy array or a Python list becoming a device array is one host-to-device copy; NumPy,
/// `float()`, `.item()`, `.tolist()` or `print` reading a device array is one device-to-host
/// copy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    pub host_to_device_bytes: u64,
    pub host_to_device_copies: u64,
    pub device_to_host_bytes: u64,
    pub device_to_host_copies: u64,
}

impl Context {
    pub fn new(executor: Box<dyn Executor>) -> Context {
        Context {
            frames: Vec::new(),
            next_var: 0,
            next_trace_id: 0,
            executor,
            default_precision: Precision::Default,
            host: false,
            transfers: std::cell::Cell::new(Transfers::default()),
            pending_upload: std::cell::Cell::new(0),
            loop_limit: crate::eval::MAX_WHILE_ITERATIONS,
            source: None,
        }
    }

    /// Notes a copy of `bytes` from the host to the device; the next program call is charged.
    pub fn note_host_to_device(&self, bytes: u64) {
        let mut t = self.transfers.get();
        t.host_to_device_bytes += bytes;
        t.host_to_device_copies += 1;
        self.transfers.set(t);
        self.pending_upload.set(self.pending_upload.get() + bytes);
    }

    /// Notes a copy of `bytes` from the device to the host.
    pub fn note_device_to_host(&self, bytes: u64) {
        let mut t = self.transfers.get();
        t.device_to_host_bytes += bytes;
        t.device_to_host_copies += 1;
        self.transfers.set(t);
    }

    /// The copies between host and device so far.
    pub fn transfers(&self) -> Transfers {
        self.transfers.get()
    }

    /// Switches between NumPy on the host (`true`) and JAX on the device; returns the previous
    /// setting, for the caller to restore.
    pub fn set_host(&mut self, host: bool) -> bool {
        std::mem::replace(&mut self.host, host)
    }

    pub fn on_host(&self) -> bool {
        self.host
    }

    /// The dtype a Python float becomes: NumPy's float64 on the host, JAX's float32 (no x64).
    pub fn default_float(&self) -> DType {
        if self.host {
            DType::F64
        } else {
            DType::F32
        }
    }

    /// The dtype a Python int becomes: NumPy's int64 on the host, JAX's int32.
    pub fn default_int(&self) -> DType {
        if self.host {
            DType::I64
        } else {
            DType::I32
        }
    }

    /// The result dtype of two operands: NumPy's promotion on the host, JAX's on the device.
    pub fn promote(&self, a: &Aval, b: &Aval) -> (DType, bool) {
        if self.host {
            crate::dtype::promote_numpy(a.dtype, a.weak_type, b.dtype, b.weak_type)
        } else {
            crate::dtype::promote(a.dtype, a.weak_type, b.dtype, b.weak_type)
        }
    }

    /// See [`Executor::device_kind`].
    pub fn device_kind(&self) -> String {
        self.executor.device_kind()
    }

    /// Whether operations are being recorded into a trace (never on the host, where NumPy
    /// computes at once).
    pub fn is_tracing(&self) -> bool {
        !self.frames.is_empty() && !self.host
    }

    /// How many traces are in progress (the innermost is this deep).
    pub fn trace_depth(&self) -> usize {
        self.frames.len()
    }

    fn fresh(&mut self, aval: Aval) -> Rc<Tracer> {
        let var = Var(self.next_var);
        self.next_var += 1;
        let level = self.frames.len() - 1;
        self.frames[level].types.insert(var, aval.clone());
        let trace_id = self.frames[level].id;
        Rc::new(Tracer { var, aval, level, trace_id })
    }

    /// `a` as a constant of the trace at depth `level` (never written inline as a literal, even
    /// a scalar), and its position among that trace's constants: a value the traced function
    /// reads from a mutable reference, which each run of the program passes afresh.
    pub fn const_at(&mut self, level: usize, a: &Rc<Array>) -> Result<(Tensor, usize), JaxError> {
        let Some(frame) = self.frames.get(level) else { return Err(JaxError("no trace at that depth".into())) };
        let trace_id = frame.id;
        let (var, index) = match frame.consts.iter().position(|(_, c)| Rc::ptr_eq(c, a)) {
            Some(i) => (frame.consts[i].0, i),
            None => {
                let var = Var(self.next_var);
                self.next_var += 1;
                let frame = &mut self.frames[level];
                frame.types.insert(var, Aval { weak_type: false, ..a.aval.clone() });
                frame.consts.push((var, a.clone()));
                (var, frame.consts.len() - 1)
            }
        };
        let aval = self.frames[level].types[&var].clone();
        Ok((Tensor::Traced(Rc::new(Tracer { var, aval, level, trace_id })), index))
    }

    /// Starts tracing a function; returns one tracer per argument.
    pub fn begin_trace(&mut self, args: &[Aval]) -> Vec<Tensor> {
        self.push_frame(args, None)
    }

    /// Starts tracing a function of values that exist (`grad(f)(x)` outside `jit`): the trace
    /// records a Jaxpr as `begin_trace`'s does, but `concrete_value` can also say what any of its
    /// tracers stands for, so Python control flow on them works as under JAX's JVP tracers. Only
    /// where every enclosing trace is of this kind too: inside `jit` the values are abstract, and
    /// a nested differentiation of them is as well (JAX's omnistaging).
    pub fn begin_trace_of(&mut self, args: &[Tensor]) -> Vec<Tensor> {
        let avals: Vec<Aval> = args.iter().map(|t| t.aval().clone()).collect();
        let values: Vec<Option<Tensor>> = args.iter().cloned().map(Some).collect();
        self.begin_trace_knowing(&avals, &values)
    }

    /// `begin_trace_of` where only some arguments have values (a custom JVP rule's primals
    /// under `grad`, not its tangents): what depends on the others is abstract.
    pub fn begin_trace_knowing(&mut self, avals: &[Aval], values: &[Option<Tensor>]) -> Vec<Tensor> {
        let knowable = self.frames.iter().all(|f| f.known.is_some());
        let tracers = self.push_frame(avals, knowable.then(Known::default));
        let frame = self.frames.last_mut().expect("frame just pushed");
        if let Some(known) = &mut frame.known {
            let given = frame.invars.iter().copied().zip(values).filter_map(|(v, t)| Some((v, t.clone()?)));
            known.values.extend(given);
        }
        tracers
    }

    fn push_frame(&mut self, args: &[Aval], known: Option<Known>) -> Vec<Tensor> {
        self.next_trace_id += 1;
        self.frames.push(Frame {
            id: self.next_trace_id,
            invars: vec![],
            eqns: vec![],
            consts: vec![],
            captured: vec![],
            types: HashMap::new(),
            known,
        });
        let tracers: Vec<Rc<Tracer>> = args.iter().map(|a| self.fresh(a.clone())).collect();
        let frame = self.frames.last_mut().expect("frame just pushed");
        frame.invars = tracers.iter().map(|t| t.var).collect();
        tracers.into_iter().map(Tensor::Traced).collect()
    }

    /// Ends the innermost trace with the function's outputs.
    pub fn end_trace(&mut self, outs: &[Tensor]) -> Result<ClosedJaxpr, JaxError> {
        let (jaxpr, consts, captured) = self.pop_frame(outs)?;
        if !captured.is_empty() {
            return Err(JaxError(
                "a value traced by an enclosing transformation was used inside a nested jit trace; \
                 pass it to the inner function as an argument"
                    .into(),
            ));
        }
        Ok(ClosedJaxpr { jaxpr, consts: consts.iter().map(|a| (**a).clone()).collect() })
    }

    /// Ends the innermost trace for a transformation: the Jaxpr takes what the function
    /// closed over (constants and tracers of enclosing traces) as leading invars, and those
    /// values are returned, to be passed first when the Jaxpr is applied.
    pub fn end_trace_open(&mut self, outs: &[Tensor]) -> Result<(Jaxpr, Vec<Tensor>), JaxError> {
        let (mut jaxpr, consts, captured) = self.pop_frame(outs)?;
        let mut invars = std::mem::take(&mut jaxpr.constvars);
        let mut closed: Vec<Tensor> = consts.into_iter().map(Tensor::Concrete).collect();
        for (v, t) in captured {
            invars.push(v);
            closed.push(Tensor::Traced(t));
        }
        invars.append(&mut jaxpr.invars);
        jaxpr.invars = invars;
        Ok((jaxpr, closed))
    }

    /// `t` typed weakly (a gradient of a Python scalar is weak in JAX): the same variable, its
    /// type changed in the trace that made it, so that a program returning it says so too.
    pub fn weakly_typed(&mut self, t: &Rc<Tracer>) -> Tensor {
        let mut weak = (**t).clone();
        weak.aval.weak_type = true;
        if let Some(frame) = self.frames.get_mut(t.level).filter(|f| f.id == t.trace_id) {
            if let Some(aval) = frame.types.get_mut(&t.var) {
                aval.weak_type = true;
            }
        }
        Tensor::Traced(Rc::new(weak))
    }

    #[allow(clippy::type_complexity)]
    fn pop_frame(&mut self, outs: &[Tensor]) -> Result<(Jaxpr, Vec<Rc<Array>>, Vec<(Var, Rc<Tracer>)>), JaxError> {
        if self.frames.is_empty() {
            return Err(JaxError("no trace in progress".into()));
        }
        // A scalar constant returned (a Python number) is a literal output, as in JAX.
        let outvars: Vec<Atom> = outs.iter().map(|t| self.atom(t, true)).collect::<Result<_, _>>()?;
        let frame = self.frames.pop().expect("checked above");
        if self.frames.is_empty() {
            self.next_var = 0;
        }
        let (constvars, consts) = frame.consts.into_iter().unzip();
        let jaxpr = Jaxpr { constvars, invars: frame.invars, eqns: frame.eqns, outvars, types: frame.types };
        Ok((jaxpr, consts, frame.captured))
    }

    /// Abandons the innermost trace (the traced function raised an error).
    pub fn abort_trace(&mut self) {
        self.frames.pop();
        if self.frames.is_empty() {
            self.next_var = 0;
        }
    }

    /// How an input appears in the innermost frame's equations.
    fn atom(&mut self, t: &Tensor, scalars_inline: bool) -> Result<Atom, JaxError> {
        let level = self.frames.len() - 1;
        let live = |tr: &Tracer, frames: &[Frame]| frames.get(tr.level).is_some_and(|f| f.id == tr.trace_id);
        match t {
            Tensor::Traced(tr) if !live(tr, &self.frames) => Err(JaxError(format!(
                "Encountered an unexpected tracer ({}): a value computed inside a traced \
                 function escaped it (for example by being stored in a global) and was used \
                 after the trace ended",
                tr.aval.short()
            ))),
            Tensor::Traced(tr) if tr.level == level => Ok(Atom::Var(tr.var)),
            Tensor::Traced(tr) => {
                // A tracer of an enclosing frame: the function closes over it.
                let frame = &self.frames[level];
                if let Some((v, _)) = frame.captured.iter().find(|(_, c)| Rc::ptr_eq(c, tr)) {
                    return Ok(Atom::Var(*v));
                }
                let var = self.fresh(tr.aval.clone()).var;
                self.frames[level].captured.push((var, tr.clone()));
                Ok(Atom::Var(var))
            }
            Tensor::Concrete(a) if scalars_inline && is_literal(a) => {
                Ok(Atom::Literal(Literal { value: a.to_f64_vec()[0], aval: a.aval.clone() }))
            }
            Tensor::Concrete(a) => {
                let frame = &self.frames[level];
                if let Some((v, _)) = frame.consts.iter().find(|(_, c)| Rc::ptr_eq(c, a)) {
                    return Ok(Atom::Var(*v));
                }
                let var = self.fresh(Aval { weak_type: false, ..a.aval.clone() }).var;
                self.frames[level].consts.push((var, a.clone()));
                Ok(Atom::Var(var))
            }
        }
    }

    /// Applies a primitive: records it when tracing, runs it as a one-op program otherwise.
    pub async fn bind(&mut self, prim: Primitive, inputs: &[Tensor]) -> Result<Vec<Tensor>, JaxError> {
        // As JAX does, a dot with no precision of its own records the configured default when
        // it is not DEFAULT (`jax_default_matmul_precision`), so the Jaxpr says what it runs at.
        let prim = match prim {
            Primitive::DotGeneral { dims, precision: None, preferred_element_type }
                if self.default_precision != Precision::Default =>
            {
                Primitive::DotGeneral { dims, precision: Some(self.default_precision), preferred_element_type }
            }
            prim => prim,
        };
        if self.host {
            return Self::run_on_host(&prim, inputs).map(|a| vec![a]);
        }
        let in_avals: Vec<Aval> = inputs.iter().map(|t| t.aval().clone()).collect();
        let out_avals = prim.abstract_eval(&in_avals)?;
        // Under `jit` every op is staged out, even on constants (JAX's omnistaging).
        if self.is_tracing() {
            let atoms: Vec<Atom> = inputs.iter().map(|t| self.atom(t, true)).collect::<Result<_, _>>()?;
            let outs: Vec<Rc<Tracer>> = out_avals.into_iter().map(|a| self.fresh(a)).collect();
            let source = self.source.clone();
            let frame = self.frames.last_mut().expect("tracing");
            frame.eqns.push(Eqn { prim, inputs: atoms, outputs: outs.iter().map(|t| t.var).collect(), source });
            return Ok(outs.into_iter().map(Tensor::Traced).collect());
        }
        if let Primitive::CustomVjpTangent { .. } = prim {
            return Err(JaxError(crate::eval::CUSTOM_VJP_FORWARD.into()));
        }
        self.run_eager(prim, inputs).await
    }

    /// NumPy's dispatch: the op evaluated at once on the host. A traced value cannot be read
    /// there, which is JAX's `TracerArrayConversionError`.
    fn run_on_host(prim: &Primitive, inputs: &[Tensor]) -> Result<Tensor, JaxError> {
        let mut arrays = Vec::with_capacity(inputs.len());
        for t in inputs {
            match t {
                Tensor::Concrete(a) => arrays.push((**a).clone()),
                Tensor::Traced(tracer) => return Err(JaxError(tracer_conversion_message(&tracer.aval))),
            }
        }
        crate::eval::apply(prim, &arrays, Precision::Highest).map(Tensor::from)
    }

    /// Eager dispatch, as JAX does outside `jit`: the op alone becomes a program. Scalar operands
    /// are inlined as literals, so `x / 10.0` runs with an immediate operand.
    async fn run_eager(&mut self, prim: Primitive, inputs: &[Tensor]) -> Result<Vec<Tensor>, JaxError> {
        let name = prim.name().to_string();
        let mut args = Vec::new();
        self.begin_trace(&[]);
        let mut atoms = Vec::new();
        for t in inputs {
            let Some(a) = t.concrete() else {
                self.abort_trace();
                return Err(JaxError(format!(
                    "Encountered an unexpected tracer ({}): a value computed inside a traced \
                     function was used after its trace ended",
                    t.aval().short()
                )));
            };
            if is_literal(a) {
                atoms.push(Atom::Literal(Literal { value: a.to_f64_vec()[0], aval: a.aval.clone() }));
            } else {
                let var = self.fresh(Aval { weak_type: false, ..a.aval.clone() }).var;
                self.frames.last_mut().expect("frame").invars.push(var);
                atoms.push(Atom::Var(var));
                args.push(a.clone());
            }
        }
        let out_avals = prim.abstract_eval(&inputs.iter().map(|t| t.aval().clone()).collect::<Vec<_>>())?;
        let outs: Vec<Rc<Tracer>> = out_avals.iter().map(|a| self.fresh(a.clone())).collect();
        let source = self.source.clone();
        let frame = self.frames.last_mut().expect("frame");
        frame.eqns.push(Eqn { prim, inputs: atoms, outputs: outs.iter().map(|t| t.var).collect(), source });
        let closed = self.end_trace(&outs.into_iter().map(Tensor::Traced).collect::<Vec<_>>())?;
        let call = ProgramCall {
            name,
            jaxpr: Rc::new(closed.jaxpr),
            args,
            default_precision: self.default_precision,
            eager: true,
            host_to_device_bytes: self.pending_upload.take(),
            max_trips: u64::MAX,
        };
        let results = crate::loops::run(&mut *self.executor, &mut NoHost, self.loop_limit, call).await?;
        Ok(results
            .into_iter()
            .zip(out_avals)
            .map(|(mut a, aval)| {
                a.aval.weak_type = aval.weak_type;
                Tensor::from(a)
            })
            .collect())
    }

    /// Applies `jaxpr` to `args` (one per invar) by binding its equations one by one: inside
    /// a trace they are recorded into it, outside they run eagerly, op by op, as JAX
    /// dispatches. This is how a transformed function runs.
    pub async fn apply_jaxpr(&mut self, jaxpr: &Jaxpr, args: &[Tensor]) -> Result<Vec<Tensor>, JaxError> {
        let inputs: Vec<Var> = jaxpr.all_inputs().collect();
        if inputs.len() != args.len() {
            return Err(JaxError(format!(
                "a transformed function expected {} inputs, got {}",
                inputs.len(),
                args.len()
            )));
        }
        let mut env: HashMap<Var, Tensor> = inputs.into_iter().zip(args.iter().cloned()).collect();
        let read = |env: &HashMap<Var, Tensor>, atom: &Atom| -> Result<Tensor, JaxError> {
            match atom {
                Atom::Var(v) => {
                    env.get(v).cloned().ok_or_else(|| JaxError(format!("internal error: unbound variable {v:?}")))
                }
                Atom::Literal(l) => Ok(literal_tensor(l)),
            }
        };
        for eqn in &jaxpr.eqns {
            let ins: Vec<Tensor> = eqn.inputs.iter().map(|a| read(&env, a)).collect::<Result<_, _>>()?;
            let outs = self.bind(eqn.prim.clone(), &ins).await?;
            env.extend(eqn.outputs.iter().copied().zip(outs));
        }
        jaxpr.outvars.iter().map(|a| read(&env, a)).collect()
    }

    /// The id of the innermost trace being recorded (what its tracers' `trace_id` is).
    pub fn current_trace_id(&self) -> Option<u64> {
        self.frames.last().map(|f| f.id)
    }

    /// Which arguments of its trace `t` depends on, by position, found by walking the trace's
    /// equations back from `t` (JAX's `find_progenitors`, which its errors about tracers use to
    /// name the argument a value came from). `None` where `t`'s trace has ended.
    pub fn progenitors(&self, t: &Tracer) -> Option<Vec<usize>> {
        let frame = self.frames.get(t.level).filter(|f| f.id == t.trace_id)?;
        let mut active = std::collections::HashSet::from([t.var]);
        for eqn in frame.eqns.iter().rev() {
            if eqn.outputs.iter().any(|v| active.remove(v)) {
                active.extend(eqn.inputs.iter().filter_map(|a| match a {
                    Atom::Var(v) => Some(*v),
                    _ => None,
                }));
            }
        }
        Some(frame.invars.iter().enumerate().filter(|(_, v)| active.contains(v)).map(|(i, _)| i).collect())
    }

    /// Whether `t` stands for a value that `concrete_value` can compute: its trace, and every
    /// trace enclosing it, was begun with `begin_trace_of`, and has not ended.
    pub fn has_value(&self, t: &Tracer) -> bool {
        let live = self.frames.get(t.level).is_some_and(|f| f.id == t.trace_id);
        live && self.frames[..=t.level].iter().all(|f| f.known.is_some())
    }

    /// What `t` stands for, where its trace has values (`begin_trace_of`). The equations it
    /// depends on that have not run yet run now, op by op through the executor, as JAX computes
    /// a JVP tracer's primal eagerly; their results are kept, so a `while` loop whose condition
    /// is checked at every iteration runs each step once. `None` where `t` is abstract (its trace,
    /// or one enclosing it, is a `jit`, `vmap` or `make_jaxpr` trace) or its trace has ended.
    pub fn concrete_value<'a>(&'a mut self, t: &'a Tracer) -> LocalFuture<'a, Result<Option<Rc<Array>>, JaxError>> {
        Box::pin(async move {
            if !self.has_value(t) {
                return Ok(None);
            }
            let level = t.level;
            let frame = &mut self.frames[level];
            let known = frame.known.as_mut().expect("checked above");
            for (i, eqn) in frame.eqns.iter().enumerate().skip(known.indexed) {
                known.producer.extend(eqn.outputs.iter().map(|&v| (v, i)));
            }
            known.indexed = frame.eqns.len();
            // The equations `t` depends on that have not run, and the values they start from.
            let frame = &self.frames[level];
            let Known { values: known, producer, .. } = frame.known.as_ref().expect("checked above");
            let mut needed = std::collections::BTreeSet::new();
            let mut sources: Vec<(Var, Tensor)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            let mut stack = vec![t.var];
            while let Some(v) = stack.pop() {
                if !seen.insert(v) {
                    continue;
                }
                if let Some(value) = known.get(&v) {
                    sources.push((v, value.clone()));
                } else if let Some(&i) = producer.get(&v) {
                    if needed.insert(i) {
                        stack.extend(frame.eqns[i].inputs.iter().filter_map(|a| match a {
                            Atom::Var(v) => Some(*v),
                            Atom::Literal(_) => None,
                        }));
                    }
                } else if let Some((_, c)) = frame.consts.iter().find(|(c, _)| *c == v) {
                    sources.push((v, Tensor::Concrete(c.clone())));
                } else if let Some((_, outer)) = frame.captured.iter().find(|(c, _)| *c == v) {
                    sources.push((v, Tensor::Traced(outer.clone())));
                } else if frame.invars.contains(&v) {
                    // An argument given without a value (`begin_trace_knowing`).
                    return Ok(None);
                } else {
                    return Err(JaxError(format!("internal error: {v:?} is not defined in its trace")));
                }
            }
            // Values of enclosing traces (what this one was called with or closes over) first.
            let mut values: HashMap<Var, Rc<Array>> = HashMap::new();
            for (v, source) in sources {
                let value = match source {
                    Tensor::Concrete(a) => a,
                    Tensor::Traced(outer) => match self.concrete_value(&outer).await? {
                        Some(a) => a,
                        None => return Ok(None),
                    },
                };
                values.insert(v, value);
            }
            for i in needed {
                let eqn = self.frames[level].eqns[i].clone();
                let ins: Vec<Tensor> = eqn
                    .inputs
                    .iter()
                    .map(|a| match a {
                        Atom::Var(v) => values
                            .get(v)
                            .map(|a| Tensor::Concrete(a.clone()))
                            .ok_or_else(|| JaxError(format!("internal error: {v:?} has no value yet"))),
                        Atom::Literal(l) => Ok(literal_tensor(l)),
                    })
                    .collect::<Result<_, _>>()?;
                let outs = self.run_eager(eqn.prim, &ins).await?;
                for (v, out) in eqn.outputs.into_iter().zip(outs) {
                    let Tensor::Concrete(a) = out else {
                        return Err(JaxError("internal error: an eager op returned a tracer".into()));
                    };
                    values.insert(v, a);
                }
            }
            let known = self.frames[level].known.as_mut().expect("checked above");
            known.values.extend(values.iter().map(|(v, a)| (*v, Tensor::Concrete(a.clone()))));
            Ok(values.get(&t.var).cloned())
        })
    }

    /// Runs a traced function (constants first, then arguments) through the executor. One
    /// with host callbacks runs where a host can call them instead (see `program_call`).
    pub async fn execute(&mut self, name: String, jaxpr: Jaxpr, args: Vec<Array>) -> Result<Vec<Array>, JaxError> {
        self.execute_shared(name, Rc::new(jaxpr), args).await
    }

    /// [`Context::execute`] of a Jaxpr the caller runs again (on each chip of a mapped call):
    /// the executor recognises a shared Jaxpr by identity, without printing it each time.
    pub async fn execute_shared(
        &mut self,
        name: String,
        jaxpr: Rc<Jaxpr>,
        args: Vec<Array>,
    ) -> Result<Vec<Array>, JaxError> {
        let call = self.program_call(name, jaxpr, args);
        crate::loops::run(&mut *self.executor, &mut NoHost, self.loop_limit, call).await
    }

    /// The call `execute` makes, for a front end that runs a program with host callbacks itself
    /// (`loops::run` with its own `Host`), the device's executor taken out with `swap_executor`
    /// meanwhile, since the callbacks run the script while the program runs.
    pub fn program_call(&mut self, name: String, jaxpr: Rc<Jaxpr>, args: Vec<Array>) -> ProgramCall {
        ProgramCall {
            name,
            jaxpr,
            args,
            default_precision: self.default_precision,
            eager: false,
            host_to_device_bytes: self.pending_upload.take(),
            max_trips: u64::MAX,
        }
    }

    /// Tells the executor of a mapped call that has run (see [`Executor::mapped`]).
    pub fn report_mapped(&mut self, call: crate::mapped::MappedCall) -> Result<(), JaxError> {
        self.executor.mapped(call)
    }

    /// Each device's coordinates in the slice (see [`Executor::device_coords`]).
    pub fn device_coords(&self) -> Vec<[u32; 3]> {
        self.executor.device_coords()
    }

    /// Compiles `jaxpr` (inputs: constvars then invars) without running it (see
    /// [`Executor::compile_ahead`]).
    pub fn compile_ahead(&mut self, name: &str, jaxpr: &Jaxpr) -> Result<AheadOfTime, JaxError> {
        self.executor.compile_ahead(name, jaxpr, self.default_precision)
    }

    /// Puts `executor` in place of this context's, returning the one it had.
    pub fn swap_executor(&mut self, executor: Box<dyn Executor>) -> Box<dyn Executor> {
        std::mem::replace(&mut self.executor, executor)
    }
}

/// JAX's `TracerArrayConversionError` message, for a traced value NumPy was asked to read.
pub fn tracer_conversion_message(aval: &Aval) -> String {
    let dims: Vec<String> = aval.shape.iter().map(|d| d.to_string()).collect();
    format!(
        "The numpy.ndarray conversion method __array__() was called on traced array with shape {}[{}]",
        aval.dtype.name(),
        dims.join(",")
    )
}

/// A literal of a Jaxpr as the array it stands for.
fn literal_tensor(l: &Literal) -> Tensor {
    Tensor::from(crate::eval::literal_array(l.value, &l.aval))
}

/// Whether a concrete operand is written into a Jaxpr as a literal: a scalar, but not a key
/// (two words, no number).
fn is_literal(a: &Array) -> bool {
    a.aval.rank() == 0 && a.dtype() != DType::Key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prim::BinaryOp;
    use std::cell::RefCell;

    /// The reference evaluator, counting the programs it runs.
    struct Counting(Rc<RefCell<usize>>);

    impl Executor for Counting {
        fn execute(&mut self, call: ProgramCall) -> LocalFuture<'_, Result<Vec<Array>, JaxError>> {
            *self.0.borrow_mut() += 1;
            Box::pin(async move { crate::eval::eval_jaxpr(&call.jaxpr, &call.args, call.default_precision) })
        }
    }

    fn context() -> (Context, Rc<RefCell<usize>>) {
        let runs = Rc::new(RefCell::new(0));
        (Context::new(Box::new(Counting(runs.clone()))), runs)
    }

    fn scalar(x: f32) -> Tensor {
        Tensor::from(Array::from_f32(vec![], vec![x]))
    }

    async fn binary(ctx: &mut Context, op: BinaryOp, a: &Tensor, b: &Tensor) -> Tensor {
        ctx.bind(Primitive::Binary(op), &[a.clone(), b.clone()]).await.unwrap().remove(0)
    }

    fn value(ctx: &mut Context, t: &Tensor) -> Option<f64> {
        let Tensor::Traced(t) = t else { panic!("expected a tracer") };
        pollster::block_on(ctx.concrete_value(t)).unwrap().map(|a| a.to_f64_vec()[0])
    }

    #[test]
    fn a_trace_of_values_computes_what_a_tracer_stands_for_once() {
        let (mut ctx, runs) = context();
        let x = ctx.begin_trace_of(&[scalar(3.0)]).remove(0);
        let (y, z) = pollster::block_on(async {
            let y = binary(&mut ctx, BinaryOp::Mul, &x, &scalar(2.0)).await;
            let z = binary(&mut ctx, BinaryOp::Add, &y, &scalar(1.0)).await;
            (y, z)
        });
        assert_eq!(*runs.borrow(), 0, "recording runs nothing");
        assert_eq!(value(&mut ctx, &z), Some(7.0));
        assert_eq!(*runs.borrow(), 2, "the mul and the add, one eager program each");
        assert_eq!(value(&mut ctx, &y), Some(6.0));
        assert_eq!(value(&mut ctx, &x), Some(3.0));
        assert_eq!(*runs.borrow(), 2, "known values are not computed again");
        let w = pollster::block_on(binary(&mut ctx, BinaryOp::Mul, &z, &z));
        assert_eq!(value(&mut ctx, &w), Some(49.0));
        assert_eq!(*runs.borrow(), 3, "only the new equation runs");
        // The Jaxpr is what was traced, whatever was computed on the side.
        let (jaxpr, _) = ctx.end_trace_open(&[w]).unwrap();
        assert_eq!(jaxpr.eqns.len(), 3);
    }

    #[test]
    fn a_nested_trace_of_values_reads_the_enclosing_one() {
        let (mut ctx, _) = context();
        let x = ctx.begin_trace_of(&[scalar(1.5)]).remove(0);
        let y = pollster::block_on(binary(&mut ctx, BinaryOp::Mul, &x, &x));
        // `grad(grad(f))`: the inner trace is called with the outer one's tracer.
        let inner = ctx.begin_trace_of(std::slice::from_ref(&y)).remove(0);
        let z = pollster::block_on(binary(&mut ctx, BinaryOp::Sub, &inner, &x));
        assert_eq!(value(&mut ctx, &z), Some(0.75));
    }

    #[test]
    fn abstract_traces_have_no_values() {
        // Inside `jit` (an abstract trace) even a trace of values is abstract, as under JAX's
        // omnistaging; and a tracer of an abstract trace has none.
        let (mut ctx, runs) = context();
        let aval = Aval::new(vec![], DType::F32);
        let j = ctx.begin_trace(&[aval]).remove(0);
        let g = ctx.begin_trace_of(&[scalar(2.0)]).remove(0);
        let h = pollster::block_on(binary(&mut ctx, BinaryOp::Add, &g, &j));
        assert_eq!(value(&mut ctx, &g), None);
        assert_eq!(value(&mut ctx, &h), None);
        assert_eq!(value(&mut ctx, &j), None);
        assert_eq!(*runs.borrow(), 0);
        // A tracer whose trace ended has none either.
        let (mut ctx, _) = context();
        let x = ctx.begin_trace_of(&[scalar(2.0)]).remove(0);
        ctx.abort_trace();
        assert_eq!(value(&mut ctx, &x), None);
    }
}
