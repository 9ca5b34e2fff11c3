//! Runs a script with the reference executor: `cargo run -p lang --example run_ref FILE.py`.

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
    match pollster::block_on(lang::run_script(&source, &mut ctx)) {
        Ok(out) => print!("{}", out.stdout),
        Err(f) => {
            print!("{}", f.output.stdout);
            for e in f.errors {
                println!("error {e}");
            }
        }
    }
}
