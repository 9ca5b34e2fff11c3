// The matrix unit (see `emu::cpu` for the reference): MxuWeights and MxuMatmul.
//
// Each MxuWeights and each MxuMatmul's activations are reduced to their bf16 parts once, into
// scratch of their own (`mxu_weights`, `mxu_activations`); `mxu_matmul` then computes the
// outputs over a chain of matmuls adding into one block (see `Step`).
//
// The kernel is shaped by software adapters and holds up on hardware ones (docs/gpu.md has
// the numbers). SwiftShader and llvmpipe run four or eight invocations as the lanes of one
// CPU SIMD register, so every load whose address differs between invocations becomes a
// gather, a handful of scalar loads, and gathers dominate a matmul's time. Hence: the weight
// registers and the activations packed eight bfloat16 values to a `vec4` (four lanes, two
// values of k in each word), each invocation computing a 4×4 block of outputs (two `vec4`
// loads per thirty-two products; larger blocks no longer fit the CPU's sixteen SIMD
// registers), and no workgroup memory or barriers (both slow there).
//
// Every part an MXU multiplies is a bfloat16 value: a float32 word whose low half is zero, so
// two fit one word losslessly, the first (even k) in the high half. Layouts (NB = ceil(N/4)
// column groups, MB = ceil(M/4) row groups, KP = ceil(K/2) pairs of k; values past the matrix
// are zero, so an odd K's last pair adds +0 products, which leave every sum as it is (a sum
// from +0 is never -0); nothing past the matrix is stored):
//   weights[at + kp * NB + nb] = pair(part(W[2kp][4nb .. 4nb+4]), part(W[2kp+1][4nb .. 4nb+4]))
//   act[at + mb * KP + kp]     = pair(part(A[4mb .. 4mb+4][2kp]), part(A[4mb .. 4mb+4][2kp+1]))
// followed, on devices that flush subnormals, by the smallest magnitudes (`mxu_exponents.wgsl`),
//   weights[at + KP * NB + nb] = smallest of columns 4nb .. 4nb+4
//   act[at + MB * KP + mb]     = smallest of rows 4mb .. 4mb+4
// each lane the least (bf16 magnitude bits - 1) over the nonzero parts (the largest u32 where
// all are zero), set to that largest u32 by the reducers and lowered by `mxu_exponents.wgsl`;
// and after all activations, at each matmul dispatch's P.scratch_at, a `vec4` per block of
// outputs saying whether `mxu_matmul` left it to `mxu_matmul_exact`.
// where `at` (a step's `weights_at` or `act_at`, in words, a multiple of 4) is in vec4s here.
//
// Constants written before the module by crates/gpu: PART, the part (0 = hi, 1 = mid, 2 = lo)
// the reducers produce (one pipeline per part), and FLUSHES (see `exact_arith.wgsl`).

@group(0) @binding(2) var<storage, read_write> weights: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> act: array<vec4<u32>>;

// The bf16 `part` (0 = hi, 1 = mid, 2 = lo) of an f32, as `emu::cpu::bf16_part`. The
// remainders are exact, subnormal ones too (`sub_f`).
fn bf16_part(x: f32, part: u32) -> f32 {
    let hi = bf16_round(x);
    if part == 0u {
        return hi;
    }
    let rest = nan_first(x, hi, sub_f(x, hi));
    let mid = bf16_round(rest);
    if part == 1u {
        return mid;
    }
    return bf16_round(nan_first(rest, mid, sub_f(rest, mid)));
}

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
fn mxu_weights(
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
    if FLUSHES && k == 0u {
        weights[P.scratch_at / 4u + ((P.rows + 1u) / 2u) * col_groups + i] = vec4<u32>(0xffffffffu);
    }
    weights[P.scratch_at / 4u + i] = vec4<u32>(
        pair(part_at(k, n), part_at(k + 1u, n)),
        pair(part_at(k, n + 1u), part_at(k + 1u, n + 1u)),
        pair(part_at(k, n + 2u), part_at(k + 1u, n + 2u)),
        pair(part_at(k, n + 3u), part_at(k + 1u, n + 3u)),
    );
}

// First half of MxuMatmul: one invocation per (mb, kp), P.rows = M, P.cols = K.
@compute @workgroup_size(64)
fn mxu_activations(
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
    if FLUSHES && k == 0u {
        act[P.scratch_at / 4u + ((P.rows + 3u) / 4u) * pairs + i / pairs] = vec4<u32>(0xffffffffu);
    }
    act[P.scratch_at / 4u + i] = vec4<u32>(
        pair(part_at(m, k), part_at(m, k + 1u)),
        pair(part_at(m + 1u, k), part_at(m + 1u, k + 1u)),
        pair(part_at(m + 2u, k), part_at(m + 2u, k + 1u)),
        pair(part_at(m + 3u, k), part_at(m + 3u, k + 1u)),
    );
}

