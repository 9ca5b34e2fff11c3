"""Generates tests/jax/slice_fixtures.json: programs for many devices (jax.pmap, jax.shard_map,
meshes and the collectives) and what real JAX prints for them with 8 CPU devices, the chips of a v5e-8.

Run with `python3 tests/jax/slices.py` (needs jax[cpu] and numpy); `slices.py NAME...` reruns
only the programs named. The playground runs them on `--machine v5e-8`
(`crates/runtime/tests/slices.rs`). Programs print values, never device reprs (JAX's CPU
devices are `CpuDevice(id=0)`, the playground's are TPU chips).
"""

import os
import re
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"

import generate  # noqa: E402  (after XLA_FLAGS: JAX reads it once, when it starts)

PROGRAMS = []


def program(name, body):
    PROGRAMS.append((name, generate.PRELUDE + "from jax import lax\n" + body.strip() + "\n"))


X8 = "x = jnp.arange(24.0).reshape(8, 3) / 4.0 - 2.0\n"

program("pmap_devices", "print(jax.device_count(), jax.local_device_count(), len(jax.devices()))\n")
program("pmap_elementwise", X8 + "print(jax.pmap(lambda v: jnp.sin(v) * 2.0 + 1.0)(x))\n")
program("pmap_reductions_inside", X8 + "print(jax.pmap(lambda v: jnp.sum(v ** 2))(x))\n")
program("pmap_psum_pmean", X8 + """
print(jax.pmap(lambda v: lax.psum(v, 'i'), axis_name='i')(x))
print(jax.pmap(lambda v: lax.pmean(v, 'i'), axis_name='i')(x))
""")
program("pmap_pmax_pmin", X8 + """
print(jax.pmap(lambda v: lax.pmax(v, 'i'), axis_name='i')(x))
print(jax.pmap(lambda v: lax.pmin(jnp.cos(v), 'i'), axis_name='i')(x))
""")
program("pmap_all_gather", X8 + """
print(jax.pmap(lambda v: lax.all_gather(v, 'i'), axis_name='i')(x)[3])
print(jax.pmap(lambda v: lax.all_gather(v, 'i', tiled=True), axis_name='i')(x)[5])
print(jax.pmap(lambda v: lax.all_gather(v, 'i', axis=1), axis_name='i')(x).shape)
""")
program("pmap_psum_scatter", """
y = jnp.arange(128.0).reshape(8, 16) / 8.0
print(jax.pmap(lambda v: lax.psum_scatter(v, 'i', tiled=True), axis_name='i')(y))
print(jax.pmap(lambda v: lax.psum_scatter(v.reshape(8, 2), 'i'), axis_name='i')(y))
print(jax.pmap(lambda v: lax.psum_scatter(v.reshape(2, 8), 'i', scatter_dimension=1, tiled=True), axis_name='i')(y))
""")
program("pmap_ppermute", X8 + """
ring = [(i, (i + 1) % 8) for i in range(8)]
print(jax.pmap(lambda v: lax.ppermute(v, 'i', perm=ring), axis_name='i')(x))
print(jax.pmap(lambda v: lax.ppermute(v, 'i', [(0, 7), (7, 0), (2, 3)]), axis_name='i')(x))
""")
program("pmap_all_to_all", """
y = jnp.arange(128.0).reshape(8, 8, 2)
print(jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 0, tiled=True), axis_name='i')(y)[2])
print(jax.pmap(lambda v: lax.all_to_all(v, 'i', 0, 1), axis_name='i')(y)[6])
""")
program("pmap_axis_index", X8 + """
print(jax.pmap(lambda v: v * lax.axis_index('i'), axis_name='i')(x))
print(jax.pmap(lambda v: lax.axis_index('i'), axis_name='i')(x))
""")
program("pmap_psum_of_a_number", X8 + "print(jax.pmap(lambda v: v + lax.psum(1, 'i'), axis_name='i')(x))\n")
program("pmap_in_axes", """
a = jnp.arange(12.0).reshape(4, 3)
b = jnp.array([1.0, -2.0, 0.5])
print(jax.pmap(lambda p, q: p * q, in_axes=(0, None))(a, b))
print(jax.pmap(lambda p: p * 2.0, in_axes=1)(a))
print(jax.pmap(lambda p: p + 1.0, in_axes=1, out_axes=1)(a))
print(jax.pmap(lambda p: lax.psum(p, 'k'), axis_name='k', out_axes=None)(a))
""")
program("pmap_static_argument", """
a = jnp.arange(6.0).reshape(2, 3)
print(jax.pmap(lambda p, n: p ** n, static_broadcasted_argnums=1)(a, 3))
""")
program("pmap_pytrees", """
params = {'w': jnp.arange(8.0).reshape(4, 2), 'b': jnp.ones(4)}
out = jax.pmap(lambda p: (p['w'].sum() + p['b'], {'scaled': p['w'] * 3.0}))(params)
print(out[0])
print(out[1]['scaled'])
""")
program("pmap_integers", """
n = jnp.arange(8)
print(jax.pmap(lambda v: lax.psum(v * v, 'i') - v, axis_name='i')(n))
""")
program("pmap_four_of_eight", X8 + "print(jax.pmap(lambda v: lax.psum(v, 'i'), axis_name='i')(x[:4]))\n")
program("pmap_several_collectives", X8 + """
def f(v):
    centred = v - lax.pmean(v, 'i')
    spread = lax.psum(centred ** 2, 'i') / 8.0
    return centred / jnp.sqrt(spread + 1e-5), lax.pmax(jnp.abs(centred).max(), 'i')
print(jax.pmap(f, axis_name='i')(x))
""")
program("pmap_grad_through_psum", X8 + """
def loss(w, v):
    return lax.psum(jnp.sum(jnp.tanh(w * v)), 'i')
print(jax.pmap(jax.grad(loss), axis_name='i', in_axes=(None, 0))(jnp.array([0.5, -1.0, 2.0]), x))
""")
program("pmap_vmap_inside", X8 + """
f = jax.pmap(jax.vmap(lambda s: lax.psum(s, 'i') * s), axis_name='i')
print(f(x))
""")
program("pmap_jit_inside", X8 + """
@jax.jit
def normalise(v):
    return v / lax.psum(jnp.abs(v), 'i')
print(jax.pmap(lambda v: normalise(v) + 1.0, axis_name='i')(x))
""")
program("pmap_data_parallel_training", """
# Data-parallel SGD as JAX's pmap tutorials write it: parameters replicated on every device,
# each device's gradient from its own shard of the batch, averaged with pmean.
key = jax.random.PRNGKey(0)
kx, kw = jax.random.split(key)
xs = jax.random.normal(kx, (8, 16, 4))
true_w = jnp.array([[1.0], [-2.0], [0.5], [3.0]])
ys = xs @ true_w
params = {'w': jax.random.normal(kw, (4, 1)) * 0.1, 'b': jnp.zeros(1)}

def loss(p, x, y):
    return jnp.mean((x @ p['w'] + p['b'] - y) ** 2)

def update(p, x, y):
    l, g = jax.value_and_grad(loss)(p, x, y)
    g = lax.pmean(g, 'batch')
    return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), lax.pmean(l, 'batch')

step = jax.pmap(update, axis_name='batch')
replicated = jax.tree_util.tree_map(lambda a: jnp.stack([a] * 8), params)
for i in range(3):
    replicated, l = step(replicated, xs, ys)
    print(i, l)
print(replicated['w'][0].T)
""")
# shard_map over meshes of the 8 devices (hand-built meshes: Auto axes, as shard_map takes
# unsharded inputs), one axis and two.
MESH = """
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P, NamedSharding
mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
line = Mesh(np.array(jax.devices()), ('i',))
x = jnp.arange(32.0).reshape(8, 4) / 4.0
"""
program("sharding_objects", MESH + """
print(repr(mesh))
print(mesh.shape, mesh.axis_names, mesh.size, mesh.devices.shape)
print(P('x', None), P(), P(('x', 'y'),), len(P('x', None)), P('x', 'y')[1])
print(NamedSharding(mesh, P('x')).shard_shape((8, 4)))
print(repr(jax.make_mesh((2, 4), ('a', 'b'))))
""")
program("shard_map_one_axis", MESH + """
f = jax.shard_map(lambda a: a * 2.0 + lax.axis_index('i'), mesh=line, in_specs=P('i'), out_specs=P('i'))
print(f(jnp.arange(16.0)))
g = jax.shard_map(lambda a: lax.psum(a.sum(keepdims=True), 'i'), mesh=line, in_specs=P('i'), out_specs=P())
print(g(jnp.arange(16.0)))
""")
program("shard_map_two_axes", MESH + """
f = jax.shard_map(lambda a: a * lax.axis_index('x'), mesh=mesh, in_specs=P('x', None), out_specs=P('x', None))
print(f(x))
g = jax.shard_map(lambda a: lax.psum(a, 'y'), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', None))
print(g(x))
h = jax.shard_map(lambda a: lax.psum(a.sum(), ('x', 'y')), mesh=mesh, in_specs=P('x', 'y'), out_specs=P())
print(h(x))
k = jax.shard_map(lambda a: a.sum(keepdims=True), mesh=mesh, in_specs=P(('x', 'y')), out_specs=P(('x', 'y')))
print(k(jnp.arange(16.0)))
""")
program("shard_map_sharded_matmul", MESH + """
from functools import partial

# Megatron-style: the contracting axis split over 'y', partial products summed with psum.
@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', 'y'), P('y', None)), out_specs=P('x', None))
def matmul(a, b):
    return lax.psum(a @ b, 'y')

w = jnp.arange(24.0).reshape(4, 6) / 10.0
print(matmul(x, w))
print(x @ w)
""")
program("shard_map_collectives", MESH + """
ring = [(i, (i + 1) % 4) for i in range(4)]
f = jax.shard_map(lambda a: lax.ppermute(a, 'x', ring), mesh=mesh, in_specs=P('x', 'y'), out_specs=P('x', 'y'))
print(f(x))
g = jax.shard_map(lambda a: lax.all_gather(a, 'y', tiled=True, axis=1), mesh=mesh, in_specs=P('x', 'y'),
                  out_specs=P('x', None), check_vma=False)
print(g(x))
h = jax.shard_map(lambda a: lax.pmean(a, ('x', 'y')), mesh=mesh, in_specs=P('x', 'y'), out_specs=P(), check_vma=False)
print(h(x))
""")
program("shard_map_pytree_and_index", MESH + """
def f(p, a):
    return {'scaled': a * p['s'], 'where': lax.axis_index(('x', 'y')) + jnp.zeros(1, jnp.int32)}
out = jax.shard_map(f, mesh=mesh, in_specs=({'s': P()}, P(('x', 'y'))), out_specs={'scaled': P(('x', 'y')), 'where': P(('x', 'y'))})(
    {'s': jnp.float32(3.0)}, jnp.arange(8.0))
print(out['scaled'])
print(out['where'])
""")
program("shard_map_indivisible", MESH + """
jax.shard_map(lambda a: a, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(6.0))
""")
program("pmap_unbound_axis", X8 + "jax.pmap(lambda v: lax.psum(v, 'j'), axis_name='i')(x)\n")
program("pmap_inconsistent_sizes", "jax.pmap(lambda a, b: a + b)(jnp.ones((2, 3)), jnp.ones((4, 3)))\n")
program("psum_outside_pmap", "print(jax.vmap(lambda v: v)(jnp.ones(2)))\nlax.psum(jnp.ones(2), 'i')\n")

