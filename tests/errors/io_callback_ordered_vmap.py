# An ordered io_callback cannot be batched.
import jax
import jax.numpy as jnp
from jax.experimental import io_callback

print(jax.vmap(lambda x: io_callback(lambda x: x, x, x, ordered=True))(jnp.ones(2)))
