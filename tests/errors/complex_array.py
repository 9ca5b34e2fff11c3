# Complex numbers are Python scalars only: an array of them has no dtype on the emulated TPU.
import jax.numpy as jnp

z = (1 + 2j) * 1j
print(z, abs(z))
print(jnp.array([z, 1.0]))