# jit of arrays placed on a mesh (device_put with a NamedSharding), with_sharding_constraint,
# shard_map inside jit, and what jax.debug.visualize_array_sharding draws. The first is JAX's
# docs page "Introduction to sharded computation" (docs/sharded-computation.md at
# jax-ml/jax@09fd345), its cells in order without the ones that print device objects (CPU
# devices here, TPU chips in the playground), up to where JAX 0.10 itself stops (the page's
# `create_device_mesh(8)` is a TypeError in 0.10).
program("jax_docs_sharded_computation", """
arr = jnp.arange(32.0).reshape(4, 8)
print(len(arr.devices()))
jax.debug.visualize_array_sharding(arr)
from jax.experimental import mesh_utils
P = jax.sharding.PartitionSpec
devices = mesh_utils.create_device_mesh((2, 4))
mesh = jax.sharding.Mesh(devices, ('x', 'y'))
sharding = jax.sharding.NamedSharding(mesh, P('x', 'y'))
print(sharding)
arr_sharded = jax.device_put(arr, sharding)
print(arr_sharded)
jax.debug.visualize_array_sharding(arr_sharded)
@jax.jit
def f_elementwise(x):
  return 2 * jnp.sin(x) + 1
result = f_elementwise(arr_sharded)
print("shardings match:", result.sharding == arr_sharded.sharding)
@jax.jit
def f_contract(x):
  return x.sum(axis=0)
result = f_contract(arr_sharded)
jax.debug.visualize_array_sharding(result)
print(result)
@jax.jit
def f_contract_2(x):
  out = x.sum(axis=0)
  devices = mesh_utils.create_device_mesh(8)
  mesh = jax.sharding.Mesh(devices, 'x')
  sharding = jax.sharding.NamedSharding(mesh, P('x'))
  return jax.lax.with_sharding_constraint(out, sharding)
result = f_contract_2(arr_sharded)
""")
SHARDED = """
import numpy as np
from functools import partial
from jax.sharding import Mesh, PartitionSpec as P, NamedSharding
line = Mesh(np.array(jax.devices()), ('x',))
grid = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
rng = np.random.default_rng(0)
"""
program("sharded_jit_layers", SHARDED + """
x = rng.normal(size=(32,))
weights = rng.normal(size=(32, 4))
bias = rng.normal(size=(4,))
@jax.jit
def layer(x, weights, bias):
  return jax.nn.sigmoid(x @ weights + bias)
print(layer(x, weights, bias))
sharding = NamedSharding(line, P('x'))
x_sharded = jax.device_put(x, sharding)
weights_sharded = jax.device_put(weights, sharding)
out = layer(x_sharded, weights_sharded, bias)
print(out, out.sharding)
@jax.jit
def layer_auto(x, weights, bias):
  x = jax.lax.with_sharding_constraint(x, sharding)
  weights = jax.lax.with_sharding_constraint(weights, sharding)
  return layer(x, weights, bias)
print(layer_auto(x, weights, bias))
@jax.jit
@partial(jax.shard_map, mesh=line, in_specs=(P('x'), P('x', None), P(None)), out_specs=P(None))
def layer_sharded(x, weights, bias):
  return jax.nn.sigmoid(jax.lax.psum(x @ weights, 'x') + bias)
print(layer_sharded(x, weights, bias))
""")
program("sharded_jit_on_a_grid", SHARDED + """
x = jnp.asarray(rng.normal(size=(16, 8)), jnp.float32)
w = jnp.asarray(rng.normal(size=(8, 6)), jnp.float32)
xs = jax.device_put(x, NamedSharding(grid, P('x', None)))
ws = jax.device_put(w, NamedSharding(grid, P(None, 'y')))
y = jax.jit(lambda a, b: jnp.tanh(a @ b))(xs, ws)
print(y)
print(y.sharding.spec)
jax.debug.visualize_array_sharding(y)
xk = jax.device_put(x, NamedSharding(grid, P(None, 'y')))
wk = jax.device_put(w, NamedSharding(grid, P('y', None)))
z = jax.jit(lambda a, b: a @ b)(xk, wk)
print(z)
t = jax.jit(lambda a: (a.T * 2.0).reshape(4, 32).sum(axis=1))(xs)
print(t)
m = jax.jit(lambda a: jnp.max(a, axis=0) - jnp.min(a, axis=0))(xs)
print(m)
print(jax.device_put(jnp.arange(8.0), NamedSharding(grid, P(('x', 'y')))).sharding.spec)
s = jax.jit(lambda a: jax.nn.softmax(a, axis=-1))(xs)
print(s[:2])
""")
program("sharded_jit_training_step", SHARDED + """
x = jnp.asarray(rng.normal(size=(32, 8)), jnp.float32)
t = jnp.asarray(rng.normal(size=(32, 2)), jnp.float32)
params = {'w': jnp.asarray(rng.normal(size=(8, 2)), jnp.float32) * 0.3, 'b': jnp.zeros(2)}
def loss(p, x, t):
  return jnp.mean((x @ p['w'] + p['b'] - t) ** 2)
@jax.jit
def step(p, x, t):
  l, g = jax.value_and_grad(loss)(p, x, t)
  return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), l
batch = NamedSharding(line, P('x', None))
xs, ts = jax.device_put(x, batch), jax.device_put(t, batch)
for i in range(3):
  params, l = step(params, xs, ts)
  print(i, l)
print(params['w'], params['b'])
""")
program("with_sharding_constraint_jaxprs", SHARDED + """
s = NamedSharding(line, P('x'))
def f(x):
  return jax.lax.with_sharding_constraint(x * 2, s) + 1
print(jax.make_jaxpr(f)(jnp.ones(8)))
print(jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 8))))
print(jax.jit(f)(jnp.arange(8.0)))
print(jax.jit(jax.grad(lambda x: f(x).sum()))(jnp.arange(8.0)))
""")
program("device_put_indivisible", SHARDED + """
jax.device_put(jnp.arange(6.0), NamedSharding(line, P('x')))
""")


def tpu_labels(output):
    """JAX's CPU devices draw as `CPU 3` in visualize_array_sharding; the playground's chips as
    `TPU 3`, as JAX draws them on a TPU host."""
    return re.sub(r"CPU (\d)", r"TPU \1", output)


if __name__ == "__main__":
    generate.write(PROGRAMS, os.path.join(generate.HERE, "slice_fixtures.json"), rewrite=tpu_labels)
