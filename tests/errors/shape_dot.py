# jnp.dot of vectors of different lengths.
import jax.numpy as jnp

print(jnp.dot(jnp.ones(3), jnp.ones(4)))
