# stack needs arrays of one shape.
import jax.numpy as jnp

print(jnp.stack([jnp.ones(3), jnp.ones(4)]))
