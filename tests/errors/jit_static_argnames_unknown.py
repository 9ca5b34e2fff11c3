# static_argnames naming a parameter the function does not have: JAX's error, at the decorator.
import jax
from functools import partial

@partial(jax.jit, static_argnames=("training",))
def layer(x, train=False):
    return x
