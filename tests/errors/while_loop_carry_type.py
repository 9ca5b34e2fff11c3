# The body must give back the carry's types; an int where a float went in is JAX's TypeError.
from jax import lax

print(lax.while_loop(lambda c: c < 3.0, lambda c: (c + 1.0).astype(int), 1.0))
