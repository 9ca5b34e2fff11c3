# An outer product of two 50000-vectors outside jit: 9.3 GiB fits the v5e's 16 GiB of HBM,
# but not what the playground can emulate on an ordinary computer, so it is refused before
# anything is allocated.
import jax.numpy as jnp

x = jnp.ones(50000)
print((x[:, None] * x[None, :]).shape)
