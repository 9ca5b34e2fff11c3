# A window at a position computed at run time: the scalar unit loads the start, clamps it so
# the window fits (as XLA does), and a DMA at the address it computes (`hbm[BASE+1*s4]`) moves
# just the window. `x.at[i].set(v)` is JAX's scatter: the window at the index is read, replaced
# by the update (kept where the index is out of range, which drops the update) and written back.
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def window(x, i):
    return lax.dynamic_slice(x, (i, 0), (2, 8))

@jax.jit
def update(x, i, v):
    return x.at[i].set(v)

x = jnp.arange(64.0).reshape(8, 8)
print(window(x, 3))
print(update(x, 5, jnp.ones(8)))
