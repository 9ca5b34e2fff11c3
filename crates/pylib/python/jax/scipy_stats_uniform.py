"""jax.scipy.stats.uniform: the uniform distribution on [loc, loc + scale]."""

import jax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    x = jnp.asarray(x, dtype=float)
    inside = (x >= loc) & (x <= loc + scale)
    return jnp.where(inside, -jnp.log(scale * jnp.ones_like(x)), -jnp.inf)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    return jnp.clip((jnp.asarray(x, dtype=float) - loc) / scale, 0, 1)
