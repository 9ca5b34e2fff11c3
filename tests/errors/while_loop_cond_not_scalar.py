# A while_loop's condition must be one boolean; a vector of them is JAX's TypeError.
import jax.numpy as jnp
from jax import lax

print(lax.while_loop(lambda x: x < 3.0, lambda x: x + 1.0, jnp.zeros(2)))
