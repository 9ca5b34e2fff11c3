"""np.mgrid and np.ogrid, as NumPy 2.4's nd_grid computes them: the size of each axis from its
slice (a complex step is a number of points, the stop included), one dtype for all from the
bounds, and each axis as start + index·step (stacked for mgrid, a tuple of broadcastable arrays
for ogrid)."""

import math

import numpy as np
from jax._grids import index_exp, s_  # noqa: F401 (the same objects in both libraries)


class _Grid:
    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self._one(key)
        size = []
        numbers = [0]
        for k in key:
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, complex):
                step = abs(step)
                size.append(int(step))
            else:
                size.append(math.ceil((k.stop - start) / step))
            numbers += [start, k.stop, step]
        dtype = np.result_type(*numbers)
        grids = []
        for i, n in enumerate(size):
            shape = [1] * len(size)
            shape[i] = n
            axis = np.arange(n, dtype=dtype).reshape(shape)
            grids.append(axis if self.sparse else np.broadcast_to(axis, size))
        for i, k in enumerate(key):
            start = 0 if k.start is None else k.start
            step = 1 if k.step is None else k.step
            if isinstance(step, complex):
                step = int(abs(step))
                if step != 1:
                    step = (k.stop - start) / float(step - 1)
            grids[i] = grids[i] * step + start
        if self.sparse:
            return tuple(grids)
        return np.stack(grids) if grids else np.indices(size, dtype)

    def _one(self, key):
        start = 0 if key.start is None else key.start
        step = key.step
        if isinstance(step, complex):
            length = int(abs(step))
            dtype = np.result_type(start, key.stop, abs(step))
            step = (key.stop - start) / float(length - 1) if length != 1 else length
            return np.arange(0, length, 1, dtype=dtype) * step + start
        return np.arange(start, key.stop, 1 if step is None else step)


mgrid = _Grid(False)
ogrid = _Grid(True)
