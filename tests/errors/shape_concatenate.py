# concatenate along axis 0: the other dimensions (3 and 4) must agree.
import jax.numpy as jnp

a = jnp.ones((2, 3))
b = jnp.ones((2, 4))
print(jnp.concatenate([a, b], axis=0))
