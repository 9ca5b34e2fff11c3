# A pure_callback whose function returns another shape than it declared: JAX's runtime error,
# naming the result and both shapes, at the call of the jitted function.
import jax
import jax.numpy as jnp
import numpy as np

def host_fn(x):
    return np.ones(3, np.float32)

f = jax.jit(lambda x: jax.pure_callback(host_fn, jax.ShapeDtypeStruct((2,), jnp.float32), x))
print(f(1.0))
