# A slice past the end is empty, as in NumPy (and prints as []); an index past the end is
# clamped, as JAX clamps it (x[5] is x[2]); but an empty axis has nothing to clamp to, so
# indexing it is JAX's IndexError. (Printing an empty array used to panic.)
import jax.numpy as jnp

x = jnp.arange(3.0)
print(x[5:], x[5])
print(repr(jnp.zeros((2, 0))))
print(jnp.zeros((0, 2))[0])
