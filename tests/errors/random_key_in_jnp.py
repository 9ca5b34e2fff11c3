# A PRNG key used as an array.
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
print(jnp.sum(key))
