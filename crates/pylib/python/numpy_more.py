"""More of NumPy on the host, written in Python over the rest of it with NumPy's semantics
(where they differ from jax.numpy's: NumPy's nanargmax raises on an all-NaN slice, its gradient
takes coordinate arrays and a second-order edge, its polynomial helpers trim nothing, its
isscalar is False for a 0-d array)."""

import math
import operator
import warnings

import numpy as np


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise IndexError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


# Complex numbers: arrays here are real.
def real(val):
    return np.asarray(val)


def imag(val):
    return np.zeros_like(np.asarray(val))


def conjugate(x):
    return np.asarray(x).copy()


conj = conjugate


def iscomplexobj(x):
    return isinstance(x, complex)


def isrealobj(x):
    return not iscomplexobj(x)


def isscalar(element):
    if isinstance(element, np.ndarray) and element.ndim > 0:
        return False
    if isinstance(element, (bool, int, float, complex, str)):
        return True
    return isinstance(element, (np.floating, np.integer, np.bool_))


# Integers.
def _gcd_pair(a, b):
    return math.gcd(int(a), int(b))


def gcd(x1, x2):
    x1, x2 = np.asarray(x1), np.asarray(x2)
    if not (np.issubdtype(x1.dtype, np.integer) and np.issubdtype(x2.dtype, np.integer)):
        raise TypeError("ufunc 'gcd' not supported for the input types, and the inputs could not be safely coerced to "
                        "any supported types according to the casting rule ''safe''")
    dtype = np.result_type(x1, x2)
    out = np.vectorize(_gcd_pair, otypes=[dtype])(x1, x2)
    return out[()] if out.ndim == 0 else out


def lcm(x1, x2):
    x1, x2 = np.asarray(x1), np.asarray(x2)
    if not (np.issubdtype(x1.dtype, np.integer) and np.issubdtype(x2.dtype, np.integer)):
        raise TypeError("ufunc 'lcm' not supported for the input types, and the inputs could not be safely coerced to "
                        "any supported types according to the casting rule ''safe''")
    dtype = np.result_type(x1, x2)
    one = lambda a, b: 0 if a == 0 or b == 0 else abs(int(a) * int(b)) // math.gcd(int(a), int(b))
    out = np.vectorize(one, otypes=[dtype])(x1, x2)
    return out[()] if out.ndim == 0 else out


# Reductions that skip NaNs.
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    a = np.asarray(a)
    return np.prod(np.where(np.isnan(a), 1, a), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    a = np.asarray(a)
    return np.cumsum(np.where(np.isnan(a), 0, a), axis=axis)


def nancumprod(a, axis=None, dtype=None, out=None):
    a = np.asarray(a)
    return np.cumprod(np.where(np.isnan(a), 1, a), axis=axis)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = np.asarray(a, dtype=float)
    missing = np.isnan(a)
    count = np.sum(~missing, axis=axis, keepdims=True)
    mean = np.sum(np.where(missing, 0, a), axis=axis, keepdims=True) / count
    centered = np.where(missing, 0, a - mean)
    dof = np.sum(~missing, axis=axis, keepdims=keepdims) - ddof
    total = np.sum(centered * centered, axis=axis, keepdims=keepdims)
    bad = dof <= 0
    if np.any(bad):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
    result = np.where(bad, np.nan, total / np.where(bad, 1, dof))
    return result[()] if result.ndim == 0 else result


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return np.sqrt(nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims))


def cumulative_prod(x, axis=None, dtype=None, out=None, include_initial=False):
    x = np.asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
        axis = 0
    result = np.cumprod(x, axis=axis)
    if include_initial:
        shape = list(result.shape)
        shape[_axis(axis, result.ndim)] = 1
        result = np.concatenate([np.ones(shape, dtype=result.dtype), result], axis=axis)
    return result


def ediff1d(ary, to_end=None, to_begin=None):
    arr = np.ravel(np.asarray(ary))
    parts = []
    if to_begin is not None:
        parts.append(np.ravel(np.asarray(to_begin, dtype=arr.dtype)))
    parts.append(arr[1:] - arr[:-1])
    if to_end is not None:
        parts.append(np.ravel(np.asarray(to_end, dtype=arr.dtype)))
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


