// HBM larger than one storage binding may be, split over four: word `a` is word
// `a % 2^HBM_PART_SHIFT` of part `a >> HBM_PART_SHIFT`. crates/gpu writes the constant
// HBM_PART_SHIFT before this file.

@group(0) @binding(0) var<storage, read_write> hbm: array<u32>;
@group(0) @binding(6) var<storage, read_write> hbm1: array<u32>;
@group(0) @binding(7) var<storage, read_write> hbm2: array<u32>;
@group(0) @binding(8) var<storage, read_write> hbm3: array<u32>;

const HBM_PART_MASK: u32 = (1u << HBM_PART_SHIFT) - 1u;

fn hbm_read(a: u32) -> u32 {
    let i = a & HBM_PART_MASK;
    switch a >> HBM_PART_SHIFT {
        case 0u: {
            return hbm[i];
        }
        case 1u: {
            return hbm1[i];
        }
        case 2u: {
            return hbm2[i];
        }
        default: {
            return hbm3[i];
        }
    }
}

fn hbm_write(a: u32, value: u32) {
    let i = a & HBM_PART_MASK;
    switch a >> HBM_PART_SHIFT {
        case 0u: {
            hbm[i] = value;
        }
        case 1u: {
            hbm1[i] = value;
        }
        case 2u: {
            hbm2[i] = value;
        }
        default: {
            hbm3[i] = value;
        }
    }
}
