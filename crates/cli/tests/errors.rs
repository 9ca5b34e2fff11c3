//! The error corpus (`tests/errors/`, issue 9): every script there must fail the way a user
//! should see it fail. Each `NAME.py` runs with `tpu run NAME.py --backend cpu`; each
//! `asm/NAME.tasm` with `tpu asm` and `tpu validate`; each `asm/NAME.tbin.hex` (a commented hex
//! dump, turned into a `.tbin` here) with `tpu validate` and `tpu disasm`. For every one:
//!
//! - the exit code is 1 (an error, not a panic's 101 or an abort), and nothing panicked;
//! - it finishes within [`TIMEOUT`] (the step budget, not this timeout, should stop loops);
//! - stderr, with the `tpu: ` and file-name prefixes taken off each line, is exactly the error
//!   lines of `NAME.expected`, and stdout is what the script printed before failing.
//!
//! `NAME.expected` is the error lines alone (`LINE:COL: error: MESSAGE` for scripts), or, when
//! the script printed something first, `; stdout` then that output, then `; stderr` then the
//! error lines. A script may add arguments to its `tpu run` with a comment line
//! `# tpu-args: --machine v1`.
//!
//! After an intended change, re-bless with `UPDATE_EXPECT=1 cargo test -p cli --test errors`
//! and read the diff: a message must say where and why, not merely be what comes out.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Generous: the slowest case (a runaway loop stopped by the step budget) takes a few seconds
/// in a debug build.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The corpus must not shrink below what issue 9 asks for.
const MIN_SCRIPTS: usize = 60;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/errors")
}

/// What one `tpu` invocation did.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `tpu ARGS`, killing it after [`TIMEOUT`]. `Err` says why no outcome came back.
fn tpu(args: &[&str]) -> Result<Outcome, String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpu"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start tpu: {e}"))?;
    // Drain both pipes on their own threads so a chatty child cannot block on a full pipe.
    let read = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as _));
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {} s (a hang?); killed", TIMEOUT.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot wait for tpu: {e}")),
        }
    };
    let join = |h: std::thread::JoinHandle<String>| h.join().unwrap_or_default();
    Ok(Outcome { code: status.code(), stdout: join(stdout), stderr: join(stderr) })
}

