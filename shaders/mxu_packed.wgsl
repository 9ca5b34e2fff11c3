// The matrix unit for software adapters (see `emu::cpu` for the reference). SwiftShader and
// llvmpipe run four or eight invocations as the lanes of one CPU SIMD register, so every load
// whose address differs between invocations becomes a gather, a handful of scalar loads, and
// gathers dominate a matmul's time. Hence: the weight registers and the activations packed
// eight bfloat16 values to a `vec4` (four lanes, two values of k in each word), each
// invocation computing a 4×4 block of outputs (two `vec4` loads per thirty-two products;
// larger blocks no longer fit the CPU's sixteen SIMD registers), and no workgroup memory or
// barriers (both slow there).
//
// Every part an MXU multiplies is a bfloat16 value: a float32 word whose low half is zero, so
// two fit one word losslessly, the first (even k) in the high half. Layouts (NB = ceil(N/4)
// column groups, MB = ceil(M/4) row groups, KP = ceil(K/2) pairs of k; values past the matrix
// are zero, so an odd K's last pair adds +0 products, which leave every sum as it is (a sum
// from +0 is never -0); nothing past the matrix is stored):
//   weights[at + kp * NB + nb] = pair(part(W[2kp][4nb .. 4nb+4]), part(W[2kp+1][4nb .. 4nb+4]))
//   act[at + mb * KP + kp]     = pair(part(A[4mb .. 4mb+4][2kp]), part(A[4mb .. 4mb+4][2kp+1]))
// where `at` (a step's `weights_at` or `act_at`, in words, a multiple of 4) is in vec4s here.

@group(0) @binding(2) var<storage, read_write> weights: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> act: array<vec4<u32>>;

// PART, the part (0 = hi, 1 = mid, 2 = lo) this module's reducers produce, is a constant
// crates/gpu writes before the module: one pipeline per part.

// The bf16 part of the source block's word (r, c), or +0 outside the block.
fn part_at(r: u32, c: u32) -> u32 {
    if r >= P.rows || c >= P.cols {
        return 0u;
    }
    return bitcast<u32>(bf16_part(bitcast<f32>(vmem[P.src_addr + r * P.src_stride + c]), PART));
}

// Two bfloat16 words in one: the first's value in the high half, the second's in the low.
fn pair(first: u32, second: u32) -> u32 {
    return (first & 0xffff0000u) | (second >> 16u);
}

fn firsts(v: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(v & vec4<u32>(0xffff0000u));
}

fn seconds(v: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(v << vec4<u32>(16u));
}

// MxuWeights: one invocation per (kp, nb), P.rows = K, P.cols = N; P.scratch_at is in words.
@compute @workgroup_size(64)
fn mxu_packed_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = (P.cols + 3u) / 4u;
    if i >= ((P.rows + 1u) / 2u) * col_groups {
        return;
    }
    let k = (i / col_groups) * 2u;
    let n = (i % col_groups) * 4u;
    weights[P.scratch_at / 4u + i] = vec4<u32>(
        pair(part_at(k, n), part_at(k + 1u, n)),
        pair(part_at(k, n + 1u), part_at(k + 1u, n + 1u)),
        pair(part_at(k, n + 2u), part_at(k + 1u, n + 2u)),
        pair(part_at(k, n + 3u), part_at(k + 1u, n + 3u)),
    );
}

// First half of MxuMatmul: one invocation per (mb, kp), P.rows = M, P.cols = K.
@compute @workgroup_size(64)
fn mxu_packed_activations(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let pairs = (P.cols + 1u) / 2u;
    if i >= ((P.rows + 3u) / 4u) * pairs {
        return;
    }
    let m = (i / pairs) * 4u;
    let k = (i % pairs) * 2u;
    act[P.scratch_at / 4u + i] = vec4<u32>(
        pair(part_at(m, k), part_at(m, k + 1u)),
        pair(part_at(m + 1u, k), part_at(m + 1u, k + 1u)),
        pair(part_at(m + 2u, k), part_at(m + 2u, k + 1u)),
        pair(part_at(m + 3u, k), part_at(m + 3u, k + 1u)),
    );
}

// Four products of one activation with four weights, each lane hidden from the optimiser (see
// `opaque`) so that no compiler fuses a multiply into the add that follows.
fn products(a: f32, w: vec4<f32>, zero: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(bitcast<vec4<u32>>(a * w) | zero);
}

