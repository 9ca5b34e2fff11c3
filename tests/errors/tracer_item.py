# .item() of a traced value inside jit.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
    return x.sum().item()

print(f(jnp.ones(3)))
