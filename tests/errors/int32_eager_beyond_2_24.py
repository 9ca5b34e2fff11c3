# Outside jit, int32 arithmetic runs op by op on the emulated TPU too.
import jax.numpy as jnp

x = jnp.array([4096, 8192])
print(x * 4096)
