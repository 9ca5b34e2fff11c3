# Source: https://github.com/probml/probml-notebooks/blob/4c0da5e918930e02de5f3e78278c90efe5688b66/notebooks/logspace_jax.ipynb
# License: MIT
# Changed: notebook converted to a script (code cells concatenated in order)

import jax.numpy as jnp
from jax import random
from jax import jit

mm = jit(jnp.matmul)
mv = jit(jnp.multiply)

@jit
def log_mv(log_A, log_b):
  Amax = jnp.max(log_A, axis=(-1, -2), keepdims=True)
  bmax = jnp.max(log_b, axis=(-1), keepdims=True)
  return jnp.squeeze(Amax, axis=-1) + bmax + jnp.log(mv(jnp.exp(log_A - Amax), jnp.exp(log_b - bmax)))

@jit
def semilog_mv(A, log_b):
  bmax = jnp.max(log_b, axis=(-1), keepdims=True)
  return bmax + jnp.log(mv(A, jnp.exp(log_b - bmax)))

@jit
def log_mm(log_A, log_B):
  Amax = jnp.max(log_A, axis=(-1, -2), keepdims=True)
  Bmax = jnp.max(log_B, axis=(-1, -2), keepdims=True)
  return Amax + Bmax + jnp.log(mm(jnp.exp(log_A - Amax), jnp.exp(log_B - Bmax))) 

@jit
def log_normalize(log_p):
  pmax = jnp.max(log_p, axis=(-1), keepdims=True)
  temp = jnp.exp(log_p-pmax)
  return jnp.log(temp/jnp.sum(temp, axis=-1, keepdims=True))

print('Test utility functions:')
key = random.PRNGKey(5)

key, subkey1 = random.split(key)
key, subkey2 = random.split(key)

A= random.uniform(subkey1, shape=[4,4])
B= random.uniform(subkey2, shape=[4,4])
log_A = jnp.log(A)
log_B = jnp.log(B)
r1 = mm(A, B)
r2 = jnp.exp(log_mm(log_A, log_B))
assert jnp.allclose(r1, r2)
print(r1)
del subkey1, subkey2

key, subkey1 = random.split(key)

b = random.uniform(subkey1, shape=[4])
log_b = jnp.log(b)
r1 = mv(A, b)
r2 = jnp.exp(log_mv(log_A, log_b))
r3 = jnp.exp(semilog_mv(A, log_b))
assert jnp.allclose(r1, r2)
assert jnp.allclose(r1, r3)
print(r1)

r1 = b / jnp.sum(b, keepdims=True)
r2 = jnp.exp(log_normalize(log_b))
assert jnp.allclose(r1, r2)
print(r1)
del subkey1
