//! Collective timings against the scaling book's formulas (jax-ml/scaling-book, sharding.md):
//! an all-gather on a ring with wraparound takes `V / W_bi`, on a line `V / W₁`, a
//! reduce-scatter the same, an all-reduce twice that, an all-to-all a quarter of the ring's
//! all-gather; small ones are bound by the hops at about 1 µs each. `V` is the gathered array's
//! bytes, `W₁` one link's one-way bandwidth, `W_bi = 2 W₁`.

use emu::{collective_time, Collective, CollectiveKind, TpuConfig};

fn machine(name: &str) -> TpuConfig {
    TpuConfig::from_name(name).unwrap()
}

fn time(m: &TpuConfig, kind: CollectiveKind, group: Vec<u32>, bytes_per_chip: u64) -> emu::CollectiveTime {
    collective_time(m, &Collective { kind, groups: vec![group], bytes_per_chip, pairs: vec![] }).unwrap()
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got / want - 1.0).abs() <= tolerance
}

const MIB: u64 = 1 << 20;

#[test]
fn slices_have_the_generations_wraparound_rules() {
    let v5e8 = machine("v5e-8");
    assert_eq!((v5e8.chips(), v5e8.topology.clone(), v5e8.wraparound.clone()), (8, vec![2, 4], vec![false, false]));
    assert_eq!(v5e8.chip_coords(5), vec![1, 2]);
    assert_eq!(machine("v5e+topology=8x16").wraparound, vec![false, true]);
    assert_eq!(machine("v4+topology=4x4x8").wraparound, vec![true, true, true]);
    assert_eq!(machine("v5p-8").wraparound, vec![false, false, false]);
    let err = TpuConfig::from_name("v5e+topology=2x2x2").unwrap_err();
    assert!(err.message.contains("2-axis"), "{}", err.message);
    assert!(TpuConfig::from_name("v5e+topology=32x2").is_err());
    assert_eq!(machine("v6e-8").device_kind(), "TPU v6 lite");
}

#[test]
fn an_all_gather_on_a_ring_takes_v_over_the_bidirectional_bandwidth() {
    // v5e's axis of 16 has its wraparound.
    let m = machine("v5e+topology=16x1");
    let n = 16;
    let shard = 4 * MIB;
    let v = (shard * n) as f64;
    let t = time(&m, CollectiveKind::AllGather, (0..n as u32).collect(), shard);
    let w_bi = 2.0 * m.ici_link_bytes_per_second;
    let want = v / w_bi * (n - 1) as f64 / n as f64;
    assert!(close(t.seconds, want, 0.01), "{} vs {want}", t.seconds);
    assert!(!t.latency_bound);
    assert_eq!(t.hops, 8);
}

#[test]
fn without_wraparound_the_same_gather_takes_twice_as_long() {
    // A row of v5e-16's 4x4: no wraparound. The scaling book's example: 3 · 8.4e6 / 4.5e10.
    let m = machine("v5e-16");
    let shard = 8_400_000;
    let t = time(&m, CollectiveKind::AllGather, vec![0, 1, 2, 3], shard);
    assert!(close(t.seconds, 3.0 * 8.4e6 / 4.5e10, 0.01), "{}", t.seconds);
    // The same four chips as a ring: a v4 cube's x axis has its wraparound, a 4x1x1 slice none.
    let ring = time(&machine("v4+topology=4x4x4"), CollectiveKind::AllGather, vec![0, 1, 2, 3], shard);
    let line = time(&machine("v4+topology=4x1x1"), CollectiveKind::AllGather, vec![0, 1, 2, 3], shard);
    assert!(close(line.seconds, 2.0 * ring.seconds, 1e-9), "{} vs {}", line.seconds, ring.seconds);
}

#[test]
fn reduce_scatter_matches_the_gather_and_all_reduce_doubles_it() {
    let m = machine("v5e+topology=16x1");
    let group: Vec<u32> = (0..16).collect();
    let full = 64 * MIB;
    let gather = time(&m, CollectiveKind::AllGather, group.clone(), full / 16);
    let scatter = time(&m, CollectiveKind::ReduceScatter, group.clone(), full);
    let reduce = time(&m, CollectiveKind::AllReduce, group, full);
    assert!(close(scatter.seconds, gather.seconds, 1e-9));
    assert!(close(reduce.seconds, 2.0 * gather.seconds, 1e-9));
}

