"""jax.numpy functions written in Python, as JAX writes them."""

import jax.numpy as jnp


def _broadcast_shapes(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={[a, b]}")
        out.append(y if x == 1 else x)
    return tuple(out)


def broadcast_shapes(*shapes):
    """The shape arrays of these shapes broadcast to, as a tuple of ints."""
    if not shapes:
        return ()
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    rank = max(len(s) for s in shapes)
    out = []
    for sizes in zip(*[(1,) * (rank - len(s)) + s for s in shapes]):
        other = {d for d in sizes if d != 1}
        if len(other) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(other.pop() if other else 1)
    return tuple(out)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """linspace between arrays of bounds: `num` points along `axis`, the bounds broadcast."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start = jnp.asarray(start, dtype=float)
    stop = jnp.asarray(stop, dtype=float)
    bounds_shape = list(_broadcast_shapes(start.shape, stop.shape))
    broadcast_start = jnp.broadcast_to(start, bounds_shape)
    broadcast_stop = jnp.broadcast_to(stop, bounds_shape)
    axis = len(bounds_shape) + axis + 1 if axis < 0 else axis
    bounds_shape.insert(axis, 1)
    div = (num - 1) if endpoint else num
    if num > 1:
        delta = (stop - start) / div
        iota_shape = [1] * len(bounds_shape)
        iota_shape[axis] = div
        # The endpoints are recovered exactly: start·(1 − t) + stop·t.
        step = jnp.reshape(jnp.arange(div, dtype=float), iota_shape) / div
        out = jnp.reshape(broadcast_start, bounds_shape) * (1 - step) + jnp.reshape(broadcast_stop, bounds_shape) * step
        if endpoint:
            out = jnp.concatenate([out, jnp.expand_dims(broadcast_stop, axis)], axis)
    elif num == 1:
        delta = jnp.nan
        out = jnp.reshape(broadcast_start, bounds_shape)
    else:
        delta = jnp.nan
        bounds_shape[axis] = 0
        out = jnp.zeros(bounds_shape)
    if dtype is not None:
        out = out.astype(dtype)
    return (out, delta) if retstep else out


def indices(dimensions, dtype=None, sparse=False):
    """Each position's index along each axis of a grid of `dimensions`: stacked (n, *dimensions),
    or with `sparse` one array per axis shaped to broadcast."""
    dimensions = tuple(dimensions)
    dtype = jnp.int32 if dtype is None else dtype
    n = len(dimensions)
    out = []
    for i, size in enumerate(dimensions):
        shape = [1] * n
        shape[i] = size
        axis = jnp.reshape(jnp.arange(size, dtype=dtype), shape)
        out.append(axis if sparse else jnp.broadcast_to(axis, dimensions))
    if sparse:
        return tuple(out)
    return jnp.stack(out) if out else jnp.zeros((0,), dtype=dtype)


def bincount(x, weights=None, minlength=0, *, length=None):
    """How often each value 0..length-1 occurs in x (negative values count as 0), or the sum of
    their weights. Without `length` the values must be concrete, as in JAX."""
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    if str(x.dtype) not in ("int32", "uint32", "bool"):
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if length is None:
        length = max(minlength, x.size and int(x.max()) + 1)
    if weights is None:
        weights = jnp.ones(x.shape, dtype=jnp.int32)
    else:
        weights = jnp.asarray(weights)
        if weights.shape != x.shape:
            raise ValueError("shape of weights must match shape of x.")
    # Each value compared with every bin: exact in any dtype, and values past the last bin
    # fall out, as JAX's scatter with mode='drop' drops them.
    hits = jnp.clip(x, 0)[:, None] == jnp.arange(length)[None, :]
    return jnp.sum(jnp.where(hits, weights[:, None], jnp.zeros((), weights.dtype)), axis=0)
