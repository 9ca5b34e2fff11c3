//! Control that depends on values (the scalar unit's `s.load`, `while`, `if`, and addresses
//! offset by a register): the reference backend runs it, and the timing model times the run
//! it is given the loaded words of.

use emu::{simulate, CpuBackend, TpuConfig};
use isa::Program;

fn program() -> Program {
    let text = include_str!("../../../tests/isa/halve_then_pick.tasm");
    let p = isa::text::parse(text).expect("the program assembles");
    isa::validate(&p).expect("the program is valid");
    p
}

fn words(xs: &[f32]) -> Vec<u32> {
    xs.iter().map(|x| x.to_bits()).collect()
}

const TABLE: [f32; 12] = [1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0, 100.0, 200.0, 300.0, 400.0];

/// What the program computes, written out in Rust: (y, halvings).
fn expected(x: [f32; 4], row: f32) -> (Vec<f32>, f32) {
    let mut x = x.to_vec();
    let mut halvings = 0;
    while x.iter().cloned().fold(f32::NEG_INFINITY, f32::max) > 1.0 {
        x.iter_mut().for_each(|v| *v *= 0.5);
        halvings += 1;
    }
    let r = (row as i32).clamp(0, 2) as usize;
    let picked = &TABLE[4 * r..4 * r + 4];
    let y = x.iter().zip(picked).map(|(a, b)| if halvings < 3 { a + b } else { a - b }).collect();
    (y, halvings as f32)
}

fn run(x: [f32; 4], row: f32) -> emu::Executed {
    CpuBackend.execute(&program(), &[words(&x), words(&[row]), words(&TABLE)]).expect("the CPU runs it")
}

#[test]
fn the_run_follows_the_values() {
    for (x, row) in [
        ([3.0, 10.0, 0.5, -2.0], 1.0),
        ([0.25, 2.0, 0.5, -2.0], 2.0),
        ([0.25, 0.5, 0.0, -8.0], -3.0),
        ([1e6, 1.0, 0.0, 0.0], 7.5),
    ] {
        let got = run(x, row);
        let (y, halvings) = expected(x, row);
        assert_eq!(got.outputs, [words(&y), words(&[halvings])], "x = {x:?}, row = {row}");
        // One word per `s.load`: the test before each trip, the last test, and the row.
        assert_eq!(got.loads.len(), halvings as usize + 2);
        assert_eq!(*got.loads.last().unwrap(), row.to_bits());
    }
}

#[test]
fn the_timing_model_times_the_run_it_is_given() {
    let cfg = TpuConfig::v5e();
    let p = program();
    let time = |x: [f32; 4]| simulate(&p, &run(x, 1.0).loads, &cfg).expect("the run replays");
    let (one, four) = (time([2.0, 0.0, 0.0, 0.0]), time([16.0, 0.0, 0.0, 0.0]));
    // The `while` is tested once more than the body runs; the body's instructions run once per
    // trip; only the taken half of the `if` runs.
    for (t, trips) in [(&one, 1), (&four, 4)] {
        assert_eq!(t.per_instr[7].executions, trips + 1);
        assert_eq!(t.per_instr[8].executions, trips);
        assert_eq!(t.per_instr[12].executions, trips);
    }
    assert_eq!((one.per_instr[22].executions, one.per_instr[24].executions), (1, 0));
    assert_eq!((four.per_instr[22].executions, four.per_instr[24].executions), (0, 1));
    // Each trip costs at least its branch and its load, which hold issue.
    let per_trip = cfg.branch_cycles + cfg.scalar_load_cycles;
    assert!(
        four.counters.cycles >= one.counters.cycles + 3 * per_trip,
        "{} vs {}",
        four.counters.cycles,
        one.counters.cycles
    );
    // 5 tests, 4 + 2 loads, and the `if`: the scalar unit's own cycles count at least those.
    let least = 6 * cfg.branch_cycles + 6 * cfg.scalar_load_cycles;
    assert!(four.counters.scalar_cycles >= least, "{} < {least}", four.counters.scalar_cycles);
    // A timing without the run's words cannot know its branches: an error, not a guess.
    let e = simulate(&p, &[], &cfg).unwrap_err();
    assert_eq!(e.to_string(), "instruction 5: a replay ran out of the run's loaded words");
}

#[test]
fn a_computed_address_outside_memory_is_an_error_naming_the_instruction() {
    // The clamp keeps the row inside the table; without it, row 9 reads past HBM.
    let mut p = program();
    p.instrs.retain(|i| !matches!(i, isa::Instr::Scalar { op: isa::ScalarOp::Min | isa::ScalarOp::Max, .. }));
    isa::validate(&p).expect("still valid: the address is checked when it is known");
    let e = CpuBackend.execute(&p, &[words(&[0.5; 4]), words(&[9.0]), words(&TABLE)]).unwrap_err();
    assert_eq!(e.to_string(), "instruction 16: the computed source (words 48..52) is outside its memory of 25 words");
}

#[test]
fn a_run_without_values_times_computed_addresses_but_not_branches_on_computed_values() {
    let cfg = TpuConfig::v5e();
    // The row pick alone: the loaded word moves an HBM address, which the timing model charges
    // by the transfer's size wherever it reads, so every row times the same, values or not.
    let text = "program pick hbm=17 vmem=8 flops=0\n\
                input row f32[] hbm[0]\n\
                input table f32[3,4] hbm[1]\n\
                output y f32[4] hbm[13]\n\
                0: dma.load hbm[0] 1x1/1 -> vmem[0] 1x1/1 sem=0\n\
                1: wait sem=0 count=1\n\
                2: s.load vmem[0] -> s2\n\
                3: s.max s2, 0 -> s2\n\
                4: s.min s2, 2 -> s2\n\
                5: dma.load hbm[1+4*s2] 1x4/4 -> vmem[4] 1x4/4 sem=0\n\
                6: wait sem=0 count=1\n\
                7: dma.store vmem[4] 1x4/4 -> hbm[13] 1x4/4 sem=1\n\
                8: wait sem=1 count=1\n";
    let pick = isa::text::parse(text).expect("the program assembles");
    isa::validate(&pick).expect("the program is valid");
    let blind = emu::simulate_without_values(&pick, &cfg).expect("an address is not a branch");
    for row in [0.0, 2.0, 7.0] {
        let run = CpuBackend.execute(&pick, &[words(&[row]), words(&TABLE)]).expect("the CPU runs it");
        assert_eq!(run.outputs[0], words(&TABLE[4 * (row as usize).min(2)..][..4]));
        assert_eq!(simulate(&pick, &run.loads, &cfg).expect("the run replays"), blind, "row {row}");
    }
    // A register loaded by the program and moved through scalar ops still decides the `while`:
    // without values the run cannot know its trips, and says where.
    let e = emu::simulate_without_values(&program(), &cfg).unwrap_err();
    assert_eq!(
        e.to_string(),
        "instruction 7: it branches on s0, a value the program computed, which a run without values does not have"
    );
    // A VMEM address moved by a loaded word changes which pages the scoreboard sees: an error too.
    let moved = text
        .replace("5: dma.load hbm[1+4*s2] 1x4/4 -> vmem[4] 1x4/4", "5: dma.load hbm[1] 1x4/4 -> vmem[0+1*s2] 1x4/4");
    let moved = isa::text::parse(&moved).expect("the program assembles");
    let e = emu::simulate_without_values(&moved, &cfg).unwrap_err();
    assert!(e.to_string().starts_with("instruction 5: its VMEM address vmem[0+1*s2]"), "{e}");
}
