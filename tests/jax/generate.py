"""Generates tests/jax/fixtures.json: small playground programs and what real JAX prints.

Run with `python3 tests/jax/generate.py` (needs jax[cpu] and numpy). Each program is run
twice in CPython with real JAX: at `highest` matmul precision (full float32) and at DEFAULT as
a TPU computes it, emulated on CPU by rounding the operands of every dot_general and
convolution that runs at DEFAULT (its own `precision=`, else the run's) to bfloat16 (products
and sums stay float32). A program that raises records the exception instead.
`python3 tests/jax/generate.py NAME...` reruns only the programs named. A program written
with `stderr=True` also records what JAX writes to standard error (its logging and warnings)
in a third run, at `highest`, with object ids written `id=N`.
"""

import contextlib
import io
import json
import logging
import os
import re
import sys

import jax
import jax.numpy as jnp
import jax._src.lax as lax_package
from jax._src.lax import convolution as conv_internal
from jax._src.lax import lax as lax_internal
from jax._src.interpreters import partial_eval

HERE = os.path.dirname(os.path.abspath(__file__))
PRELUDE = "import jax\nimport jax.numpy as jnp\n"

# (name, body). Bodies are written once and run unchanged by JAX and by the playground.
PROGRAMS = []
# The programs whose standard error is recorded too.
STDERR_PROGRAMS = set()


def program(name, body, stderr=False):
    PROGRAMS.append((name, PRELUDE + body.strip() + "\n"))
    if stderr:
        STDERR_PROGRAMS.add(name)


X = "x = jnp.array([0.5, -1.25, 2.0, 0.0])\n"
M = "a = jnp.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]])\nb = jnp.array([[0.25, 1.5], [-2.0, 1.0], [3.0, 0.125]])\n"

# Elementwise functions: values, gradients (summed) and vmapped gradients.
for fn in ["sin", "cos", "exp", "tanh", "abs", "sign", "floor", "ceil", "round", "square",
           "expm1", "negative"]:
    program(f"jnp_{fn}", X + f"print(jnp.{fn}(x))\n")
    program(f"grad_{fn}", X + f"print(jax.grad(lambda v: jnp.sum(jnp.{fn}(v)))(x))\n")
for fn in ["log", "sqrt", "log1p"]:
    program(f"jnp_{fn}", "x = jnp.array([0.5, 1.25, 2.0, 4.0])\n" + f"print(jnp.{fn}(x))\n")
    program(f"grad_{fn}", "x = jnp.array([0.5, 1.25, 2.0, 4.0])\n"
            + f"print(jax.grad(lambda v: jnp.sum(jnp.{fn}(v)))(x))\n")
for fn in ["relu", "sigmoid", "gelu", "softplus", "silu", "softmax", "log_softmax", "logsumexp"]:
    program(f"nn_{fn}", X + f"print(jax.nn.{fn}(x))\n")
    program(f"grad_nn_{fn}", X + f"print(jax.grad(lambda v: jnp.sum(jax.nn.{fn}(v) * jnp.arange(4.0)))(x))\n")
program("nn_gelu_exact", X + "print(jax.nn.gelu(x, approximate=False))\n")
program("grad_nn_gelu_exact", X + "print(jax.grad(lambda v: jnp.sum(jax.nn.gelu(v, approximate=False)))(x))\n")
program("nn_one_hot", "print(jax.nn.one_hot(jnp.array([0, 2, 1]), 3))\n")
program("nn_softmax_axis0", M + "print(jax.nn.softmax(a, axis=0))\n")

# Binary ops, comparisons, where.
for op in ["+", "-", "*", "/", "**"]:
    program(f"binop_{ {'+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '**': 'pow'}[op]}",
            "x = jnp.array([0.5, 1.25, 2.0])\ny = jnp.array([2.0, 0.5, 3.0])\n"
            f"print(x {op} y)\nprint(jax.grad(lambda p, q: jnp.sum(p {op} q), argnums=(0, 1))(x, y))\n")
for name in ["maximum", "minimum", "arctan2"]:
    program(f"jnp_{name}", "x = jnp.array([0.5, 1.0, -2.0])\ny = jnp.array([1.0, 1.0, -3.0])\n"
            f"print(jnp.{name}(x, y))\nprint(jax.grad(lambda p, q: jnp.sum(jnp.{name}(p, q)), argnums=(0, 1))(x, y))\n")
for op in ["<", "<=", ">", ">=", "==", "!="]:
    program(f"compare_{ {'<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge', '==': 'eq', '!=': 'ne'}[op]}",
            X + f"print(x {op} 0.5)\n")
program("where", X + "print(jnp.where(x > 0, x, -x))\nprint(jax.grad(lambda v: jnp.sum(jnp.where(v > 0, v * v, 3.0 * v)))(x))\n")
program("clip", X + "print(jnp.clip(x, -1.0, 1.0))\nprint(jax.grad(lambda v: jnp.sum(jnp.clip(v, -1.0, 1.0)))(x))\n")
program("int_pow", X + "print(x ** 3)\nprint(jax.grad(lambda v: jnp.sum(v ** 3))(x))\n")
program("power_float", "x = jnp.array([0.5, 1.25, 2.0])\nprint(jnp.power(x, 1.5))\nprint(jax.grad(lambda v: jnp.sum(v ** 1.5))(x))\n")

# Reductions.
for red in ["sum", "max", "min", "mean", "var", "std"]:
    program(f"reduce_{red}", M + f"print(jnp.{red}(a))\nprint(jnp.{red}(a, axis=0))\nprint(jnp.{red}(a, axis=1))\n")
    program(f"grad_reduce_{red}", M + f"print(jax.grad(lambda v: jnp.{red}(v))(a))\n")
program("argmax", M + "print(jnp.argmax(a))\nprint(jnp.argmax(a, axis=1))\nprint(jnp.argmin(a, axis=0))\n")
program("cumsum", M + "print(jnp.cumsum(a, axis=1))\nprint(jax.grad(lambda v: jnp.sum(jnp.cumsum(v, axis=0) ** 2))(a))\n")
program("max_tie_grad", "x = jnp.array([1.0, 3.0, 3.0])\nprint(jax.grad(jnp.max)(x))\n")

# Shapes.
program("reshape_transpose", M + "print(a.reshape(3, 2))\nprint(a.T)\nprint(jnp.transpose(a))\n")
program("expand_squeeze", M + "print(jnp.expand_dims(a, 0).shape)\nprint(jnp.squeeze(jnp.expand_dims(a, 1)))\n")
program("concatenate", M + "print(jnp.concatenate([a, a * 2.0], axis=0))\nprint(jnp.stack([a, -a], axis=1))\n")
program("grad_concatenate", M + "print(jax.grad(lambda v: jnp.sum(jnp.concatenate([v, v * v], axis=1)))(a))\n")
program("grad_stack", M + "print(jax.grad(lambda v: jnp.sum(jnp.stack([v, jnp.sin(v)]) ** 2))(a))\n")

# Matmuls (these differ between DEFAULT and highest).
program("matmul", M + "print(a @ b)\nprint(jnp.dot(a, b))\n")
program("grad_matmul", M + "print(jax.grad(lambda p, q: jnp.sum(jnp.tanh(p @ q)), argnums=(0, 1))(a, b))\n")
program("matvec", M + "v = jnp.array([1.0, 0.5, -2.0])\nprint(a @ v)\nprint(jax.grad(lambda w: jnp.sum((a @ w) ** 2))(v))\n")
program("mlp_grad", M + """
params = {"w1": b, "b1": jnp.array([0.1, -0.2]), "w2": jnp.array([[1.0], [-1.0]])}
def loss(p, x):
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"]) ** 2)
g = jax.grad(loss)(params, a)
print(g["w1"])
print(g["b1"])
print(g["w2"])
""")
program("value_and_grad", M + """
def loss(w):
    return jnp.sum(jnp.tanh(a @ w))
v, g = jax.value_and_grad(loss)(b)
print(v)
print(g)
""")
program("grad_has_aux", X + """
def f(v):
    y = jnp.sin(v)
    return jnp.sum(y), y * 2.0
g, aux = jax.grad(f, has_aux=True)(x)
print(g)
print(aux)
""")
program("value_and_grad_has_aux", X + """
(v, aux), g = jax.value_and_grad(lambda v: (jnp.sum(v ** 2), jnp.max(v)), has_aux=True)(x)
print(v, aux, g)
""")
program("grad_argnums_tuple", "print(jax.grad(lambda a, b, c: a * b * c, argnums=(0, 2))(2.0, 3.0, 4.0))\n")
program("grad_argnums_int", "print(jax.grad(lambda a, b: a * b * b, argnums=1)(2.0, 3.0))\n")
program("grad_list_pytree", "print(jax.grad(lambda p: p[0] * p[1] + p[2][0])([1.0, 2.0, (3.0,)]))\n")
program("grad_dict_pytree", "print(jax.grad(lambda p: p['a'] ** 2 + 3.0 * p['b'])({'a': 1.5, 'b': 2.0}))\n")
program("grad_scalar_python", "print(jax.grad(lambda x: x ** 2 + 3.0 * x)(2.0))\n")
program("second_derivative", "f = lambda x: jnp.sin(x) * x\nprint(jax.grad(jax.grad(f))(1.0))\n")
program("third_derivative", "f = lambda x: x ** 4\nprint(jax.grad(jax.grad(jax.grad(f)))(2.0))\n")
program("grad_of_jit", X + "f = jax.jit(lambda v: jnp.sum(jnp.tanh(v) ** 2))\nprint(jax.grad(f)(x))\n")
program("jit_of_grad", X + "f = jax.jit(jax.grad(lambda v: jnp.sum(jnp.tanh(v) ** 2)))\nprint(f(x))\n")
program("grad_closure_in_jit", X + """
@jax.jit
def step(w, data):
    return w - 0.1 * jax.grad(lambda w: jnp.sum((w * data - 1.0) ** 2))(w)
print(step(x, jnp.array([1.0, 2.0, 3.0, 4.0])))
""")
program("grad_fori_loop", """
def f(x):
    return jax.lax.fori_loop(0, 3, lambda i, c: c * x + 1.0, 0.0)
print(f(2.0))
print(jax.grad(f)(2.0))
""")
program("grad_cond", """
def f(x):
    return jax.lax.cond(x > 0, lambda v: v * v, lambda v: -v, x)
print(jax.grad(f)(3.0), jax.grad(f)(-3.0))
""")
program("stop_gradient", X + "print(jax.grad(lambda v: jnp.sum(v * jax.lax.stop_gradient(v)))(x))\n")
program("jvp_basic", X + "p, t = jax.jvp(lambda v: jnp.sin(v) * v, (x,), (jnp.ones(4),))\nprint(p)\nprint(t)\n")
program("jvp_two_args", "p, t = jax.jvp(lambda a, b: a * b + a, (2.0, 3.0), (1.0, 0.5))\nprint(p, t)\n")
program("vjp_basic", X + "y, f = jax.vjp(lambda v: jnp.tanh(v) * 2.0, x)\nprint(y)\nprint(f(jnp.ones(4)))\n")
program("vjp_matmul", M + "y, f = jax.vjp(lambda p, q: p @ q, a, b)\nga, gb = f(jnp.ones((2, 2)))\nprint(ga)\nprint(gb)\n")
program("jacfwd", X + "print(jax.jacfwd(lambda v: jnp.sin(v) * jnp.sum(v))(x))\n")
program("jacrev", X + "print(jax.jacrev(lambda v: jnp.sin(v) * jnp.sum(v))(x))\n")
program("jacfwd_matrix", M + "print(jax.jacfwd(lambda w: jnp.tanh(a @ w))(b).shape)\n")
program("hessian", X + "print(jax.hessian(lambda v: jnp.sum(v ** 3) + jnp.sum(v) ** 2)(x))\n")
program("hessian_logsumexp", X + "print(jax.hessian(jax.nn.logsumexp)(x))\n")
program("vmap_basic", M + "print(jax.vmap(lambda r: jnp.sum(r * r))(a))\n")
program("vmap_in_axes_1", M + "print(jax.vmap(lambda c: jnp.max(c), in_axes=1)(a))\n")
program("vmap_in_axes_none", M + "v = jnp.array([1.0, 2.0, 3.0])\nprint(jax.vmap(lambda r, w: jnp.dot(r, w), in_axes=(0, None))(a, v))\n")
program("vmap_out_axes", M + "print(jax.vmap(lambda r: r * 2.0, out_axes=1)(a))\n")
program("vmap_matmul", M + "print(jax.vmap(lambda r: r @ b)(a))\n")
program("vmap_grad", M + "print(jax.vmap(jax.grad(lambda r: jnp.sum(jnp.sin(r) * r)))(a))\n")
program("grad_vmap", M + "print(jax.grad(lambda w: jnp.sum(jax.vmap(lambda r: jnp.tanh(r @ w))(a)))(b))\n")
program("vmap_nested", M + "print(jax.vmap(jax.vmap(lambda s: s * s + 1.0))(a))\n")
program("vmap_dict", M + "print(jax.vmap(lambda p: p['x'] * p['y'])({'x': a, 'y': a + 1.0}))\n")
program("vmap_tuple_out", M + "s, m = jax.vmap(lambda r: (jnp.sum(r), jnp.max(r)))(a)\nprint(s, m)\n")
program("vmap_softmax", M + "print(jax.vmap(jax.nn.softmax)(a))\n")
program("vmap_where", M + "print(jax.vmap(lambda r: jnp.where(r > 0, r, 0.0))(a))\n")
program("per_example_grads", M + """
w = jnp.array([0.5, -0.5, 1.0])
def loss(w, row):
    return (jnp.dot(row, w) - 1.0) ** 2
print(jax.vmap(jax.grad(loss), in_axes=(None, 0))(w, a))
""")
TRAINING_LOOP = """
xs = jnp.array([[0.0], [1.0], [2.0], [3.0]])
ys = jnp.array([1.0, 3.0, 5.0, 7.0])
params = {"w": jnp.zeros((1,)), "b": 0.0}
def loss(p):
    pred = xs @ p["w"] + p["b"]
    return jnp.mean((pred - ys) ** 2)
@jax.jit
def update(p):
    g = jax.grad(loss)(p)
    return {"w": p["w"] - 0.05 * g["w"], "b": p["b"] - 0.05 * g["b"]}
for _ in range(20):
    params = update(params)
print(params["w"], params["b"], loss(params))
"""
program("training_loop", TRAINING_LOOP)
program("logistic_regression", M + """
labels = jnp.array([1.0, 0.0])
def loss(w):
    logits = a @ w
    return -jnp.mean(labels * jax.nn.log_softmax(jnp.stack([-logits, logits], axis=1))[:, 1])
print(jax.grad(loss)(jnp.array([0.1, 0.2, 0.3])))
""")

# Contractions and indexing: einsum, N-D matmul, outer, slicing traced arrays.
T = "q = jnp.arange(24.0).reshape(2, 3, 4) / 10.0\nk = jnp.cos(jnp.arange(40.0)).reshape(2, 5, 4)\n"
program("einsum_matmul", M + "print(jnp.einsum('ij,jk->ik', a, b))\n")
program("einsum_attention", T + "print(jax.jit(lambda u, v: jnp.einsum('bqd,bkd->bqk', u, v))(q, k))\n")
program("einsum_sum_transpose", M + "print(jnp.einsum('ij->j', a))\nprint(jnp.einsum('ij->ji', a))\n")
program("einsum_three", M + "c = jnp.array([1.0, -2.0])\nprint(jnp.einsum('ij,jk,k->i', a, b, c))\n")
program("grad_einsum", M + "print(jax.grad(lambda w: jnp.sum(jnp.einsum('ij,jk->ik', a, w) ** 2))(b))\n")
program("einsum_ellipsis_implicit_diagonal", T + """
a = jnp.arange(24.0).reshape(2, 1, 3, 4) / 8.0
b = jnp.cos(jnp.arange(40.0)).reshape(5, 4, 2)
print(jax.jit(lambda u: jnp.einsum('...qd,...kd->...qk', u, u))(q))
print(jnp.einsum('...ij,...jk->...ik', a, b))
print(jnp.einsum('bqd,bkd', q, k), jnp.einsum('i...', q[0]), jnp.einsum('...d->d', k))
m = jnp.arange(9.0).reshape(3, 3).at[0, 1].set(jnp.inf)
print(jnp.einsum('ii', m), jnp.einsum('ii->i', m), jnp.einsum('iij->j', jnp.arange(12.0).reshape(2, 2, 3)))
print(jax.grad(lambda w: jnp.einsum('ii', w * w))(m[1:, 1:]))
print(jax.vmap(lambda w: jnp.einsum('ii->i', w))(q[:, :, :3]))
print(jax.make_jaxpr(lambda u: jnp.einsum('...ij->j...', u))(q))
""")
program("matmul_batched", T + "print(q @ jnp.swapaxes(k, 1, 2))\nprint(jax.jit(lambda u: u @ jnp.ones((4, 3)))(q))\n")
program("jnp_outer", X + "print(jnp.outer(x, x[:3]))\n")
program("jnp_isnan", "print(jnp.isnan(jnp.array([1.0, jnp.nan, 0.0])))\n")
program("broadcast_to", X + "print(jax.jit(lambda v: jnp.broadcast_to(v, (2, 4)) * 2.0)(x))\n")
program("index_traced", M + "f = jax.jit(lambda v: (v[1], v[:, -1], v[:, 1:3], v[None, 0]))\nprint(f(a))\n")
program("grad_index", M + "print(jax.grad(lambda v: jnp.sum(v[:, 1:] ** 2) + v[0, 0])(a))\n")

program("reduce_keepdims", "x = jnp.arange(24.0).reshape(2, 3, 4)\nprint(jnp.sum(x, axis=1, keepdims=True), x.mean(axis=-1, keepdims=True).shape)\nprint(jax.jit(lambda v: v - jnp.max(v, axis=(0, 2), keepdims=True))(x))\n")
program("reduce_middle_axes", "x = jnp.cos(jnp.arange(120.0)).reshape(2, 3, 4, 5)\nprint(jax.jit(lambda v: (jnp.sum(v, axis=(0, 2)), jnp.max(v, axis=1), jnp.min(v, axis=(1, 3))))(x))\n")
program("long_vector", "x = jnp.arange(2048 * 2048.0) / 1e6\ny = jax.jit(lambda v: jnp.sin(v) * 2.0)(x)\nprint(y[:3], y[-1], y.shape)\n")

# Convolutions (NCHW/OIHW by default, NHWC/HWIO by name), strided and padded, and their gradients.
C = "x = jnp.sin(jnp.arange(2 * 3 * 7 * 6.0)).reshape(2, 3, 7, 6)\nw = jnp.cos(jnp.arange(4 * 3 * 3 * 3.0)).reshape(4, 3, 3, 3)\n"
program("conv_same", C + "print(jax.lax.conv(x, w, (1, 1), 'SAME'))\n")
program("conv_valid_strided", C + "print(jax.jit(lambda a, b: jax.lax.conv_general_dilated(a, b, (2, 2), 'VALID'))(x, w))\n")
program("conv_nhwc_padded", C + "xh = jnp.transpose(x, (0, 2, 3, 1))\nwh = jnp.transpose(w, (2, 3, 1, 0))\nprint(jax.jit(lambda a, b: jax.lax.conv_general_dilated(a, b, (2, 1), [(1, 0), (2, 1)], dimension_numbers=('NHWC', 'HWIO', 'NHWC')))(xh, wh))\n")
program("grad_conv", C + "print(jax.grad(lambda a, b: jnp.sum(jax.lax.conv(a, b, (1, 1), 'SAME') ** 2), argnums=(0, 1))(x, w)[1][0])\n")

program("lax_scan", "def step(c, x):\n    c = c * 0.5 + x\n    return c, jnp.sin(c)\nxs = jnp.arange(12.0).reshape(4, 3)\nprint(jax.lax.scan(step, jnp.zeros(3), xs))\nprint(jax.jit(lambda v: jax.lax.scan(step, jnp.ones(3), v, reverse=True)[1])(xs))\nprint(jax.lax.scan(lambda c, _: (c + 1, c), 0, None, length=3))\n")
program("grad_scan", "f = lambda w: jax.lax.scan(lambda c, x: (jnp.tanh(c * w + x), c), 0.5, jnp.arange(3.0))[0]\nprint(jax.grad(f)(0.7))\n")

program("at_updates", "x = jnp.arange(12.0).reshape(3, 4)\nprint(x.at[1].set(0.0), x.at[:, 1::2].add(10.0), x.at[0, 2].multiply(-1.0), x.at[2, :].get())\nprint(jax.jit(lambda v, u: v.at[1:, ::3].set(u))(x, jnp.array([[7.0, 8.0], [9.0, 10.0]])))\nprint(jnp.zeros(5, dtype=jnp.int32).at[-1].set(3))\n")
program("grad_at_set", "x = jnp.arange(12.0).reshape(3, 4)\nprint(jax.grad(lambda v: jnp.sum(v.at[0].set(5.0) * v))(x))\n")

program("creation_and_splits", "print(jnp.linspace(0.0, 1.0, 7), jnp.linspace(-2.0, 3.0, 5, endpoint=False))\nprint(jnp.eye(3), jnp.eye(2, 4, k=1))\nx = jnp.arange(12.0).reshape(3, 4)\nprint(jnp.split(x, 2, axis=1), jnp.split(x, [1, 2]))\nprint(jnp.allclose(x, x + 1e-7), jnp.allclose(x, x + 1.0))\n")
program("tril_triu", "x = jnp.arange(1.0, 13.0).reshape(3, 4)\nprint(jnp.tril(x), jnp.triu(x, k=1), jnp.tril(x, -1))\nprint(jnp.triu(jnp.arange(18, dtype=jnp.int32).reshape(2, 3, 3), 1))\nprint(jax.jit(lambda v: jnp.tril(v) @ jnp.triu(v).T)(x))\nprint(jax.grad(lambda v: jnp.sum(jnp.triu(v, -1) ** 2))(x))\n")
program("precision_kwarg", "a = jnp.array([[1.001, 2.003], [0.3337, -1.1113]])\nb = jnp.array([[1.0009, 0.5], [3.14159, 2.71828]])\nprint(jnp.matmul(a, b, precision=jax.lax.Precision.HIGHEST), jnp.dot(a, b, precision='highest'))\nprint(jnp.matmul(a, b, precision=jax.lax.Precision.DEFAULT), jnp.einsum('ij,jk->ik', a, b, precision=jax.lax.Precision.HIGHEST))\nprint(jax.jit(lambda u, v: jnp.tensordot(u, v, axes=1, precision=(jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGHEST)))(a, b))\nprint(jax.grad(lambda u: jnp.sum(jnp.dot(u, b, precision=jax.lax.Precision.HIGHEST) ** 2))(a))\n")
program("tree_map", "params = {'w': jnp.arange(4.0).reshape(2, 2), 'b': jnp.ones(2)}\ngrads = jax.grad(lambda p: jnp.sum(jnp.tanh(jnp.array([0.5, -1.0]) @ p['w'] + p['b'])))(params)\nprint(grads)\nprint(jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads))\nprint(jax.tree.map(lambda a, b: a * b, {'z': 2, 'a': (3.0, None)}, {'z': 5, 'a': (0.5, None)}))\nprint(jax.tree.leaves([params, 7, None]))\n")
program("with_matmul_precision", "a = jnp.array([[1.001, 2.003], [0.3337, -1.1113]])\nf = jax.jit(lambda u: u @ u)\nwith jax.default_matmul_precision('float32') as p:\n    print(a @ a, f(a), p)\nprint(a @ a, f(a))\ndef g():\n    with jax.default_matmul_precision('bfloat16'):\n        return jnp.dot(a, a)\nprint(g(), a @ a)\n")
program("nn_dot_product_attention", "q = jnp.sin(jnp.arange(2 * 3 * 2 * 4.0)).reshape(2, 3, 2, 4)\nk = jnp.cos(jnp.arange(2 * 5 * 2 * 4.0)).reshape(2, 5, 2, 4)\nv = jnp.arange(2 * 5 * 2 * 4.0).reshape(2, 5, 2, 4) / 10\nprint(jax.nn.dot_product_attention(q, k, v))\nprint(jax.nn.dot_product_attention(q[0], k[0, :3], v[0, :3], is_causal=True))\nm = jnp.arange(5) < 3\nprint(jax.jit(lambda a, b, c: jax.nn.dot_product_attention(a, b, c, mask=m, scale=0.5))(q, k, v)[1, 2])\nprint(jax.grad(lambda a: jnp.sum(jax.nn.dot_product_attention(a, k, v, is_causal=True) ** 2))(q)[0, 1])\n")
program("tensordot", "a = jnp.arange(24.0).reshape(2, 3, 4)\nb = jnp.arange(12.0).reshape(4, 3)\nprint(jnp.tensordot(a, b, axes=1))\nprint(jax.jit(lambda u, v: jnp.tensordot(u, v, axes=([1, 2], [1, 0])))(a, b))\n")

# jax.random: keys, splits and draws (on the host in the playground, bit for bit).
program("random_keys", "key = jax.random.PRNGKey(0)\nprint(key)\nprint(repr(jax.random.PRNGKey(5)))\nkeys = jax.random.split(key, 3)\nprint(keys)\nprint(repr(keys))\nk1, k2 = jax.random.split(key)\nprint(k1, k2, keys[-1], jax.random.fold_in(key, 7))\n")
program("random_draws", "key = jax.random.PRNGKey(42)\nk1, k2, k3 = jax.random.split(key, 3)\nprint(jax.random.uniform(k1, (2, 3)))\nprint(jax.random.normal(k2, (5,)))\nprint(jax.random.uniform(k3, (4,), minval=-1.0, maxval=2.0))\nprint(jax.random.bernoulli(key, 0.3, (8,)))\n")
program("random_mlp_init", """
key = jax.random.PRNGKey(1)
k1, k2 = jax.random.split(key)
w1 = jax.random.normal(k1, (4, 8)) * 0.5
w2 = jax.random.normal(k2, (8, 2)) * 0.5
x = jax.random.uniform(jax.random.PRNGKey(2), (3, 4))
print(jax.jit(lambda x: jnp.tanh(x @ w1) @ w2)(x))
""")

# .at[].multiply with integer-array indices: duplicates multiply in turn, out of range dropped.
program("at_multiply_array_indices", """
x = jnp.arange(1.0, 7.0).reshape(2, 3)
ids = jnp.array([0, 2, 0])
print(x.at[:, ids].multiply(jnp.array([2.0, 3.0, 0.5])))
print(x.at[jnp.array([1, 1]), jnp.array([0, 0])].multiply(3.0))
print(jnp.arange(5).at[jnp.array([4, 1, 4, 9])].multiply(2))
print(jax.jit(lambda v, i: v.at[i].multiply(-1.5))(jnp.ones(4), jnp.array([3, 0])))
""")

# nonzero, argwhere, flatnonzero and unique under jit and vmap, sized by size= (JAX's way
# there), and unique's padding outside jit.
program("sets_traced_with_size", """
x = jnp.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0], [0.0, 0.0, jnp.nan]])

@jax.jit
def f(a):
    return jnp.nonzero(a, size=5), jnp.argwhere(a, size=3, fill_value=-1), jnp.flatnonzero(a, size=6, fill_value=9)

print(f(x))
print(jax.jit(lambda v: jnp.nonzero(v, size=2))(jnp.array([0, 3, 0, 4, 5])))
print(jax.jit(lambda v: v.nonzero(size=4, fill_value=7))(jnp.array([True, False, True])))
print(jax.vmap(lambda v: jnp.flatnonzero(v, size=2))(jnp.array([[0, 1, 1], [1, 0, 0]])))
y = jnp.array([3.0, -0.0, 1.0, jnp.nan, 3.0, 0.0, jnp.nan, -2.0])
print(jax.jit(lambda v: jnp.unique(v, size=7))(y))
print(jax.jit(lambda v: jnp.unique(v, size=8, fill_value=9.0, return_index=True, return_inverse=True, return_counts=True))(y))
print(jax.jit(lambda v: jnp.unique(v, size=2, return_counts=True))(jnp.array([[5, 1], [5, 7]])))
print(jax.vmap(lambda v: jnp.unique(v, size=3))(jnp.array([[1, 1, 2], [3, 0, 3]])))
print(jax.jit(lambda v: jnp.unique(v, size=3))(jnp.array([True, True])))
print(jnp.unique(jnp.array([4, 2, 2]), size=4, return_index=True, return_counts=True))
""")

# Bitwise operations on int32 (the vector unit's integer ops), logical ones on masks, shifts in
# and out of 0..32, eagerly, under jit and vmap; also `import a, b as c`.
program("bitwise_integer_ops", """
import math, jax.numpy as np2
x = jnp.array([1, -2, 300000, -7, 16777215, -16777216])
y = jnp.array([3, 5, 12345, -1, 255, 1023])
s = jnp.array([0, 1, 4, 3, 33, -1])
print(x & y, x | y, x ^ y, ~x)
print(x << s, x >> s, x >> 40)
print(np2.bitwise_and(x, 6), jnp.bitwise_or(3, y), jnp.bitwise_xor(x, y), jnp.invert(y), jnp.bitwise_not(x))
print(jnp.left_shift(y, 2), jnp.right_shift(x, 3), jnp.bitwise_left_shift(2, s))
m = x > 0
print(m & (y > 4), m | (y > 4), m ^ (y > 4), ~m)
print(5 & 3, 5 | 3, 5 ^ 3, ~5, 1 << 4, -17 >> 2, math.floor(2.5))

@jax.jit
def f(a, b, n):
    return (a & b) | (a ^ ~b), a << n, a >> n, jnp.left_shift(b, 3), (a > 0) ^ (b > 2)

for r in f(x, y, s):
    print(r)
print(jax.vmap(lambda a, b: (a & b) ^ 7)(x, y))
""")

