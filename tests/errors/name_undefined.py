# A name used before it was ever assigned (a typo of `weights`).
import jax.numpy as jnp

weights = jnp.ones((3, 3))
print(weigths @ jnp.ones(3))
