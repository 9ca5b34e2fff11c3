//! `build-web` and `serve`: the engine compiled to wasm, wrapped by wasm-bindgen, bundled by Vite.

use crate::cmd::{cargo, first_line_of, locked_version, output_of, root, run, target_dir, Result};
use std::fs;
use std::path::Path;
use std::process::Command;

/// cargo build (wasm32) → wasm-bindgen → web/pkg; npm ci when needed; tsc and vite → web/dist.
pub fn build_web() -> Result {
    install_wasm_tools()?;
    run(cargo().args(["build", "-p", "tpu-wasm", "--target", "wasm32-unknown-unknown", "--release"]))?;
    let wasm = target_dir()?.join("wasm32-unknown-unknown/release/tpu_wasm.wasm");
    run(Command::new("wasm-bindgen").args(["--target", "web", "--out-dir"]).arg(root().join("web/pkg")).arg(&wasm))?;
    npm_ci_if_stale()?;
    run(&mut npx(["tsc", "--noEmit"]))?;
    run(&mut npx(["vite", "build"]))?;
    eprintln!("built {}", root().join("web/dist").display());
    Ok(())
}

/// build-web, then `vite preview` on 127.0.0.1 (it serves .wasm as application/wasm).
pub fn serve(port: u16) -> Result {
    build_web()?;
    let port = port.to_string();
    println!("\nServing web/dist at http://127.0.0.1:{port}/ (Ctrl+C stops)\n");
    run(&mut npx(["vite", "preview", "--host", "127.0.0.1", "--strictPort", "--port", &port]))
}

/// What building for the page needs that a user-level tool can install, installed when it is
/// missing (each install printed as it runs): the wasm32 target, through rustup, and the
/// wasm-bindgen CLI at exactly the version of the `wasm-bindgen` crate in Cargo.lock (the two
/// share a private data format, and a mismatch fails late with a cryptic message).
pub fn install_wasm_tools() -> Result {
    let installed = output_of(Command::new("rustup").args(["target", "list", "--installed"])).ok_or(
        "`rustup` is not on PATH: install Rust with rustup (https://rustup.rs), which the wasm32 target needs",
    )?;
    if !installed.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    let lock = fs::read_to_string(root().join("Cargo.lock")).map_err(|e| format!("reading Cargo.lock: {e}"))?;
    let want = locked_version(&lock, "wasm-bindgen").ok_or("Cargo.lock pins no wasm-bindgen")?;
    let matches = |tool: &str| {
        // It prints e.g. "wasm-bindgen 0.2.130".
        first_line_of(Command::new(tool).arg("--version"))
            .is_some_and(|line| line.split_whitespace().nth(1) == Some(want.as_str()))
    };
    if !["wasm-bindgen", "wasm-bindgen-test-runner"].iter().all(|tool| matches(tool)) {
        // No --locked: the registry here lacks one of the CLI's locked dependencies
        // (shared/HEADLESS.md); cargo resolves the rest.
        run(cargo().args(["install", "wasm-bindgen-cli", "--version", &want, "--force"]))?;
        if !matches("wasm-bindgen") {
            return Err(format!(
                "wasm-bindgen-cli {want} was installed but `wasm-bindgen --version` does not say {want}: \
                 is cargo's bin folder (~/.cargo/bin) on PATH?"
            ));
        }
    }
    Ok(())
}

/// `npm ci` when node_modules is missing or older than package-lock.json (npm records the
/// installed tree in node_modules/.package-lock.json, so its age is the install's age).
fn npm_ci_if_stale() -> Result {
    let web = root().join("web");
    if is_newer(&web.join("package-lock.json"), &web.join("node_modules/.package-lock.json")) {
        run(Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&web))?;
    }
    Ok(())
}

/// Whether `a` was modified after `b`, or `b` does not exist.
fn is_newer(a: &Path, b: &Path) -> bool {
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(a), modified(b)) {
        (_, None) => true,
        (Some(a), Some(b)) => a > b,
        (None, Some(_)) => false,
    }
}

/// A tool from web/node_modules/.bin, run in web/ (npx never downloads: the tools are local).
fn npx<const N: usize>(args: [&str; N]) -> Command {
    let mut command = Command::new("npx");
    command.arg("--no-install").args(args).current_dir(root().join("web"));
    command
}

/// `cargo xtask bench`: the browser half (build-web, then `web/bench/run.mjs` in headless
/// Chromium, its JSON kept in the target directory) unless `--native`, then the native
/// benchmarks, which print one table (or JSON object) with the browser's rows merged in.
pub fn bench(args: &[String]) -> Result {
    let json = args.iter().any(|a| a == "--json");
    if json {
        crate::cmd::keep_stdout_for_results();
    }
    let mut native = cargo();
    native.args(["run", "--release", "-q", "-p", "bench", "--"]);
    if json {
        native.arg("--json");
    }
    if !args.iter().any(|a| a == "--native") {
        build_web()?;
        let out = target_dir()?.join("browser-bench.json");
        let mut browser = Command::new("node");
        browser.current_dir(root().join("web")).args(["bench/run.mjs", "--json"]);
        let shown = "node bench/run.mjs --json";
        eprintln!("$ {shown} > {}", out.display());
        let result = browser
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|e| format!("could not start `{shown}`: {e}"))?;
        std::fs::write(&out, &result.stdout).map_err(|e| format!("could not write {}: {e}", out.display()))?;
        match result.status.code() {
            Some(0) => {}
            // A checksum disagreed: the numbers are printed (the rows say which), and the
            // command fails after them.
            Some(2) => {
                native.arg("--browser").arg(&out);
                crate::cmd::run_last(&mut native)?;
                return Err("the browser benchmark found a result that disagrees with the others".into());
            }
            _ => return Err(format!("`{shown}` failed ({})", result.status)),
        }
        native.arg("--browser").arg(&out);
    }
    crate::cmd::run_last(&mut native)
}
