# transpose with too few axes.
import jax.numpy as jnp

x = jnp.ones((2, 3, 4))
print(x.transpose(1, 0).shape)
