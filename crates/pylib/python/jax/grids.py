"""jnp.mgrid and jnp.ogrid, as JAX writes them: a grid object indexed with slices, each slice
an arange (or, with a complex step, a linspace of that many points, the stop included), the
results promoted to one dtype and spread by meshgrid (stacked for mgrid, a list of broadcastable
arrays for ogrid)."""

import jax.numpy as jnp


def _one_axis(s):
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return jnp.linspace(start, s.stop, int(abs(step)))
    return jnp.arange(start, s.stop, step)


class _Grid:
    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _one_axis(key)
        axes = [_one_axis(k) for k in key]
        dtype = jnp.result_type(*axes) if axes else jnp.int32
        axes = [a.astype(dtype) for a in axes]
        grids = jnp.meshgrid(*axes, indexing="ij", sparse=self.sparse)
        if self.sparse:
            return grids
        if not grids:
            return jnp.arange(0)
        return jnp.stack(grids, 0)


mgrid = _Grid(False)
ogrid = _Grid(True)


class _IndexExpression:
    """`s_[...]` gives back its index (a slice, or a tuple of them); `index_exp[...]` always a
    tuple."""

    def __init__(self, maketuple):
        self.maketuple = maketuple

    def __getitem__(self, item):
        if self.maketuple and not isinstance(item, tuple):
            return (item,)
        return item


s_ = _IndexExpression(False)
index_exp = _IndexExpression(True)
