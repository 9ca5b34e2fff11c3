# jnp.meshgrid takes 1-D coordinate arrays, as in JAX.
import jax.numpy as jnp

gx, gy = jnp.meshgrid(jnp.arange(3.0), jnp.ones((2, 2)))
