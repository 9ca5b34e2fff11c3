# jnp.relu does not exist in JAX either (it is jax.nn.relu).
import jax.numpy as jnp

x = jnp.relu(jnp.ones(3))
