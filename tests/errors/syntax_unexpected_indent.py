# A line indented for no reason.
import jax.numpy as jnp
x = jnp.ones(3)
    y = x * 2
print(y)
