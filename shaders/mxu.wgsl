// The matrix unit: MxuWeights and MxuMatmul (see `emu::cpu` for the reference).
//
// A matmul instruction is two dispatches: `mxu_activations` reduces the M×K activations to
// their bf16 part once (instead of once per output column), then `mxu_matmul` computes one
// output per invocation. `mxu_weights` fills the weight registers the same way.

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

// The product of an activation and a vector of weights, each lane hidden from the optimiser
// (see `opaque`): four products, never fused into the adds that follow.
fn opaque_products(a: f32, w: vec4<f32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a * w) | vec4<u32>(P.zero));
}

// MxuMatmul, register-blocked: each invocation computes a 4×4 block of outputs, so each
// weight and activation it loads serves four products instead of one. No workgroup memory
// and no barriers (those are slow on software adapters). Every output is still the same sum
// in the same order as `mxu_matmul`: +0, then one product per k in increasing k.
// Invocations: ceil(M/4) × ceil(N/4), column blocks fastest.
@compute @workgroup_size(64)
fn mxu_matmul_block(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_blocks = (P.cols + 3u) / 4u;
    if i >= ((P.rows + 3u) / 4u) * col_blocks {
        return;
    }
    let m0 = (i / col_blocks) * 4u;
    let n0 = (i % col_blocks) * 4u;
    // Past the block's last row or column, read the last one again (and store nothing).
    let last_row = P.rows - 1u;
    let last_col = P.cols - 1u;
    let k_len = P.inner;
    let a0 = min(m0, last_row) * k_len;
    let a1 = min(m0 + 1u, last_row) * k_len;
    let a2 = min(m0 + 2u, last_row) * k_len;
    let a3 = min(m0 + 3u, last_row) * k_len;
    let w0 = P.weights_at + min(n0, last_col);
    let w1 = P.weights_at + min(n0 + 1u, last_col);
    let w2 = P.weights_at + min(n0 + 2u, last_col);
    let w3 = P.weights_at + min(n0 + 3u, last_col);
    let zero = bitcast<vec4<f32>>(vec4<u32>(P.zero));
    var sum0 = zero;
    var sum1 = zero;
    var sum2 = zero;
    var sum3 = zero;
    for (var k = 0u; k < k_len; k = k + 1u) {
        let wk = k * P.cols;
        let w = vec4<f32>(
            bitcast<f32>(weights[w0 + wk]),
            bitcast<f32>(weights[w1 + wk]),
            bitcast<f32>(weights[w2 + wk]),
            bitcast<f32>(weights[w3 + wk]),
        );
        sum0 = sum0 + opaque_products(bitcast<f32>(act[a0 + k]), w);
        sum1 = sum1 + opaque_products(bitcast<f32>(act[a1 + k]), w);
        sum2 = sum2 + opaque_products(bitcast<f32>(act[a2 + k]), w);
        sum3 = sum3 + opaque_products(bitcast<f32>(act[a3 + k]), w);
    }
    let sums = array<vec4<f32>, 4>(sum0, sum1, sum2, sum3);
    for (var r = 0u; r < 4u && m0 + r < P.rows; r = r + 1u) {
        for (var c = 0u; c < 4u && n0 + c < P.cols; c = c + 1u) {
            let d = P.dst_addr + (m0 + r) * P.dst_stride + n0 + c;
            var sum = sums[r][c];
            if P.flags != 0u {
                sum = bitcast<f32>(vmem[d]) + sum;
            }
            vmem[d] = canonical(sum);
        }
    }
}
