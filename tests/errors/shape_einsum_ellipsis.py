# einsum: the batch axes under '...' (2 and 5) do not broadcast.
import jax.numpy as jnp

q = jnp.ones((2, 3, 4))
k = jnp.ones((5, 4, 6))
print(jnp.einsum("...ij,...jk->...ik", q, k))
