# A shift whose int32 result lies beyond ±2^24: valid JAX, but the emulated TPU holds integers
# as float32 words, exact only within ±2^24, and says so rather than print a rounded value.
import jax
import jax.numpy as jnp

flags = jnp.array([5, 3, 8])
print(jax.jit(lambda f: f << 30)(flags))
