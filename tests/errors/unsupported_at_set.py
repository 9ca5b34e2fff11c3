# Functional updates with .at[] are not supported yet.
import jax.numpy as jnp

x = jnp.zeros(4)
y = x.at[1].set(5.0)
