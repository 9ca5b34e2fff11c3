# Three indices for a matrix.
import jax.numpy as jnp

x = jnp.ones((2, 3))
print(x[0, 1, 2])
