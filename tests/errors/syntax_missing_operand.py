# A binary operator with nothing after it.
import jax.numpy as jnp
x = jnp.ones(3) *
print(x)
