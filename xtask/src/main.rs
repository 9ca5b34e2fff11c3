//! Project automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! Only std: this crate is built before anything else on a cold CI machine, so it stays cheap.

mod cmd;
mod test;
mod web;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  build-web          build the engine to wasm, run wasm-bindgen into web/pkg, and vite-build web/dist
  serve [--port N]   build-web, then serve web/dist on http://127.0.0.1:N/ (default 4173)
  test               fmt, clippy, native tests, wasm tests, build-web and end-to-end page tests,
                     stopping at the first failure (what CI runs, through .ci/run)
  bench [--json] [--native]
                     the benchmarks as a table (docs/benchmarks.md): matmul GFLOP/s per backend
                     natively beside the CPU's peak and in headless Chromium beside jax-js and
                     TF.js (wasm and WebGPU; build-web first), time to first result in the page,
                     every example's time to result and emulated cycles per second, the wasm
                     module's size; --native skips the browser half
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build-web") if args.len() == 1 => web::build_web(),
        Some("serve") => match parse_port(&args[1..]) {
            Ok(port) => web::serve(port),
            Err(e) => Err(e),
        },
        Some("test") if args.len() == 1 => test::test(),
        Some("bench") if args[1..].iter().all(|a| a == "--json" || a == "--native") => web::bench(&args[1..]),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(_) => {
            eprint!("unknown command: {}\n\n{USAGE}", args.join(" "));
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("\nxtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `[--port N | --port=N]`, default 4173 (vite preview's own default).
fn parse_port(args: &[String]) -> Result<u16, String> {
    let value = match args {
        [] => return Ok(4173),
        [flag, n] if flag == "--port" => n.as_str(),
        [flag] if flag.starts_with("--port=") => &flag["--port=".len()..],
        _ => return Err(format!("serve takes only --port N, got: {}", args.join(" "))),
    };
    value.parse().map_err(|_| format!("--port wants a number from 1 to 65535, got {value:?}"))
}

#[cfg(test)]
mod tests {
    use super::parse_port;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn port_flag() {
        assert_eq!(parse_port(&args("")), Ok(4173));
        assert_eq!(parse_port(&args("--port 8080")), Ok(8080));
        assert_eq!(parse_port(&args("--port=9000")), Ok(9000));
        assert!(parse_port(&args("--port x")).is_err());
        assert!(parse_port(&args("--bogus")).is_err());
    }
}
