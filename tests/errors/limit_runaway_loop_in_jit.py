# A loop that never ends while tracing a jitted function.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    n = 0
    while n >= 0:
        n = n + 1
    return x

print(f(jnp.ones(2)))
