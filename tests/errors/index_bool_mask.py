# Integer-array (gather) indexing is not supported yet.
import jax.numpy as jnp

x = jnp.arange(5.0)
print(x[jnp.array([0, 2])])