#[test]
fn an_all_to_all_is_a_quarter_of_the_ring_gather() {
    let m = machine("v5e+topology=16x1");
    let group: Vec<u32> = (0..16).collect();
    let v = 256 * MIB;
    let all_to_all = time(&m, CollectiveKind::AllToAll, group, v / 16);
    let want = v as f64 / (4.0 * 2.0 * m.ici_link_bytes_per_second);
    assert!(close(all_to_all.seconds, want, 0.15), "{} vs {want}", all_to_all.seconds);
}

#[test]
fn two_axes_with_wraparound_double_the_gathers_bandwidth() {
    // The scaling book: AllGather over X and Y takes V / (W_bi · 2).
    let m = machine("v5e+topology=16x16");
    let group: Vec<u32> = (0..256).collect();
    let shard = MIB;
    let v = (shard * 256) as f64;
    let t = time(&m, CollectiveKind::AllGather, group, shard);
    let want = v / (2.0 * 2.0 * m.ici_link_bytes_per_second);
    assert!(close(t.seconds, want, 0.15), "{} vs {want}", t.seconds);
    assert_eq!(t.hops, 16);
}

#[test]
fn small_collectives_are_bound_by_their_hops() {
    let m = machine("v5e+topology=16x1");
    let t = time(&m, CollectiveKind::AllGather, (0..16).collect(), 1024);
    assert!(t.latency_bound);
    assert!(close(t.seconds, 8e-6, 1e-9), "{}", t.seconds);
}

#[test]
fn doubling_the_bytes_doubles_a_bandwidth_bound_collective() {
    let m = machine("v5e-8");
    let group: Vec<u32> = (0..8).collect();
    for kind in [CollectiveKind::AllGather, CollectiveKind::AllReduce, CollectiveKind::AllToAll] {
        let one = time(&m, kind.clone(), group.clone(), 16 * MIB);
        let two = time(&m, kind.clone(), group.clone(), 32 * MIB);
        assert!(close(two.seconds, 2.0 * one.seconds, 1e-9), "{kind:?}");
    }
}

#[test]
fn a_ring_shift_sends_one_shard_over_each_link() {
    let m = machine("v5e+topology=16x1");
    let pairs: Vec<(usize, usize)> = (0..16).map(|i| (i, (i + 1) % 16)).collect();
    let shard = 45 * MIB;
    let t = collective_time(
        &m,
        &Collective { kind: CollectiveKind::Permute, groups: vec![(0..16).collect()], bytes_per_chip: shard, pairs },
    )
    .unwrap();
    assert!(close(t.seconds, shard as f64 / m.ici_link_bytes_per_second, 1e-9));
    assert_eq!(t.links.len(), 16);
    assert!(t.links.iter().all(|l| l.to == (l.from + 1) % 16));
    assert!(close(t.ici_bytes_sent, 16.0 * shard as f64, 1e-9));
}

#[test]
fn chips_outside_the_slice_are_refused() {
    let m = machine("v5e-8");
    let err = collective_time(
        &m,
        &Collective { kind: CollectiveKind::AllGather, groups: vec![vec![0, 9]], bytes_per_chip: 4, pairs: vec![] },
    )
    .unwrap_err();
    assert!(err.contains("chip 9"), "{err}");
}

#[test]
fn rows_of_a_mesh_gather_at_once_on_their_own_links() {
    // A v5e-8's two columns each all-gather along y: the same time as one column alone, twice
    // the bytes on the slice's links.
    let m = machine("v5e-8");
    let one = time(&m, CollectiveKind::AllGather, vec![0, 2, 4, 6], 1 << 20);
    let both = collective_time(
        &m,
        &Collective {
            kind: CollectiveKind::AllGather,
            groups: vec![vec![0, 2, 4, 6], vec![1, 3, 5, 7]],
            bytes_per_chip: 1 << 20,
            pairs: vec![],
        },
    )
    .unwrap();
    assert!(close(both.seconds, one.seconds, 1e-9));
    assert!(close(both.ici_bytes_sent, 2.0 * one.ici_bytes_sent, 1e-9));
}
