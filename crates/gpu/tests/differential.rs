//! The GPU backend against the CPU reference, bit for bit, instruction kind by instruction
//! kind, on random programs and on edge values. Runs on whatever adapter `GpuBackend::new`
//! finds (lavapipe on a machine without a GPU) and fails if there is none.

mod common;

use common::edge::edge_values;
use common::*;
use emu::Backend;
use isa::{Block, Buffer, ElemType, Instr, Operand, Part, VectorOp};

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|x| x.to_bits()).collect()
}

/// `dst = op(a, b)` over `len` lanes of VMEM, operands loaded from HBM; checks both backends
/// agree. `a_mode`/`b_mode`: 0 = vector, 1 = splat of the operand's word 0, 2 = immediate.
fn check_vector(name: &str, op: VectorOp, a: &[f32], b: &[f32], b_mode: u32) {
    let len = a.len() as u32;
    assert_eq!(a.len(), b.len());
    let (va, vb, vd) = (0, len, 2 * len);
    let b_operand = match b_mode {
        0 => Operand::Vmem(vb),
        1 => Operand::Splat(vb + 1),
        _ => Operand::Imm(b[0]),
    };
    let p = program(
        name,
        3 * len,
        3 * len,
        vec![buffer("a", 0, &[len as usize]), buffer("b", len, &[len as usize])],
        vec![buffer("out", 2 * len, &[len as usize])],
        vec![
            load(0, va, 2 * len),
            Instr::Vector { op, dst: Block::flat(vd, len), a: Operand::Vmem(va), b: b_operand },
            store(vd, 2 * len, len),
        ],
    );
    let b_at = |i: usize| match b_mode {
        0 => b[i],
        1 => b[1],
        _ => b[0],
    };
    assert_same_bits(&p, &[bits(a), bits(b)], &|_, i| {
        format!("{}({:e} [{:#010x}], {:e} [{:#010x}])", op.name(), a[i], a[i].to_bits(), b_at(i), b_at(i).to_bits())
    });
}

#[test]
fn vector_ops_on_edge_values() {
    let edges = edge_values();
    // Every pair of edge values, for binary ops; each value once per lane for unary ones.
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &edges {
        for &y in &edges {
            a.push(x);
            b.push(y);
        }
    }
    for op in VectorOp::ALL {
        check_vector(&format!("edges.{}", op.name()), op, &a, &b, 0);
    }
}

#[test]
fn vector_ops_on_random_values() {
    let mut rng = Rng::new(1);
    for op in VectorOp::ALL {
        let len = 4096 + rng.range(0, 100) as usize;
        let mut a = Vec::with_capacity(len);
        let mut b = Vec::with_capacity(len);
        for i in 0..len {
            let x = match (op, i % 4) {
                // Mostly the range where the function does something, plus raw bit patterns.
                (VectorOp::Exp, 0 | 1) => rng.f32_in(-110.0, 90.0),
                (VectorOp::Tanh, 0 | 1) => rng.f32_in(-10.0, 10.0),
                (VectorOp::Log, 0 | 1) => rng.moderate().abs(),
                (_, 3) => f32::from_bits(rng.u32()),
                _ => rng.moderate(),
            };
            a.push(x);
            b.push(if i % 5 == 4 { f32::from_bits(rng.u32()) } else { rng.moderate() });
        }
        check_vector(&format!("random.{}", op.name()), op, &a, &b, 0);
        check_vector(&format!("random.{}.splat", op.name()), op, &a, &b, 1);
        check_vector(&format!("random.{}.imm", op.name()), op, &a, &b, 2);
    }
}

#[test]
fn vector_integer_ops_on_integers() {
    // Words holding int32 values as the integer ops meet them: small and near ±2^24 (exact),
    // beyond (already rounded), the extremes, and shift amounts in and out of 0..32; results
    // past 2^24 exercise the rounding to float32.
    let mut rng = Rng::new(5);
    let int = |rng: &mut Rng| -> f32 {
        match rng.range(0, 5) {
            0 => rng.range(0, 64) as f32 - 32.0,
            1 => (rng.u32() as i32 >> 7) as f32,
            2 => (rng.u32() as i32) as f32,
            3 => {
                [16_777_215.0, 16_777_216.0, -16_777_217.0, 2_147_483_520.0, -2_147_483_648.0][rng.range(0, 4) as usize]
            }
            _ => (rng.u32() as i32 >> 20) as f32,
        }
    };
    let len = 4096;
    let a: Vec<f32> = (0..len).map(|_| int(&mut rng)).collect();
    let values: Vec<f32> = (0..len).map(|_| int(&mut rng)).collect();
    let shifts: Vec<f32> = (0..len).map(|_| rng.range(0, 40) as f32 - 4.0).collect();
    for op in VectorOp::ALL.into_iter().filter(|op| op.is_integer()) {
        let b = if matches!(op, VectorOp::ShiftLeft | VectorOp::ShiftRight) { &shifts } else { &values };
        check_vector(&format!("ints.{}", op.name()), op, &a, b, 0);
    }
}

