# jax.debug.print inside jacfwd: no place to run it (it runs under jit, grad, jvp and vmap).
import jax
import jax.numpy as jnp

def f(x):
    jax.debug.print("x = {}", x)
    return jnp.sin(x)

print(jax.jacfwd(f)(jnp.ones(2)))
