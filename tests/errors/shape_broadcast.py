# Elementwise ops broadcast like NumPy: (3, 4) and (3,) do not broadcast (trailing 4 vs 3).
import jax.numpy as jnp

x = jnp.ones((3, 4))
b = jnp.ones(3)
print(x + b)
