# A custom_vjp function differentiated before defvjp gave it its passes.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return jnp.sin(x)


print(jax.grad(f)(1.0))