# Errors.
program("error_grad_nonscalar", X + "print(jax.grad(lambda v: v * 2.0)(x))\n")
program("error_grad_int", "print(jax.grad(lambda v: v * 2)(3))\n")
# Python's % and // on arrays (jnp.remainder, jnp.floor_divide), the C remainder (jnp.fmod,
# lax.rem), divmod; floats of both signs, ints, Python scalars, under jit and grad.
program("mod_floordiv", """
x = jnp.array([5.5, -5.5, 7.0, -7.0, 0.0, -0.0, 1e-3, 3.0])
y = jnp.array([2.0, 2.0, -3.0, -3.0, 2.0, -2.0, -0.75, 0.25])
print(x % y)
print(x // y)
print(jnp.fmod(x, y), jax.lax.rem(x, y))
print(divmod(x, 1.5))
print(jnp.remainder(x, -4.0), jnp.floor_divide(100.0, y))
i = jnp.arange(-7, 8)
print(i % 3, i // 3, i % -4, i // -4)
print(jnp.divmod(i, 5))
f = jax.jit(lambda a, b: (a % b, a // b, jnp.fmod(a, b)))
print(f(x, y))
print(jax.jit(lambda k: (k % 3, k // 3))(i))
print(jax.grad(lambda v: jnp.sum(v % 2.0 + (v // 2.0) * v))(x))
print(jax.grad(lambda v: jnp.sum(jnp.fmod(3.0, v)))(jnp.array([0.7, -1.1, 2.5])))
""")
# Integer-array indexing (a gather) and jnp.take: rows of a table, columns, two index arrays
# (the cross-entropy idiom), an int beside an array, negative and out-of-range indices, take's
# modes, and under jit, grad (a scatter-add) and vmap.
program("gather_take", """
table = jnp.arange(12.0).reshape(4, 3)
ids = jnp.array([2, 0, 3, -1, 7])
print(table[ids], table[:, jnp.array([2, 0])], table[1, jnp.array([2, 0])])
print(jax.jit(lambda t, i: t[i])(table, ids))
logp = jnp.log(jnp.array([[0.1, 0.7, 0.2], [0.5, 0.25, 0.25]]))
y = jnp.array([1, 0])
print(-jnp.mean(logp[jnp.arange(2), y]))
print(jax.grad(lambda t: jnp.sum(t[jnp.array([0, 0, 2])] * 2.0))(table))
print(jax.jit(jax.grad(lambda t: -jnp.mean(t[jnp.arange(2), y])))(logp))
print(jax.vmap(lambda row, i: row[i])(table[:2], jnp.array([1, 2])))
print(jax.jit(lambda t, i: t[i])(table, jnp.array(3)))
x = jnp.arange(12.0).reshape(3, 4)
i = jnp.array([[0, -1], [5, 2]])
print(jnp.take(x, i), jnp.take(x, i, axis=1))
print(jnp.take(x, i, axis=1, mode="clip"), jnp.take(x, i, axis=0, mode="wrap"))
print(jax.jit(lambda a, b: jnp.take(a, b, axis=1))(x, i))
print(jax.grad(lambda a: jnp.sum(jnp.take(a, jnp.array([1, 1, 3]), axis=1)))(x))
e = jnp.arange(20.0).reshape(5, 4)
tokens = jnp.array([[1, 4, 4], [0, 2, 3]])
print(e[tokens])
""")
# jnp.take_along_axis (the other cross-entropy idiom) and array methods that are jnp functions.
program("take_along_axis_methods", """
logp = jnp.log(jnp.array([[0.1, 0.7, 0.2], [0.5, 0.25, 0.25]]))
y = jnp.array([1, 0])
print(jnp.take_along_axis(logp, y[:, None], axis=-1).squeeze())
x = jnp.arange(24.0).reshape(2, 3, 4)
i = jnp.array([[[3, 0], [1, 1], [-1, 5]], [[0, 0], [2, 3], [1, 2]]])
print(jnp.take_along_axis(x, i, axis=2), jnp.take_along_axis(x, i, axis=2, mode="clip"))
print(jnp.take_along_axis(x, jnp.array([[[2]], [[0]]]), axis=1))
print(jnp.take_along_axis(x, jnp.array([[[1, 0, 1, 0]]]), axis=0))
print(jax.jit(lambda a, b: jnp.take_along_axis(a, b, axis=1))(logp, y[:, None]))
print(jax.grad(lambda a: -jnp.mean(jnp.take_along_axis(a, y[:, None], axis=1)))(logp))
print(x.min(), x.min(axis=1), x.argmax(axis=-1), x[0].flatten(), x[:1].squeeze(0).ravel()[:5])
print(x.clip(3.0, 7.5)[0], x[1].swapaxes(0, 1), x.var(), x[0].dot(jnp.ones(4)))
""")
# Reversals (lax.rev): jnp.flip and friends, negative steps in indexing and in .at[].
program("flip_and_negative_steps", """
x = jnp.arange(12.0).reshape(4, 3)
print(jnp.flip(x), jnp.flip(x, 1), jnp.flip(x, axis=(0, 1)), jnp.fliplr(x), jnp.flipud(x[:, 0]))
print(jax.lax.rev(x, (0,)), x[::-1], x[::-2, ::-1], x[2:0:-1, 1])
print(jax.jit(lambda a: a[::-1, ::2] * 2.0)(x), jax.jit(jnp.flip)(x[0]))
print(jax.grad(lambda a: jnp.sum(jnp.flip(a, 0) * jnp.arange(3.0)))(x))
print(jax.vmap(jnp.flip)(x), jax.jit(jax.vmap(lambda r: r[::-1]))(x))
print(x.at[::-1].set(jnp.arange(4.0)[:, None]), jax.jit(lambda a: a.at[::-2, 0].add(100.0))(x))
print(jax.make_jaxpr(lambda a: a[::-1])(x[0]))
""")
# jnp.roll, jnp.pad in every mode the playground has, repeat, tile and meshgrid.
program("roll_pad_repeat_tile", """
x = jnp.arange(12.0).reshape(4, 3)
print(jnp.roll(x, 1, axis=0), jnp.roll(x, -2), jnp.roll(x, (1, -1), axis=(0, 1)), jnp.roll(x, 7, axis=1))
print(jax.jit(lambda a: jnp.roll(a, 1, axis=1))(x), jax.grad(lambda a: jnp.sum(jnp.roll(a, 1) * jnp.arange(12.0).reshape(4, 3)))(x))
print(jnp.pad(x, 1), jnp.pad(x, ((1, 0), (0, 2)), constant_values=-1.0), jnp.pad(jnp.arange(3), (2, 1)))
v = jnp.arange(4.0) * 1.5
for mode in ["edge", "wrap", "reflect", "symmetric"]:
    print(mode, jnp.pad(v, (1, 2), mode=mode), jax.jit(lambda a: jnp.pad(a, 1, mode=mode))(x)[0])
print(jax.grad(lambda a: jnp.sum(jnp.pad(a, 2, mode="reflect") ** 2))(v))
print(jnp.repeat(x, 2, axis=0), jnp.repeat(jnp.arange(3), 2), jnp.repeat(x, 3, axis=1)[1], jnp.repeat(x, 2).shape)
print(jax.jit(lambda a: jnp.repeat(a, 2, axis=1))(x), jax.grad(lambda a: jnp.sum(jnp.repeat(a, 3) * 2.0))(v))
print(jnp.tile(x, (2, 1)), jnp.tile(jnp.arange(3), 2), jnp.tile(v, (2, 2)), jnp.tile(x, 2).shape)
print(jax.jit(lambda a: jnp.tile(a, (1, 3)))(x), jax.grad(lambda a: jnp.sum(jnp.tile(a, 2) * jnp.arange(8.0)))(v))
gx, gy = jnp.meshgrid(jnp.arange(3), jnp.arange(2.0))
print(gx, gy, jnp.meshgrid(jnp.arange(2), jnp.arange(3), indexing="ij")[1])
""")
# jnp.sort and argsort: stable, NaN last, -0 and 0 equal; axes, jit, grad, vmap.
program("sort_argsort", """
v = jnp.array([3.0, -0.0, jnp.nan, 1.0, 0.0, -jnp.inf, 1.0, jnp.inf])
print(jnp.sort(v), jnp.argsort(v), jnp.sort(v, descending=True), jax.jit(jnp.sort)(v))
x = jnp.cos(jnp.arange(12.0)).reshape(4, 3)
print(jnp.sort(x), jnp.sort(x, axis=0), jnp.argsort(x, axis=0), jnp.sort(x, axis=None))
print(jax.jit(lambda a: jnp.argsort(a, axis=1))(x), jnp.sort(jnp.array([3, -1, 2, -1])), jnp.argsort(jnp.array([True, False, True])))
print(jax.grad(lambda a: jnp.sort(a)[0] * 3.0 + jnp.sort(a)[-1])(jnp.array([2.0, 5.0, 1.0])))
print(jax.vmap(jnp.sort)(x), x.sort(), x.argsort(axis=0))
t = jnp.array([0.5, 0.1, 0.9, 0.3])
print(t[jnp.argsort(t)[::-1][:2]])
""")
# lax.dynamic_slice and friends: starts clamped into range, negative ones counting from the end.
program("lax_dynamic_slices", """
from jax import lax
x = jnp.arange(12.0).reshape(4, 3)
print(lax.dynamic_slice(x, (1, 0), (2, 3)), lax.dynamic_slice(x, (3, 2), (2, 2)), lax.dynamic_slice(x, (jnp.array(-1), 0), (1, 3)))
print(lax.dynamic_update_slice(x, jnp.ones((1, 3)), (1, 0)), lax.dynamic_update_slice(x, -jnp.ones((2, 2)), (5, -1)))
print(lax.dynamic_slice_in_dim(x, 1, 2), lax.dynamic_slice_in_dim(x, 1, 2, axis=1))
print(lax.dynamic_index_in_dim(x, 2), lax.dynamic_index_in_dim(x, 2, axis=1, keepdims=False))
print(lax.dynamic_update_slice_in_dim(x, jnp.zeros((4, 1)), 1, axis=1))
print(jax.jit(lambda a: lax.dynamic_slice(a, (1, 1), (2, 2)))(x))
print(lax.fori_loop(0, 2, lambda i, acc: acc + lax.dynamic_slice_in_dim(x, i * 2, 2), jnp.zeros((2, 3))))
print(jax.grad(lambda a: jnp.sum(lax.dynamic_slice(a, (1, 0), (2, 2)) ** 2))(x))
""")
# jax.random.choice with probabilities: cumulative sums with replacement, Gumbel top-k without.
program("random_choice_with_p", """
key = jax.random.PRNGKey(7)
p = jnp.array([0.1, 0.2, 0.3, 0.4])
print(jax.random.choice(key, 4, (12,), p=p), jax.random.choice(key, 4, (3,), replace=False, p=p))
x = jnp.arange(10.0).reshape(5, 2)
q = jnp.array([0.05, 0.5, 0.15, 0.2, 0.1])
print(jax.random.choice(key, x, (2, 3), p=q), jax.random.choice(key, x, (4,), replace=False, p=q))
print(jax.random.choice(jax.random.PRNGKey(1), 5, (2, 2), replace=False, p=q))
print(jax.random.choice(key, jnp.arange(6.0).reshape(2, 3), (5,), p=jnp.array([0.2, 0.3, 0.5]), axis=1))
print(sum(int(jax.random.choice(k, 3, p=jnp.array([0.7, 0.2, 0.1]))) for k in jax.random.split(key, 50)))
""")
# unique, nonzero, argwhere, flatnonzero: results sized by the values, outside jit (and size=).
program("unique_and_nonzero", """
x = jnp.array([[3, 1, 2], [1, 3, 3]])
print(jnp.unique(x), jnp.unique(x, return_index=True, return_inverse=True, return_counts=True))
print(jnp.unique(jnp.array([2.0, jnp.nan, -0.0, 0.0, jnp.nan, 1.0]), return_counts=True))
print(jnp.nonzero(x > 1), jnp.argwhere(x > 1), jnp.flatnonzero(x > 1), x.nonzero())
print(jnp.nonzero(x > 1, size=6, fill_value=-1), jnp.unique(x, size=5, fill_value=0), jnp.unique(x, size=2))
print(jnp.unique(jnp.array([True, False, True])), jnp.argwhere(jnp.zeros((2, 2))))
classes, counts = jnp.unique(jnp.array([0, 2, 2, 1, 0, 2]), return_counts=True)
print(classes, counts, jnp.flatnonzero(jnp.array([0, 0, 3]), size=3, fill_value=9))
""")
# .at[] with integer-array indices: scatters (duplicates summed by add, the last wins for set).
program("at_updates_scatter", """
x = jnp.zeros(5)
print(x.at[jnp.array([0, 2, 2])].add(1.0), x.at[jnp.array([0, 2, 2])].set(jnp.array([1.0, 2.0, 3.0])))
print(jax.jit(lambda v, i: v.at[i].add(2.0))(x, jnp.array([4, 4, 1])))
m = jnp.arange(6.0).reshape(3, 2)
print(m.at[jnp.array([2, 0]), 1].add(5.0), m.at[jnp.array([0, -1])].set(7.0))
print(m.at[:, jnp.array([1, 1])].add(jnp.array([10.0, 20.0])), m.at[jnp.array([[0], [2]]), jnp.array([0, 1])].max(4.5))
print(m.at[jnp.array([0, 5])].min(-1.0), jnp.zeros(4, dtype=bool).at[jnp.array([1, 3])].set(True))
print(jnp.zeros(3, dtype=jnp.int32).at[jnp.array([0, 0, 2])].add(jnp.array([1, 2, 3])))
print(jax.grad(lambda v: jnp.sum(jnp.zeros(3).at[jnp.array([0, 0, 2])].add(v) ** 2))(jnp.array([1.0, 2.0, 3.0])))
print(jnp.zeros(3).at[jnp.array([0, 2, 2, 1, 0, 2])].add(1.0))
print(jax.vmap(lambda row, i: row.at[i].set(-1.0))(m, jnp.array([[0, 1], [1, 1], [0, 0]])))
""")
# make_jaxpr printed as JAX 0.10 prints it: long parameter lists one per line, the implied
# parameters of broadcast_in_dim and reduce_max left out, unused outputs as `_`. (No dots: at
# DEFAULT the generator's bf16 emulation would show in the Jaxpr; crates/compiler/tests has one.)
program("exact_make_jaxpr_printing", """
def f(x):
    h = jnp.tanh(x[1:, 2:, :3, 1:] + 1.0)
    return jnp.sum(h ** 2, axis=1).mean() + jnp.max(x) * x.reshape(-1)[0]
print(jax.make_jaxpr(f)(jnp.ones((12, 10, 11, 13))))
print(jax.make_jaxpr(lambda x: (x.astype(jnp.int32), jnp.min(x), jnp.argmax(x), jnp.transpose(x.reshape(2, 2)), x[1:3], jnp.concatenate([x, x]), x ** 3, jax.lax.dynamic_slice(x, (1,), (2,))))(jnp.ones(4)))
print(jax.make_jaxpr(jax.grad(lambda v: jnp.sum(v * 2.0)))(jnp.ones(3)))
""")
# make_jaxpr of a jitted function: one `jit` equation calling its Jaxpr, named as JAX names it
# (outputs computed, forwarded, returned twice; a closed-over array; static and pytree inputs);
# a weakly typed traced value made strong where it meets a strong one.
program("make_jaxpr_of_jitted_functions", """
from functools import partial
print(jax.make_jaxpr(jax.jit(lambda x: x + 1.0))(1.0))
@jax.jit
def two(x, y):
    return x * y, x - y
print(jax.make_jaxpr(two)(jnp.ones(3), jnp.arange(3.0)))
print(jax.make_jaxpr(two)(jnp.ones(3), 2.0))
print(jax.make_jaxpr(lambda x, y: (x * y + y, y * 2.0, x > y))(jnp.ones(3), 2.0))
@jax.jit
def forward(x):
    return x, x * 2.0
print(jax.make_jaxpr(forward)(jnp.ones(2)))
c = jnp.arange(3.0)
@jax.jit
def closes(x):
    return jnp.sin(x + c)
print(jax.make_jaxpr(closes)(jnp.ones(3)))
@partial(jax.jit, static_argnums=1)
def scaled(x, n):
    return x * n
print(jax.make_jaxpr(scaled, static_argnums=1)(jnp.ones(2), 3))
@jax.jit
def tree(d):
    return {"s": d["a"] + d["b"], "m": jnp.tanh(d["a"]).mean()}
print(jax.make_jaxpr(tree)({"a": jnp.ones((2, 3)), "b": jnp.zeros((2, 3))}))
@jax.jit
def twice(x, unused):
    y = jnp.exp(x) * 2.0
    return y, y
print(jax.make_jaxpr(twice)(jnp.ones(2), jnp.ones(4)))
print(jax.make_jaxpr(lambda x: jnp.sum(x ** 2))(jnp.ones(3)))
""")
# Arrays created inside a trace are staged as JAX stages them: zeros, ones, full and the
# `_like`s as a `broadcast_in_dim` of a literal (weakly typed from a Python scalar fill or a
# weak `x`), arange as an `iota` times its step plus its start, eye as a comparison of two
# iotas; a scalar one is a literal.
# Under jit the program makes them on the chip, `arange(n).reshape(...)` included.
program("arrays_created_inside_traces", """
print(jax.make_jaxpr(lambda x: x + jnp.zeros(3))(2.0))
print(jax.make_jaxpr(lambda x: x + jnp.full((2,), 3.0))(2.0))
print(jax.make_jaxpr(lambda x: x + jnp.full((2,), 3.0, dtype=jnp.float32))(2.0))
print(jax.make_jaxpr(lambda x: x + jnp.full((2,), 3))(2))
print(jax.make_jaxpr(lambda x: x + jnp.zeros_like(x))(jnp.ones(2)))
print(jax.make_jaxpr(lambda x: x + jnp.zeros_like(x))(2.0))
print(jax.make_jaxpr(lambda x: x * jnp.ones((2,), jnp.bfloat16))(2.0))
print(jax.make_jaxpr(lambda x: x + jnp.arange(4))(2))
print(jax.make_jaxpr(lambda x: x + jnp.arange(1, 10, 2))(2))
print(jax.make_jaxpr(lambda x: x + jnp.arange(0.5, 3.0))(2.0))
print(jax.make_jaxpr(lambda x: x * jnp.arange(6.0).reshape(2, 3))(jnp.ones((2, 3))))
f = jax.jit(lambda x: x * jnp.arange(1, 10, 2) + jnp.ones(5))
print(f(3.0))
g = jax.jit(lambda x: x + jnp.arange(24.0).reshape(2, 3, 4) * 0.5 + jnp.arange(4).reshape(1, 4))
print(g(jnp.ones((2, 3, 4))))
print(jax.jit(lambda x: jnp.arange(12).reshape(3, 4) % 5 + x)(1))
print(jax.jit(lambda x: x + jnp.arange(1.0).reshape(1, 1))(2.0))
print(jax.jit(lambda x: x + jnp.arange(3.0).reshape(3, 1))(jnp.ones((3, 2))))
print(jax.jit(lambda x: x + jnp.arange(6).reshape(2, 1, 3))(1))
print(jax.jit(lambda x: x + jnp.full((2, 2), True))(1))
print(jax.jit(lambda x: jnp.ones((2, 3), dtype=jnp.bool_) & (x > 0))(1.0))
print(jax.jit(lambda x: x + jnp.zeros((0,)))(1.0))
print(jax.make_jaxpr(lambda x: x + jnp.eye(2))(1.0))
print(jax.make_jaxpr(lambda x: x * jnp.eye(2, 3, k=1, dtype=jnp.int32))(1))
print(jax.jit(lambda x: x + jnp.eye(3, 4, k=-1))(1.0))
print(jax.jit(lambda x: x @ jnp.eye(4))(jnp.arange(8.0).reshape(2, 4)))
print(jax.jit(lambda x: jnp.eye(3, dtype=jnp.bool_) | x)(False))
print(jax.grad(lambda x: jnp.sum(x * jnp.arange(3.0) + jnp.zeros(3)))(2.0))
print(jax.vmap(lambda x: x + jnp.arange(3))(jnp.ones((2, 3), dtype=jnp.int32)))
print(jnp.full((2,), 3.0) + jnp.ones(2, dtype=jnp.bfloat16))
""")
# A Python scalar a traced function returns is a literal output of its Jaxpr (weakly typed
# for an int or a float, not for a bool), through jit, vmap, the loops and cond.
program("python_scalars_returned_from_traces", """
print(jax.make_jaxpr(lambda x: 1.0)(2.0))
print(jax.make_jaxpr(lambda x: (x, 2))(2.0))
print(jax.make_jaxpr(jax.jit(lambda x: (x * 2.0, 1.0)))(2.0))
print(jax.jit(lambda x: (x, 2, 3.5, True))(2.0))
print(jax.jit(lambda x: 1.0)(2.0))
print(jax.vmap(lambda x: (x, 2.0))(jnp.ones(3)))
print(jax.value_and_grad(lambda x: 3.0 * x)(2.0))
print(jax.lax.fori_loop(0, 3, lambda i, c: c + 1.0, 0.0))
print(jax.lax.scan(lambda c, x: (c + x, 1.0), 0.0, jnp.ones(3)))
print(jax.lax.cond(True, lambda x: 1.0, lambda x: x, 2.0))
""")

