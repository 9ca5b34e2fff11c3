# A while loop whose condition is traced.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    while x < 10:
        x = x * 2
    return x

print(f(jnp.array(1.0)))
