# Source: https://github.com/jax-ml/jax/blob/cec06d116c05f0d52adfceee3d3b730fdbcb0ce5/docs/random-numbers.md
# License: Apache-2.0
# Changed: notebook page converted to a script (code cells concatenated in order)

import numpy as np
np.random.seed(0)

print(np.random.random())
print(np.random.random())
print(np.random.random())

def print_truncated_random_state():
  """To avoid spamming the outputs, print only part of the state."""
  full_random_state = np.random.get_state()
  print(str(full_random_state)[:460], '...')

print_truncated_random_state()

np.random.seed(0)
print_truncated_random_state()

_ = np.random.uniform()
print_truncated_random_state()

np.random.seed(0)
print(np.random.uniform(size=3))

np.random.seed(0)
print("individually:", np.stack([np.random.uniform() for _ in range(3)]))

np.random.seed(0)
print("all at once: ", np.random.uniform(size=3))

import numpy as np

np.random.seed(0)

def bar(): return np.random.uniform()
def baz(): return np.random.uniform()

def foo(): return bar() + 2 * baz()

print(foo())

from jax import random

key = random.key(42)
print(key)

print(random.normal(key))
print(random.normal(key))

for i in range(3):
  new_key, subkey = random.split(key)
  del key  # The old key is consumed by split() -- we must never use it again.

  val = random.normal(subkey)
  del subkey  # The subkey is consumed by normal().

  print(f"draw {i}: {val}")
  key = new_key  # new_key is safe to use in the next iteration.

key, subkey = random.split(key)

key, *forty_two_subkeys = random.split(key, num=43)

key = random.key(42)
subkeys = random.split(key, 3)
sequence = np.stack([random.normal(subkey) for subkey in subkeys])
print("individually:", sequence)

key = random.key(42)
print("all at once: ", random.normal(key, shape=(3,)))

import jax
print("vectorized:", jax.vmap(random.normal)(subkeys))
