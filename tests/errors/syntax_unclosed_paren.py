# An opening parenthesis that is never closed swallows the rest of the script; the error points
# at the bracket that was opened, not at the end of the file.
import jax.numpy as jnp

x = jnp.ones((2, 3)
y = x + 1
print(y)
