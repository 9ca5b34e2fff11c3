// The matrix unit: MxuWeights and MxuMatmul (see `emu::cpu` for the reference).
//
// Each MxuWeights and each MxuMatmul's activations are reduced to their bf16 parts once, into
// scratch of their own (`mxu_weights`, `mxu_activations`); `mxu_matmul` then computes one
// output per invocation over a chain of matmuls adding into one block (see `Step`).

// Loaded weights, reduced to their bf16 parts as f32 bits: K×N, row-major, at each step's
// `weights_at`.
@group(0) @binding(2) var<storage, read_write> weights: array<u32>;
// Activations reduced to their bf16 parts: M×K, row-major, at each step's `act_at`.
@group(0) @binding(3) var<storage, read_write> act: array<u32>;

// PART, the part (0 = hi, 1 = mid, 2 = lo) this module's reducers produce, is a constant
// crates/gpu writes before the module: one pipeline per part.

// The block's word (r, c) reduced to its part, for both the weight and activation loaders.
fn load_part(i: u32) -> u32 {
    let r = i / P.cols;
    let c = i % P.cols;
    return bitcast<u32>(bf16_part(bitcast<f32>(vmem[P.src_addr + r * P.src_stride + c]), PART));
}

// MxuWeights: weights[at + k * N + n] = part(src[k][n]).
@compute @workgroup_size(64)
fn mxu_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.rows * P.cols {
        weights[P.scratch_at + i] = load_part(i);
    }
}

// First half of MxuMatmul: act[at + m * K + k] = part(src[m][k]).
@compute @workgroup_size(64)
fn mxu_activations(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.rows * P.cols {
        act[P.scratch_at + i] = load_part(i);
    }
}

// Moves P.len words of loaded weights from P.src_addr to P.dst_addr (never overlapping).
@compute @workgroup_size(64)
fn mxu_copy_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.len {
        weights[P.dst_addr + i] = weights[P.src_addr + i];
    }
}

// Second half of MxuMatmul, for a chain of P.len steps from P.first_step: dst[m][n] is set (or,
// with P.flags = 1, added to) by the first step's sum, and each later step's sum is added to
// it, where a step's sum is sum_k act[m][k] * w[k][n]. One output per invocation, P.rows = M,
// P.cols = N.
@compute @workgroup_size(64)
fn mxu_matmul(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i >= P.rows * P.cols {
        return;
    }
    let n_cols = P.cols;
    let m = i / n_cols;
    let n = i % n_cols;
    let d = P.dst_addr + m * P.dst_stride + n;
    var total = 0.0;
    for (var s = 0u; s < P.len; s = s + 1u) {
        let step = steps[P.first_step + s];
        // The partial sum flows down column n of the systolic array, one product per row, in
        // increasing k, starting from +0. Both the +0 and each product go through `opaque` so
        // that no compiler folds `0 + p` into `p` (wrong for p = -0) or fuses the multiply
        // into the add (wrong where a product under- or overflows).
        var sum = opaque(0.0);
        let a_row = step.act_at + m * step.k;
        for (var k = 0u; k < step.k; k = k + 1u) {
            let product = bitcast<f32>(act[a_row + k]) * bitcast<f32>(weights[step.weights_at + k * n_cols + n]);
            sum = sum + opaque(product);
        }
        // What one instruction at a time would store and read back (but for the NaN's bits,
        // made canonical once at the end: a NaN stays a NaN through any sum).
        if s == 0u && P.flags == 0u {
            total = sum;
        } else if s == 0u {
            total = bitcast<f32>(vmem[d]) + sum;
        } else {
            total = total + sum;
        }
    }
    vmem[d] = canonical(total);
}
