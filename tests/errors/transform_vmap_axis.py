# vmap over an axis the argument does not have.
import jax
import jax.numpy as jnp

f = jax.vmap(jnp.sum, in_axes=2)
print(f(jnp.ones((2, 3))))
