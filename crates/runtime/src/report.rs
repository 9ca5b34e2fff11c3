//! What a run returns, and its JSON form (the `tpu run --json` and wasm `run_script` format).

use emu::Counters;
use jaxlite::{Array, Data};
use lang::{PrintItem, ScriptError};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// One compiled program of the run.
#[derive(Clone, Debug, Serialize)]
pub struct ProgramReport {
    pub name: String,
    /// How many times it ran; its counters are per call.
    pub calls: u64,
    /// Bytes copied from the host for its calls (NumPy arrays and Python lists given to it),
    /// over all of them.
    pub host_to_device_bytes: u64,
    pub counters: Counters,
    /// A single primitive run outside `jit`, rather than a traced function.
    pub eager: bool,
    /// Why the program has no counters yet: it branches on values it computes, so it is timed
    /// by its runs (`None` once it has counters).
    pub untimed: Option<String>,
    /// Whether each run is timed from the words it loaded (its branches follow its values);
    /// otherwise one timing without values holds for every call.
    #[serde(skip)]
    pub timed_by_runs: bool,
    /// Wall-clock milliseconds its compilation took (Jaxpr to program, and the timing model's
    /// pass over it), once: later calls reuse it.
    pub compile_ms: f64,
    /// Every stage of its compilation, as text: the Jaxpr, the HLO graph, the fused graph and
    /// the assembly listing.
    pub jaxpr: String,
    pub hlo: String,
    pub fused: String,
    pub asm: String,
    /// The program itself (for `tpu compile --emit bin`).
    #[serde(skip)]
    pub program: std::rc::Rc<isa::Program>,
    /// When each operation of one call ran (for `--trace`).
    #[serde(skip)]
    pub spans: std::rc::Rc<Vec<emu::Span>>,
    /// Each instruction's time over one call (for the listing), indexed like the program's.
    #[serde(skip)]
    pub per_instr: std::rc::Rc<Vec<emu::InstrTime>>,
}

/// A mapped call (`jax.pmap`) as the slice runs it: every chip runs the same programs side by
/// side, and the collectives between them cross the slice's links (`emu::ici`). Counters are
/// per call; a program's own entry in `programs` counts each chip's run as a call.
#[derive(Clone, Debug, Serialize)]
pub struct MappedReport {
    pub name: String,
    pub calls: u64,
    /// How many chips ran it (the slice's first ones).
    pub chips: usize,
    pub steps: Vec<MappedStep>,
    /// One call on the slice, from the first program's start to the last step's end: the
    /// programs' cycles plus the collectives' that no program overlaps.
    pub cycles: u64,
    pub seconds: f64,
    /// Cycles each chip spends in its programs.
    pub compute_cycles: u64,
    /// Cycles the collectives take on the links.
    pub collective_cycles: u64,
    /// Collective cycles no computation hides: `cycles − compute_cycles`. A collective runs on
    /// the links while the chips compute what does not need its result (the mapped function's
    /// equations are ordered to issue each collective as early as its operand allows).
    pub exposed_collective_cycles: u64,
    /// Bytes put onto ICI links over one call, summed over links.
    pub ici_bytes_sent: f64,
    /// Each directed link's bytes over one call.
    pub links: Vec<emu::ici::LinkTraffic>,
}

/// One step of a [`MappedReport`].
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MappedStep {
    /// A program every chip runs: its entry in the report's `programs`, its cycles, and when
    /// it runs in the call (cycles from the call's start).
    Program { name: String, program: usize, cycles: u64, start: u64, end: u64 },
    /// A collective: JAX's primitive, XLA's operation, each chip's operand bytes, and its cost.
    Collective {
        primitive: &'static str,
        hlo: &'static str,
        axis_name: String,
        /// The chips that meet in each group (all of the call's, for `pmap`; a mesh axis's size
        /// for `shard_map`).
        group_size: usize,
        bytes_per_chip: u64,
        cycles: u64,
        seconds: f64,
        hops: u32,
        latency_bound: bool,
        busiest_link_bytes: f64,
        start: u64,
        end: u64,
    },
}

#[derive(Debug)]
pub struct RunReport {
    pub prints: Vec<Vec<PrintItem>>,
    pub stdout: String,
    /// What the script wrote to standard error: warnings, `logging`, `print(file=sys.stderr)`.
    pub stderr: String,
    pub programs: Vec<ProgramReport>,
    /// The mapped calls (`jax.pmap`), one entry per function and signature.
    pub mapped: Vec<MappedReport>,
    /// Every copy between the host and the device over the run.
    pub transfers: jaxlite::Transfers,
    /// The machine the programs were compiled for and timed on.
    pub machine: emu::MachineSummary,
    pub backend: &'static str,
    pub adapter: Option<String>,
    pub backend_reason: String,
}