#[test]
fn vector_uint32_ops_keep_every_bit() {
    // Words of uint32 bits, many of them NaN or subnormal patterns as floats (which a float
    // path would quiet or flush), shift amounts in and out of 0..32, and the int32 words
    // `to_u32` reads (negative ones wrap to the high half).
    let mut rng = Rng::new(9);
    let len = 4096;
    let word = |rng: &mut Rng| -> f32 {
        f32::from_bits(match rng.range(0, 4) {
            0 => rng.u32() | 0x7f80_0000,
            1 => rng.u32() & 0x807f_ffff,
            _ => rng.u32(),
        })
    };
    let a: Vec<f32> = (0..len).map(|_| word(&mut rng)).collect();
    let b: Vec<f32> = (0..len).map(|_| word(&mut rng)).collect();
    let shifts: Vec<f32> = (0..len).map(|_| f32::from_bits(rng.range(0, 40))).collect();
    let ints: Vec<f32> = (0..len).map(|_| (rng.u32() as i32 >> rng.range(0, 31)) as f32).collect();
    for op in VectorOp::ALL.into_iter().filter(|op| op.is_u32()) {
        let (a, b) = match op {
            VectorOp::ShlU32 | VectorOp::ShrU32 => (&a, &shifts),
            VectorOp::IntToU32 => (&ints, &b),
            _ => (&a, &b),
        };
        check_vector(&format!("u32.{}", op.name()), op, a, b, 0);
    }
    check_vector("u32.splat", VectorOp::XorU32, &a, &b, 1);
    check_vector("u32.imm", VectorOp::ShrU32, &a, &[f32::from_bits(9); 4096], 2);
}

#[test]
fn vector_functions_densely_over_their_ranges() {
    // Many lanes of the transcendental functions, where the integer fma does its work.
    for (op, lo, hi) in [
        (VectorOp::Exp, -104.0f32, 89.0f32),
        (VectorOp::Tanh, -9.2, 9.2),
        (VectorOp::Log, 0.0, 1e6),
        (VectorOp::Div, -1e6, 1e6),
        (VectorOp::Sqrt, 0.0, 1e6),
        (VectorOp::Sin, -200.0, 200.0),
        (VectorOp::Cos, -200.0, 200.0),
        (VectorOp::Expm1, -18.0, 89.0),
        (VectorOp::Log1p, -1.0, 1e4),
        (VectorOp::Erf, -5.0, 5.0),
    ] {
        let n = 40_000;
        let a: Vec<f32> = (0..n).map(|i| lo + (hi - lo) * (i as f32 / n as f32)).collect();
        let b: Vec<f32> = (0..n).map(|i| 0.37 + (i % 1013) as f32 * 0.731).collect();
        check_vector(&format!("dense.{}", op.name()), op, &a, &b, 0);
    }
}

#[test]
fn vector_subnormal_arithmetic() {
    // Subnormal inputs and results of add/sub/mul/div, which a flushing device would zero.
    let mut rng = Rng::new(7);
    let n = 2000;
    let a: Vec<f32> = (0..n).map(|_| f32::from_bits(rng.u32() & 0x80ff_ffff)).collect();
    let b: Vec<f32> = (0..n)
        .map(|i| if i % 2 == 0 { f32::from_bits(rng.u32() & 0x80ff_ffff) } else { rng.f32_in(-2.0, 2.0) })
        .collect();
    for op in VectorOp::ALL {
        check_vector(&format!("subnormal.{}", op.name()), op, &a, &b, 0);
    }
}

#[test]
fn vector_sub_of_an_operand_with_itself() {
    // inf - inf is NaN; an optimiser that folds x - x to 0 would get it wrong.
    let a = bits(&[f32::INFINITY, f32::NAN, 1.0, -0.0]);
    let p = program(
        "self_sub",
        4,
        8,
        vec![buffer("a", 0, &[4])],
        vec![buffer("a", 0, &[4])],
        vec![
            load(0, 0, 4),
            Instr::Vector { op: VectorOp::Sub, dst: Block::flat(4, 4), a: Operand::Vmem(0), b: Operand::Vmem(0) },
            Instr::Vector { op: VectorOp::Mul, dst: Block::flat(0, 4), a: Operand::Vmem(4), b: Operand::Imm(0.0) },
            store(0, 0, 4),
        ],
    );
    assert_same_bits(&p, &[a], &|_, i| format!("lane {i}"));
}

#[test]
fn vector_lanes_that_read_earlier_lanes_results() {
    // dst overlapping an operand at another offset, and a splat that a lane overwrites: the
    // reference's in-order loop defines the result.
    let n = 300u32;
    let mut rng = Rng::new(3);
    let data: Vec<u32> = (0..n).map(|_| rng.moderate().to_bits()).collect();
    let p = program(
        "aliasing",
        n,
        2 * n,
        vec![buffer("x", 0, &[n as usize])],
        vec![buffer("x", 0, &[n as usize])],
        vec![
            load(0, 0, n),
            // x[i + 1] = x[i] * 1.5: a running product.
            Instr::Vector { op: VectorOp::Mul, dst: Block::flat(1, n - 1), a: Operand::Vmem(0), b: Operand::Imm(1.5) },
            // x[i] = x[i + 1] + x[i]... reading ahead of the writes.
            Instr::Vector { op: VectorOp::Add, dst: Block::flat(0, n - 2), a: Operand::Vmem(2), b: Operand::Vmem(0) },
            // x[i] = x[i] - x[5] for i in 0..100, x[5] overwritten at lane 5.
            Instr::Vector { op: VectorOp::Sub, dst: Block::flat(0, 100), a: Operand::Vmem(0), b: Operand::Splat(5) },
            store(0, 0, n),
        ],
    );
    assert_same_bits(&p, &[data], &|_, i| format!("word {i}"));
}

