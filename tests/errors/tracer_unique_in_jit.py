# jnp.unique of a traced array: its result has a shape set by the values, so under jit it
# is an error that says why and what to do.
import jax
import jax.numpy as jnp
print(jax.jit(lambda v: jnp.unique(v))(jnp.arange(3)))
