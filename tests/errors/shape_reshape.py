# reshape to a shape with a different number of elements (12 vs 10).
import jax.numpy as jnp

x = jnp.arange(12.0)
y = x.reshape(2, 5)
