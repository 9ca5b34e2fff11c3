# Calling something that is not a function.
import jax.numpy as jnp

x = jnp.ones(3)
print(x.shape(0))
