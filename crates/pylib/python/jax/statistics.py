"""cov and corrcoef, written once for both libraries: `jax.numpy`'s as JAX 0.10 writes them and
`numpy`'s as NumPy 2.4 does (in float64 on the host). They differ in small ways, and each is
kept: NumPy multiplies by 1/fact where JAX divides by it, NumPy warns about zero degrees of
freedom, NumPy's result is at least float64, NumPy refuses negative weights where JAX takes
their absolute values, and JAX wants integer frequency weights where NumPy wants integral
values. Both libraries conjugate the transposed samples before the product; the playground's
arrays are real, so that is left out."""

import warnings

import jax.numpy as jnp
import numpy as np


def _weights(xp, n, fweights, aweights):
    """The product of the frequency and reliability weights, checked as each library checks
    them (or None), and the reliability weights."""
    w = None
    if fweights is not None:
        fweights = np.asarray(fweights, dtype=float) if xp is np else jnp.asarray(fweights)
        if xp is np and not np.all(fweights == np.around(fweights)):
            raise TypeError("fweights must be integer")
        if fweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fweights.shape[0] != n:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if xp is np:
            if np.any(fweights < 0):
                raise ValueError("fweights cannot be negative")
        else:
            if not str(fweights.dtype).startswith(("int", "uint")):
                raise TypeError("fweights must be integer.")
            fweights = jnp.abs(fweights)
        w = fweights
    if aweights is not None:
        aweights = np.asarray(aweights, dtype=float) if xp is np else jnp.asarray(aweights)
        if aweights.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aweights.shape[0] != n:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if xp is np:
            if np.any(aweights < 0):
                raise ValueError("aweights cannot be negative")
        else:
            aweights = jnp.abs(aweights)
        w = aweights if w is None else w * aweights
    return w, aweights


def covariance(xp, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    """The covariance matrix of the variables (rows, or columns when not `rowvar`) of m and y."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = xp.asarray(m)
    if y is not None:
        y = xp.asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if xp is np:
        if dtype is None:
            dtype = np.result_type(m, np.float64) if y is None else np.result_type(m, y, np.float64)
        X = np.array(np.atleast_2d(m), dtype=dtype)
    else:
        inexact = jnp.result_type(m, 1.0) if y is None else jnp.result_type(m, y, 1.0)
        X = jnp.atleast_2d(m).astype(inexact if dtype is None else dtype)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return xp.array([]).reshape(0, 0)
    if y is not None:
        Y = xp.atleast_2d(y).astype(X.dtype)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = xp.concatenate((X, Y), axis=0)
    if xp is jnp and X.shape[1] == 0:
        return jnp.full(() if X.shape[0] == 1 else (X.shape[0], X.shape[0]), jnp.nan, dtype=X.dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    w, aweights = _weights(xp, X.shape[1], fweights, aweights)
    if w is None:
        avg = xp.mean(X, axis=1)
        fact = X.shape[1] - ddof
    else:
        w = w.astype(X.dtype)
        w_sum = xp.sum(w)
        avg = xp.sum(X * w, axis=1) / w_sum
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * xp.sum(w * aweights) / w_sum
    if xp is np and fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning)
        fact = 0.0
    X = X - avg[:, None]
    X_T = X.T if w is None else (X * w).T
    c = xp.dot(X, X_T)
    if xp is np:
        c *= np.true_divide(1, fact)  # in place: a float32 result stays float32
    else:
        c = c / fact
    return c.squeeze()


def correlation(xp, x, y=None, rowvar=True, dtype=None):
    """Pearson's correlation coefficients: the covariance over the product of the standard
    deviations, clipped to [-1, 1]."""
    c = covariance(xp, x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    stddev = xp.sqrt(xp.diag(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return xp.clip(c, -1, 1)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, dtype=None):
    return covariance(jnp, m, y, rowvar, bias, ddof, fweights, aweights, dtype)


def corrcoef(x, y=None, rowvar=True, dtype=None):
    return correlation(jnp, x, y, rowvar, dtype)
