// The vector unit: dst[i] = op(a[i], b[i]) for i < P.len, one invocation per lane.
// P.code is `VectorOp::code()`; operand kinds: 0 = VMEM vector at value, 1 = VMEM word at
// value broadcast, 2 = immediate with bits value. P.flags = 1 runs the lanes in order in one
// invocation: the host asks for that when dst overlaps an operand other than lane for lane,
// where the reference's sequential loop lets later lanes see earlier lanes' results.

fn operand(kind: u32, value: u32, i: u32) -> f32 {
    switch kind {
        case 0u: {
            return bitcast<f32>(vmem[value + i]);
        }
        case 1u: {
            return bitcast<f32>(vmem[value]);
        }
        default: {
            return bitcast<f32>(value);
        }
    }
}

fn lane(i: u32) {
    let a = operand(P.a_kind, P.a_value, i);
    var r: f32;
    switch P.code {
        case 0u: {
            let b = operand(P.b_kind, P.b_value, i);
            r = nan_first(a, b, a + b);
        }
        case 1u: {
            let b = operand(P.b_kind, P.b_value, i);
            r = nan_first(a, b, a - b);
        }
        case 2u: {
            let b = operand(P.b_kind, P.b_value, i);
            r = nan_first(a, b, a * b);
        }
        case 3u: {
            r = vpu_div(a, operand(P.b_kind, P.b_value, i));
        }
        case 4u: {
            r = vpu_max(a, operand(P.b_kind, P.b_value, i));
        }
        case 5u: {
            r = vpu_min(a, operand(P.b_kind, P.b_value, i));
        }
        case 6u: {
            r = neg(a);
        }
        case 7u: {
            r = abs_bits(a);
        }
        case 8u: {
            r = vpu_exp(a);
        }
        case 9u: {
            r = vpu_log(a);
        }
        default: {
            r = vpu_tanh(a);
        }
    }
    // neg and abs only touch the sign bit; arithmetic results have one NaN.
    if P.code == 6u || P.code == 7u {
        vmem[P.dst_addr + i] = bitcast<u32>(r);
    } else {
        vmem[P.dst_addr + i] = canonical(r);
    }
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
