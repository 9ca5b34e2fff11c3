# nonzero under jit without size=: the result's length would depend on the values.
import jax
import jax.numpy as jnp

x = jnp.array([0.0, 2.0, 0.0, 3.0])
print(jax.jit(lambda v: jnp.nonzero(v))(x))
