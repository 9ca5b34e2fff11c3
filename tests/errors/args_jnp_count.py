# jnp.zeros takes one shape, not two dimensions.
import jax.numpy as jnp

print(jnp.zeros(2, 3))
