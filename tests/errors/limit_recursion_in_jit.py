# Recursion while tracing a jitted function.
import jax
import jax.numpy as jnp

def g(x, n):
    return g(x * 2, n + 1)

f = jax.jit(lambda x: g(x, 0))
print(f(jnp.ones(2)))
