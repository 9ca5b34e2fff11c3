//! `tpu`: run JAX scripts on the emulated TPU from the terminal.

use clap::{Args, Parser, Subcommand, ValueEnum};
use runtime::{BackendChoice, Engine, RunFailure, RunOptions, RunReport};
use std::process::ExitCode;

mod machines;
mod programs;
mod systolic;

#[derive(Parser)]
#[command(name = "tpu", version, about = "Run JAX programs on an emulated TPU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// What every command that runs a script takes.
#[derive(Args)]
struct ScriptArgs {
    /// The Python (JAX) script.
    file: String,
    /// Which backend computes the values.
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// The initial jax_default_matmul_precision.
    #[arg(long, value_enum, default_value_t = Precision::Default)]
    precision: Precision,
    /// The machine preset.
    #[arg(long, default_value = "v5e")]
    machine: String,
    /// Override a machine field, e.g. `mxu=32x32`, `hbm_gbps=1600`,
    /// `weight_double_buffer=false` (repeatable; see docs/machines.md).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// The interpreter's step budget (statements and expressions evaluated) before a run is
    /// stopped as a runaway loop; a program's while loops get as many iterations.
    #[arg(long, default_value_t = runtime::DEFAULT_STEP_BUDGET)]
    max_steps: u64,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script and print what it prints.
    Run {
        #[command(flatten)]
        script: ScriptArgs,
        /// Print one JSON object (prints, programs with counters, machine, backend) instead.
        #[arg(long)]
        json: bool,
        /// Write each program's timeline (one call) as Chrome trace JSON, for Perfetto.
        #[arg(long, value_name = "FILE")]
        trace: Option<String>,
    },
    /// Run a script and print each jitted program at one stage of the compiler.
    Compile {
        #[command(flatten)]
        script: ScriptArgs,
        #[arg(long, value_enum, default_value_t = Stage::Asm)]
        emit: Stage,
        /// With `--emit bin`: the file to write (one program), or a prefix (`PREFIX.N.tbin`).
        #[arg(short, long)]
        output: Option<String>,
        /// Also print the single-op programs run outside `jit`.
        #[arg(long)]
        eager: bool,
    },
    /// Assemble a text program into its binary form.
    Asm {
        file: String,
        #[arg(short, long)]
        output: String,
    },
    /// Print a binary program as text.
    Disasm { file: String },
    /// Check a text or binary program; errors name the instruction.
    Validate { file: String },
    /// List the machine presets.
    Machines {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// Override a field of every listed machine (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Cycles, folds and utilization of one GEMM (M×K @ K×N) on one systolic array, by
    /// SCALE-Sim's analytic compute model.
    Systolic {
        #[arg(long)]
        rows: u64,
        #[arg(long)]
        cols: u64,
        #[arg(long, value_enum, default_value_t = Dataflow::Ws)]
        dataflow: Dataflow,
        #[arg(long)]
        m: u64,
        #[arg(long)]
        k: u64,
        #[arg(long)]
        n: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// A stage of the compiler, as `tpu compile --emit` prints it.
#[derive(Clone, Copy, ValueEnum)]
enum Stage {
    Jaxpr,
    Hlo,
    Fused,
    Asm,
    Bin,
}

#[derive(Clone, Copy, ValueEnum)]
enum Dataflow {
    /// Weight stationary (the TPU's MXU).
    Ws,
    /// Output stationary.
    Os,
    /// Input stationary.
    Is,
}

#[derive(Clone, Copy, ValueEnum)]
enum Backend {
    Auto,
    Cpu,
    Gpu,
}

#[derive(Clone, Copy, ValueEnum)]
enum Precision {
    Default,
    High,
    Highest,
}

impl ScriptArgs {
    /// Reads the script and runs it; on failure, prints the errors with their places.
    fn run(&self, echo_stdout: bool) -> Result<RunReport, ExitCode> {
        let fail = |message: String| {
            eprintln!("tpu: {message}");
            ExitCode::FAILURE
        };
        let source =
            std::fs::read_to_string(&self.file).map_err(|e| fail(format!("cannot read {}: {e}", self.file)))?;
        let machine = machines::build(&self.machine, &self.set).map_err(|e| fail(e.to_string()))?;
        let opts = RunOptions {
            backend: match self.backend {
                Backend::Auto => BackendChoice::Auto,
                Backend::Cpu => BackendChoice::Cpu,
                Backend::Gpu => BackendChoice::Gpu,
            },
            machine,
            precision: match self.precision {
                Precision::Default => jaxlite::Precision::Default,
                Precision::High => jaxlite::Precision::High,
                Precision::Highest => jaxlite::Precision::Highest,
            },
            limits: runtime::Limits { steps: self.max_steps, ..runtime::Limits::default() },
        };
        pollster::block_on(Engine::new().run_script(&source, &opts)).map_err(|failure: RunFailure| {
            if echo_stdout {
                print!("{}", failure.stdout);
                eprint!("{}", failure.stderr);
            }
            for e in &failure.errors {
                // A message of several lines (JAX's are) continues indented under its place.
                let message = e.message.replace('\n', "\n    ");
                if e.line == 0 {
                    eprintln!("{}: error: {message}", self.file);
                } else {
                    eprintln!("{}:{}:{}: error: {message}", self.file, e.line, e.col);
                }
            }
            ExitCode::FAILURE
        })
    }
}

/// As other Unix tools: when the reader of our output goes away (`tpu disasm f.tbin | head`),
/// the process ends quietly, rather than Rust's default of ignoring SIGPIPE, which turns the
/// next print into a panic.
#[cfg(unix)]
fn die_quietly_on_closed_pipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: restoring a signal's default disposition, before any thread is started.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    #[cfg(unix)]
    die_quietly_on_closed_pipe();
    match Cli::parse().command {
        Command::Run { script, json, trace } => match script.run(!json) {
            Ok(report) => {
                if let Some(path) = trace {
                    if let Err(e) = std::fs::write(&path, report.trace_json()) {
                        eprintln!("tpu: cannot write {path}: {e}");
                        return ExitCode::FAILURE;
                    }
                }
                if json {
                    println!("{}", report.to_json(false));
                } else {
                    print!("{}", report.stdout);
                    eprint!("{}", report.stderr);
                }
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        Command::Compile { script, emit, output, eager } => match script.run(false) {
            Ok(report) => programs::print_stage(&report, emit, output.as_deref(), eager),
            Err(code) => code,
        },
        Command::Asm { file, output } => programs::assemble(&file, &output),
        Command::Disasm { file } => programs::disassemble(&file),
        Command::Validate { file } => programs::validate(&file),
        Command::Machines { json, set } => {
            let mut list = Vec::new();
            for name in emu::TpuConfig::preset_names().iter().copied().chain(emu::TpuConfig::slice_names()) {
                match machines::build(name, &set) {
                    Ok(m) => list.push(m),
                    Err(e) => {
                        eprintln!("tpu: {e}");
                        return ExitCode::FAILURE;
                    }
                }
            }
            if json {
                println!("{}", machines::json(&list));
            } else {
                print!("{}", machines::table(&list));
            }
            ExitCode::SUCCESS
        }
        Command::Systolic { rows, cols, dataflow, m, k, n, json } => {
            let dataflow = match dataflow {
                Dataflow::Ws => emu::systolic::Dataflow::Ws,
                Dataflow::Os => emu::systolic::Dataflow::Os,
                Dataflow::Is => emu::systolic::Dataflow::Is,
            };
            match emu::systolic::analyze(rows, cols, dataflow, m, k, n) {
                Ok(a) if json => println!("{}", systolic::json(&a)),
                Ok(a) => print!("{}", systolic::text(&a)),
                Err(e) => {
                    eprintln!("tpu: {e}");
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
    }
}
