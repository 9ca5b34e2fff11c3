# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/new_docs/101/arrays.md (draft of the new JAX docs: arrays)
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(); IPython magic (%xmode) dropped; 1 cell that the page marks raises-exception (`jnp.sum([1, 2, 3])`) dropped; the raising last statement of 2 other such cells (`x[0] = 10`, `lax.add(1, 1.0)`) dropped, the rest of those cells kept)
# Ignore lines matching: (Cpu|Tpu)Device

import jax
import jax.numpy as jnp
import numpy as np

x = jnp.arange(9.0).reshape(3, 3)
y = jnp.ones(3)

print(x @ y)
print(x.sum(axis=0))
print(x[1, :2])

print(isinstance(x, jax.Array))

print(jax.typeof(x))

x_np = np.arange(10)
x_np[0] = 10
print(x_np)

x = jnp.arange(10)

y = x.at[0].set(10)
print(x)  # unchanged
print(y)

print(x.at[3].add(100))
print(x.at[:3].max(5))

print(np.array([1.0, 2.0]).dtype)
print(jnp.array([1.0, 2.0]).dtype)

print((jnp.arange(3) + 1.5).dtype)

x = jnp.arange(10)
print(x[11])  # clamped to x[9]

print(x.at[11].set(99))  # update is dropped

print(jnp.sum(jnp.array([1, 2, 3])))

print(x.sharding)

print(jnp.add(1, 1.0))

from jax import lax