// Moves P.len words of loaded weights from P.src_addr to P.dst_addr (never overlapping).
@compute @workgroup_size(64)
fn mxu_copy_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.len / 4u {
        weights[P.dst_addr / 4u + i] = weights[P.src_addr / 4u + i];
    }
}

// ---- Subnormals on devices that flush them ----
//
// There a sum of products is exact as long as no product and no running sum has a bit below
// 2^-126: every such value is 0 or at least 2^-126 in magnitude, never subnormal, and a
// rounded sum of them keeps the property (it rounds only above 2^-102, where a last place is
// at least 2^-125). A product of bf16 values with exponent fields ea and eb has its last bit
// at 2^(ea + eb - 268), so ea + eb >= 142 for every pair of nonzero parts is enough. Each
// reduced block ends with its rows' (or columns') smallest nonzero magnitudes (see the
// layouts above); a block of outputs with a step whose rows and columns could break the rule,
// or that a chain adds to and that holds a value with bits below 2^-126, is flagged and left
// to `mxu_matmul_exact`.

// The exponent fields of the smallest magnitudes `mxu_exponents.wgsl` found (511 for none).
fn exponent_fields(s: vec4<u32>) -> vec4<u32> {
    return select((s + vec4<u32>(1u)) >> vec4<u32>(7u), vec4<u32>(511u), s == vec4<u32>(0xffffffffu));
}

// Whether every product of these rows and columns keeps its bits on a device that flushes.
fn products_stay_normal(row_magnitudes: vec4<u32>, col_magnitudes: vec4<u32>) -> bool {
    let rows = exponent_fields(row_magnitudes);
    let cols = exponent_fields(col_magnitudes);
    let a = min(min(rows.x, rows.y), min(rows.z, rows.w));
    let w = min(min(cols.x, cols.y), min(cols.z, cols.w));
    return a != 0u && w != 0u && a + w >= 142u;
}

// ---- The matmul ----

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

// The sums of one step of a chain for the 4×4 block (mb, nb). The partial sum of each output
// flows down its column of the systolic array, one product per row, in increasing k,
// starting from +0 (a `zero` that no compiler can fold `0 + p` into `p` with: wrong for
// p = -0).
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

// `step_sums` one product and one sum at a time in the arithmetic that keeps subnormals
// (`mxu_matmul_exact`).
fn exact_step_sums(step: Step, mb: u32, nb: u32, col_groups: u32) -> array<vec4<f32>, 4> {
    let zero = bitcast<vec4<f32>>(vec4<u32>(P.zero));
    var sums = array<vec4<f32>, 4>(zero, zero, zero, zero);
    let pairs = (step.k + 1u) / 2u;
    for (var kp = 0u; kp < pairs; kp = kp + 1u) {
        let a_pair = act[step.act_at / 4u + mb * pairs + kp];
        let w_pair = weights[step.weights_at / 4u + kp * col_groups + nb];
        for (var second = 0u; second < 2u; second = second + 1u) {
            let a = select(firsts(a_pair), seconds(a_pair), second == 1u);
            let w = select(firsts(w_pair), seconds(w_pair), second == 1u);
            for (var r = 0u; r < 4u; r = r + 1u) {
                for (var c = 0u; c < 4u; c = c + 1u) {
                    sums[r][c] = add_f(sums[r][c], opaque(mul_f(a[r], w[c])));
                }
            }
        }
    }
    return sums;
}

// Whether every product of a step for the 4×4 block (mb, nb) keeps its bits on a device
// that flushes subnormals.
fn step_stays_normal(step: Step, mb: u32, nb: u32, col_groups: u32) -> bool {
    let pairs = (step.k + 1u) / 2u;
    let rows = act[step.act_at / 4u + ((P.rows + 3u) / 4u) * pairs + mb];
    let cols = weights[step.weights_at / 4u + pairs * col_groups + nb];
    return products_stay_normal(rows, cols);
}

// Whether every value of a block is a whole multiple of 2^-126 (no bit below it): then, with
// products that are too, every sum is, and none is subnormal (see above). A normal value with
// exponent field e has 24 - e bits below 2^-126 when e < 24; a subnormal one has only such.
fn whole_multiples_of_min_normal(block: array<vec4<f32>, 4>) -> bool {
    var low_bits = vec4<u32>(0u);
    for (var r = 0u; r < 4u; r = r + 1u) {
        let bits = bitcast<vec4<u32>>(block[r]);
        let below = vec4<u32>(24u) - min((bits >> vec4<u32>(23u)) & vec4<u32>(0xffu), vec4<u32>(24u));
        low_bits = low_bits | (bits & ((vec4<u32>(1u) << below) - vec4<u32>(1u)));
    }
    return all(low_bits == vec4<u32>(0u));
}

