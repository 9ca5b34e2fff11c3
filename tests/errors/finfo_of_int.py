# jnp.finfo describes float dtypes; int32's limits are jnp.iinfo's.
import jax.numpy as jnp

print(jnp.finfo(jnp.int32).max)
