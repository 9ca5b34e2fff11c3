# A positional argument after a keyword argument.
import jax.numpy as jnp
x = jnp.sum(jnp.ones((2, 2)), axis=0, 1)
