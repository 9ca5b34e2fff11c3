# A reduction over axis -3 of a matrix, inside jit.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return x.mean(axis=-3)

print(f(jnp.ones((2, 3))))
