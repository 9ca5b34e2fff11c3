// On devices that flush subnormals: each reduced block's least and greatest exponent fields
// per row of activations or column of weights, of its nonzero parts, which `mxu_matmul`
// reads to choose its path (see `mxu.wgsl`, whose layouts these bindings view as single
// words). The reducers set each lane of the least to NO_EXPONENT and of the greatest to 0;
// here each invocation folds a run of CHUNK `vec4`s of parts of one row or column group and
// moves the group's lanes with `atomicMin` and `atomicMax`. (A loop over a whole row per invocation
// waits on its loads one after another: a third of an H200's matmul time; one invocation per
// `vec4` costs software adapters a tenth of theirs.)

@group(0) @binding(2) var<storage, read_write> weights: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> act: array<atomic<u32>>;

const CHUNK: u32 = 16u;

// The least and the greatest exponent fields of a run's nonzero parts, lane by lane.
struct Exponents {
    least: vec4<u32>,
    greatest: vec4<u32>,
}

// `e` with the exponent fields of each lane's two bf16 values in `v` folded in (a zero
// counts for neither: a subnormal's field is 0, a zero's is none).
fn fold(e: Exponents, v: vec4<u32>) -> Exponents {
    let field = vec4<u32>(0xffu);
    let first = (v >> vec4<u32>(23u)) & field;
    let second = (v >> vec4<u32>(7u)) & field;
    let none = vec4<u32>(NO_EXPONENT);
    let least = min(select(first, none, (v & vec4<u32>(0x7fff0000u)) == vec4<u32>(0u)), select(second, none, (v & vec4<u32>(0x7fffu)) == vec4<u32>(0u)));
    return Exponents(min(e.least, least), max(e.greatest, max(first, second)));
}

fn fold_weights(e: Exponents, at: u32) -> Exponents {
    return fold(e, vec4<u32>(atomicLoad(&weights[at]), atomicLoad(&weights[at + 1u]), atomicLoad(&weights[at + 2u]), atomicLoad(&weights[at + 3u])));
}

fn fold_act(e: Exponents, at: u32) -> Exponents {
    return fold(e, vec4<u32>(atomicLoad(&act[at]), atomicLoad(&act[at + 1u]), atomicLoad(&act[at + 2u]), atomicLoad(&act[at + 3u])));
}

const NOTHING_YET: Exponents = Exponents(vec4<u32>(NO_EXPONENT), vec4<u32>(0u));

// After MxuWeights: one invocation per (run of CHUNK pairs of k, nb), P.rows = K, P.cols = N.
@compute @workgroup_size(64)
fn mxu_weights_exponents(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let col_groups = groups_of_four(P.cols);
    let pairs = (P.rows + 1u) / 2u;
    if i >= ((pairs + CHUNK - 1u) / CHUNK) * col_groups {
        return;
    }
    let nb = i % col_groups;
    let first = (i / col_groups) * CHUNK;
    var e = NOTHING_YET;
    for (var kp = first; kp < min(first + CHUNK, pairs); kp = kp + 1u) {
        e = fold_weights(e, P.scratch_at + 4u * (kp * col_groups + nb));
    }
    let least = P.scratch_at + 4u * (pairs * col_groups + nb);
    let greatest = least + 4u * col_groups;
    for (var lane = 0u; lane < 4u; lane = lane + 1u) {
        if e.least[lane] != NO_EXPONENT {
            atomicMin(&weights[least + lane], e.least[lane]);
            atomicMax(&weights[greatest + lane], e.greatest[lane]);
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
    let row_groups = groups_of_four(P.rows);
    if i >= row_groups * chunks {
        return;
    }
    let mb = i / chunks;
    let first = (i % chunks) * CHUNK;
    var e = NOTHING_YET;
    for (var kp = first; kp < min(first + CHUNK, pairs); kp = kp + 1u) {
        e = fold_act(e, P.scratch_at + 4u * (mb * pairs + kp));
    }
    let least = P.scratch_at + 4u * (row_groups * pairs + mb);
    let greatest = least + 4u * row_groups;
    for (var lane = 0u; lane < 4u; lane = lane + 1u) {
        if e.least[lane] != NO_EXPONENT {
            atomicMin(&act[least + lane], e.least[lane]);
            atomicMax(&act[greatest + lane], e.greatest[lane]);
        }
    }
}
