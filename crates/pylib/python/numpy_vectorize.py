"""numpy.vectorize: the function called on the host for every element (or, with a signature,
every core-dimension slice) of the broadcast arguments, in C order, with NumPy's result dtypes
and errors."""

import itertools

import numpy as np
from jax._vectorize import apply_excluded, broadcast_shapes, parse_signature


def _update_dim_sizes(dim_sizes, shape, core_dims):
    if len(shape) < len(core_dims):
        raise ValueError(
            "%d-dimensional argument does not have enough dimensions for all core dimensions %r" % (len(shape), core_dims)
        )
    core_shape = tuple(shape[len(shape) - len(core_dims) :]) if core_dims else ()
    for dim, size in zip(core_dims, core_shape):
        if dim not in dim_sizes:
            dim_sizes[dim] = size
        elif size != dim_sizes[dim]:
            raise ValueError("inconsistent size for core dimension %r: %r vs %r" % (dim, size, dim_sizes[dim]))


def _mismatch(shapes):
    def mismatch(i, j):
        raise ValueError(
            "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between "
            f"arg {i} with shape {tuple(shapes[i])} and arg {j} with shape {tuple(shapes[j])}."
        )

    return mismatch


def _ufunc_mismatch(shapes):
    def mismatch(i, j):
        listed = "".join(f"{tuple(s)} " for s in shapes)
        raise ValueError(f"operands could not be broadcast together with shapes {listed}")

    return mismatch


class vectorize:
    def __init__(self, pyfunc=None, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        self.pyfunc = pyfunc
        self.cache = cache
        self.signature = signature
        self.excluded = set(excluded) if excluded else set()
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.otypes = [np.dtype(t) for t in otypes] if otypes is not None else None
        self.__doc__ = getattr(pyfunc, "__doc__", None) if doc is None else doc
        if signature is not None:
            self._in_dims, self._out_dims = parse_signature(signature)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is None:
            # `@np.vectorize(otypes=...)`: the decorated function comes now.
            return vectorize(args[0], self.otypes, self.__doc__, self.excluded, self.cache, self.signature)
        func, args, kwargs = apply_excluded(self.pyfunc, self.excluded, args, kwargs)
        call = lambda *a: func(*a, **kwargs)
        args = [np.asarray(a) for a in args]
        if self.signature is not None:
            return self._with_signature(call, args)
        if not args:
            raise TypeError("vectorize() requires at least one argument")
        shape = broadcast_shapes([a.shape for a in args], _ufunc_mismatch([a.shape for a in args]))
        elements = [np.broadcast_to(a, shape).ravel() for a in args]
        size = elements[0].size
        otypes = self.otypes
        if otypes is None:
            if size == 0:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
            # NumPy calls the function on the first elements (NumPy scalars) for the result
            # types, then on every element again as a Python object (the first twice unless
            # cache=True).
            first = call(*[e[0] for e in elements])
            outputs = first if isinstance(first, tuple) else (first,)
            otypes = [np.asarray(o).dtype for o in outputs]
        results = []
        for i in range(size):
            if i == 0 and self.otypes is None and self.cache:
                out = first
            else:
                out = call(*[e[i].item() for e in elements])
            results.append(out if isinstance(out, tuple) else (out,))
        arrays = []
        for k, dtype in enumerate(otypes):
            values = [r[k] for r in results]
            arrays.append(np.array(values, dtype=dtype).reshape(shape))
        return arrays[0] if len(otypes) == 1 else tuple(arrays)

    def _with_signature(self, call, args):
        in_dims, out_dims = self._in_dims, self._out_dims
        if len(args) != len(in_dims):
            raise TypeError("wrong number of positional arguments: expected %r, got %r" % (len(in_dims), len(args)))
        dim_sizes = {}
        for a, dims in zip(args, in_dims):
            _update_dim_sizes(dim_sizes, a.shape, dims)
        loops = [tuple(a.shape[: a.ndim - len(dims)]) for a, dims in zip(args, in_dims)]
        loop = broadcast_shapes(loops, _mismatch(loops))
        args = [
            np.broadcast_to(a, tuple(loop) + tuple(dim_sizes[d] for d in dims)) for a, dims in zip(args, in_dims)
        ]
        nout = len(out_dims)
        outputs = None
        for index in itertools.product(*[range(n) for n in loop]):
            results = call(*[a[index] for a in args])
            n_results = len(results) if isinstance(results, tuple) else 1
            if nout != n_results:
                raise ValueError(f"wrong number of outputs from pyfunc: expected {nout}, got {n_results}")
            if nout == 1:
                results = (results,)
            if outputs is None:
                for result, dims in zip(results, out_dims):
                    _update_dim_sizes(dim_sizes, np.shape(result), dims)
                outputs = []
                for k, dims in enumerate(out_dims):
                    dtype = self.otypes[k] if self.otypes else np.asarray(results[k]).dtype
                    outputs.append(np.empty(tuple(loop) + tuple(dim_sizes[d] for d in dims), dtype=dtype))
            for output, result in zip(outputs, results):
                output[index] = result
        if outputs is None:
            if self.otypes is None:
                raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
            for dims in out_dims:
                if any(d not in dim_sizes for d in dims):
                    raise ValueError(
                        "cannot call `vectorize` with a signature including new output dimensions on size 0 inputs"
                    )
            outputs = [
                np.empty(tuple(loop) + tuple(dim_sizes[d] for d in dims), dtype=t) for dims, t in zip(out_dims, self.otypes)
            ]
        return outputs[0] if nout == 1 else tuple(outputs)
