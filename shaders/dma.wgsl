// DmaLoad (HBM -> VMEM) and DmaStore (VMEM -> HBM): a strided 2-D copy. Each invocation copies
// a run of up to DMA_RUN words of one row: an integer division per run rather than per word
// (software adapters divide lane by lane, and a division per word cost more than the copy).
// HBM is read and written through `hbm_read` and `hbm_write` (`hbm_whole.wgsl` or
// `hbm_split.wgsl`, written before this file). Load and store are entry points of their own,
// each a pipeline holding one direction's loop, as the reducers hold one bf16 part each.

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
