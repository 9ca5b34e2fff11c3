# A traced value used as a Python int (the length of a range).
import jax
import jax.numpy as jnp

@jax.jit
def f(x, n):
    total = 0.0
    for i in range(n):
        total = total + x
    return total

print(f(1.0, jnp.array(3)))
