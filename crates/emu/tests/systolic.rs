//! The systolic-array model against SCALE-Sim v2's golden reports and hand derivations
//! (docs/systolic.md shows each derivation).

use emu::systolic::{analyze, fold_cycles, trace, ws_fold_cycles, Dataflow, Phase, Psum, Trace};

/// SCALE-Sim v2's golden run (`test/golden_trace/COMPUTE_REPORT.csv`, produced by
/// `test/scripts/function_test.sh`: `configs/scale.cfg` with a 32×32 weight-stationary array on
/// `topologies/conv_nets/alexnet_part.csv`, AlexNet conv1 = 224×224×3 input, 11×11 filters, 96 of
/// them, stride 4):
/// `0, 112283, 0, 91.68309650614964, 94.53125, 90.78000992063485`.
/// As a GEMM: M = 55·55 = 3025 output pixels, K = 11·11·3 = 363, N = 96.
#[test]
fn alexnet_conv1_matches_scale_sim_golden() {
    let a = analyze(32, 32, Dataflow::Ws, 3025, 363, 96).unwrap();
    assert_eq!((a.row_folds, a.col_folds, a.folds), (12, 3, 36));
    assert_eq!(a.fold_cycles, 2 * 32 + 32 + 3025 - 2);
    assert_eq!(a.busy_cycles, 36 * 3119);
    assert_eq!(a.cycles, 112_283);
    assert!((a.utilization * 100.0 - 91.68309650614964).abs() < 1e-9, "{}", a.utilization);
    assert_eq!(format!("{:.2}", a.utilization * 100.0), "91.68");
    assert!((a.mapping_efficiency * 100.0 - 94.53125).abs() < 1e-9);
    assert!((a.compute_utilization * 100.0 - 90.78000992063485).abs() < 1e-9);
}

/// SCALE-Sim v2's GEMM goldens (`test/general/golden_trace_user_{ws,os,is}/COMPUTE_REPORT.csv`
/// from `test/general/scripts/diff_user_*.sh`: M = 256, N = 128, K = 256 from
/// `topologies/GEMM_mnk/test_mnk_input.csv` on the 32×32 array of `configs/scale.cfg`). Those runs
/// model a finite DRAM bandwidth, so their total includes stall cycles; total − stalls is the
/// compute model's count, and "Compute Util" and "Mapping Efficiency" do not depend on stalls.
#[test]
fn gemm_goldens_match_scale_sim_for_every_dataflow() {
    // (dataflow, total cycles, stall cycles, mapping efficiency %, compute util %)
    let goldens = [
        (Dataflow::Ws, 52447, 41248, 100.0, 67.19160104986877),
        (Dataflow::Os, 52447, 42272, 100.0, 80.50314465408806),
        (Dataflow::Is, 19984, 5777, 100.0, 50.59288537549407),
    ];
    for (dataflow, total, stalls, mapping, compute) in goldens {
        let a = analyze(32, 32, dataflow, 256, 256, 128).unwrap();
        assert_eq!(a.cycles, total - stalls, "{dataflow:?}");
        assert!((a.mapping_efficiency * 100.0 - mapping).abs() < 1e-9, "{dataflow:?}");
        assert!(
            (a.compute_utilization * 100.0 - compute).abs() < 1e-9,
            "{dataflow:?}: {}",
            a.compute_utilization * 100.0
        );
    }
}

/// Derived by hand in docs/systolic.md: M=100, K=70, N=50 on 16×16.
#[test]
fn os_and_is_cases_derived_by_hand() {
    // os: Sr = M = 100 → 7 row folds, Sc = N = 50 → 4 col folds, T = K = 70;
    // fold = 16 + 16 + 70 − 2 = 100; busy = 28 × 100 = 2800; SCALE-Sim's count 2799.
    let os = analyze(16, 16, Dataflow::Os, 100, 70, 50).unwrap();
    assert_eq!((os.row_folds, os.col_folds, os.fold_cycles), (7, 4, 100));
    assert_eq!((os.busy_cycles, os.cycles), (2800, 2799));
    assert_eq!(os.utilization, 350_000.0 / (256.0 * 2799.0));
    // is: Sr = K = 70 → 5 row folds, Sc = M = 100 → 7 col folds, T = N = 50;
    // fold = 2·16 + 16 + 50 − 2 = 96; busy = 35 × 96 = 3360; SCALE-Sim's count 3359.
    let is = analyze(16, 16, Dataflow::Is, 100, 70, 50).unwrap();
    assert_eq!((is.row_folds, is.col_folds, is.fold_cycles), (5, 7, 96));
    assert_eq!((is.busy_cycles, is.cycles), (3360, 3359));
    // ws: Sr = K = 70 → 5, Sc = N = 50 → 4, T = M = 100; fold = 32 + 16 + 100 − 2 = 146.
    let ws = analyze(16, 16, Dataflow::Ws, 100, 70, 50).unwrap();
    assert_eq!((ws.folds, ws.fold_cycles, ws.cycles), (20, 146, 2919));
}

#[test]
fn the_ws_fold_is_the_timing_models_weights_plus_matmul() {
    // docs/timing.md: mxu.weights costs rows, mxu.matmul costs M + rows + cols − 2.
    for (r, c, m) in [(128, 128, 8), (128, 128, 1024), (256, 256, 100), (32, 8, 1)] {
        assert_eq!(ws_fold_cycles(r, c, m), r + (m + r + c - 2));
        assert_eq!(fold_cycles(Dataflow::Ws, r, c, m), ws_fold_cycles(r, c, m));
    }
}