# Differences.
def _cut(a, start, stop, axis):
    return a[(slice(None),) * axis + (slice(start, stop),)]


def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order central differences inside (for uneven spacing too), first- or
    second-order one-sided differences at the edges, as NumPy's."""
    f = np.asarray(f)
    if not np.issubdtype(f.dtype, np.inexact):
        f = f.astype(float)
    axes = tuple(range(f.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    axes = tuple(_axis(ax, f.ndim) for ax in axes)
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                             "elements are required.")
        cut = lambda start, stop: _cut(f, start, stop, ax)
        shape = [1] * f.ndim
        shape[ax] = -1
        if np.ndim(h) == 0:
            inner = (cut(2, n) - cut(0, n - 2)) / (2.0 * h)
            if edge_order == 1:
                first = (cut(1, 2) - cut(0, 1)) / h
                last = (cut(n - 1, n) - cut(n - 2, n - 1)) / h
            else:
                first = (-1.5 * cut(0, 1) + 2.0 * cut(1, 2) - 0.5 * cut(2, 3)) / h
                last = (0.5 * cut(n - 3, n - 2) - 2.0 * cut(n - 2, n - 1) + 1.5 * cut(n - 1, n)) / h
        else:
            x = np.asarray(h, dtype=float)
            if x.ndim != 1:
                raise ValueError("distances must be either scalars or 1d")
            if x.shape[0] != n:
                raise ValueError("when 1d, distances must match the length of the corresponding dimension")
            d = np.diff(x)
            dx1, dx2 = d[:-1].reshape(shape), d[1:].reshape(shape)
            a = -dx2 / (dx1 * (dx1 + dx2))
            b = (dx2 - dx1) / (dx1 * dx2)
            c = dx1 / (dx2 * (dx1 + dx2))
            inner = a * cut(0, n - 2) + b * cut(1, n - 1) + c * cut(2, n)
            if edge_order == 1:
                first = (cut(1, 2) - cut(0, 1)) / d[0]
                last = (cut(n - 1, n) - cut(n - 2, n - 1)) / d[-1]
            else:
                h1, h2 = d[0], d[1]
                first = (-(2.0 * h1 + h2) / (h1 * (h1 + h2)) * cut(0, 1) + (h1 + h2) / (h1 * h2) * cut(1, 2)
                         - h1 / (h2 * (h1 + h2)) * cut(2, 3))
                h1, h2 = d[-1], d[-2]
                last = (h1 / (h2 * (h1 + h2)) * cut(n - 3, n - 2) - (h2 + h1) / (h2 * h1) * cut(n - 2, n - 1)
                        + (2.0 * h1 + h2) / (h1 * (h1 + h2)) * cut(n - 1, n))
        out.append(np.concatenate([first, inner, last], axis=ax))
    return out[0] if len(axes) == 1 else tuple(out)


# Indices.
def diag_indices(n, ndim=2):
    return (np.arange(n),) * ndim


def diag_indices_from(arr):
    arr = np.asarray(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def unravel_index(indices, shape, order="C"):
    indices = np.asarray(indices)
    if not np.issubdtype(indices.dtype, np.integer):
        raise TypeError("only int indices permitted")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    total = math.prod(shape)
    if np.any((indices < 0) | (indices >= total)):
        bad = int(np.ravel(indices)[np.argmax(np.ravel((indices < 0) | (indices >= total)))])
        raise ValueError(f"index {bad} is out of bounds for array with size {total}")
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    result = tuple((indices // stride) % dim for dim, stride in zip(shape, strides))
    return tuple(r[()] if r.ndim == 0 else r for r in result)


def digitize(x, bins, right=False):
    x, bins = np.asarray(x), np.asarray(bins)
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array")
    side = "left" if right else "right"
    increasing = bins.shape[0] == 0 or bins[-1] >= bins[0]
    if increasing:
        return np.searchsorted(bins, x, side=side)
    return bins.shape[0] - np.searchsorted(bins[::-1], x, side=side)


def delete(arr, obj, axis=None):
    a = np.asarray(arr)
    if axis is None:
        a, axis = np.ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, slice):
        index = np.arange(n)[obj]
    else:
        index = np.asarray(obj)
        if index.dtype == bool:
            if index.shape != (n,):
                raise ValueError(f"boolean array argument obj to delete must be one dimensional and match the axis "
                                 f"length of {n}")
            return a[(slice(None),) * axis + (~index,)]
        flat = np.ravel(index)
        bad = flat[(flat < -n) | (flat >= n)]
        if bad.size:
            raise IndexError(f"index {int(bad[0])} is out of bounds for axis {axis} with size {n}")
    keep = np.ones(n, dtype=bool)
    keep[index] = False
    return a[(slice(None),) * axis + (keep,)]


def trim_zeros(filt, trim="fb"):
    filt = np.asarray(filt)
    nonzero = np.nonzero(filt)[0]
    if nonzero.size == 0:
        return filt[:0]
    start = nonzero[0] if "f" in trim.lower() else 0
    stop = nonzero[-1] + 1 if "b" in trim.lower() else filt.shape[0]
    return filt[start:stop]


# Polynomials (coefficients highest power first), on arrays.
def vander(x, N=None, increasing=False):
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = x.shape[0] if N is None else operator.index(N)
    powers = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    return x[:, None] ** powers[None, :] if N else np.empty((x.shape[0], 0), dtype=x.dtype)


def polyadd(a1, a2):
    a1, a2 = np.atleast_1d(a1), np.atleast_1d(a2)
    diff = a2.shape[0] - a1.shape[0]
    if diff == 0:
        return a1 + a2
    if diff > 0:
        return np.concatenate([np.zeros(diff, a1.dtype), a1]) + a2
    return a1 + np.concatenate([np.zeros(-diff, a2.dtype), a2])


def polysub(a1, a2):
    a1, a2 = np.atleast_1d(a1), np.atleast_1d(a2)
    return polyadd(a1, -a2)


def polymul(a1, a2):
    return np.convolve(np.atleast_1d(a1), np.atleast_1d(a2))


def polyder(p, m=1):
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = np.asarray(p)
    n = p.shape[0] - 1
    y = p[:-1] * np.arange(n, 0, -1)
    return p if m == 0 else polyder(y, m - 1)


def polyint(p, m=1, k=None):
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k = [0] * m if k is None else k
    k = np.atleast_1d(k)
    if k.shape[0] == 1 and m > 1:
        k = np.full(m, k[0])
    if k.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = np.asarray(p)
    if m == 0:
        return p
    y = np.concatenate([p / np.arange(p.shape[0], 0, -1), [k[0]]])
    return polyint(y, m - 1, k=list(k[1:]))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least squares with the Vandermonde matrix's columns scaled to unit norm, as NumPy's."""
    order = operator.index(deg) + 1
    x = np.asarray(x) + 0.0
    y = np.asarray(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if cov:
        raise NotImplementedError("numpy.polyfit's cov= is not supported by the playground yet")
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = np.asarray(w) + 0.0
        lhs = lhs * w[:, None]
        rhs = rhs * w if rhs.ndim == 1 else rhs * w[:, None]
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, residuals, rank, s = np.linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        return c, residuals, rank, s, rcond
    return c


def broadcast_shapes(*args):
    """The shape the given shapes broadcast to. A mismatch names, as NumPy's does, the
    argument that set the conflicting axis and the one that conflicts with it."""
    shapes = [(operator.index(s),) if isinstance(s, int) else tuple(operator.index(d) for d in s) for s in args]
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    owner = [0] * ndim
    for j, shape in enumerate(shapes):
        for k, d in enumerate(shape):
            axis = ndim - len(shape) + k
            if d == 1 or d == result[axis]:
                continue
            if result[axis] != 1:
                i = owner[axis]
                raise ValueError(
                    "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
                    f"arg {i} with shape {shapes[i]} and arg {j} with shape {shape}."
                )
            result[axis] = d
            owner[axis] = j
    return tuple(result)
