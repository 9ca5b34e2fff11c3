//! gpu: the wgpu backend of the emulator.
//!
//! [`GpuBackend`] runs an [`isa::Program`] with WGSL compute shaders (`shaders/*.wgsl`),
//! natively on Vulkan (including Mesa's lavapipe on machines without a GPU) and in the
//! browser on WebGPU, producing the same bits as [`emu::CpuBackend`].
//!
//! A run is one command buffer and one submit: clear the memories, copy the inputs into HBM,
//! one compute dispatch per instruction (a matmul's operands reduced where it stands, its sums
//! computed with the other matmuls adding into the same block: see [`plan()`]), copy HBM out.
//! A program whose control depends on values (`s.load`) is one submit per piece between its
//! loads, each word read back for the host to decide the next piece ([`Pieces`]).
//! Each dispatch reads its parameters from one uniform buffer at its own dynamic offset.
//! Pipelines are built on first use; buffers are kept between runs and grown when a program
//! needs more.
//! See `docs/gpu.md` for the buffer layout and how bit identity is kept.

mod plan;
mod readback;
#[cfg(not(target_arch = "wasm32"))]
mod subnormals;

pub use plan::{grid, plan, Dispatch, Flushing, Kernel, Limits, Params, Pieces, Plan, Step, HBM_PARTS, SCRATCH_WORDS};

use emu::{Backend, EmuError, Executed};
use isa::{Program, VectorOp};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

const WORKGROUP_SIZE: u32 = 64;
const WORD: u64 = 4;
/// Bytes between consecutive dispatches' parameters: WebGPU's default (and largest)
/// `min_uniform_buffer_offset_alignment`.
const PARAMS_STRIDE: u64 = 256;

/// Each module is the shared prelude (bindings, `Params`) followed by its kernels.
const DMA_WGSL: &str = include_str!("../../../shaders/dma.wgsl");
const HBM_WHOLE_WGSL: &str = include_str!("../../../shaders/hbm_whole.wgsl");
const HBM_SPLIT_WGSL: &str = include_str!("../../../shaders/hbm_split.wgsl");
/// The matrix unit: one kernel for every adapter, over bfloat16 parts packed two to a word,
/// 8×8 blocks of outputs per invocation since 2026-12-01 (shaped by SwiftShader's machine
/// code; not yet measured on a hardware GPU: docs/gpu.md). Its 4×4 predecessor was measured
/// against one output per invocation, the other kernel there was (`cargo xtask bench`,
/// GFLOP/s of an n³ DEFAULT matmul program; docs/gpu.md has the whole table and how it was
/// measured), and was faster everywhere:
///
/// | adapter                      | kernel     | n=128 | n=256 | n=512 | n=1024 | n=4096 |
/// |------------------------------|------------|------:|------:|------:|-------:|-------:|
/// | NVIDIA H200 (Vulkan)         | per-output |   9.1 |  50.8 | 208.2 |  394.7 |  430.1 |
/// | NVIDIA H200 (Vulkan)         | 4×4 blocks |  12.6 |  51.8 | 246.1 |  522.7 |  448.3 |
/// | llvmpipe, 2 cores (Vulkan)   | per-output |   0.8 |   1.4 |   2.2 |    2.2 |      — |
/// | llvmpipe, 2 cores (Vulkan)   | 4×4 blocks |   3.0 |   5.9 |  15.2 |   20.2 |      — |
/// | SwiftShader (Vulkan)         | per-output |   0.4 |   0.4 |   0.5 |    0.4 |      — |
/// | SwiftShader (Vulkan)         | 4×4 blocks |     — |     — |   2.9 |    3.1 |      — |
///
/// (2026-11-30 and 12-01; the SwiftShader rows before matmul chains, the others with them.)
///
/// A software rasteriser runs invocations a SIMD row at a time on a few cores and wants the
/// fewest loads per product; a hardware GPU wants every thread busy, and even at n = 128 the
/// H200 had enough blocks to keep it so.
const MXU_WGSL: &str = include_str!("../../../shaders/mxu.wgsl");
const MXU_EXPONENTS_WGSL: &str = include_str!("../../../shaders/mxu_exponents.wgsl");
const COMMON_WGSL: &str = include_str!("../../../shaders/common.wgsl");
const EXACT_FMA_WGSL: &str = include_str!("../../../shaders/exact_fma.wgsl");
const EXACT_ARITH_WGSL: &str = include_str!("../../../shaders/exact_arith.wgsl");
const VPU_MATH_WGSL: &str = include_str!("../../../shaders/vpu_math.wgsl");
const VECTOR_KERNELS_WGSL: &str = include_str!("../../../shaders/vector.wgsl");

/// The vector unit's module for one opcode (or, with `None`, for the cross-lane kernels): the
/// prelude, the constant tables of `emu::vpu_math` written out as f32 bits (one definition, so
/// the shader cannot drift from the Rust), the maths, the kernels, and `apply`, the opcode's
/// operation on one element.
fn vector_module(op: Option<VectorOp>, flushes_subnormals: bool) -> String {
    use emu::vpu_math as m;
    let table = |name: &str, values: &[f32]| {
        let bits: Vec<String> = values.iter().map(|v| format!("{:#010x}u", v.to_bits())).collect();
        format!("const {name} = array<u32, {}>({});\n", values.len(), bits.join(", "))
    };
    let scalar = |name: &str, v: f32| format!("const {name}: u32 = {:#010x}u;\n", v.to_bits());
    let constants = [
        table("SQRT_LINE", &m::SQRT_LINE),
        table("PIO2", &m::PIO2),
        table("SIN_C", &m::SIN_C),
        table("COS_C", &m::COS_C),
        table("ERF_SERIES", &m::ERF_SERIES),
        table("ERF_AS", &m::ERF_AS),
        scalar("ERF_P", m::ERF_P),
        scalar("TWO_OVER_PI", m::TWO_OVER_PI),
        scalar("FRAC_2_SQRT_PI", std::f32::consts::FRAC_2_SQRT_PI),
    ]
    .concat();
    let apply =
        format!("fn apply(a: f32, b: f32, d: u32) -> u32 {{\n    return {};\n}}\n", op.map_or("0u".into(), apply_expr));
    [COMMON_WGSL, &flushes(flushes_subnormals), &constants, EXACT_FMA_WGSL, EXACT_ARITH_WGSL, VPU_MATH_WGSL].concat()
        + VECTOR_KERNELS_WGSL
        + &apply
}

