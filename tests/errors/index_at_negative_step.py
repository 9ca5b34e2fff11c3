# An .at[] update with a negative step is refused with the index, not silently misplaced.
import jax.numpy as jnp

x = jnp.zeros(6)
y = x.at[::-2].set(1.0)
