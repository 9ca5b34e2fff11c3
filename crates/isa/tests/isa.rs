//! The instruction set: text and binary round trips (property tests over random programs),
//! loop unrolling, and the validator's errors.

use expect_test::expect;
use isa::{binary, text, validate, Addr, Block, Buffer, ElemType, Instr, Operand, Part, Program, VectorOp};
use proptest::prelude::*;

fn addr(depth: usize) -> impl Strategy<Value = Addr> {
    (any::<u32>(), proptest::collection::vec(any::<i32>(), depth)).prop_map(|(base, strides)| Addr {
        base,
        strides: strides.into_iter().enumerate().filter(|(_, s)| *s != 0).map(|(d, s)| (d as u8, s)).collect(),
    })
}

fn block(depth: usize) -> impl Strategy<Value = Block> {
    (addr(depth), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(addr, rows, cols, stride)| Block {
        addr,
        rows,
        cols,
        stride,
    })
}

fn operand(depth: usize) -> impl Strategy<Value = Operand> {
    prop_oneof![
        addr(depth).prop_map(Operand::Vmem),
        addr(depth).prop_map(Operand::Splat),
        addr(depth).prop_map(Operand::Row),
        addr(depth).prop_map(Operand::Col),
        any::<u32>().prop_map(|bits| Operand::Imm(f32::from_bits(bits))),
    ]
}

/// A flat instruction (no loop) whose addresses may use loops up to `depth`.
fn flat_instr(depth: usize) -> impl Strategy<Value = Instr> {
    let part = prop_oneof![Just(Part::Hi), Just(Part::Mid), Just(Part::Lo)];
    let op = proptest::sample::select(VectorOp::ALL.to_vec());
    let reduce = proptest::sample::select(isa::ReduceOp::ALL.to_vec());
    prop_oneof![
        (reduce, block(depth), addr(depth)).prop_map(|(op, src, dst)| Instr::Reduce { op, src, dst }),
        (block(depth), block(depth)).prop_map(|(src, dst)| Instr::Transpose { src, dst }),
        (block(depth), block(depth), any::<u8>()).prop_map(|(src, dst, sem)| Instr::DmaLoad { src, dst, sem }),
        (block(depth), block(depth), any::<u8>()).prop_map(|(src, dst, sem)| Instr::DmaStore { src, dst, sem }),
        (any::<u8>(), any::<u32>()).prop_map(|(sem, count)| Instr::Wait { sem, count }),
        (block(depth), part.clone(), 0..isa::MAX_MXUS).prop_map(|(src, part, mxu)| Instr::MxuWeights {
            src,
            part,
            mxu
        }),
        (block(depth), block(depth), part, any::<bool>(), 0..isa::MAX_MXUS)
            .prop_map(|(src, dst, part, accumulate, mxu)| Instr::MxuMatmul { src, dst, part, accumulate, mxu }),
        (op, block(depth), operand(depth), operand(depth)).prop_map(|(op, dst, a, b)| {
            // A unary op's second operand is not part of its text.
            let b = if op.arity() == 1 { Operand::Imm(0.0) } else { b };
            Instr::Vector { op, dst, a, b }
        }),
    ]
}

/// Properly nested programs: instructions at depth 0, and a loop of them at depth 1 and 2.
fn program() -> impl Strategy<Value = Program> {
    let body = |depth| proptest::collection::vec(flat_instr(depth), 0..4);
    (
        body(0),
        any::<u32>(),
        body(1),
        any::<u32>(),
        body(2),
        any::<u64>(),
        "[a-z_][a-z0-9_]{0,8}",
        proptest::collection::vec(0usize..1000, 0..4),
    )
        .prop_map(|(outer, c1, mid, c2, inner, flops, name, shape)| {
            let mut instrs = outer;
            instrs.push(Instr::Loop { count: c1 });
            instrs.extend(mid);
            instrs.push(Instr::Loop { count: c2 });
            instrs.extend(inner);
            instrs.push(Instr::End);
            instrs.push(Instr::End);
            let buffer = |n: &str, a| Buffer { name: n.into(), addr: a, shape: shape.clone(), elem: ElemType::F32 };
            Program {
                name,
                instrs,
                hbm_words: 7,
                vmem_words: 9,
                inputs: vec![buffer("in0", 3)],
                outputs: vec![buffer("out0", 5)],
                flops,
            }
        })
}