/// The matrix unit's module, its reducers producing `part` (see `Kernel::MxuWeights`), its
/// products `strict` (tests: see `GpuBackend::set_strict_products`).
fn mxu_module(part: isa::Part, flushes_subnormals: bool, strict: bool) -> String {
    let part = format!("const PART: u32 = {}u;\n", part.index());
    // How `mxu_matmul` adds each product to its sum (`accumulate` in mxu.wgsl): the product
    // hidden from the optimiser where the device keeps subnormals; plain where it flushes
    // them, and every product the kernel computes is exact.
    let sum = match (flushes_subnormals, strict) {
        (false, _) => "s + bitcast<vec4<f32>>(bitcast<vec4<u32>>(a * w) | zero)",
        (true, false) => "s + a * w",
        (true, true) => "s + strict_products(a, w)",
    };
    let accumulate = format!(
        "fn accumulate(s: vec4<f32>, a: f32, w: vec4<f32>, zero: vec4<u32>) -> vec4<f32> {{\n    return {sum};\n}}\n"
    );
    [COMMON_WGSL, &part, &flushes(flushes_subnormals), EXACT_FMA_WGSL, EXACT_ARITH_WGSL, MXU_WGSL, &accumulate].concat()
}

/// Whether the device flushes subnormals, for `exact_arith.wgsl`.
fn flushes(flushes_subnormals: bool) -> String {
    format!("const FLUSHES: bool = {flushes_subnormals};\n")
}

/// One element of a vector opcode, as a WGSL expression of `a`, `b` and the destination word's
/// index `d`, giving the word to store. Arithmetic results are canonicalised (one NaN); the
/// sign operations and the masked move keep bits.
fn apply_expr(op: VectorOp) -> String {
    let arith = |e: &str| format!("canonical({e})");
    match op {
        VectorOp::Add => arith("nan_first(a, b, add_f(a, b))"),
        VectorOp::Sub => arith("nan_first(a, b, sub_f(a, b))"),
        VectorOp::Mul => arith("nan_first(a, b, mul_f(a, b))"),
        VectorOp::Div => arith("vpu_div(a, b)"),
        VectorOp::Max => arith("vpu_max(a, b)"),
        VectorOp::Min => arith("vpu_min(a, b)"),
        VectorOp::Neg => "bitcast<u32>(neg(a))".into(),
        VectorOp::Abs => "bitcast<u32>(abs_bits(a))".into(),
        VectorOp::Exp => arith("vpu_exp(a)"),
        VectorOp::Log => arith("vpu_log(a)"),
        VectorOp::Tanh => arith("vpu_tanh(a)"),
        VectorOp::Eq | VectorOp::Ne | VectorOp::Lt | VectorOp::Le | VectorOp::Gt | VectorOp::Ge => {
            arith(&format!("vpu_compare({}u, a, b)", op.code()))
        }
        // Keep the destination's bits where the mask is ±0.
        VectorOp::Where => "select(bitcast<u32>(b), vmem[d], (bitcast<u32>(a) & 0x7fffffffu) == 0u)".into(),
        VectorOp::Sqrt => arith("vpu_sqrt(a)"),
        VectorOp::Rsqrt => arith("vpu_div(1.0, vpu_sqrt(a))"),
        VectorOp::Floor => arith("floor_f(a)"),
        VectorOp::Ceil => arith("ceil_f(a)"),
        VectorOp::Round => arith("vpu_round_away(a)"),
        VectorOp::RoundEven => arith("round(a)"),
        VectorOp::Sign => arith("vpu_sign(a)"),
        VectorOp::Sin => arith("vpu_sin(a)"),
        VectorOp::Cos => arith("vpu_cos(a)"),
        VectorOp::Expm1 => arith("vpu_expm1(a)"),
        VectorOp::Log1p => arith("vpu_log1p(a)"),
        VectorOp::Erf => arith("vpu_erf(a)"),
        VectorOp::Rem => arith("vpu_rem(a, b)"),
        VectorOp::ToBf16 => arith("bf16_round(a)"),
        // Results are whole numbers: never NaN.
        VectorOp::BitAnd => "int_to_word(word_to_int(a) & word_to_int(b))".into(),
        VectorOp::BitOr => "int_to_word(word_to_int(a) | word_to_int(b))".into(),
        VectorOp::BitXor => "int_to_word(word_to_int(a) ^ word_to_int(b))".into(),
        VectorOp::ShiftLeft => "int_to_word(shift_left(word_to_int(a), word_to_int(b)))".into(),
        VectorOp::ShiftRight => "int_to_word(shift_right(word_to_int(a), word_to_int(b)))".into(),
        // Bits in, bits out (WGSL's shifts take the amount modulo 32, so larger ones are
        // spelled out).
        VectorOp::AddU32 => "bitcast<u32>(a) + bitcast<u32>(b)".into(),
        VectorOp::OrU32 => "bitcast<u32>(a) | bitcast<u32>(b)".into(),
        VectorOp::XorU32 => "bitcast<u32>(a) ^ bitcast<u32>(b)".into(),
        VectorOp::ShlU32 => "select(0u, bitcast<u32>(a) << bitcast<u32>(b), bitcast<u32>(b) < 32u)".into(),
        VectorOp::ShrU32 => "select(0u, bitcast<u32>(a) >> bitcast<u32>(b), bitcast<u32>(b) < 32u)".into(),
        VectorOp::IntToU32 => "bitcast<u32>(word_to_int(a))".into(),
        VectorOp::MulU32 => "bitcast<u32>(a) * bitcast<u32>(b)".into(),
        // A remainder by zero is the dividend (the divisor is kept nonzero so the unused `%`
        // is defined everywhere).
        VectorOp::RemU32 => {
            "select(bitcast<u32>(a), bitcast<u32>(a) % max(bitcast<u32>(b), 1u), bitcast<u32>(b) != 0u)".into()
        }
        VectorOp::U32ToInt => "int_to_word(bitcast<i32>(a))".into(),
        VectorOp::EqU32 => "select(0u, 0x3f800000u, bitcast<u32>(a) == bitcast<u32>(b))".into(),
        VectorOp::LtU32 => "select(0u, 0x3f800000u, bitcast<u32>(a) < bitcast<u32>(b))".into(),
    }
}

