# einsum: the spec names three axes for a matrix.
import jax.numpy as jnp

a = jnp.ones((3, 4))
print(jnp.einsum("ijk->i", a))