/// A run that did not finish: every error with its place, and what was printed before.
#[derive(Debug)]
pub struct RunFailure {
    pub errors: Vec<ScriptError>,
    pub stdout: String,
    pub stderr: String,
}

/// `bytes` over the machine's PCIe link (none on a machine without one).
fn pcie_seconds(bytes: u64, machine: &emu::MachineSummary) -> f64 {
    if machine.pcie_bytes_per_second > 0.0 {
        bytes as f64 / machine.pcie_bytes_per_second
    } else {
        0.0
    }
}

impl RunFailure {
    /// An error that belongs to no line of the script (line and column 0).
    pub fn without_location(message: String) -> RunFailure {
        RunFailure {
            errors: vec![ScriptError { message, line: 0, col: 0 }],
            stdout: String::new(),
            stderr: String::new(),
        }
    }
}

/// Elements as JSON numbers; f32 keeps its shortest digits, and non-finite values, which JSON
/// cannot hold, become the strings "NaN", "Infinity" and "-Infinity".
struct Elements<'a>(&'a Array);

fn float<S: SerializeSeq>(seq: &mut S, x: f32) -> Result<(), S::Error> {
    if x.is_finite() {
        seq.serialize_element(&x)
    } else if x.is_nan() {
        seq.serialize_element("NaN")
    } else if x > 0.0 {
        seq.serialize_element("Infinity")
    } else {
        seq.serialize_element("-Infinity")
    }
}

impl Serialize for Elements<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.size()))?;
        match &self.0.data {
            Data::F32(v) => v.iter().try_for_each(|&x| float(&mut seq, x))?,
            Data::BF16(v) => v.iter().try_for_each(|x| float(&mut seq, x.to_f32()))?,
            Data::I32(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::Bool(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::U32(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::Key(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            // Host (NumPy) arrays print as text; should one reach here, its values as floats.
            Data::I64(v) => v.iter().try_for_each(|x| seq.serialize_element(x))?,
            Data::F64(v) => v.iter().try_for_each(|&x| float(&mut seq, x as f32))?,
        }
        seq.end()
    }
}

struct Item<'a>(&'a PrintItem);

impl Serialize for Item<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            PrintItem::Text(t) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("text", t)?;
                m.end()
            }
            PrintItem::Array(a) => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("shape", a.shape())?;
                m.serialize_entry("dtype", a.dtype().name())?;
                m.serialize_entry("data", &Elements(a))?;
                m.end()
            }
        }
    }
}

/// At most this many operations of a program go into the page's timeline; Perfetto traces
/// (`--trace`) have them all.
pub const TIMELINE_SPANS: usize = 20_000;

/// The timeline's rows: one per resource that runs operations, in the order the page and
/// Perfetto show them.
pub fn track_names(mxus: u32) -> Vec<String> {
    let mut names = vec!["scalar".to_string(), "dma load".into(), "dma store".into()];
    names.extend((0..mxus).map(|m| format!("mxu{m}")));
    names.extend(["vector".into(), "xlu".into()]);
    names
}

/// The row of `track_names` a span belongs on.
pub fn track_of(span: &emu::Span, mxus: u32) -> usize {
    match span.unit {
        isa::Unit::Scalar => 0,
        isa::Unit::Dma => 1 + span.track as usize,
        isa::Unit::Mxu => 3 + span.track as usize,
        isa::Unit::Vector => 3 + mxus as usize,
        isa::Unit::CrossLane => 4 + mxus as usize,
    }
}

/// One trip of a `while` loop in a call: its `while` instruction, the cycle its test began
/// the trip, and the cycle the next test began (the trip's end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trip {
    pub instr: usize,
    pub start: u64,
    pub end: u64,
}

/// Every trip of every `while` loop of one call, in the order they end, from its spans (one per
/// operation, in run order): a test whose next operation is its loop's first instruction began
/// a trip, and that loop's next test ends it (an inner loop's trips end within their outer
/// loop's).
pub fn trips(program: &isa::Program, spans: &[emu::Span]) -> Vec<Trip> {
    let mut open: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
    let mut trips = Vec::new();
    for (k, s) in spans.iter().enumerate() {
        if !matches!(program.instrs.get(s.instr), Some(isa::Instr::While { .. })) {
            continue;
        }
        if let Some(start) = open.remove(&s.instr) {
            trips.push(Trip { instr: s.instr, start, end: s.start });
        }
        if spans.get(k + 1).is_some_and(|next| next.instr == s.instr + 1) {
            open.insert(s.instr, s.start);
        }
    }
    trips
}

