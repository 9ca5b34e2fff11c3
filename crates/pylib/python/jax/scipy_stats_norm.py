"""jax.scipy.stats.norm: the normal distribution."""

import math

import jax.numpy as jnp
from jax import lax
from jax._special import log_ndtr, ndtr

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def logpdf(x, loc=0, scale=1):
    z = (jnp.asarray(x, dtype=float) - loc) / scale
    return -(jnp.log(jnp.sqrt(2 * jnp.pi) * scale) + z * z / 2)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    # JAX's: ndtr of the standardised value (erfc in the tails, where 1 + erf loses digits).
    return ndtr((jnp.asarray(x, dtype=float) - loc) / scale)


def logcdf(x, loc=0, scale=1):
    return log_ndtr((jnp.asarray(x, dtype=float) - loc) / scale)


def sf(x, loc=0, scale=1):
    return cdf(-jnp.asarray(x, dtype=float), -loc, scale)


def logsf(x, loc=0, scale=1):
    return logcdf(-jnp.asarray(x, dtype=float), -loc, scale)
