# A dtype given as a string.
import jax.numpy as jnp

x = jnp.zeros((2, 2), dtype="int8")
