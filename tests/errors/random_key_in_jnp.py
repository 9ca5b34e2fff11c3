# A PRNG key used as an array: its uint32 words, which the compiler only moves and mixes as Threefry does.
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
print(jnp.sum(key))
