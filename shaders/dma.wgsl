// DmaLoad (HBM -> VMEM) and DmaStore (VMEM -> HBM): a strided 2-D copy. Each invocation copies
// a run of up to DMA_RUN words of one row: an integer division per run rather than per word
// (software adapters divide lane by lane, and a division per word cost more than the copy).
// HBM is read and written through `hbm_read` and `hbm_write` (`hbm_whole.wgsl` or
// `hbm_split.wgsl`, written before this file). Load and store are entry points of their own,
// each a pipeline holding one direction's loop, as the reducers hold one bf16 part each.
//
// bf16 arrays are packed in HBM, two to a word (element h is half h % 2 of word h / 2), and
// the HBM block's address and stride count elements; in VMEM each is a word, the f32 of the
// same value.

const DMA_RUN: u32 = 32u;

// The run of invocation `i`: its first source and destination words and its length (0 past
// the block).
fn dma_run(i: u32) -> vec3<u32> {
    let runs = (P.cols + DMA_RUN - 1u) / DMA_RUN;
    if i >= P.rows * runs {
        return vec3<u32>(0u);
    }
    let r = i / runs;
    let c = (i % runs) * DMA_RUN;
    return vec3<u32>(P.src_addr + r * P.src_stride + c, P.dst_addr + r * P.dst_stride + c, min(DMA_RUN, P.cols - c));
}

@compute @workgroup_size(64)
fn dma_load(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let run = dma_run(thread_index(wg, groups, local));
    for (var j = 0u; j < run.z; j = j + 1u) {
        vmem[run.y + j] = hbm_read(run.x + j);
    }
}

@compute @workgroup_size(64)
fn dma_store(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let run = dma_run(thread_index(wg, groups, local));
    for (var j = 0u; j < run.z; j = j + 1u) {
        hbm_write(run.y + j, vmem[run.x + j]);
    }
}

@compute @workgroup_size(64)
fn dma_load_bf16(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let run = dma_run(thread_index(wg, groups, local));
    for (var j = 0u; j < run.z; j = j + 1u) {
        let h = run.x + j;
        vmem[run.y + j] = ((hbm_read(h >> 1u) >> ((h & 1u) * 16u)) & 0xFFFFu) << 16u;
    }
}

// The VMEM word behind bf16 element h of the HBM block, for row `r` (which ends at `end`,
// exclusive) or a neighbour row, or 0xFFFFFFFF when h is outside the block. Rows share a word
// only when they are contiguous (a gap of one element already separates their words), so a
// word is written by one invocation, or by two that compute the same value for it.
fn dma_store_bf16_source(h: u32, r: u32, start: u32) -> u32 {
    if h >= start && h < start + P.cols {
        return P.src_addr + r * P.src_stride + (h - start);
    }
    if P.dst_stride == P.cols && h < start && r > 0u {
        return P.src_addr + (r - 1u) * P.src_stride + (h + P.cols - start);
    }
    if P.dst_stride == P.cols && h >= start + P.cols && r + 1u < P.rows {
        return P.src_addr + (r + 1u) * P.src_stride + (h - start - P.cols);
    }
    return 0xFFFFFFFFu;
}

// Each invocation writes a run of up to DMA_RUN whole words of one row: both halves of each,
// a half outside the block kept as it was.
@compute @workgroup_size(64)
fn dma_store_bf16(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    let words = P.cols / 2u + 1u;
    let runs = (words + DMA_RUN - 1u) / DMA_RUN;
    if i >= P.rows * runs {
        return;
    }
    let r = i / runs;
    let start = P.dst_addr + r * P.dst_stride;
    let last = (start + P.cols - 1u) >> 1u;
    let first = (start >> 1u) + (i % runs) * DMA_RUN;
    for (var w = first; w <= last && w < first + DMA_RUN; w = w + 1u) {
        var word = hbm_read(w);
        for (var half = 0u; half < 2u; half = half + 1u) {
            let source = dma_store_bf16_source(2u * w + half, r, start);
            if source != 0xFFFFFFFFu {
                let shift = half * 16u;
                word = (word & ~(0xFFFFu << shift)) | ((vmem[source] >> 16u) << shift);
            }
        }
        hbm_write(w, word);
    }
}
