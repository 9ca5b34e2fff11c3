# A cond's predicate is one boolean; an array of them would pick a branch per element, which
# is jnp.where, not cond.
import jax.numpy as jnp
from jax import lax

x = jnp.array([1.0, -2.0])
print(lax.cond(x > 0, lambda v: v, lambda v: -v, x))
