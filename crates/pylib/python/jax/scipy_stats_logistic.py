"""jax.scipy.stats.logistic: the logistic distribution."""

import jax.numpy as jnp
from jax.nn import softplus


def logpdf(x, loc=0, scale=1):
    z = (jnp.asarray(x, dtype=float) - loc) / scale
    return -z - 2 * softplus(-z) - jnp.log(scale)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))
