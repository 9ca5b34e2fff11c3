# An attribute arrays do not have (NumPy's `.numpy()` comes from PyTorch).
import jax.numpy as jnp

x = jnp.ones((2, 2))
print(x.numpy())
