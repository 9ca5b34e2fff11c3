//! `jax.jit(f).lower(...).compile()`: the program compiled and timed without values. Its
//! counters must be those a run with values gets (the timing model never reads a value, except
//! the words a branch tests), and sizes past what the emulator computes must still compile.

use runtime::{BackendChoice, Engine, ProgramReport, RunOptions, RunReport};

fn run(script: &str) -> RunReport {
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    match pollster::block_on(Engine::new().run_script(script, &opts)) {
        Ok(report) => report,
        Err(failure) => panic!("run failed: {:?}\n{script}", failure.errors),
    }
}

fn only(report: &RunReport, name: &str) -> ProgramReport {
    let found: Vec<&ProgramReport> = report.programs.iter().filter(|p| p.name == name).collect();
    assert_eq!(
        found.len(),
        1,
        "one program named {name}: {:?}",
        report.programs.iter().map(|p| &p.name).collect::<Vec<_>>()
    );
    found[0].clone()
}

/// `body` defines `f` and `args` (a tuple of arrays); the program compiled from their types
/// alone has the counters of the program that ran on their values.
fn compiled_equals_run(body: &str) -> ProgramReport {
    let head = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n";
    let ahead = run(&format!(
        "{head}{body}\ntypes = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]\nc = jax.jit(f).lower(*types).compile()\n"
    ));
    let ran = run(&format!("{head}{body}\nprint(jax.jit(f)(*args))\n"));
    let (before, after) = (only(&ahead, "f"), only(&ran, "f"));
    assert_eq!((before.calls, after.calls), (0, 1), "compiling runs nothing");
    assert!(before.counters.cycles > 0, "timed without values:\n{body}");
    assert_eq!(before.counters, after.counters, "{body}");
    assert_eq!(before.untimed, None);
    before
}

#[test]
fn a_compiled_program_has_the_counters_of_its_run() {
    // Straight-line code: a matmul and its epilogue.
    compiled_equals_run(
        "def f(x, w):\n    return jnp.tanh(x @ w) + 1.0\nargs = (jnp.ones((64, 256)), jnp.full((256, 128), 0.01))",
    );
    // A window at a computed index inside a loop on the machine: the scalar unit loads the
    // index, which moves an HBM address and nothing else.
    let p = compiled_equals_run(
        "def f(x):\n    return lax.fori_loop(0, 16, lambda i, acc: acc + lax.dynamic_slice_in_dim(x, i * 8, 8), jnp.zeros((8, 128)))\nargs = (jnp.arange(128 * 128.0).reshape(128, 128),)",
    );
    assert!(p.program.reads_scalars(), "the index is a value the program computed");
    // Rows gathered by an index array.
    compiled_equals_run(
        "def f(x, i):\n    return x[i] * 2.0\nargs = (jnp.ones((4096, 512)), jnp.array([3, 1, 4, 1, 5]))",
    );
}

#[test]
fn a_program_that_branches_on_its_values_is_timed_by_its_runs() {
    let script = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\
        f = jax.jit(lambda x: lax.while_loop(lambda c: c.sum() < 100.0, lambda c: c * 2.0, x))\n\
        c = f.lower(jax.ShapeDtypeStruct((8, 128), jnp.float32)).compile()\n";
    let before = only(&run(script), "<lambda>");
    assert_eq!(before.counters.cycles, 0);
    let why = before.untimed.expect("the report says why it has no counters");
    assert!(why.contains("branches on s") && why.contains("a run without values does not have"), "{why}");
    let after = only(&run(&format!("{script}print(c(jnp.full((8, 128), 0.01)).sum())\n")), "<lambda>");
    assert!(after.counters.cycles > 0 && after.untimed.is_none());
}