# Keyword arguments: Python's own (keyword-only parameters, **kwargs, ** at a call), and through
# jit (static_argnames, static positions and names completed from the signature, keyword
# arguments traced in sorted order), grad (not differentiated), vmap (mapped over axis 0) and
# custom derivatives (bound to positions, defaults filled in).
program("keyword_arguments_in_python", """
def g(x, *, a, b=2, c):
    return x + a + b + c
print(g(1, a=2, c=3))
def h(x, *args, scale=2, **kw):
    return x * scale, args, sorted(kw.items())
print(h(1, 2, 3, scale=3, z=4, y=5))
print(h(1, **{'scale': 10, 'w': 1}))
print(h(*[1, 2], **{'y': 0}))
k = lambda *, n=3: n * 2
print(k(), k(n=1))
def forward(*args, **kwargs):
    return h(*args, **kwargs)
print(forward(4, 5, scale=1, q=2))
g(1, a=2)
""")
program("keyword_arguments_to_jit", """
from functools import partial

@partial(jax.jit, static_argnames='n')
def power(x, n):
    print('tracing power with n =', n)
    return x ** n
print(power(jnp.arange(3.0), n=3))
print(power(jnp.arange(3.0), 3))
print(power(jnp.arange(3.0), n=2))

@partial(jax.jit, static_argnums=1)
def scaled(x, n):
    return x * n
print(scaled(jnp.ones(2), n=4))

@jax.jit
def affine(x, scale=2.0, *, bias):
    return x * scale + bias
print(affine(jnp.ones(2), bias=jnp.ones(2)))
print(affine(jnp.ones(2), bias=1.0, scale=3.0))
print(jax.make_jaxpr(affine)(jnp.ones(2), bias=1.0, scale=3.0))

@jax.jit
def scale_tree(p, *, n):
    return {k: v * n for k, v in p.items()}
print(scale_tree({'a': 1.0, 'b': jnp.ones(2)}, n=2))
print(jax.make_jaxpr(scale_tree)({'a': 1.0, 'b': jnp.ones(2)}, n=2))
print(jax.make_jaxpr(lambda a, n: a * n)(1.0, 2))

@partial(jax.jit, static_argnames=('activation',))
def layer(x, activation='relu'):
    return jax.nn.relu(x) if activation == 'relu' else jnp.tanh(x)
print(layer(jnp.array([-1.0, 2.0])), layer(jnp.array([-1.0, 2.0]), activation='tanh'))
print(jax.jit(lambda x, y=1: x * y, static_argnums=-1)(2.0, 3.0))
options = {'bias': 0.5}
print(affine(jnp.zeros(2), **options))
""")
program("keyword_arguments_to_transformations", """
def loss(w, x, *, l2=0.1):
    return jnp.sum(w * x) + l2 * jnp.sum(w * w)
w, x = jnp.ones(3), jnp.arange(3.0)
print(jax.grad(loss)(w, x, l2=0.5))
print(jax.value_and_grad(loss)(w, x, l2=jnp.array(0.5)))
print(jax.jit(jax.grad(loss))(w, x, l2=0.5))
print(jax.grad(lambda w: jax.jit(loss)(w, x, l2=0.25))(w))
print(jax.vmap(lambda x, y: x + y)(jnp.ones((2, 3)), y=jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(lambda x, y: x + y, in_axes=(0,))(jnp.ones((2, 3)), y=jnp.arange(6.0).reshape(2, 3)))
print(jax.vmap(lambda x, scale: x * scale['s'], in_axes=(1,))(jnp.ones((2, 3)), scale={'s': jnp.arange(3.0)}))

@jax.custom_jvp
def scaled(x, y=2.0):
    return x * y

@scaled.defjvp
def scaled_jvp(primals, tangents):
    print('the rule sees', len(primals), 'primals')
    x, y = primals
    return scaled(x, y), tangents[0] * y

print(jax.grad(scaled)(1.0))
print(jax.grad(scaled)(1.0, y=3.0))

@jax.custom_vjp
def times(x, scale=3.0):
    return x * scale

times.defvjp(lambda x, scale: (times(x, scale), scale), lambda scale, g: (g * scale, None))
print(jax.grad(times)(2.0), jax.grad(times)(2.0, scale=5.0))

def cube_sum(x, *, n):
    return jnp.sum(x ** n)
print(jax.jacfwd(cube_sum)(jnp.arange(3.0), n=2))
print(jax.jacrev(cube_sum)(jnp.arange(3.0), n=3))
print(jax.hessian(cube_sum)(jnp.arange(3.0), n=3))
print(jax.vmap(lambda x, y: x + y)(jnp.ones((2, 3)), y=1.0))
""")
# Jacobians of pytrees: the result nests the input's structure inside the output's; several
# outputs, argnums tuples, has_aux, hessian of a dict, under jit.
program("jacobians_of_pytrees", """
def f(p, x):
    return {'y': jnp.tanh(p['w'] @ x + p['b']), 's': jnp.sum(p['w'] ** 2)}
p = {'w': jnp.array([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]), 'b': jnp.array([0.1, 0.2, 0.3])}
x = jnp.array([0.5, -0.25])
jf = jax.jacfwd(f)(p, x)
print(jax.tree_util.tree_structure(jf))
print(jf['y']['w'].shape, jf['y']['b'].shape, jf['s']['w'].shape)
print(jf)
print(jax.jacrev(f)(p, x))
print(jax.jacfwd(f, argnums=(0, 1))(p, x)['y'][1])
print(jax.jacrev(f, argnums=1)(p, x))
print(jax.jacrev(lambda a, b: (a * b, a + b), argnums=(0, 1))(jnp.arange(2.0), jnp.ones(2)))
print(jax.jacfwd(lambda a: (jnp.sin(a), jnp.sum(a)), has_aux=True)(jnp.arange(3.0)))
print(jax.jacrev(lambda a: (jnp.sin(a), {'n': jnp.sum(a), 'k': 2}), has_aux=True)(jnp.arange(3.0)))
print(jax.hessian(lambda p: jnp.sum(p['a'] ** 2 * p['b']))({'a': jnp.arange(2.0), 'b': jnp.ones(2)}))
print(jax.hessian(lambda a: (jnp.sum(a ** 3), a), has_aux=True)(jnp.arange(2.0)))
print(jax.jit(jax.jacrev(f))(p, x)['s'])
print(jax.jacfwd(lambda l: l[0] * l[1])([jnp.ones(2), 2.0]))
print(jax.grad(lambda x: (x * 2.0, 3.0), has_aux=True)(1.0))
print(jax.jacrev(lambda a: a.astype(jnp.int32))(jnp.arange(2.0)))
""")
program("vmap_unmapped_arguments_and_outputs", """
print(jax.vmap(lambda x, y: (x * y, y * 2.0), in_axes=(0, None), out_axes=(0, None))(jnp.arange(3.0), 4.0))
print(jax.vmap(lambda x: {'a': x, 'c': jnp.ones(2)}, out_axes={'a': 1, 'c': None})(jnp.ones((3, 2))))
print(jax.vmap(lambda x, w: x @ w, in_axes=(0, None))(jnp.ones((3, 2)), jnp.arange(4.0).reshape(2, 2)))
print(jax.vmap(lambda x, n: x * n, in_axes=(0, None))(jnp.ones(3), 2))
print(jax.jit(jax.vmap(lambda x, w: (x * w, w + 1.0), in_axes=(0, None), out_axes=(0, None)))(jnp.ones(3), jnp.float32(2.0)))
print(jax.make_jaxpr(jax.vmap(lambda x, w: (x * w, w + 1.0), in_axes=(0, None), out_axes=(0, None)))(jnp.ones(3), jnp.float32(2.0)))
print(jax.vmap(lambda x, s: x if s == 'id' else -x, in_axes=(0, None))(jnp.ones(3), 'neg'))
print(jax.vmap(lambda x: (x, 2), out_axes=(0, None))(jnp.ones(2)))
print(jax.vmap(lambda x: x + 1.0, out_axes=None)(jnp.ones(3)))
""")
# Starred unpacking in displays and targets; dtype objects print and compare as NumPy's; a
# gradient of a Python scalar stays weakly typed under jit too.
program("starred_unpacking", """
xs = [1, 2, 3, 4]
first, *rest = xs
*init, last = xs
a, *mid, b = xs
print(first, rest, init, last, a, mid, b)
p, *q = (1,)
print(p, q)
x = jnp.ones((2, 3))
print((*x.shape, 4), [*x.shape, *xs], [0, *range(2)])
print(x.reshape(*x.shape[:-1], 3, 1).shape)
for h, *t in [(1, 2, 3), (4, 5)]:
    print(h, t)
def mlp(params, v):
    *hidden, last_layer = params
    for w in hidden:
        v = jax.nn.relu(v @ w)
    return v @ last_layer
print(mlp([jnp.ones((3, 2)), jnp.ones((2, 2)), jnp.ones((2, 1))], x))
a, *b = []
""")
program("dtype_objects", """
x = jnp.ones(2)
print(x.dtype, [x.dtype], {'a': x.dtype}, repr(x.dtype), str(x.dtype), f"{x.dtype}")
print(jnp.float32, [jnp.float32, jnp.bool_], jnp.dtype('float32'), [jnp.dtype('int32')], jnp.dtype(jnp.bfloat16))
print(x.dtype == jnp.float32, x.dtype == 'float32', x.dtype == jnp.int32, jnp.float32 == jnp.float32)
print(x.dtype.name, x.dtype.itemsize, x.astype(jnp.bfloat16).dtype.itemsize)
theta = (jnp.zeros(2), 0.0)
g = jax.jit(jax.grad(lambda t, v: jnp.sum(t[0] * v) + t[1] * 2.0))(theta, x)
print(g)
print(jax.tree.map(lambda a: a.dtype, g))
""")
# Short compositions (tests/jax cases at zero, infinity, NaN and for integers), lax aliases,
# tolist, and tree_util's is_leaf, prefix trees, tree_reduce and tree_all.
program("shorthand_functions", """
x = jnp.array([[-2.5, -0.5, 0.0], [0.5, 1.5, 3.0]])
print(jnp.fabs(x), jnp.fabs(jnp.array([-1, 2])))
print(jnp.trunc(x), jnp.trunc(jnp.array([-3, 4])), jnp.rint(x), jnp.rint(jnp.array([1, 2])))
print(jnp.deg2rad(jnp.array([180.0, 90.0])), jnp.radians(180), jnp.rad2deg(jnp.pi), jnp.degrees(jnp.array([1.0])))
print(jnp.hypot(3, 4), jnp.hypot(x, 2.0), jnp.hypot(jnp.array([0.0, jnp.inf, 1e30]), jnp.array([0.0, 1.0, 1e30])))
print(jnp.heaviside(x, 0.5), jnp.heaviside(jnp.array([-1, 0, 2]), 7))
print(jnp.isclose(x, x + 1e-6), jnp.isclose(jnp.array([jnp.nan, 1.0, jnp.inf]), jnp.array([jnp.nan, 1.0, jnp.inf]), equal_nan=True))
print(jnp.isclose(1.0, 1.1, rtol=0.2), jnp.isclose(jnp.array([1.0], dtype=jnp.bfloat16), 1.001))
y = jnp.zeros((2, 3, 4))
print(jnp.moveaxis(y, 0, -1).shape, jnp.moveaxis(y, [0, 1], [-1, -2]).shape, jnp.moveaxis(y, -1, 0).shape)
print(jnp.atleast_1d(1.0), jnp.atleast_2d(jnp.ones(3)).shape, jnp.atleast_3d(jnp.ones((2, 3))).shape, jnp.atleast_3d(1.0).shape)
print(jnp.atleast_1d(1.0, jnp.ones(2)))
print(jnp.inner(jnp.arange(3.0), jnp.ones(3)), jnp.inner(jnp.ones((2, 3)), jnp.ones((4, 3))).shape, jnp.inner(2.0, jnp.ones(2)))
print(jnp.vdot(jnp.ones((2, 2)), jnp.arange(4.0)))
print(jnp.select([x < 0, x > 1], [-x, x * 10], default=7.0), jnp.select([x > 0], [1]))
print(jnp.clip(x, min=0.0), jnp.clip(x, max=1.0), jnp.clip(x, 0.0, max=1.0), x.clip(min=-1.0))
print(jax.nn.tanh(x))
print(jax.lax.clamp(-1.0, x, 1.0), jax.lax.square(x))
print(jax.lax.broadcast(jnp.ones(2), (3,)).shape, jax.lax.expand_dims(x, (0, 2)).shape, jax.lax.concatenate([x, x], 1).shape)
print(jax.lax.pad(x, 0.0, [(1, 0, 0), (-1, 1, 1)]))
print(jax.lax.sort(jnp.array([3.0, 1.0, 2.0])), jax.lax.sort(x, dimension=0), jax.lax.argmax(x, 1, jnp.int32), jax.lax.argmin(x, 0, jnp.int32))
print(jax.lax.map(lambda v: v * 2, x), jax.lax.map(lambda p: {'s': p[0] + p[1]}, (jnp.arange(3.0), jnp.ones(3))))
print(jnp.ones(2).tolist(), x.tolist(), jnp.array(3).tolist(), jnp.array([True, False]).tolist(), jnp.zeros((2, 0)).tolist())
print(x.block_until_ready() is x, jax.block_until_ready({'a': x})['a'].shape)
print(jax.tree_util.tree_map(lambda x, y: (x, y), {'a': 1, 'b': 2}, {'a': [1, 2], 'b': (3,)}))
print(jax.tree_util.tree_leaves([(1, 2), (3, (4, 5))], is_leaf=lambda n: isinstance(n, tuple) and len(n) == 2))
print(jax.tree_util.tree_map(lambda t: t[0] + t[1], [(1, 2), (3, 4)], is_leaf=lambda n: isinstance(n, tuple)))
print(jax.tree_util.tree_reduce(lambda a, b: a + b, {'x': 1, 'y': [2, 3]}), jax.tree_util.tree_reduce(lambda a, b: a * b, [2, 3], 10))
print(jax.tree_util.tree_all([True, 1, jnp.array(True)]), jax.tree_util.tree_all({'a': [True, False]}), jax.tree.all([]))
print(jax.tree.reduce(max, [1, 5, 2]))
print(jax.tree_util.tree_map(lambda x: x, [1, None, 2]), jax.tree_util.tree_leaves([None, 1]), jax.tree_util.tree_leaves([None, 1], is_leaf=lambda n: n is None))
print(jax.grad(lambda v: jnp.sum(jnp.hypot(v, 1.0) + jnp.trunc(v) + jnp.fabs(v)))(x))
print(jax.jit(lambda v: jnp.select([v < 0], [v * 2], v))(x))
print(jax.vmap(lambda v: jnp.moveaxis(v, 0, 1))(y).shape)
""")
program("tree_map_structure_mismatch", """
print(jax.tree_util.tree_map(lambda a, b: a + b, {'a': (1, 2)}, {'a': (3, 4)}))
print(jax.tree_util.tree_map(lambda a, b: a + b, {'a': (1, 2)}, {'a': 5}))
""")
# jax.debug.print: at once outside jit; under jit each time the program runs, with its values
# (nested jit, loops, the taken branch of a traced cond/switch); grad and jvp print the forward
# values, vmap once per example (both branches of a cond on a mapped value, false first).
program("debug_print", """
x = jnp.arange(3.0)
jax.debug.print("eager {} and {y}", x, y=2.0)
jax.debug.print("{a} {b}", b=1, a=[1, 2])

@jax.jit
def f(x):
    print("tracing f")
    y = x * 2.0 + 1.0
    jax.debug.print("y = {y}", y=y)
    jax.debug.print("sum {:.3f}", jnp.sum(y))
    return y * 2

print(f(x))
print(f(x + 1))

@jax.jit
def g(x):
    jax.debug.print("g sees {}", x)
    return f(x) + 1
print(g(x))

def loop(x):
    def body(i, c):
        jax.debug.print("step {} carry {}", i, c)
        return c + i
    return jax.lax.fori_loop(0, 3, body, x)
print(jax.jit(loop)(1.0))

def branchy(x):
    def pos(v):
        jax.debug.print("positive {}", v)
        return v * 2
    def neg(v):
        jax.debug.print("negative {}", v)
        return -v
    return jax.lax.cond(x > 0, pos, neg, x)
h = jax.jit(branchy)
print(h(1.5))
print(h(-2.0))
print(branchy(3.0))
def pick(i, x):
    def show(k):
        def branch(v):
            jax.debug.print("branch {} got {}", k, v)
            return v + k
        return branch
    return jax.lax.switch(i, [show(0), show(1), show(2)], x)
for i in [-1, 0, 1, 2, 5]:
    print(jax.jit(pick)(i, 10.0))
print(jax.vmap(branchy)(jnp.array([1.0, -1.0])))
print(jax.grad(lambda v: f(v).sum())(x))
print(jax.jit(jax.grad(lambda v: f(v).sum()))(x))
print(jax.vmap(f)(jnp.ones((2, 2))))
print(jax.jvp(f, (x,), (jnp.ones(3),)))
""")
# jax.debug.print is a debug callback (JAX's debug_print primitive): it runs inside while
# loops, under jacfwd and jacrev, and make_jaxpr shows it.
program("debug_print_everywhere", """
def newton(x):
    def body(c):
        jax.debug.print("iterate {c:.4f}", c=c)
        return c - (c * c - 2.0) / (2.0 * c)
    return jax.lax.while_loop(lambda c: jnp.abs(c * c - 2.0) > 1e-5, body, x)
print(jax.jit(newton)(1.0))
print(jax.vmap(newton)(jnp.array([1.0, 3.0])))
def s(x):
    jax.debug.print("x = {} ({})", x, "static")
    return jnp.sin(x)
print(jax.jacfwd(s)(jnp.ones(2)))
print(jax.jacrev(s)(jnp.ones(2)))
y, pullback = jax.vjp(s, 0.5)
print(pullback(1.0))
print(jax.make_jaxpr(lambda x: jax.debug.print("x is {} and {y}", x, y=x * 2) or x + 1)(1.0))
print(jax.make_jaxpr(jax.vmap(s))(jnp.ones(2)))
""")
# jax.scipy.signal: convolutions as JAX writes them over lax.conv_general_dilated.
program("scipy_signal", """
import jax.scipy as jsp
x = jnp.array([1.0, 2.0, 0.5, -1.0, 3.0, 0.25])
k = jnp.array([0.25, 0.5, -0.25])
for mode in ["full", "same", "valid"]:
    print(mode, jsp.signal.convolve(x, k, mode=mode), jsp.signal.correlate(x, k, mode=mode))
    print(jsp.signal.convolve(k, x, mode=mode))
img = jnp.arange(20.0).reshape(4, 5) / 7.0
w = jnp.array([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]])
for mode in ["full", "same", "valid"]:
    print(mode, jsp.signal.convolve2d(img, w, mode=mode))
    print(jsp.signal.correlate2d(img, w, mode=mode), jsp.signal.correlate2d(w, img, mode=mode).shape)
print(jax.jit(lambda a, b: jsp.signal.convolve(a, b, mode="same"))(img, w))
print(jsp.signal.convolve(jnp.array([1, 2, 3]), jnp.array([1, 1])))
""")
# conv_general_dilated with three spatial dimensions, and spatial letters matched by the
# kernel spec's order.
program("conv_3d", """
from jax import lax
x = jnp.sin(jnp.arange(2 * 4 * 5 * 3 * 2, dtype=jnp.float32)).reshape(2, 4, 5, 3, 2)
w = jnp.cos(jnp.arange(3 * 2 * 2 * 2 * 3, dtype=jnp.float32)).reshape(3, 2, 2, 2, 3)
dn = lax.conv_dimension_numbers(x.shape, w.shape, ('NHWDC', 'HWDIO', 'NHWDC'))
print(dn)
y = lax.conv_general_dilated(x, w, (1, 1, 1), 'SAME', (1, 1, 1), (1, 1, 1), dn)
print(y.shape, jnp.round(jnp.sum(jnp.abs(y)), 3), y[0, 1, 2])
y = lax.conv_general_dilated(x, w, (2, 1, 1), 'VALID', rhs_dilation=(1, 2, 1), dimension_numbers=dn)
print(y.shape, y[1, :, 0, 0])
x5 = jnp.transpose(x, (0, 4, 1, 2, 3))
w5 = jnp.transpose(w, (4, 3, 0, 1, 2))
print(lax.conv_general_dilated(x5, w5, (1, 1, 1), 'SAME').shape)
print(jnp.allclose(lax.conv_general_dilated(x5, w5, (1, 1, 1), 'SAME'), jnp.transpose(lax.conv_general_dilated(x, w, (1, 1, 1), 'SAME', dimension_numbers=dn), (0, 4, 1, 2, 3)), atol=1e-5))
img = jnp.sin(jnp.arange(1 * 2 * 5 * 4, dtype=jnp.float32)).reshape(1, 2, 5, 4)
k = jnp.cos(jnp.arange(3 * 2 * 2 * 3, dtype=jnp.float32)).reshape(3, 2, 2, 3)
print(lax.conv_general_dilated(img, k, (1, 1), 'VALID', dimension_numbers=('NCHW', 'OIWH', 'NCHW')))
g = jax.grad(lambda w: jnp.sum(lax.conv_general_dilated(x, w, (1, 1, 1), 'SAME', dimension_numbers=dn) ** 2))(w)
print(g.shape, g[0, 0, 0])
""")
program("random_cauchy_rademacher", """
k = jax.random.PRNGKey(3)
print(jax.random.cauchy(k, (5,)))
print(jax.random.rademacher(k, (6,)), jax.random.rademacher(k, (3,), dtype=jnp.float32))
print(jax.random.cauchy(jax.random.key(7), (2, 2)))
""")
# jax.eval_shape traces on types alone (ShapeDtypeStructs stand for arrays never made).
program("eval_shape", """
s = jax.eval_shape(lambda x, y: {'a': x @ y, 'b': x.sum(), 'c': 2.0 * 3}, jnp.ones((2,3)), jax.ShapeDtypeStruct((3, 4), jnp.bfloat16))
print(s)
print(s['a'].shape, s['a'].dtype, s['a'].ndim, s['a'].size)
sd = jax.ShapeDtypeStruct((2,), jnp.float32)
print(sd, repr(sd), sd == jax.ShapeDtypeStruct((2,), 'float32'), [sd])
print(jax.eval_shape(lambda x: x * 2, 1.0))
print(jax.eval_shape(jnp.tanh, sd))
params = {'w': jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16), 'b': jax.ShapeDtypeStruct((4096,), jnp.float32)}
print(jax.eval_shape(lambda p, x: jax.nn.gelu(x @ p['w'] + p['b']), params, jax.ShapeDtypeStruct((8, 4096), jnp.bfloat16)))
print(jax.eval_shape(jax.grad(lambda p: jnp.sum(p['w'])), params))
print(jax.eval_shape(jax.jit(lambda x, n=2: x ** n), sd, n=3))
""")
# Ahead of time: jit(f).lower(types).compile() without values; XLA's cost and memory keys.
program("ahead_of_time_lower_compile", """
def f(a, b):
    return jnp.tanh(jnp.dot(a, b, precision='highest')) + 1.0
lowered = jax.jit(f).lower(jax.ShapeDtypeStruct((256, 512), jnp.float32), jax.ShapeDtypeStruct((512, 128), jnp.float32))
print(type(lowered).__name__, lowered.out_info)
print(sorted(lowered.cost_analysis().items()))
compiled = lowered.compile()
print(type(compiled).__name__)
cost = compiled.cost_analysis()
print(sorted(cost), cost['flops'], cost['transcendentals'], 2 * 256 * 512 * 128)
m = compiled.memory_analysis()
print(m.argument_size_in_bytes, m.output_size_in_bytes, m.alias_size_in_bytes)
print(compiled(jnp.ones((256, 512)), jnp.full((512, 128), 0.001))[0, :3])
try:
    compiled(jnp.ones((256, 512)), jnp.ones((512, 64)))
except TypeError as e:
    print('TypeError', e)
for f, args in [(lambda x: x * 2.0, (jnp.ones((8, 128)),)), (lambda x: jnp.exp(x).sum(axis=1), (jnp.ones((8, 128)),)),
                (lambda x, y: jnp.where(x < y, x, y), (jnp.ones((8, 128)), jnp.zeros((8, 128)))),
                (lambda x: x[2:4].T.reshape(-1), (jnp.ones((8, 128)),)), (lambda x: x ** 3, (jnp.ones((4, 4)),))]:
    print(sorted(jax.jit(f).lower(*args).cost_analysis().items()))
big = jax.jit(lambda x, w: jnp.matmul(x, w, precision='highest')).lower(jax.ShapeDtypeStruct((8, 8192), jnp.float32), jax.ShapeDtypeStruct((8192, 8192), jnp.float32))
print(big.cost_analysis()['flops'], big.compile().memory_analysis().argument_size_in_bytes)
""")
# jax.experimental.ode.odeint: adaptive Dormand-Prince, pytree states, and its adjoint gradient.
program("odeint_dormand_prince", """
from jax.experimental.ode import odeint
def f(y, t, k):
    return jnp.array([y[1], -k * y[0] - 0.1 * y[1]])
print(odeint(f, jnp.array([1.0, 0.0]), jnp.linspace(0., 10., 11), 2.0))
print(odeint(lambda y, t: {'a': -y['a'] * t, 'b': y['a']}, {'a': jnp.ones(3), 'b': jnp.zeros(3)}, jnp.array([0., 0.5, 1.0]), rtol=1e-5, atol=1e-5))
def loss(k):
    return odeint(f, jnp.array([1.0, 0.0]), jnp.array([0., 1., 2.]), k)[-1, 0]
print(loss(2.0), jax.grad(loss)(2.0))
print(jax.jit(lambda y0: odeint(lambda y, t: -0.5 * y, y0, jnp.array([0., 1.])))(jnp.ones(2)))
""")
# jax.random.gamma, loggamma and beta: Marsaglia-Tsang rejection loops, vmapped, as JAX draws them.
program("random_gamma_beta", """
from jax import random
k = random.PRNGKey(0)
print(random.gamma(k, 2.5, (5,)))
print(random.gamma(k, jnp.array([0.3, 1.0, 4.0])))
print(random.loggamma(random.key(3), 0.1, (3,)))
print(random.beta(k, a=1, b=2))
print(random.beta(random.key(1), 0.5, jnp.array([1., 2., 3.]), (2, 3)))
print(jax.jit(lambda k: random.beta(k, 2.0, 3.0, (4,)))(k))
print(jax.vmap(lambda k: random.gamma(k, 1.5))(random.split(k, 3)))
print(random.key(3).dtype, random.key(3).shape, random.PRNGKey(3).dtype, random.PRNGKey(3).shape, random.split(random.key(0), 4).shape, random.split(k).ndim)
""")
# jax.linearize: the primal computed once; the returned function maps tangents alone.
program("linearize", """
f = lambda x: jnp.sin(x) * x ** 2
x = jnp.arange(3.0)
y, f_jvp = jax.linearize(f, x)
print(y)
print(f_jvp(jnp.ones(3)))
print(f_jvp(jnp.array([1.0, 0.0, 2.0])))
print(jax.jvp(f, (x,), (jnp.ones(3),))[1])
out, lin = jax.linearize(lambda p, z: {'a': p['w'] * z, 'b': jnp.sum(p['w'])}, {'w': jnp.ones(2)}, 3.0)
print(out)
print(lin({'w': jnp.array([1.0, 2.0])}, 1.0))
print(jax.jit(lambda t: f_jvp(t))(jnp.ones(3)))
""")
# Reverse-mode Jaxprs as JAX prints them: JAX's JVP rules (tanh as (t + t·tanh)(1 − tanh), a
# quotient's y⁻², y·x^(y−1) with the constant first), add_any where contributions are summed, and
# each transposed product with the cotangent where its linear operand was.
program("grad_jaxprs", """
print(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(x * x)))(jnp.ones(3)))
print(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.tanh(x) * 2.0)))(jnp.ones(3)))
print(jax.make_jaxpr(jax.grad(lambda w: jnp.mean((w * 3.0) ** 2)))(jnp.ones((3, 2))))
print(jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jnp.exp(x) / (1.0 + x))))(jnp.ones(3)))
y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * x ** 2, jnp.arange(3.0))
print(jax.make_jaxpr(f_jvp)(jnp.ones(3)))
print(jax.grad(lambda x: jnp.sum(jnp.tanh(x) / (x + 2.0)))(jnp.array([0.5, -1.0, 2.0])))
""")
# jnp.logaddexp with JAX's custom JVP: ties split evenly, -inf weighs nothing, the jaxpr is JAX's.
program("logaddexp", """
print(jax.grad(lambda x: jnp.logaddexp(x, 0.0))(0.0), jax.grad(lambda x: jnp.logaddexp(x, x))(1.0))
print(jnp.logaddexp(jnp.array([1.0, -jnp.inf, jnp.inf, 0.0]), jnp.array([2.0, 1.0, jnp.inf, -jnp.inf])))
print(jax.grad(lambda x: jnp.sum(jnp.logaddexp(x, jnp.array([0.0, -jnp.inf, 2.0]))))(jnp.array([0.0, 1.0, -jnp.inf])))
print(jax.vmap(jax.grad(lambda a, b: jnp.logaddexp(a, b)), in_axes=(0, None))(jnp.array([0.0, 3.0]), 1.0))
print(jnp.logaddexp(2, 3), jnp.logaddexp(jnp.ones(2, dtype=jnp.bfloat16), 1.0))
print(jax.make_jaxpr(jnp.logaddexp)(1.0, 2.0))
print(jax.jit(jax.grad(lambda x: jnp.sum(jnp.logaddexp(x, 0.0) ** 2)))(jnp.array([-1.0, 0.0, 2.0])))
print(jax.hessian(lambda x: jnp.logaddexp(x, 0.0))(0.5))
""")
program("logaddexp2", """
print(jax.grad(lambda x: jnp.logaddexp2(x, 0.0))(0.0), jax.grad(lambda x: jnp.logaddexp2(x, x))(1.0))
print(jnp.logaddexp2(jnp.array([1.0, -jnp.inf, jnp.inf, 0.0]), jnp.array([2.0, 1.0, jnp.inf, -jnp.inf])))
print(jax.grad(lambda x: jnp.sum(jnp.logaddexp2(x, jnp.array([0.0, -jnp.inf, 2.0]))))(jnp.array([0.0, 1.0, -jnp.inf])))
print(jax.vmap(jax.grad(lambda a, b: jnp.logaddexp2(a, b)), in_axes=(0, None))(jnp.array([0.0, 3.0]), 1.0))
print(jnp.logaddexp2(2, 3), jnp.logaddexp2(jnp.ones(2, dtype=jnp.bfloat16), 1.0))
print(jax.jit(jax.grad(lambda x: jnp.sum(jnp.logaddexp2(x, 0.0) ** 2)))(jnp.array([-1.0, 0.0, 2.0])))
print(jax.hessian(lambda x: jnp.logaddexp2(x, 0.0))(0.5))
""")
# NumPy 2 / array-API spellings JAX binds to the same functions, round with decimals, isposinf,
# matrix_transpose; arccos at -1 is pi.
program("array_api_aliases", """
x = jnp.array([[-0.5, 0.25], [0.75, -1.0]])
print(jnp.absolute(x), jnp.acos(x), jnp.asin(x), jnp.atan(x), jnp.atan2(x, 2.0))
print(jnp.acosh(x + 2.0), jnp.asinh(x), jnp.atanh(x * 0.5))
print(jnp.amax(x), jnp.amin(x, axis=0), jnp.around(x * 3.3, 1), jnp.round(x * 3.3, 1))
print(jnp.concat([x, x], axis=1).shape, jnp.permute_dims(jnp.zeros((2, 3, 4)), (2, 0, 1)).shape)
print(jnp.pow(x, 2), jnp.true_divide(jnp.array([1, 2]), 4))
print(jnp.isposinf(jnp.array([jnp.inf, -jnp.inf, 1.0])), jnp.isneginf(jnp.array([jnp.inf, -jnp.inf, jnp.nan])), jnp.isposinf(jnp.array([1, 2])))
print(jnp.matrix_transpose(jnp.arange(12.0).reshape(2, 2, 3)).shape, jnp.matrix_transpose(x))
print(jax.grad(lambda v: jnp.sum(jnp.acos(v) + jnp.pow(v, 3)))(x * 0.5))
print(jnp.arccos(jnp.array([-1.0, 1.0, 0.0])))
""")
# jax.random with traced keys: Threefry runs in the program (on the emulated TPU's uint32 ops).
program("random_in_jit_dropout", """
@jax.jit
def step(key, x):
    key, sub = jax.random.split(key)
    keep = jax.random.bernoulli(sub, 0.75, x.shape)
    return key, jnp.where(keep, x / 0.75, 0.0)

key = jax.random.PRNGKey(0)
x = jnp.arange(12.0).reshape(3, 4)
for _ in range(3):
    key, y = step(key, x)
    print(key)
    print(y)
print(repr(key))
""")
program("random_in_jit_draws", """
key = jax.random.PRNGKey(7)
draws = jax.jit(lambda k: (jax.random.normal(k, (2, 3)), jax.random.uniform(k, (5,)), jax.random.bits(k, (4,))))
n, u, b = draws(key)
print(n)
print(u)
print(b, b.dtype)
k1, k2, k3 = jax.jit(lambda k: jax.random.split(k, 3))(key)
print(k1, k2, k3)
print(jax.jit(jax.random.fold_in)(key, 5), jax.jit(lambda k: jax.random.fold_in(k, 123456789))(key))
print(jax.jit(lambda k: jax.random.uniform(k, (4,), minval=2.0, maxval=6.0))(key))
print(jax.jit(lambda k: jax.random.truncated_normal(k, -1.5, 1.5, (4,)))(key))
print(jax.jit(lambda k: jax.random.exponential(k, (4,)))(key))
typed = jax.random.key(11)
new, draw = jax.jit(lambda k: (jax.random.split(k)[0], jax.random.normal(k, (3,))))(typed)
print(new)
print(draw)
print(jax.jit(jax.random.key_data)(typed))
""")
program("random_vmap_over_keys", """
keys = jax.random.split(jax.random.PRNGKey(3), 4)
print(jax.vmap(lambda k: jax.random.normal(k, (3,)))(keys))
print(jax.vmap(lambda k, i: jax.random.fold_in(k, i))(keys, jnp.arange(4)))
print(jax.vmap(lambda i: jax.random.uniform(jax.random.fold_in(jax.random.PRNGKey(0), i), (2,)))(jnp.arange(3)))
init = jax.jit(jax.vmap(lambda k: jax.random.normal(k, (2, 2)) * 0.1))
print(init(keys))
""")
# One number per key (a draw of shape ()) under vmap: the program a user pasted that made the
# compiler panic (an iota over no axes) before it was fixed.
program("random_vmap_scalar_draws", """
from jax import random
keys = random.split(random.key(42), 3)
print(jax.vmap(random.normal)(keys))
print(jax.jit(jax.vmap(random.normal))(keys))
print(jax.vmap(random.bits)(keys), jax.vmap(random.uniform)(random.split(random.PRNGKey(1), 2)))
""")
# Namedtuples are pytree nodes: through jit, grad, vmap and tree_map, printed as JAX prints
# their structure.
program("pytree_namedtuples", """
from typing import NamedTuple
from collections import namedtuple

class Params(NamedTuple):
    w: jax.Array
    b: jax.Array

Pair = namedtuple("Pair", ["left", "right"])
p = Params(jnp.array([1.0, -2.0]), jnp.float32(0.5))
print(jax.tree_util.tree_structure(p), jax.tree_util.tree_leaves(p))
loss = lambda p, x: jnp.sum(jnp.tanh(p.w * x + p.b))
print(jax.grad(loss)(p, jnp.array([0.5, 1.5])))
print(jax.jit(lambda p: Params(p.w * 2, p.b + 1))(p))
print(jax.vmap(lambda q: q.left + q.right)(Pair(jnp.arange(3.0), jnp.ones(3))))
print(jax.tree_util.tree_map(lambda a: a * 10, Pair(1.0, [2.0, 3.0])))
""")
# JAX's functions bind as methods; a jit decorator with options; a traced function's jaxpr.
program("jit_methods_and_decorators", """
from functools import partial

class Scaler:
    def __init__(self, k):
        self.k = k

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.k

    def __hash__(self):
        return hash(self.k)

    def __eq__(self, other):
        return isinstance(other, Scaler) and self.k == other.k

    grad_of_apply = jax.grad(lambda self, x: jnp.sum(self.apply(x) ** 2), argnums=1)

s = Scaler(3.0)
print(s.apply(jnp.arange(3.0)), s.grad_of_apply(jnp.array([1.0, 2.0])))

@jax.jit(static_argnums=(1,))
def power(x, n):
    return x ** n

print(power(jnp.array([2.0, 3.0]), 3))
print(jax.jit(lambda x: jnp.sin(x) * 2.0).trace(1.0).jaxpr)
""")
# custom_jvp.defjvps: one rule per argument, summed.
program("custom_jvp_defjvps", """
f = jax.custom_jvp(lambda x, y: jnp.sin(x) * y)
f.defjvps(lambda g, ans, x, y: jnp.cos(x) * g * y, lambda g, ans, x, y: jnp.sin(x) * g)
print(f(1.0, 2.0), jax.grad(f, argnums=(0, 1))(1.0, 2.0))
print(jax.jvp(f, (1.0, 2.0), (1.0, 0.5)))
""")
# The device list of one chip (the lines that name the device differ between JAX's CPU and
# the emulated TPU, so only what both share is printed).
program("devices_and_device_put", """
print(jax.device_count(), jax.local_device_count(), jax.process_index(), len(jax.devices()))
print(jax.devices()[0].id, jax.devices()[0].process_index)
x = jax.device_put(jnp.arange(3.0))
print(x, jax.device_put({"a": jnp.ones(2)})["a"], jax.__version__)
print(x.device == jax.devices()[0], x.devices() == set(jax.devices()), type(jax.device_get(x)).__name__)
print(jax.device_get({"a": x, "b": 2}))
""")
# jax.example_libraries: a stax network trained by each optimizer for a few steps.
program("example_libraries_stax_optimizers", """
from jax.example_libraries import optimizers, stax
from jax.example_libraries.stax import Dense, Relu, LogSoftmax, Tanh

init, predict = stax.serial(Dense(8), Relu, Dense(4), Tanh, Dense(3), LogSoftmax)
shape, params = init(jax.random.key(0), (-1, 5))
x = jax.random.normal(jax.random.key(1), (6, 5))
y = jax.nn.one_hot(jnp.array([0, 1, 2, 0, 1, 2]), 3)
print(shape, jax.tree_util.tree_map(jnp.shape, params))

def loss(ps):
    return -jnp.mean(jnp.sum(predict(ps, x) * y, axis=1))

for name, opt in [("sgd", optimizers.sgd(0.1)), ("momentum", optimizers.momentum(0.1, 0.9)),
                  ("adam", optimizers.adam(0.05)), ("rmsprop", optimizers.rmsprop(0.01)),
                  ("adagrad", optimizers.adagrad(0.1)), ("nesterov", optimizers.nesterov(0.1, 0.9))]:
    opt_init, opt_update, get_params = opt
    state = opt_init(params)

    @jax.jit
    def step(i, state):
        return opt_update(i, jax.grad(loss)(get_params(state)), state)

    for i in range(4):
        state = step(i, state)
    print(name, loss(get_params(state)))
schedule = optimizers.exponential_decay(0.1, 10, 0.5)
print(schedule(20), optimizers.l2_norm([jnp.ones(4), jnp.ones(5)]))
fan_init, fan_apply = stax.serial(stax.FanOut(2), stax.parallel(Dense(2), Dense(2)), stax.FanInSum)
_, fan_params = fan_init(jax.random.key(2), (-1, 3))
print(fan_apply(fan_params, jnp.ones((1, 3))))
""")
# jax.scipy.stats and jax.scipy.linalg, and random.multivariate_normal.
program("scipy_stats_and_linalg", """
from jax.scipy import stats
from jax.scipy.linalg import solve_triangular, cho_factor, cho_solve, cholesky
x = jnp.array([-1.0, 0.0, 0.5, 2.0])
print(stats.norm.logpdf(x), stats.norm.pdf(x, 1.0, 2.0), stats.norm.cdf(x))
print(stats.t.logpdf(x, 3.0), stats.uniform.pdf(x, -0.5, 2.0), stats.expon.logpdf(x, scale=2.0))
print(stats.laplace.logpdf(x), stats.logistic.pdf(x), stats.cauchy.logpdf(x), stats.bernoulli.pmf(jnp.array([0, 1, 1]), 0.3))
cov = jnp.array([[2.0, 0.3], [0.3, 1.0]])
pts = jnp.array([[0.1, -0.2], [1.0, 0.5], [0.0, 0.0]])
print(stats.multivariate_normal.logpdf(pts, jnp.zeros(2), cov), stats.multivariate_normal.pdf(pts[0], jnp.ones(2), cov))
a = jnp.array([[2.0, 0.0, 0.0], [1.0, 3.0, 0.0], [-1.0, 0.5, 4.0]])
b = jnp.array([1.0, 2.0, 3.0])
print(solve_triangular(a, b, lower=True), solve_triangular(a.T, b), solve_triangular(a, b, trans=1, lower=True))
spd = a @ a.T
print(cholesky(spd, lower=True), cho_solve(cho_factor(spd), b))
print(jax.grad(lambda m: jnp.sum(stats.multivariate_normal.logpdf(pts, m, cov)))(jnp.zeros(2)))
draws = jax.random.multivariate_normal(jax.random.key(3), jnp.array([1.0, -1.0]), cov, (4,))
print(draws.shape, jnp.mean(draws, axis=0).shape)
""")
# linspace between arrays of bounds; lax.conv_with_general_padding; jnp.array's dtype by position.
program("linspace_array_bounds_and_conv_padding", """
print(jnp.linspace(jnp.array([0.0, 1.0]), jnp.array([1.0, 3.0]), 5))
print(jnp.linspace(0.0, jnp.array([1.0, 2.0]), 4, axis=1, endpoint=False))
x = jnp.arange(32.0).reshape(1, 2, 4, 4)
w = jnp.ones((3, 2, 2, 2)) * 0.5
print(jax.lax.conv_with_general_padding(x, w, (1, 1), ((0, 1), (1, 0)), (1, 1), (1, 2)))
print(jnp.array([1, 2], jnp.float32), jnp.asarray(3, "int32").dtype, jnp.array([1.5], dtype="bfloat16"))
""")
program("random_grad_with_dropout", """
def loss(w, key, x):
    keep = jax.random.bernoulli(key, 0.5, x.shape)
    h = jnp.where(keep, x * 2.0, 0.0)
    return jnp.sum(jnp.tanh(h @ w))

w = jnp.ones((4, 2)) * 0.1
x = jnp.arange(8.0).reshape(2, 4) / 8
key = jax.random.PRNGKey(5)
print(jax.grad(loss)(w, key, x))
print(jax.jit(jax.value_and_grad(loss))(w, key, x))
""")
program("random_make_jaxpr", """
key = jax.random.PRNGKey(0)
print(jax.make_jaxpr(lambda k: jax.random.split(k))(key))
print(jax.make_jaxpr(lambda k, i: jax.random.fold_in(k, i))(key, 3))
print(jax.make_jaxpr(lambda k: jax.random.bits(k, (2,)))(key))
print(jax.make_jaxpr(lambda k: jax.random.split(k, 4))(jax.random.key(1)))
""")
program("checkpoint_remat", """
from functools import partial
@jax.checkpoint
def f(x):
    return jnp.sin(jnp.sin(x))
@partial(jax.remat, policy=jax.checkpoint_policies.dots_saveable, prevent_cse=False)
def layer(w, x):
    return jnp.tanh(x @ w)
print(jax.grad(lambda x: f(x).sum())(jnp.arange(3.0)))
w = jnp.arange(4.0).reshape(2, 2) / 4
print(jax.jit(jax.grad(lambda w, x: layer(w, layer(w, x)).sum()))(w, jnp.ones((3, 2))))
print(jax.checkpoint(jnp.cos, policy=jax.checkpoint_policies.nothing_saveable)(1.0))
""")
program("dtype_info_finfo_iinfo", """
f = jnp.finfo(jnp.float32)
print(repr(f), repr(jnp.finfo(jnp.bfloat16)))
for a in ['eps','max','min','tiny','smallest_normal','smallest_subnormal','resolution','bits','dtype','precision','epsneg','machep','nexp','nmant','maxexp','minexp','iexp','negep']:
    print(a, getattr(f, a), getattr(jnp.finfo(jnp.bfloat16), a))
i = jnp.iinfo(jnp.int32)
print(repr(i), i.min, i.max, i.bits, i.dtype)
print(jnp.finfo(jnp.ones(2)).eps, jnp.finfo('float32').max, jnp.finfo(dtype=jnp.bfloat16).eps)
print(f.eps + 1.0, jnp.ones(2) * f.min, jnp.finfo(jnp.bfloat16).eps * jnp.ones(2))
print(jax.jit(lambda x: jnp.where(x > 0, x, jnp.finfo(x.dtype).min))(jnp.array([1., -1.])))
print(jax.jit(lambda x: x * jnp.finfo(jnp.float32).eps)(jnp.float32(2.0)))
print(hasattr(f, "eps"), hasattr(f, "nope"), getattr(f, "nope", -1))
""")
program("jit_invalid_static_argnames", """
from functools import partial
print('before')
@partial(jax.jit, static_argnames=('x', 'steps'))
def f(x):
    return x
""")
program("jit_static_argnums_out_of_range", """
print('before')
f = jax.jit(lambda x, y=1: x * y, static_argnums=3)
""")
# A jitted function called inside other traces is traced once per signature, as in JAX: a
# print in it runs once per shape, through jit, grad, vmap and make_jaxpr alike; one that
# closes over an enclosing trace's value is traced where it is called.
program("jit_traces_nested_calls_once", """
@jax.jit
def inner(v):
    print("tracing inner", v.shape)
    return v * 2.0
@jax.jit
def outer(v):
    return inner(v) + inner(v + 1.0) + inner(v[:2]).sum()
print(outer(jnp.ones(3)))
print(outer(jnp.zeros(3)))
print(inner(jnp.ones(3)))
print(jax.grad(lambda v: inner(v).sum())(jnp.ones(3)))
print(jax.vmap(inner)(jnp.ones((2, 3))))
print(jax.make_jaxpr(inner)(jnp.ones(2)))
def closes(x):
    return jax.jit(lambda v: v * x)(x)
print(jax.jit(closes)(jnp.arange(2.0)))
""")
# Windows at positions computed under jit (the compiler selects them; no computed addresses).
program("lax_dynamic_slices_traced", """
from jax import lax
x = jnp.arange(64.0).reshape(8, 8) * 0.5
g = jax.jit(lambda a, i: lax.dynamic_slice(a, (i, 0), (2, 8)).sum())
print(g(x, 3), g(x, 7), g(x, -2))
u = jax.jit(lambda a, i, v: lax.dynamic_update_slice(a, v, (i, i + 1)))
print(u(x, 2, jnp.ones((2, 3))), u(x, 7, -jnp.ones((2, 3))))
print(jax.jit(lambda a, i: lax.dynamic_index_in_dim(a, i, axis=1, keepdims=False))(x, 5))
print(jax.jit(lambda a, s: lax.dynamic_slice_in_dim(a, s, 3, axis=0).mean(axis=0))(x, 4))
print(jax.grad(lambda a, i: g(a, i))(x, 1))
print(jax.jit(lambda m, i: lax.dynamic_slice(m, (i,), (2,)))(jnp.array([True, False, True, True]), 1))
""")
# .at[] at integers computed under jit: selections where the positions match; out of range drops.
program("at_updates_traced", """
x = jnp.arange(12.0).reshape(3, 4)
f = jax.jit(lambda a, i, v: a.at[i].set(v))
print(f(x, 1, 7.0), f(x, -1, jnp.arange(4.0)), f(x, 5, 1.0))
print(jax.jit(lambda a, i: a.at[:, i].add(100.0))(x, 2), jax.jit(lambda a, i, j: a.at[i, j].multiply(-1.0))(x, 2, -1))
print(jax.jit(lambda a, i: a.at[0, i].max(5.0))(x, 3), jax.jit(lambda a, i: a.at[i, 0].min(-5.0))(x, 1))
print(jax.grad(lambda a, i: jnp.sum(a.at[i].set(0.0) ** 2))(x, 1))
print(jax.jit(jax.grad(lambda a, i: jnp.sum(a.at[i].add(a[0]) ** 2)))(x, 2))
print(jax.jit(lambda n: jax.lax.fori_loop(0, 5, lambda i, acc: acc.at[i].set(i * 2.0), jnp.zeros(5)))(3))
print(jax.vmap(lambda row, i: row.at[i].set(-1.0))(x, jnp.array([0, 3, 1])))
print(jax.jit(lambda m, i: m.at[i].set(True))(jnp.zeros(4, dtype=bool), 2), jax.jit(lambda a, i: a.at[i].add(3))(jnp.arange(4), 2))
""")
# Division by a constant or a broadcast, which XLA's simplifier turns into a multiplication by
# the reciprocal (`9 / 10` prints 0.90000004): compared digit for digit (the `exact_` prefix).
# Sums stay within 13 terms: XLA:CPU adds longer rows in another order than the emulated TPU.
program("exact_division_by_constants_and_broadcasts", """
x = jnp.arange(1, 40, dtype=jnp.float32) * 1.37
print(x / 10, x / 3.0)
print(jnp.mean(x.reshape(3, 13), axis=1), jnp.mean(x[:13]))
f = jax.jit(lambda v, c: v / c)
print(f(x, jnp.float32(10.0)), f(x, 7.0))
m = x.reshape(3, 13)
print(jax.jit(lambda v: v / jnp.sum(v))(x[:13]), jax.jit(lambda v: v / jnp.sum(v, axis=1, keepdims=True))(m))
print(jax.jit(lambda v, w: v / w)(m, m[0]), x.astype(jnp.bfloat16) / 3.0)
print(jnp.linspace(0.0, 1.0, 7), jax.grad(lambda v: jnp.sum(v / 3.0))(x))
""")
# jax.random.randint, permutation and choice (without p): bit for bit JAX's, minibatches by index.
program("random_integers_and_shuffles", """
key = jax.random.PRNGKey(42)
print(jax.random.randint(key, (2, 3), 0, 10), jax.random.randint(key, (4,), -5, 1000), jax.random.randint(key, (), 3, 4))
print(jax.random.randint(key, (3,), 7, 2), jax.random.randint(key, (5,), -2147483648, 2147483647))
print(jax.random.permutation(key, 10), jax.random.permutation(key, jnp.arange(12.0).reshape(4, 3)))
print(jax.random.permutation(key, jnp.arange(6.0).reshape(2, 3), axis=1), jax.random.permutation(key, 2000)[:8])
print(jax.random.choice(key, 5, (3,)), jax.random.choice(key, jnp.arange(10.0) * 2, (2, 2)))
print(jax.random.choice(key, 5, (3,), replace=False), jax.random.choice(key, jnp.arange(12.0).reshape(4, 3), (2,), replace=False))
print(jax.random.choice(key, jnp.arange(12.0).reshape(4, 3), (2,), axis=1), jax.random.choice(key, 7))
k1, k2 = jax.random.split(key)
idx = jax.random.permutation(k1, 8)
x = jnp.arange(16.0).reshape(8, 2)
for i in range(0, 8, 4):
    print(x[idx[i:i + 4]].sum(axis=0))
""")
# Logical reductions, expanded elementwise functions, diagonals, stacking, median, average, diff,
# aliases and jnp.linalg.norm.
program("more_jnp_functions", """
x = jnp.arange(12.0).reshape(4, 3) - 4.0
print(jnp.any(x > 3), jnp.all(x > -5), jnp.any(x > 3, axis=0), x.any(), (x > 2).all(axis=1), jnp.all(x, axis=1, keepdims=True))
print(jnp.count_nonzero(x > 2), jnp.count_nonzero(x, axis=0), jnp.count_nonzero(jnp.array([True, False, True])))
print(jnp.log2(8.0), jnp.log2(jnp.array([1.0, 3.0, 0.5])), jnp.log10(jnp.array([100.0, 2.0, 7.0])), jnp.log2(4))
v = jnp.array([-0.9, -0.3, 0.0, 0.25, 0.7])
for f in [jnp.tan, jnp.arctan, jnp.arcsin, jnp.arccos, jnp.sinh, jnp.cosh, jnp.arcsinh, jnp.arctanh]:
    print(f(v))
print(jnp.arccosh(jnp.array([1.0, 1.5, 3.0, 10.0])), jnp.sinh(jnp.array([5.0, -12.0, 89.0])), jnp.cosh(jnp.array([5.0, -12.0, -89.0])))
print(jax.grad(lambda a: jnp.sum(jnp.arcsin(a) + jnp.tan(a) + jnp.sinh(a) + jnp.log2(a + 1.0)))(v))
w = jnp.array([1.0, jnp.inf, -jnp.inf, jnp.nan, -0.0])
print(jnp.isinf(w), jnp.isfinite(w), jnp.isinf(jnp.arange(3)), jnp.nan_to_num(w), jnp.nan_to_num(w, nan=-1.0, posinf=9.0))
print(jnp.reciprocal(jnp.array([2.0, -4.0, 0.0])), jnp.logical_xor(x > 0, x > 3), jnp.logical_xor(True, False))
print(jnp.diag(jnp.arange(3.0)), jnp.diag(jnp.arange(1, 3), k=1), jnp.diag(jnp.arange(2.0), -2), jnp.diag(x), jnp.diag(x, 1), jnp.diag(x, -2))
print(jnp.trace(x), jnp.trace(x, 1), x.diagonal(), jnp.diagonal(x, offset=-1), x.trace())
print(jax.jit(jnp.trace)(x), jax.grad(lambda a: jnp.trace(a) * 2.0)(x), jax.jit(lambda a: jnp.diag(a))(jnp.arange(3.0)))
print(jnp.vstack([x, x]).shape, jnp.hstack([x, x]).shape, jnp.vstack([jnp.arange(3), jnp.arange(3)]), jnp.hstack([jnp.arange(2), jnp.arange(3)]))
print(jnp.column_stack([jnp.arange(3.0), jnp.ones(3)]), jnp.column_stack((x, x[:, :1])).shape)
print(jnp.median(x), jnp.median(x, axis=0), jnp.median(x, axis=1, keepdims=True), jnp.median(jnp.array([3.0, 1.0, 2.0, 10.0])))
print(jnp.average(x), jnp.average(x, axis=0), jnp.average(x, axis=1, weights=jnp.array([1.0, 2.0, 3.0])), jnp.average(x, weights=x + 5.0))
print(jnp.diff(jnp.array([1.0, 4.0, 9.0, 16.0])), jnp.diff(x, axis=0), jnp.diff(jnp.array([1.0, 4.0, 9.0, 16.0]), n=2), jnp.diff(jnp.array([True, False, False])))
print(jnp.identity(3), jnp.empty((2,)), jnp.full_like(x, 2.0).sum(), jnp.full_like(x, 7, dtype=jnp.int32)[0], jnp.ravel(x).shape)
print(jnp.size(x), jnp.size(x, 1), jnp.shape(x), jnp.ndim(x), jnp.array_equal(x, x), jnp.array_equal(x, x[:2]), jnp.array_equal(w, w), jnp.array_equal(w, w, equal_nan=True))
print(jnp.linalg.norm(x), jnp.linalg.norm(x, axis=1), jnp.linalg.norm(v, 1), jnp.linalg.norm(v, jnp.inf), jnp.linalg.norm(v, -jnp.inf), jnp.linalg.norm(v, 0), jnp.linalg.norm(v, 3))
print(jnp.linalg.norm(x, 'fro'), jnp.linalg.norm(x, 1), jnp.linalg.norm(x, jnp.inf), jnp.linalg.norm(x, -1), jnp.linalg.norm(x, axis=0, keepdims=True))
print(jax.grad(lambda a: jnp.linalg.norm(a))(jnp.array([3.0, 4.0])), jax.jit(lambda a: jnp.linalg.norm(a, axis=-1))(x))
""")
# bfloat16 arrays: every op computed in float32 and rounded to bfloat16, one MXU pass for bf16
# operands, printing as NumPy prints ml_dtypes' bfloat16.
program("bfloat16_arrays", """
x = jnp.sin(jnp.arange(12.0).reshape(4, 3)).astype(jnp.bfloat16)
w = jnp.cos(jnp.arange(6.0).reshape(3, 2)).astype(jnp.bfloat16)
print(x, x.dtype)
print(x @ w, (x @ w).dtype)
print(x + 1, x * 3.7, jnp.exp(x), jnp.tanh(x) * x, (x / 3).dtype)
print(jnp.sum(x), jnp.sum(x, axis=0), jnp.max(x, axis=1), jnp.mean(x))
f = jax.jit(lambda a, b: jax.nn.relu(a @ b + 1.0))
print(f(x, w))
print(jax.jit(lambda a: a.astype(jnp.float32) * 1.001)(x))
print(jax.grad(lambda a: jnp.sum((a @ w).astype(jnp.float32) ** 2))(x))
print(x.T, x[1:3], jnp.concatenate([x, x]).shape, x.astype(jnp.int32))
print(jnp.arange(300).astype(jnp.bfloat16)[-5:], jnp.ones(3, dtype=jnp.bfloat16) / 3)
""")
# Mixed precision: bfloat16 operands with preferred_element_type=float32 sums, and their gradients.
program("mixed_precision_dots", """
x = jnp.sin(jnp.arange(12.0).reshape(4, 3)).astype(jnp.bfloat16)
w = jnp.cos(jnp.arange(6.0).reshape(3, 2)).astype(jnp.bfloat16)
y = jnp.dot(x, w, preferred_element_type=jnp.float32)
print(y, y.dtype)
print(jnp.matmul(x, w, preferred_element_type=jnp.float32), jnp.einsum("ij,jk->ik", x, w, preferred_element_type=jnp.float32).dtype)
print(jnp.tensordot(x, w, axes=1, preferred_element_type=jnp.float32))
f = jax.jit(lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32) + 1.0)
print(f(x, w), f(x, w).dtype)
print(jax.grad(lambda a: jnp.sum(jnp.matmul(a, w, preferred_element_type=jnp.float32) ** 2))(x))
# One mixed dot_general, as JAX stages it; its transposes are mixed float32 x bfloat16 dots.
# (An explicit precision, so that the generator's DEFAULT emulation leaves the Jaxprs alone.)
hi = jax.lax.Precision.HIGHEST
print(jax.make_jaxpr(lambda a, b: jnp.dot(a, b, precision=hi, preferred_element_type=jnp.float32))(x, w))
print(jax.make_jaxpr(jax.grad(lambda a, b: jnp.dot(a, b, precision=hi, preferred_element_type=jnp.float32).sum(), argnums=(0, 1)))(x, w))
print(jax.make_jaxpr(lambda a, b: jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision=hi, preferred_element_type=jnp.float32))(x, w))
print(jax.jit(lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32)).lower(x, w).cost_analysis()['flops'])
print(jax.grad(lambda a, b: jnp.einsum("ij,jk->ik", a, b, preferred_element_type=jnp.float32).sum(), argnums=1)(x, w))
""")
# Collectives under vmap with an axis name act across the batch (JAX's batching rules).
program("vmap_axis_name_collectives", """
from jax import lax
x = jnp.arange(12.0).reshape(4, 3) / 4.0
print(jax.vmap(lambda v: v / lax.psum(v, 'b'), axis_name='b')(x))
print(jax.vmap(lambda v: lax.pmax(v, 'b') - lax.pmin(v, 'b'), axis_name='b')(x))
print(jax.vmap(lambda v: v - lax.pmean(v, 'b'), axis_name='b')(x))
print(jax.vmap(lambda v: v * lax.axis_index('b'), axis_name='b')(x))
print(jax.vmap(lambda v: lax.all_gather(v, 'b'), axis_name='b')(x)[1])
print(jax.vmap(lambda v: lax.all_gather(v, 'b', tiled=True), axis_name='b')(x)[2])
print(jax.vmap(lambda v: lax.psum(2.0, 'b') * v, axis_name='b')(x))
print(jax.grad(lambda w: jax.vmap(lambda v: lax.psum(jnp.sin(w * v), 'b'), axis_name='b')(x).sum())(0.5))
f = jax.jit(jax.vmap(jax.vmap(lambda v: v - lax.pmean(v, 'i'), axis_name='i'), axis_name='j'))
print(f(x))
""")

