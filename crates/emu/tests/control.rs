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
