# A PRNG key passed into a jitted function.
import jax
import jax.numpy as jnp

@jax.jit
def noisy(key, x):
    return x + jax.random.normal(key, x.shape)

key = jax.random.PRNGKey(0)
print(noisy(key, jnp.zeros(3)))
