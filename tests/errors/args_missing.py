# A user function called without its required arguments.
import jax.numpy as jnp

def loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)

print(loss(jnp.ones(3)))