#[test]
fn bad_dimensions_are_errors() {
    assert!(analyze(0, 32, Dataflow::Ws, 1, 1, 1).is_err());
    assert!(analyze(32, 32, Dataflow::Ws, 1, 0, 1).is_err());
    assert!(analyze(32, 32, Dataflow::Ws, 1 << 21, 1, 1).is_err());
    assert!(trace(2, 2, 2, 2, 2, &[1.0; 3], &[1.0; 4]).is_err());
    assert!(trace(128, 128, 1000, 1000, 1000, &[], &[]).is_err());
}

fn weights(t: &Trace, cycle: usize) -> Vec<Option<(usize, usize)>> {
    t.cycles[cycle].pes.iter().map(|p| p.weight).collect()
}

fn acts(t: &Trace, cycle: usize) -> Vec<Option<(usize, usize)>> {
    t.cycles[cycle].pes.iter().map(|p| p.activation).collect()
}

fn psums(t: &Trace, cycle: usize) -> Vec<Option<f32>> {
    t.cycles[cycle].pes.iter().map(|p| p.psum.map(|p| p.value)).collect()
}

/// A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]] on a 2×2 array; C = [[19, 22], [43, 50]].
/// PEs are listed row-major: (0,0), (0,1), (1,0), (1,1). Hand-derived in docs/systolic.md.
#[test]
fn two_by_two_trace_matches_hand_computed_states() {
    let t = trace(2, 2, 2, 2, 2, &[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0]).unwrap();
    // 2·2 + 2 + 2 − 2 = 6 cycles.
    assert_eq!(t.cycles.len(), 6);
    let phases: Vec<Phase> = t.cycles.iter().map(|c| c.phase).collect();
    use Phase::{LoadWeights as L, Stream as S};
    assert_eq!(phases, [L, L, S, S, S, S]);

    // Cycle 0: B's row 1 enters at the top. Cycle 1: it shifts down and row 0 enters.
    assert_eq!(weights(&t, 0), [Some((1, 0)), Some((1, 1)), None, None]);
    let loaded = [Some((0, 0)), Some((0, 1)), Some((1, 0)), Some((1, 1))];
    for c in 1..6 {
        assert_eq!(weights(&t, c), loaded, "cycle {c}");
    }

    // Cycle 2: A[0][0] = 1 in PE (0,0): psum 1·5 = 5.
    assert_eq!(acts(&t, 2), [Some((0, 0)), None, None, None]);
    assert_eq!(psums(&t, 2), [Some(5.0), None, None, None]);
    // Cycle 3: A[0][0] moves right (1·6 = 6), A[0][1] = 2 enters row 1 (5 + 2·7 = 19, out),
    // A[1][0] = 3 enters row 0 (3·5 = 15).
    assert_eq!(acts(&t, 3), [Some((1, 0)), Some((0, 0)), Some((0, 1)), None]);
    assert_eq!(psums(&t, 3), [Some(15.0), Some(6.0), Some(19.0), None]);
    assert_eq!(t.cycles[3].outputs, [Psum { m: 0, n: 0, value: 19.0 }]);
    // Cycle 4: 3·6 = 18; 15 + 4·7 = 43 (out); 6 + 2·8 = 22 (out).
    assert_eq!(acts(&t, 4), [None, Some((1, 0)), Some((1, 1)), Some((0, 1))]);
    assert_eq!(psums(&t, 4), [None, Some(18.0), Some(43.0), Some(22.0)]);
    assert_eq!(t.cycles[4].outputs, [Psum { m: 1, n: 0, value: 43.0 }, Psum { m: 0, n: 1, value: 22.0 }]);
    // Cycle 5: 18 + 4·8 = 50 (out).
    assert_eq!(acts(&t, 5), [None, None, None, Some((1, 1))]);
    assert_eq!(psums(&t, 5), [None, None, None, Some(50.0)]);

    assert_eq!(t.output, [19.0, 22.0, 43.0, 50.0]);
    let macs = t.cycles.iter().flat_map(|c| &c.pes).filter(|p| p.mac).count();
    assert_eq!(macs, 8);
}

/// Multi-fold, ragged shapes: the trace's length is the analytic model's busy cycles, it does
/// exactly M·K·N MACs, and its output is the matmul. Small integers keep f32 sums exact.
#[test]
fn traces_compute_the_matmul_in_the_analytic_cycle_count() {
    for (rows, cols, m, k, n) in [(2, 2, 2, 2, 2), (2, 2, 5, 7, 3), (3, 4, 4, 3, 9), (4, 2, 1, 9, 5)] {
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7 + 3) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5 + 1) % 9) as f32 - 4.0).collect();
        let t = trace(rows, cols, m, k, n, &a, &b).unwrap();
        let an = analyze(rows as u64, cols as u64, Dataflow::Ws, m as u64, k as u64, n as u64).unwrap();
        assert_eq!(t.cycles.len() as u64, an.busy_cycles, "{rows}x{cols} {m}x{k}x{n}");
        assert_eq!(t.cycles.last().unwrap().fold as u64, an.folds - 1);
        let macs = t.cycles.iter().flat_map(|c| &c.pes).filter(|p| p.mac).count();
        assert_eq!(macs, m * k * n);
        let outputs = t.cycles.iter().map(|c| c.outputs.len()).sum::<usize>();
        assert_eq!(outputs as u64, m as u64 * n as u64 * an.row_folds);
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                assert_eq!(t.output[i * n + j], want, "C[{i}][{j}]");
            }
        }
    }
}
