"""jax.scipy.signal's convolutions, as JAX writes them: the smaller input flipped and slid over
the larger one by lax.conv_general_dilated (one feature, one batch), padded for the mode. The
playground's arrays are real, so JAX's conjugations are left out; the FFT method is not here."""

import jax.numpy as jnp
from jax import lax


def _convolve_nd(in1, in2, mode, precision):
    if mode not in ["full", "same", "valid"]:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 must have the same number of dimensions")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"zero-size arrays not supported in convolutions, got shapes {in1.shape} and {in2.shape}.")
    dtype = jnp.result_type(in1, in2, 1.0)
    in1, in2 = in1.astype(dtype), in2.astype(dtype)
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError("One input must be smaller than the other in every dimension.")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    in2 = jnp.flip(in2)
    if mode == "valid":
        padding = [(0, 0) for s in shape]
    elif mode == "same":
        padding = [(s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2) for (s, s_o) in zip(shape, shape_o)]
    else:
        padding = [(s - 1, s - 1) for s in shape]
    strides = tuple(1 for s in shape)
    result = lax.conv_general_dilated(in1[None, None], in2[None, None], strides, padding, precision=precision)
    return result[0, 0]


def convolve(in1, in2, mode="full", method="auto", precision=None):
    if method == "fft":
        raise NotImplementedError("jax.scipy.signal.convolve with method='fft' is not supported by the playground yet")
    if method not in ["direct", "auto"]:
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    return _convolve_nd(in1, in2, mode, precision)


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("convolve2d() only supports boundary='fill', fillvalue=0")
    if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
        raise ValueError("convolve2d() only supports 2-dimensional inputs.")
    return _convolve_nd(in1, in2, mode, precision)


def correlate(in1, in2, mode="full", method="auto", precision=None):
    return convolve(in1, jnp.flip(jnp.asarray(in2)), mode, precision=precision, method=method)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0, precision=None):
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError("correlate2d() only supports boundary='fill', fillvalue=0")
    if jnp.ndim(in1) != 2 or jnp.ndim(in2) != 2:
        raise ValueError("correlate2d() only supports 2-dimensional inputs.")
    in1, in2 = jnp.asarray(in1), jnp.asarray(in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = all(s1 == s2 for s1, s2 in zip(in1.shape, in2.shape))
    if mode == "same":
        return jnp.flip(_convolve_nd(jnp.flip(in1), in2, mode, precision))
    if mode == "valid":
        if swap and not same_shape:
            return _convolve_nd(jnp.flip(in2), in1, mode, precision)
        return jnp.flip(_convolve_nd(jnp.flip(in1), in2, mode, precision))
    if swap:
        return _convolve_nd(jnp.flip(in2), in1, mode, precision)
    return jnp.flip(_convolve_nd(jnp.flip(in1), in2, mode, precision))
