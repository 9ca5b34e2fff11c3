// The vector unit: dst[r][c] = op(a(r, c), b(r, c)) over a P.rows × P.cols block whose rows
// are P.dst_stride words apart, one invocation per element (P.len = rows × cols). Operand
// kinds (see `isa::Operand`): 0 = block at value with the destination's stride, 1 = VMEM word
// at value broadcast, 2 = immediate with bits value, 3 = row at value broadcast down the rows,
// 4 = column at value broadcast across.
// P.flags = 1 runs the elements in order in one invocation: the host asks for that when dst
// overlaps an operand other than element for element, where the reference's sequential loop
// lets later elements see earlier ones' results.

fn operand(kind: u32, value: u32, r: u32, c: u32) -> f32 {
    switch kind {
        case 0u: {
            return bitcast<f32>(vmem[value + r * P.dst_stride + c]);
        }
        case 1u: {
            return bitcast<f32>(vmem[value]);
        }
        case 3u: {
            return bitcast<f32>(vmem[value + c]);
        }
        case 4u: {
            return bitcast<f32>(vmem[value + r]);
        }
        default: {
            return bitcast<f32>(value);
        }
    }
}

// Comparisons (codes 11-16: eq, ne, lt, le, gt, ge) on the order key, as IEEE compares:
// NaN is unordered (only ne holds), -0 equals +0.
fn vpu_compare(code: u32, a: f32, b: f32) -> f32 {
    if is_nan(a) || is_nan(b) {
        return select(0.0, 1.0, code == 12u);
    }
    let ka = order_key(a);
    let kb = order_key(b);
    var holds: bool;
    switch code {
        case 11u: {
            holds = ka == kb;
        }
        case 12u: {
            holds = ka != kb;
        }
        case 13u: {
            holds = ka < kb;
        }
        case 14u: {
            holds = ka <= kb;
        }
        case 15u: {
            holds = ka > kb;
        }
        default: {
            holds = ka >= kb;
        }
    }
    return select(0.0, 1.0, holds);
}

// One element. `apply` is the operation: the GPU backend generates it for each vector opcode
// (see gpu::vector_module), so every pipeline holds only the maths its op needs.
fn lane(i: u32) {
    let r = i / P.cols;
    let c = i % P.cols;
    let d = P.dst_addr + r * P.dst_stride + c;
    vmem[d] = apply(operand(P.a_kind, P.a_value, r, c), operand(P.b_kind, P.b_value, r, c), d);
}

@compute @workgroup_size(64)
fn vector_op(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if P.flags != 0u {
        if i == 0u {
            for (var j = 0u; j < P.len; j = j + 1u) {
                lane(j);
            }
        }
        return;
    }
    if i < P.len {
        lane(i);
    }
}

// The cross-lane unit's row reduction (see `isa::Instr::Reduce`): dst[r] = op over c of
// src[r][c], in order of c from the identity, P.code = 0 sum, 1 max, 2 min. The identity goes
// through `opaque` so that no compiler folds `0 + x` into `x` (wrong for x = -0).
fn reduce_row(r: u32) {
    var acc: f32;
    switch P.code {
        case 0u: {
            acc = opaque(0.0);
        }
        case 1u: {
            // Through `f`, not a constant expression: Chromium's WGSL compiler rejects a
            // constant that evaluates to an infinity.
            acc = f(F32_INF | 0x80000000u);
        }
        default: {
            acc = f(F32_INF);
        }
    }
    let row = P.src_addr + r * P.src_stride;
    for (var c = 0u; c < P.cols; c = c + 1u) {
        let x = bitcast<f32>(vmem[row + c]);
        switch P.code {
            case 0u: {
                acc = add_f(acc, x);
            }
            case 1u: {
                acc = vpu_max(acc, x);
            }
            default: {
                acc = vpu_min(acc, x);
            }
        }
    }
    vmem[P.dst_addr + r] = canonical(acc);
}

@compute @workgroup_size(64)
fn xlu_reduce(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if P.flags != 0u {
        if i == 0u {
            for (var r = 0u; r < P.rows; r = r + 1u) {
                reduce_row(r);
            }
        }
        return;
    }
    if i < P.rows {
        reduce_row(i);
    }
}

// The cross-lane unit's transpose (see `isa::Instr::Transpose`): element (r, c) of the
// P.rows × P.cols source goes to (c, r) of the destination; the two never overlap.
@compute @workgroup_size(64)
fn xlu_transpose(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i < P.rows * P.cols {
        let r = i / P.cols;
        let c = i % P.cols;
        vmem[P.dst_addr + c * P.dst_stride + r] = vmem[P.src_addr + r * P.src_stride + c];
    }
}
