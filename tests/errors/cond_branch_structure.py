# A cond's branches must return the same pytree structure.
import jax
from jax import lax


def grow(x):
    return x, x


def keep(x):
    return x


print(jax.jit(lambda p, x: lax.cond(p, grow, keep, x))(True, 1.0))
