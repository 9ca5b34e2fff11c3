# A cotangent with another shape than its argument.
import jax
import jax.numpy as jnp


@jax.custom_vjp
def f(x):
    return jnp.sum(x**2)


f.defvjp(lambda x: (f(x), x), lambda x, g: (g * 2.0 * x.sum(),))
print(jax.grad(f)(jnp.ones(3)))
