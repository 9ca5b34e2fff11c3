"""jax.scipy.stats.multivariate_normal: the multivariate normal distribution."""

import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular


def logpdf(x, mean, cov, allow_singular=None):
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x = jnp.asarray(x, dtype=float)
    mean = jnp.asarray(mean, dtype=float)
    cov = jnp.asarray(cov, dtype=float)
    if not mean.shape:
        return -1 / 2 * jnp.square(x - mean) / cov - 1 / 2 * (jnp.log(2 * jnp.pi) + jnp.log(cov))
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -1 / 2 * jnp.einsum("...i,...i->...", y, y) / cov - n / 2 * (jnp.log(2 * jnp.pi) + jnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    if cov.ndim > 2:
        raise NotImplementedError("multivariate_normal.logpdf with a batch of covariances is not supported by the playground yet")
    L = jnp.linalg.cholesky(cov)
    d = x - mean
    # Solve L y = d for each vector of the batch: the vectors as the columns of one system.
    flat = jnp.reshape(d, (-1, n)).T
    y = jnp.reshape(solve_triangular(L, flat, lower=True).T, d.shape)
    # The squared norm as JAX writes it, an einsum: a matmul, whose operands DEFAULT precision
    # rounds to bfloat16 on a TPU.
    return -1 / 2 * jnp.einsum("...i,...i->...", y, y) - n / 2 * jnp.log(2 * jnp.pi) - jnp.sum(jnp.log(jnp.diagonal(L)))


def pdf(x, mean, cov):
    return jnp.exp(logpdf(x, mean, cov))
