# jnp.linalg has norm, solve, inv, det, slogdet, cholesky and matrix_power: the rest is named
# as not supported yet.
import jax.numpy as jnp

x = jnp.eye(3)
print(jnp.linalg.eigh(x))
