# An int32 array with a value beyond 2^24 given to a jitted program: the emulated TPU carries
# integers in float32 words, which hold every integer only up to 2^24.
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: x + 1)
print(f(jnp.array([1, 2, 3])))
print(f(jnp.array([1, 20000000])))
