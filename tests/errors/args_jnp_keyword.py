# jnp.sum takes `axis`, not `axes`.
import jax.numpy as jnp

print(jnp.sum(jnp.ones((2, 3)), axes=0))
