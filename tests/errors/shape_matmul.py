# Matrix product with inner dimensions 4 and 3.
import jax.numpy as jnp

a = jnp.ones((2, 4))
b = jnp.ones((3, 5))
c = a @ b
