//! Programs with loops and branches through the engine: a `while` loop runs on the machine,
//! one program whatever the trip count; a scan's parts are compiled once whatever its length
//! (only their calls grow); a `cond` runs and counts only the branch taken; both backends give
//! the same bits and counters; and a loop that never ends stops at the step budget instead of
//! hanging.

use runtime::{BackendChoice, Engine, Limits, RunOptions, RunReport};

/// A jitted loop whose trip count is the argument: halving `x` until it is at most 1.
fn script(x: f64) -> String {
    format!(
        "import jax\nfrom jax import lax\n\n\
         @jax.jit\n\
         def halvings(x):\n    \
             y = x * 2.0\n    \
             n = lax.while_loop(lambda c: c[0] > 1.0, lambda c: (c[0] / 2.0, c[1] + 1), (y, 0))[1]\n    \
             return n + 1\n\n\
         print(halvings({x:?}))\n"
    )
}

fn run(source: &str, backend: BackendChoice, limits: Limits) -> Result<RunReport, String> {
    let opts = RunOptions { backend, limits, ..RunOptions::default() };
    pollster::block_on(Engine::new().run_script(source, &opts)).map_err(|f| format!("{:?}", f.errors))
}

/// Each program's name, calls and instruction count.
fn programs(report: &RunReport) -> Vec<(String, u64, usize)> {
    report.programs.iter().map(|p| (p.name.clone(), p.calls, p.program.instrs.len())).collect()
}

#[test]
fn a_loop_is_compiled_once_whatever_its_trip_count() {
    let short = run(&script(3.0), BackendChoice::Cpu, Limits::default()).unwrap();
    let long = run(&script(3.0e30), BackendChoice::Cpu, Limits::default()).unwrap();
    // 6 → 3 → 1.5 → 0.75: three halvings (and one added); 6e30 takes 103.
    assert_eq!(short.stdout, "4\n");
    assert_eq!(long.stdout, "104\n");
    // One program, its loop run by the machine's scalar unit: the same instructions whatever
    // the trip count, one call each.
    assert_eq!(programs(&short), programs(&long));
    assert_eq!(programs(&short).iter().map(|p| (p.0.as_str(), p.1)).collect::<Vec<_>>(), [("halvings", 1)]);
    let (short, long) = (&short.programs[0], &long.programs[0]);
    let test = short.program.instrs.iter().position(|i| matches!(i, isa::Instr::While { .. })).expect("a while");
    // The test runs once more than the body; the counters are those of the trips taken.
    assert_eq!(short.per_instr[test].executions, 4);
    assert_eq!(long.per_instr[test].executions, 104);
    // 100 more trips, each at least its test and its predicate's load.
    let per_trip = (long.counters.cycles - short.counters.cycles) / 100;
    assert!(per_trip >= 8 + 16 && long.counters.cycles > 10 * short.counters.cycles, "{per_trip} cycles a trip");
    assert!(short.counters.scalar_cycles > 0);
}

#[test]
fn an_endless_loop_stops_at_the_step_budget() {
    let source = "from jax import lax\nimport jax.numpy as jnp\nprint(lax.while_loop(lambda x: x >= 0.0, lambda x: x + 1.0, jnp.float32(0.0)))\n";
    let limits = Limits { steps: 500, ..Limits::default() };
    let error = run(source, BackendChoice::Cpu, limits).unwrap_err();
    assert!(error.contains("the program's loops ran 500 trips and this one's condition still held"), "{error}");
    assert!(error.contains("line: 3"), "the error names the call's line: {error}");
    // What JAX raises when a device fails a program.
    assert!(error.contains("JaxRuntimeError"), "{error}");
}

#[test]
fn both_backends_run_a_loop_alike() {
    let cpu = run(&script(3.0e5), BackendChoice::Cpu, Limits::default()).unwrap();
    let gpu = run(&script(3.0e5), BackendChoice::Gpu, Limits::default())
        .expect("a GPU adapter (lavapipe where there is no hardware one) must be present");
    assert_eq!(cpu.stdout, gpu.stdout);
    assert_eq!(programs(&cpu), programs(&gpu));
    for (c, g) in cpu.programs.iter().zip(&gpu.programs) {
        assert_eq!(c.counters.cycles, g.counters.cycles, "{}", c.name);
    }
}

