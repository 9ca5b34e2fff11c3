# The same inside jit, on the second axis.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return x[0, 4]

print(f(jnp.ones((2, 3))))
