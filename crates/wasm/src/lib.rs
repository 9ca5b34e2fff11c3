//! The engine's JS API (wasm-bindgen). One function, `run_script`, whose promise always
//! resolves to JSON: the run's report, or its errors with their places. Errors are values all
//! the way down; should a bug panic anyway, wasm32 aborts (it has no unwinding), the promise
//! rejects, and the page replaces its worker.

use runtime::{BackendChoice, Engine, RunFailure, RunOptions};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

thread_local! {
    /// One engine per worker, so the GPU device and its pipelines are created once.
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

/// Options as the page sends them: `{"backend": "auto"|"cpu"|"gpu", "precision":
/// "default"|"high"|"highest", "machine": "v5e", "mxu": 32}`; every field optional.
fn parse_options(json: &str) -> Result<RunOptions, String> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| format!("bad options JSON: {e}"))?;
    let field = |name: &str| value.get(name).and_then(|v| v.as_str());
    let mut opts = RunOptions::default();
    if let Some(b) = field("backend") {
        opts.backend = BackendChoice::parse(b).ok_or_else(|| format!("unknown backend '{b}'"))?;
    }
    if let Some(p) = field("precision") {
        opts.precision = jaxlite::Precision::parse(p).ok_or_else(|| format!("unknown precision '{p}'"))?;
    }
    if let Some(m) = field("machine") {
        opts.machine = emu::TpuConfig::preset(m).ok_or_else(|| format!("unknown machine '{m}'"))?;
    }
    // A square MXU in place of the machine's own, as `tpu run --set mxu=N`.
    if let Some(n) = value.get("mxu").filter(|v| !v.is_null()) {
        let n = n.as_u64().map(|n| n.to_string()).or_else(|| n.as_str().map(String::from)).unwrap_or_default();
        let dims = if n.contains('x') { n } else { format!("{n}x{n}") };
        opts.machine.with_override(&format!("mxu={dims}")).map_err(|e| e.to_string())?;
    }
    Ok(opts)
}

/// Runs a script. Resolves to `{"ok": true, "stdout", "prints", "programs", "machine",
/// "backend", "adapter", "backend_reason"}` or `{"ok": false, "errors": [{"message", "line",
/// "col"}], "stdout"}`. `on_progress(line, iteration, total, steps)` is called at each iteration
/// of the outermost loop running (`total` is `undefined` for a `while`), synchronously: a
/// worker can post it to the page while the run goes on.
#[wasm_bindgen]
pub async fn run_script(source: String, options_json: String, on_progress: Option<js_sys::Function>) -> String {
    let opts = match parse_options(&options_json) {
        Ok(o) => o,
        Err(e) => return RunFailure::without_location(e).to_json(),
    };
    let mut engine = ENGINE.with(|e| e.borrow_mut().take()).unwrap_or_default();
    let mut report = |p: runtime::Progress| {
        if let Some(f) = &on_progress {
            let total = p.total.map_or(JsValue::UNDEFINED, |t| JsValue::from_f64(t as f64));
            let args = js_sys::Array::of4(
                &JsValue::from(p.line),
                &JsValue::from_f64(p.iteration as f64),
                &total,
                &JsValue::from_f64(p.steps as f64),
            );
            // A throwing callback is the page's problem, not the run's.
            let _ = f.apply(&JsValue::NULL, &args);
        }
    };
    let progress: Option<&mut dyn FnMut(runtime::Progress)> =
        if on_progress.is_some() { Some(&mut report) } else { None };
    let json = match engine.run_script_with_progress(&source, &opts, progress).await {
        Ok(report) => report.to_json(true),
        Err(failure) => failure.to_json(),
    };
    ENGINE.with(|e| *e.borrow_mut() = Some(engine));
    json
}