// Row `m` of the block as it was before the chain (four words from column n0; +0 outside).
fn load_row(m: u32, n0: u32) -> vec4<f32> {
    var row = vec4<f32>(0.0);
    for (var c = 0u; c < 4u && m < P.rows && n0 + c < P.cols; c = c + 1u) {
        row[c] = bitcast<f32>(vmem[P.dst_addr + m * P.dst_stride + n0 + c]);
    }
    return row;
}

// What the chain's sums are added to: the block's outputs when it adds to them (P.flags = 1),
// else +0, for +0 + x is x for every sum x (a sum from +0 is never -0).
fn initial_block(m0: u32, n0: u32) -> array<vec4<f32>, 4> {
    var block = array<vec4<f32>, 4>();
    if P.flags != 0u {
        block = array<vec4<f32>, 4>(load_row(m0, n0), load_row(m0 + 1u, n0), load_row(m0 + 2u, n0), load_row(m0 + 3u, n0));
    }
    return block;
}

// Stores row `m` of a block (four outputs from column n0; a NaN's bits made canonical once,
// at the end: a NaN stays a NaN through any sum).
fn store_row(m: u32, n0: u32, sums: vec4<f32>) {
    for (var c = 0u; c < 4u && m < P.rows && n0 + c < P.cols; c = c + 1u) {
        vmem[P.dst_addr + m * P.dst_stride + n0 + c] = canonical(sums[c]);
    }
}

fn store_block(m0: u32, n0: u32, block: array<vec4<f32>, 4>) {
    store_row(m0, n0, block[0]);
    store_row(m0 + 1u, n0, block[1]);
    store_row(m0 + 2u, n0, block[2]);
    store_row(m0 + 3u, n0, block[3]);
}

// Second half of MxuMatmul, for a chain of P.len steps from P.first_step: dst is set (or,
// with P.flags = 1, added to) by the first step's sums, and each later step's sums are added
// to it, what one instruction at a time would store and read back. Each invocation computes
// a 4×4 block of outputs, P.rows = M, P.cols = N; invocations MB × NB, column groups fastest.
@compute @workgroup_size(64)
fn mxu_matmul(
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
    var total = initial_block(mb * 4u, nb * 4u);
    // On a device that flushes subnormals, a block whose sums might meet one is flagged (at
    // P.scratch_at) and left as it is for `mxu_matmul_exact`.
    if FLUSHES {
        var normal = whole_multiples_of_min_normal(total);
        for (var s = 0u; s < P.len; s = s + 1u) {
            normal = normal && step_stays_normal(steps[P.first_step + s], mb, nb, col_groups);
        }
        act[P.scratch_at / 4u + i] = vec4<u32>(u32(!normal));
        if !normal {
            return;
        }
    }
    for (var s = 0u; s < P.len; s = s + 1u) {
        let sums = step_sums(steps[P.first_step + s], mb, nb, col_groups);
        total = array<vec4<f32>, 4>(total[0] + sums[0], total[1] + sums[1], total[2] + sums[2], total[3] + sums[3]);
    }
    store_block(mb * 4u, nb * 4u, total);
}

// On devices that flush subnormals, after each `mxu_matmul`: the blocks it flagged, one
// product and one sum at a time in the arithmetic that keeps subnormals (in a kernel of its
// own: its registers in the fast kernel cost an H200 a fifth of its speed even where never
// run). Each invocation looks at a run of P.code blocks: one on hardware GPUs, more on
// software adapters, where merely entering this large kernel costs (see `GpuBackend`).
@compute @workgroup_size(64)
fn mxu_matmul_exact(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = (P.cols + 3u) / 4u;
    let blocks = ((P.rows + 3u) / 4u) * col_groups;
    for (var b = i * P.code; b < min(i * P.code + P.code, blocks); b = b + 1u) {
        if act[P.scratch_at / 4u + b].x != 0u {
            exact_block(b / col_groups, b % col_groups, col_groups);
        }
    }
}

fn exact_block(mb: u32, nb: u32, col_groups: u32) {
    var total = initial_block(mb * 4u, nb * 4u);
    for (var s = 0u; s < P.len; s = s + 1u) {
        let sums = exact_step_sums(steps[P.first_step + s], mb, nb, col_groups);
        for (var r = 0u; r < 4u; r = r + 1u) {
            for (var c = 0u; c < 4u; c = c + 1u) {
                total[r][c] = add_f(total[r][c], sums[r][c]);
            }
        }
    }
    store_block(mb * 4u, nb * 4u, total);
}
