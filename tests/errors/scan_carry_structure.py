# The body must give back the carry's structure; a pair where one array went in is JAX's TypeError.
import jax.numpy as jnp
from jax import lax

print(lax.scan(lambda c, x: ((c, c), x), jnp.float32(1.0), jnp.ones(3)))
