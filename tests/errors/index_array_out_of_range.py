# An array index past the end of its axis (JAX raises IndexError for a static index).
import jax.numpy as jnp

x = jnp.arange(5.0)
print(x[7])
