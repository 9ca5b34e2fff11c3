# transpose with axes that are not a permutation of (0, 1, 2).
import jax.numpy as jnp

x = jnp.ones((2, 3, 4))
print(jnp.transpose(x, (0, 1, 1)).shape)