// One pair of k: the four rows' products with the four columns at the pair's first k, then
// at its second, each added to its row's sums in order of k.
fn pair_step(sums: ptr<function, array<vec4<f32>, 4>>, a_pair: vec4<u32>, w_pair: vec4<u32>, zero: vec4<u32>) {
    var a = firsts(a_pair);
    var w = firsts(w_pair);
    (*sums)[0] = (*sums)[0] + products(a.x, w, zero);
    (*sums)[1] = (*sums)[1] + products(a.y, w, zero);
    (*sums)[2] = (*sums)[2] + products(a.z, w, zero);
    (*sums)[3] = (*sums)[3] + products(a.w, w, zero);
    a = seconds(a_pair);
    w = seconds(w_pair);
    (*sums)[0] = (*sums)[0] + products(a.x, w, zero);
    (*sums)[1] = (*sums)[1] + products(a.y, w, zero);
    (*sums)[2] = (*sums)[2] + products(a.z, w, zero);
    (*sums)[3] = (*sums)[3] + products(a.w, w, zero);
}

// The sums of one step of a chain (see `mxu.wgsl`) for the 4×4 block (mb, nb): from +0, one
// product per k in increasing k, as `mxu_matmul` sums each output.
fn step_sums(step: Step, mb: u32, nb: u32, col_groups: u32) -> array<vec4<f32>, 4> {
    let zero = vec4<u32>(P.zero);
    var sums = array<vec4<f32>, 4>(bitcast<vec4<f32>>(zero), bitcast<vec4<f32>>(zero), bitcast<vec4<f32>>(zero), bitcast<vec4<f32>>(zero));
    let pairs = (step.k + 1u) / 2u;
    var a_at = step.act_at / 4u + mb * pairs;
    var w_at = step.weights_at / 4u + nb;
    // Two pairs of k (four steps) per iteration, each pair loaded just before it is used: on
    // SwiftShader, loading every operand of an iteration first runs slower (the loads no
    // longer fit in registers); see docs/gpu.md.
    var kp = 0u;
    for (; kp + 2u <= pairs; kp = kp + 2u) {
        pair_step(&sums, act[a_at], weights[w_at], zero);
        pair_step(&sums, act[a_at + 1u], weights[w_at + col_groups], zero);
        a_at = a_at + 2u;
        w_at = w_at + 2u * col_groups;
    }
    if kp < pairs {
        pair_step(&sums, act[a_at], weights[w_at], zero);
    }
    return sums;
}

// Stores row `m` of a block (four outputs from column n0).
fn store_row(m: u32, n0: u32, sums: vec4<f32>) {
    if m >= P.rows {
        return;
    }
    for (var c = 0u; c < 4u && n0 + c < P.cols; c = c + 1u) {
        vmem[P.dst_addr + m * P.dst_stride + n0 + c] = canonical(sums[c]);
    }
}

// Row `m` of the block as it was before the chain (four words from column n0; +0 outside).
fn load_row(m: u32, n0: u32) -> vec4<f32> {
    var row = vec4<f32>(0.0);
    if m >= P.rows {
        return row;
    }
    for (var c = 0u; c < 4u && n0 + c < P.cols; c = c + 1u) {
        row[c] = bitcast<f32>(vmem[P.dst_addr + m * P.dst_stride + n0 + c]);
    }
    return row;
}

// Second half of MxuMatmul, for a chain of P.len steps from P.first_step (see `mxu_matmul`):
// each invocation computes a 4×4 block of outputs, P.rows = M, P.cols = N. Every output is the
// same sums in the same order as `mxu_matmul`. Invocations: MB × NB, column groups fastest.
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
    let m0 = mb * 4u;
    let n0 = nb * 4u;
    var total = step_sums(steps[P.first_step], mb, nb, col_groups);
    if P.flags != 0u {
        total[0] = load_row(m0, n0) + total[0];
        total[1] = load_row(m0 + 1u, n0) + total[1];
        total[2] = load_row(m0 + 2u, n0) + total[2];
        total[3] = load_row(m0 + 3u, n0) + total[3];
    }
    for (var s = 1u; s < P.len; s = s + 1u) {
        let sums = step_sums(steps[P.first_step + s], mb, nb, col_groups);
        total[0] = total[0] + sums[0];
        total[1] = total[1] + sums[1];
        total[2] = total[2] + sums[2];
        total[3] = total[3] + sums[3];
    }
    store_row(m0, n0, total[0]);
    store_row(m0 + 1u, n0, total[1]);
    store_row(m0 + 2u, n0, total[2]);
    store_row(m0 + 3u, n0, total[3]);
}