# bf16 through loops, branches and windows on the machine (HBM holds bf16 packed, two to a
# word): rows of 5 start inside words, carries and ys are bf16, a window moves at a computed
# index, a cond returns bf16, and a bf16 carry is read back as float32.
program("bf16_loops_on_the_machine", """
from jax import lax
bf = jnp.bfloat16
xs = (jnp.sin(jnp.arange(35.0)).reshape(7, 5) * 3.0).astype(bf)
@jax.jit
def running(xs):
    def step(c, x):
        c = c * bf(0.75) + x
        return c, (c * c).astype(bf)
    return lax.scan(step, jnp.zeros(5, bf), xs)
carry, ys = running(xs)
print(carry, carry.dtype, ys)
@jax.jit
def shifted(a, k):
    def body(i, acc):
        row = lax.dynamic_slice_in_dim(a, (i + k) % 7, 1)
        return lax.dynamic_update_slice_in_dim(acc, row * bf(2), i, 0)
    return lax.fori_loop(0, 7, body, jnp.zeros_like(a))
print(shifted(xs, 3))
@jax.jit
def pick(a, t):
    return lax.cond(a.astype(jnp.float32).sum() > t, lambda b: b[::-1] + bf(1), lambda b: b * b, a[2])
print(pick(xs, 0.0), pick(xs, 100.0))
@jax.jit
def halve(a):
    n, b = lax.while_loop(lambda c: jnp.abs(c[1].astype(jnp.float32)).max() > 0.5, lambda c: (c[0] + 1, c[1] / bf(2)), (0, a))
    return n, b.astype(jnp.float32)
print(halve(xs))
""")
# Masks combined with &, |, ^ and ~ (logical on booleans, as in JAX).
program("boolean_mask_operators", """
x = jnp.arange(-3.0, 5.0)
m = (x > -2) & (x < 3)
print(m, (x < -1) | (x > 3), (x > 0) ^ (x > 2), ~m, ~(x > 0) & True)
print(jnp.where(m, x, 0.0), jax.jit(lambda a: jnp.where((a > 0) & ~(a > 3), a * 2.0, a))(x))
print(jax.grad(lambda a: jnp.sum(jnp.where((a > -1) | (a < -2), a ** 2, 0.0)))(x))
""")
# searchsorted (NaN last), kron, the NaN-ignoring reductions and cumprod.
program("searchsorted_kron_nan_cumprod", """
a = jnp.array([1.0, 2.0, 2.0, 3.5, jnp.nan])
v = jnp.array([[2.0, 0.5], [4.0, jnp.nan]])
print(jnp.searchsorted(a, v), jnp.searchsorted(a, v, side="right"), jnp.searchsorted(jnp.arange(10), 3), jnp.searchsorted(a[:4], 2.5))
print(jax.jit(lambda s, q: jnp.searchsorted(s, q))(a[:4], jnp.array([0.0, 2.0, 9.0])))
x = jnp.arange(6.0).reshape(2, 3)
print(jnp.kron(x, jnp.eye(2)), jnp.kron(jnp.array([1, 2]), jnp.array([1, 10, 100])), jnp.kron(x, jnp.ones(2)).shape)
w = jnp.array([[1.0, jnp.nan, 3.0], [jnp.nan, jnp.nan, jnp.nan]])
print(jnp.nansum(w), jnp.nansum(w, axis=1), jnp.nanmean(w, axis=1), jnp.nanmax(w, axis=1), jnp.nanmin(w), jnp.nanmean(x))
print(jnp.cumprod(jnp.array([1.0, 2.0, 3.0, 0.5])), jnp.cumprod(x, axis=1), jnp.cumprod(jnp.arange(1, 6)), jnp.cumprod(x))
print(jax.grad(lambda t: jnp.sum(jnp.cumprod(t)))(jnp.array([1.0, 2.0, 3.0])), jax.jit(lambda t: jnp.cumprod(t, axis=0))(x))
print(jax.grad(lambda t: jnp.nansum(t * 2.0))(w))
""")
# lax.reduce_window: max and average pooling (VALID, SAME, explicit padding, strides), min and mul,
# under jit and grad.
program("lax_reduce_window", """
from jax import lax
x = jnp.sin(jnp.arange(2 * 5 * 5 * 3.0)).reshape(2, 5, 5, 3)
mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
print(mx.shape, mx[0, :, :, 0])
avg = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") / 9.0
print(avg.shape, avg[1, :, :, 2])
print(lax.reduce_window(jnp.arange(6.0), 0.0, lax.add, (3,), (1,), ((1, 1),)))
print(lax.reduce_window(jnp.arange(8.0).reshape(2, 4), 1.0, lax.mul, (1, 2), (1, 2), "VALID"), lax.reduce_window(x[0, :, :, 0], jnp.inf, lax.min, (2, 2), (1, 1), "VALID"))
pool = jax.jit(lambda a: lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"))
print(pool(x)[1, :, :, 1])
print(jax.grad(lambda a: jnp.sum(lax.reduce_window(a, 0.0, lax.add, (1, 2, 2, 1), (1, 1, 1, 1), "VALID") ** 2))(x)[0, :, :, 0])
print(jax.grad(lambda a: jnp.sum(lax.reduce_window(a, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")))(x)[0, :, :, 0])
""")
# Typed keys (jax.random.key): the same draws as PRNGKey, printed as key<fry> arrays; key_data.
program("random_typed_keys", """
k = jax.random.key(0)
print(k)
print(repr(k))
ks = jax.random.split(k)
print(ks)
print(jax.random.key_data(k), jax.random.key_data(ks))
print(jax.random.normal(k, (2,)), jax.random.normal(jax.random.PRNGKey(0), (2,)))
a, b = jax.random.split(k)
print(a, jax.random.uniform(b, (3,)), jax.random.fold_in(k, 7))
""")
# conv_general_dilated with kernel (atrous) and input (transposed) dilation and feature groups
# (depthwise included), under jit and grad.
program("conv_dilation_and_groups", """
from jax import lax
x = jnp.sin(jnp.arange(2 * 4 * 7 * 7.0)).reshape(2, 4, 7, 7)
w = jnp.cos(jnp.arange(6 * 4 * 3 * 3.0)).reshape(6, 4, 3, 3)
print(lax.conv_general_dilated(x, w, (1, 1), "VALID", rhs_dilation=(2, 2))[0, 0])
print(lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 1))[1, 2, 3])
print(lax.conv_general_dilated(x, w, (1, 1), ((2, 2), (2, 2)), lhs_dilation=(2, 2))[0, 1, :3])
wg = jnp.cos(jnp.arange(6 * 2 * 3 * 3.0)).reshape(6, 2, 3, 3)
print(lax.conv_general_dilated(x, wg, (2, 2), "SAME", feature_group_count=2)[1, :, 1])
dw = jnp.cos(jnp.arange(4 * 1 * 3 * 3.0)).reshape(4, 1, 3, 3)
print(lax.conv_general_dilated(x, dw, (1, 1), "SAME", feature_group_count=4).shape)
f = jax.jit(lambda a, k: lax.conv_general_dilated(a, k, (1, 1), "VALID", rhs_dilation=(2, 2)))
print(f(x, w)[1, 5, 1])
print(jax.grad(lambda k: jnp.sum(lax.conv_general_dilated(x, k, (1, 1), "SAME", feature_group_count=2) ** 2))(wg)[0, 0])
""")
# jax.random.gumbel and categorical (the Gumbel-max trick), shapes and axes as JAX takes them.
# jax.custom_jvp: the rule replaces the function's own derivative (at a kink, under jit, vmap
# and jacfwd, through closed-over constants, for a tuple result) and is itself differentiated
# for second derivatives; make_jaxpr shows the call with the function's Jaxpr.
CUSTOM_JVP = """
@jax.custom_jvp
def safe_log(x):
    return jnp.log(jnp.maximum(x, 1e-6))

@safe_log.defjvp
def safe_log_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return safe_log(x), t / jnp.maximum(x, 1e-6)

scale = jnp.array([2.0, -1.0, 0.5])

@jax.custom_jvp
def scaled_softplus(x):
    return jnp.log1p(jnp.exp(x * scale))

@scaled_softplus.defjvp
def scaled_softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return scaled_softplus(x), t * scale * jax.nn.sigmoid(x * scale)

@jax.custom_jvp
def sin_cos(x):
    return jnp.sin(x), jnp.cos(x)

@sin_cos.defjvp
def sin_cos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = jnp.sin(x), jnp.cos(x)
    return (s, c), (c * t, -s * t)
"""
program("custom_jvp", CUSTOM_JVP + """
x = jnp.array([0.5, 2.0, 0.0])
print(safe_log(x))
print(jax.grad(lambda v: safe_log(v).sum())(x))
print(jax.jit(jax.grad(lambda v: safe_log(v).sum()))(x))
print(jax.vmap(jax.grad(safe_log))(x))
print(jax.grad(lambda v: jax.vmap(safe_log)(v).sum())(x))
print(jax.jacfwd(safe_log)(x))
print(jax.grad(lambda v: scaled_softplus(v).sum())(jnp.array([0.3, -1.0, 2.0])))
print(jax.hessian(lambda v: safe_log(v).sum())(jnp.array([0.5, 2.0])))
print(jax.grad(lambda v: sum(sin_cos(v)).sum())(x))
print(jax.jit(lambda v: sin_cos(v)[1] * 2.0)(x))
""")
program("custom_jvp_jaxpr", CUSTOM_JVP + """
print(jax.make_jaxpr(safe_log)(jnp.ones(3)))
print(jax.make_jaxpr(lambda v: safe_log(v) * 2.0)(1.0))
""")

# jax.custom_vjp: fwd/bwd replace reverse mode (a backward pass that is not even linear, under
# jit and vmap, residual pytrees, None cotangents, closed-over arrays); forward mode is JAX's
# error.
CUSTOM_VJP = """
@jax.custom_vjp
def clip_gradient(x):
    return x

def clip_fwd(x):
    return x, None

def clip_bwd(res, g):
    return (jnp.clip(g, -1.0, 1.0),)

clip_gradient.defvjp(clip_fwd, clip_bwd)

@jax.custom_vjp
def round_ste(x):
    return jnp.round(x)

round_ste.defvjp(lambda x: (round_ste(x), None), lambda _, g: (g,))

weights = jnp.array([1.0, 2.0, 3.0])

@jax.custom_vjp
def weighted_norm(x, eps):
    return jnp.sqrt(jnp.sum(weights * x * x) + eps)

def weighted_norm_fwd(x, eps):
    n = weighted_norm(x, eps)
    return n, {"x": x, "n": n}

def weighted_norm_bwd(res, g):
    return (g * weights * res["x"] / res["n"], None)

weighted_norm.defvjp(weighted_norm_fwd, weighted_norm_bwd)
"""
program("custom_vjp", CUSTOM_VJP + """
x = jnp.array([0.3, -1.7, 2.5])
print(jax.grad(lambda v: (10.0 * clip_gradient(v)).sum())(x))
print(jax.jit(jax.grad(lambda v: (10.0 * clip_gradient(v)).sum()))(x))
print(jax.vmap(jax.grad(lambda s: 10.0 * clip_gradient(s)))(x))
print(jax.grad(lambda v: (10.0 * jax.vmap(clip_gradient)(v)).sum())(x))
print(round_ste(x), jax.grad(lambda v: (round_ste(v) * v).sum())(x))
print(weighted_norm(x, 0.5))
print(jax.grad(weighted_norm, argnums=(0, 1))(x, 0.5))
print(jax.value_and_grad(lambda v: weighted_norm(v, 1e-3) ** 2)(x))
print(jax.jacrev(lambda v: clip_gradient(v) * 5.0)(x))
print(jax.make_jaxpr(clip_gradient)(1.0))

@jax.custom_vjp
def double_sin(x):
    return jnp.sin(x)

double_sin.defvjp(lambda x: (double_sin(x), jnp.cos(x)), lambda c, g: (2.0 * g * c,))
print(jax.grad(jax.grad(double_sin))(1.0))
""")
program("custom_vjp_forward_mode", CUSTOM_VJP + """
print(jax.jvp(clip_gradient, (1.0,), (1.0,)))
""")

# Custom derivatives of functions that return pytrees: one custom_vjp_call (custom_jvp_call)
# with an output per leaf, as JAX stages it; bwd takes the outputs' cotangents as a pytree
# shaped like them (zeros where an output is unused), under jit and vmap too.
program("custom_derivatives_pytree_outputs", """
@jax.custom_vjp
def f(x, y):
    return jnp.sin(x) * y, (x + y, jnp.cos(y))

def f_fwd(x, y):
    return f(x, y), (jnp.cos(x), jnp.sin(x), y)

def f_bwd(res, g):
    cos_x, sin_x, y = res
    g0, (g1, g2) = g
    return (cos_x * g0 * y + g1, sin_x * g0 + g1 - jnp.sin(y) * g2)

f.defvjp(f_fwd, f_bwd)

def loss(x, y):
    a, (b, c) = f(x, y)
    return a + 2 * b + 3 * c

print(jax.make_jaxpr(f)(1.0, 2.0))
print(jax.grad(loss, argnums=(0, 1))(1.0, 2.0))
print(jax.make_jaxpr(jax.grad(loss, argnums=(0, 1)))(1.0, 2.0))
print(jax.grad(lambda x, y: f(x, y)[0], argnums=(0, 1))(1.0, 2.0))
print(jax.jit(jax.grad(loss))(jnp.float32(0.5), 3.0))
print(jax.vmap(f)(jnp.arange(3.0), jnp.ones(3)))
print(jax.vmap(jax.grad(loss))(jnp.arange(3.0), jnp.ones(3)))
out, vjp_fun = jax.vjp(f, jnp.float32(1.0), 2.0)
print(out, vjp_fun((1.0, (2.0, 0.5))))

@jax.custom_vjp
def stats(v):
    return {"mean": jnp.mean(v), "var": jnp.var(v)}

def stats_fwd(v):
    s = stats(v)
    return s, (v, s["mean"])

def stats_bwd(res, g):
    v, mean = res
    n = v.shape[0]
    return (g["mean"] / n + g["var"] * 2.0 * (v - mean) / n,)

stats.defvjp(stats_fwd, stats_bwd)
v = jnp.array([1.0, 2.0, 4.0, 7.0])
print(stats(v))
print(jax.grad(lambda v: stats(v)["var"] + stats(v)["mean"])(v))

@jax.custom_jvp
def sincos(x):
    return jnp.sin(x), jnp.cos(x)

@sincos.defjvp
def sincos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = sincos(x)
    return (s, c), (c * t, -s * t)

print(jax.make_jaxpr(sincos)(1.0))
print(jax.jvp(sincos, (1.0,), (2.0,)))
print(jax.grad(lambda x: sincos(x)[0] * sincos(x)[1])(0.3))
""")
program("custom_vjp_fwd_pytree_mismatch", """
@jax.custom_vjp
def f(x):
    return x, 2.0 * x

f.defvjp(lambda x: ((x, 2.0 * x, x), None), lambda _, g: (g[0],))
# JAX checks fwd against the function where the function was traced first (under jit).
print(jax.grad(jax.jit(lambda x: f(x)[0]))(1.0))
""")
program("custom_vjp_fwd_dtype_mismatch", """
@jax.custom_vjp
def f(x):
    return x, 2.0 * x

f.defvjp(lambda x: ((x, jnp.ones(3)), None), lambda _, g: (g[0],))
# JAX checks fwd against the function where the function was traced first (under jit).
print(jax.grad(jax.jit(lambda x: f(x)[0]))(1.0))
""")

# What a custom VJP's bwd may return, as JAX reads it: a list for the tuple, None for the zeros of
# any subtree, one array for every leaf of an argument's subtree; JAX's errors otherwise.
program("custom_vjp_bwd_cotangent_structures", """
def make(bwd):
    @jax.custom_vjp
    def f(x, p):
        return x * p[0] + p[1]
    f.defvjp(lambda x, p: (f(x, p), (x, p)), bwd)
    return f

cases = {
    "array": lambda r, g: g,
    "list": lambda r, g: [g, (g, g)],
    "short": lambda r, g: (g,),
    "inner_none": lambda r, g: (g, (None, g * 2)),
    "outer_none": lambda r, g: (None, (g, g)),
    "shape": lambda r, g: (jnp.ones(3), (g, g)),
    "one_for_a_subtree": lambda r, g: (g, g),
    "dict": lambda r, g: (g, {"a": g}),
}
for name, bwd in cases.items():
    f = make(bwd)
    try:
        print(name, jax.grad(lambda x, p: f(x, p), argnums=(0, 1))(2.0, (3.0, 4.0)))
    except (TypeError, ValueError) as e:
        print(name, type(e).__name__, e)
""")
# What reverse mode saves (jax.ad_checkpoint.print_saved_residuals, from JAX's gradient
# checkpointing page): arguments by name and path, outputs by primitive and the script's place
# (line, column, function), as JAX's source_info records them through jvp. (The dots are
# HIGHEST: at DEFAULT the generator's bf16 emulation would add its own residuals.)
program("print_saved_residuals", """
from jax.ad_checkpoint import print_saved_residuals

def g(W, x):
    y = jnp.dot(W, x, precision='highest')
    return jnp.sin(y)

def f(W1, W2, W3, x):
    x = g(W1, x)
    x = g(W2, x)
    x = g(W3, x)
    return x

W1 = jnp.ones((5, 4))
W2 = jnp.ones((6, 5))
W3 = jnp.ones((7, 6))
x = jnp.ones(4)
print_saved_residuals(f, W1, W2, W3, x)

def loss(params, x, y):
    return jnp.sum((predict(params, x) - y)**2)

def predict(params, x):
    *Ws, Wlast = params
    for W in Ws:
        x = layer(W, x)
    x = jnp.dot(Wlast, x, precision='highest')
    return x

def layer(W, x):
    return jnp.sin(jnp.dot(W, x, precision='highest'))

params = [jnp.ones((4, 4)) for _ in range(3)]
print_saved_residuals(loss, params, jnp.ones(4), jnp.ones(4))

def chain_compose(funs):
    def f(x):
        for fun in funs:
            x = fun(x)
        return x
    return f

print_saved_residuals(chain_compose([jnp.sin] * 3), 3.0)
print_saved_residuals(lambda x, y: -x * jnp.exp(y) + x / y, 1.0, 2.0)
print_saved_residuals(lambda p: jnp.tanh(p["w"]) * p["b"], {"w": jnp.ones(3), "b": 2.0})
""")
# jax_explain_cache_misses: why a jitted function is traced again, written to stderr.
program("explain_cache_misses", """
from typing import NamedTuple
jax.config.update("jax_explain_cache_misses", True)

def selu(x, alpha=1.67):
    return jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

f = jax.jit(selu)
x = jnp.arange(5.0)
print(f(x))
print(f(x))
print(f(jnp.arange(6.0)))
print(f(jnp.arange(6)))
print(f(x, 2.0))
g = jax.jit(lambda a, b: a + b, static_argnums=1)
print(g(x, 1))
print(g(x, 2))

@jax.jit
def h(x, y=None, *, k=1.0):
    return x

class P(NamedTuple):
    a: float
    b: float

h(jnp.ones(3))
h(1.0)
h(jnp.float32(1.0))
h(jnp.ones(3), k=2.0)
h(jnp.ones(3), y=2.0)
h(jnp.ones(3), y=(1.0, 2.0))
h([1.0, 2.0])
h(None)
h(P(1.0, 2.0))
h({'a': 1.0})
h({'b': 1.0, 'c': 2.0})
with jax.default_matmul_precision("highest"):
    print(h(jnp.ones(3)))

@jax.jit
def outer(v):
    return h(v) * 2

print(outer(jnp.ones(2)))
for i in range(2):
    print(jax.jit(lambda v: v + i)(1.0))

@jax.jit
def scale(x_ref, y):
    x_ref[...] = x_ref[...] * y

scale(jax.new_ref(jnp.ones(3)), 2.0)
scale(jax.new_ref(jnp.ones(4)), 2.0)
scale(jax.new_ref(jnp.ones(4)), 2.0)
jax.config.update("jax_explain_cache_misses", False)
print(f(jnp.ones(7)))
""", stderr=True)

# Mutable array references (jax.new_ref): read and written eagerly, by jitted functions that
# close over them or are passed them (cached once), inside grad (made there), and under vmap.
program("refs", """r = jax.new_ref(jnp.arange(3.0))
print(r)
print(type(r), isinstance(r, jax.Array))
print(r.shape, r.dtype, r.ndim, r.size)
print(r[...])
print(r[1])
r[1] = 5.0
print(r)
r[...] += 1
print(r)
s = jax.new_ref(0.0)
print(s)
print(jax.typeof(r))
@jax.jit
def f(x_ref, y):
    x_ref[...] = x_ref[...] * y
    return x_ref[0]
print(f(r, 2.0))
print(r)
q = jax.new_ref(jnp.ones(3))
print(f(q, 3.0), q)
@jax.jit
def g():
    r[0] += 1.0
g(); g()
print(r)
print(jax.freeze(r))
def h(x):
    acc = jax.new_ref(0.0)
    acc[...] = jnp.sum(x)
    return x / acc[...]
print(jax.grad(lambda x: h(x).sum())(jnp.arange(1.0, 4.0)))
print(jax.jit(h)(jnp.arange(1.0, 4.0)))
c = jax.new_ref(0)
@jax.jit
def count(x):
    c[...] += 1
    return x * c[...]
print(count(1.0), count(1.0), count(2.0), c)
r2 = jax.new_ref(jnp.zeros((2,3)))
print(r2)
@jax.jit
def outer(x):
    f(r2, x)
    return r2[0, 0]
print(outer(2.0), r2)
try:
    print(r + 1)
except TypeError as e:
    print(e)
@jax.jit
def grad_inside(x):
    def inner(v):
        acc = jax.new_ref(1.5)
        acc[...] = acc[...] * v * v
        return acc[...]
    return jax.grad(inner)(x)
print(grad_inside(2.0), grad_inside(3.0))
""")
program("refs_under_vmap", """def scale_into(x, out_ref):
  out_ref[...] = 2.0 * x
xs = jnp.arange(3.0)
out_ref = jax.new_ref(jnp.zeros(3))
jax.vmap(scale_into)(xs, out_ref)
print(out_ref[...])
m = jax.new_ref(jnp.zeros((2, 3)))
def put(x, r):
    r[0] = x
    return x + 1
print(jax.vmap(put, in_axes=(0, 1))(jnp.arange(3.0), m), m)
@jax.jit
def step(xs):
    jax.vmap(scale_into)(xs, out_ref)
    return out_ref[0]
print(step(jnp.ones(3)), out_ref)
r = jax.new_ref(0.0)
def write_shared(x):
  r[...] = x
try:
    jax.vmap(write_shared)(xs)
except Exception as e:
    print(type(e).__name__)
print(r)
""")
program("refs_written_from_transformations", """
r = jax.new_ref(0.0)
def write_shared(x):
  r[...] = x
try:
    jax.vmap(write_shared)(jnp.arange(3.0))
except Exception as e:
    print(type(e).__name__, e)
s = jax.new_ref(0.0)
def w(x):
  s[...] = x
  return x
try:
    print(jax.grad(w)(1.0))
except Exception as e:
    print(type(e).__name__, e)
print(r)
""")

