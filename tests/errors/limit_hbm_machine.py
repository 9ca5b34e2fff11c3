# The same on a v1, whose 8 GiB of HBM cannot hold a 50000 x 50000 float32 result (9.3 GiB).
# tpu-args: --machine v1
import jax
import jax.numpy as jnp

@jax.jit
def outer(x):
    return x[:, None] * x[None, :]

print(outer(jnp.ones(50000)).shape)
