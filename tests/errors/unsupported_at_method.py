# x.at[...] supports set, add, multiply, min, max and get; other updates name what is there.
import jax.numpy as jnp

x = jnp.zeros(4)
y = x.at[1].power(5.0)