/// Whether `info` names a software rasteriser (lavapipe/llvmpipe, SwiftShader).
fn is_software_adapter(info: &wgpu::AdapterInfo) -> bool {
    let name = info.name.to_lowercase();
    info.device_type == wgpu::DeviceType::Cpu
        || ["llvmpipe", "lavapipe", "swiftshader"].iter().any(|s| name.contains(s))
}

fn run_error(message: impl Into<String>) -> EmuError {
    EmuError { instr: None, message: message.into() }
}

/// The buffers of a run, kept between runs and replaced by larger ones on demand.
#[derive(Default)]
struct Pool {
    /// HBM, in as many parts as the program's HBM needs (see `Limits::hbm_part_words`).
    hbm: [Option<wgpu::Buffer>; HBM_PARTS as usize],
    /// How many parts of `hbm` the bind group binds (the others bind `spare`).
    hbm_parts_bound: usize,
    /// Small buffers for the HBM bindings a program does not need, a 256-byte range each
    /// (browsers refuse one writable range bound twice).
    spare: Option<wgpu::Buffer>,
    vmem: Option<wgpu::Buffer>,
    weights: Option<wgpu::Buffer>,
    act: Option<wgpu::Buffer>,
    params: Option<wgpu::Buffer>,
    steps: Option<wgpu::Buffer>,
    upload: Option<wgpu::Buffer>,
    staging: Option<wgpu::Buffer>,
    /// Binds hbm, vmem, weights, act, params and steps; rebuilt when one of them is replaced.
    bind_group: Option<wgpu::BindGroup>,
}

/// Makes `slot` hold a buffer of at least `bytes` (rounded up to a power of two, so a
/// growing workload reallocates rarely). Returns whether it was replaced.
fn ensure(
    device: &wgpu::Device,
    slot: &mut Option<wgpu::Buffer>,
    label: &str,
    bytes: u64,
    usage: wgpu::BufferUsages,
) -> bool {
    if slot.as_ref().is_some_and(|b| b.size() >= bytes) {
        return false;
    }
    *slot = Some(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(256).next_power_of_two(),
        usage,
        mapped_at_creation: false,
    }));
    true
}

/// The emulator's GPU backend (see the crate docs).
pub struct GpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    /// Pipelines by kernel, built on first use (see `Kernel`).
    pipelines: HashMap<Kernel, wgpu::ComputePipeline>,
    pool: Pool,
    /// What plans may use (scratch bounded by `plan::SCRATCH_WORDS` unless the adapter binds
    /// less; HBM split in parts as large as one binding may be), or less when a test asks.
    plan_limits: Limits,
    /// The device turned a subnormal sum or product into zero when probed (browsers on most
    /// hardware GPUs, and NVIDIA's Vulkan driver; see `probe_flushes_subnormals`).
    flushes_subnormals: bool,
    /// The kernels are built with the arithmetic that gives such a device the reference's bits
    /// (`FLUSHES` in `shaders/exact_arith.wgsl`): where it flushes, or where a test asks.
    flushing_kernels: bool,
    /// The matmul kernel's products are `strict_products` (tests).
    strict_products: bool,
    /// Natively on Vulkan, shaders go to the driver as our own SPIR-V translation (see
    /// `subnormals`), which tells the driver to keep subnormals where it can.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    spirv: bool,
    keep_subnormals: bool,
    /// Why the device was lost, once it is (set by wgpu's device-lost callback): every later
    /// run fails at once with this reason, and the runtime falls back to the CPU.
    lost: Arc<Mutex<Option<String>>>,
}

