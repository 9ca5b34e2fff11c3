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
