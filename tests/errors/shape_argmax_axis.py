# argmax over an axis that does not exist.
import jax.numpy as jnp

print(jnp.argmax(jnp.ones((2, 3)), axis=5))
