# A matmul precision JAX does not have.
import jax.numpy as jnp

a = jnp.ones((2, 2))
print(jnp.matmul(a, a, precision="extreme"))
