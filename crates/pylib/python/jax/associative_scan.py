"""jax.lax.associative_scan: a parallel prefix scan with an associative `fn`, as JAX writes
it (Blelloch's odd/even recursion: combine neighbours, scan the half, combine back, and
interleave the two halves with interior padding), in log2(n) levels of whole-array operations
rather than n sequential steps."""

import jax
from jax import lax


def _slice(x, start, stop, step, axis):
    return x[(slice(None),) * axis + (slice(start, stop, step),)]


def _interleave(a, b, axis):
    """a and b (as long, or a one longer) interleaved along `axis`: a[0], b[0], a[1], …"""
    same = a.shape[axis] == b.shape[axis]
    a_pad = [(0, 0, 0)] * a.ndim
    b_pad = [(0, 0, 0)] * b.ndim
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    a = lax.pad(a, jax.numpy.zeros((), a.dtype), a_pad)
    b = lax.pad(b, jax.numpy.zeros((), b.dtype), b_pad)
    return (a | b) if a.dtype == jax.numpy.bool_ else a + b


def associative_scan(fn, elems, reverse=False, axis=0):
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    elems_flat, tree = jax.tree_util.tree_flatten(elems)
    elems_flat = [jax.numpy.asarray(e) for e in elems_flat]
    if reverse:
        elems_flat = [lax.rev(e, [axis]) for e in elems_flat]

    def combine(a_flat, b_flat):
        a = jax.tree_util.tree_unflatten(tree, a_flat)
        b = jax.tree_util.tree_unflatten(tree, b_flat)
        return jax.tree_util.tree_flatten(fn(a, b))[0]

    ndim = elems_flat[0].ndim
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    axis = axis % ndim
    num_elems = elems_flat[0].shape[axis]
    if any(e.shape[axis] != num_elems for e in elems_flat[1:]):
        raise ValueError(
            f"Array inputs to associative_scan must have the same first dimension. (saw: {[e.shape for e in elems_flat]})"
        )

    def scan(elems):
        n = elems[0].shape[axis]
        if n < 2:
            return elems
        reduced = combine([_slice(e, 0, -1, 2, axis) for e in elems], [_slice(e, 1, None, 2, axis) for e in elems])
        odd = scan(reduced)
        if n % 2 == 0:
            even = combine([_slice(e, 0, -1, 1, axis) for e in odd], [_slice(e, 2, None, 2, axis) for e in elems])
        else:
            even = combine(odd, [_slice(e, 2, None, 2, axis) for e in elems])
        even = [lax.concatenate([_slice(e, 0, 1, 1, axis), r], axis) for e, r in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scans = scan(elems_flat)
    if reverse:
        scans = [lax.rev(s, [axis]) for s in scans]
    return jax.tree_util.tree_unflatten(tree, scans)
