"""The jax.random functions written in Python, on the interpreter's own draws."""

import jax
import jax.numpy as jnp
from jax.random import normal, uniform


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


def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha) draw by Marsaglia and Tsang's method, as JAX draws it: alpha below 1
    boosted to alpha + 1 and the draw scaled by U^(1/alpha) (in log space: plus log(U)/alpha)."""
    import jax
    from jax import lax
    from jax.random import exponential, normal, split, uniform

    zero, one = jnp.zeros((), alpha.dtype), jnp.ones((), alpha.dtype)
    boost_mask = alpha >= one
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, alpha + one)
    d = alpha - 1.0 / 3.0
    c = (1.0 / 3.0) / jnp.sqrt(d)

    def rejected(kXVU):
        _, X, V, U = kXVU
        return (U >= one - 0.0331 * (X * X)) & (jnp.log(U) >= X * 0.5 + d * ((one - V) + jnp.log(V)))

    def draw(kXVU):
        def next_kxv(kxv):
            key, subkey = split(kxv[0])
            x = normal(subkey, (), dtype=alpha.dtype)
            return key, x, one + x * c

        key, x_key, u_key = split(kXVU[0], 3)
        _, x, v = lax.while_loop(lambda kxv: kxv[2] <= zero, next_kxv, (x_key, zero, -one))
        return key, x * x, (v * v) * v, uniform(u_key, (), dtype=alpha.dtype)

    # The first state is rejected, so the loop draws at least once.
    key, subkey = split(key)
    _, _, V, _ = lax.while_loop(rejected, draw, (key, zero, one, one + one))
    if log_space:
        log_samples = -exponential(subkey, (), dtype=alpha.dtype)
        log_boost = lax.select(boost_mask | (log_samples == 0), zero, log_samples * (one / alpha_orig))
        return (jnp.log(d) + jnp.log(V)) + log_boost
    samples = 1 - uniform(subkey, (), dtype=alpha.dtype)
    boost = lax.select(boost_mask, one, samples ** (one / alpha_orig))
    return (d * V) * boost


def _gamma(key, a, shape, dtype, log_space):
    import jax
    from jax.random import split

    a = jnp.asarray(a, dtype=dtype)
    if shape is None:
        shape = a.shape
    shape = tuple(shape)
    if a.shape != shape:
        a = jnp.broadcast_to(a, shape)
    count = 1
    for n in shape:
        count *= n
    # One key per draw, split from `key`, each drawing until it is accepted (a vmapped
    # while_loop: every draw's loop runs until all are done, each keeping its own result).
    # Raw words: typed keys would ride in the batched loops' selects, which take no keys.
    keys = jax.random.key_data(split(key, count))
    draws = jax.vmap(lambda k, alpha: _gamma_one(k, alpha, log_space))(keys, a.reshape(count))
    return draws.reshape(shape)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a) draws with unit scale, as JAX draws them (Marsaglia and Tsang). Sampling only:
    their gradient with respect to `a` (JAX's implicit gradient) is not built."""
    return _gamma(key, a, shape, float if dtype is None else dtype, False)


def loggamma(key, a, shape=None, dtype=None):
    """The logarithm of Gamma(a) draws, computed in log space as JAX does (accurate for small a)."""
    return _gamma(key, a, shape, float if dtype is None else dtype, True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) draws as JAX makes them: the log-gamma draws of a and b, from the two halves of
    the key, combined as gamma_a / (gamma_a + gamma_b) without losing precision."""
    from jax import lax
    from jax.random import split

    dtype = float if dtype is None else dtype
    a = jnp.asarray(a, dtype=dtype)
    b = jnp.asarray(b, dtype=dtype)
    if shape is None:
        shape = jnp.broadcast_shapes(a.shape, b.shape)
    key_a, key_b = split(key)
    a = jnp.broadcast_to(a, shape)
    b = jnp.broadcast_to(b, shape)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def _weibull_min(key, scale, concentration, shape, dtype):
    random_uniform = uniform(key=key, shape=shape, minval=0, maxval=1, dtype=dtype)
    # Inverse Weibull CDF.
    return jnp.power(-jnp.log1p(-random_uniform), 1.0 / concentration) * scale


_weibull_min_jit = jax.jit(_weibull_min, static_argnums=(3, 4))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Draws as JAX does: the inverse of the Weibull CDF at uniform draws, in one jitted call."""
    dtype = jnp.float32 if dtype is None else jnp.dtype(dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(f"dtype argument to `weibull_min` must be a float dtype, got {dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _weibull_min_jit(key, scale, concentration, shape, dtype)
