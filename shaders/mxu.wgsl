// The matrix unit: MxuWeights and MxuMatmul (see `emu::cpu` for the reference).
//
// A matmul instruction is two dispatches: `mxu_activations` reduces the M×K activations to
// their bf16 part once (instead of once per output column), then `mxu_matmul` computes one
// output per invocation. `mxu_weights` fills the weight registers the same way.

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

// The bf16 `part` (0 = hi, 1 = mid, 2 = lo) of an f32, as `emu::cpu::bf16_part`.
fn bf16_part(x: f32, part: u32) -> f32 {
    let hi = bf16_round(x);
    if part == 0u {
        return hi;
    }
    let rest = nan_first(x, hi, x - hi);
    let mid = bf16_round(rest);
    if part == 1u {
        return mid;
    }
    return bf16_round(nan_first(rest, mid, rest - mid));
}

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
