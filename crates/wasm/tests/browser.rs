//! The engine inside headless Chromium: the skeleton script on WebGPU (SwiftShader there) and
//! on the wasm CPU backend, through the same `run_script` the page calls.

#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const SCRIPT: &str = include_str!("../../../tests/scripts/skeleton.py");
const EXPECTED: &str = include_str!("../../../tests/scripts/skeleton.expected");

async fn run(backend: &str) -> serde_json::Value {
    let options = format!(r#"{{"backend": "{backend}", "precision": "default", "machine": "v5e"}}"#);
    let json = tpu_wasm::run_script(SCRIPT.to_string(), options, None).await;
    serde_json::from_str(&json).expect("run_script resolves to JSON")
}

#[wasm_bindgen_test]
async fn skeleton_runs_on_webgpu() {
    let report = run("gpu").await;
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["backend"], "gpu");
    assert!(report["adapter"].is_string(), "the WebGPU adapter is named: {report}");
    assert_eq!(report["stdout"], EXPECTED);
}

#[wasm_bindgen_test]
async fn webgpu_and_wasm_cpu_agree_bit_for_bit() {
    let gpu = run("gpu").await;
    let cpu = run("cpu").await;
    assert_eq!(cpu["backend"], "cpu");
    assert_eq!(cpu["stdout"], EXPECTED);
    assert_eq!(gpu["prints"], cpu["prints"]);
    let counters = |r: &serde_json::Value| {
        r["programs"].as_array().unwrap().iter().map(|p| p["counters"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(counters(&gpu), counters(&cpu));
}

#[wasm_bindgen_test]
async fn script_errors_come_back_as_values() {
    let json = tpu_wasm::run_script("x = (1,\n".to_string(), "{}".to_string(), None).await;
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["ok"], false);
    let e = &report["errors"][0];
    assert!(e["line"].as_u64().unwrap() >= 1, "{report}");
    assert!(!e["message"].as_str().unwrap().is_empty());
}
