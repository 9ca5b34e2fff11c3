// The matrix unit for software adapters (see `emu::cpu` for the reference). SwiftShader and
// llvmpipe run four or eight invocations as the lanes of one CPU SIMD register, so every load
// whose address differs between invocations becomes a gather, a handful of scalar loads, and
// gathers dominate a matmul's time. Hence: the weight registers and the activations packed
// four to a `vec4`, each invocation computing a 4×4 block of outputs (two `vec4` loads per
// sixteen products; larger blocks no longer fit the CPU's sixteen SIMD registers), and no
// workgroup memory or barriers (both slow there).
//
// Layouts (NB = ceil(N/4) column groups, MB = ceil(M/4) row groups; words past the matrix
// are zero and never stored):
//   weights[slot + k * NB + nb] = part(W[k][4nb .. 4nb+4])       (MxuWeights)
//   act[mb * K + k]             = part(A[4mb .. 4mb+4][k])       (MxuMatmul, first half)

@group(0) @binding(2) var<storage, read_write> weights: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> act: array<vec4<u32>>;

// The bf16 part of the source block's word (r, c), or +0 outside the block.
fn part_at(r: u32, c: u32) -> u32 {
    if r >= P.rows || c >= P.cols {
        return 0u;
    }
    return bitcast<u32>(bf16_part(bitcast<f32>(vmem[P.src_addr + r * P.src_stride + c]), P.code));
}

// MxuWeights: one invocation per (k, nb), P.rows = K, P.cols = N; P.weights_at is in words.
@compute @workgroup_size(64)
fn mxu_packed_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = (P.cols + 3u) / 4u;
    if i >= P.rows * col_groups {
        return;
    }
    let k = i / col_groups;
    let n = (i % col_groups) * 4u;
    weights[P.weights_at / 4u + i] = vec4<u32>(part_at(k, n), part_at(k, n + 1u), part_at(k, n + 2u), part_at(k, n + 3u));
}

// First half of MxuMatmul: one invocation per (mb, k), P.rows = M, P.cols = K.
@compute @workgroup_size(64)
fn mxu_packed_activations(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i >= ((P.rows + 3u) / 4u) * P.cols {
        return;
    }
    let m = (i / P.cols) * 4u;
    let k = i % P.cols;
    act[i] = vec4<u32>(part_at(m, k), part_at(m + 1u, k), part_at(m + 2u, k), part_at(m + 3u, k));
}

// Four products of one activation with four weights, each lane hidden from the optimiser (see
// `opaque`) so that no compiler fuses a multiply into the add that follows.
fn products(a: f32, w: vec4<f32>, zero: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a * w) | zero);
}

// Stores row `r` of a block (four outputs from column n0), adding to what is there when
// P.flags says accumulate.
fn store_row(m: u32, n0: u32, sums: vec4<f32>) {
    if m >= P.rows {
        return;
    }
    for (var c = 0u; c < 4u && n0 + c < P.cols; c = c + 1u) {
        let d = P.dst_addr + m * P.dst_stride + n0 + c;
        var sum = sums[c];
        if P.flags != 0u {
            sum = bitcast<f32>(vmem[d]) + sum;
        }
        vmem[d] = canonical(sum);
    }
}

// Second half of MxuMatmul: each invocation computes a 4×4 block of outputs, P.rows = M,
// P.cols = N, P.inner = K. Every output is the same sum in the same order as `mxu_matmul`:
// +0, then one product per k in increasing k. Invocations: MB × NB, column groups fastest.
@compute @workgroup_size(64)
fn mxu_packed_matmul(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = (P.cols + 3u) / 4u;
    if i >= ((P.rows + 3u) / 4u) * col_groups {
        return;
    }
    let mb = i / col_groups;
    let nb = i % col_groups;
    let k_len = P.inner;
    let zero = vec4<u32>(P.zero);
    var sum0 = bitcast<vec4<f32>>(zero);
    var sum1 = sum0;
    var sum2 = sum0;
    var sum3 = sum0;
    var a_at = mb * k_len;
    var w_at = P.weights_at / 4u + nb;
    // Four steps of k per iteration, each loading just before it uses: on SwiftShader this
    // runs 1.25× faster than one step per iteration, and 1.3× faster than loading all four
    // steps' operands first (the loads then no longer fit in registers); see docs/gpu.md.
    var k = 0u;
    for (; k + 4u <= k_len; k = k + 4u) {
        let a0 = bitcast<vec4<f32>>(act[a_at]);
        let w0 = bitcast<vec4<f32>>(weights[w_at]);
        sum0 = sum0 + products(a0.x, w0, zero);
        sum1 = sum1 + products(a0.y, w0, zero);
        sum2 = sum2 + products(a0.z, w0, zero);
        sum3 = sum3 + products(a0.w, w0, zero);
        let a1 = bitcast<vec4<f32>>(act[a_at + 1u]);
        let w1 = bitcast<vec4<f32>>(weights[w_at + col_groups]);
        sum0 = sum0 + products(a1.x, w1, zero);
        sum1 = sum1 + products(a1.y, w1, zero);
        sum2 = sum2 + products(a1.z, w1, zero);
        sum3 = sum3 + products(a1.w, w1, zero);
        let a2 = bitcast<vec4<f32>>(act[a_at + 2u]);
        let w2 = bitcast<vec4<f32>>(weights[w_at + 2u * col_groups]);
        sum0 = sum0 + products(a2.x, w2, zero);
        sum1 = sum1 + products(a2.y, w2, zero);
        sum2 = sum2 + products(a2.z, w2, zero);
        sum3 = sum3 + products(a2.w, w2, zero);
        let a3 = bitcast<vec4<f32>>(act[a_at + 3u]);
        let w3 = bitcast<vec4<f32>>(weights[w_at + 3u * col_groups]);
        sum0 = sum0 + products(a3.x, w3, zero);
        sum1 = sum1 + products(a3.y, w3, zero);
        sum2 = sum2 + products(a3.z, w3, zero);
        sum3 = sum3 + products(a3.w, w3, zero);
        a_at = a_at + 4u;
        w_at = w_at + 4u * col_groups;
    }
    for (; k < k_len; k = k + 1u) {
        let a = bitcast<vec4<f32>>(act[a_at]);
        let w = bitcast<vec4<f32>>(weights[w_at]);
        sum0 = sum0 + products(a.x, w, zero);
        sum1 = sum1 + products(a.y, w, zero);
        sum2 = sum2 + products(a.z, w, zero);
        sum3 = sum3 + products(a.w, w, zero);
        a_at = a_at + 1u;
        w_at = w_at + col_groups;
    }
    let m0 = mb * 4u;
    let n0 = nb * 4u;
    store_row(m0, n0, sum0);
    store_row(m0 + 1u, n0, sum1);
    store_row(m0 + 2u, n0, sum2);
    store_row(m0 + 3u, n0, sum3);
}