#[test]
fn vector_over_more_lanes_than_one_grid_dimension_holds() {
    // 65535 workgroups of 64 lanes is 4,194,240: one more lane needs the 2-D grid.
    let len = 65_535 * 64 + 1000;
    let mut rng = Rng::new(11);
    let a: Vec<f32> = (0..len).map(|_| rng.moderate()).collect();
    check_vector("grid2d.add", VectorOp::Add, &a, &a.iter().map(|x| x * 0.5).collect::<Vec<_>>(), 0);
}

/// 2-D blocks with padded strides, and every operand kind: a block, a row broadcast down the
/// rows, a column broadcast across, a splat and an immediate.
#[test]
fn vector_blocks_with_row_and_column_operands() {
    let mut rng = Rng::new(7);
    let (rows, cols, stride) = (13u32, 37u32, 40u32);
    let words = rows * stride;
    let values: Vec<f32> = (0..words + 64).map(|_| rng.moderate()).collect();
    let (row, col) = (words, words + 40);
    for (op, b) in [
        (VectorOp::Add, Operand::Row(row)),
        (VectorOp::Mul, Operand::Col(col)),
        (VectorOp::Max, Operand::Splat(col + 3)),
        (VectorOp::Div, Operand::Vmem(0)),
        (VectorOp::Sub, Operand::Imm(0.25)),
        (VectorOp::Tanh, Operand::Imm(0.0)),
    ] {
        let dst = Block { addr: words + 64, rows, cols, stride };
        let p = program(
            &format!("block.{}.{}", op.name(), b.kind()),
            2 * words + 64,
            2 * words + 64,
            vec![buffer("x", 0, &[(words + 64) as usize])],
            vec![buffer("out", words + 64, &[words as usize])],
            vec![
                load(0, 0, words + 64),
                Instr::Vector { op, dst, a: Operand::Vmem(0), b },
                store(words + 64, words + 64, words),
            ],
        );
        assert_same_bits(&p, &[bits(&values)], &|_, i| format!("element {i}"));
    }
}

/// Cross-lane reductions of every kind over a padded block, on random and edge values (NaN,
/// infinities, -0, subnormals), into a separate column and in place over the block itself.
#[test]
fn cross_lane_reductions() {
    let mut rng = Rng::new(11);
    let edges = edge_values();
    let (rows, cols, stride) = (21u32, 130u32, 136u32);
    let words = rows * stride;
    let values: Vec<f32> =
        (0..words).map(|i| if i % 7 == 0 { edges[(i as usize / 7) % edges.len()] } else { rng.moderate() }).collect();
    for op in isa::ReduceOp::ALL {
        for dst in [words, 5] {
            let src = Block { addr: 0, rows, cols, stride };
            let p = program(
                &format!("reduce.{}.{dst}", op.name()),
                words + rows,
                words + rows,
                vec![buffer("x", 0, &[words as usize])],
                vec![buffer("out", words, &[rows as usize])],
                vec![load(0, 0, words), Instr::Reduce { op, src, dst }, store(dst, words, rows)],
            );
            assert_same_bits(&p, &[bits(&values)], &|_, i| format!("row {i}"));
        }
    }
}

/// Transposes of padded, odd-sized blocks move every bit (NaN payloads included).
#[test]
fn cross_lane_transposes() {
    let mut rng = Rng::new(13);
    for (rows, cols) in [(1u32, 1u32), (3, 130), (129, 7), (64, 64)] {
        let (src_stride, dst_stride) = (cols + 3, rows + 5);
        let words = rows * src_stride;
        let out = cols * dst_stride;
        let values: Vec<u32> = (0..words).map(|_| rng.u32()).collect();
        let p = program(
            &format!("transpose.{rows}x{cols}"),
            words + out,
            words + out,
            vec![buffer("x", 0, &[words as usize])],
            vec![buffer("out", words, &[out as usize])],
            vec![
                load(0, 0, words),
                Instr::Transpose {
                    src: Block { addr: 0, rows, cols, stride: src_stride },
                    dst: Block { addr: words, rows: cols, cols: rows, stride: dst_stride },
                },
                store(words, words, out),
            ],
        );
        assert_same_bits(&p, std::slice::from_ref(&values), &|_, i| format!("word {i}"));
    }
}

