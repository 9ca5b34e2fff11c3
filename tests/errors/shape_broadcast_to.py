# broadcast_to a shape the array cannot broadcast to.
import jax.numpy as jnp

print(jnp.broadcast_to(jnp.ones(3), (2, 4)))
