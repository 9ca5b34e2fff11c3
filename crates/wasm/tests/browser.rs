//! The engine inside headless Chromium: the skeleton script on WebGPU (SwiftShader there) and
//! on the wasm CPU backend, through the same `run_script` the page calls.

#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

#[path = "../../gpu/tests/common/edge.rs"]
mod edge;

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
                elem: isa::ElemType::F32,
            },
            Instr::DmaStore {
                src: Block { addr: 0, rows: 10, cols: 10, stride: 10 },
                dst: Block { addr: 150, rows: 10, cols: 10, stride: 10 },
                sem: 0,
                elem: isa::ElemType::F32,
            },
        ]
        .into_iter()
        .map(Instr::from)
        .collect(),
        hbm_words: 250,
        vmem_words: 100,
        inputs: vec![buffer("x", 40, 100)],
        outputs: vec![buffer("y", 150, 100)],
        flops: vec![],
    };
    let inputs = [(0..100u32).map(|i| i.wrapping_mul(2_654_435_761)).collect::<Vec<u32>>()];
    let want = emu::CpuBackend.run_sync(&program, &inputs).expect("the CPU runs it");
    let got = gpu.run(&program, &inputs).await.expect("the GPU runs it").outputs;
    assert_eq!(got, want);
    assert_eq!(got[0], inputs[0]);
}

/// Every vector opcode over every pair of edge values (±0, subnormals, infinities, NaNs, bf16
/// ties, the transcendentals' breakpoints), and matmuls over them (every part, set and added
/// to), on the browser's WebGPU against the CPU backend, bit for bit, on an adapter that
/// flushes subnormals to zero too (Chromium's SwiftShader does: the vector unit then does its
/// arithmetic with subnormals on the bits, and the MXU takes its exact path where a product
/// or a sum could meet one).
#[wasm_bindgen_test]
async fn vector_ops_and_matmuls_on_edge_values_on_webgpu() {
    use emu::Backend;
    use isa::{Block, Buffer, ElemType, Instr, Operand, Part, Program, VectorOp};
    let mut gpu = gpu::GpuBackend::new().await.expect("a WebGPU adapter");
    let edges = edge::edge_values();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x.to_bits());
            b.push(y.to_bits());
        }
    }
    let n = a.len() as u32;
    let k = edges.len() as u32;
    let buffer = |name: &str, addr, len| Buffer { name: name.into(), addr, shape: vec![len], elem: ElemType::F32 };
    let program = |name: String, instrs: Vec<Instr<u32>>| Program {
        name,
        instrs: instrs.into_iter().map(Instr::from).collect(),
        hbm_words: 3 * n,
        vmem_words: 3 * n,
        inputs: vec![buffer("a", 0, n as usize), buffer("b", n, n as usize)],
        outputs: vec![buffer("out", 2 * n, n as usize)],
        flops: vec![],
    };
    let inputs = [a, b];
    let mut differ = Vec::new();
    let mut check = async |p: Program| {
        let want = emu::CpuBackend.run_sync(&p, &inputs).expect("the CPU runs it");
        let got = gpu.run(&p, &inputs).await.expect("the GPU runs it").outputs;
        for (i, (w, g)) in want[0].iter().zip(&got[0]).enumerate().filter(|(_, (w, g))| w != g) {
            let (x, y) = (inputs[0][i], inputs[1][i]);
            differ.push(format!("{}: {x:#010x}, {y:#010x} gave {g:#010x}, want {w:#010x}", p.name));
        }
    };
    let load =
        Instr::DmaLoad { src: Block::flat(0, 2 * n), dst: Block::flat(0, 2 * n), sem: 0, elem: isa::ElemType::F32 };
    let store =
        Instr::DmaStore { src: Block::flat(2 * n, n), dst: Block::flat(2 * n, n), sem: 0, elem: isa::ElemType::F32 };
    for op in VectorOp::ALL {
        let vector = Instr::Vector { op, dst: Block::flat(2 * n, n), a: Operand::Vmem(0), b: Operand::Vmem(n) };
        check(program(op.name().into(), vec![load, vector, store])).await;
    }
    // Rows of k edge values times k columns of them: every product and running sum, added to
    // edge values too. Output (r, c) reads row r of the activations and column c of the
    // weights.
    let rows = n / k;
    let square = |addr| Block { addr, rows: k, cols: k, stride: k };
    for part in Part::ALL {
        for accumulate in [false, true] {
            let init =
                Instr::DmaLoad { src: Block::flat(n, n), dst: Block::flat(2 * n, n), sem: 0, elem: isa::ElemType::F32 };
            let weights = Instr::MxuWeights { src: square(n), part, mxu: 0 };
            let matmul = Instr::MxuMatmul {
                src: Block { addr: 0, rows, cols: k, stride: k },
                dst: Block { addr: 2 * n, rows, cols: k, stride: k },
                part,
                accumulate,
                mxu: 0,
            };
            let name = format!("matmul of {part:?} parts{}", if accumulate { ", added" } else { "" });
            check(program(name, vec![load, init, weights, matmul, store])).await;
        }
    }
    let shown = differ.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(differ.is_empty(), "{} words differ on {:?}:\n{shown}", differ.len(), gpu.adapter());
    console_log!("flushes subnormals: {}", gpu.flushes_subnormals());
}
