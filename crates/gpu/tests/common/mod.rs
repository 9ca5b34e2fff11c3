//! Shared by the GPU tests: one backend per test binary, a small deterministic PRNG, and the
//! differential check (CPU reference vs GPU, bit for bit).

#![allow(dead_code)]

pub mod edge;

use emu::{Backend, CpuBackend};
use gpu::{GpuBackend, Limits};
use isa::{Block, Buffer, ElemType, Instr, Program};
use std::sync::{Mutex, OnceLock};

/// The GPU backend, created once. Panics when there is no adapter: a GPU test that cannot
/// run must fail loudly, never pass by skipping.
pub fn gpu() -> std::sync::MutexGuard<'static, GpuBackend> {
    static GPU: OnceLock<Mutex<GpuBackend>> = OnceLock::new();
    GPU.get_or_init(|| {
        let backend = pollster::block_on(GpuBackend::new()).unwrap_or_else(|e| {
            panic!(
                "GPU tests need a WebGPU/Vulkan adapter (install mesa-vulkan-drivers for \
                 lavapipe): {e}"
            )
        });
        Mutex::new(backend)
    })
    .lock()
    .unwrap_or_else(|e| e.into_inner())
}

/// xorshift64*: deterministic, no dependencies.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as u32
    }

    /// Uniform in [lo, hi).
    pub fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.u32() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A normal-range value with a random sign, magnitude 2^-20 .. 2^20.
    pub fn moderate(&mut self) -> f32 {
        let sign = self.u32() & 0x8000_0000;
        let exp = self.range(127 - 20, 127 + 20);
        f32::from_bits(sign | exp << 23 | (self.u32() & 0x007f_ffff))
    }
}

pub fn buffer(name: &str, addr: u32, shape: &[usize]) -> Buffer {
    Buffer { name: name.into(), addr, shape: shape.to_vec(), elem: ElemType::F32 }
}

pub fn program(
    name: &str,
    hbm_words: u32,
    vmem_words: u32,
    inputs: Vec<Buffer>,
    outputs: Vec<Buffer>,
    instrs: Vec<Instr<u32>>,
) -> Program {
    Program {
        name: name.into(),
        instrs: instrs.into_iter().map(Instr::from).collect(),
        hbm_words,
        vmem_words,
        inputs,
        outputs,
        flops: vec![],
    }
}

/// Copies `words` contiguous words from HBM to VMEM.
pub fn load(hbm: u32, vmem: u32, words: u32) -> Instr<u32> {
    Instr::DmaLoad { src: Block::flat(hbm, words), dst: Block::flat(vmem, words), sem: 0, elem: isa::ElemType::F32 }
}

pub fn store(vmem: u32, hbm: u32, words: u32) -> Instr<u32> {
    Instr::DmaStore { src: Block::flat(vmem, words), dst: Block::flat(hbm, words), sem: 0, elem: isa::ElemType::F32 }
}

/// Runs `program` on both backends and asserts identical output bits, then again with HBM
/// split over three or four bindings (as a program larger than one binding is).
/// `describe(output, index)` names the input of a mismatching word for the failure message.
pub fn assert_same_bits(program: &Program, inputs: &[Vec<u32>], describe: &dyn Fn(usize, usize) -> String) {
    let got = pollster::block_on(gpu().run(program, inputs));
    compare(program, inputs, got, "", describe);
    let part_words = (program.hbm_words as u64).div_ceil(gpu::HBM_PARTS).next_power_of_two();
    let limits = Limits { hbm_part_words: part_words, ..gpu().plan_limits() };
    let got = with_limits(limits, |g| pollster::block_on(g.run(program, inputs)));
    compare(program, inputs, got, &format!(" (HBM split in parts of {part_words} words)"), describe);
}

/// Runs `f` on the backend with other plan limits, under one lock so that no other test
/// changes them in between.
pub fn with_limits<T>(limits: Limits, f: impl FnOnce(&mut GpuBackend) -> T) -> T {
    let mut g = gpu();
    let before = g.plan_limits();
    g.set_plan_limits(limits);
    let result = f(&mut g);
    g.set_plan_limits(before);
    result
}

/// `assert_same_bits` for programs with matmuls: also with a scratch so small that plans move
/// weights between the halves of theirs and start the activations' over all the time, and
/// with the kernels built for a device that flushes subnormals (on a device that keeps them,
/// that arithmetic must give the same bits; on one that flushes, it is what runs anyway).
pub fn assert_same_bits_every_matmul_plan(
    program: &Program,
    inputs: &[Vec<u32>],
    describe: &dyn Fn(usize, usize) -> String,
) {
    assert_same_bits(program, inputs, describe);
    for (small_scratch, flushing_kernels) in [(true, false), (false, true)] {
        let how = if small_scratch { " (small scratch)" } else { " (kernels for a device that flushes subnormals)" };
        compare(program, inputs, run_with(program, inputs, small_scratch, flushing_kernels, false), how, describe);
    }
}

/// `assert_same_bits` with the kernels for a device that flushes subnormals and strict
/// products (`set_strict_products`): for values with products that under- or overflow, where
/// a compiler fusing multiplies into adds could change a sum.
pub fn assert_same_bits_with_strict_products(
    program: &Program,
    inputs: &[Vec<u32>],
    describe: &dyn Fn(usize, usize) -> String,
) {
    let got = run_with(program, inputs, false, true, true);
    let how = " (kernels for a device that flushes subnormals, strict products)";
    compare(program, inputs, got, how, describe);
}

fn run_with(
    program: &Program,
    inputs: &[Vec<u32>],
    small_scratch: bool,
    flushing_kernels: bool,
    strict_products: bool,
) -> Result<emu::Executed, emu::EmuError> {
    // One lock for the run, so no other test changes the settings in between.
    let defaults = gpu().plan_limits();
    let scratch_words = if small_scratch { 64 } else { defaults.scratch_words };
    with_limits(Limits { scratch_words, ..defaults }, |g| {
        let before = g.flushes_subnormals();
        g.set_flushing_kernels(flushing_kernels || before);
        g.set_strict_products(strict_products);
        let got = pollster::block_on(g.run(program, inputs));
        g.set_flushing_kernels(before);
        g.set_strict_products(false);
        got
    })
}

fn compare(
    program: &Program,
    inputs: &[Vec<u32>],
    got: Result<emu::Executed, emu::EmuError>,
    how: &str,
    describe: &dyn Fn(usize, usize) -> String,
) {
    let name = &program.name;
    let want = CpuBackend.execute(program, inputs).unwrap_or_else(|e| panic!("{name}: CPU backend failed: {e}"));
    let got = got.unwrap_or_else(|e| panic!("{name}{how}: GPU backend failed: {e}"));
    // The scalar unit read the same words, so both took the same branches.
    assert_eq!(want.loads, got.loads, "{name}{how}: the words s.load read differ");
    let (want, got) = (want.outputs, got.outputs);
    assert_eq!(want.len(), got.len());
    let mut mismatches = Vec::new();
    for (o, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w.len(), g.len());
        for (i, (&w, &g)) in w.iter().zip(g).enumerate() {
            if w != g {
                mismatches.push(format!(
                    "  output {o}[{i}]: cpu {w:#010x} ({:e}) gpu {g:#010x} ({:e})  {}",
                    f32::from_bits(w),
                    f32::from_bits(g),
                    describe(o, i)
                ));
            }
        }
    }
    if !mismatches.is_empty() {
        let n = mismatches.len();
        mismatches.truncate(24);
        panic!("{name}{how}: {n} words differ between the CPU and GPU backends:\n{}", mismatches.join("\n"));
    }
}
