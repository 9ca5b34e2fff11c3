# The truth value of an array with more than one element, outside jit.
import jax.numpy as jnp

x = jnp.array([1.0, -1.0])
if x > 0:
    print("positive")
