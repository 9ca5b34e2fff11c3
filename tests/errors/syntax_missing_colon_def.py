# `def` without its colon.
import jax.numpy as jnp

def f(x)
    return jnp.sin(x)

print(f(1.0))
