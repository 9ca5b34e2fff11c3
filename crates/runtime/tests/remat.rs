//! `jax.checkpoint` on the machine: the backward pass a checkpoint leaves computes again what
//! the forward pass did not keep, so a program's counters show the recomputation its policy
//! asks for, and nothing more.

use emu::Counters;
use runtime::{BackendChoice, Engine, RunOptions};

/// The counters of the one jitted program in a run of `script` (which defines `step`).
fn step_counters(script: &str) -> Counters {
    let head = "import jax\nimport jax.numpy as jnp\nP = jax.checkpoint_policies\n";
    let body = "x = jnp.ones((128, 256)) * 0.01\nw = jnp.ones((256, 128)) * 0.02\nv = jnp.ones((128, 128)) * 0.03\n\
                def loss(w, v, x):\n    return jnp.sum(jnp.tanh(x @ w) @ v)\n";
    let script = format!("{head}{body}{script}\nprint(step(w, v, x))\n");
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let report = match pollster::block_on(Engine::new().run_script(&script, &opts)) {
        Ok(report) => report,
        Err(failure) => panic!("run failed: {:?}\n{script}", failure.errors),
    };
    let programs: Vec<_> = report.programs.iter().filter(|p| !p.eager).collect();
    let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(programs.len(), 1, "one jitted program, got {names:?}");
    programs[0].counters.clone()
}

#[test]
fn a_checkpoint_recomputes_what_its_policy_does_not_save() {
    let plain = step_counters("step = jax.jit(jax.grad(loss))");
    let remat = step_counters("step = jax.jit(jax.grad(jax.checkpoint(loss)))");
    let dots_saved = step_counters("step = jax.jit(jax.grad(jax.checkpoint(loss, policy=P.dots_saveable)))");
    // Without checkpoint the gradient with respect to w needs x @ w once (forward) and two
    // matmuls backward. Nothing saved: x @ w runs again in the backward pass, one matmul of
    // 128 x 256 x 128 multiply-accumulates more.
    assert_eq!(remat.mxu_macs, plain.mxu_macs + 128 * 256 * 128, "plain {plain:?}\nremat {remat:?}");
    // Dots saved: the matmul is kept, only tanh is computed again (on the vector unit).
    assert_eq!(dots_saved.mxu_macs, plain.mxu_macs);
    assert!(dots_saved.vector_busy_cycles > plain.vector_busy_cycles, "tanh recomputed");
    assert!(remat.cycles > dots_saved.cycles && dots_saved.cycles > plain.cycles);
}
