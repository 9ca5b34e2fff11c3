// HBM in one binding (see `hbm_split.wgsl` for when it does not fit one).

@group(0) @binding(0) var<storage, read_write> hbm: array<u32>;

fn hbm_read(a: u32) -> u32 {
    return hbm[a];
}

fn hbm_write(a: u32, value: u32) {
    hbm[a] = value;
}