/// A jitted scan of `n` steps: a running sum of sines, and the last of the products it carries.
fn scan_script(n: usize) -> String {
    format!(
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\
         @jax.jit\n\
         def running(xs):\n    \
             total, ys = lax.scan(lambda c, x: (c + jnp.sin(x), c * x), 0.0, xs)\n    \
             return total, ys[-1]\n\n\
         total, last = running(jnp.arange({n}, dtype=jnp.float32) / {n})\n\
         print(total.shape, last.shape)\n"
    )
}

#[test]
fn a_scan_is_compiled_once_whatever_its_length() {
    let short = run(&scan_script(100), BackendChoice::Cpu, Limits::default()).unwrap();
    let long = run(&scan_script(20_000), BackendChoice::Cpu, Limits::default()).unwrap();
    assert_eq!(short.stdout, "() ()\n");
    // One program whose loop the machine runs: the same instructions whatever the length.
    let running = |r: &RunReport| r.programs.iter().find(|p| p.name == "running").expect("the program").clone();
    let (short, long) = (running(&short), running(&long));
    assert_eq!((short.calls, long.calls), (1, 1));
    assert_eq!(short.program.instrs.len(), long.program.instrs.len());
    let test = short.program.instrs.iter().position(|i| matches!(i, isa::Instr::While { .. })).expect("a while");
    assert_eq!(short.per_instr[test].executions, 101);
    assert_eq!(long.per_instr[test].executions, 20_001);
    // The body's flops count on every trip (a sin, an add and a multiply at least).
    let more = long.counters.flops - short.counters.flops;
    assert!(more % 19_900 == 0 && more / 19_900 >= 3, "{} then {} flops", short.counters.flops, long.counters.flops);
}

/// A scan over layers, as real models loop over them: the weights and activations in bf16 move
/// two bytes a value through the linked program (carries, rows of `xs`, windows), half what
/// the same loop in float32 moves.
#[test]
fn a_bf16_loop_moves_half_the_bytes_of_a_float32_one() {
    let layers = |dtype: &str| {
        format!(
            "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\
             @jax.jit\n\
             def layers(ws, x):\n    \
                 return lax.scan(lambda h, w: (jnp.tanh(h @ w), None), x, ws)[0]\n\n\
             ws = jnp.ones((6, 256, 256), jnp.{dtype}) / 256\n\
             print(layers(ws, jnp.ones((8, 256), jnp.{dtype})).dtype)\n"
        )
    };
    let moved = |dtype: &str| {
        let report = run(&layers(dtype), BackendChoice::Cpu, Limits::default()).unwrap();
        assert_eq!(report.stdout, format!("{dtype}\n"));
        let p = report.programs.iter().find(|p| p.name == "layers").expect("the program");
        assert!(
            p.program.instrs.iter().any(|i| matches!(i, isa::Instr::While { .. })),
            "linked, its loop on the machine"
        );
        p.counters.hbm_bytes_read + p.counters.hbm_bytes_written
    };
    let (f32_bytes, bf16_bytes) = (moved("float32"), moved("bfloat16"));
    // Each of the 6 weights (256 KiB in float32) is read once.
    assert!(f32_bytes >= 6 * 256 * 256 * 4, "{f32_bytes}");
    // (A word the loop's control loads is four bytes in both.)
    assert!(
        (bf16_bytes * 2).abs_diff(f32_bytes) <= f32_bytes / 100,
        "{bf16_bytes} bytes in bf16, {f32_bytes} in float32"
    );
}

#[test]
fn a_scan_past_the_step_budget_is_an_error_naming_it() {
    let limits = Limits { steps: 50_000, ..Limits::default() };
    let error = run(&scan_script(60_000), BackendChoice::Cpu, limits).unwrap_err();
    assert!(error.contains("running failed"), "{error}");
    assert!(error.contains("loops ran 50000 trips"), "{error}");
}

/// A jitted `cond` between a cheap branch (one add) and a dear one (eight matmuls), called with
/// `pred`, and each branch jitted on its own.
fn cond_script(pred: bool, n: usize) -> String {
    let pred = if pred { "True" } else { "False" };
    format!(
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\
         def cheap(x):\n    return x + 1.0\n\n\
         def dear(x):\n    for _ in range(8):\n        x = jnp.tanh(x @ x)\n    return x\n\n\
         @jax.jit\n\
         def pick(p, x):\n    return lax.cond(p, dear, cheap, x)\n\n\
         x = jnp.ones(({n}, {n})) / {n}\n\
         print(pick({pred}, x)[0, 0])\n\
         print(jax.jit(dear)(x)[0, 0], jax.jit(cheap)(x)[0, 0])\n"
    )
}

