# Boolean-mask indexing: its result's shape depends on the values, so neither jit nor the
# playground can give it a shape up front (JAX refuses it under jit too); jnp.where works.
import jax.numpy as jnp

x = jnp.arange(5.0)
print(x[x > 2.0])
