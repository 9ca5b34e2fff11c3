# where: condition, x and y must broadcast together.
import jax.numpy as jnp

x = jnp.arange(6.0).reshape(2, 3)
print(jnp.where(x > 2, x, jnp.zeros(2)))
