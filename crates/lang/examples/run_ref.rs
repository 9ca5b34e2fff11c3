//! Runs a script with the reference executor: `cargo run -p lang --example run_ref FILE.py`
//! (`PRECISION=highest` for full-precision matmuls; DEFAULT rounds their operands to bf16).

use jaxlite::eval::ReferenceExecutor;
use jaxlite::Context;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_ref FILE.py");
        std::process::exit(2);
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    if std::env::var("PRECISION").is_ok_and(|p| p == "highest") {
        ctx.default_precision = jaxlite::Precision::Highest;
    }
    match pollster::block_on(lang::run_script(&source, &mut ctx)) {
        Ok(out) => {
            print!("{}", out.stdout);
            eprint!("{}", out.stderr);
        }
        Err(f) => {
            print!("{}", f.output.stdout);
            eprint!("{}", f.output.stderr);
            for e in f.errors {
                println!("error {e}");
            }
        }
    }
}
