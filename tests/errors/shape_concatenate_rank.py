# concatenate of a matrix and a vector.
import jax.numpy as jnp

print(jnp.concatenate([jnp.ones((2, 3)), jnp.ones(3)]))