impl GpuBackend {
    /// Opens the high-performance adapter (Vulkan natively, WebGPU in the browser) and builds
    /// the pipelines.
    pub async fn new() -> Result<GpuBackend, String> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no GPU adapter found (WebGPU/Vulkan): {e}"))?;
        let supported = adapter.limits();
        #[cfg(not(target_arch = "wasm32"))]
        let (spirv, keep_subnormals) = {
            let spirv = adapter.get_info().backend == wgpu::Backend::Vulkan
                && adapter.features().contains(wgpu::Features::PASSTHROUGH_SHADERS);
            (spirv, spirv && subnormals::vulkan_can_keep_subnormals(&adapter))
        };
        #[cfg(target_arch = "wasm32")]
        let (spirv, keep_subnormals) = (false, false);
        // WebGPU's defaults, except that big programs want the largest buffers on offer.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: supported.max_storage_buffer_binding_size,
            max_buffer_size: supported.max_buffer_size,
            ..wgpu::Limits::default()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("tpu-emulator"),
                required_limits: limits.clone(),
                required_features: if spirv { wgpu::Features::PASSTHROUGH_SHADERS } else { wgpu::Features::empty() },
                ..Default::default()
            })
            .await
            .map_err(|e| format!("could not open the GPU device: {e}"))?;
        let lost = Arc::new(Mutex::new(None));
        let on_lost = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *on_lost.lock().unwrap_or_else(|p| p.into_inner()) = Some(format!("{reason:?}: {message}"));
        });
        // Errors outside the run's error scopes (a lost device, say) are reported by the run
        // that meets them; wgpu's default handler would panic.
        device.on_uncaptured_error(Arc::new(|_| {}));

        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: binding == 5 },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("machine"),
            entries: &[
                storage(0),
                storage(1),
                storage(2),
                storage(3),
                wgpu::BindGroupLayoutEntry {
                    binding: 4,
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(std::mem::size_of::<Params>() as u64),
                    },
                    count: None,
                },
                storage(5),
                storage(6),
                storage(7),
                storage(8),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("machine"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let info = adapter.get_info();
        let mut backend = GpuBackend {
            device,
            queue,
            plan_limits: Limits {
                // A quarter of what the adapter binds: the weights' two halves fit one
                // binding, with room to round up.
                scratch_words: plan::SCRATCH_WORDS.min(limits.max_storage_buffer_binding_size / WORD / 4),
                // The largest power of two of words one binding holds.
                hbm_part_words: 1 << (limits.max_storage_buffer_binding_size / WORD).max(1).ilog2(),
            },
            flushes_subnormals: false,
            flushing_kernels: false,
            strict_products: false,
            spirv,
            keep_subnormals,
            info,
            limits,
            layout,
            pipeline_layout,
            pipelines: HashMap::new(),
            pool: Pool::default(),
            lost,
        };
        backend.flushes_subnormals = backend.probe_flushes_subnormals().await?;
        // The probe ran on kernels built for a device that keeps subnormals.
        backend.set_flushing_kernels(backend.flushes_subnormals);
        Ok(backend)
    }

    /// Whether the device flushes subnormal floats to zero, found by running one sum and one
    /// product whose exact results are subnormal. WGSL allows flushing and Vulkan devices that
    /// can be told not to are told (`subnormals`); elsewhere (browsers) the device decides,
    /// and a device that flushes differs from the CPU backend on values below 2⁻¹²⁶.
    async fn probe_flushes_subnormals(&mut self) -> Result<bool, String> {
        use isa::{Block, Buffer, ElemType, Instr, Operand};
        let words = |w: &[f32]| w.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
        // -6.5e-39 = 2.8e-39 + -9.4e-39 (all subnormal); 1e-40 = 1e-20 * 1e-20.
        let (a, b) = (words(&[2.833_847e-39, 1e-20]), words(&[-9.376_217e-39, 1e-20]));
        let buffer = |name: &str, addr| Buffer { name: name.into(), addr, shape: vec![2], elem: ElemType::F32 };
        let op = |op, dst| Instr::Vector {
            op,
            dst: Block::flat(dst, 1),
            a: Operand::Vmem(dst - 4),
            b: Operand::Vmem(dst - 2),
        };
        let program = Program {
            name: "subnormal probe".into(),
            instrs: [
                Instr::DmaLoad { src: Block::flat(0, 4), dst: Block::flat(0, 4), sem: 0, elem: isa::ElemType::F32 },
                op(VectorOp::Add, 4),
                op(VectorOp::Mul, 5),
                Instr::DmaStore { src: Block::flat(4, 2), dst: Block::flat(4, 2), sem: 0, elem: isa::ElemType::F32 },
            ]
            .into_iter()
            .map(Instr::from)
            .collect(),
            hbm_words: 6,
            vmem_words: 6,
            inputs: vec![buffer("a", 0), buffer("b", 2)],
            outputs: vec![buffer("sums", 4)],
            flops: vec![],
        };
        let inputs = [a, b];
        let want = emu::CpuBackend.run_sync(&program, &inputs).map_err(|e| e.to_string())?;
        let got =
            self.run_program(&program, &inputs).await.map_err(|e| format!("the GPU could not run a probe: {e}"))?;
        Ok(got.outputs != want)
    }

    /// Why the device was lost, if it was.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the adapter is a software rasteriser (lavapipe/llvmpipe, SwiftShader): correct
    /// but slower than the CPU backend, so `auto` device choice prefers the CPU.
    pub fn is_software(&self) -> bool {
        is_software_adapter(&self.info)
    }

    /// Whether the device flushes subnormals to zero (and so can differ from the CPU backend
    /// below 2⁻¹²⁶); the adapter's description says so too.
    pub fn flushes_subnormals(&self) -> bool {
        self.flushes_subnormals
    }

    /// Builds the kernels for a device that flushes subnormals (`FLUSHES` in the shaders) from
    /// the next run on, or not. On a device that keeps them both give the reference's bits,
    /// which lets tests check the flushing device's arithmetic on any device.
    pub fn set_flushing_kernels(&mut self, on: bool) {
        if on != self.flushing_kernels {
            self.pipelines.retain(|k, _| !k.knows_flushing());
        }
        self.flushing_kernels = on;
    }

    /// Builds the matmul kernel for a device that flushes subnormals, from the next run on,
    /// with each product that overflowed or has bits below 2⁻¹²⁶ made NaN (tests). That kernel
    /// must never compute one: its products are plain, and only such a product could change
    /// a sum if a compiler fused the multiply into the add (which WGSL allows).
    pub fn set_strict_products(&mut self, on: bool) {
        if on != self.strict_products {
            self.pipelines.retain(|k, _| !k.knows_flushing());
        }
        self.strict_products = on;
    }

    /// Whether the driver was told to keep subnormals (see `subnormals`); otherwise it decides.
    pub fn keeps_subnormals_explicitly(&self) -> bool {
        self.keep_subnormals
    }

    /// What plans may use: the scratch bound and the words of one HBM part.
    pub fn plan_limits(&self) -> Limits {
        self.plan_limits
    }

    /// Plans within `limits` from the next run on, if the adapter allows them (tests use a small
    /// scratch bound to make plans move weights and start scratch over, and small HBM parts to
    /// split HBM; any limits give the same bits). `hbm_part_words` must be a power of two.
    pub fn set_plan_limits(&mut self, limits: Limits) {
        assert!(limits.hbm_part_words.is_power_of_two(), "HBM parts are a power of two of words");
        if limits.hbm_part_words != self.plan_limits.hbm_part_words {
            // The split DMA kernels have the part size built in.
            self.pipelines.retain(|k, _| !matches!(k, Kernel::Dma { split: true, .. }));
        }
        self.plan_limits = limits;
    }

    /// The module for one entry point of `wgsl`.
    fn shader_module(&self, wgsl: &str, entry_point: &str) -> wgpu::ShaderModule {
        #[cfg(not(target_arch = "wasm32"))]
        if self.spirv {
            // Our shaders always translate; if one did not, wgpu's own path below reports why.
            if let Ok(spirv) = subnormals::to_spirv(wgsl, entry_point, self.keep_subnormals) {
                // SAFETY: the SPIR-V is naga's translation of our own WGSL, validated by naga,
                // plus at most one execution mode the device reported support for.
                return unsafe {
                    self.device.create_shader_module_passthrough(wgpu::ShaderModuleDescriptorPassthrough {
                        label: Some(entry_point),
                        entry_points: std::borrow::Cow::Owned(vec![wgpu::PassthroughShaderEntryPoint {
                            name: entry_point.to_string().into(),
                            workgroup_size: (WORKGROUP_SIZE, 1, 1),
                        }]),
                        spirv: Some(std::borrow::Cow::Owned(spirv)),
                        ..Default::default()
                    })
                };
            }
        }
        self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(entry_point),
            source: wgpu::ShaderSource::Wgsl(wgsl.into()),
        })
    }

    /// Builds the pipelines a plan needs that no earlier run built.
    fn build_pipelines(&mut self, plan: &Plan) {
        for d in &plan.dispatches {
            if self.pipelines.contains_key(&d.kernel) {
                continue;
            }
            let source = match d.kernel {
                Kernel::Dma { split: false, .. } => [COMMON_WGSL, HBM_WHOLE_WGSL, DMA_WGSL].concat(),
                Kernel::Dma { split: true, .. } => {
                    let shift = format!("const HBM_PART_SHIFT: u32 = {}u;\n", self.plan_limits.hbm_part_words.ilog2());
                    [COMMON_WGSL, &shift, HBM_SPLIT_WGSL, DMA_WGSL].concat()
                }
                Kernel::MxuWeights(p) | Kernel::MxuActivations(p) => {
                    mxu_module(p, self.flushing_kernels, self.strict_products)
                }
                Kernel::MxuWeightsExponents | Kernel::MxuActivationsExponents => {
                    [COMMON_WGSL, MXU_EXPONENTS_WGSL].concat()
                }
                Kernel::MxuMatmul | Kernel::MxuMatmulExact | Kernel::MxuCopyWeights => {
                    mxu_module(isa::Part::Hi, self.flushing_kernels, self.strict_products)
                }
                Kernel::Vector(op) => vector_module(Some(op), self.flushing_kernels),
                Kernel::Reduce | Kernel::Transpose => vector_module(None, self.flushing_kernels),
            };
            let module = self.shader_module(&source, d.kernel.entry_point());
            let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(d.kernel.entry_point()),
                layout: Some(&self.pipeline_layout),
                module: &module,
                entry_point: Some(d.kernel.entry_point()),
                compilation_options: Default::default(),
                cache: None,
            });
            self.pipelines.insert(d.kernel, pipeline);
        }
    }
    /// Grows the pooled buffers to what `program` needs; rebuilds the bind group if any
    /// bound buffer was replaced.
    fn prepare(&mut self, program: &Program, plan: &Plan, input_words: u64) -> Result<(), EmuError> {
        use wgpu::BufferUsages as U;
        let max_binding = self.limits.max_storage_buffer_binding_size;
        let hbm_words = program.hbm_words.max(1) as u64;
        let part_words = self.plan_limits.hbm_part_words;
        let parts = hbm_words.div_ceil(part_words);
        if parts > HBM_PARTS {
            return Err(run_error(format!(
                "HBM needs {} bytes; this adapter binds at most {max_binding} bytes of storage, and the GPU backend splits HBM over at most {HBM_PARTS} bindings of {} bytes",
                hbm_words * WORD,
                part_words * WORD
            )));
        }
        let storage = [
            ("HBM", hbm_words.min(part_words) * WORD),
            ("VMEM", program.vmem_words.max(1) as u64 * WORD),
            ("MXU weights", plan.weight_words.max(1) * WORD),
            ("MXU activations", plan.act_words.max(1) * WORD),
            ("matmul steps", plan.steps.len().max(1) as u64 * std::mem::size_of::<plan::Step>() as u64),
        ];
        for (what, bytes) in storage {
            // Rounding up to a power of two must not cross the limit either.
            if bytes.next_power_of_two() > max_binding {
                return Err(run_error(format!(
                    "{what} needs {bytes} bytes; this adapter binds at most {max_binding} bytes of storage"
                )));
            }
        }
        let params_bytes = plan.dispatches.len().max(1) as u64 * PARAMS_STRIDE;
        let d = &self.device;
        let p = &mut self.pool;
        let mut rebind = p.bind_group.is_none();
        for (part, slot) in p.hbm.iter_mut().enumerate().take(parts as usize) {
            let words = (hbm_words - part as u64 * part_words).min(part_words);
            rebind |= ensure(d, slot, "hbm", words * WORD, U::STORAGE | U::COPY_DST | U::COPY_SRC);
        }
        rebind |= p.hbm_parts_bound != parts as usize;
        p.hbm_parts_bound = parts as usize;
        ensure(d, &mut p.spare, "spare", (HBM_PARTS - 1) * 256, U::STORAGE);
        // COPY_SRC: a `s.load`'s word is read back from VMEM.
        rebind |= ensure(d, &mut p.vmem, "vmem", storage[1].1, U::STORAGE | U::COPY_DST | U::COPY_SRC);
        rebind |= ensure(d, &mut p.weights, "weights", storage[2].1, U::STORAGE);
        rebind |= ensure(d, &mut p.act, "act", storage[3].1, U::STORAGE);
        rebind |= ensure(d, &mut p.params, "params", params_bytes, U::UNIFORM | U::COPY_DST);
        rebind |= ensure(d, &mut p.steps, "steps", storage[4].1, U::STORAGE | U::COPY_DST);
        ensure(d, &mut p.upload, "upload", input_words.max(1) * WORD, U::COPY_SRC | U::COPY_DST);
        ensure(d, &mut p.staging, "staging", output_bytes(program), U::MAP_READ | U::COPY_DST);
        if rebind {
            fn whole(b: &Option<wgpu::Buffer>) -> wgpu::BindingResource<'_> {
                b.as_ref().expect("ensured").as_entire_binding()
            }
            let hbm_part = |part: usize| {
                if part < p.hbm_parts_bound {
                    return whole(&p.hbm[part]);
                }
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: p.spare.as_ref().expect("ensured"),
                    offset: (part as u64 - 1) * 256,
                    size: wgpu::BufferSize::new(256),
                })
            };
            let params = wgpu::BufferBinding {
                buffer: p.params.as_ref().expect("ensured"),
                offset: 0,
                size: wgpu::BufferSize::new(std::mem::size_of::<Params>() as u64),
            };
            p.bind_group = Some(d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("machine"),
                layout: &self.layout,
                entries: &[
                    wgpu::BindGroupEntry { binding: 0, resource: whole(&p.hbm[0]) },
                    wgpu::BindGroupEntry { binding: 1, resource: whole(&p.vmem) },
                    wgpu::BindGroupEntry { binding: 2, resource: whole(&p.weights) },
                    wgpu::BindGroupEntry { binding: 3, resource: whole(&p.act) },
                    wgpu::BindGroupEntry { binding: 4, resource: wgpu::BindingResource::Buffer(params) },
                    wgpu::BindGroupEntry { binding: 5, resource: whole(&p.steps) },
                    wgpu::BindGroupEntry { binding: 6, resource: hbm_part(1) },
                    wgpu::BindGroupEntry { binding: 7, resource: hbm_part(2) },
                    wgpu::BindGroupEntry { binding: 8, resource: hbm_part(3) },
                ],
            }));
        }
        Ok(())
    }

    /// Writes a piece's dispatch parameters and matmul steps for its commands to read.
    fn write_plan(&self, plan: &Plan) {
        let p = &self.pool;
        let mut param_bytes = vec![0u8; plan.dispatches.len() * PARAMS_STRIDE as usize];
        for (chunk, d) in param_bytes.chunks_mut(PARAMS_STRIDE as usize).zip(&plan.dispatches) {
            chunk[..std::mem::size_of::<Params>()].copy_from_slice(bytemuck::bytes_of(&d.params));
        }
        if !param_bytes.is_empty() {
            self.queue.write_buffer(p.params.as_ref().expect("prepared"), 0, &param_bytes);
        }
        if !plan.steps.is_empty() {
            self.queue.write_buffer(p.steps.as_ref().expect("prepared"), 0, bytemuck::cast_slice(&plan.steps));
        }
    }

    /// Records a piece's dispatches as one compute pass.
    fn encode_pass(&self, encoder: &mut wgpu::CommandEncoder, plan: &Plan, label: &str) {
        let mut pass =
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(label), timestamp_writes: None });
        let bind_group = self.pool.bind_group.as_ref().expect("prepared");
        let max_groups = self.limits.max_compute_workgroups_per_dimension;
        let mut current = None;
        for (i, d) in plan.dispatches.iter().enumerate() {
            if d.invocations == 0 {
                continue;
            }
            if current != Some(d.kernel) {
                pass.set_pipeline(&self.pipelines[&d.kernel]);
                current = Some(d.kernel);
            }
            pass.set_bind_group(0, bind_group, &[(i as u64 * PARAMS_STRIDE) as u32]);
            let (x, y) = grid(d.invocations, WORKGROUP_SIZE, max_groups);
            pass.dispatch_workgroups(x, y, 1);
        }
    }

    /// Runs `program` on `inputs` (one `Vec` of words per input buffer) and returns the
    /// output buffers' words, and the words its `s.load`s read.
    ///
    /// A program without `s.load` is one submit. One with them runs a piece at a time
    /// ([`plan::Pieces`]): each piece ends by copying the word its `s.load` reads out of VMEM,
    /// the host reads it back, and the control it decides (which branch, how many trips, which
    /// address) plans the next piece. The machine's memories stay on the GPU throughout.
    pub async fn run_program(&mut self, program: &Program, inputs: &[Vec<u32>]) -> Result<Executed, EmuError> {
        self.run_program_limited(program, inputs, u64::MAX).await
    }

    /// [`GpuBackend::run_program`], its `while` loops taking at most `max_trips` trips together.
    pub async fn run_program_limited(
        &mut self,
        program: &Program,
        inputs: &[Vec<u32>],
        max_trips: u64,
    ) -> Result<Executed, EmuError> {
        if let Some(reason) = self.lost() {
            return Err(run_error(format!("the GPU device was lost ({reason})")));
        }
        emu::validate(program)?;
        check_inputs(program, inputs)?;
        // Software adapters pay for every invocation of the exact kernel, even one that returns
        // at once: on SwiftShader (which flushes), 16 blocks each (a 1024³ matmul's exact
        // passes took 33 ms natively with one block each, 15 with 16, no less with more).
        // Not on lavapipe (which keeps subnormals, so only tests build these kernels there):
        // with runs of 16 it skipped the last blocks of some runs (Mesa 22.3.6; runs of up to 8
        // were right), so one block each.
        let exact_run = if self.is_software() && self.flushes_subnormals { 16 } else { 1 };
        let flushing = self.flushing_kernels.then_some(plan::Flushing { exact_run });
        let mut pieces = plan::Pieces::new(program, self.plan_limits, flushing, max_trips);
        // The inputs as HBM holds them (bf16 packed two to a word).
        let inputs: Vec<Vec<u32>> = program.inputs.iter().zip(inputs).map(|(b, data)| b.pack(data)).collect();
        let input_words: u64 = inputs.iter().map(|i| i.len() as u64).sum();
        let part_words = self.plan_limits.hbm_part_words;
        let mut loads = Vec::new();
        let mut first = true;
        loop {
            let (piece, load) = pieces.next_piece()?;
            self.build_pipelines(&piece);
            self.prepare(program, &piece, input_words)?;
            let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let invalid = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            self.write_plan(&piece);
            let p = &self.pool;
            let hbm: Vec<&wgpu::Buffer> =
                p.hbm[..p.hbm_parts_bound].iter().map(|b| b.as_ref().expect("prepared")).collect();
            let (vmem, upload, staging) = (
                p.vmem.as_ref().expect("prepared"),
                p.upload.as_ref().expect("prepared"),
                p.staging.as_ref().expect("prepared"),
            );
            let mut encoder = self.device.create_command_encoder(&Default::default());
            if first {
                // Queue writes land before the submit's commands; the encoder then zeroes the
                // memories and copies each input into place, so the inputs go through `upload`.
                let mut packed = Vec::with_capacity(input_words as usize);
                for data in &inputs {
                    packed.extend_from_slice(data);
                }
                if !packed.is_empty() {
                    self.queue.write_buffer(upload, 0, bytemuck::cast_slice(&packed));
                }
                for (part, at, words) in hbm_pieces(0, program.hbm_words.max(1) as u64, part_words) {
                    encoder.clear_buffer(hbm[part], at * WORD, Some(words * WORD));
                }
                encoder.clear_buffer(vmem, 0, Some(program.vmem_words.max(1) as u64 * WORD));
                let mut offset = 0;
                for (buf, data) in program.inputs.iter().zip(&inputs) {
                    for (part, at, words) in hbm_pieces(buf.hbm_words().0, data.len() as u64, part_words) {
                        encoder.copy_buffer_to_buffer(upload, offset, hbm[part], at * WORD, words * WORD);
                        offset += words * WORD;
                    }
                }
                first = false;
            }
            self.encode_pass(&mut encoder, &piece, &program.name);
            // What comes back: the word a `s.load` reads, or at the end only the outputs, one
            // after another.
            let read_bytes = match load {
                Some(addr) => {
                    encoder.copy_buffer_to_buffer(vmem, addr as u64 * WORD, staging, 0, WORD);
                    WORD
                }
                None => {
                    let mut to = 0;
                    for buf in &program.outputs {
                        let (first, words) = buf.hbm_words();
                        for (part, at, words) in hbm_pieces(first, words, part_words) {
                            encoder.copy_buffer_to_buffer(hbm[part], at * WORD, staging, to, words * WORD);
                            to += words * WORD;
                        }
                    }
                    output_bytes(program)
                }
            };
            self.queue.submit([encoder.finish()]);

            let mapped = readback::map_read(staging.slice(..read_bytes));
            // Natively, wait for the GPU here so the map callback runs; on the web this returns
            // at once and the browser completes the mapping while we await.
            let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
            let failure = match (invalid.pop().await, oom.pop().await) {
                (Some(e), _) => Some(format!("GPU validation error: {e}")),
                (None, Some(e)) => Some(format!("GPU out of memory: {e}")),
                (None, None) => mapped.await.err().map(|e| format!("reading back HBM failed: {e}")),
            };
            if let Some(message) = failure {
                // Cancel any pending mapping so the pooled staging buffer is usable next run.
                staging.unmap();
                return Err(run_error(match self.lost() {
                    Some(reason) => format!("the GPU device was lost ({reason})"),
                    None => message,
                }));
            }
            let words: Vec<u32> = {
                let view = staging
                    .get_mapped_range(..read_bytes)
                    .map_err(|e| run_error(format!("reading back HBM failed: {e:?}")))?;
                bytemuck::cast_slice(&view).to_vec()
            };
            staging.unmap();
            if load.is_some() {
                pieces.load(words[0]);
                loads.push(words[0]);
                continue;
            }
            let mut rest: &[u32] = &words;
            let mut outputs = Vec::with_capacity(program.outputs.len());
            for buf in &program.outputs {
                let (output, tail) = rest.split_at(buf.hbm_words().1 as usize);
                outputs.push(buf.unpack(output));
                rest = tail;
            }
            return Ok(Executed { outputs, loads });
        }
    }
}