#[test]
fn dma_with_strides() {
    let mut rng = Rng::new(5);
    for case in 0..20 {
        let rows = rng.range(1, 40);
        let cols = rng.range(1, 70);
        let hbm_stride = cols + rng.range(0, 9);
        let vmem_stride = cols + rng.range(0, 9);
        let out_stride = cols + rng.range(0, 5);
        let in_words = (rows - 1) * hbm_stride + cols;
        let out_words = (rows - 1) * out_stride + cols;
        let vmem_addr = rng.range(0, 17);
        let out_addr = in_words + rng.range(0, 3);
        let hbm_words = out_addr + out_words;
        let data: Vec<u32> = (0..in_words).map(|_| rng.u32()).collect();
        let p = program(
            &format!("dma{case}"),
            hbm_words,
            vmem_addr + (rows - 1) * vmem_stride + cols,
            vec![buffer("in", 0, &[in_words as usize])],
            vec![buffer("out", out_addr, &[out_words as usize])],
            vec![
                Instr::DmaLoad {
                    src: Block { addr: 0, rows, cols, stride: hbm_stride },
                    dst: Block { addr: vmem_addr, rows, cols, stride: vmem_stride },
                    sem: 1,
                    elem: isa::ElemType::F32,
                },
                Instr::Wait { sem: 1, count: 1 },
                Instr::DmaStore {
                    src: Block { addr: vmem_addr, rows, cols, stride: vmem_stride },
                    dst: Block { addr: out_addr, rows, cols, stride: out_stride },
                    sem: 2,
                    elem: isa::ElemType::F32,
                },
            ],
        );
        assert_same_bits(&p, &[data], &|_, i| format!("word {i}"));
    }
}

/// Packed bf16 DMAs: blocks at odd elements, of odd widths, and rows that share a word
/// (contiguous rows of an odd width, which two invocations of the GPU's store write), in and
/// out of HBM, checked against what they must move as well as between the backends.
#[test]
fn packed_bf16_dma_with_strides() {
    let mut rng = Rng::new(11);
    for case in 0..40 {
        let rows = rng.range(1, 12);
        let cols = rng.range(1, 70);
        // Half the cases store contiguous rows, so that neighbouring rows share words.
        let out_stride = if case % 2 == 0 { cols } else { cols + rng.range(1, 4) };
        let hbm_stride = cols + rng.range(0, 4);
        let (src_at, dst_at) = (rng.range(0, 3), rng.range(0, 3));
        let in_elems = src_at + (rows - 1) * hbm_stride + cols;
        let out_elems = dst_at + (rows - 1) * out_stride + cols + rng.range(0, 2);
        let out_addr = 2 * in_elems.div_ceil(2);
        let hbm_words = (out_addr + out_elems).div_ceil(2);
        let vmem_stride = cols + rng.range(0, 5);
        let bf16 = |name: &str, addr: u32, n: u32| Buffer { elem: ElemType::Bf16, ..buffer(name, addr, &[n as usize]) };
        let data: Vec<u32> = (0..in_elems).map(|_| rng.u32() & 0xFFFF_0000).collect();
        let p = program(
            &format!("bf16_dma{case}"),
            hbm_words,
            (rows - 1) * vmem_stride + cols,
            vec![bf16("in", 0, in_elems)],
            vec![bf16("out", out_addr, out_elems)],
            vec![
                Instr::DmaLoad {
                    src: Block { addr: src_at, rows, cols, stride: hbm_stride },
                    dst: Block { addr: 0, rows, cols, stride: vmem_stride },
                    sem: 1,
                    elem: ElemType::Bf16,
                },
                Instr::Wait { sem: 1, count: 1 },
                Instr::DmaStore {
                    src: Block { addr: 0, rows, cols, stride: vmem_stride },
                    dst: Block { addr: out_addr + dst_at, rows, cols, stride: out_stride },
                    sem: 2,
                    elem: ElemType::Bf16,
                },
            ],
        );
        let mut want = vec![0u32; out_elems as usize];
        for r in 0..rows {
            for c in 0..cols {
                want[(dst_at + r * out_stride + c) as usize] = data[(src_at + r * hbm_stride + c) as usize];
            }
        }
        let got = emu::CpuBackend.run_sync(&p, std::slice::from_ref(&data)).expect("runs");
        assert_eq!(got[0], want, "case {case}: {rows}x{cols}, strides {hbm_stride}/{out_stride}");
        assert_same_bits(&p, &[data], &|_, i| format!("element {i}"));
    }
}

