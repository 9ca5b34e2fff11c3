// The matrix unit (see `emu::cpu` for the reference): MxuWeights and MxuMatmul.
//
// Each MxuWeights and each MxuMatmul's activations are reduced to their bf16 parts once, into
// scratch of their own (`mxu_weights`, `mxu_activations`); `mxu_matmul` then computes the
// outputs over a chain of matmuls adding into one block (see `Step`).
//
// The kernel is shaped by software adapters and holds up on hardware ones (docs/gpu.md has
// the numbers). SwiftShader runs four invocations as the lanes of one CPU SIMD register and
// keeps every value in memory between operations; every load whose address differs between
// invocations becomes a gather, a masked scalar load per lane and per component. So the cost
// is the number of operations and of words gathered per product: the weight registers and
// the activations are packed eight bfloat16 values to a `vec4` (four lanes, two values of k
// in each word), each invocation computes an 8×8 block of outputs (four `vec4` loads per 128
// products), there is no workgroup memory and no barrier (both slow there), and `seconds`
// multiplies where a shift would be a loop over the lanes.
//
// Every part an MXU multiplies is a bfloat16 value: a float32 word whose low half is zero, so
// two fit one word losslessly, the first (even k) in the high half. Layouts (NB column groups
// and MB row groups, `groups_of_four` of N and M: padded to an even number so that every 8×8
// block lies inside; KP = ceil(K/2) pairs of k; values past the matrix are zero, so an odd
// K's last pair adds +0 products, which leave every sum as it is (a sum from +0 is never -0);
// nothing past the matrix is stored):
//   weights[at + kp * NB + nb] = pair(part(W[2kp][4nb .. 4nb+4]), part(W[2kp+1][4nb .. 4nb+4]))
//   act[at + mb * KP + kp]     = pair(part(A[4mb .. 4mb+4][2kp]), part(A[4mb .. 4mb+4][2kp+1]))
// followed, on devices that flush subnormals, by the least and greatest exponent fields of
// the nonzero parts (`mxu_exponents.wgsl`),
//   weights[at + KP * NB + nb], weights[at + (KP + 1) * NB + nb]  of columns 4nb .. 4nb+4
//   act[at + MB * KP + mb], act[at + MB * (KP + 1) + mb]          of rows 4mb .. 4mb+4
// each lane one row or column (NO_EXPONENT and 0 where all its parts are zero: the reducers
// write those, `mxu_exponents.wgsl` moves them); and after all activations, at each matmul
// dispatch's P.scratch_at, a `vec4` per 4×4 block of outputs saying whether `mxu_matmul`
// left it to `mxu_matmul_exact`. `at` (a step's `weights_at` or `act_at`, in words, a
// multiple of 4) is in vec4s here.
//
// Constants written before the module by crates/gpu: PART, the part (0 = hi, 1 = mid, 2 = lo)
// the reducers produce (one pipeline per part), and FLUSHES (see `exact_arith.wgsl`); and
// `accumulate` (below), after it.

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

// (`v * 0x10000` is `v << 16`: SwiftShader shifts by a vector one lane at a time.)
fn seconds(v: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(v * vec4<u32>(0x10000u));
}

