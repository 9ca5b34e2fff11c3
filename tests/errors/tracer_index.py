# Indexing with a traced integer (dynamic indexing is not supported yet).
import jax
import jax.numpy as jnp

@jax.jit
def pick(x, i):
    return x[i]

print(pick(jnp.arange(5.0), jnp.array(2)))