/// One MXU program: load activations (M×K), weights (K×N) and an initial result (M×N) with
/// padded VMEM strides, then for each part: weights, matmul (set, then accumulate).
fn check_matmul(name: &str, (m, k, n): (u32, u32, u32), act: &[f32], w: &[f32], init: &[f32], edges: Edges) {
    let (a_stride, w_stride, d_stride) = (k + 3, n + 1, n + 2);
    let (va, vw, vd) = (0, m * a_stride, m * a_stride + k * w_stride);
    let vd2 = vd + m * d_stride;
    let vmem_words = vd2 + m * d_stride;
    let (ha, hw, hd) = (0, m * k, m * k + k * n);
    let hbm_words = hd + 4 * m * n;
    let block = |addr, rows, cols, stride| Block { addr, rows, cols, stride };
    let mut instrs = vec![
        Instr::DmaLoad { src: block(ha, m, k, k), dst: block(va, m, k, a_stride), sem: 0, elem: isa::ElemType::F32 },
        Instr::DmaLoad { src: block(hw, k, n, n), dst: block(vw, k, n, w_stride), sem: 0, elem: isa::ElemType::F32 },
        Instr::DmaLoad { src: block(hd, m, n, n), dst: block(vd2, m, n, d_stride), sem: 0, elem: isa::ElemType::F32 },
    ];
    // Each part's weights go to their own MXU first, so the matmuls below also check that
    // the MXUs keep separate weight registers.
    for part in Part::ALL {
        instrs.push(Instr::MxuWeights { src: block(vw, k, n, w_stride), part, mxu: part.index() as u8 });
    }
    for part in Part::ALL {
        let mxu = part.index() as u8;
        instrs.push(Instr::MxuMatmul {
            src: block(va, m, k, a_stride),
            dst: block(vd, m, n, d_stride),
            part,
            accumulate: false,
            mxu,
        });
        // Accumulate into the preloaded result, as HIGHEST precision sums its passes.
        instrs.push(Instr::MxuMatmul {
            src: block(va, m, k, a_stride),
            dst: block(vd2, m, n, d_stride),
            part,
            accumulate: true,
            mxu,
        });
        let out = hd + (1 + part.index() as u32) * m * n;
        instrs.push(Instr::DmaStore {
            src: block(vd, m, n, d_stride),
            dst: block(out, m, n, n),
            sem: 0,
            elem: isa::ElemType::F32,
        });
    }
    instrs.push(Instr::DmaStore {
        src: block(vd2, m, n, d_stride),
        dst: block(hd, m, n, n),
        sem: 0,
        elem: isa::ElemType::F32,
    });
    let mn = (m * n) as usize;
    let p = program(
        name,
        hbm_words,
        vmem_words,
        vec![
            buffer("act", ha, &[m as usize, k as usize]),
            buffer("w", hw, &[k as usize, n as usize]),
            buffer("init", hd, &[mn]),
        ],
        vec![
            buffer("hi", hd + m * n, &[mn]),
            buffer("mid", hd + 2 * m * n, &[mn]),
            buffer("lo", hd + 3 * m * n, &[mn]),
            buffer("acc", hd, &[mn]),
        ],
        instrs,
    );
    let inputs = [bits(act), bits(w), bits(init)];
    let describe = |o, i| format!("{} output {o}, m={} n={}", name, i / n as usize, i % n as usize);
    assert_same_bits_every_matmul_plan(&p, &inputs, &describe);
    if edges == Edges::Included {
        assert_same_bits_with_strict_products(&p, &inputs, &describe);
    }
}

/// Whether a matmul's values include products that under- or overflow, where a compiler that
/// fuses multiplies into adds could change a sum: those also run with strict products.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edges {
    Included,
    None,
}

#[test]
fn matmul_random_shapes_all_parts() {
    let mut rng = Rng::new(42);
    let mut shapes = vec![(1, 1, 1), (300, 128, 128), (7, 128, 1), (1, 1, 128), (300, 3, 77), (64, 64, 64)];
    for _ in 0..6 {
        shapes.push((rng.range(1, 300), rng.range(1, 128), rng.range(1, 128)));
    }
    for (m, k, n) in shapes {
        let act: Vec<f32> = (0..m * k).map(|_| rng.f32_in(-2.0, 2.0)).collect();
        let w: Vec<f32> = (0..k * n).map(|_| rng.moderate()).collect();
        let init: Vec<f32> = (0..m * n).map(|_| rng.f32_in(-1.0, 1.0)).collect();
        check_matmul(&format!("matmul{m}x{k}x{n}"), (m, k, n), &act, &w, &init, Edges::None);
    }
}

#[test]
fn matmul_on_edge_values() {
    // Infinities, NaNs, subnormals, bf16 ties, and products that under- or overflow (where a
    // fused multiply-add would round differently).
    let edges = edge_values();
    let mut rng = Rng::new(9);
    let (m, k, n) = (40u32, 24u32, 33u32);
    let pick = |rng: &mut Rng| {
        if rng.range(0, 3) == 0 {
            edges[rng.range(0, edges.len() as u32 - 1) as usize]
        } else {
            f32::from_bits(rng.u32())
        }
    };
    let act: Vec<f32> = (0..m * k).map(|_| pick(&mut rng)).collect();
    let w: Vec<f32> = (0..k * n).map(|_| pick(&mut rng)).collect();
    let init: Vec<f32> = (0..m * n).map(|_| pick(&mut rng)).collect();
    check_matmul("matmul.edges", (m, k, n), &act, &w, &init, Edges::Included);
    // Every product of two edge values, each summed with itself (row r of the activations is
    // edge value r, column c of the weights edge value c), added to edge values.
    let e = edges.len();
    let act: Vec<f32> = (0..e * e).map(|i| edges[i / e]).collect();
    let w: Vec<f32> = (0..e * e).map(|i| edges[i % e]).collect();
    check_matmul("matmul.edge_pairs", (e as u32, e as u32, e as u32), &act, &w, &w, Edges::Included);
    // Finite but extreme: tiny and huge magnitudes only, so sums stay informative.
    let extreme = |rng: &mut Rng| {
        let e = if rng.range(0, 1) == 0 { rng.range(1, 20) } else { rng.range(230, 254) };
        f32::from_bits((rng.u32() & 0x807f_ffff) | e << 23)
    };
    let act: Vec<f32> = (0..m * k).map(|_| extreme(&mut rng)).collect();
    let w: Vec<f32> = (0..k * n).map(|_| extreme(&mut rng)).collect();
    let init = vec![0.0; (m * n) as usize];
    check_matmul("matmul.extreme", (m, k, n), &act, &w, &init, Edges::Included);
    // Products around the overflow threshold, of both signs: a product that overflows then
    // meets a partial sum that a fused multiply-add would bring back into range.
    let near_overflow = |rng: &mut Rng| {
        let m = [1.0, 1.5, 1.75][rng.range(0, 2) as usize];
        let sign = if rng.range(0, 1) == 0 { -1.0 } else { 1.0 };
        sign * m * 2f32.powi(rng.range(62, 65) as i32)
    };
    let act: Vec<f32> = (0..m * k).map(|_| near_overflow(&mut rng)).collect();
    let w: Vec<f32> = (0..k * n).map(|_| near_overflow(&mut rng)).collect();
    check_matmul("matmul.near_overflow", (m, k, n), &act, &w, &init, Edges::Included);
    // At the bound: exponent fields 191 and 190, the least sum with a product that can
    // overflow (1.75·2^64 · 1.75·2^63 does), after a finite -1.875·2^127 (fused: finite).
    let big = 2f32.powi(64);
    check_matmul(
        "matmul.overflow_at_the_bound",
        (1, 2, 1),
        &[-1.5 * big, 1.75 * big],
        &[0.625 * big, 0.875 * big],
        &[0.0],
        Edges::Included,
    );
    // And below: exponent fields 70 and 71, the greatest sum with a product that can have a
    // bit below 2^-126 (odd significands: (1 + 2^-7)^2 · 2^-113 has its last at 2^-127).
    let odd = 1.0 + 2f32.powi(-7);
    check_matmul(
        "matmul.low_bit_at_the_bound",
        (1, 1, 1),
        &[odd * 2f32.powi(-57)],
        &[odd * 2f32.powi(-56)],
        &[0.0],
        Edges::Included,
    );
}