/// The cycles of the program called `name`.
fn cycles(report: &RunReport, name: &str) -> u64 {
    let program = report.programs.iter().find(|p| p.name == name);
    program.unwrap_or_else(|| panic!("no program {name} in {:?}", programs(report))).counters.cycles
}

#[test]
fn a_cond_runs_and_counts_only_the_branch_taken() {
    let mut picked = Vec::new();
    for pred in [true, false] {
        let report = run(&cond_script(pred, 256), BackendChoice::Cpu, Limits::default()).unwrap();
        let lines: Vec<&str> = report.stdout.lines().collect();
        let (dear, cheap) = lines[1].split_once(' ').unwrap();
        assert_eq!(lines[0], if pred { dear } else { cheap });
        // One program; the branch not taken has instructions that never run.
        let pick = report.programs.iter().find(|p| p.name == "pick").expect("the program pick");
        let test = pick.program.instrs.iter().position(|i| matches!(i, isa::Instr::If { .. })).expect("an if");
        assert_eq!(pick.per_instr[test].executions, 1);
        let skipped = pick
            .per_instr
            .iter()
            .zip(&pick.program.instrs)
            .filter(|(t, i)| t.executions == 0 && !matches!(i, isa::Instr::Else | isa::Instr::End));
        assert!(skipped.count() > 0, "the other branch's instructions do not run");
        picked.push((cycles(&report, "pick"), cycles(&report, "dear"), cycles(&report, "cheap")));
        // So do the flops: the taken branch's (and the predicate's), never the other's.
        let flops = |name: &str| report.programs.iter().find(|p| p.name == name).unwrap().counters.flops;
        let (taken, other) = if pred { (flops("dear"), flops("cheap")) } else { (flops("cheap"), flops("dear")) };
        assert!(flops("pick") >= taken && flops("pick") < taken + other, "{} for {taken}", flops("pick"));
    }
    // The branch taken costs what the function costs on its own, and a little for the cond's
    // index and copies; the other adds nothing.
    let [(pick_dear, dear, cheap), (pick_cheap, _, _)] = picked[..] else { unreachable!() };
    assert!(dear > 10 * cheap, "{dear} vs {cheap}");
    assert!(pick_dear >= dear && pick_dear < dear + 5 * cheap.max(2000), "{pick_dear} vs {dear}");
    assert!(pick_cheap < dear / 5, "{pick_cheap} vs {dear}");
}

#[test]
fn both_backends_run_a_cond_alike() {
    let cpu = run(&cond_script(true, 64), BackendChoice::Cpu, Limits::default()).unwrap();
    let gpu = run(&cond_script(true, 64), BackendChoice::Gpu, Limits::default())
        .expect("a GPU adapter (lavapipe where there is no hardware one) must be present");
    assert_eq!(cpu.stdout, gpu.stdout);
    assert_eq!(programs(&cpu), programs(&gpu));
    for (c, g) in cpu.programs.iter().zip(&gpu.programs) {
        assert_eq!(c.counters.cycles, g.counters.cycles, "{}", c.name);
    }
}

/// Two `fori_loop`s with bounds the arguments give (so `while` loops), one inside the other,
/// summing `i * j`.
fn nested_script(n: usize, m: usize) -> String {
    format!(
        "import jax\nfrom jax import lax\n\n\
         @jax.jit\n\
         def pairs(n, m):\n    \
             def row(i, total):\n        \
                 return lax.fori_loop(0, m, lambda j, t: t + i * j, total)\n    \
             return lax.fori_loop(0, n, row, 0)\n\n\
         print(pairs({n}, {m}))\n"
    )
}

#[test]
fn loops_nest_on_the_machine() {
    let report = run(&nested_script(7, 5), BackendChoice::Cpu, Limits::default()).unwrap();
    // (0 + 1 + … + 6) · (0 + 1 + … + 4)
    assert_eq!(report.stdout, "210\n");
    assert_eq!(programs(&report).iter().map(|p| (p.0.as_str(), p.1)).collect::<Vec<_>>(), [("pairs", 1)]);
    let pairs = &report.programs[0];
    let whiles: Vec<u64> = pairs
        .program
        .instrs
        .iter()
        .zip(pairs.per_instr.iter())
        .filter(|(i, _)| matches!(i, isa::Instr::While { .. }))
        .map(|(_, t)| t.executions)
        .collect();
    // The outer loop tests 8 times; the inner one 6 times on each of the 7 outer trips.
    assert_eq!(whiles, [8, 42]);
    let bigger = run(&nested_script(30, 40), BackendChoice::Cpu, Limits::default()).unwrap();
    assert_eq!(bigger.stdout, format!("{}\n", (29 * 30 / 2) * (39 * 40 / 2)));
    assert_eq!(bigger.programs[0].program.instrs.len(), pairs.program.instrs.len());
}

