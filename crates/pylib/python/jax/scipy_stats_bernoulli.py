"""jax.scipy.stats.bernoulli: the Bernoulli distribution."""

import jax.numpy as jnp


def logpmf(k, p, loc=0):
    k = jnp.asarray(k) - loc
    p = jnp.asarray(p, dtype=float)
    log_p = jnp.where(k == 1, jnp.log(p), jnp.log1p(-p))
    return jnp.where((k == 0) | (k == 1), log_p, -jnp.inf)


def pmf(k, p, loc=0):
    return jnp.exp(logpmf(k, p, loc))
