//! A mapped call's report: its chips' programs side by side, its collectives timed over the
//! slice's links.

use crate::report::{MappedReport, MappedStep};
use emu::ici::{collective_time, Collective, CollectiveKind, LinkTraffic};
use emu::TpuConfig;
use jaxlite::collective::CollectiveOp;
use jaxlite::mapped::{self, MappedCall};
use jaxlite::{JaxError, Jaxpr};

/// The report of one call of `call` on `machine`; `program` finds a program's entry in the
/// run's report and its cycles per call, by the name and Jaxpr it was executed with.
pub fn report(
    call: &MappedCall,
    machine: &TpuConfig,
    mut program: impl FnMut(&str, &Jaxpr) -> Option<(usize, u64)>,
) -> Result<MappedReport, JaxError> {
    let mut steps = Vec::new();
    let (mut compute, mut collectives, mut ici_bytes) = (0, 0, 0.0);
    let mut links: Vec<LinkTraffic> = Vec::new();
    // The timeline: the chips compute one program at a time; the links carry one collective
    // at a time, which starts once the program before it has made its operand; a step that
    // reads a collective's result waits for it to end.
    let (mut chip_free, mut links_free) = (0u64, 0u64);
    let mut ends: Vec<u64> = Vec::new();
    let waited = |waits_for: &[usize], ends: &[u64]| waits_for.iter().map(|&w| ends[w]).max().unwrap_or(0);
    for step in &call.steps {
        match step {
            mapped::MappedStep::Program { name, jaxpr, waits_for } => {
                let (index, cycles) = program(name, jaxpr)
                    .ok_or_else(|| JaxError(format!("internal error: the mapped program {name} has no report")))?;
                compute += cycles;
                let start = chip_free.max(waited(waits_for, &ends));
                chip_free = start + cycles;
                ends.push(chip_free);
                steps.push(MappedStep::Program { name: name.clone(), program: index, cycles, start, end: chip_free });
            }
            mapped::MappedStep::Collective { op, axis_name, groups, bytes_per_chip, waits_for } => {
                let (kind, pairs) = match op {
                    CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => (CollectiveKind::AllReduce, vec![]),
                    CollectiveOp::AllGather { .. } => (CollectiveKind::AllGather, vec![]),
                    CollectiveOp::ReduceScatter { .. } => (CollectiveKind::ReduceScatter, vec![]),
                    CollectiveOp::AllToAll { .. } => (CollectiveKind::AllToAll, vec![]),
                    CollectiveOp::Ppermute { perm } => (CollectiveKind::Permute, perm.clone()),
                    CollectiveOp::AxisIndex => {
                        return Err(JaxError("internal error: axis_index is no step of a mapped call".into()))
                    }
                };
                let hlo = kind.hlo_name();
                let waits_for = waits_for.clone();
                let collective = Collective { kind, groups: groups.clone(), bytes_per_chip: *bytes_per_chip, pairs };
                let time =
                    collective_time(machine, &collective).map_err(|e| JaxError(format!("{}: {e}", op.name())))?;
                collectives += time.cycles;
                let start = chip_free.max(links_free).max(waited(&waits_for, &ends));
                links_free = start + time.cycles;
                ends.push(links_free);
                ici_bytes += time.ici_bytes_sent;
                for l in &time.links {
                    match links.iter_mut().find(|k| k.from == l.from && k.to == l.to) {
                        Some(k) => k.bytes += l.bytes,
                        None => links.push(l.clone()),
                    }
                }
                steps.push(MappedStep::Collective {
                    primitive: op.name(),
                    hlo,
                    axis_name: axis_name.clone(),
                    group_size: groups.first().map_or(0, Vec::len),
                    bytes_per_chip: *bytes_per_chip,
                    cycles: time.cycles,
                    seconds: time.seconds,
                    hops: time.hops,
                    latency_bound: time.latency_bound,
                    busiest_link_bytes: time.busiest_link_bytes,
                    start,
                    end: links_free,
                });
            }
        }
    }
    links.sort_by_key(|l| (l.from, l.to));
    let cycles = chip_free.max(links_free);
    Ok(MappedReport {
        name: call.name.clone(),
        calls: 1,
        chips: call.devices.len(),
        steps,
        cycles,
        seconds: cycles as f64 / machine.clock_hz,
        compute_cycles: compute,
        collective_cycles: collectives,
        exposed_collective_cycles: cycles - compute,
        ici_bytes_sent: ici_bytes,
        links,
    })
}
