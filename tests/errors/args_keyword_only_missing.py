# A keyword-only parameter left out.
import jax.numpy as jnp

def loss(w, *, l2):
    return jnp.sum(w * w) * l2

print(loss(jnp.ones(3)))
