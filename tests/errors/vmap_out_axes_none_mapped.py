# out_axes=None on an output that depends on the mapped input.
import jax
import jax.numpy as jnp

print(jax.vmap(lambda x: x * 2.0, out_axes=None)(jnp.ones(3)))
