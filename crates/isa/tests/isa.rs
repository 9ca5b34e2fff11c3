//! The instruction set: text and binary round trips (property tests over random programs),
//! loop unrolling, and the validator's errors.

use expect_test::expect;
use isa::{
    binary, text, validate, Addr, Block, Buffer, ElemType, Flops, Instr, Operand, Part, Program, ScalarOp,
    ScalarOperand, VectorOp,
};
use proptest::prelude::*;

fn addr(depth: usize) -> impl Strategy<Value = Addr> {
    let scalars = proptest::collection::btree_map(0..isa::SCALAR_REGS, any::<i32>(), 0..2);
    (any::<u32>(), proptest::collection::vec(any::<i32>(), depth), scalars).prop_map(|(base, strides, scalars)| Addr {
        base,
        strides: strides.into_iter().enumerate().filter(|(_, s)| *s != 0).map(|(d, s)| (d as u8, s)).collect(),
        scalars: scalars.into_iter().collect(),
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

fn elem() -> impl Strategy<Value = ElemType> {
    prop_oneof![Just(ElemType::F32), Just(ElemType::Bf16)]
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
    let scalar_op = proptest::sample::select(ScalarOp::ALL.to_vec());
    let reg = 0..isa::SCALAR_REGS;
    let scalar =
        || prop_oneof![(0..isa::SCALAR_REGS).prop_map(ScalarOperand::Reg), any::<i32>().prop_map(ScalarOperand::Imm)];
    prop_oneof![
        (addr(depth), reg.clone()).prop_map(|(src, dst)| Instr::ScalarLoad { src, dst }),
        (scalar_op, scalar(), scalar(), reg).prop_map(|(op, a, b, dst)| Instr::Scalar { op, a, b, dst }),
        (reduce, block(depth), addr(depth)).prop_map(|(op, src, dst)| Instr::Reduce { op, src, dst }),
        (block(depth), block(depth)).prop_map(|(src, dst)| Instr::Transpose { src, dst }),
        (block(depth), block(depth), any::<u8>(), elem()).prop_map(|(src, dst, sem, elem)| Instr::DmaLoad {
            src,
            dst,
            sem,
            elem
        }),
        (block(depth), block(depth), any::<u8>(), elem()).prop_map(|(src, dst, sem, elem)| Instr::DmaStore {
            src,
            dst,
            sem,
            elem
        }),
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

/// Properly nested programs: instructions at depth 0, a loop of them at depth 1 and 2, and
/// inside it a `while` or an `if` (with or without its `else`).
fn program() -> impl Strategy<Value = Program> {
    let body = |depth| proptest::collection::vec(flat_instr(depth), 0..4);
    (
        (body(0), any::<u32>(), body(1), any::<u32>(), body(2)),
        (0..3u8, 0..isa::SCALAR_REGS, body(2), body(2)),
        proptest::collection::vec((any::<u32>(), 1..u64::MAX), 0..3),
        "[a-z_][a-z0-9_]{0,8}",
        proptest::collection::vec(0usize..1000, 0..4),
    )
        .prop_map(|((outer, c1, mid, c2, inner), (branch, cond, first, second), flops, name, shape)| {
            let mut instrs = outer;
            instrs.push(Instr::Loop { count: c1 });
            instrs.extend(mid);
            instrs.push(Instr::Loop { count: c2 });
            instrs.extend(inner);
            instrs.push(if branch == 0 { Instr::While { cond } } else { Instr::If { cond } });
            instrs.extend(first);
            if branch == 2 {
                instrs.push(Instr::Else);
                instrs.extend(second);
            }
            instrs.push(Instr::End);
            instrs.push(Instr::End);
            instrs.push(Instr::End);
            let buffer = |n: &str, a, elem| Buffer { name: n.into(), addr: a, shape: shape.clone(), elem };
            let flops = flops.into_iter().map(|(i, count)| Flops { instr: i % instrs.len() as u32, count }).collect();
            Program {
                name,
                instrs,
                hbm_words: 7,
                vmem_words: 9,
                inputs: vec![buffer("in0", 3, ElemType::F32)],
                outputs: vec![buffer("out0", 5, ElemType::Bf16)],
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
        let mut with_magic = b"TPUP\x03".to_vec();
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
    let ops: Vec<String> = p.ops().map(|r| r.map(|(i, op)| format!("{i}: {op}")).unwrap()).collect();
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
    // Packed bf16: HBM's 100 words hold 200 elements, and bf16 addresses count elements.
    expect!["instruction 0: destination (bf16 elements 190..202) is outside its memory of 200 bf16 elements"]
        .assert_eq(&invalid("dma.store.bf16 vmem[0] 1x12/12 -> hbm[190] 1x12/12 sem=0"));
    assert!(text::parse("program p hbm=100 vmem=100 flops=0\ndma.load.bf16 hbm[188] 1x12/12 -> vmem[0] 1x12/12 sem=0")
        .map(|p| validate(&p).is_ok())
        .unwrap());
    expect!["bf16 buffer x starts at element 3, inside a word (it must be even)"]
        .assert_eq(&invalid("input x bf16[4] hbm[3]"));
    expect!["buffer y (60 HBM words from 50) is outside HBM's 100 words"]
        .assert_eq(&invalid("output y f32[60] hbm[50]"));
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
    expect!["instruction 0: end without a loop, while or if"].assert_eq(&invalid("end"));
    expect!["1 block(s) not closed by end"].assert_eq(&invalid("loop i0 2"));
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
    let e = text::parse("program p hbm=1 vmem=1 flops=3@x\n").unwrap_err();
    expect!["line 1: expected a number at 'x'"].assert_eq(&e.to_string());
    let p = text::parse("program p hbm=1 vmem=1 flops=3@1\nwait sem=0 count=0\n").unwrap();
    expect!["3 flops are counted at instruction 1, but the program has 1 instructions"]
        .assert_eq(&validate(&p).unwrap_err().to_string());
    let e = binary::decode(b"TPUP\x04\x01\x00\x00\x00").unwrap_err();
    expect!["byte 5: count 1 is larger than the rest of the input allows"].assert_eq(&e.to_string());
    let e = binary::decode(b"TPUP\x01").unwrap_err();
    expect!["byte 4: version 1 is not supported (this build reads version 4)"].assert_eq(&e.to_string());
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

/// A countdown from a value the program reads: the `while` runs as many times as the word in
/// VMEM says, its DMA walks HBM by a register, and the `if` takes the half the last register
/// picks.
const COUNTDOWN: &str = "
program countdown hbm=8 vmem=8 flops=0
   0: s.load      vmem[0] -> s0
   1: while       s0
   2:   dma.load    hbm[0+1*s1] 1x1/1 -> vmem[4] 1x1/1 sem=0
   3:   wait        sem=0 count=1
   4:   s.sub       s0, 1 -> s0
   5:   s.add       s1, 2 -> s1
   6: end
   7: s.lt        s1, 5 -> s2
   8: if          s2
   9:   v.neg       vmem[4] -> vmem[5] 1x1/1
  10: else
  11:   loop i0 2
  12:     v.abs       vmem[4+1*i0] -> vmem[6] 1x1/1
  13:   end
  14: end
";

/// The operations of a run whose VMEM word 0 holds `x` (as a float32, as every int32 is kept).
fn countdown(x: f32, limit: u64) -> Result<Vec<String>, isa::IsaError> {
    let p = text::parse(COUNTDOWN).unwrap();
    validate(&p).unwrap();
    let mut ops = p.ops().limit(limit);
    let mut lines = Vec::new();
    while let Some(next) = ops.next() {
        let (i, op) = next?;
        if let Instr::ScalarLoad { src: 0, .. } = op {
            ops.load(x.to_bits());
        }
        lines.push(format!("{i}: {op}"));
    }
    Ok(lines)
}

/// Flops count each time control reaches their instruction: a `while` body's per trip, a
/// `loop` instruction once per entry and its body per iteration, an untaken half never.
#[test]
fn flops_count_per_visit_of_their_instruction() {
    let source = COUNTDOWN.replace("flops=0", "flops=1,10@2,100@9,1000@11,10000@12");
    let p = text::parse(&source).unwrap();
    validate(&p).unwrap();
    assert_eq!(text::parse(&p.to_string()).unwrap(), p);
    let flops = |x: f32| {
        let mut ops = p.ops();
        while let Some(next) = ops.next() {
            if let (_, Instr::ScalarLoad { .. }) = next.unwrap() {
                ops.load(x.to_bits());
            }
        }
        ops.flops()
    };
    // Three trips leave s1 = 6: the `else` half, its loop twice.
    assert_eq!(flops(3.0), 1 + 3 * 10 + 1000 + 2 * 10000);
    // One trip leaves s1 = 2: the `if` half.
    assert_eq!(flops(1.0), 1 + 10 + 100);
}

#[test]
fn while_and_if_follow_the_registers() {
    let p = text::parse(COUNTDOWN).unwrap();
    assert_eq!(p.to_string().trim(), COUNTDOWN.trim());
    assert_eq!(binary::decode(&binary::encode(&p)).unwrap(), p);
    expect![[r#"
        0: s.load      vmem[0] -> s0
        1: while       s0
        2: dma.load    hbm[0] 1x1/1 -> vmem[4] 1x1/1 sem=0
        3: wait        sem=0 count=1
        4: s.sub       s0, 1 -> s0
        5: s.add       s1, 2 -> s1
        1: while       s0
        2: dma.load    hbm[2] 1x1/1 -> vmem[4] 1x1/1 sem=0
        3: wait        sem=0 count=1
        4: s.sub       s0, 1 -> s0
        5: s.add       s1, 2 -> s1
        1: while       s0
        7: s.lt        s1, 5 -> s2
        8: if          s2
        9: v.neg       vmem[4] -> vmem[5] 1x1/1"#]]
    .assert_eq(&countdown(2.0, 1000).unwrap().join("\n"));
    // 2.9 reads as 2 (toward zero); 3 trips leave s1 = 6, so the `else` half runs.
    assert_eq!(countdown(2.9, 1000).unwrap(), countdown(2.0, 1000).unwrap());
    let three = countdown(3.0, 1000).unwrap();
    expect![[r#"
        1: while       s0
        7: s.lt        s1, 5 -> s2
        8: if          s2
        12: v.abs       vmem[4] -> vmem[6] 1x1/1
        12: v.abs       vmem[5] -> vmem[6] 1x1/1"#]]
    .assert_eq(&three[three.len() - 5..].join("\n"));
    // NaN reads as 0: the body never runs.
    assert_eq!(
        countdown(f32::NAN, 1000).unwrap()[..3],
        ["0: s.load      vmem[0] -> s0", "1: while       s0", "7: s.lt        s1, 5 -> s2"]
    );
}

#[test]
fn a_replay_takes_the_runs_branches() {
    let p = text::parse(COUNTDOWN).unwrap();
    let replayed: Vec<String> =
        p.replay(&[3.0f32.to_bits()]).map(|r| r.map(|(i, op)| format!("{i}: {op}")).unwrap()).collect();
    assert_eq!(replayed, countdown(3.0, 1000).unwrap());
    let e = p.replay(&[]).find_map(Result::err).unwrap();
    expect!["instruction 0: a replay ran out of the run's loaded words"].assert_eq(&e.to_string());
}

#[test]
fn what_depends_on_values_is_checked_as_the_program_runs() {
    // The fifth trip's DMA reads hbm[8], past the program's 8 words.
    let e = countdown(5.0, 1000).unwrap_err();
    expect!["instruction 2: the computed source (words 8..9) is outside its memory of 8 words"]
        .assert_eq(&e.to_string());
    // A while whose register never reaches 0 ends in an error, not a hang.
    let p = text::parse("program p hbm=1 vmem=1 flops=0\ns.add 1, 0 -> s0\nwhile s0\nend\n").unwrap();
    validate(&p).unwrap();
    let e = p.ops().limit(1000).find_map(Result::err).unwrap();
    expect!["instruction 1: the run passed 1000 operations here (a while loop whose register never becomes 0?)"]
        .assert_eq(&e.to_string());
}

#[test]
fn the_validator_checks_blocks_and_their_semaphores() {
    expect!["instruction 0: else outside an if (or a second else)"].assert_eq(&invalid("else"));
    expect!["instruction 3: else outside an if (or a second else)"]
        .assert_eq(&invalid("if s0\nelse\nwhile s1\nelse\nend\nend"));
    expect!["instruction 1: a while loop's body must wait for every DMA it issues (and for no earlier one), since it may run any number of times"]
        .assert_eq(&invalid("s.load vmem[0] -> s0\nwhile s0\ndma.load hbm[0] 1x1/1 -> vmem[1] 1x1/1 sem=0\nend"));
    expect!["instruction 0: the two halves of an if leave different DMAs to wait for"]
        .assert_eq(&invalid("if s0\ndma.load hbm[0] 1x1/1 -> vmem[1] 1x1/1 sem=0\nend"));
    // Weights loaded on one path only are not there on the other.
    expect!["instruction 3: matmul before any weights were loaded into MXU 0"].assert_eq(&invalid(
        "if s0\nmxu.weights vmem[0] 2x2/2 part=hi\nend\nmxu.matmul vmem[0] 2x2/2 -> vmem[4] 2x2/2 part=hi set",
    ));
    expect!["instruction 3: matmul before any weights were loaded into MXU 0"].assert_eq(&invalid(
        "while s0\nmxu.weights vmem[0] 2x2/2 part=hi\nend\nmxu.matmul vmem[0] 2x2/2 -> vmem[4] 2x2/2 part=hi set",
    ));
    // Balanced halves and a balanced body are fine, and so are weights both halves load.
    let p = text::parse(
        "program p hbm=100 vmem=100 flops=0\nif s0\nmxu.weights vmem[0] 2x2/2 part=hi\nelse\nmxu.weights vmem[8] 2x2/2 part=lo\nend\nmxu.matmul vmem[0] 2x2/2 -> vmem[4] 2x2/2 part=hi set\nwhile s1\ndma.load hbm[0+1*s2] 1x1/1 -> vmem[1] 1x1/1 sem=0\nwait sem=0 count=1\nend",
    )
    .unwrap();
    validate(&p).unwrap();
    let e = text::parse("program p hbm=1 vmem=1 flops=0\nwhile s16\nend\n").unwrap_err();
    expect!["line 2: s16 is not a register (s0 to s15)"].assert_eq(&e.to_string());
}
