# A real lax function the playground lacks.
import jax
import jax.numpy as jnp

y = jax.lax.ragged_dot(jnp.ones((4, 2)), jnp.ones((2, 2, 3)), jnp.array([2, 2]))
