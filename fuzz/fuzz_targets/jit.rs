//! The compiler and emulator on generated JAX programs: the fuzzer's bytes choose input shapes
//! and a chain of `jnp` operations (elementwise, broadcasting, reductions, reshapes, slices,
//! transposes, concatenation, matmuls, softmax, cumsum, selects, random draws from keys
//! mapped over by `vmap`), written out as a script that
//! calls the function once under `jax.jit` (compiler + emulated TPU, CPU backend) and once
//! eagerly (the reference evaluator). The run must not panic or hang, a script that traces
//! must compile (no internal errors), and when every op is continuous the two results must
//! agree to DEFAULT precision's tolerance.
#![no_main]

use libfuzzer_sys::fuzz_target;
use runtime::{BackendChoice, Engine, RunOptions};

struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }
}

const DIMS: [usize; 8] = [1, 2, 3, 5, 8, 16, 128, 129];
/// Elements per value, so each input runs in milliseconds.
const MAX_ELEMENTS: usize = 1 << 15;

fn tuple(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => format!("({})", shape.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

fn elements(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Builds the script; returns it and whether every op was continuous (results comparable).
fn script(c: &mut Choices) -> (String, bool) {
    let mut inputs: Vec<Vec<usize>> = Vec::new();
    let mut values: Vec<(String, Vec<usize>)> = Vec::new();
    let mut body = Vec::new();
    let mut continuous = true;
    let mut new_input = |shape: Vec<usize>, values: &mut Vec<(String, Vec<usize>)>| {
        let name = format!("a{}", inputs.len());
        inputs.push(shape.clone());
        values.push((name.clone(), shape));
        name
    };
    let rank = 1 + c.below(3);
    let mut shape: Vec<usize> = (0..rank).map(|_| c.pick(&DIMS)).collect();
    while elements(&shape) > MAX_ELEMENTS {
        shape.pop();
    }
    new_input(shape, &mut values);
    let steps = 1 + c.below(8);
    for step in 0..steps {
        if c.done() {
            break;
        }
        let (x, xs) = values[c.below(values.len())].clone();
        let rank = xs.len();
        let axis = if rank == 0 { 0 } else { c.below(rank) };
        let (expr, shape): (String, Vec<usize>) = match c.below(21) {
            0 => (format!("jnp.tanh({x})"), xs),
            1 => (format!("jnp.sin({x}) * 0.5 + {x}"), xs),
            2 => (format!("jax.nn.sigmoid({x}) - jnp.abs({x})"), xs),
            3 => (format!("jnp.exp(jnp.minimum({x}, 4.0))"), xs),
            4 => {
                // A binary op with a value of the same shape, or a scalar.
                let same: Vec<String> = values.iter().filter(|(_, s)| *s == xs).map(|(n, _)| n.clone()).collect();
                let y = if same.is_empty() { "0.75".to_string() } else { same[c.below(same.len())].clone() };
                let op = c.pick(&["+", "-", "*"]);
                (format!("{x} {op} {y}"), xs)
            }
            5 => {
                // Broadcast a trailing slice of the shape (a bias) as a new input.
                if rank == 0 {
                    (format!("{x} * 2.0"), xs)
                } else {
                    let b = new_input(xs[rank - 1..].to_vec(), &mut values);
                    (format!("jnp.maximum({x}, {b})"), xs)
                }
            }
            6 | 7 if rank > 0 => {
                let keep = c.byte() % 2 == 1;
                let f = c.pick(&["sum", "max", "mean", "min"]);
                let mut s = xs.clone();
                if keep {
                    s[axis] = 1;
                } else {
                    s.remove(axis);
                }
                (format!("jnp.{f}({x}, axis={axis}, keepdims={})", if keep { "True" } else { "False" }), s)
            }
            8 => (format!("jnp.sum({x})"), vec![]),
            9 if rank >= 2 => {
                let mut s = xs.clone();
                s.reverse();
                (format!("{x}.T"), s)
            }
            10 if rank > 0 => (format!("jnp.reshape({x}, (-1,))"), vec![elements(&xs)]),
            11 if rank > 0 && xs[0] > 1 => {
                let mut s = xs.clone();
                s[0] = xs[0].div_ceil(2);
                (format!("{x}[::2]"), s)
            }
            12 if rank > 0 && xs[rank - 1] > 1 => {
                let mut s = xs.clone();
                s[rank - 1] -= 1;
                (format!("{x}[..., 1:]"), s)
            }
            13 if rank < 3 => {
                let mut s = xs.clone();
                s.insert(0, 1);
                (format!("{x}[None]"), s)
            }
            14 if rank > 0 && 2 * elements(&xs) <= MAX_ELEMENTS => {
                let mut s = xs.clone();
                s[axis] *= 2;
                (format!("jnp.concatenate([{x}, -{x}], axis={axis})"), s)
            }
            15 | 16 if rank > 0 => {
                // A matmul with a new weight input.
                let n = c.pick(&DIMS);
                let k = xs[rank - 1];
                if k * n > MAX_ELEMENTS || elements(&xs) / k * n > MAX_ELEMENTS {
                    (format!("{x} * 0.5"), xs)
                } else {
                    let w = new_input(vec![k, n], &mut values);
                    let mut s = xs.clone();
                    s[rank - 1] = n;
                    (format!("{x} @ {w}"), s)
                }
            }
            17 if rank > 0 => (format!("jax.nn.softmax({x}, axis={axis})"), xs),
            18 if rank > 0 => (format!("jnp.cumsum({x}, axis={axis})"), xs),
            19 => {
                continuous = false;
                (format!("jnp.where({x} > 0.1, {x}, jnp.floor({x} * 3.0))"), xs)
            }
            20 if rank > 0 => {
                // Noise from typed keys split inside the function and mapped over by `vmap`:
                // per key a draw of the rest of the shape, or one number (a draw of shape `()`,
                // which once made the compiler panic).
                let seed = c.byte();
                let (n, draw) = (xs[0], tuple(&xs[1..]));
                let keys = format!("jax.random.split(jax.random.key({seed}), {n})");
                let noise = match (rank, c.byte() % 2) {
                    (1, 0) => format!("jax.vmap(jax.random.normal)({keys})"),
                    _ => format!("jax.vmap(lambda k: jax.random.uniform(k, {draw}))({keys})"),
                };
                (format!("{x} + 0.1 * {noise}"), xs)
            }
            _ => (format!("-{x}"), xs),
        };
        let name = format!("v{step}");
        body.push(format!("    {name} = {expr}"));
        values.push((name, shape));
    }
    let result = &values.last().expect("one input at least").0;
    let params: Vec<String> = (0..inputs.len()).map(|i| format!("a{i}")).collect();
    let mut s = String::from("import jax\nimport jax.numpy as jnp\n\n");
    s += &format!("def f({}):\n", params.join(", "));
    for line in &body {
        s += line;
        s += "\n";
    }
    s += &format!("    return {result}\n\n");
    for (i, shape) in inputs.iter().enumerate() {
        let n = elements(shape);
        s += &format!(
            "a{i} = jnp.reshape(jnp.sin(jnp.arange({n}) * {:.2} + {i}.0), {})\n",
            0.37 + i as f32 * 0.11,
            tuple(shape)
        );
    }
    s += &format!("print(jax.jit(f)({}))\nprint(f({}))\n", params.join(", "), params.join(", "));
    (s, continuous)
}

fuzz_target!(|data: &[u8]| {
    let mut c = Choices { data, at: 0 };
    let (source, continuous) = script(&mut c);
    // `JIT_SHOW=1 cargo fuzz run jit ARTIFACT` prints the script an input stands for.
    if std::env::var_os("JIT_SHOW").is_some() {
        eprintln!("--- script ---\n{source}");
    }
    let opts = RunOptions { backend: BackendChoice::Cpu, ..RunOptions::default() };
    let report = match pollster::block_on(Engine::new().run_script(&source, &opts)) {
        Ok(report) => report,
        Err(failure) => {
            // The generator writes only valid programs; any error is the compiler's or the
            // emulator's (or the generator's), and worth a look.
            panic!("{:?}\n--- script ---\n{source}", failure.errors);
        }
    };
    let [jit, eager] = &report.prints[..] else { panic!("two prints expected\n{source}") };
    let (lang::PrintItem::Array(jit), lang::PrintItem::Array(eager)) = (&jit[0], &eager[0]) else {
        panic!("arrays expected\n{source}")
    };
    assert_eq!(jit.shape(), eager.shape(), "\n{source}");
    if continuous {
        let (j, e) = (jit.to_f32_vec(), eager.to_f32_vec());
        let scale = e.iter().fold(0f32, |m, v| m.max(v.abs()));
        for (i, (a, b)) in j.iter().zip(&e).enumerate() {
            let close = (a - b).abs() <= 2e-2 * b.abs() + 1e-3 * scale.max(1.0) || (a.is_nan() && b.is_nan());
            assert!(close, "element {i}: jit {a} vs eager {b}\n--- script ---\n{source}");
        }
    }
});
