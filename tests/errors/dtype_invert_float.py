# `~` on floats.
import jax.numpy as jnp

x = jnp.ones(3)
print(~x)
