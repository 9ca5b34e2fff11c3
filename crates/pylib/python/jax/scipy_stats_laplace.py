"""jax.scipy.stats.laplace: the Laplace distribution."""

import jax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    z = (jnp.asarray(x, dtype=float) - loc) / scale
    return -jnp.log(2 * scale) - jnp.abs(z)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))
