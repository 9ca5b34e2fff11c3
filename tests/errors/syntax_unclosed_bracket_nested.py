# Nested brackets: the outermost unclosed one is reported.
import jax.numpy as jnp

data = [[1.0, 2.0], [3.0, 4.0]
print(jnp.array(data))
