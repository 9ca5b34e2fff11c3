"""NumPy's abstract scalar classes (np.generic, number, integer, signedinteger, unsignedinteger,
inexact, floating, complexfloating) with issubdtype and isinstance, on the host and in
jax.numpy, where they are the same classes."""
import numpy as np
import jax.numpy as jnp

kinds = [np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger, np.inexact, np.floating,
         np.complexfloating]
for dtype in [np.float32, np.float64, np.int32, np.int64, np.uint32, np.bool_]:
    print(np.dtype(dtype).name, [k.__name__ for k in kinds if np.issubdtype(dtype, k)])
print(np.issubdtype(np.floating, np.inexact), np.issubdtype(np.inexact, np.floating), np.issubdtype(np.integer, np.int32))
print(np.issubdtype(np.float32, float), np.issubdtype(np.float64, float), np.issubdtype(np.int64, int))
print(np.issubdtype(np.float32, np.float32), np.issubdtype("float32", np.floating), np.issubdtype(np.int32, "int32"))
x = np.arange(3)
print(np.issubdtype(x.dtype, np.integer), np.issubdtype(x.astype(np.float32).dtype, np.floating))
print(isinstance(np.float32(1.5), np.floating), isinstance(np.int64(2), np.integer), isinstance(x[0], np.number))
print(isinstance(np.float64(1.0), np.integer), isinstance(1.5, np.floating), isinstance(x, np.generic))
print(isinstance(np.float32(2.0), np.float32), isinstance(np.float32(2.0), (np.integer, np.floating)))
print(np.floating, jnp.integer, np.dtype("float32") == np.float32)

a = jnp.arange(4)
print(jnp.issubdtype(a.dtype, jnp.integer), jnp.issubdtype(a.dtype, jnp.floating), jnp.issubdtype(jnp.float32, jnp.inexact))
print(jnp.issubdtype(jnp.bfloat16, jnp.floating), jnp.issubdtype(jnp.bool_, jnp.number), jnp.issubdtype(jnp.float32, float))
print(isinstance(a, jnp.integer), isinstance(a[0], jnp.number))
