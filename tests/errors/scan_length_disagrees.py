# `length` must agree with the leading axis of every xs, as JAX checks it.
import jax.numpy as jnp
from jax import lax

print(lax.scan(lambda c, x: (c + x, x), 0.0, jnp.ones(3), length=4))
