//! runtime: runs a script end to end. It chooses the backend, implements `jaxlite`'s
//! [`Executor`] by compiling each program once (cached by its Jaxpr) and running it on the
//! backend, times every program with the emulator's timing model, and collects the
//! [`RunReport`]: what the script printed and each program's counters.

mod mapped;
mod report;

pub use report::{trips, MappedReport, MappedStep, ProgramReport, RunFailure, RunReport, Trip};

use emu::{Backend, CpuBackend, TpuConfig};
use jaxlite::{AheadOfTime, Array, Context, Executor, JaxError, Jaxpr, LocalFuture, Precision, ProgramCall};
pub use lang::{Limits, Progress, DEFAULT_STEP_BUDGET};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Which backend computes the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when there is a hardware adapter, else the CPU (faster than a software GPU).
    Auto,
    Cpu,
    Gpu,
}

impl BackendChoice {
    pub fn parse(name: &str) -> Option<BackendChoice> {
        Some(match name {
            "auto" => BackendChoice::Auto,
            "cpu" => BackendChoice::Cpu,
            "gpu" => BackendChoice::Gpu,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub backend: BackendChoice,
    pub machine: TpuConfig,
    /// The initial `jax_default_matmul_precision`; the script may change it.
    pub precision: Precision,
    /// The interpreter's budgets (steps, recursion, printed bytes).
    pub limits: Limits,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            backend: BackendChoice::Auto,
            machine: TpuConfig::v5e(),
            precision: Precision::Default,
            limits: Limits::default(),
        }
    }
}

/// The most HBM a program may use, whatever the emulated machine has: both backends hold the
/// whole of a program's HBM in the host's memory (and wasm32 has at most 4 GiB of it), so a
/// program that fits a 16 GiB v5e can still be too large to emulate.
pub const MAX_EMULATED_HBM_BYTES: u64 = 1 << 30;

/// The backend shared between the engine and a run's executor. The executor takes it out
/// while a program runs, so no borrow is held across an await.
type BackendSlot = Rc<RefCell<Option<Box<dyn Backend>>>>;

/// Owns what outlives a run: the GPU device (created once, on first use).
#[derive(Default)]
pub struct Engine {
    gpu: Option<BackendSlot>,
    gpu_error: Option<String>,
    gpu_is_software: bool,
    /// Why a run on the GPU failed (a lost device, out of memory): later runs use the CPU.
    gpu_failure: Rc<RefCell<Option<String>>>,
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    async fn gpu(&mut self) -> Result<BackendSlot, String> {
        if let Some(slot) = &self.gpu {
            if slot.borrow().is_some() {
                return Ok(slot.clone());
            }
        }
        if let Some(e) = &self.gpu_error {
            return Err(e.clone());
        }
        match gpu::GpuBackend::new().await {
            Ok(g) => {
                self.gpu_is_software = g.is_software();
                let slot: BackendSlot = Rc::new(RefCell::new(Some(Box::new(g))));
                self.gpu = Some(slot.clone());
                Ok(slot)
            }
            Err(e) => {
                self.gpu_error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Destroys the GPU backend's device, as a driver reset would (for the fault tests).
    pub fn lose_gpu_device(&mut self) {
        if let Some(slot) = &self.gpu {
            if let Some(backend) = slot.borrow_mut().as_mut() {
                backend.lose_device();
            }
        }
    }

    /// The backend for this run and why it was chosen.
    async fn choose(&mut self, choice: BackendChoice) -> Result<(BackendSlot, String), String> {
        let cpu = || -> BackendSlot { Rc::new(RefCell::new(Some(Box::new(CpuBackend)))) };
        if let (Some(why), BackendChoice::Gpu | BackendChoice::Auto) = (self.gpu_failure.borrow().as_ref(), choice) {
            return Ok((cpu(), format!("the GPU failed in an earlier run ({why}); using the CPU backend")));
        }
        match choice {
            BackendChoice::Cpu => Ok((cpu(), "the CPU backend was requested".into())),
            BackendChoice::Gpu => Ok((self.gpu().await?, "the GPU backend was requested".into())),
            BackendChoice::Auto => match self.gpu().await {
                Ok(_) if self.gpu_is_software => {
                    Ok((cpu(), "the only GPU adapter is a software rasterizer; the CPU backend is faster".into()))
                }
                Ok(slot) => Ok((slot, "a hardware GPU adapter is available".into())),
                Err(e) => Ok((cpu(), format!("no GPU backend: {e}"))),
            },
        }
    }

    /// Runs `source` and reports what it printed and what each program cost.
    pub async fn run_script(&mut self, source: &str, opts: &RunOptions) -> Result<RunReport, RunFailure> {
        self.run_script_with_progress(source, opts, None).await
    }

    /// [`Engine::run_script`], telling `progress` where the outermost loop is at each of its
    /// iterations (see [`Progress`]).
    pub async fn run_script_with_progress(
        &mut self,
        source: &str,
        opts: &RunOptions,
        progress: Option<&mut dyn FnMut(Progress)>,
    ) -> Result<RunReport, RunFailure> {
        let (slot, reason) = self.choose(opts.backend).await.map_err(RunFailure::without_location)?;
        let (backend, adapter) = {
            let b = slot.borrow();
            let b = b.as_ref().expect("backend present between runs");
            (b.name(), b.adapter())
        };
        let programs = Rc::new(RefCell::new(Vec::new()));
        let mapped = Rc::new(RefCell::new(Vec::new()));
        let executor = EngineExecutor {
            gpu_failure: self.gpu_failure.clone(),
            backend: slot,
            machine: opts.machine.clone(),
            cache: HashMap::new(),
            running: Vec::new(),
            programs: programs.clone(),
            mapped: mapped.clone(),
        };
        let mut ctx = Context::new(Box::new(executor));
        ctx.default_precision = opts.precision;
        let result = lang::run_script_with_progress(source, &mut ctx, opts.limits, progress).await;
        let programs = programs.borrow().clone();
        let mapped = mapped.borrow().clone();
        match result {
            Ok(out) => Ok(RunReport {
                prints: out.prints,
                stdout: out.stdout,
                stderr: out.stderr,
                programs,
                mapped,
                transfers: ctx.transfers(),
                machine: opts.machine.summary(),
                backend,
                adapter,
                backend_reason: reason,
            }),
            Err(failure) => {
                Err(RunFailure { errors: failure.errors, stdout: failure.output.stdout, stderr: failure.output.stderr })
            }
        }
    }
}

/// What the compiler needs to know of `machine`.
pub fn compile_options(machine: &TpuConfig, default_precision: Precision) -> compiler::CompileOptions {
    compiler::CompileOptions {
        mxu_rows: machine.mxu_rows,
        mxu_cols: machine.mxu_cols,
        mxus: machine.mxus_per_core,
        vmem_words: u32::try_from(machine.vmem_bytes / 4).unwrap_or(u32::MAX),
        default_precision,
    }
}

/// The matmul both benchmarks time (`crates/bench` natively, `bench_matmul` in the browser):
/// `jax.jit(lambda a, b: a @ b)` for n×n float32 operands on v5e at DEFAULT (one bf16 MXU pass,
/// f32 accumulation), and its inputs `a[i] = (i mod 97)·0.01 − 0.3`, `b[i] = (i mod 89)·0.02 −
/// 0.7` as words.
pub mod benchmark {
    use jaxlite::{Aval, Context, DType, Precision};

    pub fn matmul_program(n: usize) -> Result<isa::Program, String> {
        let mut ctx = Context::new(Box::new(jaxlite::eval::ReferenceExecutor::default()));
        let args = ctx.begin_trace(&[Aval::new(vec![n, n], DType::F32), Aval::new(vec![n, n], DType::F32)]);
        let traced = ready(jaxlite::numpy::matmul(&mut ctx, &args[0], &args[1], None)).map_err(|e| e.to_string())?;
        let closed = ctx.end_trace(&[traced]).map_err(|e| e.to_string())?;
        let opts = super::compile_options(&emu::TpuConfig::v5e(), Precision::Default);
        compiler::compile("matmul", &closed.jaxpr, &opts).map_err(|e| e.to_string())
    }

    /// The loop the browser benchmark times per trip (`bench_loop`): `while i < n: x = x *
    /// 0.5 + 1` over an 8×128 float32 `x` from zeros, `n` an argument, so the machine's scalar
    /// unit tests a value the program computed on every trip (on the GPU backend, a word read
    /// back to the host). After `n` trips every element is `2 − 2^(1−n)`, exactly.
    pub fn loop_program() -> Result<isa::Program, String> {
        use jaxlite::transform::Builder;
        use jaxlite::{BinaryOp, CompareOp, Primitive};
        let text = |e: jaxlite::JaxError| e.to_string();
        let (count, x) = (Aval::new(vec![], DType::I32), Aval::new(vec![8, 128], DType::F32));
        let carries = |b: &mut Builder| [b.input(count.clone()), b.input(count.clone()), b.input(x.clone())];
        let mut c = Builder::new();
        let [i, n, _] = carries(&mut c);
        let more = c.compare(CompareOp::Lt, &i, &n).map_err(text)?;
        let cond = c.finish(vec![more]);
        let mut b = Builder::new();
        let [i, n, x_now] = carries(&mut b);
        let next = b.add(&i, &b.lit(1.0, DType::I32)).map_err(text)?;
        let half = b.scale(&x_now, 0.5).map_err(text)?;
        let x_next = b.binary(BinaryOp::Add, &half, &b.lit(1.0, DType::F32)).map_err(text)?;
        let body = b.finish(vec![next, n, x_next]);
        let function = jaxlite::control::WhileLoop { cond, cond_consts: 0, body, body_consts: 0 };
        let mut p = Builder::new();
        let (n, x0) = (p.input(count.clone()), p.input(x.clone()));
        let start = p.lit(0.0, DType::I32);
        let outs = p.bind(Primitive::While { function: std::rc::Rc::new(function) }, &[start, n, x0]).map_err(text)?;
        let jaxpr = p.finish(vec![outs[2].clone()]);
        let opts = super::compile_options(&emu::TpuConfig::v5e(), Precision::Default);
        compiler::compile("halving_loop", &jaxpr, &opts).map_err(|e| e.to_string())
    }

    /// The loop's arguments for `trips` trips: `n` (an int32, held as its float32) and zeros.
    pub fn loop_inputs(trips: u32) -> [Vec<u32>; 2] {
        [vec![(trips as f32).to_bits()], vec![0f32.to_bits(); 8 * 128]]
    }

    pub fn matmul_inputs(n: usize) -> [Vec<u32>; 2] {
        let a = (0..n * n).map(|i| ((i % 97) as f32 * 0.01 - 0.3).to_bits()).collect();
        let b = (0..n * n).map(|i| ((i % 89) as f32 * 0.02 - 0.7).to_bits()).collect();
        [a, b]
    }

    /// Polls a future that never waits (tracing runs no program) to its end, natively and in
    /// wasm alike.
    fn ready<T>(f: impl std::future::Future<Output = T>) -> T {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match std::pin::pin!(f).poll(&mut cx) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => unreachable!("tracing never waits"),
        }
    }
}

/// A Jaxpr a loop calls step after step, and its program.
struct Running {
    jaxpr: Rc<jaxlite::Jaxpr>,
    name: String,
    precision: Precision,
    program: Rc<isa::Program>,
    report: usize,
}

/// A compiled program and its timing, shared by every call with the same Jaxpr.
struct Compiled {
    program: Rc<isa::Program>,
    /// Index of this program's entry in the report.
    report: usize,
    /// What its kernels read and write (for `Compiled.cost_analysis()`).
    traffic: Rc<jaxlite::cost::CostAnalysis>,
}

struct EngineExecutor {
    backend: BackendSlot,
    /// Set when a program fails on the GPU, which the executor then gives up for the CPU.
    gpu_failure: Rc<RefCell<Option<String>>>,
    machine: TpuConfig,
    /// Keyed by name, precision and the Jaxpr's text (which includes every shape and dtype).
    cache: HashMap<String, Compiled>,
    /// The programs of Jaxprs a loop is calling, found by identity: a loop hands the same
    /// `Rc<Jaxpr>` to every step, so a step finds its program without printing its Jaxpr for
    /// the text key. Holding the `Rc` keeps the address from being reused; an entry goes once
    /// nothing else holds its Jaxpr (the loop ended).
    running: Vec<Running>,
    programs: Rc<RefCell<Vec<ProgramReport>>>,
    mapped: Rc<RefCell<Vec<MappedReport>>>,
}

impl EngineExecutor {
    fn compile(&mut self, call: &ProgramCall) -> Result<(Rc<isa::Program>, usize), JaxError> {
        let same = |r: &Running| {
            Rc::ptr_eq(&r.jaxpr, &call.jaxpr) && r.name == call.name && r.precision == call.default_precision
        };
        if let Some(r) = self.running.iter().find(|r| same(r)) {
            return Ok((r.program.clone(), r.report));
        }
        let (program, report, _) = self.compile_text(call)?;
        // Only a Jaxpr someone else holds (a loop's body) is called again.
        if Rc::strong_count(&call.jaxpr) > 1 {
            self.running.retain(|r| Rc::strong_count(&r.jaxpr) > 1);
            self.running.push(Running {
                jaxpr: call.jaxpr.clone(),
                name: call.name.clone(),
                precision: call.default_precision,
                program: program.clone(),
                report,
            });
        }
        Ok((program, report))
    }

    /// The program for `call`, found by its Jaxpr's text or compiled, with its report's index
    /// and what its kernels move.
    fn compile_text(
        &mut self,
        call: &ProgramCall,
    ) -> Result<(Rc<isa::Program>, usize, Rc<jaxlite::cost::CostAnalysis>), JaxError> {
        let jaxpr_text = call.jaxpr.to_string();
        let key = format!("{}\n{:?}\n{jaxpr_text}", call.name, call.default_precision);
        if let Some(c) = self.cache.get(&key) {
            return Ok((c.program.clone(), c.report, c.traffic.clone()));
        }
        let started = web_time::Instant::now();
        let opts = compile_options(&self.machine, call.default_precision);
        let stages = compiler::compile_stages(&call.name, &call.jaxpr, &opts).map_err(|e| {
            JaxError(match e.message.strip_prefix("RESOURCE_EXHAUSTED: ") {
                Some(rest) => format!("RESOURCE_EXHAUSTED: {} {rest}", call.name),
                None => format!("cannot compile {}: {e}", call.name),
            })
        })?;
        let program = Rc::new(stages.program);
        let needed = program.hbm_words as u64 * 4;
        if needed > self.machine.hbm_bytes {
            // XLA's compile error for a program past the chip's memory.
            return Err(JaxError(format!(
                "RESOURCE_EXHAUSTED: {} needs {} of HBM; {} has {} per chip (exceeded by {})",
                call.name,
                compiler::emit::human_bytes(needed),
                self.machine.name,
                compiler::emit::human_bytes(self.machine.hbm_bytes),
                compiler::emit::human_bytes(needed - self.machine.hbm_bytes)
            )));
        }
        // A program whose steps do not depend on its values (none, or only the HBM addresses
        // its `s.load`s move) is timed once, here, without values. One that branches on them is
        // timed after each run, from the words it loaded (`execute`); until then it has no
        // counters.
        let (timing, untimed) = match emu::simulate_without_values(&program, &self.machine) {
            Ok(timing) => (timing, None),
            Err(e) if program.reads_scalars() => (
                emu::Timing { counters: emu::Counters::default(), spans: vec![], per_instr: vec![] },
                Some(format!("its steps depend on its values, so its runs time it: {e}")),
            ),
            Err(e) => return Err(JaxError(format!("cannot time {}: {e}", call.name))),
        };
        let mut programs = self.programs.borrow_mut();
        programs.push(ProgramReport {
            name: call.name.clone(),
            calls: 0,
            host_to_device_bytes: 0,
            counters: timing.counters,
            spans: Rc::new(timing.spans),
            per_instr: Rc::new(timing.per_instr),
            eager: call.eager,
            timed_by_runs: untimed.is_some(),
            untimed,
            compile_ms: started.elapsed().as_secs_f64() * 1e3,
            jaxpr: jaxpr_text,
            hlo: stages.hlo.to_string(),
            fused: stages.fused.to_string(),
            asm: program.to_string(),
            program: program.clone(),
        });
        let compiled = Compiled { program, report: programs.len() - 1, traffic: Rc::new(stages.traffic) };
        let out = (compiled.program.clone(), compiled.report, compiled.traffic.clone());
        self.cache.insert(key, compiled);
        Ok(out)
    }
}

/// Integers travel as the exact float32 of their value: within ±2^24 every int32 has one.
const EXACT_INT: f32 = 16_777_216.0;

/// An argument as the machine's words. Integers beyond ±2^24 have no exact float32, so they are
/// refused rather than silently rounded.
fn to_words(a: &Array, name: &str) -> Result<Vec<u32>, JaxError> {
    if let jaxlite::Data::I32(ints) = &a.data {
        if let Some(x) = ints.iter().find(|x| x.unsigned_abs() > 1 << 24) {
            return Err(JaxError(format!(
                "{name}: the int32 argument holds {x}, beyond ±2^24 = ±16777216, which the emulated TPU's float32 words cannot hold exactly"
            )));
        }
    }
    Ok(a.to_f32_vec().iter().map(|x| x.to_bits()).collect())
}

/// A result's words as an array of `dtype`: a uint32 its bits, a key its pair of words; an int32
/// result must be an integer within ±2^24 (anything else means an integer computation left the exact range).
fn from_words(shape: Vec<usize>, words: Vec<u32>, dtype: jaxlite::DType, name: &str) -> Result<Array, JaxError> {
    // A uint32's word is its bits; a typed key is two words, the last axis of its buffer.
    if dtype == jaxlite::DType::U32 {
        return Ok(Array::new(shape, jaxlite::Data::U32(words)));
    }
    if dtype == jaxlite::DType::Key {
        let keys = words.chunks(2).map(|k| [k[0], k[1]]).collect();
        return Ok(Array::new(shape[..shape.len().saturating_sub(1)].to_vec(), jaxlite::Data::Key(keys)));
    }
    let values: Vec<f32> = words.into_iter().map(f32::from_bits).collect();
    if dtype == jaxlite::DType::I32 {
        if let Some(x) = values.iter().find(|x| !(x.abs() <= EXACT_INT && x.fract() == 0.0)) {
            // Whole numbers in full (f32's shortest form would print 2^30 as 1073741800).
            let x = if x.is_finite() && x.fract() == 0.0 { format!("{}", *x as i64) } else { x.to_string() };
            return Err(JaxError(format!(
                "{name}: an int32 result is {x}, outside the integers within ±2^24 that the emulated TPU's float32 words hold exactly"
            )));
        }
    }
    let values = Array::from_f32(shape, values);
    Ok(match dtype {
        jaxlite::DType::F32 => values,
        dtype => values.astype(dtype),
    })
}

impl Executor for EngineExecutor {
    fn runs_control(&self) -> bool {
        true
    }

    fn device_kind(&self) -> String {
        self.machine.device_kind().to_string()
    }

    fn device_coords(&self) -> Vec<[u32; 3]> {
        (0..self.machine.chips())
            .map(|chip| {
                let c = self.machine.chip_coords(chip);
                [0, 1, 2].map(|axis| c.get(axis).copied().unwrap_or(0))
            })
            .collect()
    }

    fn mapped(&mut self, call: jaxlite::mapped::MappedCall) -> Result<(), JaxError> {
        let mapped = mapped::report(&call, &self.machine, |name, jaxpr| {
            let key = format!("{name}\n{:?}\n{jaxpr}", call.default_precision);
            let report = self.cache.get(&key)?.report;
            Some((report, self.programs.borrow()[report].counters.cycles))
        })?;
        let mut all = self.mapped.borrow_mut();
        match all.iter_mut().find(|m| m.name == mapped.name && m.chips == mapped.chips && m.steps == mapped.steps) {
            Some(m) => m.calls += 1,
            None => all.push(mapped),
        }
        Ok(())
    }

    /// Compiles and times the program without values: its report's counters are those of any
    /// call (or, for a program that branches on its values, come with its first call).
    fn compile_ahead(&mut self, name: &str, jaxpr: &Jaxpr, precision: Precision) -> Result<AheadOfTime, JaxError> {
        // Programs the machine does not run whole (host callbacks) or at all (no elements)
        // are what the reference evaluator runs: the Jaxpr itself.
        if jaxlite::loops::has_callbacks(jaxpr) || compiler::empty_array(jaxpr).is_some() {
            return Ok(jaxlite::trace::uncompiled(name, jaxpr));
        }
        let call = ProgramCall {
            name: name.to_string(),
            jaxpr: Rc::new(jaxpr.clone()),
            args: vec![],
            default_precision: precision,
            eager: false,
            host_to_device_bytes: 0,
            max_trips: u64::MAX,
        };
        let (program, report, traffic) = self.compile_text(&call)?;
        let equations = jaxlite::cost::lowered(jaxpr);
        let cost = jaxlite::cost::CostAnalysis {
            flops: equations.flops,
            transcendentals: equations.transcendentals,
            ..(*traffic).clone()
        };
        let programs = self.programs.borrow();
        let r = &programs[report];
        let io_words: u64 = program.inputs.iter().chain(&program.outputs).map(|b| b.hbm_words().1).sum();
        Ok(AheadOfTime {
            lowered_text: format!("# {name}\n{}", r.hlo),
            compiled_text: format!("# {name}\n{}\n{}", r.fused, r.asm),
            cost,
            temp_bytes: (program.hbm_words as u64).saturating_sub(io_words) * 4,
            code_bytes: isa::binary::encode(&program).len() as u64,
        })
    }

    fn execute(&mut self, call: ProgramCall) -> LocalFuture<'_, Result<Vec<Array>, JaxError>> {
        Box::pin(async move {
            // An array with no elements leaves the TPU nothing to do: the values (empty, or
            // the reductions' identities) come from the reference evaluator, and no program is
            // reported.
            if compiler::empty_array(&call.jaxpr).is_some() {
                return jaxlite::eval::eval_jaxpr(&call.jaxpr, &call.args, call.default_precision);
            }
            let (program, report) = self.compile(&call)?;
            let needed = program.hbm_words as u64 * 4;
            if needed > MAX_EMULATED_HBM_BYTES {
                return Err(JaxError(format!(
                    "{} needs {} of HBM, which {} has, but the playground emulates at most {} of HBM \
                     (the limit is the memory of the computer running the emulator, not the TPU's; \
                     `jax.jit(f).lower(...).compile()` times it without running it)",
                    call.name,
                    compiler::emit::human_bytes(needed),
                    self.machine.name,
                    compiler::emit::human_bytes(MAX_EMULATED_HBM_BYTES)
                )));
            }
            let inputs: Vec<Vec<u32>> = call.args.iter().map(|a| to_words(a, &call.name)).collect::<Result<_, _>>()?;
            let mut backend = self
                .backend
                .borrow_mut()
                .take()
                .ok_or_else(|| JaxError("the backend was lost by an earlier failed run".into()))?;
            let result = backend.run_limited(&program, &inputs, call.max_trips).await;
            let outputs = match result {
                Ok(executed) => {
                    *self.backend.borrow_mut() = Some(backend);
                    if self.programs.borrow()[report].timed_by_runs {
                        // The counters of this call: the branches its loaded words took.
                        let timing = emu::simulate(&program, &executed.loads, &self.machine)
                            .map_err(|e| JaxError(format!("cannot time {}: {e}", call.name)))?;
                        let mut programs = self.programs.borrow_mut();
                        let r = &mut programs[report];
                        r.untimed = None;
                        r.counters = timing.counters;
                        r.spans = Rc::new(timing.spans);
                        r.per_instr = Rc::new(timing.per_instr);
                    }
                    executed.outputs
                }
                // A GPU that failed (lost, out of memory) is not trusted again: the rest of this
                // run has no backend, and later runs use the CPU.
                Err(e) if backend.name() == "gpu" => {
                    *self.gpu_failure.borrow_mut() = Some(e.to_string());
                    return Err(JaxError(format!(
                        "{} failed on the GPU: {e}; the next run will use the CPU backend",
                        call.name
                    )));
                }
                Err(e) => {
                    *self.backend.borrow_mut() = Some(backend);
                    return Err(JaxError(format!("{} failed on the emulated TPU: {e}", call.name)));
                }
            };
            let mut programs = self.programs.borrow_mut();
            programs[report].calls += 1;
            programs[report].host_to_device_bytes += call.host_to_device_bytes;
            drop(programs);
            // Every word is a float32; booleans are 1.0 and 0.0, integers their exact value.
            program
                .outputs
                .iter()
                .zip(outputs)
                .zip(&call.jaxpr.outvars)
                .map(|((buf, words), out)| {
                    from_words(buf.shape.clone(), words, call.jaxpr.atom_aval(out).dtype, &call.name)
                })
                .collect()
        })
    }
}
