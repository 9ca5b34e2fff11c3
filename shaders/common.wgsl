// Shared by every kernel of the GPU backend (prepended to each module by crates/gpu).
//
// One bind group layout serves all pipelines: the emulated machine's memories as arrays of
// 32-bit words, plus the parameters of the instruction being executed, read from one uniform
// buffer at a 256-byte-aligned dynamic offset per dispatch.

struct Params {
    src_addr: u32,
    src_stride: u32,
    dst_addr: u32,
    dst_stride: u32,
    rows: u32,
    cols: u32,
    // A matmul's first step in `steps` (it has `len` of them).
    first_step: u32,
    // The vector opcode (`VectorOp::code`) or reduction.
    code: u32,
    a_kind: u32,
    a_value: u32,
    b_kind: u32,
    b_value: u32,
    len: u32,
    flags: u32,
    // Always 0, but unknown to the compiler: OR-ing it into a value's bits makes the value
    // opaque, so no optimiser can fuse the multiply that produced it into a later add.
    zero: u32,
    // Where the weights or activations a kernel reduces go in their scratch, in words.
    scratch_at: u32,
}

// Binding 0 (and, split, 6 to 8) is HBM, which only the DMA kernels touch: `hbm_whole.wgsl`
// or `hbm_split.wgsl` declares it.
@group(0) @binding(1) var<storage, read_write> vmem: array<u32>;
// Bindings 2 and 3 are the MXU kernels' scratch (loaded weights and activations, reduced to
// their bf16 parts); `mxu.wgsl` declares them, in its layout.
@group(0) @binding(4) var<uniform> P: Params;
// A matmul dispatch runs a chain of MXU passes adding into one block (`crates/gpu/src/plan.rs`),
// one step each: where its activations and weights start in the scratch, and its K.
struct Step {
    act_at: u32,
    weights_at: u32,
    k: u32,
    unused: u32,
}
@group(0) @binding(5) var<storage, read> steps: array<Step>;

const WORKGROUP_SIZE: u32 = 64u;

// The index of this invocation in a 1-D problem laid out on a 2-D grid of workgroups (the
// host splits large problems over y because a dimension holds at most 65535 workgroups).
fn thread_index(wg: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (wg.y * groups.x + wg.x) * WORKGROUP_SIZE + local;
}

// Groups of four rows (activations) or columns (weights) in the MXU's scratch layouts
// (`mxu.wgsl`): padded to an even number, so that every 8×8 block of outputs that an
// `mxu_matmul` invocation computes lies inside them (`groups_of_four` in crates/gpu/src/plan.rs).
fn groups_of_four(x: u32) -> u32 {
    return ((x + 7u) / 8u) * 2u;
}

// The least exponent field of a row or column of MXU parts that are all zero (`mxu.wgsl`).
const NO_EXPONENT: u32 = 511u;

// Hides a value from the optimiser (see `Params::zero`).
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) | P.zero);
}

fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

// Arithmetic results that are NaN are stored as this one quiet NaN (`emu::cpu::CANONICAL_NAN`):
// hosts and drivers disagree on NaN payloads, the emulated machine does not.
const CANONICAL_NAN: u32 = 0x7fc00000u;

fn canonical(x: f32) -> u32 {
    if is_nan(x) {
        return CANONICAL_NAN;
    }
    return bitcast<u32>(x);
}

// `r = a op b`, with the NaN rule of the reference's host made explicit. x86 (SSE) returns
// the first NaN operand, made quiet; but a compiler may swap the operands of a commutative
// `a + b` or `a * b` (lavapipe does), which would return the other one. Invalid operations
// on non-NaN operands (inf - inf, 0 * inf) keep the hardware's default NaN.
fn nan_first(a: f32, b: f32, r: f32) -> f32 {
    if is_nan(a) {
        return bitcast<f32>(bitcast<u32>(a) | 0x00400000u);
    }
    if is_nan(b) {
        return bitcast<f32>(bitcast<u32>(b) | 0x00400000u);
    }
    return r;
}

// bf16 rounding on the bits, exactly as `half::bf16::from_f32` (then widened back to f32):
// round to nearest, ties to even; a NaN keeps its top mantissa bits and is made quiet.
fn bf16_round(x: f32) -> f32 {
    let b = bitcast<u32>(x);
    if (b & 0x7fffffffu) > 0x7f800000u {
        return bitcast<f32>(((b >> 16u) | 0x40u) << 16u);
    }
    var h = b >> 16u;
    // Round up when the dropped half is above a tie, or a tie with an odd kept part.
    if (b & 0x8000u) != 0u && (b & 0x17fffu) != 0u {
        h = h + 1u;
    }
    return bitcast<f32>(h << 16u);
}
