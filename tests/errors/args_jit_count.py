# A jitted function called with too few arguments.
import jax
import jax.numpy as jnp

@jax.jit
def f(x, y):
    return x + y

print(f(jnp.ones(2)))
