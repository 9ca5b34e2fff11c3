"""More of jax.numpy, written in Python over the rest of it as JAX writes these (jax._src.numpy):
real-valued complex helpers, integer gcd/lcm, polynomials, windows, NaN-ignoring reductions,
index helpers and the functional forms (apply_along_axis, fromfunction)."""

import math
import operator

import jax
import jax.numpy as jnp
from jax import lax

euler_gamma = 0.5772156649015329


def _cut(a, start, stop, axis):
    """a[start:stop] along axis."""
    return a[(slice(None),) * axis + (slice(start, stop),)]


def _as(a, dtype):
    return a if dtype is None else a.astype(dtype)


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis


# Complex numbers: arrays here are real, so these are what JAX's are on real arrays.
def iscomplexobj(x):
    return isinstance(x, complex)


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    return jnp.zeros(jnp.shape(x), dtype=bool)


def isreal(x):
    return jnp.ones(jnp.shape(x), dtype=bool)


def real(val):
    return jnp.asarray(val)


def imag(val):
    return jnp.zeros_like(jnp.asarray(val))


def conjugate(x):
    return jnp.asarray(x)


conj = conjugate


def isscalar(element):
    if isinstance(element, (bool, int, float, complex, str)):
        return True
    if hasattr(element, "ndim"):
        return element.ndim == 0
    return False


def iterable(y):
    try:
        iter(y)
    except TypeError:
        return False
    return True


# Elementwise.
def modf(x):
    x = jnp.asarray(x, dtype=jnp.result_type(x, float))
    whole = jnp.where(x >= 0, jnp.floor(x), jnp.ceil(x))
    return x - whole, whole


def float_power(x, y):
    x, y = jnp.asarray(x, dtype=float), jnp.asarray(y, dtype=float)
    return jnp.power(x, y)


def _integers(name, x1, x2):
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    dtype = jnp.result_type(x1, x2)
    if not jnp.issubdtype(dtype, jnp.integer):
        raise ValueError(f"Arguments to jax.numpy.{name} must be integers.")
    return jnp.broadcast_arrays(x1.astype(dtype), x2.astype(dtype))


def gcd(x1, x2):
    x1, x2 = _integers("gcd", x1, x2)

    def step(pair):
        a, b = pair
        a, b = jnp.where(b != 0, b, a), jnp.where(b != 0, lax.rem(a, jnp.where(b != 0, b, 1)), 0)
        return jnp.where(a < b, b, a), jnp.where(a < b, a, b)

    return lax.while_loop(lambda pair: jnp.any(pair[1] != 0), step, (jnp.abs(x1), jnp.abs(x2)))[0]


