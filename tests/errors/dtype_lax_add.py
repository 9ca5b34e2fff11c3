# lax ops do not promote: float32 + int32 is an error (jnp.add would promote).
import jax.numpy as jnp
from jax import lax

print(lax.add(jnp.ones(3), jnp.arange(3)))