program("custom_rules_run_when_differentiated", """
# JAX runs a custom_jvp rule only where it differentiates the call (then not the function),
# and a custom_vjp's bwd only when reverse mode transposes.
@jax.custom_jvp
def f(x):
    print("f", jnp.shape(x))
    return jnp.sin(x)

@f.defjvp
def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    print("f_jvp")
    return f(x), jnp.cos(x) * t

print(f(1.0))
print(jax.vmap(f)(jnp.arange(3.0)))
print(jax.jit(f)(1.0))
print(jax.jvp(f, (1.0,), (1.0,)))
print(jax.grad(f)(1.0))
print(jax.grad(jax.grad(f))(1.0))
print(jax.jit(jax.grad(f))(1.0))
print(jax.grad(jax.jit(f))(1.0))
print(jax.vmap(jax.grad(f))(jnp.arange(3.0)))
print(jax.grad(lambda x: jax.vmap(f)(x).sum())(jnp.arange(3.0)))
c = jnp.array(2.0)
print(jax.grad(lambda x: x * f(c))(1.0))

@jax.custom_vjp
def g(x):
    print("g")
    return jnp.exp(x)

scale = jnp.array([1.0, 2.0, 3.0])

def g_fwd(x):
    print("g_fwd")
    y = g(x)
    return y, y

def g_bwd(y, ct):
    print("g_bwd")
    return (scale * y * ct,)

g.defvjp(g_fwd, g_bwd)
y, g_vjp = jax.vjp(g, jnp.zeros(3))
print("vjp done")
print(g_vjp(jnp.ones(3)))
print(g_vjp(jnp.ones(3)))
try:
    jax.jvp(g, (jnp.zeros(3),), (jnp.ones(3),))
except TypeError as e:
    print(e)
print(jax.grad(lambda x: g(x).sum())(jnp.zeros(3)))
print(jax.grad(jax.jit(lambda x: g(x).sum()))(jnp.zeros(3)))

# Rules closing over arrays, called inside loop and branch bodies, then differentiated.
w = jnp.array([0.5, 1.5, 2.5])

@jax.custom_jvp
def h(x):
    return jnp.tanh(x)

@h.defjvp
def h_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return h(x), w * t

def through_scan(x):
    return jax.lax.scan(lambda c, _: (h(c), None), x, None, length=2)[0].sum()

def through_cond(x, p):
    return jax.lax.cond(p, lambda v: h(v).sum(), lambda v: (2.0 * v).sum(), x)

def through_while(x):
    return jax.lax.fori_loop(0, jnp.int32(2) + 0 * x[0].astype(jnp.int32), lambda i, c: h(c), x).sum()

print(jax.grad(through_scan)(jnp.ones(3)))
print(jax.grad(through_cond)(jnp.ones(3), True), jax.grad(through_cond)(jnp.ones(3), False))
print(jax.grad(jax.jit(through_scan))(jnp.ones(3)))
print(jax.jvp(through_while, (jnp.ones(3),), (jnp.ones(3),)))
""")
# Inside jit, JAX's CPU backend fuses a float32 multiply into the add or subtract that is its
# only use (one rounding, x86's FMA); op by op it rounds twice. Its exp, tanh, erf and kin are
# its own polynomials, not libm's. The `cpu_exact_` prefix: compared digit for digit on the
# reference evaluator, which computes as JAX's CPU backend does; within the tolerance through
# the emulator, which computes as its TPU does.
program("cpu_exact_multiply_add", """
a = jnp.arange(12.0) * 0.37 - 2.0
b = jnp.arange(12.0) * -0.11 + 1.3
c = jnp.sin(jnp.arange(12.0))
print(jax.jit(lambda a, b, c: a * b + c)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: c - a * b)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: a * b - c)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: a * b + c * a)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: (a * b + c, a * b))(a, b, c)[0].tolist())
print(jax.jit(lambda a, b, c: a ** 3 + c)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: a / 7.0 + c)(a, b, c).tolist())
print(jax.jit(lambda a, b, c: (a * b).reshape(3, 4) + c.reshape(3, 4))(a, b, c).tolist())
print(jax.jit(lambda a, b: jnp.sum(a * b))(a, b).tolist())
print((a * b + c).tolist())
step = lambda i, s: (s[0] + 0.01 * s[1], s[1] - 0.01 * s[0])
print(jax.jit(lambda x, v: jax.lax.fori_loop(0, 50, step, (x, v)))(a, b)[0].tolist())
""")
# jnp.arange with a float step is start + step * iota in float32, each rounded: op by op, and
# under jit too, where XLA folds the constant expression at compile time (no fused multiply-add).
program("exact_arange_float_step", """
print(jnp.arange(-8.0, 8.0, 0.37).tolist())
print(jnp.arange(0.05, 9.0, 0.31).tolist())
print(jax.jit(lambda x: x + jnp.arange(-8.0, 8.0, 0.37))(0.0).tolist())
""")
program("cpu_exact_transcendentals", """
x = jnp.arange(44.0) * 0.37 - 8.0
for f in [jnp.exp, jnp.tanh, jnp.expm1, jnp.exp2, jax.nn.sigmoid, jax.scipy.special.erf]:
    print(f(x).tolist())
y = jnp.arange(29.0) * 0.31 + 0.05
print(jnp.log(y).tolist())
print(jnp.log1p(y).tolist())
print(jax.scipy.special.erf(jnp.float32(3.8)).tolist(), jax.scipy.special.erf(jnp.array([3.8, 3.8])).tolist())
""")
# jax.checkpoint (remat): values as without it, make_jaxpr's remat2 equations, and what reverse
# mode keeps under each policy (print_saved_residuals), names included; traced once per
# function and signature, abstractly (a Python branch on a value is JAX's error).
program("checkpoint_remat", """from jax.ad_checkpoint import checkpoint_name, print_saved_residuals

P = jax.checkpoint_policies

def g(W, x):
    return jnp.sin(jnp.dot(W, x, precision='highest'))

W = jnp.arange(6.0).reshape(3, 2) / 4
x = jnp.array([0.5, -1.5])
# Values: the same with and without checkpoint, whatever the policy.
loss = lambda W, x: jnp.sum(g(W, g(W.T, g(W, x) ** 2)))
for p in [None, P.nothing_saveable, P.everything_saveable, P.dots_saveable]:
    print(jax.grad(jax.checkpoint(loss, policy=p), argnums=(0, 1))(W, x))
print(jax.grad(loss)(W, x))
print(jax.make_jaxpr(jax.checkpoint(g, policy=P.dots_with_no_batch_dims_saveable))(W, x))
print(jax.make_jaxpr(jax.grad(lambda x: jax.checkpoint(jnp.sin)(jnp.sin(x))))(1.0))
print(jax.make_jaxpr(jax.vmap(jax.checkpoint(lambda a: jnp.cos(a) * a)))(x))
print(jax.jvp(jax.checkpoint(g), (W, x), (W, x)))
print(jax.jit(jax.grad(lambda x: jax.checkpoint(jnp.tanh)(x) ** 2))(0.3))

# A checkpointed scan step: reverse mode recomputes each step from its carry.
def step(c, w):
    return jax.checkpoint(lambda c: jnp.sin(c * w) + c)(c), c
ws = jnp.linspace(0.0, 1.0, 5)
f = lambda c0: jax.lax.scan(step, c0, ws)[0].sum()
print(jax.grad(f)(jnp.array([0.1, 0.2])))
print_saved_residuals(f, jnp.array([0.1, 0.2]))

# Names and the policies that pick by them.
def named(x):
    a = checkpoint_name(jnp.sin(x), 'a')
    b = checkpoint_name(jnp.cos(a), 'b')
    return jnp.sum(a * b)
for p in [P.save_only_these_names('a'), P.save_any_names_but_these('a'), P.save_anything_except_these_names('a'),
          P.save_from_both_policies(P.save_only_these_names('b'), P.dots_saveable)]:
    print_saved_residuals(jax.checkpoint(named, policy=p), x)
    print(jax.grad(jax.checkpoint(named, policy=p))(x))
print(jax.jit(named)(x), checkpoint_name(x, 'c'), checkpoint_name({'u': x}, 'u'))
print(jax.make_jaxpr(named)(x))

# static_argnums; a print inside runs when the function is traced.
def power(x, n):
    print('tracing power with n =', n)
    for _ in range(n):
        x = jnp.sin(x)
    return x
pw = jax.checkpoint(power, static_argnums=(1,))
print(pw(0.5, 2), pw(0.7, 2), jax.grad(pw)(0.5, 3))
print(jax.checkpoint(jnp.exp)(1.0), jax.checkpoint(lambda x, y: (x + y, x * y))(2.0, 3.0))
try:
    jax.checkpoint(lambda x: x if x > 0 else -x)(1.0)
except Exception as e:
    print(type(e).__name__)

# Custom derivatives inside a checkpoint, under vmap and pmap.
@jax.custom_vjp
def h(x):
    return jnp.exp(x)
h.defvjp(lambda x: (jnp.exp(x), jnp.exp(x)), lambda r, g: (r * g * 3,))
print(jax.grad(jax.checkpoint(lambda x: h(x) * 2))(0.5))
print(jax.vmap(jax.grad(jax.checkpoint(lambda x: h(x) * 2)))(jnp.arange(3.0)))
print(jax.pmap(lambda x: jax.grad(jax.checkpoint(lambda y: jax.lax.psum(y * y, 'i')))(x), axis_name='i')(jnp.arange(1.0)))

# A saved value the forward pass reads again is rounded to its own precision (JAX's
# reduce_precision, a no-op on values); a long recomputation prints first, as `let jaxpr`.
def deep(x):
    for i in range(3):
        x = checkpoint_name(jnp.sin(x) * 2.0, f'layer{i}')
    return x
saving = jax.checkpoint(deep, policy=P.save_only_these_names('layer0'))
print(jax.make_jaxpr(lambda x: jax.linearize(saving, x)[1](x))(0.5))
""")
# lax.reduce_precision: XLA's rounding to fewer fraction and exponent bits (to nearest even,
# overflow to infinity, underflow to zero, NaN kept), eagerly, jitted (the compiler's bit
# operations), on bfloat16, differentiated, batched.
program("lax_reduce_precision", """
from jax import lax
x = jnp.array([1.0, 1.00390625, 1.01171875, 3.14159, -2.5e-3, 70000.0, 1e-6, -1e38, jnp.nan, jnp.inf, 0.0])
for e, m in [(8, 7), (5, 10), (8, 23), (4, 3), (8, 0), (2, 1)]:
    print(e, m, lax.reduce_precision(x, e, m), jax.jit(lambda v: lax.reduce_precision(v, exponent_bits=e, mantissa_bits=m))(x))
print(lax.reduce_precision(x.astype(jnp.bfloat16), 5, 2), jax.jit(lambda v: lax.reduce_precision(v, 5, 2))(x.astype(jnp.bfloat16)))
print(jax.grad(lambda v: jnp.sum(lax.reduce_precision(v * v, 8, 7)))(x[:4]))
print(jax.make_jaxpr(lambda v: lax.reduce_precision(v, 8, 7))(x))
print(jax.vmap(lambda v: lax.reduce_precision(v, 5, 10))(x), jnp.float32(1.00390625), x[1])
""")
# Cumulative sums as JAX's CPU backend orders them (a reduce-window, split by XLA's rewriter
# into rows of 16 past 16 elements; reversed, each suffix summed in index order), bit for bit.
program("cpu_exact_cumsum", """
from jax import lax
for n in [1, 3, 5, 16, 17, 33, 100, 1000, 5000]:
    x = jnp.exp(jax.random.normal(jax.random.PRNGKey(n), (n,))) * 1.37
    a = jnp.cumsum(x)
    b = jax.jit(lambda v: jnp.cumsum(v[::-1])[::-1])(x)
    c = lax.cumsum(x, reverse=True)
    print(n, a[-1].item(), a[n // 2].item(), b[0].item(), c[0].item(), c[n // 3].item())
m = jax.random.normal(jax.random.PRNGKey(7), (5, 40))
print(jnp.cumsum(m, axis=1).tolist())
print(jnp.cumsum(m, axis=0).tolist(), lax.cumsum(m, axis=1, reverse=True)[:, :3].tolist())
print(jax.grad(lambda v: jnp.sum(jnp.cumsum(v) * jnp.sin(v)))(m[0]).tolist())
""")
program("custom_derivatives_nondiff_argnums", """
from functools import partial

@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x

def clip_gradient_fwd(lo, hi, x):
    return x, None

def clip_gradient_bwd(lo, hi, _, g):
    return (jnp.clip(g, lo, hi),)

clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
print(jax.grad(lambda x: jnp.sum(jnp.sin(clip_gradient(-0.75, 0.75, x)) * 5.0))(jnp.array([0.1, 1.0, 3.0])))

@partial(jax.custom_jvp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)

@app.defjvp
def app_jvp(f, primals, tangents):
    return app(f, primals[0]), 3.0 * tangents[0]

print(jax.grad(lambda x: app(jnp.sin, x))(1.0), app(jnp.sin, 1.0))

@partial(jax.custom_jvp, nondiff_argnums=(1,))
def power(x, n):
    return x ** n

@power.defjvp
def power_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return power(x, n), n * x ** (n - 1) * t

print(jax.jit(jax.grad(power), static_argnums=1)(2.0, 3), jax.vmap(power, in_axes=(0, None))(jnp.arange(3.0), 2))
""")
# An unmapped Python int under vmap: its conversion to float32 is a constant, not a view.
program("vmap_unmapped_python_int", """
print(jax.vmap(lambda x, n: x * n, in_axes=(0, None))(jnp.arange(3.0), 2))
print(jax.jit(lambda: jnp.asarray(3).astype(jnp.float32))())
""")

program("tree_util_flatten_map_filter", """
params = {"w": jnp.ones((2, 3)), "b": (jnp.zeros(3), None, [1.0, 2.0])}
leaves, treedef = jax.tree_util.tree_flatten(params)
print(treedef, treedef.num_leaves, len(leaves))
print(jax.tree_util.tree_unflatten(treedef, [x * 2 for x in leaves]))
print(jax.tree.structure([1, (2, 3)]), jax.tree.unflatten(jax.tree.structure((1, 2)), [5, 6]))
print(jax.tree_util.tree_structure((jnp.ones(2),)))
print(list(map(lambda a, b: a + b, [1, 2, 3], (10, 20))), list(filter(None, [0, 1, 2, 0])))
q, k, v = map(jnp.sin, jnp.split(jnp.arange(6.0), 3))
print(q, k, v, list(filter(lambda t: t.sum() > 1, [q, k, v])))
""")

program("quantile_percentile", """
a = jnp.array([[3.0, 1.0, 4.0, 1.5], [9.0, -2.0, 6.0, 5.0], [0.5, 0.25, 8.0, 7.0]])
print(jnp.percentile(jnp.arange(10.0), 30), jnp.quantile(jnp.arange(10.0), 0.5))
print(jnp.quantile(a, 0.3), jnp.quantile(a, 0.3, axis=0), jnp.quantile(a, 0.75, axis=1, keepdims=True))
print(jnp.quantile(a, jnp.array([0.1, 0.5, 0.9]), axis=1))
print(jnp.percentile(a, jnp.array([25, 50, 75])))
for m in ["linear", "lower", "higher", "midpoint", "nearest"]:
    print(m, jnp.quantile(a, 0.4, axis=1, method=m), jnp.percentile(a, 62.5, method=m))
print(jnp.median(a, axis=0), jnp.median(a))
""")
program("percentile_of_a_list", """
print(jnp.percentile(jnp.arange(4.0), [25, 50]))
""")

program("lax_switch_while_loop_scipy_special", """
from jax import lax
fs = [lambda x: x * 2.0, lambda x: x - 1.0, lambda x: -x]
print([float(lax.switch(i, fs, 3.0)) for i in range(-1, 5)])
print(jax.jit(lambda i, x: lax.switch(i, fs, x))(1, jnp.arange(3.0)))
print(jax.vmap(lambda i: lax.switch(i, fs, 3.0))(jnp.array([0, 1, 2, 7, -3])))
print(jax.grad(lambda x, i: lax.switch(i, fs, x))(2.0, 2))
print(lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 1.5), (0, jnp.ones(2))))
print(lax.fori_loop(0, 3, lambda i, c: c + 1, 0), lax.fori_loop(0, 3, lambda i, c: (c[0] + i, c[1] * 2.0), (0, 1.0)))
x = jnp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
print(jax.scipy.special.logsumexp(x), jax.scipy.special.logsumexp(x, axis=1), jax.scipy.special.expit(x[0]))
print(jax.scipy.special.erf(x[1]), jax.scipy.special.softmax(x, axis=0), jax.scipy.special.log_softmax(x[0]))
""")

program("random_initializers_at_minmax", """
from jax import random

k = random.PRNGKey(0)
print(random.truncated_normal(k, -2.0, 2.0, (3,)))
init = jax.nn.initializers.glorot_uniform()
print(init(k, (2, 3)))
print(jax.nn.initializers.normal(0.02)(k, (3,)), jax.nn.initializers.zeros(k, (2,)))
print(jax.nn.initializers.he_normal()(k, (2, 2)), jax.nn.initializers.lecun_normal()(k, (2,2)))
x = jnp.array([3.0, 1.0, 2.0])
print(x.at[1].max(5.0), x.at[0].min(-1.0), x.at[2].get())
print(jnp.sort(x)[::-1], jnp.argsort(-x), jnp.flip(jnp.cumsum(jnp.flip(x))))
print(jnp.ones_like(x, dtype=jnp.int32), jnp.zeros((2,), jnp.bool_))
print(jax.nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.int32))
print(f"{x.sum():.3f}")
print(random.randint(k, (3,), 0, 10))
print(random.exponential(k, (2,)), random.laplace(k, (2,)))
print(random.logistic(k, (3,)), random.truncated_normal(k, -1.0, 0.5, (2, 2)))
w = jax.nn.initializers.variance_scaling(0.5, "fan_out", "normal")(k, (3, 4))
print(w, jax.nn.initializers.xavier_normal()(random.PRNGKey(7), (3, 3, 2, 4)).std())
print(jax.nn.initializers.constant(0.5)(k, (2,)), jax.nn.initializers.uniform(1.0)(k, (2,)), jax.nn.initializers.ones(k, (1, 2)))
print(jax.nn.initializers.he_uniform()(k, (4, 2)), jax.nn.initializers.lecun_uniform()(k, (2, 2)))
""")

program("fstring_conversions", """
x = jnp.array([1.5, 2.0])
name = "w"
print(f"{name!r} {name!s} {x!r} {x!s} {x.sum()!r:>12} {3.5!s:<6}| {[1, 'a']!r} {name!a}")
print(f"{x[0] != 1.0} {(1, 2)!s}")
""")

program("softmax_where", """
x = jnp.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
m = jnp.array([[True, False, True], [False, False, True]])
print(jax.nn.softmax(x, where=m), jax.nn.log_softmax(x, where=m))
print(jax.nn.softmax(x, axis=0, where=jnp.array([True, False, True])))
print(jax.grad(lambda v: (jax.nn.softmax(v, where=m) * jnp.arange(3.0)).sum())(x))
print(jax.jit(lambda v: jax.nn.log_softmax(v, where=m)[:, 0])(x))
""")

program("random_gumbel_categorical", """
key = jax.random.PRNGKey(3)
print(jax.random.gumbel(key, (2, 3)), jax.random.gumbel(jax.random.key(1), (4,)))
logits = jnp.log(jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
print(jax.random.categorical(key, logits), jax.random.categorical(key, logits, axis=0), jax.random.categorical(key, logits[0], shape=(8,)))
print(jax.random.categorical(key, logits, shape=(4, 2)))
ks = jax.random.split(key, 5)
print([int(jax.random.categorical(k, jnp.array([0.0, 1.0, 2.0]))) for k in ks])
""")
# int32 lax.div (toward zero, -1 for a zero divisor) and lax.rem (the dividend for a zero divisor).
program("int32_div_rem", """
from jax import lax
a = jnp.array([[7, -7, 0], [16777215, -16777216, 5]])
b = jnp.array([[2, 2, 3], [7, 0, -3]])
print(lax.div(a, b), lax.rem(a, b), lax.div(a, 3), lax.rem(a, -4), lax.div(a, 0), lax.rem(a, 0))
print(jax.jit(lambda x, y: lax.div(x, y) * 2 + lax.rem(x, y))(a // 4, b), jax.jit(lambda x: lax.div(x, 0))(a))
print(lax.div(jnp.int32(9), jnp.array([2, -2, 0])), lax.rem(jnp.int32(-9), jnp.array([2, 4, 0])))
""")
# More jax.nn activations (with their gradients, relu6's custom JVP included), standardize and glu.
program("nn_more_activations", """
x = jnp.array([-3.0, -1.0, -0.25, 0.0, 0.5, 2.0, 6.0, 7.5])
for f in [jax.nn.leaky_relu, jax.nn.elu, jax.nn.selu, jax.nn.celu, jax.nn.relu6, jax.nn.hard_tanh,
          jax.nn.hard_sigmoid, jax.nn.hard_silu, jax.nn.hard_swish, jax.nn.soft_sign, jax.nn.log_sigmoid, jax.nn.mish]:
    print(f(x), jax.grad(lambda v: jnp.sum(f(v)))(x))
print(jax.nn.leaky_relu(x, negative_slope=0.2), jax.nn.elu(x, alpha=0.5), jax.nn.celu(x, 2.0))
m = jnp.arange(12.0).reshape(3, 4) ** 1.5
print(jax.nn.standardize(m), jax.nn.standardize(m, axis=0), jax.nn.standardize(m, epsilon=0.1))
print(jax.nn.glu(m), jax.nn.glu(jnp.arange(12.0).reshape(4, 3), axis=0))
print(jax.jit(lambda v: jax.nn.selu(v) + jax.nn.mish(v))(x))
""")
# Arrays with no elements (the script fuzzer found a 0x0 matmul crashing the compiler).
program("empty_arrays", """
x = jnp.ones((0, 3))
print(x + 1.0, jnp.sum(x), jnp.sum(x, axis=0), jnp.max(x, axis=1))
print(jax.jit(lambda a: jnp.tanh(a) * 2.0)(x), jax.jit(lambda a: a.T)(x).shape)
print(jax.jit(lambda a, b: a @ b)(jnp.ones((2, 0)), jnp.ones((0, 3))))
print(jax.jit(lambda a: a[2:2] + 1.0)(jnp.arange(4.0)), jax.jit(jnp.matmul)(jnp.ones((0, 0)), jnp.ones((0, 0))))
""")
# preferred_element_type naming the operands' own dtype (float32), as mixed-precision code does.
program("preferred_element_type", """
a = jnp.arange(6.0).reshape(2, 3)
b = jnp.ones((3, 2)) * 0.5
print(jnp.matmul(a, b, preferred_element_type=jnp.float32))
print(jnp.dot(a, b, preferred_element_type=jnp.float32), jnp.einsum("ij,jk->ik", a, b, preferred_element_type=jnp.float32))
print(jnp.tensordot(a, b, axes=1, preferred_element_type=jnp.float32))
f = jax.jit(lambda x, y: jnp.matmul(x, y, preferred_element_type=jnp.float32))
print(f(a, b), jax.grad(lambda x: jnp.sum(jnp.matmul(x, b, preferred_element_type=jnp.float32)))(a))
""")
# jnp.prod over axes, keepdims, ints, bools, empty; under jit, grad (zeros included) and vmap.
program("prod", """
x = jnp.array([[1.5, -2.0, 0.5], [3.0, 0.25, -1.0]])
print(jnp.prod(x), jnp.prod(x, axis=0), jnp.prod(x, axis=1, keepdims=True), x.prod(axis=-1))
print(jnp.prod(jnp.arange(1, 7)), jnp.prod(jnp.array([True, True])), jnp.prod(jnp.ones((2, 0)), axis=1))
print(jax.jit(lambda a: jnp.prod(a, axis=1))(x))
print(jax.grad(lambda a: jnp.prod(a))(x), jax.grad(lambda a: jnp.prod(a))(jnp.array([2.0, 0.0, 3.0])))
print(jax.vmap(jnp.prod)(x))
""")
# Found by the `script` fuzzer (docs/reliability.md): a loss linear in its prediction, whose
# gradient reduces and multiplies the constant broadcast 1/n of the mean.
program("fuzz_linear_loss_grad", TRAINING_LOOP.replace("** 2", "** 1") + "print(jax.grad(loss)(params))\n")
program("error_if_on_tracer", X + "@jax.jit\ndef f(v):\n    if v[0] > 0:\n        return v\n    return -v\nprint(f(x))\n")
program("error_vmap_sizes", M + "print(jax.vmap(lambda p, q: p + q)(a, b))\n")
program("error_shapes", M + "print(a + b)\n")
# More draws with a traced key: gumbel, categorical (sampling in a jitted decode step), laplace, ...
program("random_in_jit_more_distributions", """
key = jax.random.PRNGKey(3)
names = ["gumbel", "laplace", "logistic", "cauchy", "rademacher"]
for name in names:
    f = getattr(jax.random, name)
    print(name, f(key, (2, 3)))
    print(name, jax.jit(lambda k: f(k, (2, 3)))(key))
logits = jnp.array([[0.5, 1.0, -2.0, 0.0], [3.0, -1.0, 0.25, 0.5]])
print(jax.random.categorical(key, logits), jax.jit(lambda k: jax.random.categorical(k, logits))(key))
print(jax.random.categorical(key, logits, axis=0, shape=(3, 4)), jax.jit(lambda k, l: jax.random.categorical(k, l, axis=0, shape=(3, 4)))(key, logits))
print(jax.vmap(lambda k: jax.random.categorical(k, logits[0]))(jax.random.split(key, 5)))
print(jax.vmap(lambda k: jax.random.gumbel(k, (2,)))(jax.random.split(key, 3)))
print(jax.jit(lambda k: jax.random.rademacher(k, (4,), dtype=jnp.float32))(jax.random.key(1)))

@jax.jit
def sample(key, logits, temperature):
    key, sub = jax.random.split(key)
    return key, jax.random.categorical(sub, logits / temperature)
k = jax.random.PRNGKey(0)
for _ in range(3):
    k, tok = sample(k, jnp.array([0.1, 2.0, 0.3, -1.0, 1.5]), 0.7)
    print(tok)
""")
# randint with a traced key: uint32 remainders and products on the vector unit (a batch sampled
# inside a jitted step).
program("random_in_jit_randint", """
key = jax.random.PRNGKey(7)
print(jax.random.randint(key, (2, 5), 0, 10), jax.jit(lambda k: jax.random.randint(k, (2, 5), 0, 10))(key))
print(jax.jit(lambda k: jax.random.randint(k, (6,), -3, 1000))(key), jax.random.randint(key, (6,), -3, 1000))
print(jax.jit(lambda k: jax.random.randint(k, (4,), 5, 5))(key), jax.jit(lambda k: jax.random.randint(k, (3,), -16777216, 16777216))(key))
print(jax.vmap(lambda k: jax.random.randint(k, (3,), 0, 7))(jax.random.split(key, 4)))
print(jax.jit(lambda k: jax.random.randint(k, (3,), 0, 100))(jax.random.key(2)))

@jax.jit
def batch(key, data):
    key, sub = jax.random.split(key)
    ids = jax.random.randint(sub, (3,), 0, data.shape[0])
    return key, data[ids]
data = jnp.arange(20.0).reshape(10, 2)
k = jax.random.PRNGKey(1)
for _ in range(2):
    k, b = batch(k, data)
    print(b)
""")
# permutation and choice with a traced key: argsorts of uint32 random keys (shuffling a dataset
# inside a jitted epoch), with probabilities too.
program("random_in_jit_permutation_choice", """
key = jax.random.PRNGKey(11)
x = jnp.arange(12.0).reshape(4, 3)
print(jax.random.permutation(key, 8), jax.jit(lambda k: jax.random.permutation(k, 8))(key))
print(jax.jit(lambda k, v: jax.random.permutation(k, v))(key, x), jax.jit(lambda k, v: jax.random.permutation(k, v, axis=1))(key, x))
print(jax.jit(lambda k: jax.random.permutation(k, jnp.array([3.0, -1.0, 2.5, 7.0, 0.0])))(jax.random.key(5)))
print(jax.vmap(lambda k: jax.random.permutation(k, 5))(jax.random.split(key, 3)))
print(jax.jit(lambda k: jax.random.choice(k, 10, (4,), replace=False))(key), jax.random.choice(key, 10, (4,), replace=False))
print(jax.jit(lambda k: jax.random.choice(k, 10, (2, 3)))(key), jax.random.choice(key, 10, (2, 3)))
print(jax.jit(lambda k, v: jax.random.choice(k, v, (2,), replace=False, axis=1))(key, x))
print(jax.jit(lambda k, v: jax.random.choice(k, v, (5,)))(key, jnp.array([1.0, 2.0, 3.0])))

@jax.jit
def epoch(key, data):
    key, sub = jax.random.split(key)
    return key, data[jax.random.permutation(sub, data.shape[0])]
k = jax.random.PRNGKey(2)
for _ in range(2):
    k, shuffled = epoch(k, jnp.arange(6.0))
    print(shuffled)
key = jax.random.PRNGKey(0)
p = jnp.array([0.1, 0.4, 0.2, 0.3])
print(jax.random.choice(key, 4, (12,), p=p), jax.random.choice(key, 4, (3,), replace=False, p=p))
print(jax.jit(lambda k: jax.random.choice(k, 4, (12,), p=p))(key), jax.jit(lambda k, q: jax.random.choice(k, 4, (3,), replace=False, p=q))(key, p))
print(jax.jit(lambda k, q: jax.random.choice(k, x, (2, 3), p=q))(key, p), jax.jit(lambda k: jax.random.choice(k, x, (2,), replace=False, p=p, axis=0))(key))
print(jax.vmap(lambda k: jax.random.choice(k, 4, (2,), p=p))(jax.random.split(key, 3)))
""")
# jax.nn.initializers with a traced key: an ensemble initialised under vmap.
program("random_in_jit_initializers", """
init = jax.nn.initializers
key = jax.random.PRNGKey(4)
for name, f in [("glorot_normal", init.glorot_normal()), ("he_uniform", init.he_uniform()), ("lecun_normal", init.lecun_normal()),
                ("normal", init.normal(0.5)), ("uniform", init.uniform(2.0)), ("zeros", init.zeros),
                ("variance_scaling", init.variance_scaling(2.0, "fan_out", "normal"))]:
    print(name, f(key, (2, 3)), jax.jit(lambda k: f(k, (2, 3)))(key))

def init_layer(key):
    wkey, bkey = jax.random.split(key)
    return {"w": init.glorot_uniform()(wkey, (3, 2)), "b": init.normal(0.1)(bkey, (2,))}
ensemble = jax.vmap(init_layer)(jax.random.split(key, 3))
print(ensemble["w"].shape, ensemble["w"][1], ensemble["b"])
""")
# PRNGKey and key of a traced seed (random_seed): a key made inside a jitted training function,
# or one per seed under vmap.
program("random_traced_seeds", """

@jax.jit
def make(seed):
    return jax.random.PRNGKey(seed)

print(make(3), make(-5), jax.random.PRNGKey(jnp.int32(7)))
print(jax.vmap(jax.random.PRNGKey)(jnp.array([-1, 0, 7])))
print(jax.vmap(lambda s: jax.random.normal(jax.random.PRNGKey(s), (2,)))(jnp.arange(3)))
print(jax.jit(lambda s: jax.random.uniform(jax.random.key(s), (3,)))(42), jax.random.uniform(jax.random.key(42), (3,)))
print(jax.make_jaxpr(jax.random.PRNGKey)(3))
print(jax.make_jaxpr(jax.random.key)(3))

@jax.jit
def train(seed, x):
    key = jax.random.PRNGKey(seed)
    w = jax.random.normal(key, (3, 2)) * 0.1
    return jnp.tanh(x @ w)
print(train(0, jnp.ones((4, 3))))
""")
# pow with float exponents: integer ones below 8 by squaring (10.0 ** 2.0 is 100), the rest
# through the logarithm; the special cases of C's pow.
program("pow_float_exponents", """
x = jnp.array([10.0, -3.0, 2.0, 0.5, -0.0, 0.0, jnp.inf, -jnp.inf, jnp.nan, 1e20, 1.0001, 7.0])
for e in [2.0, 3.0, -2.0, -1.0, 0.0, 31.0, -31.0, 0.5, 1.5, 32.0, -3.0]:
    print(e, x ** e)
print(jnp.power(10.0, jnp.arange(-3.0, 4.0)), jnp.logspace(0, 3, 4))
print(jax.jit(lambda a, b: a ** b)(x, jnp.full(x.shape, 2.0)))
print(jax.grad(lambda v: jnp.sum(v ** 3.0))(jnp.array([1.0, 2.0, -1.5])))
""")
# jnp.linalg: solve, inv, det (JAX's closed forms for 2x2 and 3x3), slogdet, cholesky, matrix_power;
# batched, jitted, vmapped and differentiated.
program("linalg_functions", """
a = jnp.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
m = jnp.array([[0.0, 2.0, 1.0], [1.0, 1.0, -1.0], [3.0, 0.5, 2.0]])
b = jnp.array([1.0, -2.0, 0.5])
print(jnp.linalg.solve(m, b), jnp.linalg.solve(m, jnp.stack([b, 2 * b], axis=1)))
print(jnp.linalg.inv(m))
print(jnp.linalg.det(m), jnp.linalg.det(a), jnp.linalg.det(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
s, l = jnp.linalg.slogdet(m)
print(s, l, jnp.linalg.slogdet(-a)[1])
q = jnp.array([[2.0, 1.0, 0.0, 1.0], [1.0, 3.0, 1.0, 0.0], [0.0, 1.0, 4.0, 2.0], [1.0, 0.0, 2.0, 5.0]])
print(jnp.linalg.det(q), jnp.linalg.det(-q[:, ::-1]), jnp.linalg.inv(q)[0], jax.grad(jnp.linalg.det)(q)[1])
print(jnp.linalg.cholesky(a))
print(jnp.linalg.cholesky(m @ m.T + jnp.eye(3), upper=True))
print(jnp.linalg.matrix_power(m, 0), jnp.linalg.matrix_power(m, 3), jnp.linalg.matrix_power(m, 5), jnp.linalg.matrix_power(a, -2))
batch = jnp.stack([m, a, 2 * a])
print(jnp.linalg.det(batch), jnp.linalg.inv(batch)[2])
print(jax.jit(jnp.linalg.solve)(m, b), jax.jit(jnp.linalg.det)(batch))
print(jax.vmap(jnp.linalg.det)(batch), jax.vmap(lambda x: jnp.linalg.solve(x, b))(batch))
print(jax.grad(jnp.linalg.det)(m))
print(jax.grad(lambda x: jnp.sum(jnp.linalg.inv(x)))(a))
print(jax.grad(lambda x: jnp.linalg.slogdet(x)[1])(a))
print(jax.grad(lambda x: jnp.sum(jnp.linalg.cholesky(x)))(a))
print(jnp.linalg.det(jnp.array([[1, 2], [3, 4]])), jnp.linalg.inv(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
""")
# jnp.linalg's decompositions (Jacobi eigh and svd, Householder qr) and what is built on them;
# vectors are printed up to sign (LAPACK's signs are its own), reconstructions at full precision.
program("linalg_decompositions", """
a = jnp.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
q = jnp.array([[2.0, 1.0, 0.0, 1.0], [1.0, 3.0, 1.0, 0.0], [0.0, 1.0, 4.0, 2.0], [1.0, 0.0, 2.0, 5.0]])
r = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5], [-1.0, 0.5]])
mm = lambda x, y: jnp.matmul(x, y, precision="highest")
w, v = jnp.linalg.eigh(a)
print(w, jnp.abs(v), jnp.allclose(mm(v * w, v.T), a, atol=1e-5))
print(jnp.linalg.eigvalsh(q), jax.jit(jnp.linalg.eigvalsh)(q))
print(jax.vmap(jnp.linalg.eigvalsh)(jnp.stack([a, 2 * a, a + jnp.eye(3)])))
print(jax.grad(lambda x: jnp.linalg.eigvalsh(x)[-1])(a))
print(jnp.linalg.eigh(q, symmetrize_input=False, UPLO="U").eigenvalues, jnp.linalg.eigh(jnp.eye(5)).eigenvectors)
u, s, vh = jnp.linalg.svd(r)
print(u.shape, s, vh.shape, jnp.abs(vh))
print(jnp.allclose(mm(u[:, :2] * s, vh), r, atol=1e-5), jnp.allclose(mm(u.T, u), jnp.eye(4), atol=1e-5))
print(jnp.linalg.svd(r.T, full_matrices=False).S, jnp.linalg.svdvals(q))
print(jnp.linalg.svd(r, compute_uv=False), jax.jit(lambda x: jnp.linalg.svd(x, compute_uv=False))(r))
print(jax.grad(lambda x: jnp.sum(jnp.linalg.svd(x, compute_uv=False)))(r))
print(jnp.linalg.qr(r))
print(jnp.linalg.qr(r, mode="complete").Q.shape, jnp.linalg.qr(r, mode="r"), jnp.linalg.qr(r.T))
x, resid, rank, sv = jnp.linalg.lstsq(r, jnp.array([1.0, 2.0, 0.5, -1.0]))
print(x, resid, rank, sv)
print(jnp.linalg.lstsq(r, jnp.stack([jnp.ones(4), jnp.arange(4.0)], axis=1))[0])
print(jnp.linalg.pinv(r), jnp.linalg.matrix_rank(r), jnp.linalg.matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]])))
""")
# jnp.vectorize: elementwise and with gufunc signatures, several outputs, excluded arguments,
# size-1 loop dimensions broadcast, and JAX's errors.
program("jnp_vectorize", """
def pick(x, i):
    return x[i]
x = jnp.arange(12.0).reshape(3, 4)
print(jnp.vectorize(pick, signature="(n),()->()")(x, 2), jnp.vectorize(pick, signature="(n),()->()")(x, jnp.array([0, 1, 3])))
print(jnp.vectorize(lambda a, b: a * b + 1)(jnp.arange(3.0), jnp.ones((2, 1))))
def stats(v):
    return v.mean(), v.max()
print(jnp.vectorize(stats, signature="(n)->(),()")(x))
print(jnp.vectorize(lambda v, p: v ** p, excluded={1})(jnp.arange(4.0), 2))
print(jnp.vectorize(jnp.outer, signature="(n),(m)->(n,m)")(jnp.ones((2, 3)), jnp.arange(2.0)).shape)
print(jax.jit(jnp.vectorize(lambda v: jnp.where(v > 1.5, v, -v)))(jnp.arange(4.0)))
for bad in ["(n),()->", "(n),(n)->()"]:
    try:
        jnp.vectorize(pick, signature=bad)(x, jnp.zeros(3, int))
    except ValueError as e:
        print("ValueError:", e)
""")
# lax.while_loop staged as one `while` equation: conditions on traced values under jit, vmap
# with examples finishing at different steps, nested loops, fori_loop with traced bounds,
# forward mode through a loop, a custom_vjp fixed point whose backward pass is a loop too, and
# make_jaxpr's text.
program("while_loop", """
from jax import lax
@jax.jit
def halvings(x):
    return lax.while_loop(lambda c: c[0] > 1.0, lambda c: (c[0] / 2.0, c[1] + 1), (x, 0))
print(halvings(jnp.float32(40.0)))
print(jax.vmap(halvings)(jnp.array([0.5, 3.0, 40.0, 1000.0])))
def newton_sqrt(a):
    def cond(c):
        x, prev = c
        return jnp.abs(x - prev) > 1e-6 * x
    def body(c):
        x, _ = c
        return (0.5 * (x + a / x), x)
    return lax.while_loop(cond, body, (a, 0.0))[0]
print(jax.jit(newton_sqrt)(2.0), jax.jit(jax.vmap(newton_sqrt))(jnp.array([1.0, 4.0, 10.0, 1e4])))
def collatz_steps(n):
    def step(c):
        n, k = c
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), k + 1
    return lax.while_loop(lambda c: c[0] != 1, step, (n, 0))[1]
print(jax.jit(jax.vmap(collatz_steps))(jnp.arange(1, 13)))
@jax.jit
def triangle(n):
    def outer(c):
        i, total = c
        inner = lax.while_loop(lambda d: d[0] < i, lambda d: (d[0] + 1, d[1] + d[0]), (0, 0))[1]
        return i + 1, total + inner
    return lax.while_loop(lambda c: c[0] <= n, outer, (0, 0))[1]
print(triangle(6), jax.vmap(triangle)(jnp.arange(5)))
@jax.jit
def doublings(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * 2.0 + i, x)
print(doublings(jnp.ones(3), 4), doublings(1.0, 0), jax.vmap(doublings, in_axes=(None, 0))(1.0, jnp.arange(4)))
def power(x):
    return lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]
print(power(1.5), jax.jacfwd(power)(1.5), jax.jvp(power, (2.0,), (1.0,)))
print(jax.jit(jax.vmap(jax.jacfwd(power)))(jnp.array([0.5, 1.0, 2.0])))
print(jax.jacfwd(jax.jacfwd(power))(1.5))
y, f_jvp = jax.linearize(power, 1.5)
print(y, f_jvp(1.0), f_jvp(2.0))
print(jax.make_jaxpr(halvings)(3.0))
print(jax.make_jaxpr(power)(1.5))
print(jax.make_jaxpr(jax.vmap(lambda x, n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.0 + x), (0, x))))(jnp.ones(3), jnp.arange(3)))
print(jax.make_jaxpr(lambda x: jax.jvp(power, (x,), (1.0,)))(1.0))
print(jax.make_jaxpr(jax.linearize(power, 1.5)[1])(1.0))
print(jax.make_jaxpr(doublings)(1.0, 3))
""")

