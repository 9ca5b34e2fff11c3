# Both branches of a cond must give outputs of the same types: JAX names the branches, where
# each is defined, and which output differs how.
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def pick(p, x):
    return lax.cond(p, lambda x: (x, jnp.sum(x)), lambda x: (x, x), x)


print(pick(True, jnp.ones(3)))
