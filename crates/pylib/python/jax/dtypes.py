"""jax.dtypes: JAX's dtype helpers, without 64-bit types on the device (x64 off, as JAX's
default): a 64-bit type canonicalizes to its 32-bit one."""

import jax.numpy as jnp
import numpy as np

bfloat16 = jnp.bfloat16
finfo = jnp.finfo
iinfo = jnp.iinfo
issubdtype = jnp.issubdtype
result_type = jnp.result_type

# What each 64-bit type becomes where x64 is off.
_NARROWED = {"float64": "float32", "int64": "int32", "uint64": "uint32"}


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype JAX stores `dtype` as: float64 as float32, int64 as int32, uint64 as uint32."""
    d = np.dtype(dtype)
    return np.dtype(_NARROWED.get(d.name, d.name))
