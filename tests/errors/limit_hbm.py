# A jitted outer product of two 70000-vectors: its 70000 x 70000 float32 result is 18.3 GiB,
# more than the emulated v5e's 16 GiB of HBM. The program is refused before anything runs.
import jax
import jax.numpy as jnp

@jax.jit
def outer(x):
    return x[:, None] * x[None, :]

print(outer(jnp.ones(70000)).shape)
