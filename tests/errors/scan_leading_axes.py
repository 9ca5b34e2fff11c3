# Every leaf of xs must have the same leading axis: it is the number of steps.
import jax.numpy as jnp
from jax import lax

print(lax.scan(lambda c, x: (c + x[0] + x[1], c), 0.0, (jnp.ones(3), jnp.ones(4))))
