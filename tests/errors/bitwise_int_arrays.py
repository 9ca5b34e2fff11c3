# Bitwise operators on int32 arrays are valid JAX, but the emulated TPU holds integers as
# float32 words, so the playground has no bitwise instructions yet; on masks they work.
import jax.numpy as jnp

flags = jnp.array([5, 3, 8])
print(flags & 1)
