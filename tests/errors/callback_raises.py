# The callback's own exception, wrapped as JAX's runtime wraps it.
import jax
import jax.numpy as jnp

def check(x):
    if x < 0:
        raise ValueError("negative input")
    return x

f = jax.jit(lambda x: jax.pure_callback(check, jax.ShapeDtypeStruct((), jnp.float32), x))
print(f(1.0))
print(f(-1.0))
