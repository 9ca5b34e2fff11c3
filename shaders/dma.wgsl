// DmaLoad / DmaStore: a strided 2-D copy between HBM and VMEM, one invocation per word.
// P.code: 0 = HBM -> VMEM (load), 1 = VMEM -> HBM (store).

@compute @workgroup_size(64)
fn dma(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i >= P.rows * P.cols {
        return;
    }
    let r = i / P.cols;
    let c = i % P.cols;
    let s = P.src_addr + r * P.src_stride + c;
    let d = P.dst_addr + r * P.dst_stride + c;
    if P.code == 0u {
        vmem[d] = hbm[s];
    } else {
        hbm[d] = vmem[s];
    }
}
