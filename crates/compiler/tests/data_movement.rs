//! Operations that move data as much as they compute: batched matmuls (`dot_general` with batch
//! dimensions, as `jnp.matmul` of stacks and `vmap` produce them), dot_generals whose axes need
//! transposing first, transposes of more than two axes, concatenations, slices and pads:
//! compiled, run on the CPU backend and compared with the reference evaluator bit for bit (K
//! fits one MXU tile, so the sums run in the same order).

mod common;

use common::{check, opts, trace};
use compiler::compile;
use jaxlite::numpy as jnp;
use jaxlite::{Array, Aval, Context, DType, DotDims, Precision, Primitive, Tensor};

#[test]
fn a_stack_of_matmuls_is_one_batched_kernel() {
    for precision in [Precision::Default, Precision::Highest] {
        let closed =
            trace(&[&[3, 5, 7], &[3, 7, 130]], async |ctx, a| jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap());
        assert!(closed.jaxpr.to_string().contains("dimension_numbers=(([2], [1]), ([0], [0]))"), "{}", closed.jaxpr);
        let asm = check(&closed, precision);
        assert!(asm.contains("0: loop i0 3"), "a loop over the batch:\n{asm}");
    }
}

#[test]
fn a_stack_times_a_matrix_and_a_matrix_times_a_stack() {
    let closed = trace(&[&[2, 4, 6], &[6, 9]], async |ctx, a| jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap());
    check(&closed, Precision::Default);
    // (M, stack, N) comes out of the dot_general and is transposed to (stack, M, N).
    let closed = trace(&[&[4, 6], &[2, 6, 9]], async |ctx, a| jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap());
    assert_eq!(closed.jaxpr.outvars.len(), 1);
    check(&closed, Precision::Default);
}

/// Attention's scores, `q @ k.T` per batch element: the transpose of k's last two axes is a
/// batched transpose on the cross-lane unit.
#[test]
fn attention_scores() {
    let closed = trace(&[&[2, 5, 8], &[2, 6, 8]], async |ctx, a| {
        let kt = jnp::transpose(ctx, &a[1], Some(&[0, 2, 1])).await.unwrap();
        jnp::matmul(ctx, &a[0], &kt, None).await.unwrap()
    });
    let asm = check(&closed, Precision::Default);
    assert!(asm.contains("xlu.transpose"), "{asm}");
}

/// A dot_general contracting the lhs's first axis with the rhs's last, batched over axes in
/// the middle: both operands are transposed into canonical order first.
#[test]
fn any_dimension_numbers() {
    let closed = trace(&[&[7, 3, 5], &[9, 3, 7]], async |ctx, a| {
        let dims =
            DotDims { lhs_contracting: vec![0], rhs_contracting: vec![2], lhs_batch: vec![1], rhs_batch: vec![1] };
        let prim = Primitive::DotGeneral { dims, precision: None, preferred_element_type: Some(DType::F32) };
        ctx.bind(prim, &a).await.unwrap().remove(0)
    });
    assert_eq!(closed.jaxpr.outvars.len(), 1);
    check(&closed, Precision::Default);
}

/// Transposes of more than two axes: swapping two middle axes moves rows of the last axis by
/// DMA; any permutation that merges into a matrix or a stack of matrices uses the XLU.
#[test]
fn transposes_of_more_axes() {
    for (shape, perm, unit) in [
        (vec![2, 3, 4, 5], vec![0, 2, 1, 3], "dma"),
        (vec![3, 4, 5], vec![1, 0, 2], "dma"),
        (vec![2, 3, 4, 5], vec![2, 3, 0, 1], "xlu"),
        (vec![2, 3, 4], vec![0, 2, 1], "xlu"),
        (vec![2, 3, 4], vec![2, 0, 1], "xlu"),
        (vec![1, 3, 1, 4], vec![3, 1, 2, 0], "xlu"),
        // Moving an axis of size 1 moves no data: the axes on either side of it stay together
        // (the jit fuzzer found the first, from a sum over the middle axis).
        (vec![3, 1, 2], vec![0, 2, 1], "dma"),
        (vec![2, 1, 3, 4], vec![0, 2, 1, 3], "dma"),
        (vec![2, 1, 3], vec![2, 1, 0], "xlu"),
    ] {
        let closed = trace(&[&shape], async |ctx, a| jnp::transpose(ctx, &a[0], Some(&perm)).await.unwrap());
        let asm = check(&closed, Precision::Default);
        assert_eq!(asm.contains("xlu.transpose"), unit == "xlu", "{shape:?} by {perm:?}:\n{asm}");
    }
}

