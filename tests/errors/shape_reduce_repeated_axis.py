# The same axis named twice in a reduction.
import jax.numpy as jnp

x = jnp.ones((2, 3))
print(jnp.sum(x, axis=(0, -2)))
