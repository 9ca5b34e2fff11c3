# A slice whose bounds are traced values: its length would depend on the values, which JAX
# refuses too (jax.lax.dynamic_slice takes a static size).
import jax
import jax.numpy as jnp

@jax.jit
def window(x, i):
    return x[i:i + 2]

print(window(jnp.arange(5.0), 1))