/// Words `at .. at + words` of HBM split by part (`Limits::hbm_part_words`): (part, first word in
/// the part, words). Nothing for no words.
fn hbm_pieces(at: u64, words: u64, part_words: u64) -> impl Iterator<Item = (usize, u64, u64)> {
    let end = at + words;
    let mut next = at;
    std::iter::from_fn(move || {
        if next >= end {
            return None;
        }
        let part = next / part_words;
        let start = next % part_words;
        let len = (part_words - start).min(end - next);
        next += len;
        Some((part as usize, start, len))
    })
}

/// Bytes of a program's outputs, read back one after another (at least a word: a mapping is
/// never empty).
fn output_bytes(program: &Program) -> u64 {
    (program.outputs.iter().map(|b| b.hbm_words().1).sum::<u64>() * WORD).max(WORD)
}

/// The checks of `emu::place_inputs`, without building an HBM image on the host.
fn check_inputs(program: &Program, inputs: &[Vec<u32>]) -> Result<(), EmuError> {
    if inputs.len() != program.inputs.len() {
        return Err(run_error(format!("program takes {} inputs, got {}", program.inputs.len(), inputs.len())));
    }
    for (buf, data) in program.inputs.iter().zip(inputs) {
        let (n, (first, words)) = (buf.elements() as u64, buf.hbm_words());
        if data.len() as u64 != n || first + words > program.hbm_words as u64 {
            return Err(run_error(format!("input {} needs {n} words, got {}", buf.name, data.len())));
        }
    }
    Ok(())
}

