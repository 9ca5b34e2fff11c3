# jnp.linalg has norm only: the rest is named as not supported yet.
import jax.numpy as jnp

x = jnp.eye(3)
print(jnp.linalg.inv(x))
