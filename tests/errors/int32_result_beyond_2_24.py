# An int32 computation whose result leaves the exact range of the emulated TPU's words.
import jax
import jax.numpy as jnp

f = jax.jit(lambda x: x * x)
print(f(jnp.array([1000, 5000])))