#[test]
fn matmul_whose_result_overwrites_its_activations() {
    // dst overlaps src: row m's result lands where a later row's activations are read.
    let (m, k) = (20u32, 8u32);
    let mut rng = Rng::new(13);
    let act: Vec<u32> = (0..m * k).map(|_| rng.f32_in(-1.0, 1.0).to_bits()).collect();
    let w: Vec<u32> = (0..k * k).map(|_| rng.f32_in(-1.0, 1.0).to_bits()).collect();
    let p = program(
        "matmul.inplace",
        m * k + k * k,
        m * k + k * k,
        vec![buffer("act", 0, &[(m * k) as usize]), buffer("w", m * k, &[(k * k) as usize])],
        vec![buffer("act", 0, &[(m * k) as usize])],
        vec![
            load(0, 0, m * k + k * k),
            Instr::MxuWeights { src: Block { addr: m * k, rows: k, cols: k, stride: k }, part: Part::Hi, mxu: 0 },
            Instr::MxuMatmul {
                src: Block { addr: 0, rows: m - 1, cols: k, stride: k },
                dst: Block { addr: k, rows: m - 1, cols: k, stride: k },
                part: Part::Hi,
                accumulate: true,
                mxu: 0,
            },
            store(0, 0, m * k),
        ],
    );
    assert_same_bits_every_matmul_plan(&p, &[act, w], &|_, i| format!("word {i}"));
}

#[test]
fn matmuls_over_the_same_activations_see_writes_between_them() {
    // The GPU reduces a matmul's activations to their bf16 part once for consecutive matmuls
    // over the same block; a vector op that rewrites the block in between must be seen.
    let (m, k, n) = (9u32, 6u32, 5u32);
    let mut rng = Rng::new(21);
    let act: Vec<u32> = (0..m * k).map(|_| rng.f32_in(-1.0, 1.0).to_bits()).collect();
    let w: Vec<u32> = (0..k * n).map(|_| rng.f32_in(-1.0, 1.0).to_bits()).collect();
    let (va, vw, vd) = (0, m * k, m * k + k * n);
    let src = Block { addr: va, rows: m, cols: k, stride: k };
    let dst = |i: u32| Block { addr: vd + i * m * n, rows: m, cols: n, stride: n };
    let matmul = |i: u32, mxu: u8| Instr::MxuMatmul { src, dst: dst(i), part: Part::Hi, accumulate: false, mxu };
    let weights = Block { addr: vw, rows: k, cols: n, stride: n };
    let p = program(
        "matmul.reuse",
        m * k + k * n + 3 * m * n,
        m * k + k * n + 3 * m * n,
        vec![buffer("act", 0, &[(m * k) as usize]), buffer("w", m * k, &[(k * n) as usize])],
        vec![buffer("out", m * k + k * n, &[3 * (m * n) as usize])],
        vec![
            load(0, 0, m * k + k * n),
            Instr::MxuWeights { src: weights, part: Part::Hi, mxu: 0 },
            Instr::MxuWeights { src: weights, part: Part::Mid, mxu: 1 },
            matmul(0, 0),
            matmul(1, 1),
            Instr::Vector { op: VectorOp::Mul, dst: src, a: Operand::Vmem(va), b: Operand::Imm(3.0) },
            matmul(2, 0),
            store(vd, vd, 3 * m * n),
        ],
    );
    let inputs = [act, w];
    // The reference itself tells the first and third results apart (else the test shows nothing).
    let want = emu::CpuBackend.run_sync(&p, &inputs).expect("the CPU backend runs it");
    let mn = (m * n) as usize;
    assert_ne!(want[0][..mn], want[0][2 * mn..]);
    assert_same_bits_every_matmul_plan(&p, &inputs, &|_, i| format!("word {i}"));
}