/// Permutations the kernels do not take directly become a chain of transposes, each moving
/// one axis to the end.
#[test]
fn any_permutation_transposes() {
    for perm in [vec![3, 1, 0, 2], vec![2, 1, 0, 3], vec![2, 3, 1, 0], vec![1, 3, 0, 2]] {
        let closed = trace(&[&[2, 3, 4, 5]], async |ctx, a| jnp::transpose(ctx, &a[0], Some(&perm)).await.unwrap());
        check(&closed, Precision::Default);
    }
}

fn bind(prim: Primitive) -> impl AsyncFnOnce(&mut Context, Vec<Tensor>) -> Tensor {
    async move |ctx: &mut Context, a: Vec<Tensor>| ctx.bind(prim, &a).await.unwrap().remove(0)
}

#[test]
fn concatenations_along_every_axis() {
    for dimension in 0..3 {
        let mut b = vec![2, 3, 130];
        b[dimension] = 5;
        let closed = trace(&[&[2, 3, 130], &b, &[2, 3, 130]], bind(Primitive::Concatenate { dimension }));
        let asm = check(&closed, Precision::Default);
        assert!(!asm.contains("v."), "a concatenation only moves data:\n{asm}");
    }
}

#[test]
fn slices_with_steps() {
    for (shape, start, limit, strides) in [
        (vec![10, 300], vec![1, 5], vec![9, 260], None),
        (vec![10, 300], vec![0, 0], vec![10, 300], Some(vec![3, 1])),
        (vec![4, 6, 8], vec![1, 0, 2], vec![4, 6, 7], Some(vec![2, 5, 1])),
        (vec![7], vec![2], vec![3], None),
    ] {
        let prim = Primitive::Slice { start_indices: start, limit_indices: limit, strides };
        check(&trace(&[&shape], bind(prim)), Precision::Default);
    }
    // A step along the last axis: each element is a DMA row of one word (slow, but right).
    let prim = Primitive::Slice { start_indices: vec![0, 1], limit_indices: vec![4, 8], strides: Some(vec![1, 2]) };
    check(&trace(&[&[4, 8]], bind(prim)), Precision::Default);
}

/// `lax.pad` with a constant and with a computed value (kept to the bit, -0.0 included), with
/// interior and negative padding.
#[test]
fn pads() {
    let closed = trace(&[&[3, 140]], async |ctx, a| {
        let value = Tensor::from(Array::weak_scalar_f32(-0.0));
        let prim = Primitive::Pad { config: vec![(1, 2, 0), (0, 5, 0)] };
        ctx.bind(prim, &[a[0].clone(), value]).await.unwrap().remove(0)
    });
    check(&closed, Precision::Default);
    let closed = trace(&[&[2, 3, 4], &[]], async |ctx, a| {
        let prim = Primitive::Pad { config: vec![(0, 1, 0), (2, 0, 0), (1, 1, 0)] };
        ctx.bind(prim, &a).await.unwrap().remove(0)
    });
    check(&closed, Precision::Default);
    // Interior padding (a strided slice's gradient) and negative padding (a crop).
    for config in [vec![(1, 0, 2), (0, 3, 1)], vec![(-1, 2, 0), (3, -2, 1)], vec![(-3, -1, 1), (0, 0, 0)]] {
        let closed = trace(&[&[4, 6], &[]], async |ctx, a| {
            ctx.bind(Primitive::Pad { config: config.clone() }, &a).await.unwrap().remove(0)
        });
        check(&closed, Precision::Default);
    }
}

