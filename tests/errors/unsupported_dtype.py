# float64 (JAX's x64 mode) is not one of the playground's dtypes.
import jax.numpy as jnp

x = jnp.ones(3, dtype=jnp.float64)
