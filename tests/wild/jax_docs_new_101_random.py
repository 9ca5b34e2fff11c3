# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/new_docs/101/random.md (draft of the new JAX docs: pseudorandom numbers)
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order; a cell's displayed last expression wrapped in print())

import numpy as np

np.random.seed(0)
print(np.random.uniform())
print(np.random.uniform())  # different: the hidden state advanced

np.random.seed(0)

def bar(): return np.random.uniform()
def baz(): return np.random.uniform()

def foo(): return bar() + 2 * baz()

print(foo())

import jax
from jax import random

key = random.key(42)
print(key)

print(jax.typeof(key))

print(random.normal(key))
print(random.normal(key))  # same key, same value — necessarily

key = random.key(42)
key, subkey = random.split(key)
print(random.normal(subkey))

key = random.key(42)
subkeys = random.split(key, num=4)
print([float(random.normal(k)) for k in subkeys])

key = random.key(42)
for step in range(3):
  step_key = random.fold_in(key, step)
  print(f"step {step}: {random.normal(step_key)}")

key = random.key(42)
subkeys = random.split(key, 3)
print("individually:", np.stack([random.normal(k) for k in subkeys]))

key = random.key(42)
print("all at once: ", random.normal(key, shape=(3,)))

import jax
print(jax.vmap(random.normal)(subkeys))