impl Backend for GpuBackend {
    fn name(&self) -> &'static str {
        "gpu"
    }

    fn adapter(&self) -> Option<String> {
        // Browsers may leave the adapter's description empty (headless Chromium does); say at
        // least what kind of adapter it is.
        let name = match (self.info.name.trim(), self.info.device_type) {
            ("", wgpu::DeviceType::Cpu) => "software fallback adapter",
            ("", _) => "unnamed adapter",
            (name, _) => name,
        };
        let flushes = if self.flushes_subnormals { ", flushes subnormals to zero" } else { "" };
        Some(format!("{name} ({:?}{flushes})", self.info.backend))
    }
    fn run_limited<'a>(
        &'a mut self,
        program: &'a Program,
        inputs: &'a [Vec<u32>],
        max_trips: u64,
    ) -> Pin<Box<dyn Future<Output = Result<Executed, EmuError>> + 'a>> {
        Box::pin(self.run_program_limited(program, inputs, max_trips))
    }

    fn lose_device(&mut self) {
        self.device.destroy();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn hbm_ranges_split_at_part_boundaries() {
        let pieces = |at, words| super::hbm_pieces(at, words, 4).collect::<Vec<_>>();
        assert_eq!(pieces(5, 10), [(1, 1, 3), (2, 0, 4), (3, 0, 3)]);
        assert_eq!(pieces(8, 4), [(2, 0, 4)]);
        assert_eq!(pieces(3, 0), []);
    }

    /// The f32 constants of `shaders/vpu_math.wgsl` are written as bits; they must be the
    /// values `emu::vpu_math` computes in Rust (f32 division included).
    #[test]
    fn vpu_math_constants_match_the_rust_definition() {
        let rust: &[(&str, f32)] = &[
            ("RECIP_SLOPE", -32.0f32 / 17.0),
            ("RECIP_OFFSET", 48.0f32 / 17.0),
            ("LOG2E", std::f32::consts::LOG2_E),
            ("LN2_HI", 0.693_359_4),
            ("LN2_LO", -2.121_944_4e-4),
            ("EXPM1_C0", 1.0f32 / 40320.0),
            ("EXPM1_C1", 1.0f32 / 5040.0),
            ("EXPM1_C2", 1.0f32 / 720.0),
            ("EXPM1_C3", 1.0f32 / 120.0),
            ("EXPM1_C4", 1.0f32 / 24.0),
            ("EXPM1_C5", 1.0f32 / 6.0),
            ("EXP_OVERFLOW", 88.722_84),
            ("EXP_UNDERFLOW", -103.972_08),
            ("SQRT_2", std::f32::consts::SQRT_2),
            ("LOG_C0", 2.0f32 / 11.0),
            ("LOG_C1", 2.0f32 / 9.0),
            ("LOG_C2", 2.0f32 / 7.0),
            ("LOG_C3", 2.0f32 / 5.0),
            ("LOG_C4", 2.0f32 / 3.0),
            ("TANH_SATURATE", 9.1),
        ];
        let source = include_str!("../../../shaders/vpu_math.wgsl");
        for &(name, value) in rust {
            let prefix = format!("const {name}: u32 = 0x");
            let line = source
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("{name} is not defined in vpu_math.wgsl"));
            let hex = &line[prefix.len()..line.find("u;").expect("u32 literal")];
            let bits = u32::from_str_radix(hex, 16).expect("hex");
            assert_eq!(bits, value.to_bits(), "{name}: shader {bits:#010x}, Rust {value:e}");
        }
    }
}