/// Bit-exact equality (NaN immediates compare by bits).
fn same(a: &Program, b: &Program) -> bool {
    binary::encode(a) == binary::encode(b)
}

proptest! {
    #[test]
    fn text_round_trips(p in program()) {
        let parsed = text::parse(&p.to_string()).map_err(|e| TestCaseError::fail(format!("{e}\n{p}")))?;
        prop_assert!(same(&parsed, &p), "{}\n{}", p, parsed);
    }

    #[test]
    fn binary_round_trips(p in program()) {
        let decoded = binary::decode(&binary::encode(&p)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(same(&decoded, &p));
        prop_assert_eq!(decoded.to_string(), p.to_string());
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = binary::decode(&bytes);
        let mut with_magic = b"TPUP\x01".to_vec();
        with_magic.extend(bytes);
        let _ = binary::decode(&with_magic);
    }

    #[test]
    fn truncated_encodings_are_errors(p in program(), cut in any::<prop::sample::Index>()) {
        let bytes = binary::encode(&p);
        let n = cut.index(bytes.len());
        prop_assert!(binary::decode(&bytes[..n]).is_err());
    }

    #[test]
    fn parsing_arbitrary_text_never_panics(s in "\\PC{0,120}") {
        let _ = text::parse(&s);
        let _ = text::parse(&format!("program p hbm=1 vmem=1 flops=0\n{s}"));
    }
}

const LOOPED: &str = "
program tiles hbm=64 vmem=64 flops=0
input in0 f32[8,4] hbm[0]
   0: loop i0 2
   1:   loop i1 2
   2:     dma.load    hbm[0+16*i0+2*i1] 4x2/4 -> vmem[0+8*i1] 4x2/2 sem=0
   3:   end
   4:   wait        sem=0 count=2
   5: end
";

#[test]
fn loops_unroll_with_affine_addresses() {
    let p = text::parse(LOOPED).unwrap();
    validate(&p).unwrap();
    let ops: Vec<String> = p.ops().map(|(i, op)| format!("{i}: {op}")).collect();
    expect![[r#"
        2: dma.load    hbm[0] 4x2/4 -> vmem[0] 4x2/2 sem=0
        2: dma.load    hbm[2] 4x2/4 -> vmem[8] 4x2/2 sem=0
        4: wait        sem=0 count=2
        2: dma.load    hbm[16] 4x2/4 -> vmem[0] 4x2/2 sem=0
        2: dma.load    hbm[18] 4x2/4 -> vmem[8] 4x2/2 sem=0
        4: wait        sem=0 count=2"#]]
    .assert_eq(&ops.join("\n"));
    assert_eq!(p.to_string().trim(), LOOPED.trim());
}

/// What `tpu compile --emit asm` prints (a `# name` line over each program) assembles as it is;
/// `;` and `#` both start comments.
#[test]
fn comments_and_compiler_headers_are_ignored() {
    let commented: String = LOOPED
        .lines()
        .enumerate()
        .map(|(i, line)| if i % 2 == 0 { format!("{line} # note {i}\n") } else { format!("{line} ; note {i}\n") })
        .collect();
    let printed = format!("# f (called 2 times)\n{commented}# the end\n");
    assert_eq!(text::parse(&printed).unwrap(), text::parse(LOOPED).unwrap());
}

fn invalid(src: &str) -> String {
    let p = text::parse(&format!("program p hbm=100 vmem=100 flops=0\n{src}")).unwrap();
    validate(&p).unwrap_err().to_string()
}

#[test]
fn the_validator_names_the_instruction() {
    expect!["instruction 1: source (words 0..116) is outside its memory of 100 words"]
        .assert_eq(&invalid("loop i0 4\ndma.load hbm[0+32*i0] 2x10/10 -> vmem[0] 2x10/10 sem=0\nend"));
    expect!["instruction 0: matmul before any weights were loaded into MXU 0"]
        .assert_eq(&invalid("mxu.matmul vmem[0] 2x2/2 -> vmem[4] 2x2/2 part=hi set"));
    // Each MXU has its own weights: loading MXU 0 does not load MXU 1.
    expect!["instruction 1: matmul before any weights were loaded into MXU 1"].assert_eq(&invalid(
        "mxu.weights vmem[0] 2x2/2 part=hi mxu=0\nmxu.matmul vmem[0] 2x2/2 -> vmem[4] 2x2/2 part=hi set mxu=1",
    ));
    expect!["instruction 1: matmul of 2x3 activations into a 2x2 result does not fit the loaded 2x2 weights"]
        .assert_eq(&invalid(
            "mxu.weights vmem[0] 2x2/2 part=hi\nmxu.matmul vmem[0] 2x3/3 -> vmem[8] 2x2/2 part=hi set",
        ));
    expect!["instruction 1: waits for 2 signals of semaphore 0, but the DMAs before it give only 1"]
        .assert_eq(&invalid("dma.load hbm[0] 1x1/1 -> vmem[0] 1x1/1 sem=0\nwait sem=0 count=2"));
    expect!["instruction 0: end without a loop"].assert_eq(&invalid("end"));
    expect!["1 loop(s) not closed by end"].assert_eq(&invalid("loop i0 2"));
    expect!["instruction 0: vector destination address uses i0 outside a loop of that depth"]
        .assert_eq(&invalid("v.neg vmem[0] -> vmem[0+1*i0] 1x1/1"));
    expect!["instruction 6: loops nest deeper than 6"].assert_eq(&invalid(
        "loop i0 1\nloop i1 1\nloop i2 1\nloop i3 1\nloop i4 1\nloop i5 1\nloop i6 1\nend\nend\nend\nend\nend\nend\nend",
    ));
}

#[test]
fn assembly_errors_name_the_line() {
    let e = text::parse("program p hbm=1 vmem=1 flops=0\nv.add vmem[0], vmem[1] -> vmem[2]\n").unwrap_err();
    expect!["line 2: expected a number at the end of the line"].assert_eq(&e.to_string());
    let e = text::parse("program p hbm=1 vmem=1 flops=0\nmxu.fly vmem[0]\n").unwrap_err();
    expect!["line 2: unknown instruction 'mxu.fly'"].assert_eq(&e.to_string());
    let e = text::parse("program p hbm=1 vmem=1 flops=0\nmxu.weights vmem[0] 1x1/1 part=hi mxu=8\n").unwrap_err();
    expect!["line 2: MXU 8 is not below 8"].assert_eq(&e.to_string());
    let e = binary::decode(b"TPUP\x02\x01\x00\x00\x00").unwrap_err();
    expect!["byte 5: count 1 is larger than the rest of the input allows"].assert_eq(&e.to_string());
    let e = binary::decode(b"TPUP\x01").unwrap_err();
    expect!["byte 4: version 1 is not supported (this build reads version 2)"].assert_eq(&e.to_string());
}

/// The compiler names a lambda's program `<lambda>`: its listing assembles, and its binary
/// decodes to the same program (the binary fuzzer's find: names the text could not print).
#[test]
fn lambda_programs_round_trip_through_text_and_binary() {
    let p = text::parse("program <lambda> hbm=4 vmem=4 flops=0\ninput in0 f32[4] hbm[0]\n").unwrap();
    assert_eq!(p.name, "<lambda>");
    assert_eq!(text::parse(&p.to_string()).unwrap(), p);
    assert_eq!(isa::binary::decode(&isa::binary::encode(&p)).unwrap(), p);
}

/// Scalar buffers with short names encode in 11 bytes each; the decoder once assumed 15 and
/// refused a valid program (the assembler fuzzer's find).
#[test]
fn programs_of_scalar_buffers_decode() {
    let p = text::parse(
        "program p hbm=4 vmem=1 flops=0\ninput a f32[] hbm[0]\ninput b f32[] hbm[1]\noutput o f32[] hbm[2]\noutput q f32[] hbm[3]\n",
    )
    .unwrap();
    assert_eq!(isa::binary::decode(&isa::binary::encode(&p)).unwrap(), p);
}
