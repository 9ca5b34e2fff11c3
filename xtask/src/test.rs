//! `cargo xtask test`: every check CI runs, cheapest first, stopping at the first failure.

use crate::cmd::{cargo, root, run, Result};
use crate::web::{build_web, install_wasm_tools};
use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

type Check = fn() -> Result;

/// (name, check), in the order they run: cheap and likely to fail first.
const STEPS: &[(&str, Check)] = &[
    ("system packages", system_packages),
    ("format", format),
    ("clippy", clippy),
    ("native tests", native_tests),
    ("wasm tests (headless Chromium)", wasm_tests),
    ("web build", build_web),
    ("end-to-end tests (headless Chromium)", e2e_tests),
];

pub fn test() -> Result {
    let mut done: Vec<(&str, Duration, bool)> = Vec::new();
    let mut failure = None;
    for (i, (name, check)) in STEPS.iter().enumerate() {
        println!("\n==> [{}/{}] {name}", i + 1, STEPS.len());
        let started = Instant::now();
        let result = check();
        done.push((name, started.elapsed(), result.is_ok()));
        if let Err(e) = result {
            failure = Some(format!("{name} failed: {e}"));
            break;
        }
    }

    println!("\n==> summary");
    for (name, took, ok) in &done {
        let verdict = if *ok { "ok" } else { "FAILED" };
        println!("  {verdict:<7} {name:<40} {:>7.1} s", took.as_secs_f64());
    }
    for (name, _) in &STEPS[done.len()..] {
        println!("  {:<7} {name}", "skipped");
    }
    let passed = done.iter().filter(|(_, _, ok)| *ok).count();
    println!("steps: {passed} passed, {} failed", done.len() - passed);
    failure.map_or(Ok(()), Err)
}

/// What the tests need that only root can install: headless Chromium and its driver for the
/// browser tests, Mesa's Vulkan drivers (lavapipe) for the GPU tests on a machine without a
/// GPU. Named with the command that installs them rather than found missing half an hour in.
fn system_packages() -> Result {
    let exists = |p: &str| std::path::Path::new(p).exists();
    // Files named for the machine's architecture: any folder or file of the pattern will do.
    let any_in = |dir: &str, found: &dyn Fn(&str) -> bool| {
        fs::read_dir(dir).is_ok_and(|d| d.flatten().any(|e| found(&e.file_name().to_string_lossy())))
    };
    let lavapipe = any_in("/usr/share/vulkan/icd.d", &|name| name.starts_with("lvp_icd"));
    let loader =
        any_in("/usr/lib", &|name| name.ends_with("-linux-gnu") && exists(&format!("/usr/lib/{name}/libvulkan.so.1")));
    let missing: Vec<&str> = [
        (exists("/usr/bin/chromium"), "chromium"),
        (exists("/usr/bin/chromedriver"), "chromium-driver"),
        (lavapipe, "mesa-vulkan-drivers"),
        (loader, "libvulkan1"),
    ]
    .iter()
    .filter(|(present, _)| !present)
    .map(|&(_, package)| package)
    .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "missing Debian packages: {}; install them (as root) with\n    \
         sudo apt-get install -y chromium chromium-driver mesa-vulkan-drivers libvulkan1\n\
         (or run `bash .ci/run`, which installs everything the tests need)",
        missing.join(", ")
    ))
}

fn format() -> Result {
    run(cargo().args(["fmt", "--all", "--", "--check"]))
}

fn clippy() -> Result {
    run(cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))
}

/// GPU tests run on whatever adapter wgpu finds: Mesa's lavapipe on a machine without a GPU.
fn native_tests() -> Result {
    run(cargo().args(["test", "--workspace"]))
}

/// wasm-bindgen-test in headless Chromium, through chromedriver; Chromium's flags (WebGPU on)
/// come from crates/wasm/webdriver.json.
fn wasm_tests() -> Result {
    install_wasm_tools()?;
    let mut command = cargo();
    command
        .args(["test", "-p", "tpu-wasm", "--target", "wasm32-unknown-unknown"])
        .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", root().join("crates/wasm/webdriver.json"));
    // SwiftShader compiles each vector opcode's pipeline on first use, seconds for the
    // transcendental ones (docs/gpu.md): the edge-value test meets all of them (~40 s), far
    // more than the runner's default 20 s.
    if std::env::var_os("WASM_BINDGEN_TEST_TIMEOUT").is_none() {
        command.env("WASM_BINDGEN_TEST_TIMEOUT", "300");
    }
    if std::env::var_os("CHROMEDRIVER").is_none() {
        command.env("CHROMEDRIVER", "/usr/bin/chromedriver");
    }
    run(&mut command)
}

/// node's test runner over web/e2e/*.test.mjs, against web/dist. The files are listed rather than
/// the folder passed, because node versions disagree on what a folder argument means.
fn e2e_tests() -> Result {
    let dir = root().join("web/e2e");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .map_err(|e| format!("reading {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("no *.test.mjs files in {}", dir.display()));
    }
    run(Command::new("node").arg("--test").args(files.iter().map(|p| p.strip_prefix(root()).unwrap_or(p))))?;
    println!("screenshot: {}", root().join("target/screenshots/skeleton.png").display());
    Ok(())
}
