# jax.random.choice with probabilities of the wrong length: JAX's message, with the place.
import jax
import jax.numpy as jnp
key = jax.random.PRNGKey(0)
print(jax.random.choice(key, 5, (2,), p=jnp.array([0.5, 0.5])))
