# The rule's tangent has another shape than the function's output.
import jax
import jax.numpy as jnp


@jax.custom_jvp
def f(x):
    return jnp.sin(x)


@f.defjvp
def f_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return f(x), (jnp.cos(x) * t).sum()


print(jax.grad(lambda v: f(v).sum())(jnp.ones(3)))
