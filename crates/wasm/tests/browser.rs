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

/// Every vector opcode over every pair of edge values (±0, subnormals, infinities, NaNs, bf16
/// ties, the transcendentals' breakpoints), and a matmul over them, on the browser's WebGPU
/// against the CPU backend, bit for bit, on an adapter that flushes subnormals to zero too
/// (Chromium's SwiftShader does: the vector unit then does its arithmetic with subnormals on
/// the bits). The MXU does not yet: on such an adapter a matmul may differ where a flush
/// explains it (a subnormal operand part, product, running sum or result), and nowhere else.
#[wasm_bindgen_test]
async fn vector_ops_and_matmuls_on_edge_values_on_webgpu() {
    use emu::Backend;
    use isa::{Block, Buffer, ElemType, Instr, Operand, Program, VectorOp};
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
    let k = edges.len();
    let buffer = |name: &str, addr, len| Buffer { name: name.into(), addr, shape: vec![len], elem: ElemType::F32 };
    let program = |name: String, instrs: Vec<Instr<u32>>| Program {
        name,
        instrs: instrs.into_iter().map(Instr::from).collect(),
        hbm_words: 3 * n,
        vmem_words: 3 * n,
        inputs: vec![buffer("a", 0, n as usize), buffer("b", n, n as usize)],
        outputs: vec![buffer("out", 2 * n, n as usize)],
        flops: 0,
    };
    let inputs = [a, b];
    // Zero exponent and non-zero mantissa: what a flushing device reads as 0 and writes as 0.
    let tiny = |w: u32| (w & 0x7f80_0000) == 0 && (w & 0x007f_ffff) != 0;
    let (mut unexplained, mut flushed) = (Vec::new(), 0);
    let mut check = async |p: Program, explained: &dyn Fn(usize, u32) -> bool| {
        let want = emu::CpuBackend.run_sync(&p, &inputs).expect("the CPU runs it");
        let got = gpu.run(&p, &inputs).await.expect("the GPU runs it");
        for (i, (w, g)) in want[0].iter().zip(&got[0]).enumerate().filter(|(_, (w, g))| w != g) {
            if gpu.flushes_subnormals() && explained(i, *w) {
                flushed += 1;
            } else {
                let (x, y) = (inputs[0][i], inputs[1][i]);
                unexplained.push(format!("{}: {x:#010x}, {y:#010x} gave {g:#010x}, want {w:#010x}", p.name));
            }
        }
    };
    let load = Instr::DmaLoad { src: Block::flat(0, 2 * n), dst: Block::flat(0, 2 * n), sem: 0 };
    let store = Instr::DmaStore { src: Block::flat(2 * n, n), dst: Block::flat(2 * n, n), sem: 0 };
    // The vector unit does its arithmetic with subnormals in software where the device
    // flushes them: nothing may differ.
    let lane = |_: usize, _: u32| false;
    for op in VectorOp::ALL {
        let vector = Instr::Vector { op, dst: Block::flat(2 * n, n), a: Operand::Vmem(0), b: Operand::Vmem(n) };
        check(program(op.name().into(), vec![load, vector, store]), &lane).await;
    }
    // Rows of k edge values times k columns of them: every product and running sum. Output
    // (r, c) reads row r of the activations and column c of the weights.
    let rows = n / k as u32;
    let weights = Block { addr: n, rows: k as u32, cols: k as u32, stride: k as u32 };
    let matmul = Instr::MxuMatmul {
        src: Block { addr: 0, rows, cols: k as u32, stride: k as u32 },
        dst: Block { addr: 2 * n, rows, cols: k as u32, stride: k as u32 },
        part: isa::Part::Hi,
        accumulate: false,
        mxu: 0,
    };
    let weights = Instr::MxuWeights { src: weights, part: isa::Part::Hi, mxu: 0 };
    let output = |i: usize, want: u32| {
        let (r, c) = (i / k, i % k);
        let mut sum = 0.0f32;
        tiny(want)
            || (0..k).any(|j| {
                let part = |w: u32| emu::cpu::bf16_round(f32::from_bits(w));
                let (x, w) = (part(inputs[0][r * k + j]), part(inputs[1][j * k + c]));
                sum += x * w;
                [x, w, x * w, sum].iter().any(|v| tiny(v.to_bits()))
            })
    };
    check(program("matmul".into(), vec![load, weights, matmul, store]), &output).await;
    let shown = unexplained.iter().take(20).cloned().collect::<Vec<_>>().join("\n");
    assert!(unexplained.is_empty(), "{} words differ on {:?}:\n{shown}", unexplained.len(), gpu.adapter());
    console_log!("{flushed} words differ only by the adapter's flushing of subnormals");
}
