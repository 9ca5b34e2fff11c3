# A slice past the end is empty, as in NumPy (and prints as []); an index past the end is an
# error. (Printing an empty array used to panic.)
import jax.numpy as jnp

x = jnp.arange(3.0)
print(x[5:])
print(repr(jnp.zeros((2, 0))))
print(x[5])
