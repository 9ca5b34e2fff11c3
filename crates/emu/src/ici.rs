//! Collectives over the slice's inter-chip interconnect (ICI): which links each one loads, and
//! how long it takes.
//!
//! The model is a link-load bound. Every byte a collective moves is routed over the slice's
//! torus (or mesh, where an axis has no wraparound) along shortest paths, dimension by dimension;
//! the collective takes as long as its busiest directed link needs to carry its bytes at
//! [`TpuConfig::ici_link_bytes_per_second`], but never less than its longest path's hops at
//! [`TpuConfig::ici_hop_seconds`] each (the scaling book's `max(T_min · hops, V / W)`).
//! Pipelined ring algorithms reach that bound, which is why the scaling book's formulas come out
//! of it rather than being written in:
//! - an all-gather *forwards* each chip's shard: the shard crosses every link of a tree from its
//!   chip to all the others once, so on a ring of N with wraparound the busiest link carries
//!   (N − 1)/2 shards each way (`V / W_bi`), and on a line N − 1 (`V / W₁`, twice as long);
//! - a reduce-scatter is an all-gather run backwards (the same loads), an all-reduce the two in
//!   turn;
//! - an all-to-all and a permute send distinct data from chip to chip, each piece on its own
//!   path (`V / (4 · W_bi)` for an all-to-all on a ring).
//!
//! Where two directions (a ring's antipode) or two dimension orders are equally short, the bytes
//! are split evenly over them, as the hardware's two ports per axis and the collective
//! libraries' bidirectional rings do.

use crate::TpuConfig;
use serde::Serialize;

/// What a collective does with the arrays of the chips in its group.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveKind {
    /// Every chip ends with every chip's shard (`lax.all_gather`).
    AllGather,
    /// Every chip ends with its part of the sum (`lax.psum_scatter`).
    ReduceScatter,
    /// Every chip ends with the sum, or the max or min (`lax.psum`, `pmax`, `pmin`).
    AllReduce,
    /// Every chip sends a distinct part to every other (`lax.all_to_all`).
    AllToAll,
    /// Chips send their array to others as pairs name them (`lax.ppermute`).
    Permute,
}

impl CollectiveKind {
    /// The name XLA's HLO gives it.
    pub fn hlo_name(&self) -> &'static str {
        match self {
            CollectiveKind::AllGather => "all-gather",
            CollectiveKind::ReduceScatter => "reduce-scatter",
            CollectiveKind::AllReduce => "all-reduce",
            CollectiveKind::AllToAll => "all-to-all",
            CollectiveKind::Permute => "collective-permute",
        }
    }
}

/// One collective over a group of the slice's chips.
#[derive(Clone, Debug)]
pub struct Collective {
    pub kind: CollectiveKind,
    /// The groups of chips taking part, each by rank: `groups[g][r]` is the chip (numbered as
    /// [`TpuConfig::chip_coords`] counts) of group `g`'s rank `r`. Every group does the same
    /// collective among its own chips at the same time (a mesh axis's rows), sharing links.
    pub groups: Vec<Vec<u32>>,
    /// Bytes of each chip's operand: its shard for an all-gather, its whole unreduced array for
    /// a reduce-scatter, an all-reduce and an all-to-all, what it sends for a permute.
    pub bytes_per_chip: u64,
    /// For a permute: (source rank, destination rank) pairs, within every group.
    pub pairs: Vec<(usize, usize)>,
}

/// One directed link's traffic during a collective.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkTraffic {
    /// The chip the link leaves and the one it reaches.
    pub from: u32,
    pub to: u32,
    pub bytes: f64,
}

/// What a collective costs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveTime {
    pub seconds: f64,
    /// `seconds` at the chip's clock.
    pub cycles: u64,
    /// Bytes that leave the group's chips onto ICI, summed over chips (a forwarded shard counts
    /// once per link it crosses).
    pub ici_bytes_sent: f64,
    /// The busiest directed link's bytes (summed over an all-reduce's two phases).
    pub busiest_link_bytes: f64,
    /// The longest path, in links.
    pub hops: u32,
    /// Whether the hops' fixed cost, not the bytes, set the time.
    pub latency_bound: bool,
    /// Every directed link that carried bytes.
    pub links: Vec<LinkTraffic>,
}

