"""jax.scipy.stats.expon: the exponential distribution."""

import jax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    z = (jnp.asarray(x, dtype=float) - loc) / scale
    return jnp.where(z < 0, -jnp.inf, -z - jnp.log(scale))


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))
