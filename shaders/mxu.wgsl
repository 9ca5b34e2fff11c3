// The matrix unit: MxuWeights and MxuMatmul (see `emu::cpu` for the reference).
//
// A matmul instruction is two dispatches: `mxu_activations` reduces the M×K activations to
// their bf16 part once (instead of once per output column), then `mxu_matmul` computes one
// output per invocation. `mxu_weights` fills the weight registers the same way.

// The MXUs' weight registers: a slot per MXU of K×N bf16 parts of its loaded weights, stored
// as f32 bits.
@group(0) @binding(2) var<storage, read_write> weights: array<u32>;
// Activations of the matmul in flight, already reduced to their bf16 part (M×K, row-major).
@group(0) @binding(3) var<storage, read_write> act: array<u32>;

// The block's word (r, c) reduced to its part, for both the weight and activation loaders.
fn load_part(i: u32) -> u32 {
    let r = i / P.cols;
    let c = i % P.cols;
    return bitcast<u32>(bf16_part(bitcast<f32>(vmem[P.src_addr + r * P.src_stride + c]), P.code));
}

// MxuWeights: weights[k * N + n] = part(src[k][n]).
@compute @workgroup_size(64)
fn mxu_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.rows * P.cols {
        weights[P.weights_at + i] = load_part(i);
    }
}

// First half of MxuMatmul: act[m * K + k] = part(src[m][k]).
@compute @workgroup_size(64)
fn mxu_activations(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.rows * P.cols {
        act[i] = load_part(i);
    }
}

// Second half of MxuMatmul: dst[m][n] (+)= sum_k act[m][k] * w[k][n], one output per
// invocation, P.rows = M, P.cols = N, P.inner = K, P.flags = 1 to accumulate.
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
    let k_len = P.inner;
    let m = i / n_cols;
    let n = i % n_cols;
    // The partial sum flows down column n of the systolic array, one product per row, in
    // increasing k, starting from +0. Both the +0 and each product go through `opaque` so
    // that no compiler folds `0 + p` into `p` (wrong for p = -0) or fuses the multiply into
    // the add (wrong where a product under- or overflows).
    var sum = opaque(0.0);
    let a_row = m * k_len;
    for (var k = 0u; k < k_len; k = k + 1u) {
        let product = bitcast<f32>(act[a_row + k]) * bitcast<f32>(weights[P.weights_at + k * n_cols + n]);
        sum = sum + opaque(product);
    }
    let d = P.dst_addr + m * P.dst_stride + n;
    if P.flags != 0u {
        sum = bitcast<f32>(vmem[d]) + sum;
    }
    vmem[d] = canonical(sum);
}
