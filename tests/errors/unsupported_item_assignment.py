# JAX arrays are immutable, as in JAX.
import jax.numpy as jnp

x = jnp.zeros(4)
x[1] = 5.0