// MxuWeights: one invocation per (kp, nb), P.rows = K, P.cols = N; P.scratch_at is in words.
@compute @workgroup_size(64)
fn mxu_weights(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = groups_of_four(P.cols);
    let pairs = (P.rows + 1u) / 2u;
    if i >= pairs * col_groups {
        return;
    }
    let k = (i / col_groups) * 2u;
    let n = (i % col_groups) * 4u;
    if FLUSHES && k == 0u {
        let exponents = P.scratch_at / 4u + pairs * col_groups + i;
        weights[exponents] = vec4<u32>(NO_EXPONENT);
        weights[exponents + col_groups] = vec4<u32>(0u);
    }
    // A loop, not four copies of `part_at`'s arithmetic: SwiftShader compiles it faster.
    var packed = vec4<u32>();
    for (var c = 0u; c < 4u; c = c + 1u) {
        packed[c] = pair(part_at(k, n + c), part_at(k + 1u, n + c));
    }
    weights[P.scratch_at / 4u + i] = packed;
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
    let row_groups = groups_of_four(P.rows);
    if i >= row_groups * pairs {
        return;
    }
    let m = (i / pairs) * 4u;
    let k = (i % pairs) * 2u;
    if FLUSHES && k == 0u {
        let exponents = P.scratch_at / 4u + row_groups * pairs + i / pairs;
        act[exponents] = vec4<u32>(NO_EXPONENT);
        act[exponents + row_groups] = vec4<u32>(0u);
    }
    var packed = vec4<u32>();
    for (var r = 0u; r < 4u; r = r + 1u) {
        packed[r] = pair(part_at(m + r, k), part_at(m + r, k + 1u));
    }
    act[P.scratch_at / 4u + i] = packed;
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

// ---- Devices that flush subnormals ----
//
// There a sum of products is exact as long as no product and no running sum has a bit below
// 2^-126: every such value is 0 or at least 2^-126 in magnitude, never subnormal, and a
// rounded sum of them keeps the property (it rounds only above 2^-102, where a last place is
// at least 2^-125). A product of bf16 values with exponent fields ea and eb has its last bit
// at 2^(ea + eb - 268), so ea + eb >= 142 for every pair of nonzero parts is enough.
//
// Products are also kept from overflowing there: a product of values below 2^(ea - 126) and
// 2^(eb - 126) is below 2^128, finite, when ea + eb <= 380. With every product exact, fusing
// a multiply into the add that follows (which WGSL allows) changes no sum, so there the
// products need no `opaque` (it costs SwiftShader a quarter of the matmul's time).
//
// Each reduced block ends with its rows' (or columns') least and greatest exponent fields (see
// the layouts above); a 4×4 block of outputs with a step whose rows and columns could break
// either rule, or that a chain adds to and that holds a value with bits below 2^-126, is
// flagged and left to `mxu_matmul_exact`.

// A group's (least, greatest) exponent fields over its four rows or columns.
fn exponent_range(least: vec4<u32>, greatest: vec4<u32>) -> vec2<u32> {
    return vec2<u32>(min(min(least.x, least.y), min(least.z, least.w)), max(max(greatest.x, greatest.y), max(greatest.z, greatest.w)));
}

// Whether every product of a group of rows with a group of columns is exact on a device that
// flushes subnormals: neither below 2^-126 in its last bit (nor a subnormal factor) nor
// overflowing. (No shifts here: SwiftShader shifts one lane at a time.)
fn products_exact(rows: vec2<u32>, cols: vec2<u32>) -> bool {
    return rows.x != 0u && cols.x != 0u && rows.x + cols.x >= 142u && rows.y + cols.y <= 380u;
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

// Which quarters of the 8×8 block from row group mb and column group nb (top left, top right,
// bottom left, bottom right) `mxu_matmul` computes itself: those whose every product in every
// step is exact and, when the chain adds to them, whose outputs are whole multiples of
// 2^-126. The others are flagged (at P.scratch_at) for `mxu_matmul_exact`. (One loop for the
// four: a loop each, inlined, took SwiftShader a quarter of a second more to compile.)
fn fast_quarters(mb: u32, nb: u32, row_groups: u32, col_groups: u32, before: array<array<vec4<f32>, 4>, 4>) -> vec4<bool> {
    var fast = vec4<bool>(true);
    for (var s = 0u; s < P.len; s = s + 1u) {
        let step = steps[P.first_step + s];
        let pairs = (step.k + 1u) / 2u;
        let rows = step.act_at / 4u + row_groups * pairs + mb;
        let cols = step.weights_at / 4u + pairs * col_groups + nb;
        let top = exponent_range(act[rows], act[rows + row_groups]);
        let bottom = exponent_range(act[rows + 1u], act[rows + 1u + row_groups]);
        let left = exponent_range(weights[cols], weights[cols + col_groups]);
        let right = exponent_range(weights[cols + 1u], weights[cols + 1u + col_groups]);
        fast = fast & vec4<bool>(products_exact(top, left), products_exact(top, right), products_exact(bottom, left), products_exact(bottom, right));
    }
    for (var q = 0u; q < 4u; q = q + 1u) {
        // A block the chain does not add to starts from +0.
        fast[q] = fast[q] && (P.flags == 0u || whole_multiples_of_min_normal(before[q]));
        act[P.scratch_at / 4u + (mb + q / 2u) * col_groups + nb + q % 2u] = vec4<u32>(u32(!fast[q]));
    }
    return fast;
}

// ---- The matmul ----

// `accumulate(s, a, w, zero)`, the sums `s` plus the four products of one activation with
// four weights, is written after this module by crates/gpu (`mxu_module`). Where the device
// keeps subnormals each product is hidden from the optimiser (see `opaque`), so that no
// compiler fuses the multiply into the add; where it flushes them, every product this kernel
// computes is exact (see above), so fusing changes nothing and the product is plain (a branch
// on FLUSHES here cost SwiftShader 6 % of the matmul's time).

// For tests (`GpuBackend::set_strict_products`): the four products, each NaN where it
// overflowed or has bits below 2^-126. The kernel for a device that flushes subnormals must
// never compute such a product (see above); where no result changes with these, no compiler
// fusing its multiplies into adds could change one either.
fn strict_products(a: f32, w: vec4<f32>) -> vec4<f32> {
    let p = a * w;
    let bits = bitcast<vec4<u32>>(p);
    let field = (bits >> vec4<u32>(23u)) & vec4<u32>(0xffu);
    let a_finite = (bitcast<u32>(a) & 0x7f800000u) != 0x7f800000u;
    let w_finite = (bitcast<vec4<u32>>(w) & vec4<u32>(0x7f800000u)) != vec4<u32>(0x7f800000u);
    let overflowed = (field == vec4<u32>(0xffu)) & w_finite & vec4<bool>(a_finite);
    let below = vec4<u32>(24u) - min(field, vec4<u32>(24u));
    let low_bits = (bits & ((vec4<u32>(1u) << below) - vec4<u32>(1u))) != vec4<u32>(0u);
    // (A NaN made at run time: WGSL rejects a constant one.)
    return select(p, vec4<f32>(bitcast<f32>(CANONICAL_NAN | P.zero)), overflowed | low_bits);
}

// One k for the 8×8 block: rows `top` (the block's first four) and `bottom` times columns
// `left` and `right`, each product added to its output's sum. `sums[4q + r]` is row r of the
// 4×4 quarter q: 0 top left, 1 top right, 2 bottom left, 3 bottom right.
fn k_step(sums: ptr<function, array<vec4<f32>, 16>>, top: vec4<f32>, bottom: vec4<f32>, left: vec4<f32>, right: vec4<f32>, zero: vec4<u32>) {
    (*sums)[0] = accumulate((*sums)[0], top.x, left, zero);
    (*sums)[1] = accumulate((*sums)[1], top.y, left, zero);
    (*sums)[2] = accumulate((*sums)[2], top.z, left, zero);
    (*sums)[3] = accumulate((*sums)[3], top.w, left, zero);
    (*sums)[4] = accumulate((*sums)[4], top.x, right, zero);
    (*sums)[5] = accumulate((*sums)[5], top.y, right, zero);
    (*sums)[6] = accumulate((*sums)[6], top.z, right, zero);
    (*sums)[7] = accumulate((*sums)[7], top.w, right, zero);
    (*sums)[8] = accumulate((*sums)[8], bottom.x, left, zero);
    (*sums)[9] = accumulate((*sums)[9], bottom.y, left, zero);
    (*sums)[10] = accumulate((*sums)[10], bottom.z, left, zero);
    (*sums)[11] = accumulate((*sums)[11], bottom.w, left, zero);
    (*sums)[12] = accumulate((*sums)[12], bottom.x, right, zero);
    (*sums)[13] = accumulate((*sums)[13], bottom.y, right, zero);
    (*sums)[14] = accumulate((*sums)[14], bottom.z, right, zero);
    (*sums)[15] = accumulate((*sums)[15], bottom.w, right, zero);
}

// The sums of one step of a chain for the 8×8 block from row group mb and column group nb.
// The partial sum of each output flows down its column of the systolic array, one product per
// row, in increasing k, starting from +0 (a `zero` that no compiler can fold `0 + p` into
// `p` with: wrong for p = -0). One pair of k per iteration: two (more loads in flight) ran
// slower on SwiftShader.
fn step_sums(step: Step, mb: u32, nb: u32, col_groups: u32) -> array<vec4<f32>, 16> {
    let zero = vec4<u32>(P.zero);
    let z = bitcast<vec4<f32>>(zero);
    var sums = array<vec4<f32>, 16>(z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z);
    let pairs = (step.k + 1u) / 2u;
    var a_at = step.act_at / 4u + mb * pairs;
    var w_at = step.weights_at / 4u + nb;
    for (var kp = 0u; kp < pairs; kp = kp + 1u) {
        let top = act[a_at];
        let bottom = act[a_at + pairs];
        let left = weights[w_at];
        let right = weights[w_at + 1u];
        k_step(&sums, firsts(top), firsts(bottom), firsts(left), firsts(right), zero);
        k_step(&sums, seconds(top), seconds(bottom), seconds(left), seconds(right), zero);
        a_at = a_at + 1u;
        w_at = w_at + col_groups;
    }
    return sums;
}

// A 4×4 block with quarter q of an 8×8 block's sums added to it.
fn plus_quarter(block: array<vec4<f32>, 4>, sums: array<vec4<f32>, 16>, q: u32) -> array<vec4<f32>, 4> {
    return array<vec4<f32>, 4>(block[0] + sums[4u * q], block[1] + sums[4u * q + 1u], block[2] + sums[4u * q + 2u], block[3] + sums[4u * q + 3u]);
}

// `step_sums` for one 4×4 block, one product and one sum at a time in the arithmetic that
// keeps subnormals (`mxu_matmul_exact`).
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

// Row `m` of a block as it was before the chain (four words from column n0; +0 outside).
fn load_row(m: u32, n0: u32) -> vec4<f32> {
    var row = vec4<f32>(0.0);
    for (var c = 0u; c < 4u && m < P.rows && n0 + c < P.cols; c = c + 1u) {
        row[c] = bitcast<f32>(vmem[P.dst_addr + m * P.dst_stride + n0 + c]);
    }
    return row;
}

// What the chain's sums are added to in the 4×4 block from output (m0, n0): its outputs when
// the chain adds to them (P.flags = 1), else +0, for +0 + x is x for every sum x (a sum from
// +0 is never -0).
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
// an 8×8 block of outputs, as four 4×4 quarters, P.rows = M, P.cols = N; invocations
// MB/2 × NB/2, column pairs fastest.
@compute @workgroup_size(64)
fn mxu_matmul(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let row_groups = groups_of_four(P.rows);
    let col_groups = groups_of_four(P.cols);
    if i >= (row_groups / 2u) * (col_groups / 2u) {
        return;
    }
    let mb = (i / (col_groups / 2u)) * 2u;
    let nb = (i % (col_groups / 2u)) * 2u;
    // Quarter q (top left, top right, bottom left, bottom right) starts at output row
    // m0 + 4 (q / 2), column n0 + 4 (q % 2). (Loops over the quarters, not four copies of
    // each: SwiftShader compiles the kernel faster.)
    let m0 = mb * 4u;
    let n0 = nb * 4u;
    var quarters: array<array<vec4<f32>, 4>, 4>;
    for (var q = 0u; q < 4u; q = q + 1u) {
        quarters[q] = initial_block(m0 + 4u * (q / 2u), n0 + 4u * (q % 2u));
    }
    // On a device that flushes subnormals, a quarter whose sums might not be exact here is
    // flagged and left as it is for `mxu_matmul_exact`.
    var fast = vec4<bool>(true);
    if FLUSHES {
        fast = fast_quarters(mb, nb, row_groups, col_groups, quarters);
        if !any(fast) {
            return;
        }
    }
    for (var s = 0u; s < P.len; s = s + 1u) {
        let sums = step_sums(steps[P.first_step + s], mb, nb, col_groups);
        quarters[0] = plus_quarter(quarters[0], sums, 0u);
        quarters[1] = plus_quarter(quarters[1], sums, 1u);
        quarters[2] = plus_quarter(quarters[2], sums, 2u);
        quarters[3] = plus_quarter(quarters[3], sums, 3u);
    }
    for (var q = 0u; q < 4u; q = q + 1u) {
        if fast[q] {
            store_block(m0 + 4u * (q / 2u), n0 + 4u * (q % 2u), quarters[q]);
        }
    }
}

// On devices that flush subnormals, after each `mxu_matmul`: the 4×4 blocks it flagged, one
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
    let col_groups = groups_of_four(P.cols);
    let blocks = groups_of_four(P.rows) * col_groups;
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
