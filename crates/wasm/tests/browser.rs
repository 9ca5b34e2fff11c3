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

/// HBM split over several bindings (as a program larger than one binding is), on the
/// browser's WebGPU, which validates bindings more strictly than native drivers: an input
/// straddling part boundaries goes through VMEM and back out, bit for bit as on the CPU.
#[wasm_bindgen_test]
async fn hbm_split_over_bindings_on_webgpu() {
    use emu::Backend;
    use isa::{Block, Buffer, ElemType, Instr, Program};
    let mut gpu = gpu::GpuBackend::new().await.expect("a WebGPU adapter");
    gpu.set_plan_limits(gpu::Limits { hbm_part_words: 64, ..gpu.plan_limits() });
    let buffer = |name: &str, addr, n| Buffer { name: name.into(), addr, shape: vec![n], elem: ElemType::F32 };
    let program = Program {
        name: "split hbm".into(),
        instrs: [
            Instr::DmaLoad {
                src: Block { addr: 40, rows: 5, cols: 20, stride: 20 },
                dst: Block { addr: 0, rows: 5, cols: 20, stride: 20 },
                sem: 0,
            },
            Instr::DmaStore {
                src: Block { addr: 0, rows: 10, cols: 10, stride: 10 },
                dst: Block { addr: 150, rows: 10, cols: 10, stride: 10 },
                sem: 0,
            },
        ]
        .into_iter()
        .map(Instr::from)
        .collect(),
        hbm_words: 250,
        vmem_words: 100,
        inputs: vec![buffer("x", 40, 100)],
        outputs: vec![buffer("y", 150, 100)],
        flops: 0,
    };
    let inputs = [(0..100u32).map(|i| i.wrapping_mul(2_654_435_761)).collect::<Vec<u32>>()];
    let want = emu::CpuBackend.run_sync(&program, &inputs).expect("the CPU runs it");
    let got = gpu.run(&program, &inputs).await.expect("the GPU runs it");
    assert_eq!(got, want);
    assert_eq!(got[0], inputs[0]);
}
