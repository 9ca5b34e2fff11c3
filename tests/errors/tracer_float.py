# float() of a traced value inside jit.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    scale = float(x.sum())
    return x * scale

print(f(jnp.ones(3)))