/// A matmul by a constant made inside the function (`jnp.ones` under `jit`): the broadcast is
/// written out by a loop kernel first.
#[test]
fn a_broadcast_matmul_operand_is_materialised() {
    let closed = trace(&[&[5, 7]], async |ctx, a| {
        let ones = jnp::broadcast_to(ctx, &Array::weak_scalar_f32(0.5).into(), &[7, 3]).await.unwrap();
        jnp::matmul(ctx, &a[0], &ones, None).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// A broadcast along a middle axis (as `jacfwd` makes) is written out by DMA before the kernel
/// that reads it, the repeated axis looping outermost.
#[test]
fn broadcasts_along_middle_axes() {
    let closed = trace(&[&[3, 130], &[3, 4, 130]], async |ctx, a| {
        let wide = jnp::reshape(ctx, &a[0], &[3, 1, 130]).await.unwrap();
        let wide = jnp::broadcast_to(ctx, &wide, &[3, 4, 130]).await.unwrap();
        jnp::binary(ctx, jaxlite::BinaryOp::Mul, &wide, &a[1]).await.unwrap()
    });
    check(&closed, Precision::Default);
    let closed = trace(&[&[2, 3, 130]], async |ctx, a| {
        let wide = jnp::reshape(ctx, &a[0], &[2, 1, 3, 130]).await.unwrap();
        let wide = jnp::broadcast_to(ctx, &wide, &[2, 5, 3, 130]).await.unwrap();
        jnp::unary(ctx, jaxlite::UnaryOp::Neg, &wide).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// An elementwise kernel over a long 1-D array walks it as rows of up to 1024 lanes (tiles of
/// 512 such rows): one row of 4M lanes, tiled by 8 rows, would not fit VMEM.
#[test]
fn long_vectors_are_cut_into_rows() {
    let closed = trace(&[&[1 << 22]], async |ctx, a| jnp::unary(ctx, jaxlite::UnaryOp::Sin, &a[0]).await.unwrap());
    let program = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap();
    assert!(program.to_string().contains("512x1024/1024"), "{program}");
    // 3456 = 9 · 384: not a multiple of 1024, cut into rows of 384.
    let closed = trace(&[&[3456]], async |ctx, a| jnp::unary(ctx, jaxlite::UnaryOp::Neg, &a[0]).await.unwrap());
    assert!(check(&closed, Precision::Default).contains("9x384/384"));
}

/// Reductions over any axes: a leading run becomes one leading axis, a trailing run one last
/// axis, and axes in the middle move to the end by a transpose first.
#[test]
fn reductions_over_any_axes() {
    for axes in [vec![1], vec![0], vec![0, 1], vec![1, 2], vec![0, 2], vec![1, 3], vec![0, 1, 2]] {
        let closed = trace(&[&[2, 3, 4, 130]], async |ctx, a| {
            let axes: Vec<i64> = axes.iter().map(|&d| d as i64).collect();
            jnp::reduce(ctx, &a[0], Some(&axes), jnp::Reduction::Max).await.unwrap()
        });
        check(&closed, Precision::Default);
    }
}

/// `dynamic_slice` and `dynamic_update_slice` with constant indices are a slice and a copy,
/// indices clamped into range as XLA does.
#[test]
fn dynamic_slices_with_constant_indices() {
    let index = |i: i32| Tensor::from(Array::from_f32(vec![], vec![i as f32]).astype(DType::I32));
    let closed = trace(&[&[6, 140]], async |ctx, a| {
        let prim = Primitive::DynamicSlice { slice_sizes: vec![2, 130] };
        ctx.bind(prim, &[a[0].clone(), index(5), index(3)]).await.unwrap().remove(0)
    });
    assert!(closed.jaxpr.to_string().contains("dynamic_slice"), "{}", closed.jaxpr);
    let asm = check(&closed, Precision::Default);
    assert!(!asm.contains("v.eq"), "a constant window is a copy, not a selection:\n{asm}");
    let closed = trace(&[&[6, 140], &[2, 3]], async |ctx, a| {
        ctx.bind(Primitive::DynamicUpdateSlice, &[a[0].clone(), a[1].clone(), index(1), index(-4)])
            .await
            .unwrap()
            .remove(0)
    });
    check(&closed, Precision::Default);
}

/// Windows at positions computed at run time (an index that is an argument) are DMAs at an
/// address the scalar unit computes from the indices: just the window moves, no position is
/// compared. In range, clamped (negative and past the end), in one or two axes, mixed with a
/// constant index, for float32, int32 and bool arrays: bit for bit what the reference
/// evaluator gives.
#[test]
fn dynamic_slices_at_computed_indices() {
    let int = |i: i32| Array::from_f32(vec![], vec![i as f32]).astype(DType::I32);
    let avals = |dtype: DType, shapes: &[&[usize]], indices: usize| {
        let mut avals: Vec<Aval> = shapes.iter().map(|s| Aval::new(s.to_vec(), dtype)).collect();
        avals.extend((0..indices).map(|_| Aval::new(vec![], DType::I32)));
        avals
    };
    let data = |dtype: DType, shape: &[usize], seed: u32| {
        Array::from_f32(shape.to_vec(), common::values(shape.iter().product(), seed)).astype(dtype)
    };
    for dtype in [DType::F32, DType::I32, DType::Bool] {
        for (i, j) in [(2, 5), (-3, 0), (9, 200), (0, 131)] {
            // Both indices computed.
            let closed = common::trace_avals(&avals(dtype, &[&[7, 140]], 2), async |ctx, a| {
                ctx.bind(Primitive::DynamicSlice { slice_sizes: vec![3, 9] }, &a).await.unwrap().remove(0)
            });
            let asm = common::check_with(&closed, Precision::Default, &[data(dtype, &[7, 140], 1), int(i), int(j)]);
            assert!(!asm.contains("v.eq"), "a window is moved, not selected:\n{asm}");
            assert!(asm.contains("dma.load    hbm[0+1*s4] 3x9/140"), "the window at a computed address:\n{asm}");
            // The row computed, the columns constant.
            let closed = common::trace_avals(&avals(dtype, &[&[7, 140]], 1), async |ctx, a| {
                let prim = Primitive::DynamicSlice { slice_sizes: vec![1, 130] };
                ctx.bind(prim, &[a[0].clone(), a[1].clone(), index_tensor(4)]).await.unwrap().remove(0)
            });
            common::check_with(&closed, Precision::Default, &[data(dtype, &[7, 140], 2), int(i)]);
            // An update at a computed position.
            let closed = common::trace_avals(&avals(dtype, &[&[7, 140], &[2, 9]], 2), async |ctx, a| {
                ctx.bind(Primitive::DynamicUpdateSlice, &a).await.unwrap().remove(0)
            });
            let inputs = [data(dtype, &[7, 140], 3), data(dtype, &[2, 9], 4), int(i), int(j)];
            common::check_with(&closed, Precision::Default, &inputs);
        }
    }
}

fn index_tensor(i: i32) -> Tensor {
    Tensor::from(Array::from_f32(vec![], vec![i as f32]).astype(DType::I32))
}

/// `jnp.sum` of a scalar reduces no axes: the value itself (the jit fuzzer found it refused).
#[test]
fn reducing_no_axes_is_the_value() {
    let closed = trace(&[&[1, 7]], async |ctx, a| {
        let total = jnp::reduce(ctx, &a[0], None, jnp::Reduction::Sum).await.unwrap();
        jnp::reduce(ctx, &total, None, jnp::Reduction::Sum).await.unwrap()
    });
    assert!(closed.jaxpr.to_string().contains("reduce_sum[axes=()"), "{}", closed.jaxpr);
    check(&closed, Precision::Default);
}

/// An epilogue that reads the matmul's own lhs (`a + a @ w`, w square): the lhs is loaded as
/// an epilogue input too (the jit fuzzer found the compiler panicking on it).
#[test]
fn an_epilogue_may_read_the_matmuls_operand() {
    let closed = trace(&[&[3, 64], &[64, 64]], async |ctx, a| {
        let y = jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap();
        jnp::binary(ctx, jaxlite::BinaryOp::Add, &a[0], &y).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// A program with an empty array is refused with a message, not compiled into kernels that
/// assume elements (a 0×0 matmul divided by zero: the script fuzzer's find).
#[test]
fn empty_arrays_are_an_error_not_a_panic() {
    let closed = trace(&[&[0, 0], &[0, 0]], async |ctx, a| jnp::matmul(ctx, &a[0], &a[1], None).await.unwrap());
    let e = compile("f", &closed.jaxpr, &opts(Precision::Default)).unwrap_err();
    assert!(e.to_string().contains("no elements (f32[0,0])"), "{e}");
}

/// VMEM liveness inside a kernel: a chain of 2,000 elementwise ops fuses into one loop whose
/// values reuse a few tile slots (each is dead once the next op has read it), so its tiles
/// are as large as a short chain's; with a slot per op it needed 8 MiB a row of tiles.
#[test]
fn a_long_elementwise_chain_reuses_its_tile_slots() {
    let chain = |ops: usize| {
        trace(&[&[64, 256]], async move |ctx, a| {
            let mut x = a[0].clone();
            for _ in 0..ops / 2 {
                x = jnp::binary(ctx, jaxlite::BinaryOp::Mul, &x, &Array::weak_scalar_f32(1.0001).into()).await.unwrap();
                x = jnp::binary(ctx, jaxlite::BinaryOp::Add, &x, &Array::weak_scalar_f32(0.5).into()).await.unwrap();
            }
            x
        })
    };
    let short = compile("f", &chain(2).jaxpr, &opts(Precision::Default)).unwrap();
    let long = chain(2000);
    check(&long, Precision::Default);
    let long = compile("f", &long.jaxpr, &opts(Precision::Default)).unwrap();
    assert_eq!(long.vmem_words, short.vmem_words, "the long chain's tiles take what the short one's do");
}

/// `rev` along any set of axes is a copy that reads its source backwards: a loop with a
/// negative address stride (rows one word each when the last axis turns), the rest forward.
#[test]
fn reversals_read_backwards() {
    for (shape, dims) in [
        (vec![7], vec![0]),
        (vec![5, 130], vec![0]),
        (vec![5, 130], vec![1]),
        (vec![3, 4, 6], vec![0, 2]),
        (vec![2, 1, 9], vec![1, 2]),
    ] {
        let closed = trace(&[&shape], async |ctx, a| {
            ctx.bind(Primitive::Rev { dimensions: dims.clone() }, &a).await.unwrap().remove(0)
        });
        let asm = check(&closed, Precision::Default);
        let backwards = asm.lines().any(|l| l.contains("dma.load") && l.contains("-1*i") || l.contains("-130*i"));
        assert!(backwards, "{shape:?} reversed along {dims:?} steps back:\n{asm}");
    }
}

/// `jnp.tile`'s reshape merges a broadcast axis with another, which no strides describe: the
/// broadcast is written out by a kernel of its own and the reshape reads that.
#[test]
fn a_reshape_of_a_broadcast_that_is_no_view() {
    let closed = trace(&[&[4, 3]], async |ctx, a| {
        let x = jnp::reshape(ctx, &a[0], &[1, 4, 1, 3]).await.unwrap();
        let x = jnp::broadcast_to(ctx, &x, &[2, 4, 2, 3]).await.unwrap();
        let x = jnp::reshape(ctx, &x, &[8, 6]).await.unwrap();
        jnp::unary(ctx, jaxlite::UnaryOp::Neg, &x).await.unwrap()
    });
    check(&closed, Precision::Default);
    let closed = trace(&[&[4, 3]], async |ctx, a| {
        let x = jnp::reshape(ctx, &a[0], &[4, 1, 3]).await.unwrap();
        let x = jnp::broadcast_to(ctx, &x, &[4, 5, 3]).await.unwrap();
        jnp::reshape(ctx, &x, &[20, 3]).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// An argmax over a size-1 axis of a max broadcast back (the data-movement property test
/// found the emitter indexing a view's strides past their rank).
#[test]
fn an_argmax_over_a_broadcast_max() {
    let closed = trace(&[&[1, 1, 2]], async |ctx, a| {
        let max = ctx.bind(Primitive::ReduceMax { axes: vec![0] }, &a).await.unwrap().remove(0);
        let prim = Primitive::BroadcastInDim { shape: vec![1, 1, 2], broadcast_dimensions: vec![1, 2] };
        let spread = ctx.bind(prim, &[max]).await.unwrap().remove(0);
        let prim = Primitive::ArgReduce { axis: 0, is_max: true, index_dtype: DType::I32 };
        let index = ctx.bind(prim, &[spread]).await.unwrap().remove(0);
        jnp::astype(ctx, &index, DType::F32).await.unwrap()
    });
    check(&closed, Precision::Default);
}

/// Windows too big for one trip through VMEM are moved in pieces: an update copying a
/// 300×400 operand (runs longer than a copy's share of VMEM), a 100×200 window of it (more
/// rows than fit at once, and a tail), and a column (a run of one word per row).
#[test]
fn large_windows_at_computed_indices_move_in_pieces() {
    let int = |i: i32| Array::from_f32(vec![], vec![i as f32]).astype(DType::I32);
    let data =
        |shape: &[usize], seed: u32| Array::from_f32(shape.to_vec(), common::values(shape.iter().product(), seed));
    let int_aval = Aval::new(vec![], DType::I32);
    for (i, j) in [(7, 3), (250, 390)] {
        let avals = [
            Aval::new(vec![2200, 1000], DType::F32),
            Aval::new(vec![100, 200], DType::F32),
            int_aval.clone(),
            int_aval.clone(),
        ];
        let closed = common::trace_avals(&avals, async |ctx, a| {
            ctx.bind(Primitive::DynamicUpdateSlice, &a).await.unwrap().remove(0)
        });
        let asm = common::check_with(
            &closed,
            Precision::Default,
            &[data(&[2200, 1000], 1), data(&[100, 200], 2), int(i), int(j)],
        );
        assert!(asm.contains("loop i0 2"), "the copy in 2 runs of 4 MiB and a tail:\n{asm}");
        for sizes in [vec![100, 200], vec![300, 1]] {
            let avals = [Aval::new(vec![300, 400], DType::F32), int_aval.clone(), int_aval.clone()];
            let closed = common::trace_avals(&avals, async |ctx, a| {
                ctx.bind(Primitive::DynamicSlice { slice_sizes: sizes.clone() }, &a).await.unwrap().remove(0)
            });
            let asm = common::check_with(&closed, Precision::Default, &[data(&[300, 400], 3), int(i), int(j)]);
            assert!(asm.contains("*s4]"), "{asm}");
        }
    }
}

/// A gather of rows (`x[i]` with an integer array `i`) at indices in range, negative and past
/// the end (clamped): by selections on a small operand, by a loop of row DMAs on a large one
/// (`transform::lower`'s `GATHER_BY_ROWS_WORDS`), bit for bit the reference's either way.
#[test]
fn gathers_of_rows_clamp_and_move_rows() {
    let indices = Array::from_f32(vec![5, 1], vec![2.0, -3.0, 0.0, 1000.0, 7.0]).astype(DType::I32);
    for (shape, by_rows) in [(vec![8, 3], false), (vec![64, 100], true), (vec![4096, 2, 3], true)] {
        let avals = [Aval::new(shape.clone(), DType::F32), Aval::new(vec![5, 1], DType::I32)];
        let closed =
            common::trace_avals(&avals, async |ctx, a| ctx.bind(Primitive::Gather, &a).await.unwrap().remove(0));
        let x = Array::from_f32(shape.clone(), common::values(shape.iter().product(), 4));
        let asm = common::check_with(&closed, Precision::Default, &[x, indices.clone()]);
        assert_eq!(asm.contains("while"), by_rows, "{shape:?}:\n{asm}");
    }
}
