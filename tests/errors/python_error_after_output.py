# What was printed before an error is kept; the error comes after it.
import jax.numpy as jnp

x = jnp.arange(3.0)
print("x =", x)
print(x.sum())
print(x.reshape(2, 2))