#[test]
fn buffers_are_reused_and_runs_are_independent() {
    // A small program after a large one must see zeroed memories, not the old contents.
    let big = program(
        "big",
        1000,
        1000,
        vec![buffer("x", 0, &[1000])],
        vec![buffer("x", 0, &[1000])],
        vec![load(0, 0, 1000), store(0, 0, 1000)],
    );
    let small = program(
        "small",
        16,
        16,
        vec![buffer("x", 0, &[4])],
        vec![buffer("y", 0, &[16])],
        vec![load(0, 0, 4), store(0, 0, 16)],
    );
    let ones = vec![1.0f32.to_bits(); 1000];
    pollster::block_on(gpu().run(&big, &[ones])).unwrap();
    assert_same_bits(&small, &[vec![7; 4]], &|_, i| format!("word {i}"));
}

#[test]
fn malformed_programs_are_errors() {
    let p = program("oob", 4, 4, vec![buffer("x", 0, &[4])], vec![], vec![load(0, 2, 4)]);
    let err = pollster::block_on(gpu().run(&p, &[vec![0; 4]])).unwrap_err();
    assert_eq!(err.instr, Some(0));
    let ok = program("inputs", 4, 4, vec![buffer("x", 0, &[4])], vec![], vec![]);
    assert!(pollster::block_on(gpu().run(&ok, &[vec![0; 3]])).is_err());
}

#[test]
fn backend_identifies_itself() {
    let g = gpu();
    assert_eq!(g.name(), "gpu");
    let adapter = g.adapter().unwrap();
    assert!(!adapter.is_empty());
    println!(
        "adapter: {adapter}, software: {}, subnormals kept explicitly: {}, flushes subnormals: {}",
        g.is_software(),
        g.keeps_subnormals_explicitly(),
        g.flushes_subnormals()
    );
    // A device told to keep subnormals keeps them; one that flushes them (NVIDIA's driver
    // cannot be told otherwise) says so wherever the adapter is named.
    assert!(!(g.keeps_subnormals_explicitly() && g.flushes_subnormals()), "{adapter}");
    assert_eq!(adapter.contains("flushes subnormals to zero"), g.flushes_subnormals(), "{adapter}");
}

/// A program whose HBM is larger than the bindings it may be split over is an error that says
/// so, before anything is allocated; the backend runs the next program. (With bindings as
/// small as a test may ask for: an H200 binds 16 GiB in four, more than a program addresses.)
#[test]
fn memory_beyond_the_adapters_bindings_is_an_error() {
    let huge = program(
        "huge",
        (gpu::HBM_PARTS as u32 + 1) << 10,
        4,
        vec![buffer("x", 0, &[4])],
        vec![buffer("x", 0, &[4])],
        vec![load(0, 0, 4), store(0, 0, 4)],
    );
    let limits = gpu::Limits { hbm_part_words: 1 << 10, ..gpu().plan_limits() };
    let err = with_limits(limits, |g| pollster::block_on(g.run(&huge, &[vec![0; 4]]))).unwrap_err();
    let want = "HBM needs 20480 bytes; this adapter binds at most";
    assert!(err.to_string().contains(want) && err.to_string().contains("4 bindings of 4096 bytes"), "{err}");
    let small = program(
        "small",
        4,
        4,
        vec![buffer("x", 0, &[4])],
        vec![buffer("x", 0, &[4])],
        vec![load(0, 0, 4), store(0, 0, 4)],
    );
    assert_same_bits(&small, &[vec![7; 4]], &|_, i| format!("word {i}"));
}

/// HBM larger than the adapter binds at once (lavapipe: 128 MiB) is split over bindings: an
/// input straddling the first boundary goes in, through VMEM, and back out from beyond it.
#[test]
fn hbm_larger_than_one_binding() {
    let part = gpu().plan_limits().hbm_part_words as u32;
    let (at, n) = (part - 500, 1000);
    let p = program(
        "hbm.large",
        part + 2 * n,
        n,
        vec![buffer("x", at, &[n as usize])],
        vec![buffer("y", part + n, &[n as usize])],
        vec![load(at, 0, n), store(0, part + n, n)],
    );
    let mut rng = Rng::new(3);
    let x: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
    let got = pollster::block_on(gpu().run(&p, std::slice::from_ref(&x))).expect("the GPU runs it").outputs;
    assert_eq!(got, [x]);
}

