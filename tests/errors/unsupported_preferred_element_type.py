# A matmul of bfloat16 operands accumulated into float32 (preferred_element_type): valid JAX, not
# in the playground yet, which computes a dot in its operands' own dtype.
import jax.numpy as jnp

a = jnp.ones((2, 3), dtype=jnp.bfloat16)
c = jnp.ones((3, 2), dtype=jnp.bfloat16)
print(jnp.matmul(a, c, preferred_element_type=jnp.float32))