# jax.scipy.optimize.minimize (BFGS with its strong-Wolfe line search, loops of loops under
# jit): a smooth bowl, a logistic regression under jit, and a run stopped by maxiter; the
# results' fields as JAX fills them. (Not Rosenbrock's valley: JAX's float32 search stops
# there wherever its last bits happen to lead it.)
program("scipy_optimize_minimize", """
from jax.scipy.optimize import minimize
import jax.scipy.optimize
import numpy as np

def bowl(x):
    return jnp.sum(jnp.arange(1.0, 5.0) * (x - jnp.array([1.0, -2.0, 0.5, 3.0])) ** 2) + 0.1 * jnp.sum(x ** 4)

res = minimize(bowl, jnp.zeros(4), method="BFGS")
print(res.x, res.success, res.status, res.fun, res.nit, res.nfev, res.njev)
print(res.jac, res.hess_inv.shape, np.shape(res.x), type(res).__name__)

def loss(w, X, y):
    return jnp.mean(jnp.logaddexp(0.0, -y * (X @ w))) + 0.01 * jnp.sum(w ** 2)

X = jnp.array([[1.0, 2.0], [2.0, -1.0], [-1.5, 0.5], [0.3, 0.8], [2.5, 1.5]])
y = jnp.array([1.0, -1.0, 1.0, 1.0, -1.0])
res = jax.jit(lambda w0: minimize(loss, w0, args=(X, y), method="BFGS"))(jnp.zeros(2))
print(res.x, res.fun, res.success, res.nit)
res = jax.scipy.optimize.minimize(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(3), method="BFGS", options=dict(maxiter=1))
print(res.x, res.status, res.nit)
try:
    minimize(bowl, jnp.zeros(4), method="Nelder-Mead")
except ValueError as e:
    print("ValueError:", e)
""")

# jax.numpy functions JAX writes in Python over the rest: real-valued complex helpers, gcd and
# lcm (a while_loop), NaN-skipping reductions, gradient, index helpers, selections by concrete
# masks, polynomials, windows, and the functional forms (vmap inside).
program("jnp_more_functions", """
x = jnp.array([0.5, -1.25, 2.0, 0.0, 3.5])
a = jnp.arange(12.0).reshape(3, 4)
nanx = jnp.array([[1.0, jnp.nan, 3.0], [jnp.nan, jnp.nan, jnp.nan], [2.0, 4.0, 8.0]])
print(jnp.real(x), jnp.imag(x), jnp.conj(a), jnp.iscomplexobj(x), jnp.iscomplexobj(1j), jnp.isreal(x))
print(jnp.isscalar(1.0), jnp.isscalar(x), jnp.isscalar(x[0]), jnp.iterable(x), jnp.iterable(3), jnp.euler_gamma)
print(jnp.modf(x), jnp.float_power(jnp.arange(4), 2))
print(jnp.gcd(jnp.array([12, -18, 0, 7]), jnp.array([8, 24, 5, 0])), jnp.lcm(jnp.array([4, -6, 0, 7]), 6))
print(jnp.nanprod(nanx, axis=1), jnp.nancumsum(nanx, axis=0), jnp.nancumprod(nanx, axis=1))
print(jnp.nanvar(nanx), jnp.nanvar(nanx, axis=1, ddof=1), jnp.nanstd(nanx, axis=0, keepdims=True))
print(jnp.nanargmax(nanx, axis=1), jnp.nanargmin(nanx, axis=0), jnp.cumulative_prod(a, axis=1, include_initial=True))
print(jnp.ediff1d(x, to_end=jnp.array([9.0, 8.0]), to_begin=-1), jnp.gradient(x), jnp.gradient(a, 0.5, 2.0))
print(jax.jit(jnp.gradient)(x), jax.grad(lambda v: jnp.sum(jnp.gradient(v) ** 2))(x))
print(jnp.diag_indices(3), jnp.diag_indices_from(jnp.zeros((2, 2, 2))), jnp.tril_indices_from(a, 1), jnp.triu_indices_from(a, -1))
print(jnp.fill_diagonal(jnp.zeros((3, 4)), 5.0, inplace=False), jnp.diagflat(jnp.array([[1, 2], [3, 4]])), jnp.diagflat(jnp.array([1.0, 2.0]), -1))
print(jnp.unravel_index(jnp.array([0, 5, 11, -1, 30]), (3, 4)), jnp.ix_(jnp.array([0, 2]), jnp.array([1, 3, 0])))
print(jnp.rollaxis(jnp.zeros((2, 3, 4)), 2).shape, jnp.rollaxis(jnp.zeros((2, 3, 4)), 0, 3).shape)
print(jnp.digitize(x, jnp.array([-1.0, 0.0, 1.0, 3.0])), jnp.digitize(x, jnp.array([3.0, 1.0, 0.0]), right=True))
print(jnp.compress(jnp.array([1, 0, 1, 1]), a, axis=1), jnp.compress(jnp.array([0, 1, 1]), a, axis=0, size=3, fill_value=-1))
print(jnp.extract(a > 5, a), jnp.delete(x, 1), jnp.delete(a, jnp.array([0, 2]), axis=1), jnp.delete(x, slice(1, 4)))
print(jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0, 3, 0])), jnp.trim_zeros(jnp.array([0.0, 1.0, 0.0]), "b"), jnp.array_equiv(x, a))
print(jnp.vander(jnp.array([1.0, 2.0, 3.0])), jnp.vander(jnp.array([1, 2, 3]), 2, increasing=True))
print(jnp.polyadd(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])), jnp.polysub(jnp.array([1, 2]), jnp.array([3, 4, 5])))
print(jnp.polymul(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])), jnp.polyder(jnp.array([1.0, 2.0, 3.0, 4.0]), 2))
print(jnp.polyint(jnp.array([3.0, 2.0, 1.0])), jnp.polyint(jnp.array([1.0, 1.0]), 2, k=jnp.array([1.0, 2.0])))
print(jnp.hamming(5), jnp.hanning(6), jnp.bartlett(5), jnp.blackman(7), jnp.hamming(1))
print(jnp.apply_along_axis(jnp.sum, 1, a), jnp.apply_along_axis(jnp.cumsum, 1, jnp.arange(24.0).reshape(2, 3, 4)))
print(jnp.apply_over_axes(jnp.sum, jnp.arange(24.0).reshape(2, 3, 4), [0, 2]), jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3)))
try:
    jnp.gcd(1.5, 2)
except ValueError as e:
    print("ValueError:", e)
""")

# A Python float beside a float32 array becomes a strongly typed float32 literal, which
# make_jaxpr prints with the float64 digits of its float32 value; beside another Python number
# it stays weak and prints as written.
program("jaxpr_float_literals", """
x = jnp.arange(3.0)
print(jax.make_jaxpr(lambda x: 1.67 * jnp.exp(x) - 0.1)(x))
print(jax.make_jaxpr(lambda x: jnp.maximum(x, 0.7) + jnp.float32(0.3))(x))
print(jax.make_jaxpr(lambda x: x * (0.1 + 0.2))(x))
""")

# Custom rules that call their own function, differentiated twice: the inner calls use their
# rules too (a Bessel function on the host, whose rule calls it at neighbouring orders, so the
# callback itself is never differentiated; a fixed point whose backward pass is a fixed point).
program("custom_rules_recursive", """
import math
from functools import partial
import numpy as np
from jax import lax

@jax.custom_jvp
def bessel(v, z):
    # J_v(z) for integer v by its series, on the host.
    def host(v, z):
        n, z = abs(int(v)), np.asarray(z, np.float64)
        total = np.zeros_like(z)
        for k in range(30):
            total = total + (-1.0) ** k / (math.gamma(k + 1) * math.gamma(k + n + 1)) * (z / 2.0) ** (2 * k + n)
        sign = -1.0 if int(v) < 0 and n % 2 else 1.0
        return (sign * total).astype(np.float32)
    return jax.pure_callback(host, jax.ShapeDtypeStruct(jnp.shape(z), jnp.float32), v, z, vmap_method="sequential")

@bessel.defjvp
def bessel_jvp(primals, tangents):
    v, z = primals
    _, z_dot = tangents
    return bessel(v, z), z_dot * 0.5 * (bessel(v - 1, z) - bessel(v + 1, z))

j1 = partial(bessel, 1)
print(j1(2.0), jax.grad(j1)(2.0), jax.grad(jax.grad(j1))(2.0))
print(jax.hessian(j1)(1.5), jax.jit(jax.grad(jax.grad(j1)))(0.5))

@partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x0):
    def cond(c):
        return jnp.abs(c[0] - c[1]) > 1e-6
    return lax.while_loop(cond, lambda c: (c[1], f(a, c[1])), (x0, f(a, x0)))[1]

def fixed_point_fwd(f, a, x0):
    x = fixed_point(f, a, x0)
    return x, (a, x)

def fixed_point_bwd(f, res, x_bar):
    a, x = res
    _, vjp_a = jax.vjp(lambda a: f(a, x), a)
    def step(f, packed, u):
        a, x, x_bar = packed
        return x_bar + jax.vjp(lambda x: f(a, x), x)[1](u)[0]
    u = fixed_point(partial(step, f), (a, x, x_bar), x_bar)
    return vjp_a(u)[0], jnp.zeros_like(x)

fixed_point.defvjp(fixed_point_fwd, fixed_point_bwd)

def sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)

print(sqrt(2.0), jax.grad(sqrt)(2.0), jax.grad(jax.grad(sqrt))(2.0), jax.grad(jax.grad(jnp.sqrt))(2.0))

# The usual rule, which calls its own function for the primal, inside a scan and a cond, under
# second derivatives, vmap and jit; and a rule that branches on a primal with a Python if
# (concrete under grad outside jit, as JAX's tracers are).
@jax.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))

@softplus.defjvp
def softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), jax.nn.sigmoid(x) * t

def repeated(x):
    return lax.scan(lambda c, _: (softplus(c) - 0.5, None), x, None, length=3)[0]

def branch(x):
    return lax.cond(x > 0, softplus, lambda v: softplus(-v), x)

print(jax.grad(jax.grad(repeated))(0.3), jax.jit(jax.hessian(repeated))(-0.2))
print(jax.vmap(jax.grad(jax.grad(branch)))(jnp.array([-1.0, 0.5])), jax.jacfwd(jax.grad(softplus))(1.0))

@jax.custom_jvp
def clipped(x):
    if x > 1.0:
        return jnp.ones_like(x)
    return x

@clipped.defjvp
def clipped_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return clipped(x), (0.0 if x > 1.0 else 1.0) * t

print(jax.grad(clipped)(0.5), jax.grad(clipped)(2.0), jax.grad(lambda v: clipped(v) * v)(0.25))
""")

# lax's comparisons and convert_element_type: no promotion between strongly typed operands,
# and a conversion that is always strongly typed.
program("lax_compare_convert", """
from jax import lax
print(lax.lt(jnp.arange(3.0), 1.0), lax.ge(2, 1), lax.eq(jnp.arange(3), 1), lax.ne(1.0, 2.0))
print(lax.le(jnp.arange(3), 1), lax.gt(jnp.float32(2.0), jnp.arange(3.0)))
print(lax.convert_element_type(jnp.arange(3.0), jnp.int32), lax.convert_element_type(2, jnp.float32))
print(lax.convert_element_type(1.5, new_dtype=jnp.bfloat16))
print(jax.jit(lambda x: lax.convert_element_type(x, jnp.int32) + lax.lt(x, 1.5))(jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.int32))(1.0))
try:
    lax.lt(jnp.arange(3.0), jnp.arange(3))
except TypeError as e:
    print("TypeError:", e)
""")

# lax.scan staged as one `scan` equation (fori_loop with static bounds and lax.map too): an RNN
# with pytree parameters, dict carries, reverse, length without xs, unroll, nested scans, jit,
# vmap, grad (reverse mode through a scan is a scan run backwards), jvp, a second derivative,
# and make_jaxpr's text.
program("scan", """
from jax import lax
def rnn(params, xs):
    W, U, b = params
    def step(h, x):
        h = jnp.tanh(W @ h + U @ x + b)
        return h, h.sum()
    return lax.scan(step, jnp.zeros(3), xs)
k = jnp.arange(24.0).reshape(8, 3) / 24.0
params = (jnp.eye(3) * 0.5 + 0.1, jnp.ones((3, 3)) * 0.2, jnp.array([0.1, -0.2, 0.3]))
h, ys = rnn(params, k)
print(h, ys)
loss = lambda p, xs: jnp.sum(rnn(p, xs)[1] ** 2)
print(jax.grad(loss)(params, k))
print(jax.jit(jax.grad(loss, argnums=1))(params, k))
print(jax.vmap(rnn, in_axes=(None, 0))(params, jnp.stack([k, k[::-1]])))
def cumulative(xs):
    step = lambda c, x: ({"s": c["s"] + x, "n": c["n"] + 1}, (c["s"], x * 2.0))
    return lax.scan(step, {"s": 0.0, "n": 0}, xs, reverse=True)
print(cumulative(jnp.arange(5.0)))
print(jax.jit(lambda x: lax.scan(lambda c, _: (c * x, c), 1.0, None, length=4))(1.5))
print(jax.grad(lambda x: lax.scan(lambda c, _: (c * x, c), 1.0, None, length=4, unroll=2)[0])(1.5))
def nested(x):
    def outer(c, row):
        inner, _ = lax.scan(lambda d, v: (d * v + c, None), 1.0, row)
        return c + inner, inner
    return lax.scan(outer, 0.0, x)
m = jnp.arange(1.0, 7.0).reshape(3, 2) / 4.0
print(nested(m), jax.grad(lambda x: nested(x)[0])(m))
print(jax.jvp(lambda x: nested(x)[1], (m,), (jnp.ones_like(m),)))
print(jax.jacfwd(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x + i, x)))(0.5))
print(lax.map(lambda v: v @ v.T, k.reshape(4, 2, 3)))
print(jax.make_jaxpr(lambda c, xs: lax.scan(lambda c, x: (c * 2.0 + x, jnp.sin(c)), c, xs))(1.0, jnp.arange(3.0)))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 5, lambda i, x: x * 2.0 + i, x))(1.0))
print(jax.make_jaxpr(lambda x: lax.map(jnp.sin, x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: lax.scan(lambda c, _: (c + 1.0, None), x, length=4, reverse=True, unroll=2))(1.0))
print(jax.make_jaxpr(jax.vmap(lambda c, xs: lax.scan(lambda c, x: (c * 2.0 + x, jnp.sin(c)), c, xs)))(jnp.ones(2), jnp.ones((2, 3))))
""")

# lax.cond and lax.switch staged as one `cond` equation holding every branch: on traced
# predicates under jit, grad (reverse mode through the branch taken), vmap (a batched predicate
# becomes a select, an unbatched one stays a cond), jvp, inside a scan and a while_loop, nested;
# make_jaxpr as JAX 0.10 prints them, the branches' closed-over values shared.
program("callbacks", """
import numpy as np
from jax.experimental import io_callback
def host_sin(x):
    return np.sin(x).astype(x.dtype)
def f(x):
    return jax.pure_callback(host_sin, jax.ShapeDtypeStruct.like(x), x, vmap_method="sequential")
x = jnp.arange(4.0)
print(f(x), jax.jit(f)(x), jax.vmap(f)(jnp.stack([x, 2 * x])))
print(jax.jit(lambda x: jnp.sum(f(x * 2.0)) + 1.0)(x))
def pair(a, b, scale=1.0):
    return (a * scale).astype(np.float32), {"n": np.int32(a.size + b)}
shapes = (jax.ShapeDtypeStruct((2,), jnp.float32), {"n": jax.ShapeDtypeStruct((), jnp.int32)})
print(jax.jit(lambda a: jax.pure_callback(pair, shapes, a, 3, scale=2.0))(jnp.array([1.0, 2.0])))
def rows(a, b):
    print("called with", a.shape, b.shape)
    return a + b
g = lambda a, b, method: jax.pure_callback(rows, jax.ShapeDtypeStruct(a.shape, a.dtype), a, b, vmap_method=method)
a, b = jnp.ones((3, 2)), jnp.array([10.0, 20.0])
for method in ["sequential", "expand_dims", "broadcast_all"]:
    print(method, jax.vmap(g, in_axes=(0, None, None))(a, b, method))
calls = []
def unused(x):
    calls.append(1)
    return x
print(jax.jit(lambda x: (jax.pure_callback(unused, x, x), x + 1.0)[1])(1.0), len(calls))
def log(tag, x):
    print("log", tag, x)
def h(x):
    jax.debug.callback(log, "h", x)
    return jnp.sin(x) * 2.0
print(jax.jit(h)(0.5))
print(jax.grad(h)(0.5))
print(jax.vmap(h)(jnp.array([0.5, 1.5])))
counter = [0]
def tick(x):
    counter[0] += 1
    return np.float32(counter[0]) + x
def steps(x):
    return jax.lax.fori_loop(0, 3, lambda i, c: io_callback(tick, c, c), x)
print(jax.jit(steps)(0.5), counter)
print(jax.lax.scan(lambda c, x: (c, io_callback(tick, x, x, ordered=True)), 0.0, jnp.arange(2.0))[1])
print(jax.make_jaxpr(f)(x))
print(jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda a: jax.vmap(g, in_axes=(0, None, None))(a, b, "broadcast_all"))(a))
print(jax.make_jaxpr(h)(0.5))
print(jax.make_jaxpr(jax.vmap(h))(jnp.ones(2)))
print(jax.make_jaxpr(lambda x: io_callback(tick, x, x))(1.0))
""")

program("cond", """
from jax import lax
def huber(r, delta=1.0):
    return lax.cond(jnp.abs(r) <= delta, lambda r: 0.5 * r * r, lambda r: delta * (jnp.abs(r) - 0.5 * delta), r)
print(jax.jit(huber)(0.5), jax.jit(huber)(-3.0))
print(jax.grad(huber)(0.5), jax.grad(huber)(-3.0))
print(jax.vmap(huber)(jnp.array([-2.0, -0.5, 0.25, 4.0])))
print(jax.vmap(jax.grad(huber))(jnp.array([-2.0, -0.5, 0.25, 4.0])))
w = jnp.array([[1.0, -2.0], [0.5, 3.0]])
def layer(kind, x):
    return lax.switch(kind, [lambda x: jnp.tanh(w @ x), lambda x: jnp.maximum(w @ x, 0.0), lambda x: w @ x], x)
x = jnp.array([0.3, -0.7])
print([layer(k, x) for k in range(-1, 4)])
print(jax.jit(layer)(1, x), jax.jacrev(layer, argnums=1)(0, x))
print(jax.vmap(layer)(jnp.array([0, 1, 2, 5]), jnp.stack([x, -x, 2 * x, x])))
print(jax.vmap(layer, in_axes=(None, 0))(1, jnp.stack([x, -x])))
def clipped_sgd(w, xs):
    def step(w, x):
        g = jax.grad(lambda w: jnp.sum((w * x - 1.0) ** 2))(w)
        norm = jnp.sqrt(jnp.sum(g * g))
        g = lax.cond(norm > 1.0, lambda g: g / norm, lambda g: g, g)
        return w - 0.1 * g, norm
    return lax.scan(step, w, xs)
print(clipped_sgd(jnp.array([0.5, -0.5]), jnp.array([[1.0, 2.0], [0.1, 0.1], [3.0, -1.0]])))
print(jax.grad(lambda w: jnp.sum(clipped_sgd(w, jnp.array([[1.0, 2.0], [0.1, 0.1]]))[0]))(jnp.array([0.5, -0.5])))
def collatz(n):
    step = lambda c: (lax.cond(c[0] % 2 == 0, lambda m: m // 2, lambda m: 3 * m + 1, c[0]), c[1] + 1)
    return lax.while_loop(lambda c: c[0] != 1, step, (n, 0))[1]
print(jax.jit(collatz)(27), jax.vmap(collatz)(jnp.array([1, 6, 7, 97])))
def nested(x, y):
    return lax.cond(x > 0, lambda: lax.cond(y > 0, lambda: x * y, lambda: x - y), lambda: jnp.float32(0.0))
print(jax.grad(nested, argnums=(0, 1))(2.0, -3.0), jax.vmap(jax.grad(nested))(jnp.array([1.0, -1.0, 2.0]), jnp.array([1.0, 1.0, -1.0])))
print(jax.jvp(huber, (2.0,), (1.0,)), jax.jvp(huber, (0.5,), (1.0,)))
f = lambda p, x: lax.cond(p > 0, jnp.sin, jnp.cos, x)
print(jax.make_jaxpr(f)(1.0, 2.0))
v = jnp.array([2.0, -1.0])
print(jax.make_jaxpr(lambda k, x: lax.switch(k, [jnp.tanh, lambda x: jnp.maximum(x * v, 0.0), lambda x: x * v], x))(1, x))
print(jax.make_jaxpr(jax.vmap(f))(jnp.ones(3), jnp.ones(3)))
print(jax.make_jaxpr(jax.vmap(f, in_axes=(None, 0)))(1.0, jnp.ones(3)))
print(jax.make_jaxpr(lambda p, x: jax.jvp(lambda x: f(p, x), (x,), (1.0,)))(1.0, 2.0))
print(jax.make_jaxpr(lambda i: lax.switch(i, [lambda: 1.0, lambda: 2.0, lambda: 3.0]))(1))
print(jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x * 2, lambda x: x, x))(True, 1))
print(lax.clamp(0.0, jnp.array([-1.0, 0.5, 2.0]), 1.0), lax.clamp(0, jnp.array([-1, 5, 2]), 3))
print(jax.grad(lambda x: lax.clamp(0.0, x, 1.0))(0.5), jax.grad(lambda lo: lax.clamp(lo, 0.5, 1.0))(0.7))
print(jax.vmap(lambda x, hi: lax.clamp(0.0, x, hi))(jnp.array([-1.0, 3.0, 1.0]), jnp.array([2.0, 2.5, 0.5])))
# The old five-argument form: each branch with its own operand.
print(jax.vmap(lambda x: lax.cond(x > 0, x, jnp.log, x, lambda v: -jnp.inf))(jnp.array([2.0, 0.0, -1.0])))
""")

# A fixed point with implicit differentiation (JAX's custom_vjp docs): the forward solve and
# the backward solve are both while loops, and reverse mode runs through them by the custom
# rule rather than through the loop.
program("while_loop_fixed_point", """
from functools import partial
from jax import lax
@partial(jax.custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-6
    def body_fun(carry):
        _, x = carry
        return x, f(a, x)
    _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star
def fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)
def fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = jax.vjp(lambda a: f(a, x_star), a)
    a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
    return a_bar, jnp.zeros_like(x_star)
def rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = jax.vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]
fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)
def newton_sqrt(a):
    update = lambda a, x: 0.5 * (x + a / x)
    return fixed_point(update, a, a)
print(newton_sqrt(2.0), jax.jit(newton_sqrt)(9.0))
print(jax.grad(newton_sqrt)(2.0), jax.jit(jax.grad(newton_sqrt))(4.0))
print(jax.jit(jax.vmap(jax.grad(newton_sqrt)))(jnp.array([1.0, 4.0, 9.0])))
""")

