"""scipy.special's elementwise functions JAX programs use, on the host, as SciPy's ufuncs: a
float32 argument gives float32 (computed in float32, as SciPy's single-precision loops do),
anything else float64."""

import math

import numpy as np


def _inexact(x):
    x = np.asarray(x)
    return x if x.dtype in (np.float32, np.float64) else x.astype(np.float64)


def _elementwise(f, x):
    x = _inexact(x)
    out = np.vectorize(f, otypes=[np.float64])(x).astype(x.dtype)
    return out[()] if out.ndim == 0 else out


def expit(x):
    x = _inexact(x)
    return 1 / (1 + np.exp(-x))


def logit(p):
    p = _inexact(p)
    return np.log(p / (1 - p))


def erf(x):
    return _elementwise(math.erf, x)


def erfc(x):
    return _elementwise(math.erfc, x)


def gamma(x):
    return _elementwise(lambda v: math.inf if v <= 0 and v == int(v) else math.gamma(v), x)


def gammaln(x):
    return _elementwise(lambda v: math.inf if v <= 0 and v == int(v) else math.lgamma(v), x)


def xlogy(x, y):
    x, y = _inexact(x), _inexact(y)
    return np.where(x == 0, np.zeros_like(x * y), x * np.log(np.where(x == 0, 1, y)))


def softmax(x, axis=None):
    x = _inexact(x)
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)


def logsumexp(a, axis=None, keepdims=False):
    a = _inexact(a)
    top = np.max(a, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    out = np.log(np.sum(np.exp(a - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


def _jv_integer(n, x):
    """J_n(x) for an integer order: Miller's backward recurrence from well above both n and x,
    normalised by J_0 + 2 (J_2 + J_4 + ...) = 1. It is stable for every x (the forward
    recurrence is not once n > x) and accurate to a few units in the last place of the largest
    J_k, which is what SciPy's float64 result carries too."""
    sign = 1.0
    if n < 0:
        n = -n
        sign = -sign if n % 2 else sign
    if x < 0:
        x = -x
        sign = -sign if n % 2 else sign
    if x == 0:
        return sign * (1.0 if n == 0 else 0.0)
    if math.isinf(x):
        return 0.0
    top = max(n, int(x))
    start = 2 * ((top + 16 + int(math.sqrt(40 * top))) // 2)
    above, here = 0.0, 1.0
    evens, found = 0.0, 0.0
    for k in range(start, 0, -1):
        above, here = here, 2.0 * k / x * here - above
        # `here` is now J_{k-1}, unnormalised; rescale before it overflows.
        if abs(here) > 1e200:
            above, here, evens, found = above * 1e-200, here * 1e-200, evens * 1e-200, found * 1e-200
        if k - 1 == n:
            found = here
        if k - 1 > 0 and (k - 1) % 2 == 0:
            evens += here
    return sign * found / (here + 2.0 * evens)


def _jv_real(v, x):
    """J_v(x) for a non-integer order: the power series, summed until its terms stop counting.
    Past x = 12 its terms cancel away the digits (1e-12 relative error there), so the playground
    refuses there."""
    if x < 0:
        return math.nan
    if x > 12:
        raise NotImplementedError(
            "scipy.special.jv of a non-integer order past z = 12 is not supported by the playground yet"
        )
    if x == 0:
        return 0.0 if v > 0 else math.inf
    total = 0.0
    term = (x / 2) ** v / math.gamma(v + 1)
    k = 0
    while term != 0 and abs(term) > 1e-17 * abs(total):
        total += term
        k += 1
        term *= -(x * x / 4) / (k * (k + v))
    return total


def jv(v, z):
    """Bessel's function of the first kind, of real order v, as SciPy's ufunc: float32 when both
    arguments are float32 (a Python number counts as either), float64 otherwise: an integer
    array as order picks the float64 loop."""
    single = all(isinstance(a, (int, float)) or np.asarray(a).dtype == np.float32 for a in (v, z))
    single = single and not all(isinstance(a, (int, float)) for a in (v, z))
    v, z = np.asarray(v), np.asarray(z)

    def one(order, x):
        order, x = float(order), float(x)
        if math.isnan(order) or math.isnan(x):
            return math.nan
        if order == int(order):
            return _jv_integer(int(order), x)
        return _jv_real(order, x)

    out = np.vectorize(one, otypes=[np.float64])(v, z)
    out = out.astype(np.float32) if single else out
    return out[()] if out.ndim == 0 else out
