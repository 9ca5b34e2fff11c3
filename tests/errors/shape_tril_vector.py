# tril needs a matrix (or a stack of them); JAX refuses a vector too.
import jax.numpy as jnp

print(jnp.tril(jnp.arange(3.0)))