#[test]
fn the_listing_and_timeline_show_each_loops_trips() {
    let report = run(&nested_script(7, 5), BackendChoice::Cpu, Limits::default()).unwrap();
    let pairs = &report.programs[0];
    let whiles: Vec<usize> = pairs
        .program
        .instrs
        .iter()
        .enumerate()
        .filter(|(_, i)| matches!(i, isa::Instr::While { .. }))
        .map(|(k, _)| k)
        .collect();
    let (outer, inner) = (whiles[0], whiles[1]);
    let trips = runtime::trips(&pairs.program, &pairs.spans);
    let of = |w: usize| trips.iter().filter(|t| t.instr == w).copied().collect::<Vec<_>>();
    let (outer_trips, inner_trips) = (of(outer), of(inner));
    assert_eq!((outer_trips.len(), inner_trips.len()), (7, 35));
    // An outer trip holds its 5 inner trips, one after another.
    for (k, o) in outer_trips.iter().enumerate() {
        let held: Vec<_> = inner_trips.iter().filter(|t| o.start < t.start && t.end < o.end).collect();
        assert_eq!(held.len(), 5, "outer trip {k}");
        assert!(held.windows(2).all(|w| w[0].end <= w[1].start));
    }
    // The listing's `while` lines say as much, with their mean cycles; the timeline has a mark
    // per trip.
    let json: serde_json::Value = serde_json::from_str(&report.to_json(true)).unwrap();
    let program = &json["programs"][0];
    let line = |k: usize| &program["listing"][k];
    assert_eq!(line(outer)["trips"], 7);
    assert_eq!(line(inner)["trips"], 35);
    let mean = |t: &[runtime::Trip]| t.iter().map(|t| t.end - t.start).sum::<u64>() / t.len() as u64;
    assert_eq!(line(outer)["cycles_per_trip"], mean(&outer_trips));
    assert!(mean(&outer_trips) > 5 * mean(&inner_trips));
    assert!(
        line(outer + 1)["depth"].as_u64() < line(inner + 1)["depth"].as_u64(),
        "a body is indented under its while"
    );
    assert_eq!(program["timeline"]["trips"].as_array().unwrap().len(), 42);
}

/// A jitted function reading row `i` of a `rows`×512 array and writing it back plus 1 with
/// `dynamic_update_slice`, `i` an argument.
fn row_script(rows: usize, i: i64) -> String {
    format!(
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\
         @jax.jit\n\
         def bump(x, i):\n    \
             row = x[i]\n    \
             return row, lax.dynamic_update_slice(x, row[None] + 1.0, (i, 0))\n\n\
         x = jnp.arange({rows} * 512, dtype=jnp.float32).reshape({rows}, 512)\n\
         row, y = bump(x, {i})\n\
         print(row[:3], y[{i}, :3], (y - x).sum())\n"
    )
}

#[test]
fn a_row_at_a_computed_index_is_moved_by_itself() {
    let report = run(&row_script(1024, 3), BackendChoice::Cpu, Limits::default()).unwrap();
    assert_eq!(report.stdout, "[1536. 1537. 1538.] [1537. 1538. 1539.] 512.0\n");
    // Negative indices count from the end, as NumPy's do.
    let last = run(&row_script(1024, -1), BackendChoice::Cpu, Limits::default()).unwrap();
    assert_eq!(last.stdout, "[523776. 523777. 523778.] [523777. 523778. 523779.] 512.0\n");
    let bump = report.programs.iter().find(|p| p.name == "bump").expect("the program bump");
    let asm = bump.program.to_string();
    assert!(asm.contains("*s4]"), "a DMA at the address computed from i:\n{asm}");
    // The slice reads one row (2 KiB); the update copies the array once (2 MiB) and writes
    // its row. A selection would read the whole array for the slice and compare every
    // position with the index, and read it again for the update.
    let array = 1024 * 512 * 4;
    let read = bump.counters.hbm_bytes_read;
    assert!(read < array + array / 64, "{read} bytes read");
    assert!(bump.counters.vector_busy_cycles < 1000, "{} vector cycles", bump.counters.vector_busy_cycles);
}