#[test]
fn full_size_programs_compile_and_time_without_values() {
    // 128 MiB of bf16 weights: past what the playground computes, but not what a v5e holds.
    let report = run("import jax\nimport jax.numpy as jnp\n\
        mv = jax.jit(lambda x, w: jnp.dot(x, w, preferred_element_type=jnp.float32))\n\
        bf = jnp.bfloat16\n\
        c = mv.lower(jax.ShapeDtypeStruct((8, 8192), bf), jax.ShapeDtypeStruct((8192, 8192), bf)).compile()\n\
        print(c.cost_analysis()['flops'] >= 2 * 8 * 8192 * 8192, c.memory_analysis().argument_size_in_bytes)\n");
    assert_eq!(report.stdout, "True 134348800\n");
    let p = only(&report, "<lambda>");
    // Every weight is read once, at two bytes each (bf16 is packed in HBM), and little else.
    let weights = 8192 * 8192 * 2;
    let read = p.counters.hbm_bytes_read;
    assert!(read >= weights && read < weights + weights / 10, "{read}");
    assert!(p.counters.cycles > 0 && p.counters.flops >= 2 * 8 * 8192 * 8192);
    // Past the chip's HBM is XLA's RESOURCE_EXHAUSTED, raised by compile().
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let script = "import jax\nimport jax.numpy as jnp\n\
        big = jax.jit(lambda w: w * 2.0).lower(jax.ShapeDtypeStruct((50000, 50000), jnp.float32))\n\
        try:\n    big.compile()\nexcept Exception as e:\n    print(type(e).__name__, str(e)[:42])\n";
    let report = pollster::block_on(Engine::new().run_script(script, &opts)).expect("the error is caught");
    assert_eq!(report.stdout, "JaxRuntimeError RESOURCE_EXHAUSTED: <lambda> needs 18.6 Gi\n", "{}", report.stdout);
}

/// With bf16 packed in HBM as on the chip, a v5e's bf16 programs land near their roofline: a
/// large matmul near the MXUs' peak, a matrix-vector product near HBM's bandwidth (issue 30).
#[test]
fn bf16_programs_land_near_their_bounds_on_v5e() {
    let v5e = emu::TpuConfig::v5e();
    let report = run("import jax\nimport jax.numpy as jnp\nbf = jnp.bfloat16\n\
        dot = lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32)\n\
        def matmul(a, b):\n    return dot(a, b)\n\
        def matvec(x, w):\n    return dot(x, w)\n\
        jax.jit(matmul).lower(jax.ShapeDtypeStruct((2048, 2048), bf), jax.ShapeDtypeStruct((2048, 2048), bf)).compile()\n\
        jax.jit(matvec).lower(jax.ShapeDtypeStruct((1, 8192), bf), jax.ShapeDtypeStruct((8192, 8192), bf)).compile()\n");
    let matmul = only(&report, "matmul").counters;
    let compute_bound = matmul.flops as f64 / v5e.peak_bf16_flops_per_core();
    assert!(compute_bound / matmul.seconds > 0.85, "{} s against a bound of {compute_bound} s", matmul.seconds);
    let matvec = only(&report, "matvec").counters;
    // The weight's 128 MiB at two bytes a value, read once.
    let weight = 8192.0 * 8192.0 * 2.0;
    assert!(matvec.hbm_bytes_read as f64 >= weight && (matvec.hbm_bytes_read as f64) < weight * 1.01);
    let memory_bound = weight / v5e.hbm_bytes_per_second;
    assert!(memory_bound / matvec.seconds > 0.8, "{} s against a bound of {memory_bound} s", matvec.seconds);
}

#[test]
fn a_broadcast_longer_than_a_tile_of_vmem_is_copied_in_pieces() {
    // A causal mask broadcast over heads is one contiguous run per head; on a machine with
    // 1 MiB of VMEM a run of 256·128 words is past a tile of 8 rows, so it is cut into rows.
    let mut machine = emu::TpuConfig::v5e();
    machine.vmem_bytes = 1 << 20;
    let opts = RunOptions { backend: BackendChoice::Cpu, machine, ..RunOptions::default() };
    let script = "import jax\nimport jax.numpy as jnp\n\
        mask = jnp.arange(256 * 128).reshape(256, 128) % 3 == 0\n\
        s = jnp.arange(3 * 256 * 128.0).reshape(3, 256, 128)\n\
        out = jax.jit(lambda m, s: jnp.where(m, s, -1.0))(mask, s)\n\
        expected = jnp.where(jnp.broadcast_to(mask, (3, 256, 128)), s, -1.0)\n\
        print(bool((out == expected).all()))\n";
    // Without the cut, compiling it fails ("a tile of 8 rows needs 65536 words of VMEM").
    let report = pollster::block_on(Engine::new().run_script(script, &opts)).expect("it compiles and runs");
    assert_eq!(report.stdout, "True\n");
}
