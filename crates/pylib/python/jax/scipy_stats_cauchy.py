"""jax.scipy.stats.cauchy: the Cauchy distribution."""

import jax.numpy as jnp


def logpdf(x, loc=0, scale=1):
    z = (jnp.asarray(x, dtype=float) - loc) / scale
    return -jnp.log(jnp.pi) - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x, loc=0, scale=1):
    return jnp.exp(logpdf(x, loc, scale))
