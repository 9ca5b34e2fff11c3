# Boolean-mask indexing of a traced array: its result's shape depends on the values, so jit
# cannot give it a shape up front; JAX's NonConcreteBooleanIndexError, with JAX's message
# (jnp.where works; outside jit the mask is concrete and indexing works, as in JAX).
import jax
import jax.numpy as jnp

print(jax.jit(lambda x: x[x > 2.0])(jnp.arange(5.0)))
