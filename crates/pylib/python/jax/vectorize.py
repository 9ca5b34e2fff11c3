"""jax.numpy.vectorize: a function of core-dimension slices mapped over the other (loop)
dimensions with nested vmaps, one per loop dimension, as JAX does it; arguments of size 1 on
a loop dimension are not mapped there but broadcast. Signatures are parsed here for
numpy.vectorize too."""

import jax
import jax.numpy as jnp


def _names(text, signature):
    """The core dimensions of each argument in `(n),(),(m,k)`."""
    groups = []
    rest = text
    while True:
        if not rest.startswith("("):
            raise ValueError(f"not a valid gufunc signature: {signature}")
        close = rest.find(")")
        if close < 0:
            raise ValueError(f"not a valid gufunc signature: {signature}")
        inside = rest[1:close]
        names = tuple(inside.split(",")) if inside else ()
        if any(not n or not all(c.isalnum() or c == "_" for c in n) for n in names):
            raise ValueError(f"not a valid gufunc signature: {signature}")
        groups.append(names)
        rest = rest[close + 1 :]
        if not rest:
            return groups
        if not rest.startswith(","):
            raise ValueError(f"not a valid gufunc signature: {signature}")
        rest = rest[1:]


def parse_signature(signature):
    """Input and output core dimensions of a generalized ufunc signature, `(m,n),(n)->(m)`."""
    parts = signature.split("->")
    if len(parts) != 2:
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return _names(parts[0], signature), _names(parts[1], signature)


def _update_dim_sizes(dim_sizes, shape, core_dims, context, is_input):
    """Checks one argument's (or result's) core dimensions against the sizes seen so far."""
    if is_input and len(shape) < len(core_dims):
        raise ValueError(
            f"input with shape {tuple(shape)!r} does not have enough dimensions for all core dimensions {core_dims!r} {context}"
        )
    if not is_input and len(shape) != len(core_dims):
        raise ValueError(f"output shape {tuple(shape)!r} does not match core dimensions {core_dims!r} {context}")
    core_shape = tuple(shape[len(shape) - len(core_dims) :]) if core_dims else ()
    for dim, size in zip(core_dims, core_shape):
        if dim not in dim_sizes:
            dim_sizes[dim] = size
        elif size != dim_sizes[dim]:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs {dim_sizes[dim]!r} {context}")


def broadcast_shapes(shapes, mismatch):
    """The shape `shapes` broadcast to; `mismatch(i, j)` raises for shapes i and j that do not."""
    out = []
    for axis in range(1, max([len(s) for s in shapes] + [0]) + 1):
        size, first = 1, None
        for i, s in enumerate(shapes):
            d = s[len(s) - axis] if axis <= len(s) else 1
            if d != 1:
                if size != 1 and d != size:
                    mismatch(first, i)
                size, first = d, i
        out.append(size)
    return tuple(reversed(out))


def _jax_mismatch(shapes):
    def mismatch(i, j):
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}")

    return mismatch


def _loop_shape(args, input_core_dims, context):
    """The loop dimensions all arguments broadcast to, and the core dimensions' sizes."""
    if len(args) != len(input_core_dims):
        raise TypeError(
            f"wrong number of positional arguments: expected {len(input_core_dims)!r}, got {len(args)!r} {context}"
        )
    dim_sizes = {}
    shapes = []
    for arg, core_dims in zip(args, input_core_dims):
        _update_dim_sizes(dim_sizes, arg.shape, core_dims, context, True)
        shapes.append(tuple(arg.shape[: arg.ndim - len(core_dims)]))
    return broadcast_shapes(shapes, _jax_mismatch(shapes)), dim_sizes


def apply_excluded(func, excluded, args, kwargs):
    """func with the excluded positional and keyword arguments bound, and the others."""
    if not excluded:
        return func, args, kwargs
    dynamic_args = [arg for i, arg in enumerate(args) if i not in excluded]
    dynamic_kwargs = {key: val for key, val in kwargs.items() if key not in excluded}
    static_args = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int)) if i < len(args)]
    static_kwargs = {key: val for key, val in kwargs.items() if key in excluded}

    def bound(*args, **kwargs):
        args = list(args)
        for i, arg in static_args:
            args.insert(i, arg)
        return func(*args, **kwargs, **static_kwargs)

    return bound, dynamic_args, dynamic_kwargs


def _checked(func, dim_sizes, output_core_dims, context):
    def wrapped(*args):
        out = func(*args)
        shapes = [jnp.shape(o) for o in (out if isinstance(out, tuple) else [out])]
        if len(output_core_dims) > 1 and not isinstance(out, tuple):
            raise TypeError(f"output must be a tuple when multiple outputs are expected, got: {out!r}\n{context}")
        if len(shapes) != len(output_core_dims):
            raise TypeError(
                f"wrong number of output arguments: expected {len(output_core_dims)!r}, got {len(shapes)!r} {context}"
            )
        sizes = dict(dim_sizes)
        for shape, core_dims in zip(shapes, output_core_dims):
            _update_dim_sizes(sizes, shape, core_dims, context, False)
        return out

    return wrapped


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(f"jax.numpy.vectorize can only exclude integer or string arguments, but excluded={excluded!r}")
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and signature={signature!r}"
        func, args, kwargs = apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            input_core_dims, output_core_dims = parse_signature(signature)
        else:
            input_core_dims, output_core_dims = [()] * len(args), None
        none_args = {i for i, arg in enumerate(args) if arg is None}
        if any(none_args):
            if any(input_core_dims[i] != () for i in none_args):
                raise ValueError(f"Cannot pass None at locations {none_args} with signature={signature}")
            func, args, _ = apply_excluded(func, none_args, args, {})
            input_core_dims = [dim for i, dim in enumerate(input_core_dims) if i not in none_args]
        args = [jnp.asarray(arg) for arg in args]
        broadcast_shape, dim_sizes = _loop_shape(args, input_core_dims, context)
        checked = lambda *a: func(*a, **kwargs)
        if output_core_dims is not None:
            checked = _checked(checked, dim_sizes, output_core_dims, context)
        # Loop dimensions of size 1 are squeezed and broadcast instead of mapped.
        squeezed = []
        filled_reversed = []
        for arg, core_dims in zip(args, input_core_dims):
            loop = arg.shape[: arg.ndim - len(core_dims)]
            filled = (1,) * (len(broadcast_shape) - len(loop)) + tuple(loop)
            squeezed.append(jnp.squeeze(arg, axis=tuple(i for i, size in enumerate(loop) if size == 1)))
            filled_reversed.append(filled[::-1])
        mapped = checked
        dims_to_expand = []
        for negdim, sizes in enumerate(zip(*filled_reversed)):
            in_axes = tuple(None if size == 1 else 0 for size in sizes)
            if all(axis is None for axis in in_axes):
                dims_to_expand.append(len(broadcast_shape) - 1 - negdim)
            else:
                mapped = jax.vmap(mapped, in_axes)
        result = mapped(*squeezed)
        if not dims_to_expand:
            return result
        if isinstance(result, tuple):
            return tuple(jnp.expand_dims(r, axis=dims_to_expand) for r in result)
        return jnp.expand_dims(result, axis=dims_to_expand)

    return wrapped
