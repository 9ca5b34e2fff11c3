# A float used as an index.
import jax.numpy as jnp

x = jnp.ones(4)
print(x[1.5])
