# squeeze of an axis whose size is not 1.
import jax.numpy as jnp

print(jnp.squeeze(jnp.ones((1, 3)), axis=1))
