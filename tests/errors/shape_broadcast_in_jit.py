# The same mismatch inside a jitted function: the error points at the operator in the function
# body and names the function being traced.
import jax
import jax.numpy as jnp

@jax.jit
def layer(x, b):
    return jnp.tanh(x * b)

print(layer(jnp.ones((2, 5)), jnp.ones((2, 3))))
