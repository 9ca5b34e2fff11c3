//! End-to-end tests: scripts run through the reference executor, checked by what they print.

use expect_test::{expect, Expect};
use jaxlite::eval::ReferenceExecutor;
use jaxlite::{Array, Context, Executor, JaxError, LocalFuture, ProgramCall};
use lang::{run_script, run_script_with_limits, Limits, PrintItem, RunOutput, ScriptFailure};
use std::cell::RefCell;
use std::rc::Rc;

/// The reference executor, recording the names of the programs it runs where a test can
/// read them after the context (which owns the executor) is done.
struct Recording {
    inner: ReferenceExecutor,
    calls: Rc<RefCell<Vec<String>>>,
}

impl Executor for Recording {
    fn execute(&mut self, call: ProgramCall) -> LocalFuture<'_, Result<Vec<Array>, JaxError>> {
        self.calls.borrow_mut().push(call.name.clone());
        self.inner.execute(call)
    }
}

fn run_recorded(src: &str) -> (Result<RunOutput, ScriptFailure>, Vec<String>) {
    run_with(src, Limits::default())
}

fn run_with(src: &str, limits: Limits) -> (Result<RunOutput, ScriptFailure>, Vec<String>) {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let executor = Recording { inner: ReferenceExecutor::default(), calls: calls.clone() };
    let mut ctx = Context::new(Box::new(executor));
    let result = pollster::block_on(run_script_with_limits(src, &mut ctx, limits));
    let calls = calls.borrow().clone();
    (result, calls)
}

/// Stdout of a script, or its stdout followed by its errors.
fn output(src: &str) -> String {
    describe(run_recorded(src).0)
}

fn describe(result: Result<RunOutput, ScriptFailure>) -> String {
    match result {
        Ok(out) => out.stdout,
        Err(f) => {
            let errors: Vec<String> = f.errors.iter().map(|e| format!("error {e}")).collect();
            format!("{}{}", f.output.stdout, errors.join("\n"))
        }
    }
}

fn check(src: &str, expected: Expect) {
    expected.assert_eq(&output(src));
}

const SKELETON: &str = "\
import jax
import jax.numpy as jnp

@jax.jit
def f(x, w):
    return jnp.tanh(x @ w) * 2.0 + 1.0

x = jnp.arange(12.0).reshape(3, 4) / 10.0
w = jnp.ones((4, 5)) * 0.5
print(f(x, w))
";

