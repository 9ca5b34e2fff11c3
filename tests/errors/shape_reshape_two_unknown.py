# reshape with two -1 dimensions.
import jax.numpy as jnp

x = jnp.arange(12.0)
y = jnp.reshape(x, (-1, -1))
