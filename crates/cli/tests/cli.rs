//! The `tpu` binary as a user runs it.

use std::process::Command;

fn tpu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tpu")).args(args).output().expect("tpu runs")
}

fn script(name: &str) -> String {
    format!("{}/../../tests/scripts/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_prints_what_the_script_prints() {
    let out = tpu(&["run", &script("skeleton.py"), "--backend", "cpu"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let expected = std::fs::read_to_string(script("skeleton.expected")).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn json_is_one_object_and_backends_agree() {
    let mut reports = Vec::new();
    for backend in ["cpu", "gpu"] {
        let out = tpu(&["run", &script("skeleton.py"), "--json", "--backend", backend]);
        assert!(out.status.success(), "{backend}: {}", String::from_utf8_lossy(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is exactly one JSON object");
        assert_eq!(json["backend"], backend);
        reports.push(json);
    }
    assert_eq!(reports[0]["prints"], reports[1]["prints"]);
    assert_eq!(reports[0]["programs"], reports[1]["programs"]);
    assert!(reports[1]["adapter"].is_string());
}

#[test]
fn errors_go_to_stderr_with_a_place_and_fail() {
    let dir = std::env::temp_dir().join(format!("tpu-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.py");
    std::fs::write(&file, "import jax.numpy as jnp\nprint(jnp.ones((2, 3)) @ jnp.ones((2, 3)))\n").unwrap();
    let out = tpu(&["run", file.to_str().unwrap(), "--backend", "cpu"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("bad.py:2:24: error:"), "{stderr}");
    assert!(stderr.contains("contracting dimensions"), "{stderr}");
}

#[test]
fn unknown_machine_is_a_clear_error() {
    let out = tpu(&["run", &script("skeleton.py"), "--machine", "v99"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown machine 'v99'"));
}

#[test]
fn trace_is_chrome_trace_json_with_a_thread_per_unit() {
    let path = std::env::temp_dir().join(format!("tpu-trace-{}.json", std::process::id()));
    let out = tpu(&["run", &script("skeleton.py"), "--backend", "cpu", "--trace", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let named = |ph: &str, name: &str| events.iter().filter(|e| e["ph"] == ph && e["name"] == name).count();
    assert_eq!(named("M", "process_name"), 4, "one process per program: reshape, div, mul, f");
    let matmul = events.iter().find(|e| e["ph"] == "X" && e["name"] == "mxu.matmul").expect("the matmul runs");
    assert_eq!(matmul["cat"], "mxu");
    // 3 rows stream, and the results follow 128 + 128 - 2 cycles later.
    let cycle = |key: &str| matmul["args"][key].as_u64().unwrap();
    assert_eq!(cycle("end_cycle") - cycle("start_cycle"), 3);
    assert_eq!(cycle("done_cycle") - cycle("start_cycle"), 3 + 254);
    assert!(matmul["dur"].as_f64().unwrap() > 0.0);
    // A thread per resource: v5e's four MXUs each have one, and loads and stores their queues.
    let threads: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == matmul["pid"])
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["scalar", "dma load", "dma store", "mxu0", "mxu1", "mxu2", "mxu3", "vector", "xlu"]);
    assert_eq!(threads[matmul["tid"].as_u64().unwrap() as usize], "mxu0");
    std::fs::remove_file(&path).ok();
}

/// A reader that stops early (`tpu run f.py | head -1`) ends tpu quietly, as any Unix tool: no
/// panic on the closed pipe.
#[test]
fn a_closed_pipe_ends_tpu_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    // Two megabytes of output: far more than a pipe buffers.
    let path = std::env::temp_dir().join(format!("tpu-pipe-{}.py", std::process::id()));
    std::fs::write(&path, "for i in range(20000):\n    print('x' * 100)\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tpu"))
        .args(["run", "--backend", "cpu", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tpu runs");
    // Read one byte, then close our end before tpu has written everything.
    let mut stdout = child.stdout.take().expect("piped");
    let mut byte = [0u8; 1];
    stdout.read_exact(&mut byte).expect("tpu prints something");
    drop(stdout);
    let out = child.wait_with_output().expect("tpu ends");
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "tpu panicked on a closed pipe:\n{stderr}");
}
