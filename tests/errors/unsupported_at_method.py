# x.at[...] supports set, add, multiply and get; other updates name what is there.
import jax.numpy as jnp

x = jnp.zeros(4)
y = x.at[1].max(5.0)