thread_local! {
    /// The benchmark's compiled matmul programs by n, its loop program, and its GPU backend,
    /// made once.
    static BENCH_PROGRAMS: RefCell<std::collections::HashMap<u32, std::rc::Rc<isa::Program>>> = RefCell::default();
    static BENCH_LOOP: RefCell<Option<std::rc::Rc<isa::Program>>> = const { RefCell::new(None) };
    static BENCH_GPU: RefCell<Option<gpu::GpuBackend>> = const { RefCell::new(None) };
}

/// The benchmark's matmul program for n, compiled once.
fn matmul_program(n: u32) -> Result<std::rc::Rc<isa::Program>, String> {
    if let Some(p) = BENCH_PROGRAMS.with(|m| m.borrow().get(&n).cloned()) {
        return Ok(p);
    }
    let program = std::rc::Rc::new(runtime::benchmark::matmul_program(n as usize)?);
    BENCH_PROGRAMS.with(|m| m.borrow_mut().insert(n, program.clone()));
    Ok(program)
}

/// One step of the in-browser matmul benchmark (issue 10, `web/bench.html`): the n³ DEFAULT
/// matmul program, compiled once per n, run once on `backend` (`"cpu"`: this wasm module;
/// `"gpu"`: WebGPU) with its inputs uploaded and its result read back. Resolves to the sum of
/// the result, which the page compares with the other implementations'; rejects with the
/// reason when the program cannot run (no WebGPU adapter, say).
#[wasm_bindgen]
pub async fn bench_matmul(n: u32, backend: String) -> Result<f64, JsValue> {
    let program = matmul_program(n).map_err(|e| JsValue::from_str(&e))?;
    let inputs = runtime::benchmark::matmul_inputs(n as usize);
    let outputs = run_bench_program(&program, &inputs, &backend).await?;
    Ok(outputs[0].iter().map(|&w| f32::from_bits(w) as f64).sum())
}

/// One step of the in-browser loop benchmark (issue 28, `web/bench.html`): a `while` loop of
/// `trips` trips whose test reads a value the program computed
/// (`runtime::benchmark::loop_program`), run once on `backend` as `bench_matmul` runs its
/// matmul. On WebGPU every trip's test word is read back to the host, which decides the next
/// piece; the page times how much a trip costs. Resolves to the sum of the result.
#[wasm_bindgen]
pub async fn bench_loop(trips: u32, backend: String) -> Result<f64, JsValue> {
    let program = match BENCH_LOOP.with(|p| p.borrow().clone()) {
        Some(p) => p,
        None => {
            let p = std::rc::Rc::new(runtime::benchmark::loop_program().map_err(|e| JsValue::from_str(&e))?);
            BENCH_LOOP.with(|slot| *slot.borrow_mut() = Some(p.clone()));
            p
        }
    };
    let outputs = run_bench_program(&program, &runtime::benchmark::loop_inputs(trips), &backend).await?;
    Ok(outputs[0].iter().map(|&w| f32::from_bits(w) as f64).sum())
}

/// Runs a benchmark's program on `backend` (`"cpu"` or `"gpu"`, the GPU backend made once).
async fn run_bench_program(
    program: &isa::Program,
    inputs: &[Vec<u32>],
    backend: &str,
) -> Result<Vec<Vec<u32>>, JsValue> {
    match backend {
        "cpu" => emu::CpuBackend.run_sync(program, inputs).map_err(|e| JsValue::from_str(&e.to_string())),
        "gpu" => {
            let mut g = match BENCH_GPU.with(|g| g.borrow_mut().take()) {
                Some(g) => g,
                None => gpu::GpuBackend::new().await.map_err(|e| JsValue::from_str(&e))?,
            };
            let result = g.run_program(program, inputs).await;
            BENCH_GPU.with(|slot| *slot.borrow_mut() = Some(g));
            Ok(result.map_err(|e| JsValue::from_str(&e.to_string()))?.outputs)
        }
        other => Err(JsValue::from_str(&format!("unknown backend '{other}' (cpu or gpu)"))),
    }
}