/// A K-tiled matmul as the compiler writes one: for each K tile, each column tile's weights
/// into an MXU and a matmul adding into that column tile's outputs. The GPU dispatches each
/// column tile's chain at once; a store of one column tile's partial sums between K tiles
/// must see exactly the sums so far, and the other chain must go on unaffected.
#[test]
fn k_tiled_matmul_chains() {
    let mut rng = Rng::new(77);
    let edges = edge_values();
    let (m, k_tiles, n_tiles) = (37u32, [16u32, 16, 5], [9u32, 7]);
    let (k, n) = (k_tiles.iter().sum::<u32>(), n_tiles.iter().sum::<u32>());
    let (va, vw, vd) = (0, m * k, m * k + k * n);
    let (ha, hd, hpartial) = (0, m * k + k * n, m * k + k * n + m * n);
    let block = |addr, rows, cols, stride| Block { addr, rows, cols, stride };
    let mut instrs = vec![load(ha, va, m * k + k * n + m * n)];
    let mut mxu = 0u8;
    let mut k0 = 0;
    for (kt, &kk) in k_tiles.iter().enumerate() {
        let mut n0 = 0;
        for (nt, &nn) in n_tiles.iter().enumerate() {
            let part = if kt == 1 { Part::Lo } else { Part::Hi };
            instrs.push(Instr::MxuWeights { src: block(vw + k0 * n + n0, kk, nn, n), part, mxu });
            instrs.push(Instr::MxuMatmul {
                src: block(va + k0, m, kk, k),
                dst: block(vd + n0, m, nn, n),
                part,
                // The second column tile adds to the outputs loaded with the operands.
                accumulate: kt > 0 || nt == 1,
                mxu,
            });
            mxu = (mxu + 1) % 3;
            n0 += nn;
        }
        if kt == 1 {
            // The first column tile's sums after two K tiles.
            instrs.push(Instr::DmaStore {
                src: block(vd, m, n_tiles[0], n),
                dst: block(hpartial, m, n_tiles[0], n_tiles[0]),
                sem: 0,
                elem: isa::ElemType::F32,
            });
        }
        k0 += kk;
    }
    instrs.push(store(vd, hd, m * n));
    let value = |rng: &mut Rng| {
        if rng.range(0, 20) == 0 {
            edges[rng.range(0, edges.len() as u32 - 1) as usize]
        } else {
            rng.f32_in(-2.0, 2.0)
        }
    };
    let words: Vec<u32> = (0..m * k + k * n + m * n).map(|_| value(&mut rng).to_bits()).collect();
    let p = program(
        "matmul.chains",
        hpartial + m * n_tiles[0],
        m * k + k * n + m * n,
        vec![buffer("operands", 0, &[words.len()])],
        vec![buffer("out", hd, &[(m * n) as usize]), buffer("partial", hpartial, &[(m * n_tiles[0]) as usize])],
        instrs,
    );
    assert_same_bits_every_matmul_plan(&p, &[words], &|o, i| format!("output {o} word {i}"));
}

/// Control that depends on values runs a piece at a time on the GPU, each `s.load`'s word read
/// back: the same words, the same branches and the same bits as the CPU. The program halves a
/// vector in a `while`, reads a table at a row it computed, and takes one half of an `if`.
#[test]
fn branches_on_values_take_the_cpus_path() {
    let p = isa::text::parse(include_str!("../../../tests/isa/halve_then_pick.tasm")).unwrap();
    let table: Vec<f32> = (0..12).map(|i| i as f32 * 1.5 - 4.0).collect();
    for (x, row) in [([3.0f32, 10.0, 0.5, -2.0], 1.0f32), ([0.25, 2.0, 0.5, -2.0], 9.0), ([0.1; 4], -1.0)] {
        let inputs = [bits(&x), bits(&[row]), bits(&table)];
        assert_same_bits(&p, &inputs, &|o, i| format!("output {o} word {i} of x = {x:?}, row {row}"));
    }
}

/// Weights loaded before a `while` serve the matmuls of every trip: the planner's state (what
/// each MXU holds, where in the scratch) carries over from one piece to the next.
#[test]
fn matmuls_in_a_loop_use_weights_loaded_before_it() {
    let p = isa::text::parse(
        "program grow hbm=24 vmem=32 flops=0
input w f32[4,4] hbm[0]
input v f32[1,4] hbm[16]
output y f32[1,4] hbm[20]
dma.load    hbm[0] 4x4/4 -> vmem[0] 4x4/4 sem=0
dma.load    hbm[16] 1x4/4 -> vmem[16] 1x4/4 sem=0
wait        sem=0 count=2
mxu.weights vmem[0] 4x4/4 part=hi mxu=0
xlu.sum     vmem[16] 1x4/4 -> vmem[24]
v.lt        splat vmem[24], 1000.0 -> vmem[25] 1x1/1
s.load      vmem[25] -> s0
while       s0
  mxu.matmul  vmem[16] 1x4/4 -> vmem[20] 1x4/4 part=hi set mxu=0
  v.max       vmem[20], vmem[20] -> vmem[16] 1x4/4
  xlu.sum     vmem[16] 1x4/4 -> vmem[24]
  v.lt        splat vmem[24], 1000.0 -> vmem[25] 1x1/1
  s.load      vmem[25] -> s0
end
dma.store   vmem[16] 1x4/4 -> hbm[20] 1x4/4 sem=1
wait        sem=1 count=1",
    )
    .unwrap();
    let w: Vec<f32> = (0..16).map(|i| if i % 5 == 0 { 1.75 } else { 0.0625 * (i % 3) as f32 }).collect();
    let inputs = [bits(&w), bits(&[1.0, 0.5, 0.25, 2.0])];
    let cpu = emu::CpuBackend.execute(&p, &inputs).expect("the CPU runs it");
    // It grows past 1000 after several trips (each one a word read back).
    assert!(cpu.loads.len() > 5, "{} trips", cpu.loads.len() - 1);
    assert_same_bits_every_matmul_plan(&p, &inputs, &|_, i| format!("word {i}"));
}