#[test]
fn skeleton_script() {
    let (result, calls) = run_recorded(SKELETON);
    let out = result.unwrap_or_else(|f| panic!("{:?}", f.errors));
    expect![[r#"
        [[1.5836082 1.5836082 1.5836082 1.5836082 1.5836082]
         [2.6014187 2.6014187 2.6014187 2.6014187 2.6014187]
         [2.9125419 2.9125419 2.9125419 2.9125419 2.9125419]]
    "#]]
    .assert_eq(&out.stdout);
    assert_eq!(calls, ["reshape", "div", "mul", "f"]);
    assert_eq!(out.prints.len(), 1);
    assert!(matches!(&out.prints[0][..], [PrintItem::Array(a)] if a.shape() == [3, 5]));
}

#[test]
fn the_public_entry_point_runs_scripts() {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let out = pollster::block_on(run_script("print(1 + 1)", &mut ctx)).unwrap_or_else(|f| panic!("{:?}", f.errors));
    assert_eq!(out.stdout, "2\n");
}

#[test]
fn python_numbers_print_as_0d_arrays() {
    let out =
        run_recorded("print(1, 2.5, True, 'hi', [1], None, 2**40)").0.unwrap_or_else(|f| panic!("{:?}", f.errors));
    let items: Vec<String> = out.prints[0]
        .iter()
        .map(|p| match p {
            PrintItem::Array(a) => format!("{}{:?}={}", a.dtype(), a.shape(), jaxlite::format::format_array(a)),
            PrintItem::Text(t) => format!("text {t}"),
        })
        .collect();
    expect![[r#"int32[]=1 | float32[]=2.5 | bool[]=True | text hi | text [1] | text None | text 1099511627776"#]]
        .assert_eq(&items.join(" | "));
}

#[test]
fn python_semantics() {
    check(
        r#"
def counter():
    count = [0]
    def bump(by=1):
        count[0] += by
        return count[0]
    return bump

c = counter()
c(); c(5)
print(c(), [x * y for x in range(3) for y in (1, 10) if x], {n: n ** 2 for n in range(3)})
words = ["tpu", "jax", "xla"]
print(words[::-1], words[1:], words[-1][::-1], sorted(words), len(words[0]))
for i, (w, n) in enumerate(zip(words, [3, 1, 2])):
    if n == 1:
        continue
    print(f"{i}: {w:>5} {n / 3:.3f} {n:03d}")
x = 10
def shadow():
    x = 1
    return x
print(shadow(), x, (lambda a, b=2: a * b)(4), max([1, 5, 3], key=lambda v: -v))
import math
print(math.prod((2, 3, 4)), math.prod([1.5, 2]), math.prod([], start=7), math.floor(2.5))
"#,
        expect![[r#"
            7 [1, 10, 2, 20] {0: 0, 1: 1, 2: 4}
            ['xla', 'jax', 'tpu'] ['jax', 'xla'] alx ['jax', 'tpu', 'xla'] 3
            0:   tpu 1.000 003
            2:   xla 0.667 002
            1 10 8 1
            24 3.0 7 2
        "#]],
    );
}

#[test]
fn jit_traces_once_per_signature_and_stages_nested_jits_as_calls() {
    let src = r#"
import jax
import jax.numpy as jnp

@jax.jit
def inner(v):
    return v * 2.0

@jax.jit
def outer(v, s):
    print("tracing with", v)
    return inner(v) + s, [v.sum()]

a = outer(jnp.ones(3), 1.0)
b = outer(jnp.zeros(3), 2.0)
c = outer(jnp.ones(2), 1.0)
print(a, b, c)
print(jax.make_jaxpr(outer)(jnp.ones(2), 1.0))
"#;
    let (result, calls) = run_recorded(src);
    expect![[r#"
        tracing with JitTracer(float32[3])
        tracing with JitTracer(float32[2])
        (Array([3., 3., 3.], dtype=float32), [Array(3., dtype=float32)]) (Array([2., 2., 2.], dtype=float32), [Array(0., dtype=float32)]) (Array([3., 3.], dtype=float32), [Array(2., dtype=float32)])
        { lambda ; a:f32[2] b:f32[]. let
            c:f32[2] d:f32[] = jit[
              name=outer
              jaxpr={ lambda ; a:f32[2] b:f32[]. let
                  e:f32[2] = jit[
                    name=inner
                    jaxpr={ lambda ; a:f32[2]. let e:f32[2] = mul a 2.0:f32[] in (e,) }
                  ] a
                  f:f32[] = convert_element_type[new_dtype=float32 weak_type=False] b
                  c:f32[2] = add e f
                  d:f32[] = reduce_sum[axes=(0,) out_sharding=None] a
                in (c, d) }
            ] a b
          in (c, d) }
    "#]]
    .assert_eq(&describe(result));
    assert_eq!(calls, ["outer", "outer", "outer"]);
}

#[test]
fn static_argnums_and_precision_config() {
    check(
        r#"
import jax
import jax.numpy as jnp
from functools import partial
jax.config.update("jax_default_matmul_precision", "highest")

@partial(jax.jit, static_argnums=(1,))
def power(x, n):
    y = x
    for _ in range(n - 1):
        y = y @ x
    return y

m = jnp.array([[1.0, 0.1], [0.0, 1.0]])
print(power(m, 3))
"#,
        expect![[r#"
            [[1.  0.3]
             [0.  1. ]]
        "#]],
    );
}

#[test]
fn errors_point_at_the_code_that_raised_them() {
    let cases = [
        "print(undefined_name)",
        "def f(a, b):\n    return a\nf(1, 2, 3)",
        "def f(a, b):\n    return a\nf(1)",
        "import jax.numpy as jnp\nx = jnp.ones((2, 3))\ny = x @ jnp.ones((2, 3))",
        "import jax.numpy as jnp\nprint(jnp.ones(3) + jnp.ones(4))",
        "print('before')\nx = 1 / 0",
        "xs = [1, 2]\nprint(xs[5])",
        "import jax, jax.numpy as jnp\ng = jax.pmap(lambda x: x)(jnp.ones((2, 3)))",
        "import jax.numpy as jnp\njnp.fft.fft(1)",
        "import jax.numpy as jnp\njnp.foo",
        "from jax.sharding import PartitionSpec as P\nP('x', None, 'y').foo",
        "d = {'a': 1}\nd['b']",
        "a, b = [1, 2, 3]",
        "x = 2 ** 70",
        "import jax.numpy as jnp\nif jnp.ones(3): pass",
        "def f(x):\n    y = x + z\n    return y\nprint(f(1))",
        "import numpy as np\nx = np.ones(3)\nx[5] = 1.0",
        "import jax.numpy as jnp\njnp.zeros((100000, 100000))",
    ];
    let text: Vec<String> = cases.iter().map(|src| output(src)).collect();
    expect![[r#"
        error 1:7: NameError: name 'undefined_name' is not defined
        error 3:1: TypeError: f() takes 2 positional arguments but 3 were given
        error 3:1: TypeError: f() missing 1 required positional argument: 'b'
        error 3:7: TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and (2,)
        error 2:19: TypeError: add got incompatible shapes for broadcasting: (3,), (4,).
        before
        error 2:7: ZeroDivisionError: division by zero
        error 2:7: IndexError: list index out of range
        error 2:5: ValueError: compiling computation that requires 2 logical devices, but only 1 XLA devices are available (num_replicas=2); the emulated machine has 1 chip: choose a slice with more (--machine v5e-8, or the page's machine menu)
        error 2:1: NotImplementedError: jnp.fft is not supported by the playground yet
        error 2:1: AttributeError: module 'jax.numpy' has no attribute 'foo'
        error 2:1: AttributeError: 'PartitionSpec' object has no attribute 'foo'
        error 2:1: KeyError: 'b'
        error 1:1: ValueError: too many values to unpack (expected 2)
        error 1:7: OverflowError: integer overflow (the playground's ints are 64-bit)
        error 2:4: ValueError: The truth value of an array with more than one element is ambiguous. Use a.any() or a.all()
        error 2:13: NameError: name 'z' is not defined
        error 3:1: IndexError: index 5 is out of bounds for axis 0 with size 3
        error 2:1: MemoryError: array of shape (100000, 100000) is too large for the playground (at most 16777216 elements)"#]]
    .assert_eq(&text.join("\n"));
}

#[test]
fn python_control_flow_on_tracers_fails_as_in_jax() {
    let cases = [
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\nf(jnp.ones(3))",
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef g(x):\n    return float(x) + 1\ng(jnp.ones(()))",
        "import jax\nimport jax.numpy as jnp\nleak = []\n@jax.jit\ndef h(x):\n    leak.append(x)\n    return x\nh(jnp.ones(2))\nprint(leak[0] + 1)",
        "import jax\nimport jax.numpy as jnp\n@jax.jit\ndef k(x, i):\n    return x[i:i + 1]\nk(jnp.ones(2), 1)",
    ];
    let text: Vec<String> = cases.iter().map(|src| output(src)).collect();
    expect![[r#"
        error 5:8: TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[3].
        The error occurred while tracing the function f at <script>:3 for jit. This concrete value was not available in Python because it depends on the value of the argument x.
        See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError
        error 5:12: ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: traced array with shape float32[]
        The problem arose with the `float` function. If trying to convert the data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` instead.
        The error occurred while tracing the function g at <script>:3 for jit. This concrete value was not available in Python because it depends on the value of the argument x.

        See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError
        error 9:15: UnexpectedTracerError: Encountered an unexpected tracer (float32[2]): a value computed inside a jitted function escaped it (for example by being stored in a global) and was used after the trace ended
        error 5:14: IndexError: Array slice indices must have static start/stop/step to be used with NumPy indexing syntax; this one is a traced int32[]. To index a statically sized array at a dynamic position, try lax.dynamic_slice or lax.dynamic_index_in_dim"#]]
    .assert_eq(&text.join("\n"));
}

#[test]
fn runaway_loops_are_stopped_by_the_step_budget() {
    let limits = Limits { steps: 10_000, ..Limits::default() };
    let result = run_with("n = 0\nprint('start')\nwhile True:\n    n += 1\n", limits).0;
    expect![[r#"
        start
        error 4:5: the script was stopped after 10000 evaluation steps; is there an infinite loop?"#]]
    .assert_eq(&describe(result));
    assert_eq!(lang::DEFAULT_STEP_BUDGET, 10_000_000);
}

#[test]
fn deep_recursion_is_an_error_not_a_stack_overflow() {
    // An unoptimised build needs more stack per call and may hit the stack backstop first;
    // either way the error is the same and points at the recursive call.
    let src = "def f(n):\n    return f(n + 1)\nf(0)";
    assert!(
        output(src).starts_with("error 2:12: RecursionError: maximum recursion depth exceeded ("),
        "{}",
        output(src)
    );
    let counting = "depth = [0]\ndef f():\n    depth[0] += 1\n    f()\ntry_it = f()";
    let limits = Limits { recursion: 50, ..Limits::default() };
    let failure = run_with(&format!("{counting}\n"), limits).0.err().map(|f| f.errors);
    assert!(failure.is_some_and(|e| e[0].message.contains("allows 50 nested calls")));
    let (ok, _) = run_with("def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nprint(f(30))", limits);
    assert_eq!(describe(ok), "30\n");
}

#[test]
fn parse_errors_are_all_reported() {
    let src = "x = [1, 2\nprint('ok')\n";
    expect![[r#"
        error 1:5: '[' was never closed"#]]
    .assert_eq(&output(src));
    let src = "def f(x)\n    return x\nwhile x\n    pass\ny = 'abc\nz = 1 +\n";
    expect![[r#"
        error 1:9: expected ':' after the parameters of 'def', found the end of the line
        error 3:8: expected ':' after the condition of 'while', found the end of the line
        error 5:5: unterminated string
        error 6:8: expected an expression, found the end of the line"#]]
    .assert_eq(&output(src));
}

/// Every prefix, every single-character deletion and some insertions of real scripts must
/// parse (and, when they parse, run) without panicking.
#[test]
fn mutated_scripts_never_panic() {
    let scripts = [SKELETON, "def f(a, b=[1, 2], *r):\n    return {k: v for k, v in zip(a, b)}, f'{a!r:>{b}}', a[1:-1:2]\nprint(f('ab'), 2 ** -1, -3 // 2, (1,), [x for x in range(3) if x])\n"];
    let inserts = [
        "(", ")", "[", "]", ":", "'", "\"", "\n", "    ", "\\", "@", "*", "{", "}", ".", "=", "0", "-", "#", "f'{",
        "lambda", "if",
    ];
    let limits = Limits { steps: 2_000, recursion: 20, ..Limits::default() };
    let mut count = 0;
    for src in scripts {
        let chars: Vec<char> = src.chars().collect();
        let mut variants: Vec<String> = Vec::new();
        for i in 0..=chars.len() {
            variants.push(chars[..i].iter().collect());
            if i < chars.len() {
                variants.push(chars[..i].iter().chain(&chars[i + 1..]).collect());
                let ins = inserts[i % inserts.len()];
                variants.push(format!(
                    "{}{ins}{}",
                    chars[..i].iter().collect::<String>(),
                    chars[i..].iter().collect::<String>()
                ));
            }
        }
        for v in variants {
            let (_, errors) = lang::parse(&v);
            if errors.is_empty() {
                let _ = run_with(&v, limits);
            }
            count += 1;
        }
    }
    assert!(count > 500, "only {count} variants");
}

/// Basic indexing of a traced array is `lax.slice` and a reshape, as JAX rewrites it: ints,
/// slices with steps, negative indices, `None` and `...`.
#[test]
fn indexing_traced_arrays() {
    let src = "import jax\nimport jax.numpy as jnp\nx = jnp.arange(24.0).reshape(2, 3, 4)\nf = jax.jit(lambda v: (v[1], v[:, -1], v[..., 1:4:2], v[0, None, :2, 3]))\nfor y in f(x):\n    print(y)\nprint(jax.make_jaxpr(lambda v: v[:, 1])(x))";
    expect![[r#"
        [[12. 13. 14. 15.]
         [16. 17. 18. 19.]
         [20. 21. 22. 23.]]
        [[ 8.  9. 10. 11.]
         [20. 21. 22. 23.]]
        [[[ 1.  3.]
          [ 5.  7.]
          [ 9. 11.]]

         [[13. 15.]
          [17. 19.]
          [21. 23.]]]
        [[3. 7.]]
        { lambda ; a:f32[2,3,4]. let
            b:f32[2,1,4] = slice[
              limit_indices=(2, 2, 4)
              start_indices=(0, 1, 0)
              strides=None
            ] a
            c:f32[2,4] = squeeze[dimensions=(1,)] b
          in (c,) }
    "#]]
    .assert_eq(&output(src));
}

/// jax.random keys live on the host: unpacking, indexing and printing work; using one as an
/// array (inside jit) is refused with what to do instead.
#[test]
fn random_keys_go_through_jit_as_in_jax() {
    // A raw key comes back a uint32 array (which jax.random takes again), a typed key a key.
    let src = "import jax\nkey = jax.random.PRNGKey(0)\na, b = jax.random.split(key)\nprint(a, len(jax.random.split(key, 4)))\nk = jax.jit(lambda k: k)(key)\nprint(repr(k), jax.random.split(k)[1])\nprint(jax.jit(lambda k: k)(jax.random.key(1)))";
    expect![[r#"
        [1797259609 2579123966] 4
        Array([0, 0], dtype=uint32) [ 928981903 3453687069]
        Array((), dtype=key<fry>) overlaying:
        [0 1]
    "#]]
    .assert_eq(&output(src));
}

#[test]
fn short_jaxprs_print_on_one_line_as_in_jax() {
    // What JAX 0.10 prints for each: one line when it fits in 80 columns (the second is 79),
    // one equation per line otherwise.
    check(
        r#"
import jax
import jax.numpy as jnp
print(jax.make_jaxpr(lambda a: a[::-1])(jnp.ones(3)))
print(jax.make_jaxpr(lambda a: jnp.sin(a) * 2)(jnp.ones(3)))
print(jax.make_jaxpr(lambda a, b: jnp.sin(a) * b + 1)(jnp.ones(3), jnp.ones(3)))
print(jax.make_jaxpr(lambda a: a.sum())(jnp.ones((3, 4))))
print(jax.make_jaxpr(lambda a: a)(jnp.ones(3)))
c = jnp.arange(3.0)
print(jax.make_jaxpr(lambda a: a + c)(jnp.ones(3)))
"#,
        expect![[r#"
            { lambda ; a:f32[3]. let b:f32[3] = rev[dimensions=(0,)] a in (b,) }
            { lambda ; a:f32[3]. let b:f32[3] = sin a; c:f32[3] = mul b 2.0:f32[] in (c,) }
            { lambda ; a:f32[3] b:f32[3]. let
                c:f32[3] = sin a
                d:f32[3] = mul c b
                e:f32[3] = add d 1.0:f32[]
              in (e,) }
            { lambda ; a:f32[3,4]. let
                b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a
              in (b,) }
            { lambda ; a:f32[3]. let  in (a,) }
            { lambda a:f32[3]; b:f32[3]. let c:f32[3] = add b a in (c,) }
        "#]],
    );
}

/// Left-deep chains (`1 + 1 + …`, `f()()…`, `a or b or …`) deepen the syntax tree without
/// nesting: 1,000 chained operators (a call's parentheses among them) in a statement run; beyond that the statement is an error
/// at the operator past the limit (20,000 overflowed the native stack, and 2,000 chained calls
/// the page's wasm stack).
#[test]
fn long_operator_chains_run_up_to_a_limit_and_fail_cleanly_beyond() {
    let sum = |n: usize| vec!["1"; n].join(" + ");
    assert_eq!(output(&format!("print({})\n", sum(1000))), "1000\n");
    let calls = format!("f = lambda: f\nx = f{}\nprint(x is f)\n", "()".repeat(1000));
    assert_eq!(output(&calls), "True\n");
    for source in [
        format!("x = {}\n", sum(20_000)),
        format!("f = lambda: f\nx = f{}\n", "()".repeat(20_000)),
        format!("x = {}\n", vec!["0"; 20_000].join(" or ")),
    ] {
        let out = output(&source);
        assert!(out.contains("too many chained operators, calls and subscripts in one statement"), "{out}");
        let line = if source.starts_with('f') { "error 2:" } else { "error 1:" };
        assert!(out.starts_with(line), "the error names the statement's line: {out}");
    }
}

/// Equality and hashing of deeply nested values walk them with a work list: lists nested
/// 100,000 deep compare equal (a depth cap once made equal lists nested 65 deep unequal, a
/// silent wrong answer), and a tuple that deep is a dict key (hashing it overflowed the stack).
/// A list containing itself equals another such list.
#[test]
fn deep_values_compare_and_hash_without_recursion() {
    let src = "a = []\nb = []\nfor i in range(100000):\n    a = [a]\n    b = [b]\nprint(a == b, a != b)\n\
               t = ()\nfor i in range(100000):\n    t = (t,)\nd = {t: 1}\nprint(d[t])\n\
               c = []\nc.append(c)\ne = []\ne.append(e)\nprint(c == e, [1, [2]] == [1, [3]], {1: [2]} == {1: [2]})\n";
    assert_eq!(output(src), "True False\n1\nTrue False True\n");
}

#[test]
fn lax_dot_general_prints_as_jax() {
    // JAX 0.10's text: no `preferred_element_type` where the call names none, the precision
    // where it names one.
    check(
        "import jax\nimport jax.numpy as jnp\na = jnp.ones((2, 3))\nb = jnp.ones((3, 4))\n\
         print(jax.make_jaxpr(lambda a, b: jax.lax.dot_general(a, b, (((1,), (0,)), ((), ()))))(a, b))\n\
         print(jax.make_jaxpr(lambda a, b: jax.lax.dot_general(a, b, (([1], [0]), ([], [])), precision='highest'))(a, b))\n\
         print(jax.make_jaxpr(lambda a, b: jax.lax.dot_general(a, b, ((1, 0), ((), ())), preferred_element_type=jnp.float32))(a, b))\n",
        expect![[r#"
            { lambda ; a:f32[2,3] b:f32[3,4]. let
                c:f32[2,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
              in (c,) }
            { lambda ; a:f32[2,3] b:f32[3,4]. let
                c:f32[2,4] = dot_general[
                  dimension_numbers=(([1], [0]), ([], []))
                  precision=(Precision.HIGHEST, Precision.HIGHEST)
                ] a b
              in (c,) }
            { lambda ; a:f32[2,3] b:f32[3,4]. let
                c:f32[2,4] = dot_general[
                  dimension_numbers=(([1], [0]), ([], []))
                  preferred_element_type=float32
                ] a b
              in (c,) }
        "#]],
    );
}