# The script's own classes as pytree nodes: registered with functions, as a class, as a
# dataclass (fields given and inferred), static; through jit, grad, vmap and the tree functions;
# key paths, keystr and transpose.
program("custom_pytrees", """
import functools
from dataclasses import dataclass, field
from typing import Any
from jax.tree_util import register_pytree_node, register_pytree_node_class, register_dataclass, register_static
class Pair:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __repr__(self):
        return f"Pair({self.x}, {self.y})"
register_pytree_node(Pair, lambda p: ((p.x, p.y), "tag"), lambda aux, c: Pair(*c))
p = Pair(jnp.array([1.0, 2.0]), 3.0)
print(jax.tree.structure(p), jax.tree.leaves([p, Pair(4, 5)]))
print(jax.tree.map(lambda a, b: a * b, p, Pair(2.0, 10.0)))
print(jax.grad(lambda q: jnp.sum(q.x ** 2) * q.y)(p))
print(jax.jit(lambda q: Pair(q.y, q.x + 1))(p))
print(jax.vmap(lambda q: q.x * q.y)(Pair(jnp.arange(3.0), jnp.ones(3))))
@register_pytree_node_class
class Scaled:
    def __init__(self, value, scale):
        self.value, self.scale = value, scale
    def tree_flatten(self):
        return (self.value,), self.scale
    @classmethod
    def tree_unflatten(cls, scale, children):
        return cls(children[0], scale)
print(jax.jit(lambda s: s.value * s.scale)(Scaled(jnp.arange(3.0), 2.0)), jax.tree.structure(Scaled(1.0, 4)))
@functools.partial(register_dataclass, data_fields=["w", "b"], meta_fields=["name"])
@dataclass
class Layer:
    name: str
    w: Any
    b: Any
layer = Layer("dense", jnp.ones((2, 2)), jnp.zeros(2))
print(jax.tree.structure(layer), jax.grad(lambda l: jnp.sum(l.w @ jnp.ones(2) + l.b))(layer))
@dataclass
class Config:
    rate: Any
    steps: int = field(metadata=dict(static=True), default=3)
register_dataclass(Config)
print(jax.tree.leaves(Config(0.5, 7)), jax.tree.structure(Config(0.5)))
@register_static
class Opts:
    pass
print(jax.tree.leaves([Opts(), 1.0]), repr(jax.tree.structure(Opts())).startswith("PyTreeDef(CustomNode(Opts["))
tree = {"a": [1, (2, 3)], "p": Pair(4, 5), "l": layer}
for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
    print(jax.tree_util.keystr(path), path, jnp.shape(leaf))
print(jax.tree_util.tree_map_with_path(lambda path, v: len(path), {"x": [1, 2], "y": 3}))
print(jax.tree_util.keystr((jax.tree_util.DictKey("k"), jax.tree_util.SequenceKey(2)), simple=True, separator="/"))
steps = [dict(t=1, obs=3), dict(t=2, obs=4)]
print(jax.tree.transpose(jax.tree.structure([0, 0]), jax.tree.structure(steps[0]), steps))
try:
    register_pytree_node(Pair, lambda p: ((), None), lambda a, c: None)
except ValueError as e:
    print("ValueError:", e)
""")
# Names the wild programs needed: one_hot's axis=, bincount, indices, conv_dimension_numbers
# (passed to conv_general_dilated), .at[].set of a list of traced scalars under jit.
program("one_hot_axis_bincount_indices_conv_numbers", """
from jax import lax
x = jnp.array([[0, 2], [1, 1]])
print(jax.nn.one_hot(x, 3, axis=0), jax.nn.one_hot(x, 3, axis=1).shape, jax.nn.one_hot(jnp.array([2, 0]), 3, axis=-1))
print(jnp.bincount(jnp.array([0, 1, 1, 3, -2, 7]), length=5), jnp.bincount(jnp.array([2, 2, 0])))
print(jnp.bincount(jnp.array([0, 1, 1]), weights=jnp.array([0.5, 1.0, 2.0]), minlength=4))
print(jax.jit(lambda v: jnp.bincount(v, length=3))(jnp.array([2, 2, 1])))
print(jnp.indices((2, 3)), jnp.indices((2, 2), sparse=True))
dn = lax.conv_dimension_numbers((1, 4, 4, 1), (3, 3, 1, 2), ("NHWC", "HWIO", "NHWC"))
print(dn, lax.conv_dimension_numbers((1, 1, 4, 4), (2, 1, 3, 3), None))
img = jnp.arange(16.0).reshape(1, 4, 4, 1)
k = jnp.stack([jnp.ones((3, 3)), jnp.eye(3)], axis=-1)[:, :, None, :]
print(lax.conv_general_dilated(img, k, (1, 1), "SAME", (1, 1), (1, 1), dn)[0, :, :, 1])
print(jnp.array_equal(lax.conv_general_dilated(img, k, (1, 1), "SAME", dimension_numbers=dn), lax.conv_general_dilated(img, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))))
@jax.jit
def put(state, i):
    a, b = state[i]
    return state.at[i + 1].set([a + b, a * b])
print(put(jnp.array([[1.0, 2.0], [0.0, 0.0]]), 0))
try:
    lax.conv_dimension_numbers((1, 4, 4, 1), (3, 3, 1), ("NHWC", "HWIO", "NHWC"))
except TypeError as e:
    print("TypeError:", e)
""")
# grad passes the arguments it does not differentiate as they are (an int stays an int a
# reshape may use), and bernoulli takes an array p with a traced key.
program("grad_non_argnums_and_bernoulli_array_p", """
def heads(x, n):
    print(type(n).__name__)
    return jnp.sum(x.reshape(n, -1) ** 2)
print(jax.grad(heads)(jnp.arange(6.0), 2), jax.value_and_grad(heads, argnums=0)(jnp.ones(4), 4))
print(jax.jit(lambda x: jax.grad(heads)(x, 3))(jnp.arange(6.0)))
p = jnp.array([0.1, 0.5, 0.9, 0.0, 1.0])
print(jax.jit(lambda k: jax.random.bernoulli(k, p))(jax.random.PRNGKey(3)))
print(jax.jit(lambda k: jax.random.bernoulli(k, p, (2, 5)))(jax.random.PRNGKey(4)))
""")
# lax.associative_scan: sums, products reversed, maxima along an axis, a pytree of an affine
# recurrence, under jit and grad, and booleans (interleaved by bitwise or).
program("associative_scan", """
from jax import lax
x = jnp.arange(1.0, 8.0)
print(lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.multiply, x, reverse=True))
print(lax.associative_scan(jnp.maximum, jnp.array([[3.0, 1.0], [0.0, 5.0], [4.0, 2.0]]), axis=0))
print(lax.associative_scan(jnp.add, jnp.arange(12.0).reshape(3, 4), axis=1))
def affine(a, b):
    return (b[0] * a[0], b[0] * a[1] + b[1])
A, B = lax.associative_scan(affine, (jnp.full(6, 0.5), jnp.arange(6.0)))
print(A, B)
print(jax.jit(lambda v: lax.associative_scan(jnp.add, v))(jnp.ones(5)))
print(jax.grad(lambda v: lax.associative_scan(jnp.multiply, v)[-1])(jnp.array([1.0, 2.0, 3.0])))
print(lax.associative_scan(jnp.logical_or, jnp.array([False, True, False, False])))
""")
# keepdims= on argmax/argmin (it was taken and ignored).
program("argmax_keepdims", """
x = jnp.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
print(jnp.argmax(x, axis=-1, keepdims=True), jnp.argmin(x, axis=0, keepdims=True), jnp.argmax(x, keepdims=True))
print(x.argmax(axis=1, keepdims=True).shape, jax.jit(lambda v: jnp.argmin(v, axis=1, keepdims=True))(x))
""")
# jnp functions JAX writes in Python over other jnp functions (crates/lang/src/interp/composed.rs).
program("composed_functions", """
x = jnp.array([[-2.5, jnp.nan, 0.0], [0.5, 1.5, 3.0]])
y = jnp.array([1.0, 2.0, jnp.nan])
print(jnp.fmax(x, y), jnp.fmin(x, y), jnp.fmax(jnp.array([1, 5]), 3))
print(jnp.ptp(jnp.array([[1.0, 4.0], [-2.0, 0.5]])), jnp.ptp(jnp.array([[1.0, 4.0], [-2.0, 0.5]]), axis=0), jnp.ptp(jnp.arange(6).reshape(2, 3), axis=1, keepdims=True))
print(jnp.sinc(jnp.array([0.0, 0.5, 1.0, -1.5, 2.25])), jnp.sinc(jnp.array([0, 1])))
print(jnp.logspace(0, 2, 3), jnp.logspace(0.0, 1.0, 4, endpoint=False, base=2.0))
print(jnp.polyval(jnp.array([1.0, -2.0, 3.0]), jnp.array([0.0, 1.0, 2.5])), jnp.polyval(jnp.array([2, 1]), 3))
print(jnp.cross(jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 5.0, 6.0])), jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])))
print(jnp.cross(jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), jnp.array([0.0, 0.0, 1.0])), jnp.cross(jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0, 5.0])))
print(jnp.convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])), jnp.convolve(jnp.array([1.0, 2.0, 3.0, 4.0]), jnp.array([1.0, -1.0]), mode='same'), jnp.convolve(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0, 3.0]), mode='valid'))
print(jnp.correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5])), jnp.correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]), mode='full'), jnp.correlate(jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0, 3.0]), mode='full'))
print(jnp.interp(jnp.array([-1.0, 0.0, 0.5, 1.5, 2.0, 9.0]), jnp.array([0.0, 1.0, 2.0]), jnp.array([10.0, 20.0, 0.0])))
print(jnp.interp(2.5, jnp.array([1.0, 2.0, 3.0]), jnp.array([3.0, 2.0, 0.0]), left=-1.0, right=99.0), jnp.interp(jnp.array([0.0, 4.0]), jnp.array([1.0, 2.0, 3.0]), jnp.array([3.0, 2.0, 0.0]), left=-1.0, right=99.0))
print(jnp.trapezoid(jnp.array([1.0, 2.0, 3.0])), jnp.trapezoid(jnp.array([1.0, 2.0, 3.0]), x=jnp.array([0.0, 1.0, 3.0])), jnp.trapezoid(jnp.arange(6.0).reshape(2, 3), dx=0.5, axis=0))
a = jnp.arange(6.0).reshape(2, 3)
print(jnp.vecdot(a, jnp.array([1.0, 0.5, -1.0])), jnp.vecdot(a, a, axis=0), jnp.matvec(a, jnp.array([1.0, 2.0, 3.0])), jnp.vecmat(jnp.array([1.0, -1.0]), a))
print(jnp.cumulative_sum(jnp.array([1, 2, 3])), jnp.cumulative_sum(a, axis=1, include_initial=True), jnp.cumulative_sum(a, axis=0, dtype=jnp.int32))
print(jnp.unstack(a), jnp.unstack(a, axis=1))
print(jnp.broadcast_arrays(jnp.ones((2, 1)), jnp.arange(3.0), 5.0))
m = jnp.arange(6).reshape(2, 3)
print(jnp.rot90(m), jnp.rot90(m, 2), jnp.rot90(m, -1), jnp.rot90(m, k=3, axes=(1, 0)), jnp.rot90(jnp.zeros((2, 3, 4)), axes=(0, 2)).shape)
print(jnp.tri(3), jnp.tri(2, 4, k=1, dtype=jnp.int32), jnp.tri(3, k=-1))
print(jnp.tril_indices(3), jnp.triu_indices(3, k=1), jnp.tril_indices(2, k=0, m=3))
print(jnp.append(jnp.array([1.0, 2.0]), jnp.array([[3.0], [4.0]])), jnp.append(a, a, axis=0), jnp.append(jnp.array([1, 2]), 3.5))
print(jnp.isin(jnp.array([[1, 2], [3, 4]]), jnp.array([2, 4, 7])), jnp.isin(jnp.array([1.0, jnp.nan]), jnp.array([1.0, jnp.nan]), invert=True))
b = jnp.arange(7.0)
print(jnp.array_split(b, 3), jnp.array_split(b, [2, 5]), jnp.array_split(jnp.arange(12.0).reshape(3, 4), 2, axis=1))
c = jnp.arange(24.0).reshape(2, 3, 4)
print(jnp.hsplit(jnp.arange(4.0), 2), [p.shape for p in jnp.hsplit(c, 3)], [p.shape for p in jnp.vsplit(c, 2)], [p.shape for p in jnp.dsplit(c, [1, 3])])
print(jnp.dstack([jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])]), jnp.dstack((a, a)).shape)
print(jnp.astype(a, jnp.int32), jnp.astype(jnp.array([0, 2]), 'bool'), jnp.copy(a), jnp.empty_like(a).shape, jnp.empty_like(a, dtype=jnp.int32).dtype)
print(jnp.positive(jnp.array([-1.0, 2.0])), jnp.positive(jnp.array([3, -4])))
""")
program("composed_functions_traced", """
x = jnp.array([0.0, 0.5, 1.25, -2.0])
print(jax.jit(lambda v: jnp.sinc(v) + jnp.fmax(v, 0.25) + jnp.polyval(jnp.array([1.0, 0.5, -1.0]), v))(x))
print(jax.grad(lambda v: jnp.sum(jnp.sinc(v) * jnp.polyval(jnp.array([2.0, -1.0]), v)))(x))
print(jax.jit(lambda v: jnp.interp(v, jnp.array([-1.0, 0.0, 1.0]), jnp.array([2.0, 0.0, 4.0])))(x))
print(jax.grad(lambda v: jnp.sum(jnp.interp(v, jnp.array([-1.0, 0.0, 1.0]), jnp.array([2.0, 0.0, 4.0]))))(jnp.array([-0.5, 0.25, 3.0])))
print(jax.jit(lambda a, b: jnp.convolve(a, b, mode='same'))(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]), jnp.array([0.25, 0.5, 0.25])))
print(jax.grad(lambda k: jnp.sum(jnp.convolve(jnp.array([1.0, 2.0, 3.0]), k) ** 2))(jnp.array([0.5, -1.0])))
print(jax.vmap(jnp.cross)(jnp.eye(3), jnp.ones((3, 3))))
print(jax.jit(jnp.trapezoid)(x), jax.grad(lambda v: jnp.trapezoid(v * v))(x))
print(jax.vmap(lambda r: jnp.ptp(r))(jnp.arange(6.0).reshape(2, 3) ** 2))
print(jax.jit(lambda v: jnp.isin(v, jnp.array([0.5, -2.0])))(x), jax.jit(lambda m: jnp.rot90(m))(jnp.arange(4.0).reshape(2, 2)))
print(jax.jit(lambda a: jnp.matvec(a, jnp.ones(3)) + jnp.vecdot(a, a))(jnp.arange(6.0).reshape(2, 3)))
print(jax.jit(lambda v: jnp.cumulative_sum(v, include_initial=True))(x), jax.jit(lambda v: jnp.unstack(v.reshape(2, 2)))(x))
print(jax.jit(lambda v: jnp.array_split(v, 3))(x), jax.jit(lambda v: jnp.append(v, 1.0))(x))
""")

# Python control flow on the values being differentiated outside jit (JAX's JVP tracers carry
# their primals, so `if`, `while`, `int()`, `.item()` and list indexing read them).
program("grad_python_control_flow", """
def f(x):
    if x < 3:
        return 3. * x ** 2
    else:
        return -4 * x

print(jax.grad(f)(2.), jax.grad(f)(4.))

def halve_until_small(x):
    y = x
    while jnp.abs(y) > 1.0:
        y = y / 2
    return y * y

print(jax.grad(halve_until_small)(10.0))
print(jax.grad(lambda x: x * int(x))(3.5))
print(jax.grad(lambda x: [x, 2 * x, 3 * x, 4 * x][int(x)])(3.5))
print(jax.grad(lambda x: x * x.item())(3.5))
print(jax.grad(lambda v: max(v, 0.0) * 2 + min(v, 1.0))(3.0))
print(jax.grad(lambda v: v * sum(1 for _ in range(int(v))))(3.5))
print(jax.grad(lambda x: jnp.sum(x ** 2) if (x > 0).all() else jnp.sum(x))(jnp.array([1., 2.])))
print(jax.grad(lambda x: jnp.sum(x ** 2) if jnp.any(x < 0) else jnp.sum(x))(jnp.array([1., 2.])))

def huber(w, x, y):
    r = jnp.dot(w, x) - y
    if jnp.abs(r) <= 1.0:
        return 0.5 * r ** 2
    return jnp.abs(r) - 0.5

w = jnp.array([0.5, -1.5, 2.0])
print(jax.grad(huber)(w, jnp.array([1.0, 2.0, 3.0]), 2.5))
print(jax.grad(huber)(w, jnp.array([1.0, 0.25, 0.5]), 1.0))
""")

program("grad_python_control_flow_transforms", """
g = lambda v: v ** 3 if v > 0 else -v
print(jax.hessian(g)(3.5), jax.hessian(g)(-1.0))
print(jax.jacrev(g)(3.5), jax.jacfwd(g)(3.5))
print(jax.grad(jax.grad(g))(3.5))
print(jax.value_and_grad(g)(3.5))
print(jax.jvp(g, (3.5,), (1.0,)))
print(jax.vjp(g, 3.5)[1](1.0))
print(jax.linearize(g, -2.0)[1](1.0))

def steps(x, n):
    for i in range(n):
        if x > 1.0:
            x = jnp.sqrt(x)
        else:
            x = x * 3.0
    return x

print(jax.grad(steps)(10.0, 4))
print(jax.jacrev(lambda v: jnp.where(v > 0, v, 0.0) if v.sum() > 0 else -v)(jnp.array([1.0, -0.5])))
""")

program("derivative_weak_types", """
print(jax.jvp(lambda v: v ** 3, (jnp.float32(3.5),), (1.0,)))
print(jax.jvp(lambda v: v ** 3, (3.5,), (jnp.float32(1.0),)))
print(jax.jvp(lambda v: v * 2.0, (3.5,), (1.0,)))
print(jax.jvp(lambda v: jnp.sqrt(v) + jnp.tanh(v), (3.5,), (1.0,)))
print(jax.vjp(lambda v: v ** 3, 3.5)[1](1.0))
print(jax.vjp(lambda v: jnp.log1p(v) * v, 3.5)[1](1.0))
""")

# What issue 3 names that no fixture ran yet: lax.dot_general (any dimension numbers, mixed
# dtypes promoted, preferred_element_type, under grad/jit/vmap, and make_jaxpr as JAX prints
# it), jnp.reshape and the logical functions, lax.rsqrt, config.update of the matmul
# precision (None goes back to the run's), and Python's loops and builtins. (make_jaxpr of
# lax.dot_general is a snapshot in crates/lang/tests/scripts.rs: at `highest` the Jaxpr records
# the run's precision, which JAX's does not.)
program("lax_dot_general", """
a = jnp.ones((2, 3)); b = jnp.ones((3, 4))
print(jax.lax.dot_general(a, b.astype(jnp.bfloat16), (((1,), (0,)), ((), ()))).dtype)
print(jax.lax.dot_general(a, b, ((1, 0), ((), ()))))
print(jax.lax.dot_general(jnp.ones((2, 3, 4)), jnp.ones((3, 2, 4)), (((2,), (2,)), ((0,), (1,)))).shape)
print(jax.lax.dot_general(a.astype(jnp.bfloat16), b.astype(jnp.bfloat16), (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32).dtype)
print(jax.lax.dot_general(jnp.ones(3), jnp.ones(3), (((0,), (0,)), ((), ()))))
print(jax.vmap(lambda u, v: jax.lax.dot_general(u, v, (((0,), (0,)), ((), ()))))(jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3))))
a = jnp.array([[[1.0, 2.0], [3.0, -1.0]], [[0.5, 0.25], [-2.0, 1.5]]])
b = jnp.array([[[1.5, -1.0, 2.0], [0.5, 3.0, 1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 4.0]]])
print(jax.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))))
print(jax.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), precision=jax.lax.Precision.HIGHEST))
print(jax.grad(lambda p: jnp.sum(jax.lax.dot_general(p, b, (((2,), (1,)), ((0,), (0,)))) ** 2))(a))
x = jnp.arange(6.0).reshape(2, 3)
print(jax.jit(lambda p, q: jax.lax.dot_general(p, q, (((1,), (0,)), ((), ()))))(x, x.T))
""")

program("python_loops_and_config", """
import math
from functools import partial

x = jnp.arange(6.0).reshape(2, 3)
print(jnp.reshape(x, (3, 2)), jnp.reshape(x, -1))
m = x > 1.5
print(jnp.logical_and(m, x < 4.5), jnp.logical_or(m, x < 0.5), jnp.logical_not(m))
print(jax.lax.rsqrt(jnp.array([4.0, 0.25, 2.0])))
c = jnp.array([[1.001, 2.003], [0.3337, -1.1113]])
print(c @ c)
jax.config.update('jax_default_matmul_precision', 'highest')
print(c @ c, jnp.dot(c, c))
jax.config.update('jax_default_matmul_precision', 'bfloat16')
print(c @ c)
jax.config.update('jax_default_matmul_precision', None)
print(c @ c)

total = 0.0
names = []
for i, (w, n) in enumerate(zip([0.5, 1.5, 2.5, 3.5], ['a', 'b', 'c', 'd'])):
    if i == 1:
        continue
    if w > 3.0:
        break
    total += w * i
    names.append(n)
print(total, names, tuple(names), dict(zip(names, range(len(names)))))
k = 0
while True:
    k += 1
    if k * k > 30:
        break
print(k, math.pi, math.sqrt(2.0), math.exp(1.0), isinstance(k, int), abs(-3), min(3, 1, 2), max([2.5, 1.0]))
print(float(jnp.sum(x)), int(jnp.max(x)), len(x), list(range(2, 9, 3)), sum([1, 2, 3]))

@partial(jax.jit, static_argnums=1)
def power(v, n):
    out = v
    for _ in range(n - 1):
        out = out * v
    return out

print(power(jnp.array([1.5, -2.0]), 3), f"{3.14159:.2f} {k!r} {'s'}")
""")

# vmap of dynamic slices and updates at a start per example (JAX batches them into gathers and
# scatters): sliding windows, per-row updates, clamped starts, bool and int32 operands, grad
# through them, and the language-model batch idiom (windows of a token array at random offsets).
program("vmap_dynamic_slice_batched_starts", """
from jax import lax

data = jnp.arange(20.0) * 1.5 - 4.0
starts = jnp.array([0, 3, 17, -2, 9])
print(jax.vmap(lambda i: lax.dynamic_slice(data, (i,), (4,)))(starts))
print(jax.jit(jax.vmap(lambda i: lax.dynamic_slice(data, (i,), (4,))))(starts))
m = jnp.arange(24.0).reshape(4, 6)
print(jax.vmap(lambda r, i, j: lax.dynamic_slice(r, (i, j), (2, 3)), in_axes=(None, 0, 0))(m, jnp.array([0, 1, 3]), jnp.array([2, 0, 5])))
print(jax.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(m, jnp.array([1, 4, 0, 3])))
print(jax.vmap(lambda x, i: lax.dynamic_update_slice(x, jnp.array([-1.0, -2.0]), (i,)))(m, jnp.array([1, 4, 0, 5])))
print(jax.vmap(lambda i, u: lax.dynamic_update_slice(m, u, (i, 1)))(jnp.array([0, 2, 3]), jnp.ones((3, 2, 2))))
print(jax.grad(lambda d: jnp.sum(jax.vmap(lambda i: lax.dynamic_slice(d, (i,), (3,)))(starts) ** 2))(data))
print(jax.vmap(jax.grad(lambda d, i: jnp.sum(lax.dynamic_slice(d, (i,), (3,)) ** 2)), in_axes=(None, 0))(data, starts[:2]))
print(jax.vmap(lambda i: lax.dynamic_slice(data > 3.0, (i,), (3,)))(starts))
print(jax.vmap(lambda i: lax.dynamic_index_in_dim(m, i, keepdims=False))(jnp.array([3, 0])))
print(jax.vmap(lambda i: jax.lax.dynamic_slice_in_dim(data, i, 5))(jnp.array([2, 11])))
tokens = jnp.arange(40) % 7
ix = jnp.array([1, 30, 12])
block = 6
x = jax.vmap(lambda i: lax.dynamic_slice(tokens, (i,), (block,)))(ix)
y = jax.vmap(lambda i: lax.dynamic_slice(tokens, (i + 1,), (block,)))(ix)
print(x, y)
""")

# From JAX's autodiff cookbook and sharp bits, which the playground used to refuse: arrays
# built from lists of traced values (jacfwd of a vector function written with jnp.asarray),
# the self-documenting f-string, and integer indices beyond an axis (clamped when read,
# dropped when updated).
program("arrays_of_traced_values", """
def f(x):
    return jnp.asarray([x[0], 5 * x[2], 4 * x[1] ** 2 - 2 * x[2], x[2] * jnp.sin(x[0])])

print(jax.jacfwd(f)(jnp.array([1., 2., 3.])))
print(jax.jacrev(f)(jnp.array([1., 2., 3.])))
print(jax.make_jaxpr(lambda x: jnp.asarray([x[0], 5 * x[2], 1.0]))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jnp.array([[x, x * 2], [x, 3.0]]))(1.0))
print(jax.make_jaxpr(lambda x: jnp.array([x, 2], dtype=jnp.int32))(1.5))
print(jax.jit(lambda a, b: jnp.array([[a, b], [b, a]]) @ jnp.ones(2))(1.0, 2.0))
print(jax.vmap(lambda a: jnp.array([a, a * 2, 3.0]))(jnp.arange(3.0)))
print(jax.jit(lambda a: jnp.array([a, jnp.bfloat16(2.0)]))(jnp.bfloat16(1.5)).dtype, jax.jit(lambda a: jnp.array([a, 1]))(2))
print(jax.jit(lambda a: jnp.array((a > 0, True)))(1.0), jax.grad(lambda a: jnp.sum(jnp.array([a, a ** 2]) * jnp.arange(2.0)))(3.0))
""")

program("sharp_bits_indexing_and_fstrings", """
x = jnp.arange(10.0)
m = jnp.arange(12.0).reshape(3, 4)
print(x[11], jnp.arange(10)[-11], m[5], m[1, 9], m[-7, -1], m[5, 1:3])
print(jax.grad(lambda v: v[12])(x), jax.jit(lambda v: v[-20])(x), jax.jit(lambda v: v[5, 1:3])(m))
print(x.at[15].set(0.0), x.at[-12].add(3.0), x.at[15].get(), jax.jit(lambda v: v.at[10].set(-1.0))(x))
print(jax.grad(lambda v: jnp.sum(v.at[15].set(0.0) * v))(x))
W_grad = jax.grad(lambda w: jnp.sum(w ** 2))(jnp.array([0.5, -1.0]))
s = 3.14159
print(f'{W_grad=}', f"{s = }", f"{s=:.2f}", f"{s = !s}", f"{len('abc')=}", f"{(s, 1)=}")
""")

# A jitted function called inside a trace is one `jit` equation (JAX's pjit), and so is
# jnp.where (JAX's `_where`); each transformation keeps the call and maps its body.
program("nested_jit_equations", """
@jax.jit
def g(x):
    return jnp.sin(x) * 2.0
def f(x):
    y = x * 3.0
    h = jax.jit(lambda z: z + y)
    return g(x) + h(x) + jnp.where(x > 0, x, 0.0)
x = jnp.arange(3.0)
print(jax.make_jaxpr(f)(x))
print(jax.make_jaxpr(lambda v: jax.jvp(f, (v,), (v,)))(x))
print(jax.make_jaxpr(jax.grad(lambda v: f(v).sum()))(x))
print(jax.make_jaxpr(jax.vmap(lambda v: g(v) * jnp.where(v > 1.0, v * 2.0, v)))(jnp.ones((2, 3))))
print(f(x), jax.jit(f)(x), jax.grad(lambda v: f(v).sum())(x), jax.vmap(jax.grad(lambda v: f(v).sum()))(jnp.ones((2, 3))))
print(jax.jacfwd(lambda v: g(g(v)))(x), jax.hessian(lambda v: jnp.where(v > 0, v ** 3, 0.0).sum())(x))
""")

# jax.typeof, an array's weak_type and sharding on the one device, jax.jacobian (jacrev).
program("typeof_sharding_jacobian", """
x = jnp.arange(3.0)
print(jax.typeof(x), repr(jax.typeof(1.0)), jax.typeof(jnp.int32(2)), jax.typeof(x) == jax.typeof(jnp.ones(3)))
print(jax.jit(lambda v: (print(jax.typeof(v)), v * 2)[1])(x))
print(x.sharding.num_devices, x.sharding.is_fully_replicated, x.sharding.memory_kind, x.weak_type, (x * 2.0).weak_type)
print(jax.jacobian(lambda v: v ** 2)(x))
""")

# 0-d boolean masks add an axis kept whole (True) or emptied (False), as in NumPy.
program("zero_d_boolean_masks", """
z = jnp.array(3.0)
m = jnp.arange(6.0).reshape(2, 3)
print(z[jnp.array(True)], z[jnp.array(False)], m[True].shape, m[False].shape, m[:, True].shape)
print(m[0, jnp.array(True)], jax.jit(lambda a: a[..., False])(m).shape, jax.grad(lambda a: a[True].sum())(z))
""")

# Indexing by a traced integer scalar is a window, as JAX stages it (its rewriting of take as
# a slice): each start made non-negative, a dynamic_slice, a squeeze; beside integers,
# contiguous slices and an ellipsis; lax.dynamic_slice's own form; values, clamping, grad
# (a dynamic_update_slice) and vmap over the index.
program("traced_scalar_index_is_a_dynamic_slice", """
from jax import lax
x = jnp.arange(24.0).reshape(4, 6)
x3 = jnp.arange(120.0).reshape(4, 5, 6)
v = jnp.arange(10.0)
print(jax.make_jaxpr(lambda a, i: a[i])(x, 2))
print(jax.make_jaxpr(lambda a, i: a[i])(v, 2))
print(jax.make_jaxpr(lambda a, i: (a[-1, i], a[i, 1:3], a[..., i], a[i, :, 2:]))(x3, 1))
print(jax.make_jaxpr(lambda a, i: lax.dynamic_slice(a, (i, 0), (2, 6)))(x, 1))
f = jax.jit(lambda a, i: (a[i], a[i, 1:3], a[..., i], a[1, i]))
for i in (0, 3, -1, -4):
    print(f(x, i))
print(jax.grad(lambda a, i: (a[i] * jnp.arange(6.0)).sum())(x, 2))
print(jax.vmap(lambda i: x[i])(jnp.array([3, 0, -2])))
print(jax.make_jaxpr(jax.grad(lambda a, i: a[i].sum()))(v, 2))
""")

# x[i] with an integer array i on the first axis: JAX's gather of rows (PROMISE_IN_BOUNDS, so
# clamped), each index made non-negative and given a trailing axis; values at and beyond the
# ends, grad (a scatter-add of the rows), vmap and jacfwd through it.
program("integer_array_index_is_a_gather", """
x = jnp.arange(12.0).reshape(4, 3)
print(jax.make_jaxpr(lambda a, i: a[i])(x, jnp.array([0, 2, 3])))
print(jax.make_jaxpr(lambda a, i: a[i])(jnp.arange(5.0), jnp.array([[0, 2], [4, -1]])))
print(jax.make_jaxpr(lambda a, i: a[i, :])(x, jnp.array([1])))
f = jax.jit(lambda a, i: a[i])
print(f(x, jnp.array([0, -1, 7, -9])))
print(f(jnp.arange(5), jnp.array([[0, 2], [4, -1]])))
print(f(jnp.arange(24.0).reshape(2, 3, 4), jnp.array([1, 0, 1])))
print(jax.grad(lambda a, i: (a[i] * jnp.arange(9.0).reshape(3, 3)).sum())(x, jnp.array([1, 1, 3])))
print(jax.vmap(lambda a, i: a[i])(jnp.stack([x, -x]), jnp.array([[0, 1], [3, 3]])))
print(jax.vmap(lambda i: x[i])(jnp.array([[0, 1], [3, -1]])))
print(jax.jacfwd(lambda a: a[jnp.array([2, 0])])(jnp.array([1.0, 2.0, 3.0])))
big = jnp.arange(64 * 100, dtype=jnp.float32).reshape(64, 100)
print(jax.jit(lambda a, i: a[i].sum(axis=1))(big, jnp.array([5, 63, -1, 0, 70, -70])))
""")

# Basic indexing with negative steps under a trace: the elements sliced where they are, in
# the array's own order, then reversed (JAX's _static_idx), beside integers and None.
program("negative_steps_slice_then_reverse", """
x = jnp.arange(20.0).reshape(4, 5)
print(jax.make_jaxpr(lambda a: a[::-1, 1])(x))
print(jax.make_jaxpr(lambda a: a[1:3, ::-2])(x))
print(jax.make_jaxpr(lambda a: a[::-2, 3:0:-2])(x))
print(jax.make_jaxpr(lambda a: a[None, ::-1])(x))
f = jax.jit(lambda a: (a[::-1, 1], a[1:3, ::-2], a[::-2, 3:0:-2], a[-1::-3], a[2::-1, None, -2]))
print(f(x))
print(jax.grad(lambda a: (a[::-2, 3:0:-2] * jnp.arange(4.0).reshape(2, 2)).sum())(x))
""")

# x.at[i].set(v) and its kin with integers computed under jit: a scatter (scatter-add,
# scatter-mul, scatter-min, scatter-max) with JAX's dimension numbers; each index made
# non-negative, converted where weakly typed, the indices one int32 vector (a constant one
# too); an index out of range drops the update; grad and vmap through it.
program("traced_index_update_is_a_scatter", """
x = jnp.arange(12.0).reshape(4, 3)
x3 = jnp.zeros((4, 3, 5))
print(jax.make_jaxpr(lambda a, i: a.at[i].set(jnp.ones(3)))(x, 1))
print(jax.make_jaxpr(lambda a, i: a.at[:, i].set(1.0))(x3, 1))
print(jax.make_jaxpr(lambda a, i: a.at[0, i].add(jnp.ones(5)))(x3, 1))
print(jax.make_jaxpr(lambda a, i, j: a.at[i, :, j].multiply(2.0))(x3, 1, 2))
print(jax.make_jaxpr(lambda a, i: a.at[i].min(jnp.ones((3, 5))))(x3, jnp.int32(1)))
print(jax.make_jaxpr(lambda a, i: a.at[-1, i].max(7))(jnp.arange(12).reshape(4, 3), 1))
f = jax.jit(lambda a, i, v: (a.at[i].set(v), a.at[i, 2].add(10.0), a.at[:, i].multiply(-2.0)))
for i in (0, 2, -1, -4, 3, 4, -5, 100):
    print(i, f(x, i, jnp.array([7.0, 8.0, 9.0])))
print(jax.jit(lambda a, i: (a.at[i].max(5.0), a.at[i].min(5.0)))(x, 1))
print(jax.jit(lambda a, i: a.at[i, 1].add(5))(jnp.arange(12).reshape(4, 3), 2))
print(jax.grad(lambda a, i: (a.at[i].multiply(3.0) ** 2).sum())(x, 2))
print(jax.grad(lambda v, i: (x.at[i].set(v * v) * x).sum())(jnp.array([1.0, 2.0, 3.0]), 1))
print(jax.vmap(lambda a, i: a.at[i].set(-1.0))(jnp.stack([x, x + 1]), jnp.array([0, 3])))
print(jax.vmap(lambda i, v: x.at[i].add(v), in_axes=(0, None))(jnp.array([1, -1, 9]), 100.0))
""")

# Convolutions with one spatial dimension ((N, C, W) operands: "Thinking in JAX"'s 1-D
# convolution, a sequence model's NWC/WIO layers): strides, SAME/VALID/explicit padding,
# dilations, grad and jit, lax.conv.
program("conv_one_spatial_dimension", """
from jax import lax
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
print(lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10), window_strides=(1,), padding=[(len(y) - 1, len(y) - 1)]))
seq = jnp.sin(jnp.arange(2 * 9 * 3, dtype=jnp.float32).reshape(2, 9, 3))
k = jnp.cos(jnp.arange(3 * 3 * 4, dtype=jnp.float32).reshape(3, 3, 4))
out = lax.conv_general_dilated(seq, k, (2,), 'SAME', dimension_numbers=('NWC', 'WIO', 'NWC'), precision='highest')
print(out.shape, out[1])
out = lax.conv_general_dilated(seq, k, (1,), 'VALID', rhs_dilation=(2,), dimension_numbers=('NWC', 'WIO', 'NWC'), precision='highest')
print(out.shape, out[0, :2])
print(jax.grad(lambda kk: jnp.sum(lax.conv_general_dilated(seq, kk, (1,), 'SAME', dimension_numbers=('NWC', 'WIO', 'NWC'), precision='highest') ** 2))(k)[0])
print(jax.jit(lambda a, b: lax.conv_general_dilated(a, b, (1,), [(1, 1)], lhs_dilation=(2,), precision='highest'))(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 3))))
print(lax.conv(jnp.ones((1, 2, 6)), jnp.ones((4, 2, 3)), (1,), 'SAME'))
""")