/// One line of the assembly listing with the time it took: what the page's listing shows.
#[derive(Serialize)]
struct ListingLine<'a> {
    /// The instruction as the assembly prints it, and its nesting depth in loops and branches.
    text: String,
    depth: usize,
    unit: &'a str,
    #[serde(flatten)]
    time: &'a emu::InstrTime,
    /// A `while`'s trips in the call, and their mean cycles (from the test that began a trip
    /// to the test that ended it).
    #[serde(skip_serializing_if = "Option::is_none")]
    trips: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles_per_trip: Option<u64>,
}

fn listing<'a>(p: &'a ProgramReport, trips: &[Trip]) -> Vec<ListingLine<'a>> {
    let mut per_loop: std::collections::HashMap<usize, (u64, u64)> = std::collections::HashMap::new();
    for t in trips {
        let entry = per_loop.entry(t.instr).or_default();
        *entry = (entry.0 + 1, entry.1 + (t.end - t.start));
    }
    let mut depth = 0usize;
    p.program
        .instrs
        .iter()
        .zip(p.per_instr.iter())
        .enumerate()
        .map(|(i, (instr, time))| {
            // As the assembly indents: an `else` at its `if`'s depth.
            if matches!(instr, isa::Instr::End | isa::Instr::Else) {
                depth = depth.saturating_sub(1);
            }
            let (trips, cycles_per_trip) = match (instr, per_loop.get(&i)) {
                (isa::Instr::While { .. }, Some(&(n, cycles))) => (Some(n), Some(cycles / n)),
                (isa::Instr::While { .. }, None) => (Some(0), None),
                _ => (None, None),
            };
            let line =
                ListingLine { text: instr.to_string(), depth, unit: instr.unit().name(), time, trips, cycles_per_trip };
            if instr.opens_block() || matches!(instr, isa::Instr::Else) {
                depth += 1;
            }
            line
        })
        .collect()
}

/// The spans of one call as rows of `[instruction, track, start, end]`, at most
/// `TIMELINE_SPANS` of them.
#[derive(Serialize)]
struct Timeline {
    tracks: Vec<String>,
    spans: Vec<[u64; 4]>,
    truncated: bool,
    /// `[while instruction, start cycle, end cycle]` of each loop trip (see [`trips`]), at
    /// most `TIMELINE_SPANS` of them.
    trips: Vec<[u64; 3]>,
}

fn timeline(p: &ProgramReport, mxus: u32, trips: &[Trip]) -> Timeline {
    let spans = p
        .spans
        .iter()
        .filter(|s| s.end > s.start)
        .take(TIMELINE_SPANS)
        .map(|s| [s.instr as u64, track_of(s, mxus) as u64, s.start, s.end])
        .collect::<Vec<_>>();
    let truncated = p.spans.iter().filter(|s| s.end > s.start).count() > spans.len();
    let mut trips: Vec<[u64; 3]> = trips.iter().map(|t| [t.instr as u64, t.start, t.end]).collect();
    trips.sort_by_key(|t| t[1]);
    trips.truncate(TIMELINE_SPANS);
    Timeline { tracks: track_names(mxus), spans, truncated, trips }
}

impl RunReport {
    /// The JSON object documented in docs/cli.md: prints, programs (name, calls, counters),
    /// machine, backend, adapter. With `details`, also stdout, each program's every compiler
    /// stage (jaxpr, hlo, fused, asm), its listing with each instruction's cycles, its
    /// timeline, whether it ran eagerly, the machine's parameters and why the backend was chosen
    /// (what the web page shows).
    pub fn to_json(&self, details: bool) -> String {
        #[derive(Serialize)]
        struct Program<'a> {
            name: &'a str,
            calls: u64,
            counters: &'a Counters,
            host_to_device_bytes: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            eager: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            untimed: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            jaxpr: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            hlo: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            fused: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            asm: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            listing: Option<Vec<ListingLine<'a>>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            timeline: Option<Timeline>,
        }
        #[derive(Serialize)]
        struct Transfers {
            host_to_device_bytes: u64,
            host_to_device_copies: u64,
            device_to_host_bytes: u64,
            device_to_host_copies: u64,
            /// The bytes' time over the chip's PCIe link at its bandwidth, each way.
            host_to_device_seconds: f64,
            device_to_host_seconds: f64,
        }
        #[derive(Serialize)]
        struct Report<'a> {
            #[serde(skip_serializing_if = "Option::is_none")]
            ok: Option<bool>,
            prints: Vec<Vec<Item<'a>>>,
            programs: Vec<Program<'a>>,
            #[serde(skip_serializing_if = "<[_]>::is_empty")]
            mapped: &'a [MappedReport],
            transfers: Transfers,
            machine: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            machine_info: Option<&'a emu::MachineSummary>,
            backend: &'a str,
            adapter: &'a Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            backend_reason: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            stdout: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            stderr: Option<&'a str>,
        }
        let mxus = self.machine.mxus_per_core;
        let report = Report {
            ok: details.then_some(true),
            prints: self.prints.iter().map(|p| p.iter().map(Item).collect()).collect(),
            programs: self
                .programs
                .iter()
                .map(|p| {
                    // The loops' trips, read from the spans once for the listing and the timeline.
                    let trips = if details { trips(&p.program, &p.spans) } else { Vec::new() };
                    Program {
                        name: &p.name,
                        calls: p.calls,
                        counters: &p.counters,
                        host_to_device_bytes: p.host_to_device_bytes,
                        eager: details.then_some(p.eager),
                        untimed: p.untimed.as_deref(),
                        jaxpr: details.then_some(p.jaxpr.as_str()),
                        hlo: details.then_some(p.hlo.as_str()),
                        fused: details.then_some(p.fused.as_str()),
                        asm: details.then_some(p.asm.as_str()),
                        listing: details.then(|| listing(p, &trips)),
                        timeline: details.then(|| timeline(p, mxus, &trips)),
                    }
                })
                .collect(),
            mapped: &self.mapped,
            transfers: Transfers {
                host_to_device_bytes: self.transfers.host_to_device_bytes,
                host_to_device_copies: self.transfers.host_to_device_copies,
                device_to_host_bytes: self.transfers.device_to_host_bytes,
                device_to_host_copies: self.transfers.device_to_host_copies,
                host_to_device_seconds: pcie_seconds(self.transfers.host_to_device_bytes, &self.machine),
                device_to_host_seconds: pcie_seconds(self.transfers.device_to_host_bytes, &self.machine),
            },
            machine: &self.machine.name,
            machine_info: details.then_some(&self.machine),
            backend: self.backend,
            adapter: &self.adapter,
            backend_reason: details.then_some(self.backend_reason.as_str()),
            stdout: details.then_some(self.stdout.as_str()),
            stderr: details.then_some(self.stderr.as_str()),
        };
        serde_json::to_string(&report).expect("a report always serializes")
    }
}

