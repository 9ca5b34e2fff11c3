# Data parallelism over a slice: pmap and pmean
#
# The MLP of the training example, trained data-parallel as JAX's pmap tutorials do it: every
# device holds the same parameters and its own shard of the batch, computes its gradients, and
# lax.pmean averages them over the devices before the update. Choose a slice in the Machine menu
# (v5e-8: eight chips as 2x4) and run it: the Slice panel shows each chip's compute, the links
# the all-reduces used and one step's timeline. The gradients' pmean is one all-reduce of all
# four leaves (XLA combines them), 34 KB: far below what the links move in a microsecond, so it
# costs its hops, about 1 µs each, twice over (reduce, then gather) on the 2x4 grid without
# wraparound. The loss's own pmean is ready after the forward pass, so it runs on the links while
# the chips compute the backward pass (the two lanes overlap there); the update must wait for the
# gradients, so their all-reduce is exposed. On one chip (v5e) the same script maps over the one
# device and the collectives cost nothing: eight chips train on eight times the data for the
# exposed all-reduce's extra microseconds per step.

import jax
import jax.numpy as jnp
from jax import lax

n = jax.device_count()
per_device = 32


def uniform(shape, seed, scale):
    m = shape[0] * shape[1]
    return scale * jnp.sin(jnp.arange(m * 1.0).reshape(shape) * 0.7 + seed)


params = {
    "w1": uniform((64, 128), 1.0, 0.2),
    "b1": jnp.zeros(128),
    "w2": uniform((128, 1), 2.0, 0.1),
    "b2": jnp.zeros(1),
}
x = jnp.cos(jnp.arange(n * per_device * 64.0).reshape(n, per_device, 64) * 0.37)
y = jnp.sin(x.sum(axis=2, keepdims=True))


def loss(p, x, y):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return jnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


def train_step(p, x, y):
    value, grads = jax.value_and_grad(loss)(p, x, y)
    grads = lax.pmean(grads, "devices")
    p = jax.tree_util.tree_map(lambda w, g: w - 0.1 * g, p, grads)
    return p, lax.pmean(value, "devices")


step = jax.pmap(train_step, axis_name="devices")
replicated = jax.tree_util.tree_map(lambda w: jnp.stack([w] * n), params)
for i in range(5):
    replicated, value = step(replicated, x, y)
    print(f"step {i}: loss {float(value[0]):.5f} on {n} device{'s' if n > 1 else ''}")
