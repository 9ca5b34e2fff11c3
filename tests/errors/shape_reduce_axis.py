# A reduction over axis 2 of a matrix.
import jax.numpy as jnp

x = jnp.ones((2, 3))
print(jnp.sum(x, axis=2))