# Examples from JAX's own documentation (the autodiff cookbook, the quickstart, "Thinking in
# JAX", the JIT and automatic vectorization tutorials), run unchanged but for make_jaxpr of a
# dot (DEFAULT's emulation here would show in it) and a list holding `object`: what a
# newcomer pastes first. Writing these down found lax.dot_general, jnp.array of traced values, f"{x=}",
# clamped indexing, 1-D convolutions and JitTracer(~float32[]) missing or wrong.
program("jax_docs_autodiff_cookbook_grads", """
from jax import grad, jit, vmap, random, jacfwd, jacrev, jvp, vjp

key = random.PRNGKey(0)
grad_tanh = grad(jnp.tanh)
print(grad_tanh(2.0))
print(grad(grad(grad(jnp.tanh)))(2.0))

def sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2) + 1)

def predict(W, b, inputs):
    return sigmoid(jnp.dot(inputs, W) + b)

inputs = jnp.array([[0.52, 1.12,  0.77],
                    [0.88, -1.08, 0.15],
                    [0.52, 0.06, -1.30],
                    [0.74, -2.49, 1.39]])
targets = jnp.array([True, True, False, True])

def loss(W, b):
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))

key, W_key, b_key = random.split(key, 3)
W = random.normal(W_key, (3,))
b = random.normal(b_key, ())
W_grad = grad(loss, argnums=0)(W, b)
print(f'{W_grad=}')
W_grad, b_grad = grad(loss, (0, 1))(W, b)
print(W_grad, b_grad)
def loss2(params_dict):
    preds = predict(params_dict['W'], params_dict['b'], inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))
print(grad(loss2)({'W': W, 'b': b}))
loss_value, Wb_grad = jax.value_and_grad(loss, (0, 1))(W, b)
print('loss value', loss_value)
print('loss value', loss(W, b))
""")

program("jax_docs_autodiff_cookbook_jacobians", """
from jax import grad, jit, vmap, random, jacfwd, jacrev, jvp, vjp
def f(x):
    return jnp.asarray(
        [x[0], 5*x[2], 4*x[1]**2 - 2*x[2], x[2] * jnp.sin(x[0])])
print(jax.jacfwd(f)(jnp.array([1., 2., 3.])))
def hessian(f):
    return jacfwd(jacrev(f))
def hvp(f, x, v):
    return jvp(grad(f), (x,), (v,))[1]
g = lambda x: jnp.sum(jnp.sin(x) * x ** 2)
x = jnp.array([0.5, 1.0, -2.0])
print(hvp(g, x, jnp.ones(3)), hessian(g)(x) @ jnp.ones(3))
def vhp(f, x, v):
    _, vjp_fun = vjp(grad(f), x)
    return vjp_fun(v)[0]
print(vhp(g, x, jnp.ones(3)))
def loss(params, data):
    return jnp.sum((data[0] @ params - data[1]) ** 2)
params = jnp.array([0.5, -0.25])
batch = (jnp.arange(8.0).reshape(4, 2), jnp.arange(4.0))
per_ex = vmap(grad(loss), in_axes=(None, (0, 0)))(params, batch)
print(per_ex)
print(jit(vmap(grad(loss), in_axes=(None, (0, 0))))(params, batch))
@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))
@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = log1pexp(x)
    ans_dot = (1 - 1/(1 + jnp.exp(x))) * x_dot
    return ans, ans_dot
print(grad(log1pexp)(100.), jit(log1pexp)(3.), jit(grad(log1pexp))(3.), vmap(jit(grad(log1pexp)))(jnp.arange(3.)))
from functools import partial
@partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def clip_gradient(lo, hi, x):
    return x
def clip_gradient_fwd(lo, hi, x):
    return x, None
def clip_gradient_bwd(lo, hi, _, g):
    return (jnp.clip(g, lo, hi),)
clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)
def clip_sin(x):
    x = clip_gradient(-0.75, 0.75, x)
    return jnp.sin(x)
print(grad(clip_sin)(0.1), vmap(grad(clip_sin))(jnp.linspace(0., 3., 5)))
x = jnp.arange(10)
print(x, x.at[0].set(10), jnp.arange(10.0)[11], jnp.arange(10)[-11])
print(jax.lax.add(jnp.float32(1), 1.0), jnp.add(1, 1.0))
@partial(jit, static_argnames=['n'])
def g2(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i
print(g2(10, 20))
print(jax.make_jaxpr(lambda x, y: jnp.sum((x + 1) * y))(jnp.ones(3), jnp.ones(3)))
key = jax.random.key(0)
new_key, subkey = jax.random.split(key)
print(jax.random.normal(subkey, (3,)), jax.random.uniform(new_key, (2, 2)))
print(jax.lax.fori_loop(0, 10, lambda i, val: val + i, 0))
""")

program("jax_docs_quickstart", """
from jax import grad, jit, vmap, random, lax

def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

x = jnp.arange(5.0)
print(selu(x))
key = random.key(1701)
x = random.normal(key, (1_000,))
selu_jit = jax.jit(selu)
print(selu_jit(x)[:3])

def sum_logistic(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))

x_small = jnp.arange(3.)
derivative_fn = grad(sum_logistic)
print(derivative_fn(x_small))

def first_finite_differences(f, x, eps=1E-3):
    return jnp.array([(f(x + eps * v) - f(x - eps * v)) / (2 * eps) for v in jnp.eye(len(x))])

print(first_finite_differences(sum_logistic, x_small))
print(grad(jit(grad(jit(grad(sum_logistic)))))(1.0))

def hessian(fun):
    return jit(jax.jacfwd(jax.jacrev(fun)))

print(hessian(sum_logistic)(x_small))
key1, key2 = random.split(key)
mat = random.normal(key1, (150, 100))
batched_x = random.normal(key2, (10, 100))

def apply_matrix(x):
    return jnp.dot(mat, x)

def naively_batched_apply_matrix(v_batched):
    return jnp.stack([apply_matrix(v) for v in v_batched])

@jit
def batched_apply_matrix(batched_x):
    return jnp.dot(batched_x, mat.T)

@jit
def vmap_batched_apply_matrix(batched_x):
    return vmap(apply_matrix)(batched_x)

print(jnp.allclose(naively_batched_apply_matrix(batched_x), batched_apply_matrix(batched_x), atol=1E-4, rtol=1E-4))
print(jnp.allclose(naively_batched_apply_matrix(batched_x), vmap_batched_apply_matrix(batched_x), atol=1E-4, rtol=1E-4))
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
print(jnp.convolve(x, y))
print(lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10), window_strides=(1,), padding=[(len(y) - 1, len(y) - 1)]))
print(jax.tree.map(lambda x: x * 2, [1, 2, 3]), jax.tree.map(lambda x, y: x + y, [1, 2, 3], [4, 5, 6]))
example_trees = [[1, 'a'], (1, (2, 3), ()), [1, {'k1': 2, 'k2': (3, 4)}, 5], {'a': 2, 'b': (2, 3)}, jnp.array([1, 2, 3])]
for pytree in example_trees[1:]:
    leaves = jax.tree_util.tree_leaves(pytree)
    print(f"{repr(pytree):<45} has {len(leaves)} leaves: {leaves}")
""")

program("jax_docs_jit_and_vmap_tutorials", """
from functools import partial

def log2(x):
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2

print(jax.make_jaxpr(log2)(3.0))

def log2_with_print(x):
    print("printed x:", x)
    ln_x = jnp.log(x)
    ln_2 = jnp.log(2.0)
    return ln_x / ln_2

print(jax.make_jaxpr(log2_with_print)(3.))
print(jax.jit(log2_with_print)(jnp.float32(3.)))

def g(x, n):
    i = 0
    while i < n:
        i += 1
    return x + i

print(jax.jit(g, static_argnames=['n'])(10, 20))

x = jnp.arange(5)
w = jnp.array([2., 3., 4.])

def convolve(x, w):
    output = []
    for i in range(1, len(x)-1):
        output.append(jnp.dot(x[i-1:i+2], w))
    return jnp.array(output)

print(convolve(x, w))
xs = jnp.stack([x, x])
ws = jnp.stack([w, w])
auto_batch_convolve = jax.vmap(convolve)
print(auto_batch_convolve(xs, ws))
auto_batch_convolve_v2 = jax.vmap(convolve, in_axes=1, out_axes=1)
xst = jnp.transpose(xs)
wst = jnp.transpose(ws)
print(auto_batch_convolve_v2(xst, wst))
batch_convolve_v3 = jax.vmap(convolve, in_axes=[0, None])
print(batch_convolve_v3(xs, w))
jitted_batch_convolve = jax.jit(auto_batch_convolve)
print(jitted_batch_convolve(xs, ws))

def unjitted_loop_body(prev_i):
    return prev_i + 1

def g_inner_jitted_partial(x, n):
    i = 0
    while i < n:
        i = jax.jit(partial(unjitted_loop_body))(i)
    return x + i

print(g_inner_jitted_partial(10, 20))
print(jax.jit(lambda x: x.sum())(jnp.ones(3)), jax.jit(lambda x: jnp.where(x > 0, x, 0))(jnp.array([-1, 2])))
""")


# jit's traces are cached per function (and jit options), not per `jax.jit` wrapper.
program("jit_cache_per_function", """
def f(x):
    print("tracing f")
    return x + g
g = 1.0
print(jax.jit(f)(4.0))
g = 10.0
print(jax.jit(f)(5.0))
print(jax.jit(f)(jnp.array([5.0])))
def h(x, n):
    print("tracing h", n)
    return x * n
print(jax.jit(h, static_argnums=1)(2.0, 3), jax.jit(h, static_argnums=1)(4.0, 3))
print(jax.jit(h, static_argnums=1)(2.0, 4), jax.jit(h, static_argnames='n')(2.0, n=4))
for i in range(2):
    print(jax.jit(lambda x: x + i)(1.0))
""")

# ndtr as JAX computes it (erfc in the tails), and the functions built on it.
program("scipy_special_ndtr_tails", """
from jax.scipy.stats import norm
import jax.scipy.special as sp
x = jnp.array([-12.0, -8.0, -5.0, -3.5, -1.0, -0.5, 0.0, 0.3, 1.5, 3.5, 6.0])
print(norm.cdf(x), norm.sf(x))
print(norm.logcdf(x), norm.logsf(x))
print(sp.erfc(x), jax.lax.erfc(x))
print(sp.ndtr(x), sp.log_ndtr(x), sp.log_ndtr(x, series_order=5))
print(norm.cdf(-3.5), norm.cdf(1.0), norm.cdf(jnp.array([0.25, -12.0, 3.0]), 1.0, 2.0))
print(jax.grad(lambda v: jnp.sum(norm.cdf(v)))(x))
print(jax.grad(lambda v: jnp.sum(norm.logcdf(v)))(x))
print(jax.vmap(jax.grad(sp.erfc))(x))
print(jax.jit(sp.erfc)(x))
""")

# JAX's messages for lists given to jnp functions (check_arraylike) and for item assignment.
program("check_arraylike_messages", """
x = jnp.ones(3)
for f, args in [(jnp.sum, ([1, 2, 3],)), (jnp.abs, ((1.0, -2.0),)), (jnp.add, (x, [1.0, 2.0, 3.0])),
                (jnp.where, (x > 0, x, [1.0, 2.0, 3.0])), (jnp.mean, ([1.0],)), (jnp.divide, ([1.0], 2.0)),
                (jnp.reshape, ([1, 2], (2, 1)))]:
    try:
        f(*args)
    except TypeError as e:
        print(e)
print(jnp.array([1, 2]), jnp.stack([x, x]).shape, jnp.sum(x, axis=(0,)), jnp.add(1, 2.0))
try:
    x[0] = 1.0
except TypeError as e:
    print(e)
""")

# x.at[...] with JAX's out-of-bounds modes.
program("at_modes", """
x = jnp.arange(5.0)
print(x.at[jnp.array([1, 7, -1, -9])].get(mode='fill', fill_value=-1), x.at[7].get(mode='fill'))
print(x.at[jnp.array([1, 7, -9])].get(mode='clip'), x.at[7].get(mode='promise_in_bounds'))
print(x.at[jnp.array([1, 7, -9])].set(9.0, mode='clip'), x.at[jnp.array([1, 7])].add(9.0, mode='drop'))
m = jnp.arange(12.0).reshape(3, 4)
print(m.at[1:, jnp.array([0, 5])].get(mode='fill', fill_value=0.5), m.at[..., 9].get(mode='fill'))
print(jax.jit(lambda v, i: v.at[i].get(mode='fill', fill_value=-2.0))(x, jnp.array([0, 9])))
print(jax.grad(lambda v: v.at[jnp.array([1, 9])].get(mode='fill', fill_value=0.0).sum())(x))
for call in [lambda: x.at[1].get(mode='foo'), lambda: x.at[1].set(2.0, mode='foo'),
             lambda: x.at[1].get(bogus=1), lambda: x.at[1].set(2.0, fill_value=1)]:
    try:
        call()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
""")

# A static integer index beyond its axis: JAX clamps it, through a dynamic_slice (its static
# slice path refuses it), normalising every integer of the index.
program("static_index_beyond_axis", """
x = jnp.arange(3.0)
m = jnp.arange(12.0).reshape(3, 4)
print(x[5], x[-7], m[5, 1], m[-9], m[1, 9])
print(jax.make_jaxpr(lambda x: x[5])(x))
print(jax.make_jaxpr(lambda m: m[5, 1])(m))
print(jax.make_jaxpr(lambda m: m[-9])(m))
print(jax.jit(lambda m: m[2, 7] + m[7])(m))
print(jax.grad(lambda x: x[4] * x[1])(x))
""")

# How JAX's printer lays out long jaxprs: binder and operand lists fill their lines, and a
# nested jaxpr used twice or longer than 10 equations is printed once first (`let name = ...`).
program("jaxpr_layout_long", """
print(jax.make_jaxpr(lambda *a: sum(a))(*range(10)))
def carry14(x):
    return jax.lax.fori_loop(0, 3, lambda i, c: tuple(v + 1 for v in c), tuple(x + k for k in range(14)))
print(jax.make_jaxpr(carry14)(1.0))
@jax.jit
def helper(v):
    return jnp.sin(v) * 2.0
print(jax.make_jaxpr(lambda v: helper(v) + helper(v + 1.0))(jnp.ones(3)))
def unrolled(x, n):
    y = 0.0
    for i in range(n):
        y = y + x[i]
    return y
print(jax.make_jaxpr(jax.jit(unrolled, static_argnums=(1,)), static_argnums=(1,))(jnp.arange(3.0), 6))
def newton(x):
    return jax.lax.while_loop(lambda c: c[1] < 5,
                              lambda c: (c[0] - (c[0] ** 3 - 2.0 * c[0] - 5.0) / (3.0 * c[0] ** 2 - 2.0) * 0.5 + jnp.sin(c[0]) * 0.0 + jnp.cos(c[0]) * 0.0, c[1] + 1),
                              (x, 0))
print(jax.make_jaxpr(newton)(2.0))
""")

# JAX's exception classes in jax.errors, caught by their names.
program("jax_errors_classes", """
from jax.errors import TracerBoolConversionError, NonConcreteBooleanIndexError, ConcretizationTypeError
@jax.jit
def sign(x):
    if x > 0:
        return x
    return -x
try:
    sign(1.0)
except TracerBoolConversionError as e:
    print(type(e).__name__, isinstance(e, ConcretizationTypeError), isinstance(e, TypeError))
try:
    jax.jit(lambda x: x[x > 0])(jnp.arange(3.0))
except NonConcreteBooleanIndexError as e:
    print(type(e).__name__, isinstance(e, IndexError), str(e).splitlines()[0])
print(jax.errors.TracerIntegerConversionError.__name__, issubclass(jax.errors.NonConcreteBooleanIndexError, jax.errors.JAXIndexError))
""")

# Matrix norms of singular values (ord 2, -2, 'nuc'), over two axes of a stack too.
program("matrix_norms_by_svd", """
m = jnp.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.5, 1.0]])
print(jnp.linalg.norm(m, 2), jnp.linalg.norm(m, -2), jnp.linalg.norm(m, 'nuc'), jnp.linalg.norm(m, 'fro'))
stack = jnp.arange(24.0).reshape(2, 3, 4) / 10.0
print(jnp.linalg.norm(stack, 2, axis=(1, 2)), jnp.linalg.norm(stack, 'nuc', axis=(2, 0), keepdims=True).shape)
print(jax.jit(lambda a: jnp.linalg.norm(a, ord=2))(m))
""")

# Keys are jax.Arrays with a type of their own; a raw key is its uint32 words to asarray.
# And jnp.full of a traced fill broadcasts it.
program("key_types_and_traced_full", """
from jax import random
key = random.key(42)
print(jax.typeof(key), repr(jax.typeof(random.split(key, 3))), jax.typeof(random.PRNGKey(0)))
print(isinstance(key, jax.Array), isinstance(random.PRNGKey(1), jax.Array), jnp.asarray(random.PRNGKey(3)))
print(jax.jit(lambda x: jnp.full((3,), x))(2.5), jax.jit(lambda x: jnp.full((2, 2), x, dtype=jnp.int32))(7.0))
print(jax.make_jaxpr(lambda x: jnp.full((3,), x))(2.5))
print(jnp.full((2, 3), jnp.array([1.0, 2.0, 3.0])))
""")

# vstack, hstack and column_stack promote their arrays to one dtype, as concatenate does.
program("stacking_promotes_dtypes", """
a = jnp.zeros((1, 3), dtype=jnp.int32)
print(jnp.vstack((a, jnp.ones(3))), jnp.hstack([jnp.arange(2), jnp.ones(2)]))
print(jnp.column_stack([jnp.arange(2), jnp.array([True, False])]), jnp.concatenate([jnp.arange(2), jnp.ones(2)]))
print(jax.jit(lambda x: jnp.vstack([x, jnp.arange(3)]))(jnp.ones(3)).dtype)
""")

# lax.top_k: the k largest along an axis, ties to the lower index, NaN first.
program("lax_top_k", """
x = jnp.array([9., 3., 6., 4., 10., 9., jnp.nan])
print(jax.lax.top_k(x, 3))
m = jnp.array([[1, 5, 5, 2], [7, 0, 7, 7]])
print(jax.lax.top_k(m, 2), jax.lax.top_k(m, 1, axis=0))
print(jax.jit(lambda d: jax.lax.top_k(-d, 2)[1])(jnp.array([[0.5, 0.1, 0.9], [0.3, 0.2, 0.1]])))
print(jax.grad(lambda v: jax.lax.top_k(v, 2)[0].sum())(jnp.array([1.0, 4.0, 2.0, 3.0])))
try:
    jax.lax.top_k(x, 9)
except ValueError as e:
    print(e)
""")

# JAX's errors about tracers say where the value came from: the traced function, the line
# its definition starts on, what traces it, and the arguments the value depends on (found by
# walking the trace back), named by the function's signature and the path in a pytree.
program("tracer_errors_name_their_origin", """
import numpy as np
from functools import partial
def show(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Exception as e:
        print(type(e).__name__, "|", repr(str(e)))

@jax.jit
def both(x, y):
    if x + y > 0:
        return x
    return y
show(both, 1.0, 2.0)
show(jax.jit(lambda p, z: z if p['a'][1] > 0 else -z), {'a': (1.0, 2.0), 'b': 3.0}, 2.0)
show(jax.jit(lambda a, b, c: jnp.zeros(int(a + b + c))), 1, 2, 3)
show(jax.jit(lambda *xs: xs[0] if xs[1] > 0 else 0.0), 1.0, 2.0)
show(jax.jit(lambda x, **kw: x if kw['q'] > 0 else -x), 1.0, q=2.0)
show(jax.jit(lambda x, n: x if n > 0 else -x, static_argnums=0), 1.0, 2.0)
show(jax.jit(lambda x: [1, 2, 3][x]), 1)
show(jax.jit(lambda x: float(x)), 1.0)
show(jax.jit(lambda x: complex(x)), 1.0)
show(jax.jit(lambda x: x.item()), 1.0)
show(jax.jit(lambda x: x.tolist()), 1.0)
show(jax.jit(lambda x: np.sin(x)), 1.0)
show(jax.jit(lambda x: jnp.ones(x)), 3)
show(jax.jit(lambda x, y: jnp.zeros((y, 2, x))), 1, 2)
show(jax.grad(lambda x: float(x)), 3.0)
show(jax.jit(jax.grad(lambda x: x if x > 0 else -x)), 3.0)
show(jax.make_jaxpr(lambda x: x if x > 0 else -x), 1.0)
def outer(a, b):
    def inner(c):
        return c if c > 0 else b
    return jax.jit(inner)(a * 2)
show(jax.jit(outer), 1.0, 2.0)
show(jax.jit(lambda x: jax.lax.cond(x > 0, lambda y: y if y > 0 else y, lambda y: y, x)), 1.0)
show(jax.jit(lambda x: jax.lax.while_loop(lambda c: c < 3, lambda c: c + 1 if c > 0 else c, x)), 1.0)
show(jax.jit(lambda x: jax.lax.while_loop(lambda c: bool(c < 3), lambda c: c + 1, x)), 1.0)
show(jax.jit(lambda xs: jax.lax.scan(lambda c, x: (c, x) if x > 0 else (c, -x), 0.0, xs)), jnp.ones(3))
class Model:
    def __call__(self, x):
        return x if x > 0 else -x
show(jax.jit(Model()), 1.0)
show(jax.jit(partial(lambda s, x: x if x > s else -x, 2.0)), 1.0)
""")

# jnp.array(x), jnp.copy(x) and x.copy() of a traced x stage JAX's `copy` (jnp.asarray does
# not): printed by make_jaxpr, differentiated and batched as the identity it is.
program("copy_equations", """
x = jnp.arange(3.0)
print(jax.make_jaxpr(lambda x: jnp.array(x))(x))
print(jax.make_jaxpr(lambda x: jnp.array(x, dtype=jnp.int32))(x))
print(jax.make_jaxpr(lambda x: jnp.asarray(x))(x))
print(jax.make_jaxpr(lambda x: jnp.array(2.0 * x[0]))(x))
print(jax.make_jaxpr(lambda x: (jnp.copy(x), x.copy()))(x))
print(jax.make_jaxpr(jax.grad(lambda x: (jnp.array(x) ** 2).sum()))(x))
print(jax.make_jaxpr(lambda x: jax.jvp(lambda y: jnp.copy(y) * 2, (x,), (x,)))(x))
print(jax.make_jaxpr(jax.vmap(lambda x: jnp.array(x)))(x))
print(jax.jit(lambda x: jnp.array(x) * 2)(x), jax.grad(lambda x: (jnp.copy(x) ** 2).sum())(x))
print(jax.jit(lambda x: jnp.array(x, dtype=jnp.int32))(x))
""")

# finfo's values are NumPy scalars (jnp.finfo is NumPy's finfo); broadcast_shapes as NumPy
# and JAX write it, with their two messages; jax.dtypes without x64; a list as an index.
program("dtype_helpers_and_broadcast_shapes", """
import numpy as np
print(repr(np.finfo(np.float32).eps), repr(jnp.finfo(jnp.float32).max), repr(np.finfo(np.float64).tiny))
print(jnp.ones(2) * np.finfo(np.float32).eps)
for f in (np.broadcast_shapes, jnp.broadcast_shapes):
    print(f(), f(3), f((2, 1), (3,)), f((), (1, 4)), f((0, 1), (1, 5)))
    for shapes in [((2,), (3,)), ((2, 3), (4, 1, 3), (5,))]:
        try:
            f(*shapes)
        except ValueError as e:
            print(e)
print(jax.dtypes.canonicalize_dtype(np.float64), jax.dtypes.canonicalize_dtype(jnp.int32),
      jax.dtypes.canonicalize_dtype("int64"), jax.dtypes.result_type(1.0, jnp.int32),
      jax.dtypes.issubdtype(jnp.bfloat16, jnp.floating), jax.dtypes.finfo(jax.dtypes.bfloat16).bits)
try:
    jnp.arange(4.0)[[]]
except TypeError as e:
    print(e)
""")

# Jacobians keep JAX's weak types: jacrev's the inputs', jacfwd's the outputs'.
program("jacobian_weak_types", """
f = lambda x, y: x ** 2 + y ** 2
print(repr(jax.jacrev(f, argnums=(0, 1))(1.0, 1.0)), repr(jax.jacfwd(f, argnums=(0, 1))(1.0, 1.0)))
print(repr(jax.jacfwd(lambda x: jnp.sin(x))(jnp.float32(3.0))), repr(jax.hessian(lambda x: x ** 3)(2.0)))
print(repr(jax.jacrev(lambda x: x * jnp.ones(2))(2.0)), repr(jax.jacfwd(lambda x: x * jnp.ones(2))(2.0)))
print(repr(jax.jacrev(lambda x: jnp.stack([x, x]))(3.0)), repr(jax.jacfwd(lambda x: jnp.stack([x, x]))(3.0)))
""")

# Whether a dot_general or convolution that names no precision runs at DEFAULT in this run.
RUN_AT_DEFAULT = False


def run_precision(precision):
    """The precision an op runs at: its own, else the run's. The op is then bound with it, so
    JAX's grad rules pass it on to the transposed ops as a TPU would run them (XLA's CPU
    computes f32 either way; only the rounding here differs)."""
    if isinstance(precision, tuple):
        precision = precision[0]
    if precision is None:
        # A program's own `with jax.default_matmul_precision(...)` or config.update.
        precision = jax.config.jax_default_matmul_precision
    if precision is None:
        return jax.lax.Precision.DEFAULT if RUN_AT_DEFAULT else jax.lax.Precision.HIGHEST
    aliases = {"bfloat16": "default", "fastest": "default", "bfloat16_3x": "high",
               "tensorfloat32": "high", "float32": "highest"}
    name = str(precision).lower()
    return jax.lax.Precision(aliases.get(name, name))


# Name scopes marking what the DEFAULT run adds to a program (the bf16 rounding of a dot's
# operands; the DEFAULT precision filled in where the program gave none), so that a printed
# jaxpr can show the program as written (see `as_written`).
ROUNDING_SCOPE = "tpu_bf16_rounding"
FILLED_SCOPE = "tpu_filled_precision"


def rounded(v):
    """An f32 operand as the MXU reads it at DEFAULT: rounded to bf16 (products and sums stay f32)."""
    v = jnp.asarray(v)
    if v.dtype != jnp.float32:
        return v
    with jax.named_scope(ROUNDING_SCOPE):
        return v.astype(jnp.bfloat16).astype(jnp.float32)


def dot_general_tpu(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                    out_sharding=None, **kwargs):
    """dot_general as a TPU computes it: at DEFAULT on bf16-rounded operands, else in f32."""
    filled = RUN_AT_DEFAULT and precision is None
    precision = run_precision(precision)
    if precision == jax.lax.Precision.DEFAULT:
        lhs, rhs = rounded(lhs), rounded(rhs)
    with jax.named_scope(FILLED_SCOPE) if filled else contextlib.nullcontext():
        return ORIGINAL_DOT(lhs, rhs, dimension_numbers, precision=precision,
                            preferred_element_type=preferred_element_type)


def conv_tpu(lhs, rhs, *args, precision=None, preferred_element_type=None, **kwargs):
    """A convolution as a TPU computes it, rounded at DEFAULT as for dot_general."""
    precision = run_precision(precision)
    if precision == jax.lax.Precision.DEFAULT:
        lhs, rhs = rounded(lhs), rounded(rhs)
    return ORIGINAL_CONV(lhs, rhs, *args, precision=precision,
                         preferred_element_type=preferred_element_type, **kwargs)


ORIGINAL_DOT = lax_internal.dot_general
ORIGINAL_CONV = conv_internal.conv_general_dilated
# jnp.einsum took `lax.dot_general` as a default argument when it was defined, so it is given
# the TPU's explicitly.
ORIGINAL_EINSUM = jnp.einsum


def einsum_tpu(*args, **kwargs):
    return ORIGINAL_EINSUM(*args, _dot_general=dot_general_tpu, **kwargs)


def as_written(closed):
    """A jaxpr the DEFAULT run traced, without what the run added to the program's dots (see
    ROUNDING_SCOPE), in nested jaxprs too; a jaxpr reached twice stays one (JAX prints it once)."""
    from jax._src import core
    done = {}

    def marked(eqn, scope):
        return scope in str(eqn.source_info.name_stack)

    def clean(value):
        if isinstance(value, core.ClosedJaxpr):
            return core.ClosedJaxpr(clean(value.jaxpr), value.consts)
        if isinstance(value, tuple) and value and all(isinstance(v, (core.Jaxpr, core.ClosedJaxpr)) for v in value):
            return tuple(clean(v) for v in value)
        if not isinstance(value, core.Jaxpr):
            return value
        if id(value) in done:
            return done[id(value)][1]
        replaced = {}
        read = lambda v: replaced.get(v, v) if isinstance(v, core.Var) else v
        eqns = []
        for eqn in value.eqns:
            if eqn.primitive.name == "convert_element_type" and marked(eqn, ROUNDING_SCOPE):
                replaced[eqn.outvars[0]] = read(eqn.invars[0])
                continue
            params = {k: clean(v) for k, v in eqn.params.items()}
            if eqn.primitive.name == "dot_general" and marked(eqn, FILLED_SCOPE):
                params["precision"] = None
            eqns.append(eqn.replace(invars=[read(v) for v in eqn.invars], params=params))
        cleaned = value.replace(eqns=eqns, outvars=[read(v) for v in value.outvars])
        done[id(value)] = (value, cleaned)
        return cleaned

    return clean(closed)


ORIGINAL_MAKE_JAXPR = jax.make_jaxpr


def make_jaxpr_tpu(fun, *args, **kwargs):
    """`jax.make_jaxpr`, showing the program's dots as written in the DEFAULT run too."""
    made = ORIGINAL_MAKE_JAXPR(fun, *args, **kwargs)

    def traced(*call_args, **call_kwargs):
        result = made(*call_args, **call_kwargs)
        if not RUN_AT_DEFAULT:
            return result
        if isinstance(result, tuple):
            return (as_written(result[0]),) + result[1:]
        return as_written(result)

    return traced


from jax._src import ad_checkpoint as ad_checkpoint_internal  # noqa: E402

ORIGINAL_SAVED_RESIDUALS = ad_checkpoint_internal._saved_residuals


def saved_residuals_tpu(jaxpr, arg_names):
    """`print_saved_residuals` seeing through the DEFAULT run's bf16 rounding: a dot's rounded
    operand is the operand (as `as_written` shows jaxprs), not a value of its own."""
    if RUN_AT_DEFAULT:
        jaxpr = as_written(jaxpr)
    return ORIGINAL_SAVED_RESIDUALS(jaxpr, arg_names)


def run(source, default_precision):
    global RUN_AT_DEFAULT
    out = io.StringIO()
    error = None
    RUN_AT_DEFAULT = default_precision
    lax_internal.dot_general = dot_general_tpu
    # jax.scipy.signal reaches the convolution through the jax._src.lax package.
    conv_internal.conv_general_dilated = jax.lax.conv_general_dilated = conv_tpu
    lax_package.conv_general_dilated = conv_tpu
    jnp.einsum = einsum_tpu
    jax.make_jaxpr = make_jaxpr_tpu
    ad_checkpoint_internal._saved_residuals = saved_residuals_tpu
    # A jitted function traced in the other run must be traced again with the other default.
    jax.clear_caches()
    # No default_matmul_precision context: JAX's grad rules would pass its precision on
    # explicitly, indistinguishable from a program's own `precision=`.
    with contextlib.redirect_stdout(out):
        try:
            exec(compile(source, "<script>", "exec"), {"__name__": "__main__"})
        except Exception as e:  # noqa: BLE001 - recorded as the expected error
            error = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    lax_internal.dot_general = ORIGINAL_DOT
    conv_internal.conv_general_dilated = jax.lax.conv_general_dilated = ORIGINAL_CONV
    lax_package.conv_general_dilated = ORIGINAL_CONV
    jnp.einsum = ORIGINAL_EINSUM
    jax.config.update("jax_default_matmul_precision", None)
    return out.getvalue(), error


def run_stderr(source):
    """What `source` writes to standard error at `highest`: JAX's log messages (which its own
    handler writes to the process's stderr, so they are caught by a handler of our own) and
    anything written to sys.stderr, each object id written `id=N`."""
    err = io.StringIO()
    handler = logging.StreamHandler(err)
    handler.setFormatter(logging.Formatter("%(message)s"))
    jax_logger = logging.getLogger("jax")
    jax_logger.addHandler(handler)
    # JAX remembers, for the whole process, the call sites where it saw new functions.
    partial_eval.callsites_with_tracing_cache_miss.clear()
    try:
        with contextlib.redirect_stderr(err):
            run(source, default_precision=False)
    finally:
        jax_logger.removeHandler(handler)
        jax.config.update("jax_explain_cache_misses", False)
    return re.sub(r"\bid=\d+", "id=N", err.getvalue())


def write(programs, path, rewrite=lambda output: output):
    """Runs `programs` in real JAX and writes their fixtures to `path`, each output passed
    through `rewrite` (which says what it changes). `NAME...` on the command line runs only
    the programs named, keeping the others' fixtures as the file has them (a full run takes
    minutes)."""
    only = set(sys.argv[1:])
    kept = {}
    if only:
        with open(path) as f:
            kept = {f["name"]: f for f in json.load(f)["fixtures"]}
        unknown = only - {name for name, _ in programs}
        if unknown:
            sys.exit(f"no programs named {sorted(unknown)}")
    fixtures = []
    for name, source in programs:
        if only and name not in only and name in kept and kept[name]["script"] == source:
            fixtures.append(kept[name])
            continue
        highest, error = run(source, default_precision=False)
        default, default_error = run(source, default_precision=True)
        fixture = {
            "name": name,
            "script": source,
            "highest": rewrite(highest),
            "default": rewrite(default),
            "error": error,
        }
        if name in STDERR_PROGRAMS:
            fixture["stderr"] = run_stderr(source)
        fixtures.append(fixture)
    with open(path, "w") as f:
        json.dump({"jax_version": jax.__version__, "fixtures": fixtures}, f, indent=1)
        f.write("\n")
    print(f"wrote {len(fixtures)} fixtures to {path}", file=sys.stderr)


if __name__ == "__main__":
    write(PROGRAMS, os.path.join(HERE, "fixtures.json"))