impl RunFailure {
    /// `{"ok": false, "errors": [{"message", "line", "col"}], "stdout", "stderr"}`.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct E<'a> {
            message: &'a str,
            line: u32,
            col: u32,
        }
        #[derive(Serialize)]
        struct F<'a> {
            ok: bool,
            errors: Vec<E<'a>>,
            stdout: &'a str,
            stderr: &'a str,
        }
        let errors = self.errors.iter().map(|e| E { message: &e.message, line: e.line, col: e.col }).collect();
        serde_json::to_string(&F { ok: false, errors, stdout: &self.stdout, stderr: &self.stderr }).expect("serializes")
    }
}

impl RunReport {
    /// The timeline of every program (one call each) as Chrome trace event JSON, which
    /// Perfetto and chrome://tracing open: a process per program, a thread per unit, one
    /// complete event per operation, timestamps in microseconds of emulated time.
    pub fn trace_json(&self) -> String {
        let us = |cycles: u64| cycles as f64 / self.machine.clock_hz * 1e6;
        let mxus = self.machine.mxus_per_core;
        let mut events = Vec::new();
        for (pid, p) in self.programs.iter().enumerate() {
            let label = if p.eager { format!("{} (op by op)", p.name) } else { p.name.clone() };
            events.push(serde_json::json!({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": label}}));
            for (tid, name) in track_names(mxus).iter().enumerate() {
                events.push(serde_json::json!({
                    "ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}
                }));
            }
            for s in p.spans.iter() {
                let name = p.program.instrs.get(s.instr).map_or_else(|| "?".to_string(), |i| i.mnemonic());
                events.push(serde_json::json!({
                    "ph": "X", "name": name, "cat": s.unit.name(), "pid": pid, "tid": track_of(s, mxus),
                    "ts": us(s.start), "dur": us(s.end - s.start),
                    "args": {"instruction": s.instr, "start_cycle": s.start, "end_cycle": s.end, "done_cycle": s.done}
                }));
            }
            // Loop trips on a row of their own, an inner loop's nested in its outer one's.
            let trips = trips(&p.program, &p.spans);
            if !trips.is_empty() {
                let tid = track_names(mxus).len();
                events.push(serde_json::json!({
                    "ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": "loop trips"}
                }));
                let mut count: std::collections::HashMap<usize, u64> = std::collections::HashMap::new();
                for t in &trips {
                    let k = count.entry(t.instr).or_default();
                    events.push(serde_json::json!({
                        "ph": "X", "name": format!("trip of the while at {}", t.instr), "cat": "loop", "pid": pid,
                        "tid": tid, "ts": us(t.start), "dur": us(t.end - t.start),
                        "args": {"instruction": t.instr, "trip": *k, "start_cycle": t.start, "end_cycle": t.end}
                    }));
                    *k += 1;
                }
            }
        }
        serde_json::json!({"traceEvents": events, "displayTimeUnit": "ns"}).to_string()
    }
}