def lcm(x1, x2):
    x1, x2 = _integers("lcm", x1, x2)
    x1, x2 = jnp.abs(x1), jnp.abs(x2)
    d = gcd(x1, x2)
    return jnp.where(d == 0, 0, x1 * (x2 // jnp.where(d == 0, 1, d)))


# Reductions that skip NaNs.
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    a = _as(jnp.asarray(a), dtype)
    return jnp.prod(jnp.where(jnp.isnan(a), 1, a), axis=axis, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    a = _as(jnp.asarray(a), dtype)
    return jnp.cumsum(jnp.where(jnp.isnan(a), 0, a), axis=axis)


def nancumprod(a, axis=None, dtype=None, out=None):
    a = _as(jnp.asarray(a), dtype)
    return jnp.cumprod(jnp.where(jnp.isnan(a), 1, a), axis=axis)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    a = jnp.asarray(a)
    a = a.astype(jnp.result_type(a, float) if dtype is None else dtype)
    mean = jnp.nanmean(a, axis=axis, keepdims=True)
    centered = jnp.where(jnp.isnan(a), 0, a - mean)
    normalizer = jnp.sum(~jnp.isnan(a), axis=axis, keepdims=keepdims) - ddof
    empty = normalizer <= 0
    result = jnp.sum(jnp.square(centered), axis=axis, keepdims=keepdims)
    result = jnp.where(empty, jnp.nan, result)
    return result / jnp.where(empty, 1, normalizer).astype(result.dtype)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None):
    return jnp.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def nanargmax(a, axis=None, out=None, keepdims=None):
    a = jnp.asarray(a)
    nan = jnp.isnan(a)
    found = jnp.argmax(jnp.where(nan, -jnp.inf, a), axis=axis, keepdims=bool(keepdims))
    return jnp.where(jnp.all(nan, axis=axis, keepdims=bool(keepdims)), -1, found)


def nanargmin(a, axis=None, out=None, keepdims=None):
    a = jnp.asarray(a)
    nan = jnp.isnan(a)
    found = jnp.argmin(jnp.where(nan, jnp.inf, a), axis=axis, keepdims=bool(keepdims))
    return jnp.where(jnp.all(nan, axis=axis, keepdims=bool(keepdims)), -1, found)


def cumulative_prod(x, axis=None, dtype=None, include_initial=False):
    x = jnp.asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"The input array has rank {x.ndim}, however axis was not set to an explicit value. "
                             "The axis argument is only optional for one-dimensional arrays.")
        axis = 0
    out = jnp.cumprod(_as(x, dtype), axis=axis)
    if include_initial:
        shape = list(out.shape)
        shape[_axis(axis, out.ndim)] = 1
        out = jnp.concatenate([jnp.ones(shape, dtype=out.dtype), out], axis=axis)
    return out


# Differences and gradients.
def ediff1d(ary, to_end=None, to_begin=None):
    arr = jnp.ravel(jnp.asarray(ary))
    result = arr[1:] - arr[:-1]
    if to_begin is not None:
        result = jnp.concatenate([jnp.ravel(jnp.asarray(to_begin, dtype=arr.dtype)), result])
    if to_end is not None:
        result = jnp.concatenate([result, jnp.ravel(jnp.asarray(to_end, dtype=arr.dtype))])
    return result


def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided at the two ends (uniform spacing only, as JAX)."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    a = jnp.asarray(f)
    if axis is None:
        axes = tuple(range(a.ndim))
    elif isinstance(axis, int):
        axes = (_axis(axis, a.ndim),)
    else:
        axes = tuple(_axis(ax, a.ndim) for ax in axis)
    if len(axes) == 0:
        return []
    if min(a.shape[ax] for ax in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least (edge_order + 1) elements are required.")
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1:
        spacing = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(varargs)}")
    if jnp.ndim(spacing[0]) != 0:
        raise NotImplementedError("Non-constant spacing not implemented")

    def along(ax, h):
        cut = lambda start, stop: _cut(a, start, stop, ax)
        n = a.shape[ax]
        edges = [cut(1, 2) - cut(0, 1), (cut(2, n) - cut(0, n - 2)) * 0.5, cut(n - 1, n) - cut(n - 2, n - 1)]
        return jnp.concatenate(edges, axis=ax) / h

    grads = [along(ax, h) for ax, h in zip(axes, spacing)]
    return grads[0] if len(axes) == 1 else grads


# Indices.
def diag_indices(n, ndim=2):
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (jnp.arange(n),) * ndim


def diag_indices_from(arr):
    arr = jnp.asarray(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], ndim=arr.ndim)


def tril_indices_from(arr, k=0):
    arr = jnp.asarray(arr)
    if arr.ndim != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return jnp.tril_indices(arr.shape[0], k=k, m=arr.shape[1])


