# A fori_loop whose upper bound is a jit argument cannot be unrolled while tracing.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def doublings(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * 2.0, x)


print(doublings(jnp.ones(3), 4))
