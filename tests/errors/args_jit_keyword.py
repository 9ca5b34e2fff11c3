# Keyword arguments to a jitted function: pass them positionally.
import jax
import jax.numpy as jnp

@jax.jit
def f(x, scale):
    return x * scale

print(f(jnp.ones(2), scale=3.0))