def triu_indices_from(arr, k=0):
    arr = jnp.asarray(arr)
    if arr.ndim != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return jnp.triu_indices(arr.shape[0], k=k, m=arr.shape[1])


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a = jnp.asarray(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    val = jnp.asarray(val)
    if val.ndim != 0:
        val = jnp.resize(jnp.ravel(val), (n,)) if val.size else jnp.zeros(n, a.dtype)
    return a.at[diag_indices(n, a.ndim)].set(val)


def diagflat(v, k=0):
    flat = jnp.ravel(jnp.asarray(v))
    size = flat.shape[0] + abs(k)
    i = jnp.arange(size - abs(k))
    at = i + k + i * size if k >= 0 else i + (i - k) * size
    return jnp.zeros(size * size, dtype=flat.dtype).at[at].set(flat).reshape(size, size)


def unravel_index(indices, shape):
    indices = jnp.asarray(indices)
    shape = tuple(operator.index(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError("unravel_index: shape should be non-negative.")
    if not shape and indices.shape == ():
        return ()
    total = math.prod(shape)
    clipped = jnp.clip(indices, -total, total - 1)
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    return tuple((clipped // stride) % dim if dim else jnp.zeros_like(clipped) for dim, stride in zip(shape, strides))


def ix_(*args):
    out = []
    for i, a in enumerate(args):
        a = jnp.asarray(a)
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}")
        if a.dtype == bool:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        out.append(jnp.reshape(a, shape))
    return tuple(out)


def rollaxis(a, axis, start=0):
    a = jnp.asarray(a)
    axis = _axis(axis, a.ndim)
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"start={start} must satisfy {-a.ndim}<=start<={a.ndim}")
    if start < 0:
        start += a.ndim
    if start > axis:
        start -= 1
    return jnp.moveaxis(a, axis, start)


def digitize(x, bins, right=False, *, method=None):
    x, bins = jnp.asarray(x), jnp.asarray(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return jnp.zeros(x.shape, dtype=jnp.int32)
    side = "left" if right else "right"
    return jnp.where(bins[-1] >= bins[0], jnp.searchsorted(bins, x, side=side),
                     bins.shape[0] - jnp.searchsorted(bins[::-1], x, side=side))


# Selection by a concrete mask.
def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    condition = jnp.asarray(condition).astype(bool)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis, arr = 0, jnp.ravel(jnp.asarray(a))
    else:
        arr = jnp.moveaxis(jnp.asarray(a), axis, 0)
    condition, extra = condition[:arr.shape[0]], condition[arr.shape[0]:]
    if jnp.any(extra):
        raise ValueError("condition contains entries that are out of bounds")
    arr = arr[:condition.shape[0]]
    if size is None:
        picked = arr[condition]
    else:
        picked = arr[jnp.nonzero(condition, size=size, fill_value=0)[0]]
        kept = (jnp.arange(size) < jnp.sum(condition)).reshape((size,) + (1,) * (arr.ndim - 1))
        picked = jnp.where(kept, picked, jnp.asarray(fill_value, dtype=picked.dtype))
    return jnp.moveaxis(picked, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    return compress(jnp.ravel(jnp.asarray(condition)), jnp.ravel(jnp.asarray(arr)), size=size, fill_value=fill_value)


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    a = jnp.asarray(arr)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, int):
        if not -n <= obj < n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        obj = obj + n if obj < 0 else obj
        return jnp.concatenate([_cut(a, 0, obj, axis), _cut(a, obj + 1, n, axis)], axis=axis)
    index = jnp.arange(n)[obj] if isinstance(obj, slice) else jnp.asarray(obj)
    if index.dtype == bool:
        raise ValueError("np.delete(arr, obj): boolean obj is not supported; use arr[~obj] instead")
    keep = jnp.ones(n, dtype=bool).at[index].set(False)
    return compress(keep, a, axis=axis)


def trim_zeros(filt, trim="fb"):
    filt = jnp.asarray(filt)
    if filt.ndim != 1:
        raise TypeError(f"'filt' must be 1-D array, but received {filt.ndim}-D array.")
    zero = filt == 0
    if jnp.all(zero):
        return jnp.zeros(0, filt.dtype)
    start = int(jnp.argmin(zero)) if "f" in trim.lower() else 0
    end = int(jnp.argmin(zero[::-1])) if "b" in trim.lower() else 0
    return filt[start:filt.shape[0] - end]


def array_equiv(a1, a2):
    try:
        a1, a2 = jnp.broadcast_arrays(a1, a2)
    except ValueError:
        return jnp.bool_(False)
    return jnp.all(a1 == a2)


# Polynomials (coefficients highest power first).
def vander(x, N=None, increasing=False):
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    powers = jnp.arange(N, dtype=x.dtype)
    if not increasing:
        powers = (N - 1) - powers
    return jnp.power(x[:, None], powers[None, :])


def polyadd(a1, a2):
    a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    dtype = jnp.result_type(a1, a2)
    a1, a2 = a1.astype(dtype), a2.astype(dtype)
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0]:].add(a2)
    return a2.at[-a1.shape[0]:].add(a1)


def polysub(a1, a2):
    a1, a2 = jnp.asarray(a1), jnp.asarray(a2)
    dtype = jnp.result_type(a1, a2)
    return polyadd(a1.astype(dtype), -a2.astype(dtype))


def polymul(a1, a2, *, trim_leading_zeros=False):
    dtype = jnp.result_type(a1, a2, float)
    a1, a2 = jnp.asarray(a1, dtype=dtype), jnp.asarray(a2, dtype=dtype)
    if a1.shape[0] == 0:
        a1 = jnp.zeros(1, dtype)
    if a2.shape[0] == 0:
        a2 = jnp.zeros(1, dtype)
    return jnp.convolve(a1, a2, mode="full")


def polyder(p, m=1):
    p = jnp.asarray(p)
    p = p.astype(jnp.result_type(p, float))
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p
    n = p.shape[0]
    coeff = (jnp.arange(m, n, dtype=p.dtype)[None, :] - jnp.arange(m, dtype=p.dtype)[:, None]).prod(0)
    return p[:-m] * coeff[::-1]


def polyint(p, m=1, k=None):
    m = operator.index(m)
    k = 0 if k is None else k
    p = jnp.asarray(p)
    dtype = jnp.result_type(p, k, float)
    p, k = p.astype(dtype), jnp.atleast_1d(jnp.asarray(k, dtype=dtype))
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k.shape[0] == 1:
        k = jnp.full((m,), k[0])
    if k.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p
    grid = jnp.arange(p.shape[0] + m, dtype=dtype)[None, :] - jnp.arange(m, dtype=dtype)[:, None]
    coeff = jnp.maximum(1, grid).prod(0)[::-1]
    return jnp.concatenate([p, k]) / coeff


# Window functions.
def _window(M):
    M = operator.index(M)
    return M, jnp.arange(M, dtype=float)


def hamming(M):
    M, n = _window(M)
    return jnp.ones(M) if M <= 1 else 0.54 - 0.46 * jnp.cos(2 * jnp.pi * n / (M - 1))


def hanning(M):
    M, n = _window(M)
    return jnp.ones(M) if M <= 1 else 0.5 * (1 - jnp.cos(2 * jnp.pi * n / (M - 1)))


def bartlett(M):
    M, n = _window(M)
    return jnp.ones(M) if M <= 1 else 1 - jnp.abs(2 * n + 1 - M) / (M - 1)


def blackman(M):
    M, n = _window(M)
    if M <= 1:
        return jnp.ones(M)
    return 0.42 - 0.5 * jnp.cos(2 * jnp.pi * n / (M - 1)) + 0.08 * jnp.cos(4 * jnp.pi * n / (M - 1))


# Functional forms.
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    arr = jnp.asarray(arr)
    axis = _axis(axis, arr.ndim)
    func = lambda row: func1d(row, *args, **kwargs)
    for i in range(1, arr.ndim - axis):
        func = jax.vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = jax.vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    a = jnp.asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = jnp.expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    shape = tuple(operator.index(d) for d in shape)
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = jax.vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(jnp.arange(s, dtype=dtype) for s in shape), **kwargs)


def _arraylike(x):
    return isinstance(x, (jax.Array, bool, int, float)) or (hasattr(x, "shape") and hasattr(x, "dtype"))


def _jitted_polyval():
    # Named as JAX's, for the `jit` equation that shows it.
    def polyval(p, x, *, unroll=16):
        dtype = jnp.result_type(p, x)
        p = jnp.asarray(p, dtype)
        x = jnp.asarray(x, dtype)
        y = jnp.zeros(jnp.broadcast_shapes(p.shape[1:], x.shape), x.dtype)
        y, _ = lax.scan(lambda y, p: (y * x + p, None), y, p, unroll=unroll)
        return y

    return jax.jit(polyval, static_argnames=("unroll",))


_polyval_jit = _jitted_polyval()


def polyval(p, x, *, unroll=16):
    """Horner's rule as JAX's: a jitted scan over the coefficients (XLA fuses each step's
    multiply into its add, so the float32 results are JAX's)."""
    for position, arg in enumerate((p, x)):
        if not _arraylike(arg):
            raise TypeError(f"polyval requires ndarray or scalar arguments, got {type(arg)} at position {position}.")
    return _polyval_jit(p, x, unroll=unroll)
