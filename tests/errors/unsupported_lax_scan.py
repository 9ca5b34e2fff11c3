# jax.lax.scan is not there yet.
import jax
import jax.numpy as jnp

def step(carry, x):
    return carry + x, carry

total, _ = jax.lax.scan(step, 0.0, jnp.arange(4.0))
