# lax.select does not broadcast: the predicate must have the operands' shape.
import jax.numpy as jnp
from jax import lax

x = jnp.ones((2, 3))
print(lax.select(jnp.array([True, False, True]), x, x))