/// The cost of `collective` on `machine`'s slice. Errors name a chip the slice lacks or a
/// malformed permutation.
pub fn collective_time(machine: &TpuConfig, collective: &Collective) -> Result<CollectiveTime, String> {
    let chips = machine.chips();
    if let Some(c) = collective.groups.iter().flatten().find(|&&c| c >= chips) {
        return Err(format!("chip {c} is not in {} ({chips} chips)", machine.name));
    }
    let n = collective.groups.first().map_or(0, Vec::len);
    if collective.groups.iter().any(|g| g.len() != n) {
        return Err("a collective's groups must be of one size".into());
    }
    if let Some(&(s, d)) = collective.pairs.iter().find(|&&(s, d)| s >= n || d >= n) {
        return Err(format!("the permutation pair ({s}, {d}) names a rank outside the group of {n}"));
    }
    let torus = Torus::of(machine);
    let shard = collective.bytes_per_chip as f64;
    let mut loads = vec![0.0; torus.links()];
    let mut hops = 0;
    let mut phases = 1.0;
    for group in &collective.groups {
        match collective.kind {
            CollectiveKind::AllGather => hops = hops.max(torus.multicast_all(group, shard, &mut loads)),
            // A reduce-scatter reduces an N-th of the array towards each chip: an all-gather of
            // N-th parts, backwards, with the same loads on the opposite links.
            CollectiveKind::ReduceScatter | CollectiveKind::AllReduce => {
                hops = hops.max(torus.multicast_all(group, shard / n as f64, &mut loads));
                if collective.kind == CollectiveKind::AllReduce {
                    phases = 2.0;
                }
            }
            CollectiveKind::AllToAll => {
                let part = shard / n as f64;
                for (i, &src) in group.iter().enumerate() {
                    for (j, &dst) in group.iter().enumerate() {
                        if i != j {
                            hops = hops.max(torus.unicast(src, dst, part, &mut loads));
                        }
                    }
                }
            }
            CollectiveKind::Permute => {
                for &(s, d) in &collective.pairs {
                    hops = hops.max(torus.unicast(group[s], group[d], shard, &mut loads));
                }
            }
        }
    }
    let busiest = loads.iter().copied().fold(0.0, f64::max);
    let bandwidth_seconds = busiest / machine.ici_link_bytes_per_second;
    let latency_seconds = hops as f64 * machine.ici_hop_seconds;
    let phase_seconds = if busiest == 0.0 { latency_seconds } else { bandwidth_seconds.max(latency_seconds) };
    let seconds = phase_seconds * phases;
    let links = torus.traffic(&loads, phases);
    Ok(CollectiveTime {
        seconds,
        cycles: (seconds * machine.clock_hz).ceil() as u64,
        ici_bytes_sent: links.iter().map(|l| l.bytes).sum(),
        busiest_link_bytes: busiest * phases,
        hops: hops * phases as u32,
        latency_bound: latency_seconds > bandwidth_seconds,
        links,
    })
}

/// The slice's chips and links. Link `(chip, axis, direction)` leaves `chip` along `axis`
/// forwards (direction 0) or backwards (1).
struct Torus {
    dims: Vec<u32>,
    wrap: Vec<bool>,
}

impl Torus {
    fn of(machine: &TpuConfig) -> Torus {
        Torus { dims: machine.topology.clone(), wrap: machine.wraparound.clone() }
    }

    fn links(&self) -> usize {
        self.dims.iter().product::<u32>() as usize * self.dims.len() * 2
    }

    fn coords(&self, chip: u32) -> Vec<u32> {
        coords(&self.dims, chip)
    }

    fn chip(&self, coords: &[u32]) -> u32 {
        coords.iter().zip(&self.dims).rev().fold(0, |acc, (&c, &n)| acc * n + c)
    }

    fn link(&self, chip: u32, axis: usize, backwards: bool) -> usize {
        (chip as usize * self.dims.len() + axis) * 2 + backwards as usize
    }

