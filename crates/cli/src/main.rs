//! `tpu`: run JAX scripts on the emulated TPU from the terminal.

use clap::{Parser, Subcommand, ValueEnum};
use runtime::{BackendChoice, Engine, RunOptions};
use std::process::ExitCode;

mod machines;
mod systolic;

#[derive(Parser)]
#[command(name = "tpu", version, about = "Run JAX programs on an emulated TPU")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script and print what it prints.
    Run {
        /// The Python (JAX) script.
        file: String,
        /// Print one JSON object (prints, programs with counters, machine, backend) instead.
        #[arg(long)]
        json: bool,
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
    },
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

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run {
            file,
            json,
            backend,
            precision,
            machine,
            set,
        } => {
            let source = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("tpu: cannot read {file}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let machine = match machines::build(&machine, &set) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("tpu: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let opts = RunOptions {
                backend: match backend {
                    Backend::Auto => BackendChoice::Auto,
                    Backend::Cpu => BackendChoice::Cpu,
                    Backend::Gpu => BackendChoice::Gpu,
                },
                machine,
                precision: match precision {
                    Precision::Default => jaxlite::Precision::Default,
                    Precision::High => jaxlite::Precision::High,
                    Precision::Highest => jaxlite::Precision::Highest,
                },
            };
            let mut engine = Engine::new();
            match pollster::block_on(engine.run_script(&source, &opts)) {
                Ok(report) => {
                    if json {
                        println!("{}", report.to_json(false));
                    } else {
                        print!("{}", report.stdout);
                    }
                    ExitCode::SUCCESS
                }
                Err(failure) => {
                    if !json {
                        print!("{}", failure.stdout);
                    }
                    for e in &failure.errors {
                        if e.line == 0 {
                            eprintln!("{file}: error: {}", e.message);
                        } else {
                            eprintln!("{file}:{}:{}: error: {}", e.line, e.col, e.message);
                        }
                    }
                    ExitCode::FAILURE
                }
            }
        }
        Command::Machines { json, set } => {
            let mut list = Vec::new();
            for name in emu::TpuConfig::preset_names() {
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
        Command::Systolic {
            rows,
            cols,
            dataflow,
            m,
            k,
            n,
            json,
        } => {
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
