"""jax.scipy.special's normal-distribution functions and the complementary error function,
as JAX computes them: `erfc` is XLA's float32 approximation (its rational polynomials in 1/x²
for |x| >= 1, 1 - erf(x) below), `ndtr` and `log_ndtr` are jax/_src/scipy/special.py's."""

import math

import jax
import jax.numpy as jnp
from jax import lax

# XLA's float32 erfc for |x| >= 1: exp(-x²)/|x| P(1/x²) on [1, 2), R(1/x²) beyond.
_ERFC_P = (2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1,
           6.210004621745983e-1, -4.944515323274145e-1, 3.404879937665872e-1, -2.741127028184656e-1,
           5.638259427386472e-1)
_ERFC_R = (-1.047766399936249e1, 1.297719955372516e1, -7.495518717768503e0, 2.921019019210786e0,
           -1.015265279202700e0, 4.218463358204948e-1, -2.820767439740514e-1, 5.641895067754075e-1)
_MAXLOG = 88.72283905206835


def _polynomial(y, coefficients):
    p = coefficients[0] * y + coefficients[1]
    for c in coefficients[2:]:
        p = p * y + c
    return p


def _inexact(name, x):
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.result_type(float))
    return x


@jax.custom_jvp
def _erfc(x):
    a = lax.abs(x)
    small = a < 1.0
    # |x| below 1 takes 1 - erf(x); the other branch sees 1 there, so that nothing is inf.
    big = jnp.where(small, jnp.ones_like(x), x)
    x2 = big * big
    z = -x2
    a_big = lax.abs(big)
    y = 1.0 / x2
    p = jnp.where(a_big < 2.0, _polynomial(y, _ERFC_P), _polynomial(y, _ERFC_R))
    approx = lax.exp(z) * (1.0 / a_big) * p
    approx = jnp.where(z < -_MAXLOG, jnp.zeros_like(x), approx)
    approx = jnp.where(big < 0.0, 2.0 - approx, approx)
    return jnp.where(small, 1.0 - lax.erf(x), approx)


@_erfc.defjvp
def _erfc_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _erfc(x), t * (-2.0 / math.sqrt(math.pi)) * lax.exp(-(x * x))


def erfc(x):
    return _erfc(_inexact("erfc", x))


def _check_float(x):
    # (float64 arrays exist only with x64, which the playground has not.)
    if x.dtype != jnp.float32:
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")


def _ndtr(x):
    dtype = x.dtype
    half_sqrt_2 = jnp.asarray(0.5 * math.sqrt(2.0), dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = jnp.where(z < half_sqrt_2, jnp.asarray(1.0, dtype) + lax.erf(w),
                  jnp.where(w > jnp.asarray(0.0, dtype), jnp.asarray(2.0, dtype) - erfc(z), erfc(z)))
    return jnp.asarray(0.5, dtype) * y


def ndtr(x):
    x = jnp.asarray(x)
    _check_float(x)
    return _ndtr(x)


def _double_factorial(n):
    result = 1
    while n > 1:
        result *= n
        n -= 2
    return result


def _log_ndtr_asymptotic_series(x, series_order):
    dtype = x.dtype
    if series_order <= 0:
        return jnp.asarray(1, dtype)
    x_2 = lax.square(x)
    even_sum = jnp.zeros_like(x)
    odd_sum = jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = jnp.asarray(_double_factorial(2 * n - 1), dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return jnp.asarray(1.0, dtype) + even_sum - odd_sum


def _log_ndtr_lower(x, series_order):
    dtype = x.dtype
    x_2 = lax.square(x)
    log_scale = -jnp.asarray(0.5, dtype) * x_2 - lax.log(-x) - jnp.asarray(0.5 * math.log(2.0 * math.pi), dtype)
    return log_scale + lax.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr(x, series_order):
    dtype = x.dtype
    if dtype == jnp.float32:
        lower_segment, upper_segment = jnp.asarray(-10, dtype), jnp.asarray(5, dtype)
    else:
        raise TypeError(f"x.dtype={dtype} is not supported.")
    above = lax.gt(x, upper_segment)
    ndtr_arg = jnp.where(above, -x, lax.max(x, lower_segment))
    ndtr_res = _ndtr(ndtr_arg)
    return jnp.where(above, -ndtr_res,
                     jnp.where(lax.gt(x, lower_segment), lax.log(ndtr_res),
                               _log_ndtr_lower(lax.min(x, lower_segment), series_order)))


@jax.custom_jvp
def _log_ndtr3(x):
    return _log_ndtr(x, 3)


@_log_ndtr3.defjvp
def _log_ndtr3_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    ans = _log_ndtr3(x)
    logpdf = -(x * x) / 2 - jnp.asarray(0.5 * math.log(2.0 * math.pi), x.dtype)
    return ans, t * lax.exp(logpdf - ans)


def log_ndtr(x, series_order=3):
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    if series_order == 3:
        return _log_ndtr3(x)
    return _log_ndtr(x, series_order)
