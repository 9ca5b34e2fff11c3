# A scan body must return (carry, y); returning the carry alone is an error naming what came back.
import jax
import jax.numpy as jnp


def step(c, x):
    return c + x


total, _ = jax.lax.scan(step, 0.0, jnp.arange(4.0))
