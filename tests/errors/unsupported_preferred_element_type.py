# A matmul of float32 operands asked for bfloat16 results (preferred_element_type): valid JAX,
# not in the playground yet, which takes the operands' own dtype or float32 sums of bfloat16.
import jax.numpy as jnp

a = jnp.ones((2, 3))
c = jnp.ones((3, 2))
print(jnp.matmul(a, c, preferred_element_type=jnp.bfloat16))
