"""jax.scipy.stats.t: Student's t distribution."""

import math

import jax.numpy as jnp


def gammaln(v):
    # The playground has no lgamma primitive yet: a Python number's is computed on the host.
    if isinstance(v, (int, float)):
        return math.lgamma(v)
    raise NotImplementedError("jax.scipy.stats.t with an array df is not supported by the playground yet")


def logpdf(x, df, loc=0, scale=1):
    x = jnp.asarray(x, dtype=float)
    two = 2.0
    scaled_x = (x - loc) / scale
    df_over_two = df / two
    df_plus_one_over_two = (df + 1) / two
    normalize_term_const = jnp.log(df * jnp.pi * scale * scale) / two
    normalize_term_tmp = gammaln(df_over_two) - gammaln(df_plus_one_over_two)
    normalize_term = normalize_term_tmp + normalize_term_const
    quadratic = scaled_x * scaled_x / df
    return -normalize_term - df_plus_one_over_two * jnp.log1p(quadratic)


def pdf(x, df, loc=0, scale=1):
    return jnp.exp(logpdf(x, df, loc, scale))
