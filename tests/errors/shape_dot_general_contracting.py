# lax.dot_general whose contracted axes differ in size: JAX's TypeError, with the sizes.
import jax
import jax.numpy as jnp

a = jnp.ones((2, 3))
b = jnp.ones((3, 4))
print(jax.lax.dot_general(a, b, (((1,), (1,)), ((), ()))))