    /// The ways a path may go: each rotation of the dimension order, and for an axis where both
    /// directions are equally short (a ring's antipode), forwards or backwards. Bytes are
    /// split evenly over them.
    fn variants(&self) -> Vec<(Vec<usize>, bool)> {
        let axes = self.dims.len();
        let orders: Vec<Vec<usize>> = (0..axes).map(|r| (0..axes).map(|i| (i + r) % axes).collect()).collect();
        let tie_matters = self.dims.iter().zip(&self.wrap).any(|(&n, &w)| w && n % 2 == 0 && n > 2);
        let ties: &[bool] = if tie_matters { &[false, true] } else { &[false] };
        orders.iter().flat_map(|o| ties.iter().map(move |&t| (o.clone(), t))).collect()
    }

    /// The links from `src` to `dst` in `order`, taking the backward way at a tie when
    /// `tie_backwards`.
    fn path(&self, src: u32, dst: u32, order: &[usize], tie_backwards: bool) -> Vec<usize> {
        let mut at = self.coords(src);
        let to = self.coords(dst);
        let mut links = vec![];
        for &axis in order {
            let n = self.dims[axis];
            let forward = (to[axis] + n - at[axis]) % n;
            let backwards = if self.wrap[axis] {
                let backward = n - forward;
                backward < forward || (backward == forward && tie_backwards)
            } else {
                to[axis] < at[axis]
            };
            let steps = if !self.wrap[axis] {
                to[axis].abs_diff(at[axis])
            } else if backwards {
                n - forward
            } else {
                forward
            };
            for _ in 0..steps {
                links.push(self.link(self.chip(&at), axis, backwards));
                at[axis] = if backwards { (at[axis] + n - 1) % n } else { (at[axis] + 1) % n };
            }
        }
        links
    }

    /// Sends `bytes` from `src` to `dst`, split over the variants; the path's length.
    fn unicast(&self, src: u32, dst: u32, bytes: f64, loads: &mut [f64]) -> u32 {
        let variants = self.variants();
        let share = bytes / variants.len() as f64;
        let mut hops = 0;
        for (order, tie) in &variants {
            let path = self.path(src, dst, order, *tie);
            hops = path.len() as u32;
            for l in path {
                loads[l] += share;
            }
        }
        hops
    }

    /// Every chip of `group` forwards `bytes` of its own to every other: each variant's share
    /// crosses each link of the tree its paths form once. The longest path's length.
    fn multicast_all(&self, group: &[u32], bytes: f64, loads: &mut [f64]) -> u32 {
        let variants = self.variants();
        let share = bytes / variants.len() as f64;
        let mut hops = 0;
        let mut used = vec![false; loads.len()];
        for &src in group {
            for (order, tie) in &variants {
                used.iter_mut().for_each(|u| *u = false);
                for &dst in group.iter().filter(|&&d| d != src) {
                    let path = self.path(src, dst, order, *tie);
                    hops = hops.max(path.len() as u32);
                    for l in path {
                        used[l] = true;
                    }
                }
                for (load, _) in loads.iter_mut().zip(&used).filter(|(_, &u)| u) {
                    *load += share;
                }
            }
        }
        hops
    }

    /// The links that carried bytes, `phases` times their one-phase load.
    fn traffic(&self, loads: &[f64], phases: f64) -> Vec<LinkTraffic> {
        let axes = self.dims.len();
        loads
            .iter()
            .enumerate()
            .filter(|(_, &b)| b > 0.0)
            .map(|(l, &b)| {
                let (chip, axis, backwards) = ((l / 2 / axes) as u32, (l / 2) % axes, l % 2 == 1);
                let mut to = self.coords(chip);
                let n = self.dims[axis];
                to[axis] = if backwards { (to[axis] + n - 1) % n } else { (to[axis] + 1) % n };
                LinkTraffic { from: chip, to: self.chip(&to), bytes: b * phases }
            })
            .collect()
    }
}

/// The coordinates of chip `chip` in a slice of `dims` chips per axis, counted x fastest.
pub fn coords(dims: &[u32], chip: u32) -> Vec<u32> {
    let mut rest = chip;
    dims.iter()
        .map(|&n| {
            let c = rest % n;
            rest /= n;
            c
        })
        .collect()
}
