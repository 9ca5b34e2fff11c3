// On devices that flush subnormals: each reduced block's smallest nonzero magnitudes per row
// of activations or column of weights, which `mxu_matmul` reads to choose its path (see
// `mxu.wgsl`, whose layouts these bindings view as single words). The reducers set each
// lane to the largest u32; here each invocation folds a run of CHUNK `vec4`s of parts of
// one row or column group and lowers the group's lanes with `atomicMin`. (A loop over a
// whole row per invocation waits on its loads one after another: a third of an H200's
// matmul time; one invocation per `vec4` costs software adapters a tenth of theirs.)

@group(0) @binding(2) var<storage, read_write> weights: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> act: array<atomic<u32>>;

const CHUNK: u32 = 16u;

// `s` lowered by the least (magnitude bits - 1) of each lane's two bf16 values in the `vec4`
// at word `at`: the bits of a zero wrap round to the largest u32, so zeros never count.
fn fold_weights(s: vec4<u32>, at: u32) -> vec4<u32> {
    let v = vec4<u32>(atomicLoad(&weights[at]), atomicLoad(&weights[at + 1u]), atomicLoad(&weights[at + 2u]), atomicLoad(&weights[at + 3u]));
    return fold(s, v);
}

fn fold_act(s: vec4<u32>, at: u32) -> vec4<u32> {
    let v = vec4<u32>(atomicLoad(&act[at]), atomicLoad(&act[at + 1u]), atomicLoad(&act[at + 2u]), atomicLoad(&act[at + 3u]));
    return fold(s, v);
}

fn fold(s: vec4<u32>, v: vec4<u32>) -> vec4<u32> {
    let one = vec4<u32>(1u);
    let magnitude = vec4<u32>(0x7fffu);
    return min(s, min(((v >> vec4<u32>(16u)) & magnitude) - one, (v & magnitude) - one));
}

// After MxuWeights: one invocation per (run of CHUNK pairs of k, nb), P.rows = K, P.cols = N.
@compute @workgroup_size(64)
fn mxu_weights_exponents(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = (P.cols + 3u) / 4u;
    let pairs = (P.rows + 1u) / 2u;
    if i >= ((pairs + CHUNK - 1u) / CHUNK) * col_groups {
        return;
    }
    let nb = i % col_groups;
    let first = (i / col_groups) * CHUNK;
    var s = vec4<u32>(0xffffffffu);
    for (var kp = first; kp < min(first + CHUNK, pairs); kp = kp + 1u) {
        s = fold_weights(s, P.scratch_at + 4u * (kp * col_groups + nb));
    }
    let at = P.scratch_at + 4u * (pairs * col_groups + nb);
    for (var lane = 0u; lane < 4u; lane = lane + 1u) {
        if s[lane] != 0xffffffffu {
            atomicMin(&weights[at + lane], s[lane]);
        }
    }
}

// After the activations' reducer: one invocation per (mb, run of CHUNK pairs of k),
// P.rows = M, P.cols = K.
@compute @workgroup_size(64)
fn mxu_activations_exponents(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let pairs = (P.cols + 1u) / 2u;
    let chunks = (pairs + CHUNK - 1u) / CHUNK;
    let row_groups = (P.rows + 3u) / 4u;
    if i >= row_groups * chunks {
        return;
    }
    let mb = i / chunks;
    let first = (i % chunks) * CHUNK;
    var s = vec4<u32>(0xffffffffu);
    for (var kp = first; kp < min(first + CHUNK, pairs); kp = kp + 1u) {
        s = fold_act(s, P.scratch_at + 4u * (mb * pairs + kp));
    }
    let at = P.scratch_at + 4u * (row_groups * pairs + mb);
    for (var lane = 0u; lane < 4u; lane = lane + 1u) {
        if s[lane] != 0xffffffffu {
            atomicMin(&act[at + lane], s[lane]);
        }
    }
}
