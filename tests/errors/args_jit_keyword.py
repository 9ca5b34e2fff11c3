# A misspelled keyword argument to a jitted function: Python's error, at the call.
import jax
import jax.numpy as jnp

@jax.jit
def f(x, scale):
    return x * scale

print(f(jnp.ones(2), scal=3.0))
