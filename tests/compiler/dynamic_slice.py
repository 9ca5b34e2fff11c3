# A window at a position computed at run time: the machine has no computed addresses, so the
# window is selected (positions compared with the clamped start, the match kept by a max over
# the axis), reading the whole operand; the update spreads its rows and selects them likewise.
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
