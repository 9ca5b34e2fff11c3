//! `tpu`: run JAX scripts on the emulated TPU from the terminal.

use clap::{Parser, Subcommand, ValueEnum};
use runtime::{BackendChoice, Engine, RunOptions};
use std::process::ExitCode;

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
    },
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
        } => {
            let source = match std::fs::read_to_string(&file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("tpu: cannot read {file}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let Some(machine) = emu::TpuConfig::preset(&machine) else {
                eprintln!(
                    "tpu: unknown machine '{machine}'; presets: {}",
                    emu::TpuConfig::preset_names().join(", ")
                );
                return ExitCode::FAILURE;
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
    }
}
