# The spectral norm of a matrix needs a singular value decomposition, which the playground
# does not have: refused, saying why.
import jax.numpy as jnp

x = jnp.ones((3, 3))
print(jnp.linalg.norm(x, 2))
