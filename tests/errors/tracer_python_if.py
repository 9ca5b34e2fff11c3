# Python `if` on a traced value inside jit: the value is not known while tracing.
import jax
import jax.numpy as jnp

@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0

print(relu(jnp.array(2.0)))
