"""The `mode=` of `x.at[index]`'s methods: JAX's GatherScatterMode. The default (out-of-range
reads clamped, writes dropped), `promise_in_bounds` and `drop` are what the playground's
indexing does already; `fill` (reads out of range give `fill_value`) and `clip` (indices
clamped into range, for writes too) rewrite the array and the index here."""

import jax.numpy as jnp


def _is_mask(item):
    return hasattr(item, "dtype") and item.dtype == jnp.bool_ or isinstance(item, bool)


def _axes_taken(item):
    if item is None or item is Ellipsis:
        return 0
    if _is_mask(item):
        return max(jnp.ndim(item), 1) if not isinstance(item, bool) else 0
    return 1


def default_fill(dtype):
    if jnp.issubdtype(dtype, jnp.inexact):
        return jnp.nan
    if dtype == jnp.bool_:
        return True
    if jnp.issubdtype(dtype, jnp.signedinteger):
        return jnp.iinfo(dtype).min
    return jnp.iinfo(dtype).max


def with_mode(x, index, mode, fill_value):
    """`(array, index)` to index as usual for `mode` ('fill' or 'clip')."""
    items = list(index) if isinstance(index, tuple) else [index]
    taken = sum(_axes_taken(item) for item in items)
    axis = 0
    out = []
    padded = []
    for item in items:
        if item is Ellipsis:
            axis += x.ndim - taken
            out.append(item)
        elif item is None or isinstance(item, slice) or _is_mask(item):
            axis += _axes_taken(item)
            out.append(item)
        else:
            i = jnp.asarray(item)
            n = x.shape[axis]
            i = jnp.where(i < 0, i + n, i)
            if mode == "clip":
                out.append(jnp.clip(i, 0, n - 1))
            else:
                # Out of range: the extra slot holding the fill value.
                out.append(jnp.where((i < 0) | (i >= n), n, i))
                padded.append(axis)
            axis += 1
    if padded:
        if fill_value is None:
            fill_value = default_fill(x.dtype)
        widths = [(0, 1) if d in padded else (0, 0) for d in range(x.ndim)]
        x = jnp.pad(x, widths, constant_values=jnp.asarray(fill_value).astype(x.dtype))
    return x, tuple(out)
