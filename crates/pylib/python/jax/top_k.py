"""jax.lax.top_k: the k largest entries along an axis, and their indices.

XLA's TopK on a TPU is a sort; so is this: a stable sort of the negated values (NaN above
every number, as TopK orders it), so equal entries keep the lower index first, as JAX
documents. -0.0 and 0.0 compare equal here, where XLA's total order puts 0.0 first.
"""

import jax.numpy as jnp


def top_k(operand, k, *, axis=-1):
    operand = jnp.asarray(operand)
    k = int(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not -operand.ndim <= axis < operand.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {operand.ndim}")
    axis %= operand.ndim
    if k > operand.shape[axis]:
        raise ValueError(
            f"k argument to top_k must be no larger than size along axis; got k={k} with "
            f"shape={list(operand.shape)} and axis={axis}"
        )
    if jnp.issubdtype(operand.dtype, jnp.floating):
        key = jnp.where(jnp.isnan(operand), -jnp.inf, -operand)
    else:
        key = -operand.astype(jnp.int32) if operand.dtype != jnp.bool_ else ~operand
    order = jnp.argsort(key, axis=axis, stable=True)
    indices = jnp.take(order, jnp.arange(k), axis=axis)
    values = jnp.take_along_axis(operand, indices, axis=axis)
    # A list, as JAX's primitive returns its two outputs.
    return [values, indices.astype(jnp.int32)]