/// stderr without the prefixes that name the file: `tpu: ` and `PATH:` (or `PATH `) at the
/// start of each line.
fn strip_paths(stderr: &str, path: &str) -> String {
    stderr
        .lines()
        .map(|line| {
            let line = line.strip_prefix("tpu: ").unwrap_or(line);
            match line.strip_prefix(path) {
                Some(rest) => rest.strip_prefix(':').unwrap_or(rest).trim_start(),
                None => line,
            }
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The `.expected` text for an outcome.
fn render(stdout: &str, errors: &str) -> String {
    if stdout.is_empty() {
        return errors.to_string();
    }
    let newline = if stdout.ends_with('\n') { "" } else { "\n" };
    format!("; stdout\n{stdout}{newline}; stderr\n{errors}")
}

/// Checks what every run must satisfy, whatever its message: it failed as an error.
fn check_failed_cleanly(out: &Outcome) -> Result<(), String> {
    if out.stderr.contains("panicked") || out.stderr.contains("RUST_BACKTRACE") {
        return Err(format!("panicked:\n{}", out.stderr));
    }
    if out.code != Some(1) {
        return Err(format!("exit code {:?}, expected 1 (an error); stderr:\n{}", out.code, out.stderr));
    }
    if out.stderr.trim().is_empty() {
        return Err("failed without a message on stderr".into());
    }
    Ok(())
}

/// One case of the corpus: its source, and how to run it.
enum Case {
    Script(PathBuf),
    Asm(PathBuf),
    Binary(PathBuf),
}

impl Case {
    fn source(&self) -> &Path {
        match self {
            Case::Script(p) | Case::Asm(p) | Case::Binary(p) => p,
        }
    }

    /// `NAME.expected` beside `NAME.py`, `NAME.tasm` or `NAME.tbin.hex`.
    fn expected_path(&self) -> PathBuf {
        let name = self.source().file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let stem = name.strip_suffix(".tbin.hex").or_else(|| name.rsplit_once('.').map(|(s, _)| s)).unwrap_or(name);
        self.source().with_file_name(format!("{stem}.expected"))
    }

    /// Runs the case; returns the `.expected` text its outcome corresponds to.
    fn run(&self, scratch: &Path) -> Result<String, String> {
        match self {
            Case::Script(path) => {
                let file = path.to_str().ok_or("non-UTF-8 path")?;
                let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
                let mut args = vec!["run", file, "--backend", "cpu"];
                for line in source.lines() {
                    if let Some(extra) = line.strip_prefix("# tpu-args:") {
                        args.extend(extra.split_whitespace());
                    }
                }
                let out = tpu(&args)?;
                check_failed_cleanly(&out)?;
                let errors = strip_paths(&out.stderr, file);
                // Errors are values with a place: every script error names its line and column.
                // (A message's further lines continue it, indented.)
                if let Some(line) = errors.lines().find(|l| !has_place(l) && !l.starts_with("    ")) {
                    return Err(format!("an error without a line and column: {line}"));
                }
                Ok(render(&out.stdout, &errors))
            }
            Case::Asm(path) => {
                let file = path.to_str().ok_or("non-UTF-8 path")?;
                let output = scratch.join("out.tbin");
                let assembled = tpu(&["asm", file, "-o", output.to_str().ok_or("non-UTF-8 path")?])?;
                let validated = tpu(&["validate", file])?;
                same_failure(&[("asm", &assembled), ("validate", &validated)], file)
            }
            Case::Binary(path) => {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                let bin = scratch.join(name.strip_suffix(".hex").unwrap_or(name));
                std::fs::write(&bin, unhex(&std::fs::read_to_string(path).map_err(|e| e.to_string())?)?)
                    .map_err(|e| e.to_string())?;
                let file = bin.to_str().ok_or("non-UTF-8 path")?;
                let validated = tpu(&["validate", file])?;
                let disassembled = tpu(&["disasm", file])?;
                // `disasm` only decodes: a binary that decodes but does not validate prints.
                if disassembled.code == Some(0) && !disassembled.stderr.contains("panicked") {
                    return same_failure(&[("validate", &validated)], file);
                }
                same_failure(&[("validate", &validated), ("disasm", &disassembled)], file)
            }
        }
    }
}

/// Every command failed cleanly with the same message; that message, as `.expected` text.
fn same_failure(runs: &[(&str, &Outcome)], file: &str) -> Result<String, String> {
    let mut first: Option<String> = None;
    for (command, out) in runs {
        check_failed_cleanly(out).map_err(|e| format!("tpu {command}: {e}"))?;
        if !out.stdout.is_empty() {
            return Err(format!("tpu {command} failed but printed to stdout:\n{}", out.stdout));
        }
        let errors = strip_paths(&out.stderr, file);
        match &first {
            Some(f) if *f != errors => {
                return Err(format!("tpu {} and tpu {command} disagree:\n{f}{errors}", runs[0].0));
            }
            _ => first = Some(errors),
        }
    }
    Ok(first.unwrap_or_default())
}

/// `LINE:COL: ...` with both numbers, LINE at least 1.
fn has_place(line: &str) -> bool {
    let mut parts = line.splitn(3, ':');
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    matches!((number(parts.next()), number(parts.next())), (Some(l), Some(_)) if l >= 1)
}

/// Bytes from a hex dump: pairs of hex digits separated by whitespace; `#` starts a comment.
fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    for line in text.lines() {
        let data = line.split('#').next().unwrap_or("");
        for word in data.split_whitespace() {
            if word.len() % 2 != 0 {
                return Err(format!("hex dump: '{word}' is not whole bytes"));
            }
            for i in (0..word.len()).step_by(2) {
                let byte =
                    u8::from_str_radix(&word[i..i + 2], 16).map_err(|_| format!("hex dump: bad byte in '{word}'"))?;
                bytes.push(byte);
            }
        }
    }
    Ok(bytes)
}

fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    files.sort();
    files
}

#[test]
fn error_corpus() {
    let dir = corpus_dir();
    let bless = std::env::var_os("UPDATE_EXPECT").is_some();
    let scripts = files_with_suffix(&dir, ".py");
    assert!(scripts.len() >= MIN_SCRIPTS, "only {} scripts in {}", scripts.len(), dir.display());
    let mut cases: Vec<Case> = scripts.into_iter().map(Case::Script).collect();
    cases.extend(files_with_suffix(&dir.join("asm"), ".tasm").into_iter().map(Case::Asm));
    cases.extend(files_with_suffix(&dir.join("asm"), ".tbin.hex").into_iter().map(Case::Binary));

    // Every `.expected` belongs to exactly one case, so a renamed script leaves nothing stale
    // behind and two cases (`x.tasm`, `x.tbin.hex`) cannot share one file.
    let wanted: Vec<PathBuf> = cases.iter().map(Case::expected_path).collect();
    for (i, w) in wanted.iter().enumerate() {
        assert!(!wanted[..i].contains(w), "two cases share {}: rename one", w.display());
    }
    let mut failures: Vec<String> = [dir.clone(), dir.join("asm")]
        .iter()
        .flat_map(|d| files_with_suffix(d, ".expected"))
        .filter(|e| !wanted.contains(e))
        .map(|e| format!("{}: no script beside it", e.display()))
        .collect();

    let scratch = std::env::temp_dir().join(format!("tpu-errors-{}", std::process::id()));
    // The cases are independent processes: run a few at once.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for worker in 0..workers {
            let (cases, next, found, scratch) = (&cases, &next, &found, scratch.join(worker.to_string()));
            s.spawn(move || {
                std::fs::create_dir_all(&scratch).expect("scratch directory");
                while let Some(case) = cases.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let name = case.source().strip_prefix(corpus_dir()).unwrap_or(case.source()).display().to_string();
                    let result = check_case(case, &scratch, bless).map_err(|e| format!("{name}: {e}"));
                    if let Err(e) = result {
                        found.lock().expect("failures").push(e);
                    }
                }
            });
        }
    });
    std::fs::remove_dir_all(&scratch).ok();
    failures.extend(found.into_inner().expect("failures"));
    failures.sort();
    assert!(failures.is_empty(), "{} case(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Runs one case and compares it with (or, blessing, writes) its `.expected`.
fn check_case(case: &Case, scratch: &Path, bless: bool) -> Result<(), String> {
    let got = case.run(scratch)?;
    let expected = case.expected_path();
    if bless {
        return std::fs::write(&expected, &got).map_err(|e| format!("cannot write {}: {e}", expected.display()));
    }
    let want = std::fs::read_to_string(&expected)
        .map_err(|_| format!("{} is missing (bless with UPDATE_EXPECT=1)", expected.display()))?;
    if want != got {
        return Err(format!("differs from {}\n--- expected\n{want}--- got\n{got}", expected.display()));
    }
    Ok(())
}
