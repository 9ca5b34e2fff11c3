# Forward mode has no rule for a custom_vjp function (JAX's error).
import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return jnp.sin(x)


f.defvjp(lambda x: (f(x), jnp.cos(x)), lambda cos_x, g: (g * cos_x,))
print(jax.jvp(f, (1.0,), (1.0,)))