/// The browser benchmark's loop (`bench_loop`) runs its trips on both backends: after `n`
/// trips of `x * 0.5 + 1` from zeros, every element is `2 − 2^(1−n)`.
#[test]
fn the_benchmark_loop_runs_its_trips_on_both_backends() {
    let program = runtime::benchmark::loop_program().unwrap();
    let mut gpu = pollster::block_on(gpu::GpuBackend::new())
        .expect("a GPU adapter (lavapipe where there is no hardware one) must be present");
    for trips in [0u32, 1, 5] {
        let inputs = runtime::benchmark::loop_inputs(trips);
        let want = if trips == 0 { 0.0 } else { 2.0 - 2f32.powi(1 - trips as i32) };
        let cpu = emu::CpuBackend.run_sync(&program, &inputs).unwrap();
        assert!(cpu[0].iter().all(|&w| f32::from_bits(w) == want), "{trips} trips");
        let on_gpu = pollster::block_on(gpu.run_program(&program, &inputs)).unwrap().outputs;
        assert_eq!(on_gpu, cpu, "{trips} trips");
    }
}

/// `lax.scan(..., unroll=k)` on the machine, as XLA compiles it: each trip of one loop runs k
/// copies of the body, a second loop the rows left over; the values are the plain scan's.
#[test]
fn an_unrolled_scan_runs_k_steps_a_trip() {
    let script = |unroll: usize, reverse: bool| {
        format!(
            "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\
             @jax.jit\n\
             def running(xs):\n    \
                 return lax.scan(lambda c, x: (c * 0.5 + jnp.sin(x), c), 1.0, xs, unroll={unroll}, reverse={})\n\n\
             total, ys = running(jnp.arange(10, dtype=jnp.float32) / 10)\n\
             print(total, ys)\n",
            if reverse { "True" } else { "False" }
        )
    };
    for reverse in [false, true] {
        let plain = run(&script(1, reverse), BackendChoice::Cpu, Limits::default()).unwrap();
        let unrolled = run(&script(4, reverse), BackendChoice::Cpu, Limits::default()).unwrap();
        assert_eq!(unrolled.stdout, plain.stdout);
        let running = |r: &RunReport| r.programs.iter().find(|p| p.name == "running").expect("the program").clone();
        let (plain, unrolled) = (&running(&plain), &running(&unrolled));
        assert_eq!((plain.calls, unrolled.calls), (1, 1));
        let tests = |p: &runtime::ProgramReport| -> Vec<u64> {
            p.program
                .instrs
                .iter()
                .zip(p.per_instr.iter())
                .filter(|(i, _)| matches!(i, isa::Instr::While { .. }))
                .map(|(_, t)| t.executions)
                .collect()
        };
        // Ten rows: two trips of four steps, then two single steps.
        assert_eq!(tests(plain), [11]);
        assert_eq!(tests(unrolled), [3, 3]);
        assert!(unrolled.program.instrs.len() > 4 * plain.program.instrs.len() / 2, "four copies of the body");
        assert!(unrolled.counters.cycles < plain.counters.cycles, "fewer trips, fewer loop overheads");
    }
}

/// `x[i]` with an integer array `i` is a gather; on a large `x` the machine reads just the rows
/// `i` names (a loop of DMAs at computed addresses), where selections would read all of `x`
/// once per index.
#[test]
fn a_gather_of_rows_reads_just_those_rows() {
    let script = "import jax\nimport jax.numpy as jnp\n\n\
                  x = jnp.arange(4096 * 512, dtype=jnp.float32).reshape(4096, 512)\n\
                  rows = jax.jit(lambda a, i: a[i])(x, jnp.array([5, 4095, -1, 0, 7000, 17, 2, 3]))\n\
                  print(rows[:, 0].astype(jnp.int32))\n";
    let report = run(script, BackendChoice::Cpu, Limits::default()).unwrap();
    // Negative indices count from the end; one past it is clamped, as XLA clamps.
    assert_eq!(report.stdout, "[   2560 2096640 2096640       0 2096640    8704    1024    1536]\n");
    let gather = report.programs.iter().find(|p| p.name == "<lambda>").expect("the program");
    assert_eq!(gather.calls, 1);
    let row_bytes = 512 * 4;
    let read = gather.counters.hbm_bytes_read;
    assert!(read >= 8 * row_bytes && read < 9 * row_bytes, "{read} bytes read for 8 rows of {row_bytes}");
    assert!(gather.program.instrs.iter().any(|i| matches!(i, isa::Instr::While { .. })), "a loop over the indices");
}
