//! Running commands and finding the project's places: the repository root, cargo's target
//! directory, and versions pinned in `Cargo.lock`.

use std::path::{Path, PathBuf};
use std::process::Command;

pub type Result<T = ()> = std::result::Result<T, String>;

/// The repository root (xtask lives in `<root>/xtask`). `cargo run` sets CARGO_MANIFEST_DIR at
/// run time too; preferring that keeps a binary cached from another clone of the repository
/// (CI shares one target directory between clones) from working in the wrong folder.
pub fn root() -> PathBuf {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest_dir.parent().expect("xtask has a parent folder").to_path_buf()
}

/// The cargo that runs us (`cargo xtask` sets `CARGO`), so nested builds use the same toolchain.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// While set, `run` echoes to stderr and sends each command's stdout there too, so that this
/// process's stdout holds only what the last command means to print (`bench --json`).
static STDOUT_FOR_RESULTS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn keep_stdout_for_results() {
    STDOUT_FOR_RESULTS.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Runs `command` in the repository root (unless it has its own directory), echoing it first;
/// an exit status other than 0 is an error. `last`: its stdout is the result (see
/// `keep_stdout_for_results`).
pub fn run(command: &mut Command) -> Result {
    run_as(command, false)
}

pub fn run_last(command: &mut Command) -> Result {
    run_as(command, true)
}

fn run_as(command: &mut Command, last: bool) -> Result {
    if command.get_current_dir().is_none() {
        command.current_dir(root());
    }
    let shown = show(command);
    if STDOUT_FOR_RESULTS.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("$ {shown}");
        if !last {
            command.stdout(std::process::Stdio::from(std::io::stderr()));
        }
    } else {
        println!("$ {shown}");
    }
    let status = command.status().map_err(|e| format!("could not start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// What a command prints on stdout, or None when it cannot be run or fails.
pub fn output_of(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The first line a command prints on stdout, or None when it cannot be run.
pub fn first_line_of(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    out.status.success().then(|| text.lines().next().unwrap_or("").trim().to_string())
}

fn show(command: &Command) -> String {
    // `cargo`, not `/root/.rustup/toolchains/.../bin/cargo`: the echo is for reading.
    let program = Path::new(command.get_program());
    let mut parts = vec![program.file_name().unwrap_or(program.as_os_str()).to_string_lossy().into_owned()];
    parts.extend(command.get_args().map(|a| a.to_string_lossy().into_owned()));
    parts.join(" ")
}

/// Cargo's target directory: `CARGO_TARGET_DIR`, else what `cargo metadata` says (which honours
/// `build.target-dir` in any config file).
pub fn target_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return Ok(root().join(dir)); // a relative path is relative to where cargo runs: the root
    }
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("could not run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    json_string_field(&String::from_utf8_lossy(&out.stdout), "target_directory")
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata printed no target_directory".to_string())
}

/// The value of the first `"key":"..."` string in a JSON text. Enough for cargo metadata's
/// paths without a JSON dependency.
pub fn json_string_field(json: &str, key: &str) -> Option<String> {
    let start = json.find(&format!("\"{key}\":\""))? + key.len() + 4;
    let mut value = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    value.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => value.push(other), // \" \\ \/
            },
            c => value.push(c),
        }
    }
    None
}

/// The version of package `name` that `Cargo.lock` pins (the first, if several are locked).
pub fn locked_version(lock: &str, name: &str) -> Option<String> {
    lock.split("[[package]]").find_map(|block| {
        let field = |key: &str| {
            block.lines().find_map(|line| {
                let value = line.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
                Some(value.trim_matches('"').to_string())
            })
        };
        (field("name")? == name).then(|| field("version")).flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_target_directory_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"/tmp/a \"b\"\\c","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").as_deref(), Some(r#"/tmp/a "b"\c"#));
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }

    #[test]
    fn reads_a_locked_version() {
        let lock = r#"
[[package]]
name = "wasm-bindgen-backend"
version = "0.2.99"

[[package]]
name = "wasm-bindgen"
version = "0.2.130"
source = "registry+https://github.com/rust-lang/crates.io-index"
"#;
        assert_eq!(locked_version(lock, "wasm-bindgen").as_deref(), Some("0.2.130"));
        assert_eq!(locked_version(lock, "serde"), None);
    }

    #[test]
    fn the_real_lock_pins_wasm_bindgen() {
        let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
        assert!(locked_version(&lock, "wasm-bindgen").is_some());
    }
}
