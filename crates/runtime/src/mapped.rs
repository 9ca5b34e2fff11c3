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
    let group: Vec<u32> = (0..call.chips as u32).collect();
    let mut steps = Vec::new();
    let (mut compute, mut collectives, mut ici_bytes) = (0, 0, 0.0);
    let mut links: Vec<LinkTraffic> = Vec::new();
    for step in &call.steps {
        match step {
            mapped::MappedStep::Program { name, jaxpr } => {
                let (index, cycles) = program(name, jaxpr)
                    .ok_or_else(|| JaxError(format!("internal error: the mapped program {name} has no report")))?;
                compute += cycles;
                steps.push(MappedStep::Program { name: name.clone(), program: index, cycles });
            }
            mapped::MappedStep::Collective { op, axis_name, bytes_per_chip } => {
                let (kind, pairs) = match op {
                    CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => (CollectiveKind::AllReduce, vec![]),
                    CollectiveOp::AllGather { .. } => (CollectiveKind::AllGather, vec![]),
                    CollectiveOp::ReduceScatter { .. } => (CollectiveKind::ReduceScatter, vec![]),
                    CollectiveOp::AllToAll { .. } => (CollectiveKind::AllToAll, vec![]),
                    CollectiveOp::Ppermute { perm } => (CollectiveKind::Permute, perm.clone()),
                    CollectiveOp::AxisIndex => continue,
                };
                let hlo = kind.hlo_name();
                let collective = Collective { kind, group: group.clone(), bytes_per_chip: *bytes_per_chip, pairs };
                let time =
                    collective_time(machine, &collective).map_err(|e| JaxError(format!("{}: {e}", op.name())))?;
                collectives += time.cycles;
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
                    bytes_per_chip: *bytes_per_chip,
                    cycles: time.cycles,
                    seconds: time.seconds,
                    hops: time.hops,
                    latency_bound: time.latency_bound,
                    busiest_link_bytes: time.busiest_link_bytes,
                });
            }
        }
    }
    links.sort_by_key(|l| (l.from, l.to));
    let cycles = compute + collectives;
    Ok(MappedReport {
        name: call.name.clone(),
        calls: 1,
        chips: call.chips,
        steps,
        cycles,
        seconds: cycles as f64 / machine.clock_hz,
        compute_cycles: compute,
        collective_cycles: collectives,
        exposed_collective_cycles: collectives,
        ici_bytes_sent: ici_bytes,
        links,
    })
}
