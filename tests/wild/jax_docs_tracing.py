# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/tracing.md (Tracing)
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print(), except `f(x)` of the jitted function that returns None; the raising last statement of the 2 cells the page marks raises-exception (`f(1, True)`, `f(x)`) dropped, the rest of those cells kept); `np.random.seed(0)` added after the first `import numpy as np`, since the page draws its inputs from the unseeded global NumPy random state

from jax import jit
import jax.numpy as jnp
import numpy as np
np.random.seed(0)

@jit
def f(x, y):
  print("Running f():")
  print(f"  x = {x}")
  print(f"  y = {y}")
  result = jnp.dot(x + 1, y + 1)
  print(f"  result = {result}")
  return result

x = np.random.randn(3, 4)
y = np.random.randn(4)
print(f(x, y))

x2 = np.random.randn(3, 4)
y2 = np.random.randn(4)
print(f(x2, y2))

from jax import make_jaxpr

def f(x, y):
  return jnp.dot(x + 1, y + 1)

print(make_jaxpr(f)(x, y))

# !!! RAISING CELL, last stmt dropped: f(1, True)
@jit
def f(x, neg):
  return -x if neg else x

from functools import partial

@jit(static_argnums=(1,))
def f(x, neg):
  return -x if neg else x

print(f(1, True))

print(f(1, False))

# !!! RAISING CELL, last stmt dropped: f(x)
import jax.numpy as jnp
from jax import jit

@jit
def f(x):
  return x.reshape(jnp.array(x.shape).prod())

x = jnp.ones((2, 3))

@jit
def f(x):
  print(f"x = {x}")
  print(f"x.shape = {x.shape}")
  print(f"jnp.array(x.shape).prod() = {jnp.array(x.shape).prod()}")
  # comment this out to avoid the error:
  # return x.reshape(jnp.array(x.shape).prod())

f(x)

from jax import jit
import jax.numpy as jnp
import numpy as np

@jit
def f(x):
  return x.reshape((np.prod(x.shape),))

print(f(x))

def divide(x, y):
  return x / y if y >= 1. else 0.
