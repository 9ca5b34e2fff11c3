# An arange of a trillion elements.
import jax.numpy as jnp

x = jnp.arange(0.0, 1e12, 1.0)
