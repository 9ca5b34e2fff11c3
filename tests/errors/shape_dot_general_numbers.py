# lax.dot_general with dimension numbers of the wrong shape (a pair of pairs is expected).
import jax
import jax.numpy as jnp

print(jax.lax.dot_general(jnp.ones((2, 3)), jnp.ones((3, 4)), ((1, 0),)))
