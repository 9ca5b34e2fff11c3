# Batched matmul with batch dimensions 2 and 3.
import jax.numpy as jnp

a = jnp.ones((2, 4, 5))
b = jnp.ones((3, 5, 6))
print(jnp.matmul(a, b).shape)
