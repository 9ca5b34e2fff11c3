# jnp.zeros takes one shape, not two dimensions (the second would be the dtype).
import jax.numpy as jnp

print(jnp.zeros(2, 3))
