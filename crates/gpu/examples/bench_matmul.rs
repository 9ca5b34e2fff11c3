//! Times a 512×512×512 matmul program (128×128 MXU tiles, 3 bf16 passes = HIGHEST precision,
//! like the compiler emits) on the GPU backend and on the CPU backend. A measurement, not a
//! test: `cargo run --release -p gpu --example bench_matmul`.

use emu::{Backend, CpuBackend};
use gpu::GpuBackend;
use isa::{Block, Buffer, ElemType, Instr, Part, Program};
use std::time::Instant;

const T: u32 = 128;

fn matmul_program(n: u32, parts: &[(Part, Part)]) -> Program {
    // HBM: A (n×n), B (n×n), C (n×n). VMEM: one A row-panel (T rows × n), one B tile, one C tile.
    let (ha, hb, hc) = (0, n * n, 2 * n * n);
    let (va, vb, vc) = (0, T * n, T * n + T * T);
    let blk = |addr, rows, cols, stride| Block { addr, rows, cols, stride };
    let mut instrs = Vec::new();
    for i in (0..n).step_by(T as usize) {
        instrs.push(Instr::DmaLoad { src: blk(ha + i * n, T, n, n), dst: blk(va, T, n, n), sem: 0 });
        for j in (0..n).step_by(T as usize) {
            let mut first = true;
            for k in (0..n).step_by(T as usize) {
                instrs.push(Instr::DmaLoad { src: blk(hb + k * n + j, T, T, n), dst: blk(vb, T, T, T), sem: 1 });
                for &(wp, ap) in parts {
                    instrs.push(Instr::MxuWeights { src: blk(vb, T, T, T), part: wp, mxu: 0 });
                    instrs.push(Instr::MxuMatmul {
                        src: blk(va + k, T, T, n),
                        dst: blk(vc, T, T, T),
                        part: ap,
                        accumulate: !first,
                        mxu: 0,
                    });
                    first = false;
                }
            }
            instrs.push(Instr::DmaStore { src: blk(vc, T, T, T), dst: blk(hc + i * n + j, T, T, n), sem: 2 });
        }
    }
    let buf =
        |name: &str, addr| Buffer { name: name.into(), addr, shape: vec![n as usize, n as usize], elem: ElemType::F32 };
    Program {
        name: format!("matmul{n}"),
        instrs: instrs.into_iter().map(Instr::from).collect(),
        hbm_words: 3 * n * n,
        vmem_words: T * n + 2 * T * T,
        inputs: vec![buf("a", ha), buf("b", hb)],
        outputs: vec![buf("c", hc)],
        flops: 2 * (n as u64).pow(3),
    }
}

fn main() {
    let n = 512;
    let mut gpu = pollster::block_on(GpuBackend::new()).expect("GPU adapter");
    println!("adapter: {}", gpu.adapter().unwrap());
    let a: Vec<u32> = (0..n * n).map(|i| ((i % 97) as f32 * 0.01 - 0.3).to_bits()).collect();
    let b: Vec<u32> = (0..n * n).map(|i| ((i % 89) as f32 * 0.02 - 0.7).to_bits()).collect();
    let inputs = [a, b];
    for (label, parts) in [
        ("1 pass (DEFAULT)", &[(Part::Hi, Part::Hi)][..]),
        ("3 passes", &[(Part::Hi, Part::Hi), (Part::Mid, Part::Hi), (Part::Hi, Part::Mid)][..]),
    ] {
        let p = matmul_program(n, parts);
        let t = Instant::now();
        let want = CpuBackend.run_sync(&p, &inputs).unwrap();
        let cpu = t.elapsed();
        pollster::block_on(gpu.run(&p, &inputs)).unwrap(); // warm-up (first use of buffers)
        let t = Instant::now();
        let got = pollster::block_on(gpu.run(&p, &inputs)).unwrap();
        let gpu_time = t.elapsed();
        assert_eq!(want, got, "backends disagree");
        let gflops = |s: f64| (p.flops as f64 * parts.len() as f64) / s / 1e9;
        println!(
            "{n}³ matmul, {label}, {} instructions: cpu {:.3} s, gpu {:.3} s ({:.2} / {:.2} GFLOP/s of MXU work), bit-identical",
            p.instrs.len(),
            cpu.as_secs_f64(),
            gpu_time.as_secs_f64(),
            gflops(cpu.as_secs_f64()),
            gflops(gpu_time.as_secs_f64()),
        );
    }
}
