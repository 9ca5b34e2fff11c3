"""The jax.random functions written in Python, on the interpreter's own draws."""

import jax.numpy as jnp
from jax.random import normal


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Draws as JAX does: mean + factor @ z, with factor the Cholesky factor of cov (method
    "cholesky"), and z standard normal of shape `shape + mean.shape[-1:]`."""
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    if method != "cholesky":
        raise NotImplementedError(f"jax.random.multivariate_normal(method={method!r}) is not supported by the playground yet")
    mean = jnp.asarray(mean, dtype=float)
    cov = jnp.asarray(cov, dtype=float)
    if mean.ndim < 1 or cov.ndim != 2:
        raise ValueError("multivariate_normal requires mean.ndim >= 1 and cov.ndim == 2 in the playground")
    n = mean.shape[-1]
    if cov.shape != (n, n):
        raise ValueError(
            f"multivariate_normal requires cov.shape == mean.shape[-1:] * 2, got cov.shape == {cov.shape} and mean.shape == {mean.shape}"
        )
    if shape is None:
        shape = mean.shape[:-1]
    factor = jnp.linalg.cholesky(cov)
    z = normal(key, tuple(shape) + (n,))
    return mean + jnp.einsum("...ij,...j->...i", factor, z)
