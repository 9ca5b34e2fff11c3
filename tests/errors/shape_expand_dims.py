# expand_dims beyond the new rank.
import jax.numpy as jnp

print(jnp.expand_dims(jnp.ones((2, 3)), 4).shape)
